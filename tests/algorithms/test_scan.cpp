// dmap::inclusive_scan, exclusive_scan and the transform variants against std::inclusive_scan
// / std::exclusive_scan of the input gathered in row-major order (on locale 0), over every
// 1-D map of maps_1d.hpp and every 2-D map of maps_2d.hpp, uneven sizes (0, 1, 2, 7, 37,
// 101: more locales than elements too), strided and backwards views, outputs over another
// map, in place, a non-commutative operation (2x2 integer matrix product mod a prime), and
// the number of collective calls (the same for every size).
#include "../maps_1d.hpp"
#include "../maps_2d.hpp"
#include "../support.hpp"

#include <array>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace test_scan {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using i64 = std::int64_t;

/// Integer values in [-50, 50] from a position.
i64 value_of(index_t k) { return ((k * 7919 + 13) % 101 + 101) % 101 - 50; }

/// Collective: sets every element of `a` from its index's row-major order in the domain.
template <class T, std::size_t N>
void fill(dmap::array<T, N>& a) {
  const auto& whole = a.domain().indices();
  dmap::forall(dmap::zip(a.domain(), a),
               [&](const idx<N>& i, T& x) { x = static_cast<T>(value_of(whole.order_of(i))); });
}

/// 2x2 integer matrices mod a prime under the product: associative, not commutative.
struct mat {
  i64 a = 1, b = 0, c = 0, d = 1;
  friend bool operator==(const mat&, const mat&) = default;
};
constexpr i64 prime = 1000003;
struct mat_product {
  mat operator()(const mat& x, const mat& y) const {
    return {(x.a * y.a + x.b * y.c) % prime, (x.a * y.b + x.b * y.d) % prime, (x.c * y.a + x.d * y.c) % prime,
            (x.c * y.b + x.d * y.d) % prime};
  }
};
mat mat_of(i64 v) {
  const i64 u = (v + 50) % prime;
  return {u + 1, 2 * u + 3, u % 7, 5};
}

/// Collective: "" when `out` holds `expected` (row-major, meaningful on locale 0) and
/// `total` is `expected_total` on every locale; a description otherwise.
template <class Out, class T>
std::string compare(const Out& out, const std::vector<T>& expected, const T& total, const T& expected_total) {
  const auto got = out.gather();
  std::string what;
  if (dmap::here() == 0) {
    if (got.size() != expected.size()) what = "gathered " + std::to_string(got.size()) + " elements";
    for (std::size_t k = 0; what.empty() && k < got.size(); ++k)
      if (!(got[k] == expected[k])) what = "element " + std::to_string(k) + " differs";
  }
  // The total is checked on every locale against locale 0's oracle.
  T root_total = expected_total;
  dmap::broadcast(root_total, 0);
  if (!(total == root_total)) what += " total differs on locale " + std::to_string(dmap::here());
  return what;
}

/// Collective: checks the four scans of `in` into `out` (arrays or views of one shape) with
/// std::plus over int64, against the gathered input.
template <class In, class Out>
std::string check_sums(In&& in, Out&& out) {
  const auto data = in.gather();  // on locale 0
  std::vector<i64> inc(data.size()), exc(data.size());
  std::inclusive_scan(data.begin(), data.end(), inc.begin());
  std::exclusive_scan(data.begin(), data.end(), exc.begin(), i64{3});
  const i64 sum = std::accumulate(data.begin(), data.end(), i64{0});
  std::string what;
  const i64 t1 = dmap::inclusive_scan(in, out);
  what += compare(out, inc, t1, sum);
  const i64 t2 = dmap::exclusive_scan(in, out, i64{3});
  what += compare(out, exc, t2, sum + 3);
  return what;
}

/// Collective: the transform variants (into `out`, not in place).
template <class In, class Out>
std::string check_transforms(In&& in, Out&& out) {
  const auto data = in.gather();
  std::vector<i64> sq(data.size()), sqx(data.size());
  const auto square = [](i64 x) { return x * x - 7; };
  std::transform_inclusive_scan(data.begin(), data.end(), sq.begin(), std::plus<>{}, square);
  std::transform_exclusive_scan(data.begin(), data.end(), sqx.begin(), i64{-2}, std::plus<>{}, square);
  i64 sumsq = 0;
  for (const auto x : data) sumsq += square(x);
  std::string what;
  const i64 t1 = dmap::transform_inclusive_scan(in, out, std::plus<>{}, square);
  what += compare(out, sq, t1, sumsq);
  const i64 t2 = dmap::transform_exclusive_scan(in, out, i64{-2}, std::plus<>{}, square);
  what += compare(out, sqx, t2, sumsq - 2);
  return what;
}

using dmap::testing::maps::all_maps;
using dmap::testing::maps::domain_of;
using dmap::testing::maps::map_kind;
using dmap::testing::maps::name_of;

}  // namespace

TEST_CASE("scans over every 1-D map, into another map and in place, match std scans", "[scan]") {
  for (const map_kind k : all_maps) {
    for (const index_t n : {index_t{0}, index_t{2}, index_t{7}, index_t{101}}) {
      INFO("map " << name_of(k) << ", n = " << n);
      const rect<1> r{range(-3, n - 3)};
      dmap::domain<1> D = domain_of(k, r);
      dmap::array<i64, 1> A(D);
      fill(A);
      // Into a Cyclic array (another map), then into a Block one over another index set.
      dmap::domain<1> C = domain_of(map_kind::cyclic, rect<1>{range(0, n)});
      dmap::array<i64, 1> B(C);
      CHECK_NO_FAILURE(check_sums(std::as_const(A), B));
      dmap::domain<1> K = domain_of(map_kind::block, rect<1>{range(10, 10 + 2 * n, 2)});
      dmap::array<i64, 1> E(K);
      CHECK_NO_FAILURE(check_transforms(A, E));
      // In place.
      dmap::array<i64, 1> G(D);
      fill(G);
      const auto data = G.gather();
      std::vector<i64> inc(data.size());
      std::inclusive_scan(data.begin(), data.end(), inc.begin());
      const i64 t = dmap::inclusive_scan(G, G);
      CHECK_NO_FAILURE(compare(G, inc, t, std::accumulate(data.begin(), data.end(), i64{0})));
    }
  }
}

TEST_CASE("scans over every 2-D map and a 2-D view with strides match std scans", "[scan]") {
  const int p = dmap::num_locales();
  for (const auto& m : dmap::testing::maps::makers()) {
    for (const rect<2> r : {rect<2>{range(0, 7), range(-2, 11)}, rect<2>{range(0, 2), range(0, 1)}}) {
      INFO("map " << m.name << " over " << r);
      dmap::domain<2> D = m.make(r);
      dmap::array<i64, 2> A(D);
      fill(A);
      dmap::domain<2> R(dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, r);
      dmap::array<i64, 2> B(R);
      CHECK_NO_FAILURE(check_sums(A, B));
      dmap::array<i64, 2> C(D);
      CHECK_NO_FAILURE(check_transforms(A, C));
      // In place.
      const auto data = A.gather();
      std::vector<i64> inc(data.size());
      std::inclusive_scan(data.begin(), data.end(), inc.begin());
      const i64 t = dmap::inclusive_scan(A, A);
      CHECK_NO_FAILURE(compare(A, inc, t, std::accumulate(data.begin(), data.end(), i64{0})));
    }
    // A strided, backwards view in, a strided view of another map out.
    INFO("views of " << m.name);
    dmap::domain<2> D = m.make(rect<2>{range(0, 9), range(0, 14)});
    dmap::array<i64, 2> A(D);
    fill(A);
    dmap::domain<2> E(dmap::cyclic<2>{}, rect<2>{range(0, 6), range(0, 20)});
    dmap::array<i64, 2> B(E);
    const auto in = A[rect<2>{range(1, 9, -2), range(0, 14, 3)}];  // 4 x 5
    const auto out = B[rect<2>{range(1, 6), range(0, 20, 4)}];     // 5 x 5: a 4 x 5 part of it
    CHECK_NO_FAILURE(check_sums(in, out[rect<2>{range(2, 6), range(0, 20, 4)}]));
  }
}

TEST_CASE("scans of 1-D views with strides, backwards, into views", "[scan]") {
  for (const map_kind k : {map_kind::block, map_kind::cyclic, map_kind::block_cyclic, map_kind::hashed}) {
    INFO("map " << name_of(k));
    dmap::domain<1> D = domain_of(k, rect<1>{range(-5, 96)});
    dmap::array<i64, 1> A(D), B(D);
    fill(A);
    // 31 elements each way, every third one forwards and backwards.
    CHECK_NO_FAILURE(check_sums(A[rect<1>{range(-4, 89, 3)}], B[rect<1>{range(1, 94, -3)}]));
    CHECK_NO_FAILURE(check_transforms(A[rect<1>{range(-4, 89, 3)}], B[rect<1>{range(-5, 26)}]));
    // A view in place (in and out the same view).
    const auto v = A[rect<1>{range(0, 60, 2)}];
    const auto data = v.gather();
    std::vector<i64> inc(data.size());
    std::inclusive_scan(data.begin(), data.end(), inc.begin(), dmap::maximum{});
    const i64 t = dmap::inclusive_scan(v, v, dmap::maximum{});
    CHECK_NO_FAILURE(compare(v, inc, t, data.empty() ? i64{0} : *std::max_element(data.begin(), data.end())));
  }
}

TEST_CASE("scans with a non-commutative operation follow row-major order", "[scan]") {
  for (const map_kind k : all_maps) {
    for (const index_t n : {index_t{1}, index_t{101}}) {
      INFO("map " << name_of(k) << ", n = " << n);
      dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
      dmap::array<mat, 1> A(D);
      dmap::forall(dmap::zip(D, A), [](const idx<1>& i, mat& x) { x = mat_of(value_of(i[0])); });
      dmap::array<mat, 1> B(D);
      dmap::domain<1> C = domain_of(map_kind::block, rect<1>{range(0, n)});
      dmap::array<mat, 1> E(C);
      const auto data = A.gather();
      std::vector<mat> inc(data.size()), exc(data.size());
      std::inclusive_scan(data.begin(), data.end(), inc.begin(), mat_product{});
      const mat seed{2, 1, 1, 1};
      std::exclusive_scan(data.begin(), data.end(), exc.begin(), seed, mat_product{});
      mat all = std::accumulate(data.begin(), data.end(), mat{}, mat_product{});
      const mat t1 = dmap::inclusive_scan(A, B, mat_product{});
      CHECK_NO_FAILURE(compare(B, inc, t1, all));
      const mat t2 = dmap::exclusive_scan(A, E, seed, mat_product{});
      CHECK_NO_FAILURE(compare(E, exc, t2, mat_product{}(seed, all)));
    }
  }
  // 2-D, over a 2x2-style grid and Cyclic: the order is row-major across locales.
  for (const auto& m : dmap::testing::maps::makers()) {
    INFO("map " << m.name);
    dmap::domain<2> D = m.make(rect<2>{range(0, 5), range(0, 9)});
    dmap::array<mat, 2> A(D), B(D);
    dmap::forall(dmap::zip(D, A), [](const idx<2>& i, mat& x) { x = mat_of(value_of(9 * i[0] + i[1])); });
    const auto data = A.gather();
    std::vector<mat> inc(data.size());
    std::inclusive_scan(data.begin(), data.end(), inc.begin(), mat_product{});
    const mat all = std::accumulate(data.begin(), data.end(), mat{}, mat_product{});
    const mat t = dmap::inclusive_scan(A, B, mat_product{});
    CHECK_NO_FAILURE(compare(B, inc, t, all));
  }
}

TEST_CASE("scans: replicated copies are each scanned alike; other element types", "[scan]") {
  dmap::domain<1> D = domain_of(map_kind::replicated, rect<1>{range(0, 37)});
  dmap::array<i64, 1> A(D);
  fill(A);
  std::vector<i64> inc(37);
  for (index_t k = 0; k < 37; ++k) inc[static_cast<std::size_t>(k)] = value_of(k);
  std::inclusive_scan(inc.begin(), inc.end(), inc.begin());
  const i64 t = dmap::inclusive_scan(A, A);
  bool ok = t == inc.back();
  for (index_t k = 0; k < 37; ++k) ok = ok && A.local(idx<1>{k}) == inc[static_cast<std::size_t>(k)];
  DMAP_CHECK_ALL(ok);
  // Into a Block array from the replicated one, and back into the copies.
  dmap::domain<1> K = domain_of(map_kind::block, rect<1>{range(0, 37)});
  dmap::array<i64, 1> B(K);
  fill(A);
  CHECK_NO_FAILURE(check_sums(A, B));
  fill(B);
  CHECK_NO_FAILURE(check_sums(B, A));
  ok = true;
  const auto root = A.gather();
  std::vector<i64> mine(37);
  for (index_t k = 0; k < 37; ++k) mine[static_cast<std::size_t>(k)] = A.local(idx<1>{k});
  const auto everyone = dmap::testing::everyones(mine);
  for (const auto& copy : everyone) ok = ok && copy == everyone[0];
  DMAP_CHECK_ALL(ok);
  // int in, int64 out over another map: the scanned type is init's.
  dmap::domain<1> C = domain_of(map_kind::cyclic, rect<1>{range(0, 101)});
  dmap::array<int, 1> I(C);
  dmap::forall(dmap::zip(C, I), [](const idx<1>& i, int& x) { x = 40000000 + static_cast<int>(i[0]); });
  dmap::array<i64, 1> L(K);
  dmap::domain<1> K2 = domain_of(map_kind::block, rect<1>{range(0, 101)});
  dmap::array<i64, 1> L2(K2);
  const i64 total = dmap::exclusive_scan(I, L2, i64{0});
  std::vector<i64> exc(101);
  i64 sum = 0;
  for (index_t k = 0; k < 101; ++k) exc[static_cast<std::size_t>(k)] = sum, sum += 40000000 + k;
  CHECK_NO_FAILURE(compare(L2, exc, total, sum));
  // Doubles: integer-valued, so the sums are exact whatever the grouping.
  dmap::array<double, 1> X(K2), Y(K2);
  dmap::forall(dmap::zip(K2, X), [](const idx<1>& i, double& x) { x = static_cast<double>(value_of(i[0])); });
  std::vector<double> dinc(101);
  for (index_t k = 0; k < 101; ++k) dinc[static_cast<std::size_t>(k)] = static_cast<double>(value_of(k));
  const double dsum = std::accumulate(dinc.begin(), dinc.end(), 0.0);
  std::inclusive_scan(dinc.begin(), dinc.end(), dinc.begin());
  CHECK_NO_FAILURE(compare(Y, dinc, dmap::inclusive_scan(X, Y), dsum));
}

TEST_CASE("scans make the same number of collective calls for every size", "[scan]") {
  const auto collectives_of = [](map_kind k, index_t n, bool other_out) {
    dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
    dmap::domain<1> C = domain_of(map_kind::cyclic, rect<1>{range(0, n)});
    dmap::array<i64, 1> A(D), B(D), E(C);
    fill(A);
    (void)dmap::inclusive_scan(A, other_out ? E : B);  // once: plans are built
    const auto before = dmap::counters();
    (void)dmap::inclusive_scan(A, other_out ? E : B);
    return dmap::counters() - before;
  };
  // Block: each locale one run; a scan is a choice, one allgather and one agreement, and
  // moves no element.
  for (const index_t n : {index_t{1}, index_t{37}, index_t{10000}}) {
    const auto spent = collectives_of(map_kind::block, n, false);
    DMAP_CHECK_ALL(spent.collectives == (dmap::num_locales() == 1 ? 0u : 3u));
    DMAP_CHECK_ALL(spent.messages_sent == 0 && spent.bytes_sent == 0);
  }
  for (const map_kind k : all_maps) {
    for (const bool other : {false, true}) {
      INFO("map " << name_of(k) << (other ? " into cyclic" : " into its own map"));
      const auto small = collectives_of(k, 37, other);
      const auto large = collectives_of(k, 101, other);
      DMAP_CHECK_ALL(small.collectives == large.collectives);
      DMAP_CHECK_ALL(small.collectives <= 40);
    }
  }
}

}  // namespace test_scan

namespace test_scan {

TEST_CASE("scans of several chunks per locale combine the chunks in order", "[scan]") {
  // 2 * 4096 + 37 elements per locale: with two threads or more, each locale's run is cut into
  // several chunks (run with DMAP_NUM_THREADS=2 to be sure), whose offsets must follow each other.
  const index_t n = (2 * 4096 + 37) * dmap::num_locales();
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, n)});
  dmap::array<mat, 1> A(D), B(D);
  dmap::forall(dmap::zip(D, A), [](const idx<1>& i, mat& x) { x = mat_of(value_of(i[0])); });
  const auto data = A.gather();
  std::vector<mat> inc(data.size());
  std::inclusive_scan(data.begin(), data.end(), inc.begin(), mat_product{});
  const mat all = std::accumulate(data.begin(), data.end(), mat{}, mat_product{});
  CHECK_NO_FAILURE(compare(B, inc, dmap::inclusive_scan(A, B, mat_product{}), all));
  dmap::array<i64, 1> X(D), Y(D);
  fill(X);
  CHECK_NO_FAILURE(check_sums(X, Y));
  // In place, over several chunks: each chunk reads its elements before writing them.
  const auto xs = X.gather();
  std::vector<i64> xinc(xs.size());
  std::inclusive_scan(xs.begin(), xs.end(), xinc.begin());
  CHECK_NO_FAILURE(compare(X, xinc, dmap::inclusive_scan(X, X), std::accumulate(xs.begin(), xs.end(), i64{0})));
}

}  // namespace test_scan

namespace test_scan {

TEST_CASE("scans of pieces that cut rows scan the stretches where they are", "[scan]") {
  // Columns cut across the locales: every locale holds a stretch of each row. The scan combines
  // the stretches in row-major order without moving an element (one all-gather of the stretches'
  // totals), over several chunks per locale with two threads.
  const int p = dmap::num_locales();
  const rect<2> r{range(0, 97), range(-3, 173 * p - 3)};
  dmap::domain<2> D(dmap::block<2>{dmap::target_grid<2>{{1, p}}}, r);
  dmap::array<mat, 2> A(D), B(D);
  const auto& whole = D.indices();
  dmap::forall(dmap::zip(D, A), [&](const idx<2>& i, mat& x) { x = mat_of(value_of(whole.order_of(i))); });
  const auto data = A.gather();
  std::vector<mat> inc(data.size());
  std::inclusive_scan(data.begin(), data.end(), inc.begin(), mat_product{});
  const mat all = std::accumulate(data.begin(), data.end(), mat{}, mat_product{});
  (void)dmap::inclusive_scan(A, B, mat_product{});
  const auto before = dmap::counters();
  const mat t = dmap::inclusive_scan(A, B, mat_product{});
  const auto spent = dmap::counters() - before;
  CHECK_NO_FAILURE(compare(B, inc, t, all));
  DMAP_CHECK_ALL(spent.messages_sent == 0 && spent.bytes_sent == 0);
  DMAP_CHECK_ALL(spent.collectives == (p == 1 ? 0u : 3u));
  // Exclusive, in place.
  std::vector<mat> exc(data.size());
  const mat seed{2, 1, 1, 1};
  std::exclusive_scan(data.begin(), data.end(), exc.begin(), seed, mat_product{});
  CHECK_NO_FAILURE(compare(A, exc, dmap::exclusive_scan(A, A, seed, mat_product{}), mat_product{}(seed, all)));
  // 3-D, the middle dimension cut: one stretch per index of the first.
  const rect<3> r3{range(0, 5), range(0, 7 * p + 2), range(0, 11)};
  dmap::domain<3> E(dmap::block<3>{dmap::target_grid<3>{{1, p, 1}}}, r3);
  dmap::array<i64, 3> X(E), Y(E);
  fill(X);
  const auto xs = X.gather();
  std::vector<i64> xinc(xs.size());
  std::inclusive_scan(xs.begin(), xs.end(), xinc.begin());
  const auto before3 = dmap::counters();
  const i64 t3 = dmap::inclusive_scan(X, Y);
  const auto spent3 = dmap::counters() - before3;
  CHECK_NO_FAILURE(compare(Y, xinc, t3, std::accumulate(xs.begin(), xs.end(), i64{0})));
  DMAP_CHECK_ALL(spent3.messages_sent == 0);
  CHECK_NO_FAILURE(check_sums(X, Y));
}

}  // namespace test_scan

namespace test_scan {

TEST_CASE("scans send their runs' start positions as progressions", "[scan]") {
  using dmap::detail::progressions_of;
  using dmap::detail::scan_run;
  const auto starts = [](std::vector<index_t> firsts) {
    std::vector<scan_run> runs;
    for (const index_t f : firsts) runs.push_back({f, 1, 0});
    std::vector<std::array<index_t, 3>> out;
    for (const auto& g : progressions_of(runs)) out.push_back({g.first, g.step, g.count});
    return out;
  };
  using v = std::vector<std::array<index_t, 3>>;
  CHECK(starts({}).empty());
  CHECK(starts({5}) == v{{5, 0, 1}});
  CHECK(starts({0, 2048}) == v{{0, 2048, 2}});
  // The rows of a 2-D Block piece: one progression, however many rows.
  std::vector<index_t> rows;
  for (index_t r = 0; r < 1000; ++r) rows.push_back(7 + r * 4096);
  CHECK(starts(rows) == v{{7, 4096, 1000}});
  // A step that changes starts a new progression at the first run that breaks it.
  CHECK(starts({0, 5, 6, 7, 20}) == v{{0, 5, 2}, {6, 1, 2}, {20, 0, 1}});
  CHECK(starts({-9, -3, 3, 9, 10, 11, 12}) == v{{-9, 6, 4}, {10, 1, 3}});
  // Positions near the int64 limits.
  const index_t big = std::numeric_limits<index_t>::max();
  CHECK(starts({big - 30, big - 20, big - 10}) == v{{big - 30, 10, 3}});
}

TEST_CASE("a scan's plan kept on its domain follows the operands and the domain's changes", "[scan]") {
  // Columns cut across the locales, so every locale plans one stretch per row. The plan is kept
  // on the input's domain; another output, new values, another array at the old one's place and
  // a change of the domain's indices must each scan right.
  const int p = dmap::num_locales();
  dmap::domain<2> D(dmap::block<2>{dmap::target_grid<2>{{1, p}}}, rect<2>{range(0, 41), range(0, 13 * p + 2)});
  const auto check = [](dmap::array<i64, 2>& in, dmap::array<i64, 2>& out) {
    const auto xs = in.gather();
    std::vector<i64> inc(xs.size());
    std::inclusive_scan(xs.begin(), xs.end(), inc.begin());
    return compare(out, inc, dmap::inclusive_scan(in, out), std::accumulate(xs.begin(), xs.end(), i64{0}));
  };
  dmap::array<i64, 2> A(D), B(D), C(D);
  fill(A);
  CHECK_NO_FAILURE(check(A, B));
  CHECK_NO_FAILURE(check(A, C));  // another output
  dmap::forall(A, [](i64& x) { x = 3 * x + 1; });
  CHECK_NO_FAILURE(check(A, B));  // new values, the first output again
  {
    dmap::array<i64, 2> E(D);  // perhaps where a freed array was
    CHECK_NO_FAILURE(check(A, E));
  }
  dmap::array<i64, 2> F(D);
  CHECK_NO_FAILURE(check(A, F));
  CHECK_NO_FAILURE(check(A, A));  // in place
  D.set_indices(rect<2>{range(-5, 30), range(2, 11 * p + 9)});  // other pieces, other storage
  fill(A);
  CHECK_NO_FAILURE(check(A, B));
  CHECK_NO_FAILURE(check(A, F));
}

}  // namespace test_scan
