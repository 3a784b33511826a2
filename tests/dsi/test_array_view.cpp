// Array views (dsi/array_view.hpp): slices A[r] with any strides, reindex, rank change and their
// compositions, over every 2-D map of tests/iterators/test_misaligned.cpp (Block on three grids, Cyclic,
// BlockCyclic, Irregular Block, a column-major Dimensional mix, Replicated, Stencil, the
// user-defined weighted_block, Hashed and Unstructured): read through gather(), element access
// and local blocks; written through forall; zipped with arrays and views of other maps (both
// leading and following) and reduced; assigned between views and arrays of any two maps,
// overlapping self-assignment included; errors; plan reuse and rebuilding after a resize;
// exact communication of two assignments; empty views, 3-D planes and lines, views kept
// across a resize; transposed and permuted views (dmap::transpose, dmap::permute).
//
// Oracle: arrays hold closed forms of their indices (the base array f(i) = 1000 i0 + i1, the
// others h and c below). A view is modelled by two lists built by brute force from the tests'
// own rects (oracle.hpp's points_of): its indices in row-major order and the array index each one
// names. Slicing picks entries by name, reindexing renames the list in order, a rank change
// slices then projects. Expected values follow from those lists and the closed forms; results
// are read back by every locale from its own storage (every copy of a replicated array) and by
// locale 0 through the array's gather().
#include "../maps_2d.hpp"
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace test_array_view {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using namespace dmap::testing::oracle;
using dmap::testing::maps::maker;
using dmap::testing::maps::makers;

using array2 = dmap::array<double, 2>;
/// A view of a 2-D array with N dimensions.
template <std::size_t N>
using view_of_2d = dmap::array_view<double, N, 2>;

// ------------------------------------------------------------------------------- maps

/// Whether every locale holds a copy of every element (writes in a zip reach only the copies
/// where the leader runs them).
bool copies(const maker& m) { return m.name == "replicated"; }

// ------------------------------------------------------------------------------- closed forms

/// The base arrays' index set: 11 x 13, not starting at 0.
const rect<2> base_rect{range(1, 12), range(-2, 11)};
/// A second array's index set: 13 x 11.
const rect<2> other_rect{range(-3, 10), range(0, 11)};

double f_value(const idx<2>& i) { return 1000.0 * static_cast<double>(i[0]) + static_cast<double>(i[1]); }
double h_value(const idx<2>& i) { return -1000.0 * static_cast<double>(i[0]) - static_cast<double>(i[1]) - 0.5; }
double c_value(const idx<2>& i) { return 7 + 100.0 * static_cast<double>(i[0]) + static_cast<double>(i[1]); }
double line_value(const idx<1>& i) { return 0.25 + 10.0 * static_cast<double>(i[0]); }

/// Expected element values, by index.
template <std::size_t N>
using values = std::map<idx<N>, double>;

template <std::size_t N, class F>
values<N> values_of(const rect<N>& r, F value) {
  values<N> out;
  for (const auto& i : points_of(r)) out[i] = value(i);
  return out;
}

/// Collective: every element of `a` set to value(i), through a loop over its own domain.
template <std::size_t N, class F>
void fill(dmap::array<double, N>& a, F value) {
  dmap::forall(dmap::zip(a, a.domain()), [&](double& x, const idx<N>& i) { x = value(i); });
}

/// Collective: "" when `a` holds `want`: each locale compares what it stores (owned indices,
/// every copy of a replicated array) and locale 0 the gathered array.
template <std::size_t N>
std::string differences(const dmap::array<double, N>& a, const values<N>& want) {
  std::string fail;
  const auto note = [&](const std::string& s) {
    if (fail.empty()) fail = s;
  };
  const std::string here = "locale " + std::to_string(dmap::here());
  for (const auto& r : a.domain().local_subdomains())
    for (const auto& i : points_of(r)) {
      const auto it = want.find(i);
      if (it == want.end()) note(here + " owns " + text(i) + ", which is not an index");
      else if (a.local(i) != it->second)
        note(here + " stores " + text(a.local(i)) + " at " + text(i) + ", expected " + text(it->second));
    }
  const auto all = a.gather();
  if (dmap::here() == 0) {
    const auto order = points_of(a.domain().indices());
    if (all.size() != order.size()) note("gather: " + std::to_string(all.size()) + " elements");
    else
      for (std::size_t k = 0; k < order.size(); ++k)
        if (all[k] != want.at(order[k]))
          note("gather: " + text(all[k]) + " at " + text(order[k]) + ", expected " + text(want.at(order[k])));
  }
  return fail;
}

// ------------------------------------------------------------------------------- the view oracle

/// A view as the oracle sees it: its indices in row-major order and the 2-D array index each
/// one names.
template <std::size_t N>
struct view_model {
  std::vector<idx<N>> names;
  std::vector<idx<2>> targets;
};

/// A whole array seen as a view.
view_model<2> whole_model(const rect<2>& r) {
  const auto p = points_of(r);
  return {p, p};
}

/// The slice by `r`: the entries named by r's indices, in r's order.
template <std::size_t N>
view_model<N> sliced(const view_model<N>& v, const rect<N>& r) {
  std::map<idx<N>, idx<2>> by_name;
  for (std::size_t k = 0; k < v.names.size(); ++k) by_name[v.names[k]] = v.targets[k];
  view_model<N> out;
  for (const auto& i : points_of(r)) {
    const auto it = by_name.find(i);
    if (it == by_name.end()) throw std::logic_error("test setup: the slice " + text(r) + " leaves the view");
    out.names.push_back(i);
    out.targets.push_back(it->second);
  }
  return out;
}

/// Reindexing: the same targets, named in order by r's indices.
template <std::size_t N>
view_model<N> renamed(const view_model<N>& v, const rect<N>& r) {
  view_model<N> out{points_of(r), v.targets};
  if (out.names.size() != out.targets.size()) throw std::logic_error("test setup: renamed to another size");
  return out;
}

/// A rank change of a 2-D view: dimension `fixed_dim` held at `at`, the other one kept over `kept`.
view_model<1> fixed(const view_model<2>& v, std::size_t fixed_dim, index_t at, const range& kept) {
  rect<2> part;
  part.set_dim(fixed_dim, range(at, at + 1));
  part.set_dim(1 - fixed_dim, kept);
  const auto s = sliced(v, part);
  view_model<1> out;
  for (std::size_t k = 0; k < s.names.size(); ++k) {
    out.names.push_back(idx<1>{s.names[k][1 - fixed_dim]});
    out.targets.push_back(s.targets[k]);
  }
  return out;
}

/// A view to check: how to make it of an array over base_rect, and its model.
template <std::size_t N>
struct view_spec {
  std::string name;
  std::function<view_of_2d<N>(array2&)> make;
  view_model<N> model;
};

// Rects of base_rect's indices (and index sets of the same shapes) the cases use.
const rect<2> unit_part{range(2, 9), range(0, 7)};
const rect<2> strided_part{range(1, 12, 3), range(-2, 11, 2)};    // rows 1 4 7 10, columns -2 0 .. 10
const rect<2> backward_part{range(2, 11, -2), range(-1, 10, -3)};  // rows 10 8 6 4 2, columns 9 6 3 0
const rect<2> mixed_part{range(1, 12, 5), range(-2, 11, -6)};      // rows 1 6 11, columns 10 4 -2
const rect<2> shifted_names{range(101, 112), range(0, 13)};
const rect<2> reversed_names{range(0, 11, -1), range(-26, 0, 2)};
const rect<2> strided_part_names{range(0, 4), range(0, 7, -1)};
const rect<2> even_columns{range(1, 12), range(-2, 11, 2)};
const rect<2> inside_even_columns{range(3, 10, 2), range(0, 9, -4)};
const rect<2> flipped_columns{range(0, 11), range(0, 13, -1)};
const rect<2> flipped_rows{range(0, 11, -1), range(0, 13)};
const rect<2> picked_of_flipped{range(2, 8), range(1, 12, 5)};
const rect<2> last_element{range(11, 12), range(10, 11)};
const rect<2> row_4_every_4th{range(4, 5), range(-2, 11, 4)};    // (4, -2) (4, 2) (4, 6) (4, 10)
const rect<2> row_4_names{range(7, 10, 3), range(0, 8, 2)};       // row 7 only, columns 0 2 4 6
const rect<2> inside_row_4_names{range(7, 8, -1), range(2, 7, 4)};  // (7, 2) (7, 6)

std::vector<view_spec<2>> specs_2d() {
  const auto whole = whole_model(base_rect);
  return {
      {"unit-stride slice", [](array2& a) { return a[unit_part]; }, sliced(whole, unit_part)},
      {"strided slice", [](array2& a) { return a[strided_part]; }, sliced(whole, strided_part)},
      {"negative-stride slice", [](array2& a) { return a[backward_part]; }, sliced(whole, backward_part)},
      {"dmap::slice, mixed strides", [](array2& a) { return dmap::slice(a, mixed_part); }, sliced(whole, mixed_part)},
      {"reindex to shifted indices", [](array2& a) { return dmap::reindex(a, shifted_names); },
       renamed(whole, shifted_names)},
      {"reindex to reversed, strided indices", [](array2& a) { return dmap::reindex(a, reversed_names); },
       renamed(whole, reversed_names)},
      {"reindex of a strided slice", [](array2& a) { return dmap::reindex(a[strided_part], strided_part_names); },
       renamed(sliced(whole, strided_part), strided_part_names)},
      {"slice of a slice", [](array2& a) { return a[even_columns][inside_even_columns]; },
       sliced(sliced(whole, even_columns), inside_even_columns)},
      {"dmap::slice of a reversed reindex",
       [](array2& a) { return dmap::slice(dmap::reindex(a, flipped_columns), picked_of_flipped); },
       sliced(renamed(whole, flipped_columns), picked_of_flipped)},
      {"single element", [](array2& a) { return a[last_element]; }, sliced(whole, last_element)},
      {"slice of a reindexed single row",
       [](array2& a) { return dmap::reindex(a[row_4_every_4th], row_4_names)[inside_row_4_names]; },
       sliced(renamed(sliced(whole, row_4_every_4th), row_4_names), inside_row_4_names)},
  };
}

std::vector<view_spec<1>> specs_1d() {
  const auto whole = whole_model(base_rect);
  const rect<1> every_third{range(-1, 10, 3)};
  const rect<1> even_names{range(0, 22, 2)};
  return {
      {"row 3", [](array2& a) { return dmap::rank_change(a, 3, dmap::all); }, fixed(whole, 0, 3, base_rect.dim(1))},
      {"column 5", [](array2& a) { return dmap::rank_change(a, dmap::all, 5); }, fixed(whole, 1, 5, base_rect.dim(0))},
      {"row 7 of a strided slice", [](array2& a) { return dmap::rank_change(a[strided_part], 7, dmap::all); },
       fixed(sliced(whole, strided_part), 0, 7, strided_part.dim(1))},
      {"columns 8 4 0 of row 7 of a strided slice",
       [](array2& a) { return dmap::rank_change(a[strided_part], 7, range(0, 9, -4)); },
       fixed(sliced(whole, strided_part), 0, 7, range(0, 9, -4))},
      {"rows 9 7 5 3 of column 4", [](array2& a) { return dmap::rank_change(a, range(2, 10, -2), 4); },
       fixed(whole, 1, 4, range(2, 10, -2))},
      {"row 2 of a reversed reindex",
       [](array2& a) { return dmap::rank_change(dmap::reindex(a, flipped_rows), 2, dmap::all); },
       fixed(renamed(whole, flipped_rows), 0, 2, flipped_rows.dim(1))},
      {"slice of row 6", [every_third](array2& a) { return dmap::rank_change(a, 6, dmap::all)[every_third]; },
       sliced(fixed(whole, 0, 6, base_rect.dim(1)), every_third)},
      {"reindexed column -2",
       [even_names](array2& a) { return dmap::reindex(dmap::rank_change(a, dmap::all, -2), even_names); },
       renamed(fixed(whole, 1, -2, base_rect.dim(0)), even_names)},
  };
}

// ------------------------------------------------------------------------------- checks

/// Collects the first failure.
struct failures {
  std::string first;
  void operator()(const std::string& s) {
    if (first.empty() && !s.empty()) first = s;
  }
};

/// Collective: a view of an array over map `m`, read every way (indices, base_index, gather,
/// element access, local blocks, reduce) and written through forall, `= value` and a remote
/// element write.
template <std::size_t N>
std::string check_view(const maker& m, const view_spec<N>& spec) {
  failures note;
  const auto D = m.make(base_rect);
  array2 a(D);
  fill(a, f_value);
  const auto v = spec.make(a);  // a const view still writes (like std::slice_array)
  const auto& names = spec.model.names;
  const auto& targets = spec.model.targets;
  const std::size_t n = names.size();
  std::map<idx<N>, idx<2>> target_of;
  for (std::size_t k = 0; k < n; ++k) target_of[names[k]] = targets[k];

  if (points_of(v.indices()) != names) note("indices() is " + text(v.indices()));
  if (v.size() != static_cast<index_t>(n)) note("size() is " + std::to_string(v.size()));
  for (std::size_t k = 0; k < n; ++k)
    if (v.base_index(names[k]) != targets[k])
      note("base_index(" + text(names[k]) + ") is " + text(v.base_index(names[k])) + ", expected " + text(targets[k]));

  const auto gathered = v.gather();
  if (dmap::here() == 0) {
    if (gathered.size() != n) note("gather: " + std::to_string(gathered.size()) + " elements");
    else
      for (std::size_t k = 0; k < n; ++k)
        if (gathered[k] != f_value(targets[k]))
          note("gather: " + text(gathered[k]) + " at " + text(names[k]) + ", expected " + text(f_value(targets[k])));
  }
  // Element access by any locale, remote or not (ghost copies held here are read here, so a
  // Stencil array's halos are refreshed first).
  if (m.name == "stencil(1)") dmap::update_halos(a);
  for (const std::size_t k : {std::size_t{0}, n / 2, n - 1}) {
    const double got = v[names[k]];
    if (got != f_value(targets[k])) note("v[" + text(names[k]) + "] is " + text(got));
    if (v.locale_of(names[k]) != D.locale_of(targets[k])) note("locale_of(" + text(names[k]) + ")");
  }
  // This locale's pieces and their storage.
  const auto& pieces = v.local_subdomains();
  const auto blocks = v.local_blocks();
  index_t held = 0;
  if (pieces.size() != blocks.size()) note("local_subdomains and local_blocks differ in number");
  else
    for (std::size_t b = 0; b < pieces.size(); ++b)
      for (const auto& i : points_of(pieces[b])) {
        ++held;
        const auto it = target_of.find(i);
        if (it == target_of.end()) note("local piece " + text(pieces[b]) + " leaves the view");
        else if (blocks[b](i) != f_value(it->second)) note("local block at " + text(i) + ": " + text(blocks[b](i)));
      }
  index_t held_anywhere = 0;
  for (const auto h : dmap::all_gather(held)) held_anywhere += h;
  const index_t copies_held = copies(m) ? dmap::num_locales() : 1;
  if (held_anywhere != static_cast<index_t>(n) * copies_held)
    note("the locales' pieces hold " + std::to_string(held_anywhere) + " indices");

  double sum = 0;
  for (const auto& t : targets) sum += f_value(t);
  const double reduced = dmap::reduce(v, 0.0, std::plus<>{});
  if (reduced != sum) note("reduce: " + text(reduced) + ", expected " + text(sum));
  const dmap::array_view<const double, N, 2> read_only = v;
  const double reduced_read_only = dmap::reduce(read_only, 0.0, std::plus<>{});
  if (reduced_read_only != sum) note("reduce of the read-only view: " + text(reduced_read_only));

  // Writes reach exactly the viewed elements of the array.
  auto want = values_of(base_rect, f_value);
  dmap::forall(v, [](double& x) { x = -x; });
  for (const auto& t : targets) want[t] = -f_value(t);
  note(differences(a, want));
  v = 0.25;
  for (const auto& t : targets) want[t] = 0.25;
  note(differences(a, want));
  // A write by locale 0 goes to the owner (each locale's own copy of a replicated array).
  if (dmap::here() == 0) v[names[n / 2]] = 99.5;
  if (!copies(m) || dmap::here() == 0) want[targets[n / 2]] = 99.5;
  dmap::barrier();
  note(differences(a, want));
  return note.first;
}

/// Collective. Runs `step` on every locale and notes a failure; every locale must agree.
struct step_runner {
  failures& note;
  /// True when the step ran on every locale.
  bool operator()(const std::string& what, const std::function<void()>& step) const {
    int outcome = 0;  // 0 ran, 2 failed
    try {
      step();
    } catch (const std::exception& e) {
      outcome = 2;
      note(what + " threw: " + e.what());
    }
    const auto all = dmap::all_gather(outcome);
    if (std::any_of(all.begin(), all.end(), [&](int o) { return o != outcome; }))
      note(what + ": the locales did not agree on the outcome");
    return std::all_of(all.begin(), all.end(), [](int o) { return o == 0; });
  }
};

// Index sets of the zips and assignments: 5 x 4 each.
const rect<2> zip_a{range(2, 11, 2), range(-1, 11, 3)};     // of base_rect: rows 2 .. 10, columns -1 2 5 8
const rect<2> zip_b{range(1, 11, -2), range(0, 12, 3)};     // of base_rect: rows 10 .. 2, columns 0 3 6 9
const rect<2> zip_c{range(0, 5), range(3, 7)};              // an array's own indices
const rect<2> from_other{range(-3, 10, -3), range(0, 11, -3)};  // of other_rect: rows 9 .. -3, columns 10 7 4 1
const rect<2> store_part{range(1, 6), range(7, 11)};        // of base_rect

/// Collective: zips of views of an array over `lead` with an array and views of arrays over
/// `other`, each leading in turn, reading and writing the follower, and a reduction.
std::string check_zip(const maker& lead, const maker& other) {
  failures note;
  const step_runner run{note};
  const auto DA = lead.make(base_rect);
  const auto DB = other.make(base_rect);
  const auto DC = other.make(zip_c);
  array2 A(DA), B(DB), C(DC);
  fill(A, f_value);
  fill(B, h_value);
  fill(C, c_value);
  const auto ta = points_of(zip_a), tb = points_of(zip_b), tc = points_of(zip_c);
  const auto owners_a = DA.locales_of(ta), owners_c = DC.locales_of(tc);
  const auto here = dmap::here();

  // The view leads; a const array of the other map follows and is read.
  if (run("view leading, array read", [&] {
        dmap::forall(dmap::zip(A[zip_a], std::as_const(C)), [](double& a, const double& c) { a = c; });
      })) {
    auto want = values_of(base_rect, f_value);
    for (std::size_t k = 0; k < ta.size(); ++k) want[ta[k]] = c_value(tc[k]);
    note(differences(A, want));
  }
  fill(A, f_value);
  // The array leads; the view follows and is written.
  if (run("array leading, view written", [&] {
        dmap::forall(dmap::zip(C, A[zip_a]), [](const double& c, double& a) { a = 2 * c; });
      })) {
    auto want = values_of(base_rect, f_value);
    for (std::size_t k = 0; k < ta.size(); ++k)
      if (!copies(lead) || owners_c[k] == here) want[ta[k]] = 2 * c_value(tc[k]);
    note(differences(A, want));
  }
  fill(A, f_value);
  // A domain of the other map leads; the view follows and takes values of the leader's indices.
  if (run("domain leading, view written", [&] {
        dmap::forall(dmap::zip(DC, A[zip_a]), [](const idx<2>& i, double& a) { a = c_value(i) + 1; });
      })) {
    auto want = values_of(base_rect, f_value);
    for (std::size_t k = 0; k < ta.size(); ++k)
      if (!copies(lead) || owners_c[k] == here) want[ta[k]] = c_value(tc[k]) + 1;
    note(differences(A, want));
  }
  fill(A, f_value);
  // A view leads; a view of the other map follows and is written; again, with no new plan.
  const auto view_to_view = [&] {
    dmap::forall(dmap::zip(A[zip_a], B[zip_b]), [](const double& a, double& b) { b = a + 0.5; });
  };
  if (run("view leading, view written", view_to_view)) {
    auto want = values_of(base_rect, h_value);
    for (std::size_t k = 0; k < tb.size(); ++k)
      if (!copies(other) || owners_a[k] == here) want[tb[k]] = f_value(ta[k]) + 0.5;
    note(differences(B, want));
    const auto before = dmap::plan_statistics();
    run("the same loop again", view_to_view);
    if (dmap::plan_statistics().built != before.built) note("the repeated view-to-view loop built a plan");
    note(differences(B, want));
  }
  fill(B, h_value);
  // The other map's view leads; a read-only view follows.
  if (run("view leading, const view read", [&] {
        dmap::forall(dmap::zip(B[zip_b], std::as_const(A)[zip_a]), [](double& b, const double& a) { b = 3 * a; });
      })) {
    auto want = values_of(base_rect, h_value);
    for (std::size_t k = 0; k < tb.size(); ++k) want[tb[k]] = 3 * f_value(ta[k]);
    note(differences(B, want));
  }
  fill(B, h_value);
  double got = 0;
  if (run("reduce", [&] {
        got = dmap::reduce(dmap::zip(A[zip_a], B[zip_b]), 0.0, std::plus<>{}, [](double a, double b) { return a * b; });
      })) {
    double sum = 0;  // multiples of 0.5 below 2^53: exact in any order
    for (std::size_t k = 0; k < ta.size(); ++k) sum += f_value(ta[k]) * h_value(tb[k]);
    if (got != sum) note("reduce: " + text(got) + ", expected " + text(sum));
  }
  return note.first;
}

/// Collective: assignments between views and arrays over `to` and `from`: strided and reversed
/// slices, a row into a column, array = view and view = array.
std::string check_assign(const maker& to, const maker& from) {
  failures note;
  const auto wrap = [&](const std::string& what, const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      note(what + " threw: " + e.what());
    }
  };
  const auto DA = to.make(base_rect);
  const auto DB = from.make(other_rect);
  const auto DE = from.make(zip_c);
  array2 A(DA), B(DB), E(DE);
  fill(A, f_value);
  fill(B, h_value);
  auto want = values_of(base_rect, f_value);

  wrap("A[strided] = B[reversed]", [&] { A[zip_a] = B[from_other]; });
  const auto ta = points_of(zip_a), tb = points_of(from_other);
  for (std::size_t k = 0; k < ta.size(); ++k) want[ta[k]] = h_value(tb[k]);
  note(differences(A, want));

  wrap("column = row", [&] { dmap::rank_change(A, dmap::all, 4) = dmap::rank_change(B, 2, dmap::all); });
  const auto column = fixed(whole_model(base_rect), 1, 4, base_rect.dim(0)).targets;
  const auto row = fixed(whole_model(other_rect), 0, 2, other_rect.dim(1)).targets;
  for (std::size_t k = 0; k < column.size(); ++k) want[column[k]] = h_value(row[k]);
  note(differences(A, want));

  wrap("array = view", [&] { E = std::as_const(A)[zip_a]; });
  const auto te = points_of(zip_c);
  values<2> want_e;
  for (std::size_t k = 0; k < te.size(); ++k) want_e[te[k]] = want.at(ta[k]);
  note(differences(E, want_e));

  wrap("view = array", [&] { A[store_part] = E; });
  const auto ts = points_of(store_part);
  for (std::size_t k = 0; k < ts.size(); ++k) want[ts[k]] = want_e.at(te[k]);
  note(differences(A, want));

  // A read-only view (converted from a writable one) as the source.
  values<2> want_b = values_of(other_rect, h_value);
  wrap("view = const view", [&] {
    const dmap::array_view<const double, 2, 2> source = A[strided_part];
    B[rect<2>{range(-3, 9, 3), range(2, 9, -1)}] = dmap::reindex(source, strided_part_names);
  });
  const auto tsrc = points_of(strided_part), tdst = points_of(rect<2>{range(-3, 9, 3), range(2, 9, -1)});
  for (std::size_t k = 0; k < tsrc.size(); ++k) want_b[tdst[k]] = want.at(tsrc[k]);
  note(differences(B, want_b));
  return note.first;
}

/// Collective: rows and columns of a 2-D array over `m` to and from 1-D Block and Cyclic arrays.
std::string check_lines(const maker& m) {
  failures note;
  const auto D = m.make(base_rect);
  array2 A(D);
  fill(A, f_value);
  auto want = values_of(base_rect, f_value);
  const rect<1> block_line{range(0, 13)}, cyclic_line{range(-5, 6)}, cyclic_backwards{range(-5, 6, -1)};
  dmap::domain<1> L{dmap::block<1>{}, block_line}, K{dmap::cyclic<1>{}, cyclic_line};
  dmap::array<double, 1> lines(L), keys(K);
  fill(keys, line_value);
  const auto whole = whole_model(base_rect);

  // A row into a Block line.
  lines = dmap::rank_change(A, 3, dmap::all);
  const auto row3 = fixed(whole, 0, 3, base_rect.dim(1)).targets;
  values<1> want_lines;
  const auto tl = points_of(block_line);
  for (std::size_t k = 0; k < tl.size(); ++k) want_lines[tl[k]] = f_value(row3[k]);
  note(differences(lines, want_lines));
  // A Cyclic line, backwards, into a column.
  dmap::rank_change(A, dmap::all, 7) = keys[cyclic_backwards];
  const auto col7 = fixed(whole, 1, 7, base_rect.dim(0)).targets;
  const auto tk = points_of(cyclic_backwards);
  for (std::size_t k = 0; k < col7.size(); ++k) want[col7[k]] = line_value(tk[k]);
  note(differences(A, want));
  // Every other element of the Block line into every other element of row 10.
  const rect<1> evens{range(0, 13, 2)};
  dmap::rank_change(A, 10, dmap::all)[rect<1>{range(-2, 11, 2)}] = lines[evens];
  const auto row10 = sliced(fixed(whole, 0, 10, base_rect.dim(1)), rect<1>{range(-2, 11, 2)}).targets;
  const auto te = points_of(evens);
  for (std::size_t k = 0; k < row10.size(); ++k) want[row10[k]] = want_lines.at(te[k]);
  note(differences(A, want));
  // A 1-D view of a 1-D array, filled.
  keys[rect<1>{range(-5, 6, 4)}] = -2.0;
  values<1> want_keys = values_of(cyclic_line, line_value);
  for (const auto& i : points_of(rect<1>{range(-5, 6, 4)})) want_keys[i] = -2.0;
  note(differences(keys, want_keys));
  return note.first;
}

/// Collective: "" when every locale threw E with a message containing each of `parts`.
template <class E>
std::string throws(const std::function<void()>& f, const std::vector<std::string>& parts = {}) {
  try {
    f();
  } catch (const E& e) {
    for (const auto& p : parts)
      if (!has(e.what(), p)) return std::string("the message does not name ") + p + ": " + e.what();
    return "";
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
  return "nothing thrown";
}

}  // namespace

TEST_CASE("array views: slices, reindex, rank change and compositions read and write the right elements, every map",
          "[array_view]") {
  for (const auto& m : makers()) {
    for (const auto& spec : specs_2d()) {
      INFO(m.name << ": " << spec.name);
      CHECK_NO_FAILURE(check_view(m, spec));
    }
    for (const auto& spec : specs_1d()) {
      INFO(m.name << ": " << spec.name);
      CHECK_NO_FAILURE(check_view(m, spec));
    }
  }
}

TEST_CASE("array views: zips with arrays and views of other maps, leading and following, and reduce",
          "[array_view][misaligned]") {
  const auto all = makers();
  for (const auto& lead : all)
    for (const auto& other : all) {
      INFO("views of " << lead.name << " with arrays and views of " << other.name);
      CHECK_NO_FAILURE(check_zip(lead, other));
    }
}

TEST_CASE("array views: a view of a directory-kept array leads a misaligned follower, reads and writes it",
          "[array_view][misaligned]") {
  for (const auto& m : makers()) {
    if (!m.directory) continue;
    INFO(m.name);
    const auto D = m.make(base_rect);
    array2 A(D);
    fill(A, f_value);
    // Block over reversed indices: the follower's k-th element sits elsewhere than A's.
    const rect<2> reversed{range(0, 11, -1), range(0, 13, -1)};
    dmap::domain<2> R{dmap::block<2>{}, reversed};
    array2 C(R);
    fill(C, c_value);
    const auto loop = [&] {
      dmap::forall(dmap::zip(A[base_rect], C), [](double& a, double& c) { a = c, c = -c; });
    };
    dmap::reset_plan_statistics();
    std::string outcome;
    try {
      loop();
    } catch (const std::exception& e) {
      outcome = std::string("the loop threw: ") + e.what();
    }
    CHECK_NO_FAILURE(outcome);
    const auto ta = points_of(base_rect), tc = points_of(reversed);
    auto want_a = values_of(base_rect, f_value), want_c = values_of(reversed, c_value);
    for (std::size_t k = 0; k < ta.size(); ++k) want_a[ta[k]] = c_value(tc[k]), want_c[tc[k]] = -c_value(tc[k]);
    CHECK_NO_FAILURE(differences(A, want_a));
    CHECK_NO_FAILURE(differences(C, want_c));
    // Again: the staging and its plans are reused.
    loop();
    const auto stats = dmap::plan_statistics();
    DMAP_CHECK_ALL(stats.built == (dmap::num_locales() > 1 ? 1u : 0u) && stats.reused == stats.built);
    for (std::size_t k = 0; k < ta.size(); ++k) want_c[tc[k]] = c_value(tc[k]);
    CHECK_NO_FAILURE(differences(C, want_c));
  }
}

TEST_CASE("array views: assignment between views and arrays of every ordered pair of maps", "[array_view]") {
  const auto all = makers();
  for (const auto& to : all)
    for (const auto& from : all) {
      INFO(from.name << " into " << to.name);
      CHECK_NO_FAILURE(check_assign(to, from));
    }
}

/// Collective: "" when the transposed view of an array of `m` reads, leads, follows, reduces and
/// is assigned as the transposed elements: against arrays over `other` (shape 13 x 11, the
/// transpose of base_rect's 11 x 13).
std::string check_transposed(const maker& m, const maker& other) {
  std::string fail;
  const auto note = [&](const std::string& s) {
    if (fail.empty()) fail = s;
  };
  auto D = m.make(base_rect);
  array2 A(D);
  fill(A, f_value);
  if (m.name == "stencil(1)") dmap::update_halos(A);  // element reads see ghost cells
  const auto V = dmap::transpose(A);
  const rect<2> v_rect{base_rect.dim(1), base_rect.dim(0)};
  if (V.indices() != v_rect) note("indices " + text(V.indices()));
  const auto T = [](const idx<2>& j) { return f_value(idx<2>{j[1], j[0]}); };  // V's closed form
  // Element access and local blocks, on every locale.
  for (const auto& j : points_of(v_rect))
    if (static_cast<double>(V[j]) != T(j)) note("V" + text(j) + " = " + text(static_cast<double>(V[j])));
  const auto owned = V.local_subdomains();
  const auto blocks = V.local_blocks();
  for (std::size_t b = 0; b < owned.size(); ++b)
    for (const auto& j : points_of(owned[b]))
      if (blocks[b](j) != T(j)) note("local block at " + text(j) + ": " + text(blocks[b](j)));
  // Gather: row-major over V's indices.
  const auto all = V.gather();
  if (dmap::here() == 0) {
    const auto order = points_of(v_rect);
    for (std::size_t k = 0; k < order.size() && k < all.size(); ++k)
      if (all[k] != T(order[k])) note("gather at " + text(order[k]));
  }
  // B (13 x 11, another map) = V; zips both ways; the sum.
  auto E = other.make(other_rect);
  array2 B(E);
  B = V;
  const auto at_B = [&](const idx<2>& i) {  // B's k-th index names V's k-th
    return T(v_rect.index_at(other_rect.order_of(i)));
  };
  const auto d = differences(B, values_of(other_rect, at_B));
  if (!d.empty()) note("B = transpose(A): " + d);
  std::atomic<long> wrong{0};  // the loops run on oneTBB threads
  dmap::forall(dmap::zip(B, V), [&](const double& b, const double& v) { wrong += b != v; });
  dmap::forall(dmap::zip(V, B), [&](const double& v, const double& b) { wrong += b != v; });
  if (dmap::all_reduce_sum(wrong.load()) != 0) note("zips of B and V disagree");
  const double sum = dmap::reduce(V, 0.0), want = dmap::reduce(A, 0.0);
  if (sum != want) note("reduce(V) = " + text(sum) + ", reduce(A) = " + text(want));
  // Writes through the transposed view: transpose(A2) = B makes A2 equal A; forall writes too.
  array2 A2(D);
  dmap::transpose(A2) = B;
  const auto d2 = differences(A2, values_of(base_rect, f_value));
  if (!d2.empty()) note("transpose(A2) = B: " + d2);
  dmap::forall(dmap::zip(dmap::transpose(A2), B), [](double& a, const double& b) { a = -b; });
  const auto d3 = differences(A2, values_of(base_rect, [](const idx<2>& i) { return -f_value(i); }));
  if (!d3.empty()) note("forall over transpose(A2): " + d3);
  // A slice of the transposed view, and the transpose of a slice: the same elements.
  const rect<2> part{range(0, 9, 3), range(2, 10)};
  const auto P = dmap::transpose(A)[part];
  const auto Q = dmap::transpose(A[rect<2>{part.dim(1), part.dim(0)}]);
  if (P.indices() != part || Q.indices() != part) note("slice indices");
  for (const auto& j : points_of(part))
    if (static_cast<double>(P[j]) != T(j) || static_cast<double>(Q[j]) != T(j)) note("slice at " + text(j));
  return fail;
}

TEST_CASE("array views: transposed views read, lead, follow, reduce and are assigned, every map", "[array_view]") {
  const auto all = makers();
  for (const auto& m : all)
    for (const auto& other : {all[0], all[3], all.back()}) {
      INFO(m.name << ", the other array " << other.name);
      CHECK_NO_FAILURE(check_transposed(m, other));
    }
}

TEST_CASE("array views: permute reorders the dimensions of a 3-D array; a bad order throws", "[array_view]") {
  const rect<3> r{range(0, 3), range(-1, 4), range(2, 6)};
  dmap::domain<3> D{dmap::block<3>{}, r};
  dmap::array<double, 3> A(D);
  const auto g = [](const idx<3>& i) { return 100.0 * static_cast<double>(i[0]) + 10.0 * static_cast<double>(i[1]) + static_cast<double>(i[2]); };
  dmap::forall(dmap::zip(A, D), [&](double& a, const idx<3>& i) { a = g(i); });
  const auto V = dmap::permute(A, {2, 0, 1});
  CHECK(V.indices() == rect<3>{r.dim(2), r.dim(0), r.dim(1)});
  const rect<3> v_rect = V.indices();
  dmap::domain<3> E{dmap::cyclic<3>{}, rect<3>{range(0, 4), range(0, 3), range(0, 5)}};
  dmap::array<double, 3> B(E);
  B = V;
  long wrong = 0;
  for (const auto& i : points_of(E.indices())) {
    const idx<3> j = v_rect.index_at(E.indices().order_of(i));
    wrong += static_cast<double>(B[i]) != g(idx<3>{j[1], j[2], j[0]});
  }
  DMAP_CHECK_ALL(wrong == 0);
  const auto W = dmap::permute(dmap::permute(A, {2, 0, 1}), {1, 2, 0});  // back to A's order
  CHECK(W.indices() == r);
  long back = 0;
  for (const auto& i : points_of(r)) back += static_cast<double>(W[i]) != g(i);
  DMAP_CHECK_ALL(back == 0);
  CHECK_THROWS_AS(dmap::permute(A, {0, 0, 1}), dmap::argument_error);
  CHECK_THROWS_AS(dmap::permute(A, {0, 1, 3}), dmap::argument_error);
}

TEST_CASE("array views: rows and columns to and from 1-D Block and Cyclic arrays", "[array_view]") {
  for (const auto& m : makers()) {
    INFO(m.name);
    CHECK_NO_FAILURE(check_lines(m));
  }
}

TEST_CASE("array views: overlapping self-assignment behaves as if the right side were copied first",
          "[array_view]") {
  // 2-D, every map: shifts by a row both ways, a diagonal shift and a half-turn in place.
  const rect<2> rows_1_10{range(1, 11), base_rect.dim(1)}, rows_2_11{range(2, 12), base_rect.dim(1)};
  const rect<2> corner{range(1, 9), range(0, 8)}, next_corner{range(2, 10), range(-1, 7)};
  const rect<2> half_turn{range(1, 12, -1), range(-2, 11, -1)};
  const std::vector<std::pair<rect<2>, rect<2>>> moves{
      {rows_1_10, rows_2_11}, {rows_2_11, rows_1_10}, {corner, next_corner}, {base_rect, half_turn}};
  for (const auto& m : makers()) {
    const auto D = m.make(base_rect);
    array2 A(D);
    for (const auto& [to, from] : moves) {
      INFO(m.name << ": A[" << to << "] = A[" << from << "]");
      fill(A, f_value);
      A[to] = A[from];
      auto want = values_of(base_rect, f_value);
      const auto tt = points_of(to), tf = points_of(from);
      for (std::size_t k = 0; k < tt.size(); ++k) want[tt[k]] = f_value(tf[k]);
      CHECK_NO_FAILURE(differences(A, want));
    }
  }
  // 1-D Block and Cyclic, 37 elements: A[0..n-2] = A[1..n-1], the reverse, and the even
  // elements reversed in place.
  const index_t n = 37;
  const rect<1> line{range(0, n)};
  const std::vector<std::pair<rect<1>, rect<1>>> shifts{{rect<1>{range(0, n - 1)}, rect<1>{range(1, n)}},
                                                        {rect<1>{range(1, n)}, rect<1>{range(0, n - 1)}},
                                                        {rect<1>{range(0, n, 2)}, rect<1>{range(0, n, -2)}}};
  for (const auto& D : {dmap::domain<1>{dmap::block<1>{}, line}, dmap::domain<1>{dmap::cyclic<1>{}, line}}) {
    dmap::array<double, 1> A(D);
    for (const auto& [to, from] : shifts) {
      INFO(D.name() << ": A[" << to << "] = A[" << from << "]");
      fill(A, line_value);
      A[to] = A[from];
      auto want = values_of(line, line_value);
      const auto tt = points_of(to), tf = points_of(from);
      for (std::size_t k = 0; k < tt.size(); ++k) want[tt[k]] = line_value(tf[k]);
      CHECK_NO_FAILURE(differences(A, want));
    }
  }
}

TEST_CASE("array views: printing writes the viewed elements row by row, on any locale alone", "[array_view]") {
  dmap::domain<2> D{dmap::block<2>{}, rect<2>{range(0, 3), range(0, 4)}};
  dmap::array<int, 2> A(D);
  dmap::forall(dmap::zip(A, D), [](int& a, const idx<2>& i) { a = static_cast<int>(10 * i[0] + i[1]); });
  const rect<2> part{range(0, 3, -1), range(1, 4, 2)};  // rows 2 1 0, columns 1 3
  std::string want;
  const auto points = points_of(part);
  for (std::size_t k = 0; k < points.size(); ++k)
    want += (k == 0 ? "" : k % 2 == 0 ? "\n" : " ") + std::to_string(10 * points[k][0] + points[k][1]);
  std::ostringstream out;
  out << A[part];
  CHECK_NO_FAILURE(out.str() != want ? "printed \"" + out.str() + "\", expected \"" + want + "\"" : std::string());
  std::ostringstream row;
  row << dmap::rank_change(A, 1, dmap::all);
  CHECK_NO_FAILURE(row.str() != "10 11 12 13" ? "printed \"" + row.str() + "\"" : std::string());
  // Printing is not collective: the last locale prints alone while the others wait.
  std::string alone;
  if (dmap::here() == dmap::num_locales() - 1) {
    std::ostringstream s;
    s << A[part];
    alone = s.str();
  }
  dmap::barrier();
  CHECK_NO_FAILURE(dmap::here() == dmap::num_locales() - 1 && alone != want ? "alone: \"" + alone + "\"" : std::string());
}

TEST_CASE("array views: bad slices, index sets and shapes throw the same error on every locale", "[array_view]") {
  dmap::domain<2> D{dmap::block<2>{}, base_rect};
  dmap::domain<2> E{dmap::cyclic<2>{}, other_rect};
  array2 A(D, 1.0), B(E, 2.0);
  // Slices outside the array's or the view's indices.
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)A[rect<2>{range(0, 5), range(0, 3)}]; },
                                                     {"{0..<5, 0..<3}", "{1..<12, -2..<11}"}));
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)A[rect<2>{range(1, 14, 2), range(0, 3)}]; }));
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)dmap::slice(A, rect<2>{range(1, 3), range(-3, 0)}); }));
  // Row 2 is an index of A but not of the strided slice (rows 1 4 7 10).
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)A[strided_part][rect<2>{range(2, 3), range(0, 1)}]; }));
  CHECK_NO_FAILURE(
      throws<dmap::out_of_bounds_error>([&] { (void)dmap::slice(A[strided_part], rect<2>{range(1, 2), range(-1, 0)}); }));
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)static_cast<double>(A[strided_part][idx<2>{2, 0}]); }));
  // Reindexing needs the same shape.
  CHECK_NO_FAILURE(throws<dmap::shape_error>([&] { (void)dmap::reindex(A, rect<2>{range(0, 13), range(0, 11)}); },
                                             {"{0..<13, 0..<11}", "{1..<12, -2..<11}"}));
  CHECK_NO_FAILURE(throws<dmap::shape_error>([&] { (void)dmap::reindex(A[unit_part], rect<2>{range(0, 7), range(0, 8)}); },
                                             {"{0..<7, 0..<8}", "{2..<9, 0..<7}"}));
  // Rank change: the fixed index must be an index of the dimension (of the view).
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)dmap::rank_change(A, 12, dmap::all); }));
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)dmap::rank_change(A, dmap::all, -3); }));
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)dmap::rank_change(A[strided_part], 2, dmap::all); }));
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)dmap::rank_change(A, range(0, 4), 0); }));
  // Assignment and zips need equal shapes; the message names both index sets.
  CHECK_NO_FAILURE(throws<dmap::shape_error>([&] { A[rect<2>{range(1, 4), range(0, 5)}] = B[rect<2>{range(0, 5), range(0, 3)}]; },
                                             {"{0..<5, 0..<3}", "{1..<4, 0..<5}"}));
  CHECK_NO_FAILURE(throws<dmap::shape_error>([&] { A = B[rect<2>{range(-3, 8), range(0, 11)}]; },
                                             {"{-3..<8, 0..<11}", "{1..<12, -2..<11}"}));
  CHECK_NO_FAILURE(throws<dmap::shape_error>([&] { A[rect<2>{range(1, 12), range(0, 11)}] = B; },
                                             {"{-3..<10, 0..<11}", "{1..<12, 0..<11}"}));
  CHECK_NO_FAILURE(throws<dmap::shape_error>([&] { dmap::rank_change(A, 1, dmap::all) = dmap::rank_change(B, 0, dmap::all); }));
  CHECK_NO_FAILURE(throws<dmap::shape_error>([&] {
    dmap::forall(dmap::zip(A[unit_part], B[rect<2>{range(0, 7), range(0, 6)}]), [](double&, double&) {});
  }));
  // Nothing was written, and every locale is still in step.
  CHECK_NO_FAILURE(differences(A, values_of(base_rect, [](const idx<2>&) { return 1.0; })));
}

TEST_CASE("array views: repeated assignments and zips reuse their plans until a domain changes", "[array_view]") {
  const int p = dmap::num_locales();
  dmap::domain<2> D{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, base_rect};
  dmap::domain<2> E{dmap::cyclic<2>{}, base_rect};
  dmap::domain<2> F{dmap::block<2>{dmap::target_grid<2>{{1, p}}}, zip_c};
  array2 A(D), B(E), C(F);
  fill(A, f_value);
  fill(B, h_value);
  fill(C, c_value);
  const auto ta = points_of(zip_a), tb = points_of(zip_b), tc = points_of(zip_c);

  dmap::reset_plan_statistics();
  A[zip_a] = B[zip_b];
  DMAP_CHECK_ALL(dmap::plan_statistics().built == 1 && dmap::plan_statistics().reused == 0);
  A[zip_a] = B[zip_b];  // new view objects, the same placements
  A[zip_a] = B[zip_b];
  DMAP_CHECK_ALL(dmap::plan_statistics().built == 1 && dmap::plan_statistics().reused == 2);
  A[zip_a] = B[zip_b][rect<2>{range(2, 11, -2), range(0, 10, 3)}];  // the same elements, sliced again
  DMAP_CHECK_ALL(dmap::plan_statistics().built == 1 && dmap::plan_statistics().reused == 3);
  auto want = values_of(base_rect, f_value);
  for (std::size_t k = 0; k < ta.size(); ++k) want[ta[k]] = h_value(tb[k]);
  CHECK_NO_FAILURE(differences(A, want));
  // Another array over the same domain shares the plan (plans do not hold storage).
  array2 A2(D, -1.0);
  A2[zip_a] = B[zip_b];
  DMAP_CHECK_ALL(dmap::plan_statistics().built == 1 && dmap::plan_statistics().reused == 4);
  auto want2 = values_of(base_rect, [](const idx<2>&) { return -1.0; });
  for (std::size_t k = 0; k < ta.size(); ++k) want2[ta[k]] = h_value(tb[k]);
  CHECK_NO_FAILURE(differences(A2, want2));
  // Whole arrays too.
  array2 G(E);
  dmap::reset_plan_statistics();
  G = A;
  G = A;
  DMAP_CHECK_ALL(dmap::plan_statistics().built == 1 && dmap::plan_statistics().reused == 1);
  CHECK_NO_FAILURE(differences(G, want));

  // A zip whose follower is misaligned (on more than one locale) stages it through a plan, once.
  dmap::reset_plan_statistics();
  const auto zip_loop = [&] {
    dmap::forall(dmap::zip(A[zip_a], std::as_const(C)), [](double& a, const double& c) { a = c; });
  };
  zip_loop();
  const std::uint64_t staged = p > 1 ? 1 : 0;
  DMAP_CHECK_ALL(dmap::plan_statistics().built == staged && dmap::plan_statistics().reused == 0);
  zip_loop();
  DMAP_CHECK_ALL(dmap::plan_statistics().built == staged && dmap::plan_statistics().reused == staged);
  for (std::size_t k = 0; k < ta.size(); ++k) want[ta[k]] = c_value(tc[k]);
  CHECK_NO_FAILURE(differences(A, want));

  // The array's domain grows: the viewed indices stay, their placement changes, a new plan is built.
  const rect<2> grown{range(0, 14), range(-3, 12)};
  D.set_indices(grown);
  fill(A, f_value);
  dmap::reset_plan_statistics();
  A[zip_a] = B[zip_b];
  A[zip_a] = B[zip_b];
  DMAP_CHECK_ALL(dmap::plan_statistics().built == 1 && dmap::plan_statistics().reused == 1);
  auto want_grown = values_of(grown, f_value);
  for (std::size_t k = 0; k < ta.size(); ++k) want_grown[ta[k]] = h_value(tb[k]);
  CHECK_NO_FAILURE(differences(A, want_grown));
  // The follower's domain moves: the zip builds its staging again.
  F.set_indices(rect<2>{range(10, 15), range(-4, 0)});
  fill(C, c_value);
  const auto moved = points_of(F.indices());
  dmap::reset_plan_statistics();
  zip_loop();
  zip_loop();
  DMAP_CHECK_ALL(dmap::plan_statistics().built == staged && dmap::plan_statistics().reused == staged);
  for (std::size_t k = 0; k < ta.size(); ++k) want_grown[ta[k]] = c_value(moved[k]);
  CHECK_NO_FAILURE(differences(A, want_grown));
}

TEST_CASE("array views: assignment moves exactly the elements needed, in one message per pair of locales",
          "[array_view][counters]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  {
    // A[0 ..< n/2] = B[n/2 ..< n], both Block over 0 ..< n: element k travels from the Block
    // owner of n/2 + k to the owner of k.
    const index_t n = 4096;
    const rect<1> line{range(0, n)};
    dmap::domain<1> D{dmap::block<1>{}, line};
    dmap::array<double, 1> A(D, 0.0), B(D);
    fill(B, line_value);
    std::vector<std::uint64_t> to(static_cast<std::size_t>(p)), from(static_cast<std::size_t>(p));
    for (index_t k = 0; k < n / 2; ++k) {
      const int source = cut_part(0, n, p, n / 2 + k), target = cut_part(0, n, p, k);
      if (source == target) continue;
      if (source == me) ++to[static_cast<std::size_t>(target)];
      if (target == me) ++from[static_cast<std::size_t>(source)];
    }
    const auto messages = [](const std::vector<std::uint64_t>& v) {
      return static_cast<std::uint64_t>(std::count_if(v.begin(), v.end(), [](std::uint64_t e) { return e > 0; }));
    };
    const auto elements = [](const std::vector<std::uint64_t>& v) {
      std::uint64_t s = 0;
      for (const auto e : v) s += e;
      return s;
    };
    for (int round = 0; round < 2; ++round) {  // building the plan costs no message either
      INFO("round " << round);
      dmap::reset_counters();
      A[rect<1>{range(0, n / 2)}] = B[rect<1>{range(n / 2, n)}];
      const auto c = dmap::counters();
      DMAP_CHECK_ALL(c.messages_sent == messages(to) && c.messages_received == messages(from));
      DMAP_CHECK_ALL(c.bytes_sent == elements(to) * sizeof(double) && c.bytes_received == elements(from) * sizeof(double));
    }
    auto want = values_of(line, [](const idx<1>&) { return 0.0; });
    for (index_t k = 0; k < n / 2; ++k) want[idx<1>{k}] = line_value(idx<1>{n / 2 + k});
    CHECK_NO_FAILURE(differences(A, want));
    // The same pairing in a zip: the const follower is staged with the same messages, not sent back.
    const auto loop = [&] {
      dmap::forall(dmap::zip(A[rect<1>{range(0, n / 2)}], std::as_const(B)[rect<1>{range(n / 2, n)}]),
                   [](double& a, const double& b) { a = 2 * b; });
    };
    loop();
    dmap::reset_counters();
    loop();
    const auto z = dmap::counters();
    DMAP_CHECK_ALL(z.messages_sent == messages(to) && z.messages_received == messages(from));
    DMAP_CHECK_ALL(z.bytes_sent == elements(to) * sizeof(double) && z.bytes_received == elements(from) * sizeof(double));
  }
  {
    // The last row of a row-block array from the first column of a column-block array: one
    // message of n elements from the column's owner to the row's owner, if they differ.
    const index_t n = 12 * p + 1;
    const rect<2> square{range(0, n), range(0, n)};
    dmap::domain<2> Rows{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, square};
    dmap::domain<2> Cols{dmap::block<2>{dmap::target_grid<2>{{1, p}}}, square};
    array2 A(Rows, 0.0), B(Cols);
    fill(B, f_value);
    const int row_owner = cut_part(0, n, p, n - 1), column_owner = cut_part(0, n, p, 0);
    const bool moves = row_owner != column_owner;
    dmap::reset_counters();
    dmap::rank_change(A, n - 1, dmap::all) = dmap::rank_change(B, dmap::all, 0);
    const auto c = dmap::counters();
    const std::uint64_t sent = moves && me == column_owner ? 1 : 0, received = moves && me == row_owner ? 1 : 0;
    DMAP_CHECK_ALL(c.messages_sent == sent && c.messages_received == received);
    DMAP_CHECK_ALL(c.bytes_sent == sent * n * sizeof(double) && c.bytes_received == received * n * sizeof(double));
    auto want = values_of(square, [](const idx<2>&) { return 0.0; });
    for (index_t j = 0; j < n; ++j) want[idx<2>{n - 1, j}] = f_value(idx<2>{j, 0});
    CHECK_NO_FAILURE(differences(A, want));
  }
}

TEST_CASE("array views: a view kept across a resize follows the array's new placement", "[array_view][resize]") {
  const int p = dmap::num_locales();
  dmap::domain<2> D{dmap::block<2>{dmap::target_grid<2>{{1, p}}}, base_rect};
  dmap::domain<2> E{dmap::cyclic<2>{}, zip_c};
  array2 A(D), C(E);
  fill(A, f_value);
  fill(C, c_value);
  auto v = A[zip_a];  // made before the resize, used after it
  const rect<2> grown{range(-4, 16), range(-5, 20)};
  D.set_indices(grown);
  const auto ta = points_of(zip_a), tc = points_of(zip_c);
  // Surviving elements keep their values: the view reads them at their new places.
  const auto got = v.gather();
  std::string fail;
  if (dmap::here() == 0)
    for (std::size_t k = 0; k < ta.size(); ++k)
      if (got.size() != ta.size() || got[k] != f_value(ta[k])) fail = "gather after the resize at " + text(ta[k]);
  CHECK_NO_FAILURE(fail);
  fill(A, f_value);
  v = C;
  dmap::forall(dmap::zip(v, std::as_const(C)), [](double& a, const double& c) { a += c; });
  auto want = values_of(grown, f_value);
  for (std::size_t k = 0; k < ta.size(); ++k) want[ta[k]] = 2 * c_value(tc[k]);
  CHECK_NO_FAILURE(differences(A, want));
  // Shrunk so that the viewed indices leave the array: every use of the view says so.
  const rect<2> shrunk{range(0, 4), range(0, 4)};
  D.set_indices(shrunk);
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { (void)v.gather(); }, {"no longer inside", "{0..<4, 0..<4}"}));
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { v = 3.0; }));
  CHECK_NO_FAILURE(throws<dmap::out_of_bounds_error>([&] { v = C; }));
}

TEST_CASE("array views: empty views assign, loop and reduce over nothing", "[array_view]") {
  for (const auto& m : makers()) {
    INFO(m.name);
    const auto D = m.make(base_rect);
    const auto E = m.make(other_rect);
    array2 A(D), B(E);
    fill(A, f_value);
    fill(B, h_value);
    const rect<2> no_rows{range(5, 5), range(0, 4)}, no_rows_either{range(3, 3, -2), range(1, 9, 2)};
    std::string fail;
    const auto wrap = [&](const std::string& what, const std::function<void()>& f) {
      try {
        f();
      } catch (const std::exception& e) {
        if (fail.empty()) fail = what + " threw: " + e.what();
      }
    };
    wrap("assign", [&] { A[no_rows] = B[no_rows_either]; });
    wrap("fill", [&] { A[no_rows] = 5.0; });
    wrap("forall", [&] {
      dmap::forall(dmap::zip(A[no_rows], B[no_rows_either]), [](double& a, double& b) { a = b = 1; });
    });
    double sum = -1;
    wrap("reduce", [&] { sum = dmap::reduce(A[no_rows], 2.5, std::plus<>{}); });
    if (sum != 2.5) fail = "reduce over an empty view: " + text(sum);
    std::vector<double> got{1.0};
    wrap("gather", [&] { got = A[no_rows].gather(); });
    if (!got.empty()) fail = "gather of an empty view: " + std::to_string(got.size()) + " elements";
    CHECK_NO_FAILURE(fail);
    CHECK_NO_FAILURE(differences(A, values_of(base_rect, f_value)));
    CHECK_NO_FAILURE(differences(B, values_of(other_rect, h_value)));
  }
}

TEST_CASE("array views: planes and lines of a 3-D array (rank change of the middle dimension)", "[array_view]") {
  const rect<3> box{range(0, 5), range(1, 7), range(-3, 4)};  // 5 x 6 x 7
  const auto value3 = [](const idx<3>& i) {
    return 10000.0 * static_cast<double>(i[0]) + 100.0 * static_cast<double>(i[1]) + static_cast<double>(i[2]);
  };
  dmap::domain<3> D{dmap::block<3>{}, box};
  dmap::array<double, 3> A(D);
  fill(A, value3);
  auto want = values_of(box, value3);
  // The plane i1 = 2, indexed by (i0, i2).
  auto plane = dmap::rank_change(A, dmap::all, 2, dmap::all);
  std::string fail;
  const auto got = plane.gather();
  if (dmap::here() == 0) {
    std::size_t k = 0;
    for (index_t i0 = 0; i0 < 5; ++i0)
      for (index_t i2 = -3; i2 < 4; ++i2, ++k)
        if (got.size() != 35 || got[k] != value3(idx<3>{i0, 2, i2})) fail = "plane at " + std::to_string(k);
  }
  CHECK_NO_FAILURE(fail);
  DMAP_CHECK_ALL(plane.indices() == (rect<2>{range(0, 5), range(-3, 4)}));
  // A Cyclic 2-D array into the plane, then the plane zipped with it.
  const rect<2> flat{range(0, 5), range(0, 7)};
  dmap::domain<2> W{dmap::cyclic<2>{}, flat};
  array2 C(W);
  fill(C, c_value);
  plane = C;
  for (index_t i0 = 0; i0 < 5; ++i0)
    for (index_t i2 = -3; i2 < 4; ++i2) want[idx<3>{i0, 2, i2}] = c_value(idx<2>{i0, i2 + 3});
  CHECK_NO_FAILURE(differences(A, want));
  dmap::forall(dmap::zip(plane, std::as_const(C)), [](double& a, const double& c) { a = a * c; });
  for (index_t i0 = 0; i0 < 5; ++i0)
    for (index_t i2 = -3; i2 < 4; ++i2) want[idx<3>{i0, 2, i2}] = c_value(idx<2>{i0, i2 + 3}) * c_value(idx<2>{i0, i2 + 3});
  CHECK_NO_FAILURE(differences(A, want));
  // A line of the plane (rank change of a rank change): i0 = 3, i1 = 2, i2 backwards.
  auto line = dmap::rank_change(plane, 3, range(-3, 4, -1));
  dmap::domain<1> L{dmap::block<1>{}, rect<1>{range(0, 7)}};
  dmap::array<double, 1> X(L);
  fill(X, line_value);
  line = X;
  for (index_t k = 0; k < 7; ++k) want[idx<3>{3, 2, 3 - k}] = line_value(idx<1>{k});
  CHECK_NO_FAILURE(differences(A, want));
  // Rows 6 4 2 of the plane i0 = 4, into a 2-D Block array.
  const rect<2> rows_6_4_2{range(0, 3), range(0, 7)};
  dmap::domain<2> V{dmap::block<2>{}, rows_6_4_2};
  array2 Y(V);
  Y = dmap::rank_change(A, 4, range(1, 7, -2), dmap::all);
  values<2> want_y;
  for (index_t r = 0; r < 3; ++r)
    for (index_t j = 0; j < 7; ++j) want_y[idx<2>{r, j}] = want.at(idx<3>{4, 6 - 2 * r, j - 3});
  CHECK_NO_FAILURE(differences(Y, want_y));
}

TEST_CASE("array views: three operands, two of them misaligned views", "[array_view][misaligned]") {
  const int p = dmap::num_locales();
  dmap::domain<2> D{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, base_rect};
  dmap::domain<2> E{dmap::block_cyclic<2>{{2, 3}}, other_rect};
  dmap::domain<2> F{dmap::block<2>{dmap::target_grid<2>{{1, p}}}, zip_c};
  array2 A(D), B(E), C(F);
  fill(A, f_value);
  fill(B, h_value);
  fill(C, c_value);
  dmap::forall(dmap::zip(C, A[zip_a], std::as_const(B)[from_other]),
               [](const double& c, double& a, const double& b) { a = c + b; });
  auto want = values_of(base_rect, f_value);
  const auto ta = points_of(zip_a), tb = points_of(from_other), tc = points_of(zip_c);
  for (std::size_t k = 0; k < ta.size(); ++k) want[ta[k]] = c_value(tc[k]) + h_value(tb[k]);
  CHECK_NO_FAILURE(differences(A, want));
  const double got = dmap::reduce(dmap::zip(A[zip_a], C, B[from_other]), 0.0, std::plus<>{},
                                  [](double a, double c, double b) { return a - c - b; });
  DMAP_CHECK_ALL(got == 0.0);
}

TEST_CASE("array views: plans of dead or evicted sources are never reused", "[array_view]") {
  const int p = dmap::num_locales();
  dmap::domain<2> D{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, base_rect};
  array2 A(D);
  const auto all = makers();
  const auto ta = points_of(zip_a), tb = points_of(from_other);
  // A new source array (and domain) each time, of every map: a plan of a dead one must not serve.
  for (const auto& m : all) {
    INFO("source " << m.name);
    fill(A, f_value);
    const auto E = m.make(other_rect);
    array2 B(E);
    fill(B, h_value);
    dmap::reset_plan_statistics();
    A[zip_a] = B[from_other];
    DMAP_CHECK_ALL(dmap::plan_statistics().built == 1);
    auto want = values_of(base_rect, f_value);
    for (std::size_t k = 0; k < ta.size(); ++k) want[ta[k]] = h_value(tb[k]);
    CHECK_NO_FAILURE(differences(A, want));
  }
  // More sources into one destination than its cache keeps, then the first again.
  const auto E = all[3].make(other_rect);
  array2 B(E);
  fill(B, h_value);
  std::vector<rect<2>> sources;
  for (index_t shift = 0; shift < 20; ++shift)  // 20 different 5 x 4 parts of other_rect
    sources.push_back(rect<2>{range(-3 + shift % 9, 2 + shift % 9), range(shift % 8, 4 + shift % 8)});
  for (const auto& r : sources) A[zip_a] = B[r];
  A[zip_a] = B[sources.front()];
  auto want = values_of(base_rect, f_value);
  const auto tf = points_of(sources.front());
  for (std::size_t k = 0; k < ta.size(); ++k) want[ta[k]] = h_value(tf[k]);
  CHECK_NO_FAILURE(differences(A, want));
}

TEST_CASE("array views: serial range-v3 views and fetch read the viewed elements, one locale alone",
          "[array_view][views]") {
  for (const auto& m : makers()) {
    INFO(m.name);
    const auto D = m.make(base_rect);
    array2 A(D);
    fill(A, f_value);
    std::string fail;
    if (dmap::here() == dmap::num_locales() - 1) {  // one locale iterates alone; the others wait
      const auto names = points_of(zip_b);
      std::size_t k = 0;
      for (const double x : dmap::view(A[zip_b])) {
        if (fail.empty() && (k >= names.size() || x != f_value(names[k])))
          fail = "view(A[zip_b]) at position " + std::to_string(k);
        ++k;
      }
      if (k != names.size()) fail = "view(A[zip_b]) has " + std::to_string(k) + " values";
      // A row through a rank change of a reversed reindex: `backwards` names base row 1 + (10 - r)
      // by r and base column 10 - c by c, so its row 4 is base row 7, and the row's j-th
      // element (name c = 12 - j) is base column j - 2.
      const rect<2> backwards{range(0, 11, -1), range(0, 13, -1)};
      const auto row = dmap::rank_change(dmap::reindex(std::as_const(A), backwards), 4, dmap::all);
      std::vector<double> got(static_cast<std::size_t>(row.size()));
      row.fetch(0, row.size(), got.data());
      for (std::size_t j = 0; j < got.size() && fail.empty(); ++j)
        if (got[j] != f_value(idx<2>{7, static_cast<index_t>(j) - 2})) fail = "fetch of a row at " + std::to_string(j);
    }
    CHECK_NO_FAILURE(fail);
  }
}

}  // namespace test_array_view
