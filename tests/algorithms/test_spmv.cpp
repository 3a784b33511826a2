// dmap::multiply (y = A x, algorithms/spmv.hpp) against a brute-force oracle.
//
// Every locale builds the whole matrix from a fixed seed (a list of (row, column) nonzeros of
// a strided, offset parent, a few empty rows, one dense row and one dense column) and the
// whole x; values are small integers, so every sum is exact whatever the order and y is
// compared element by element with the oracle's row sums. Parents: Block over 1xP, Px1 and
// (at 4 ranks) 2x2 grids, Cyclic, BlockCyclic; x and y over Block, Cyclic, BlockCyclic,
// Irregular, Hashed, Unstructured and Stencil maps (x also Replicated); COO, CSR and CSC
// layouts. Counters: each product
// receives one message per x owner holding columns a locale needs, carrying exactly the
// distinct remote x values, plus one message per locale sending partial sums of rows whose y
// element lives here, carrying one value per such row; the second product reuses the plan
// and moves the same; an `add` rebuilds it.
#include "../maps_1d.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace test_spmv {

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::maps::map_kind;

// The parent's index set: 23 rows 5, 6, ..., 27 and 19 columns -3, -1, ..., 33 (strided, so
// positions and indices differ).
const rect<2> parent_rect{range(5, 28), range(-3, 35, 2)};

struct matrix {
  std::vector<idx<2>> nonzeros;  // distinct, in generation order
};

// Value of A at index i, of x at column position k: small integers.
double a_value(const idx<2>& i) { return static_cast<double>((i[0] * 7 + i[1] * 3) % 11 - 5); }
double x_value(index_t k) { return static_cast<double>(k % 13 - 6); }

// The seeded matrix: each (row, column) with probability 1/5, rows 7 and 20 empty, row 12 and
// column 9 full.
matrix make_matrix(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  matrix m;
  const range& rows = parent_rect.dim(0);
  const range& cols = parent_rect.dim(1);
  for (index_t r = 0; r < rows.size(); ++r)
    for (index_t c = 0; c < cols.size(); ++c) {
      const bool pick = g() % 5 == 0;
      if (r == 7 || r == 20) continue;
      if (pick || r == 12 || c == 9) m.nonzeros.push_back(idx<2>{rows.index_at(r), cols.index_at(c)});
    }
  return m;
}

// Collective: the sparse domain of `m` over `parent` (each locale adds every p-th nonzero,
// so indices travel to their owners) and an array of a_value.
struct sparse_matrix {
  dmap::sparse_domain<2> domain;
  dmap::sparse_array<double, 2> values;
};

void fill_values(const dmap::sparse_domain<2>& s, dmap::sparse_array<double, 2>& a) {
  const auto indices = s.local_indices();
  auto values = a.local_values();
  for (std::size_t p = 0; p < indices.size(); ++p) values[p] = a_value(indices[p]);
}

template <class Layout>
sparse_matrix make_sparse(const dmap::domain<2>& parent, const matrix& m, const Layout& layout) {
  dmap::sparse_domain<2> s(parent, layout);
  std::vector<idx<2>> mine;
  for (std::size_t k = 0; k < m.nonzeros.size(); ++k)
    if (static_cast<int>(k % static_cast<std::size_t>(dmap::num_locales())) == dmap::here()) mine.push_back(m.nonzeros[k]);
  s.add(std::span<const idx<2>>(mine));
  dmap::sparse_array<double, 2> a(s);
  fill_values(s, a);
  return {s, std::move(a)};
}

// Collective: a 1-D array of `n` elements (indices 100, 103, ...: strided and offset) under
// map `k`, x's values or a marker y must overwrite.
dmap::array<double, 1> make_vector(map_kind k, index_t n, bool is_x) {
  const rect<1> r{range(100, 100 + 3 * n, 3)};
  dmap::array<double, 1> v(dmap::testing::maps::domain_of(k, r));
  const range whole = r.dim(0);
  dmap::forall(v.domain(), [&](idx<1> i) { v.local(i) = is_x ? x_value(whole.order_of(i[0])) : 12345.0; });
  return v;
}

// The oracle: y at row position r.
std::vector<double> oracle_product(const matrix& m) {
  const range& rows = parent_rect.dim(0);
  const range& cols = parent_rect.dim(1);
  std::vector<double> y(static_cast<std::size_t>(rows.size()), 0.0);
  for (const auto& i : m.nonzeros)
    y[static_cast<std::size_t>(rows.order_of(i[0]))] += a_value(i) * x_value(cols.order_of(i[1]));
  return y;
}

// "" when y holds the oracle's values on this locale, else the first mismatch.
std::string check_y(const dmap::array<double, 1>& y, const std::vector<double>& expected) {
  std::string failure;
  const range whole = y.domain().dim(0);
  for (const auto& piece : y.domain().local_subdomains())
    for (index_t j = 0; j < piece.dim(0).size(); ++j) {
      const index_t i = piece.dim(0).index_at(j);
      const auto k = static_cast<std::size_t>(whole.order_of(i));
      if (failure.empty() && y.local(idx<1>{i}) != expected[k])
        failure = "y[" + std::to_string(i) + "] (row " + std::to_string(k) + ") is " + std::to_string(y.local(idx<1>{i})) +
                  ", expected " + std::to_string(expected[k]);
    }
  return failure;
}

// What one product must move to this locale: messages and bytes received (x values from
// their owners, partial sums from the locales holding nonzeros of rows whose y is here).
struct expected_traffic {
  std::uint64_t messages = 0, bytes = 0;
};

expected_traffic expected_receipts(const dmap::domain<2>& parent, const matrix& m, const dmap::domain<1>& xd,
                                   const dmap::domain<1>& yd) {
  const int me = dmap::here();
  const range& rows = parent_rect.dim(0);
  const range& cols = parent_rect.dim(1);
  std::vector<idx<1>> xi, yi;
  for (const auto& i : m.nonzeros) {
    xi.push_back(idx<1>{xd.dim(0).index_at(cols.order_of(i[1]))});
    yi.push_back(idx<1>{yd.dim(0).index_at(rows.order_of(i[0]))});
  }
  const auto x_owner = xd.locales_of(xi);
  const auto y_owner = yd.locales_of(yi);
  std::set<std::pair<int, index_t>> columns;  // (x owner, column) needed here from others
  std::set<std::pair<int, index_t>> rows_in;  // (nonzero owner, row) whose partial sum comes here
  for (std::size_t k = 0; k < m.nonzeros.size(); ++k) {
    const int owner = parent.locale_of(m.nonzeros[k]);
    if (owner == me && x_owner[k] != me) columns.insert({x_owner[k], xi[k][0]});
    if (owner != me && y_owner[k] == me) rows_in.insert({owner, yi[k][0]});
  }
  std::set<int> x_peers, y_peers;
  for (const auto& c : columns) x_peers.insert(c.first);
  for (const auto& r : rows_in) y_peers.insert(r.first);
  return {x_peers.size() + y_peers.size(), 8 * (columns.size() + rows_in.size())};
}

struct parent_case {
  std::string name;
  std::function<dmap::domain<2>()> make;
};

std::vector<parent_case> parents() {
  const int p = dmap::num_locales();
  std::vector<parent_case> out{
      {"block 1xP", [p] { return dmap::domain<2>{dmap::block<2>{dmap::target_grid<2>({1, p})}, parent_rect}; }},
      {"block Px1", [p] { return dmap::domain<2>{dmap::block<2>{dmap::target_grid<2>({p, 1})}, parent_rect}; }},
      {"cyclic", [] { return dmap::domain<2>{dmap::cyclic<2>{}, parent_rect}; }},
      {"block_cyclic", [] { return dmap::domain<2>{dmap::block_cyclic<2>{idx<2>{2, 3}}, parent_rect}; }},
  };
  if (p == 4)
    out.push_back({"block 2x2", [] { return dmap::domain<2>{dmap::block<2>{dmap::target_grid<2>({2, 2})}, parent_rect}; }});
  return out;
}

// (x map, y map) pairs: every map appears on both sides.
const std::pair<map_kind, map_kind> vector_maps[] = {
    {map_kind::block, map_kind::block},          {map_kind::cyclic, map_kind::irregular},
    {map_kind::block_cyclic, map_kind::cyclic},  {map_kind::irregular, map_kind::hashed},
    {map_kind::hashed, map_kind::unstructured},  {map_kind::unstructured, map_kind::block_cyclic},
    {map_kind::stencil, map_kind::stencil},      {map_kind::replicated, map_kind::block},
};

// Collective: checks one product of `s` with x and y over the given maps: values, traffic,
// plan reuse. Returns y's local values for comparisons across layouts.
void check_product(const dmap::domain<2>& parent, const matrix& m, const sparse_matrix& s, map_kind xk, map_kind yk,
                   const std::vector<double>& expected) {
  const index_t rows = parent_rect.dim(0).size(), cols = parent_rect.dim(1).size();
  auto x = make_vector(xk, cols, true);
  auto y = make_vector(yk, rows, false);
  const auto traffic = expected_receipts(parent, m, x.domain(), y.domain());
  INFO("x over " << dmap::testing::maps::name_of(xk) << ", y over " << dmap::testing::maps::name_of(yk));

  const auto plans0 = dmap::plan_statistics();
  dmap::reset_counters();
  dmap::multiply(s.values, x, y);
  const auto first = dmap::counters();
  const auto plans1 = dmap::plan_statistics();
  CHECK_NO_FAILURE(check_y(y, expected));
  DMAP_CHECK_ALL(plans1.built == plans0.built + 1);

  dmap::forall(y.domain(), [&](idx<1> i) { y.local(i) = -1.0; });
  dmap::reset_counters();
  dmap::multiply(s.values, x, y);
  const auto second = dmap::counters();
  const auto plans2 = dmap::plan_statistics();
  CHECK_NO_FAILURE(check_y(y, expected));
  DMAP_CHECK_ALL(plans2.built == plans1.built && plans2.reused == plans1.reused + 1);
  INFO("received " << second.messages_received << " messages, " << second.bytes_received << " bytes; expected "
                   << traffic.messages << ", " << traffic.bytes);
  DMAP_CHECK_ALL(second.messages_received == traffic.messages && second.bytes_received == traffic.bytes);
  const auto sent = dmap::all_reduce_sum(second.messages_sent), received = dmap::all_reduce_sum(second.messages_received);
  const auto sent_bytes = dmap::all_reduce_sum(second.bytes_sent), received_bytes = dmap::all_reduce_sum(second.bytes_received);
  DMAP_CHECK_ALL(sent == received && sent_bytes == received_bytes);
  DMAP_CHECK_ALL(second.node_copies == 0);
  // The plan's exchanges are the first product's only extra traffic.
  DMAP_CHECK_ALL(first.messages_received >= second.messages_received);
}

}  // namespace

TEST_CASE("multiply: y = A x against the oracle, every parent map, vector map and layout", "[spmv]") {
  const matrix m = make_matrix(0x5eed15);
  const auto expected = oracle_product(m);
  for (const auto& pc : parents()) {
    INFO("parent " << pc.name);
    const auto parent = pc.make();
    const sparse_matrix coo = make_sparse(parent, m, dmap::coo_layout<2>{});
    const sparse_matrix csr = make_sparse(parent, m, dmap::csr_layout<2>{});
    const sparse_matrix csc = make_sparse(parent, m, dmap::csc_layout<2>{});
    for (const auto* s : {&coo, &csr, &csc}) {
      INFO("layout " << s->domain.layout_name());
      for (const auto& [xk, yk] : vector_maps) check_product(parent, m, *s, xk, yk, expected);
    }
  }
}

TEST_CASE("multiply: the same y from every layout, bit for bit, with inexact values", "[spmv]") {
  const matrix m = make_matrix(77);
  const int p = dmap::num_locales();
  const dmap::domain<2> parent{dmap::block<2>{dmap::target_grid<2>({1, p})}, parent_rect};
  std::vector<std::vector<double>> results;
  for (int layout = 0; layout < 3; ++layout) {
    dmap::sparse_domain<2> s = layout == 0   ? dmap::sparse_domain<2>(parent, dmap::coo_layout<2>{})
                               : layout == 1 ? dmap::sparse_domain<2>(parent, dmap::csr_layout<2>{})
                                             : dmap::sparse_domain<2>(parent, dmap::csc_layout<2>{});
    if (dmap::here() == 0) s.add(std::span<const idx<2>>(m.nonzeros));
    else s.add(std::span<const idx<2>>());
    dmap::sparse_array<double, 2> a(s);
    const auto indices = s.local_indices();
    for (std::size_t k = 0; k < indices.size(); ++k) a.local_values()[k] = 1.0 / static_cast<double>(3 + indices[k][0] + 7 * indices[k][1] % 5);
    dmap::array<double, 1> x(dmap::domain<1>{dmap::cyclic<1>{}, rect<1>{range(0, parent_rect.dim(1).size())}});
    dmap::forall(x.domain(), [&](idx<1> i) { x.local(i) = 0.1 * static_cast<double>(i[0]) + 1.0 / 7.0; });
    dmap::array<double, 1> y(dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, parent_rect.dim(0).size())}});
    dmap::multiply(a, x, y);
    results.push_back(y.gather());
  }
  DMAP_CHECK_ALL(results[0] == results[1] && results[1] == results[2]);
}

TEST_CASE("multiply: an add rebuilds the plan, and the product follows the new set", "[spmv]") {
  matrix m = make_matrix(3);
  const auto parent = dmap::domain<2>{dmap::block<2>{dmap::target_grid<2>({dmap::num_locales(), 1})}, parent_rect};
  sparse_matrix s = make_sparse(parent, m, dmap::csr_layout<2>{});
  auto x = make_vector(map_kind::cyclic, parent_rect.dim(1).size(), true);
  auto y = make_vector(map_kind::block, parent_rect.dim(0).size(), false);
  dmap::multiply(s.values, x, y);
  CHECK_NO_FAILURE(check_y(y, oracle_product(m)));
  const auto before = dmap::plan_statistics();
  // Row 7 was empty: fill it (added on the last locale only).
  std::vector<idx<2>> more;
  for (index_t c = 0; c < parent_rect.dim(1).size(); ++c)
    more.push_back(idx<2>{parent_rect.dim(0).index_at(7), parent_rect.dim(1).index_at(c)});
  if (dmap::here() == dmap::num_locales() - 1) s.domain.add(std::span<const idx<2>>(more));
  else s.domain.add(std::span<const idx<2>>());
  m.nonzeros.insert(m.nonzeros.end(), more.begin(), more.end());
  fill_values(s.domain, s.values);
  dmap::multiply(s.values, x, y);
  DMAP_CHECK_ALL(dmap::plan_statistics().built == before.built + 1);
  CHECK_NO_FAILURE(check_y(y, oracle_product(m)));
  const auto traffic = expected_receipts(parent, m, x.domain(), y.domain());
  dmap::reset_counters();
  dmap::multiply(s.values, x, y);
  DMAP_CHECK_ALL(dmap::counters().messages_received == traffic.messages && dmap::counters().bytes_received == traffic.bytes);
}

TEST_CASE("multiply: few nonzeros over a wide range of columns (distinct columns found by sorting)", "[spmv]") {
  // 60 nonzeros over 300,000 columns: the columns' span is far beyond twice the entries.
  const index_t rows = 17, cols = 300000;
  const rect<2> wide{range(0, rows), range(0, cols)};
  std::mt19937_64 g(99);
  std::vector<idx<2>> nonzeros;
  for (int k = 0; k < 60; ++k) {
    const idx<2> i{static_cast<index_t>(g() % rows), static_cast<index_t>(g() % cols)};
    if (std::find(nonzeros.begin(), nonzeros.end(), i) == nonzeros.end()) nonzeros.push_back(i);
  }
  std::vector<double> expected(static_cast<std::size_t>(rows), 0.0);
  for (const auto& i : nonzeros) expected[static_cast<std::size_t>(i[0])] += a_value(i) * x_value(i[1]);
  for (const auto& grid : {std::array<int, 2>{1, dmap::num_locales()}, std::array<int, 2>{dmap::num_locales(), 1}}) {
    const dmap::domain<2> parent{dmap::block<2>{dmap::target_grid<2>(grid)}, wide};
    dmap::sparse_domain<2> s(parent, dmap::csr_layout<2>{});
    if (dmap::here() == 0) s.add(std::span<const idx<2>>(nonzeros));
    else s.add(std::span<const idx<2>>());
    dmap::sparse_array<double, 2> a(s);
    fill_values(s, a);
    dmap::array<double, 1> x(dmap::domain<1>{dmap::cyclic<1>{}, rect<1>{range(0, cols)}});
    dmap::forall(x.domain(), [&](idx<1> i) { x.local(i) = x_value(i[0]); });
    dmap::array<double, 1> y(dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, rows)}}, 7.0);
    dmap::multiply(a, x, y);
    std::string failure;
    dmap::forall(y.domain(), [&](idx<1> i) {
      if (y.local(i) != expected[static_cast<std::size_t>(i[0])] && failure.empty())
        failure = "y[" + std::to_string(i[0]) + "] is " + std::to_string(y.local(i));
    });
    CHECK_NO_FAILURE(failure);
    // Exactly the distinct remote x values travel.
    std::set<index_t> remote;
    for (const auto& i : nonzeros)
      if (parent.locale_of(i) == dmap::here() && x.domain().locale_of(idx<1>{i[1]}) != dmap::here()) remote.insert(i[1]);
    dmap::reset_counters();
    dmap::multiply(a, x, y);
    const auto c = dmap::counters();
    std::uint64_t partial_bytes = 0;  // partial sums arriving here (1 x P: rows of other locales' nonzeros)
    std::set<std::pair<int, index_t>> rows_in;
    for (const auto& i : nonzeros)
      if (parent.locale_of(i) != dmap::here() && y.domain().locale_of(idx<1>{i[0]}) == dmap::here())
        rows_in.insert({parent.locale_of(i), i[0]});
    partial_bytes = 8 * rows_in.size();
    DMAP_CHECK_ALL(c.bytes_received == 8 * remote.size() + partial_bytes);
  }
}

TEST_CASE("multiply: an empty matrix gives zeros; integer elements work", "[spmv]") {
  const auto parent = dmap::domain<2>{dmap::block<2>{}, parent_rect};
  dmap::sparse_domain<2> s(parent, dmap::csr_layout<2>{});
  dmap::sparse_array<long, 2> a(s);
  dmap::array<long, 1> x(dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, parent_rect.dim(1).size())}}, 3L);
  dmap::array<long, 1> y(dmap::domain<1>{dmap::cyclic<1>{}, rect<1>{range(0, parent_rect.dim(0).size())}}, 9L);
  dmap::reset_counters();
  dmap::multiply(a, x, y);
  DMAP_CHECK_ALL(dmap::counters().messages_sent == 0);
  bool zeros = true;
  dmap::forall(y.domain(), [&](idx<1> i) { zeros = zeros && y.local(i) == 0; });
  DMAP_CHECK_ALL(zeros);
  // One nonzero per row at column (row * 5) mod columns, value row + 1.
  std::vector<idx<2>> diag;
  const index_t rows = parent_rect.dim(0).size(), cols = parent_rect.dim(1).size();
  if (dmap::here() == 0)
    for (index_t r = 0; r < rows; ++r) diag.push_back(idx<2>{parent_rect.dim(0).index_at(r), parent_rect.dim(1).index_at(r * 5 % cols)});
  s.add(std::span<const idx<2>>(diag));
  const auto indices = s.local_indices();
  for (std::size_t k = 0; k < indices.size(); ++k) a.local_values()[k] = parent_rect.dim(0).order_of(indices[k][0]) + 1;
  dmap::forall(x.domain(), [&](idx<1> i) { x.local(i) = i[0] * 10; });
  dmap::multiply(a, x, y);
  bool right = true;
  dmap::forall(y.domain(), [&](idx<1> i) { right = right && y.local(i) == (i[0] + 1) * (i[0] * 5 % cols) * 10; });
  DMAP_CHECK_ALL(right);
}

TEST_CASE("multiply: bad shapes and y aliasing x fail on every locale", "[spmv]") {
  using dmap::testing::throws_with;
  const auto parent = dmap::domain<2>{dmap::block<2>{}, parent_rect};
  dmap::sparse_domain<2> s(parent, dmap::csr_layout<2>{});
  dmap::sparse_array<double, 2> a(s);
  const index_t rows = parent_rect.dim(0).size(), cols = parent_rect.dim(1).size();
  dmap::array<double, 1> x(dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, cols)}});
  dmap::array<double, 1> y(dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, rows)}});
  dmap::array<double, 1> short_x(dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, cols - 1)}});
  dmap::array<double, 1> long_y(dmap::domain<1>{dmap::cyclic<1>{}, rect<1>{range(0, rows + 2)}});
  CHECK_NO_FAILURE(throws_with<dmap::shape_error>([&] { dmap::multiply(a, short_x, y); }, "x over"));
  CHECK_NO_FAILURE(throws_with<dmap::shape_error>([&] { dmap::multiply(a, short_x, y); }, "columns"));
  CHECK_NO_FAILURE(throws_with<dmap::shape_error>([&] { dmap::multiply(a, x, long_y); }, "rows"));
  // A square matrix, so that x and y have the same length.
  const rect<2> square{range(0, rows), range(0, rows)};
  const auto square_parent = dmap::domain<2>{dmap::block<2>{}, square};
  dmap::sparse_domain<2> q(square_parent, dmap::csr_layout<2>{});
  dmap::sparse_array<double, 2> b(q);
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { dmap::multiply(b, y, y); }, "y is x"));
  // y over another array of the same domain is fine.
  dmap::array<double, 1> z(y.domain());
  CHECK_NOTHROW(dmap::multiply(b, y, z));
  CHECK_NOTHROW(dmap::multiply(b, y, z));  // and again, with the plan kept
  dmap::array<double, 1> copies(dmap::domain<1>{dmap::replicated<1>{}, rect<1>{range(0, rows)}});
  CHECK_NO_FAILURE(throws_with<dmap::unsupported_error>([&] { dmap::multiply(b, y, copies); }, "keeps copies"));
  // A product makes no collective call once its plan is built.
  dmap::reset_counters();
  dmap::multiply(b, y, z);
  DMAP_CHECK_ALL(dmap::counters().collectives == 0);
}

}  // namespace test_spmv
