// domain::set_indices (Chapel's dsiSetIndices / dsiReallocate) against a serial oracle.
//
// Every case keeps, next to the distributed arrays, a serial map from index to value: after
// a resize an index keeps its value iff it was an index before, and a new index holds the
// array's implicit value (the value it was made with: T{} by default).
// The oracle of a rect is the row-major list of its indices (nested loops over each
// dimension's sequence, found by scanning [lo, hi) for (i - alignment) mod |stride| == 0);
// the oracle of ownership is Chapel's Block cut written out independently: along a
// dimension whose indices span [lo, lo + n), grid extent p, part k owns
// [lo + ceil(n*k/p), lo + ceil(n*(k+1)/p)), so index i belongs to grid coordinate
// floor((i - lo) * p / n), and grid coordinates give a locale in C order.
//
// Random cases come from a std::mt19937_64 with a fixed seed, identical on every locale.
#include "../oracle.hpp"
#include "../support.hpp"

#include <range/v3/range/conversion.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace test_resize {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

// ------------------------------------------------------------------------------- oracle

using namespace dmap::testing::oracle;  // tests/oracle.hpp

/// Random rects here hold at most 4000 indices.
constexpr rect_spec shapes{40, 4000, 2};

template <std::size_t N>
using key_t = std::array<index_t, N>;
template <std::size_t N>
key_t<N> key(const idx<N>& i) {
  return static_cast<const std::array<index_t, N>&>(i);
}

/// The owner of each index under Block, from Chapel's cut of the span of its indices.
template <std::size_t N>
struct block_oracle {
  std::array<index_t, N> lo{}, n{};
  std::array<int, N> p{};
  block_oracle(const rect<N>& r, const std::array<int, N>& grid) : p(grid) {
    for (std::size_t d = 0; d < N; ++d) {
      const auto s = seq_of(r.dim(d));
      if (s.empty()) continue;
      const auto [mn, mx] = std::minmax_element(s.begin(), s.end());
      lo[d] = *mn;
      n[d] = *mx - *mn + 1;
    }
  }
  int owner(const idx<N>& i) const {
    std::array<int, N> c{};
    for (std::size_t d = 0; d < N; ++d) c[d] = cut_part(lo[d], lo[d] + n[d], p[d], i[d]);
    return c_order_locale(p, c);
  }
};

/// Collective: "" when the gathered array holds `expected` in row-major order (checked on
/// locale 0), else the first difference.
template <class T, std::size_t N>
std::string compare_gathered(const dmap::array<T, N>& a, const std::vector<idx<N>>& order, const std::vector<T>& expected,
                             const char* name) {
  const std::vector<T> all = a.gather();
  if (dmap::here() != 0) return {};
  if (all.size() != expected.size())
    return std::string(name) + ": gather() returned " + std::to_string(all.size()) + " elements, expected " +
           std::to_string(expected.size());
  for (std::size_t k = 0; k < all.size(); ++k)
    if (!(all[k] == expected[k]))
      return std::string(name) + " at " + text(order[k]) + " (order " + std::to_string(k) + ") is " + text(all[k]) +
             ", expected " + text(expected[k]);
  return {};
}

// ------------------------------------------------------------------------------- random cases

enum class change { grow, shrink, shift_overlapping, shift_disjoint, restride, to_empty, back, fresh };
constexpr const char* change_names[] = {"grow", "shrink", "shift (overlapping)", "shift (disjoint)",
                                        "change stride", "to empty", "back", "new rect"};

template <std::size_t N>
rect<N> changed(gen& g, change kind, const rect<N>& r, const rect<N>& back_to) {
  idx<N> amount{};
  rect<N> out = r;
  switch (kind) {
    case change::grow:
      for (std::size_t d = 0; d < N; ++d) amount[d] = g.uniform(0, 3);
      return r.expanded(amount);
    case change::shrink:
      for (std::size_t d = 0; d < N; ++d) amount[d] = -g.uniform(0, 3);
      return r.expanded(amount);
    case change::shift_overlapping:
      for (std::size_t d = 0; d < N; ++d) amount[d] = g.uniform(-3, 3);
      return r.translated(amount);
    case change::shift_disjoint:
      amount[0] = r.dim(0).lo() < 0 ? 150 : -150;  // beyond every index of the dimension
      return r.translated(amount);
    case change::restride:
      for (std::size_t d = 0; d < N; ++d)
        if (g.chance(2, 3)) out.set_dim(d, range(r.dim(d).lo(), r.dim(d).hi(), random_strides[g.uniform(0, 4)]));
      return out;
    case change::to_empty:
      if (g.chance(1, 2)) return rect<N>{};
      {
        const std::size_t d = static_cast<std::size_t>(g.uniform(0, static_cast<index_t>(N) - 1));
        out.set_dim(d, range(r.dim(d).lo(), r.dim(d).lo()));
      }
      return out;
    case change::back: return back_to;
    case change::fresh: return random_rect<N>(g, shapes);
  }
  return r;
}

/// One distributed domain with arrays over it, and the serial oracle of their values.
template <std::size_t N>
struct resize_fixture {
  dmap::block<N> dist;
  dmap::domain<N> D;
  dmap::domain<N> alias;  // another handle of the same domain
  dmap::array<int, N> A;
  dmap::array<double, N> B;
  dmap::array<int, N> C;  // created with 42
  dmap::array<double, N> H;  // declared over the alias handle
  dmap::array<double, N> M;  // moved from a temporary
  std::map<key_t<N>, std::array<double, 4>> values;  // A, B, C, H per index (M == -B)

  resize_fixture(const dmap::block<N>& d, const rect<N>& r)
      : dist(d), D(d, r), alias(D), A(D), B(D), C(D, 42), H(alias, 1.5), M(dmap::array<double, N>(D)) {
    dmap::forall(dmap::zip(A, B, D), [](int& a, double& b, idx<N> i) {
      a = ival(i);
      b = fval(i);
    });
    dmap::forall(dmap::zip(M, std::as_const(B)), [](double& m, const double& b) { m = -b; });
    for (const auto& i : points_of(r))
      values[key(i)] = {static_cast<double>(ival(i)), fval(i), 42, 1.5};
  }

  /// Collective: resizes and updates the oracle.
  void resize(const rect<N>& r) {
    {
      // An array that no longer exists must not be reallocated.
      dmap::array<double, N> gone{D, 3.0};
    }
    D.set_indices(r);
    std::map<key_t<N>, std::array<double, 4>> next;
    for (const auto& i : points_of(r)) {
      const auto it = values.find(key(i));
      next[key(i)] = it == values.end() ? std::array<double, 4>{0, 0, 42, 1.5} : it->second;  // the implicit values
    }
    values = std::move(next);
  }

  /// Collective: "" when every array matches the oracle.
  std::string check_values() const {
    const rect<N> r = D.indices();
    const auto order = points_of(r);
    std::vector<int> ea, ec;
    std::vector<double> eb, eh, em;
    for (const auto& i : order) {
      const auto& v = values.at(key(i));
      ea.push_back(static_cast<int>(v[0]));
      eb.push_back(v[1]);
      ec.push_back(static_cast<int>(v[2]));
      eh.push_back(v[3]);
      em.push_back(-v[1]);
    }
    std::string w = compare_gathered(A, order, ea, "A (int)");
    const std::string wb = compare_gathered(B, order, eb, "B (double)");
    const std::string wc = compare_gathered(C, order, ec, "C (int, made with 42)");
    const std::string wh = compare_gathered(H, order, eh, "H (over another handle)");
    const std::string wm = compare_gathered(M, order, em, "M (moved)");
    for (const auto* x : {&wb, &wc, &wh, &wm})
      if (w.empty()) w = *x;
    return w;
  }

  /// Collective: "" when the ownership of every index and each locale's subdomains follow the
  /// Block cut of the current indices.
  std::string check_placement() const {
    const rect<N> r = D.indices();
    const auto order = points_of(r);
    const block_oracle<N> cut(r, dist.targets().shape());
    const int p = dmap::num_locales();
    std::vector<std::vector<idx<N>>> owned(static_cast<std::size_t>(p));
    for (const auto& i : order) {
      const int q = cut.owner(i);
      if (D.locale_of(i) != q)
        return "locale_of(" + text(i) + ") is " + std::to_string(D.locale_of(i)) + ", the cut says " + std::to_string(q);
      owned[static_cast<std::size_t>(q)].push_back(i);
    }
    for (int q = 0; q < p; ++q) {
      std::vector<key_t<N>> got, want;
      for (const auto& s : D.local_subdomains(q))
        for (const auto& i : points_of(s)) got.push_back(key(i));
      for (const auto& i : owned[static_cast<std::size_t>(q)]) want.push_back(key(i));
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      if (got != want)
        return "local_subdomains(" + std::to_string(q) + ") hold " + std::to_string(got.size()) +
               " indices, the cut gives locale " + std::to_string(q) + " " + std::to_string(want.size());
    }
    const auto& mine = D.local_subdomains();
    const auto theirs = D.local_subdomains(dmap::here());
    if (mine.size() != theirs.size() || !std::equal(mine.begin(), mine.end(), theirs.begin()))
      return "local_subdomains() differs from local_subdomains(here())";
    if (D.local_size() != static_cast<index_t>(owned[static_cast<std::size_t>(dmap::here())].size()))
      return "local_size() is " + std::to_string(D.local_size()) + ", the cut gives " +
             std::to_string(owned[static_cast<std::size_t>(dmap::here())].size());
    if (!(alias.indices() == r) || alias.local_size() != D.local_size()) return "the alias handle did not follow";
    return {};
  }

  /// Collective: "" when every locale reads the new placement through view(B) (each locale
  /// alone, in turn) and through remote element access A[i] at a few indices.
  std::string check_reads(gen& g) const {
    const auto order = points_of(D.indices());
    std::vector<double> want;
    for (const auto& i : order) want.push_back(values.at(key(i))[1]);
    std::vector<std::size_t> picks;
    for (int t = 0; t < 4 && !order.empty(); ++t)
      picks.push_back(static_cast<std::size_t>(g.uniform(0, static_cast<index_t>(order.size()) - 1)));
    std::string w;
    for (int q = 0; q < dmap::num_locales(); ++q) {
      if (dmap::here() == q) {
        if (ranges::to<std::vector<double>>(dmap::view(B)) != want) w = "view(B) differs on locale " + std::to_string(q);
        for (const std::size_t k : picks) {
          const int got = std::as_const(A)[order[k]];
          if (w.empty() && got != static_cast<int>(values.at(key(order[k]))[0]))
            w = "A[" + text(order[k]) + "] read " + std::to_string(got) + " on locale " + std::to_string(q);
        }
      }
      dmap::barrier();
    }
    return w;
  }

  /// Collective: a forall over D visits exactly the new indices, each on its owner, and
  /// zipped loops reach every array; the oracle follows.
  std::string check_loops(int step) {
    const auto order = points_of(D.indices());
    dmap::array<int, N> visits{D};
    std::atomic<long> off_owner{0};
    dmap::forall(D, [&](idx<N> i) {
      visits.local(i) += 1;
      if (D.locale_of(i) != dmap::here()) ++off_owner;
    });
    const std::string w = compare_gathered(visits, order, std::vector<int>(order.size(), 1), "visits");
    if (dmap::any_of_locales(off_owner.load() != 0)) return "a forall ran indices off their owner";
    if (dmap::any_of_locales(!w.empty())) return w.empty() ? "visits differ (see locale 0)" : w;  // collective decision
    dmap::forall(dmap::zip(A, B, C, D, H), [step](int& a, double& b, int& c, idx<N> i, double& h) {
      a += step + 1;
      b = fval(i) - b;
      c -= 2 * step;
      h += 0.25;
    });
    dmap::forall(dmap::zip(M, std::as_const(B)), [](double& m, const double& b) { m = -b; });
    for (const auto& i : order) {
      auto& v = values.at(key(i));
      v = {v[0] + step + 1, fval(i) - v[1], v[2] - 2 * step, v[3] + 0.25};
    }
    return check_values();
  }
};

template <std::size_t N>
void resize_sequence(const dmap::block<N>& dist, const rect<N>& r0, const std::vector<std::pair<change, rect<N>>>& steps,
                     const std::string& label, gen& g) {
  INFO(label << ": " << N << "-D over " << describe(dist) << ", starting at " << r0);
  resize_fixture<N> f(dist, r0);
  {
    const std::string w = f.check_values();
    INFO(w);
    DMAP_REQUIRE_ALL(w.empty());
  }
  int step = 0;
  for (const auto& [kind, r] : steps) {
    INFO("step " << step << ": " << change_names[static_cast<int>(kind)] << " from " << f.D.indices() << " to " << r);
    f.resize(r);
    DMAP_CHECK_ALL(f.D.indices() == r);
    DMAP_CHECK_ALL(f.D.size() == static_cast<index_t>(points_of(r).size()));
    std::string w = f.check_values();
    {
      INFO("values after the resize: " << w);
      DMAP_CHECK_ALL(w.empty());
    }
    w = f.check_placement();
    {
      INFO("placement after the resize: " << w);
      DMAP_CHECK_ALL(w.empty());
    }
    w = f.check_reads(g);
    {
      INFO("reads after the resize: " << w);
      DMAP_CHECK_ALL(w.empty());
    }
    w = f.check_loops(step);
    {
      INFO("loops after the resize: " << w);
      DMAP_CHECK_ALL(w.empty());
    }
    ++step;
  }
}

template <std::size_t N>
void random_resize_case(gen& g, int c) {
  const dmap::block<N> dist = random_block<N>(g);
  const rect<N> r0 = random_rect<N>(g, shapes);
  std::vector<std::pair<change, rect<N>>> steps;
  rect<N> r = r0, back_to = r0;
  for (int s = 0; s < 6; ++s) {
    const auto kind = static_cast<change>(g.uniform(0, 7));
    rect<N> next = changed<N>(g, kind, r, back_to);
    if (next.size() > 6000) next = random_rect<N>(g, shapes);
    if (kind == change::to_empty && r.size() > 0) back_to = r;
    steps.emplace_back(kind, next);
    r = next;
  }
  resize_sequence<N>(dist, r0, steps, "case " + std::to_string(c), g);
}

}  // namespace

TEST_CASE("set_indices: grow, shrink, shift, restride, empty and back keep surviving values", "[resize]") {
  const int p = dmap::num_locales();
  const rect<2> r0{range{0, 10}, range{-4, 9}};
  const rect<2> grown = r0.expanded(idx<2>{{2, 3}});
  const rect<2> shrunk = grown.expanded(idx<2>{{-4, -1}});
  const rect<2> overlapping = shrunk.translated(idx<2>{{3, -2}});
  const rect<2> disjoint = overlapping.translated(idx<2>{{40, 0}});
  const rect<2> restrided{range{40, 60, 3}, range{-6, 12, -2}};
  const rect<2> negative{range{38, 62, -1}, range{-6, 12, 1}};
  const rect<2> empty{};
  const std::vector<std::pair<change, rect<2>>> steps{
      {change::grow, grown},
      {change::shrink, shrunk},
      {change::shift_overlapping, overlapping},
      {change::shift_disjoint, disjoint},
      {change::restride, restrided},
      {change::restride, negative},
      {change::to_empty, empty},
      {change::back, negative},
      {change::to_empty, rect<2>{range{0, 5}, range{3, 3}}},
      {change::back, r0},
  };
  gen g(0x7e5123'0002ULL);
  resize_sequence<2>(dmap::block<2>{}, r0, steps, "scripted, default grid", g);
  resize_sequence<2>(dmap::block<2>{dmap::target_grid<2>{{1, p}}, dmap::storage_order::column_major}, r0, steps,
                     "scripted, 1xP column-major", g);
  resize_sequence<2>(dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, r0, steps, "scripted, Px1", g);
}

TEST_CASE("set_indices on random shapes, grids and storage orders", "[resize]") {
  gen g(0x7e5123'0001ULL);
  random_dimension_cases(g, 40, [&](auto n, int c) { random_resize_case<n>(g, c); });
}

TEST_CASE("set_indices with different rects on different locales throws argument_error on every locale", "[resize]") {
  const int p = dmap::num_locales();
  const rect<2> r0{range{0, 12}, range{0, 7, 2}};
  resize_fixture<2> f(dmap::block<2>{}, r0);
  // Every locale passes its own rect (all the same with one locale).
  const rect<2> mine = r0.translated(idx<2>{{dmap::here(), 0}});
  std::string what;
  try {
    f.resize(mine);
  } catch (const dmap::argument_error& e) {
    what = e.what();
  }
  INFO(what);
  if (p >= 2) {
    DMAP_CHECK_ALL(what.find("set_indices") != std::string::npos && what.find("different") != std::string::npos);
    // Nothing changed: same indices, same values.
    DMAP_CHECK_ALL(f.D.indices() == r0);  // the oracle kept r0's values: resize() threw before updating it
  } else {
    DMAP_CHECK_ALL(what.empty());
    DMAP_CHECK_ALL(f.D.indices() == mine);
  }
  const std::string w = f.check_values();
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
  // And the domain still resizes normally afterwards.
  f.resize(r0.expanded(1));
  const std::string w2 = f.check_values();
  INFO(w2);
  DMAP_CHECK_ALL(w2.empty());
  DMAP_CHECK_ALL(f.check_placement().empty());
}

}  // namespace test_resize
