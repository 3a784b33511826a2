// dmap::reduce over arrays, domains and zips against a serial fold over the same indices.
//
// The oracle of a rect is the row-major list of its indices, built by nested loops over each
// dimension's sequence (found by scanning [lo, hi) for (i - alignment) mod |stride| == 0);
// element values are formulas of the index, integer-valued where sums must be exact. Every
// result must be the same on every locale (all_gather, compared bit for bit), and repeated
// reductions of non-integer data must give bit-identical results.
//
// Random cases come from a std::mt19937_64 with a fixed seed, identical on every locale:
// 1-3 dimensions, extents 0..40, strides 1, 2, 3, -1, -2, default or random target grids,
// row-major or column-major storage; a few large domains give several chunks per locale.
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace test_reduce {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

// ------------------------------------------------------------------------------- oracle

using namespace dmap::testing::oracle;  // tests/oracle.hpp

constexpr std::array<index_t, 3> w1{31, 17, 7}, w2{13, 29, 5};

/// Integer values in [-1000, 1000].
template <std::size_t N>
int ia(const idx<N>& i) {
  index_t v = 0;
  for (std::size_t d = 0; d < N; ++d) v += i[d] * w1[d];
  return static_cast<int>(pmod(v, 2001) - 1000);
}
/// Integer-valued doubles in [-999, 999].
template <std::size_t N>
double da(const idx<N>& i) {
  index_t v = 0;
  for (std::size_t d = 0; d < N; ++d) v += i[d] * w2[d];
  return static_cast<double>(pmod(v, 1999) - 999);
}
template <std::size_t N>
double db(const idx<N>& i) {
  index_t v = 3;
  for (std::size_t d = 0; d < N; ++d) v = v * 11 + i[d];
  return static_cast<double>(pmod(v, 101) - 50);
}
/// Non-integer values: sums of them depend on the grouping.
template <std::size_t N>
double xa(const idx<N>& i) {
  double v = 0;
  for (std::size_t d = 0; d < N; ++d) v += 0.37 * static_cast<double>(d + 1) * static_cast<double>(i[d]);
  return std::sin(v) * 1000 + 1.0 / 3;
}
template <std::size_t N>
double xb(const idx<N>& i) {
  double v = 0.1;
  for (std::size_t d = 0; d < N; ++d) v += 1.1 * static_cast<double>(i[d]) / static_cast<double>(d + 2);
  return std::cos(v) / 7;
}
/// A unique key of an index (|i[d]| < 5000).
template <std::size_t N>
index_t key(const idx<N>& i) {
  index_t v = 0;
  for (std::size_t d = 0; d < N; ++d) v = v * 10000 + i[d];
  return v;
}
/// The weighted index sum used by the domain reductions: i[0]*7 + i[1] (+ i[2]*3).
template <std::size_t N>
index_t weighted(const idx<N>& i) {
  constexpr std::array<index_t, 3> w{7, 1, 3};
  index_t v = 0;
  for (std::size_t d = 0; d < N; ++d) v += w[d] * i[d];
  return v;
}

/// A user reduction: minimum, maximum, sum and count at once.
struct stats {
  double min, max, sum;
  long long count;
};
struct combine_stats {
  stats operator()(const stats& a, const stats& b) const {
    return {std::min(a.min, b.min), std::max(a.max, b.max), a.sum + b.sum, a.count + b.count};
  }
};
/// A user reduction: minloc with ties broken by the smaller key.
struct located {
  double value;
  index_t where;
};
struct min_located {
  located operator()(const located& a, const located& b) const {
    if (b.value < a.value || (b.value == a.value && b.where < a.where)) return b;
    return a;
  }
};

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
/// Collective: true when every locale holds the same bits.
template <class T>
bool same_on_all_locales(const T& v) {
  const auto all = dmap::all_gather(v);
  for (const auto& x : all)
    if (!same_bits(x, all[0])) return false;
  return true;
}

constexpr double inf = std::numeric_limits<double>::infinity();

// ------------------------------------------------------------------------------- cases

template <std::size_t N>
void exact_case(const rect<N>& r, const dmap::block<N>& dist, const dmap::block<N>& other, const std::string& label) {
  INFO(label << ": " << N << "-D " << r << " (" << r.size() << " indices) over " << describe(dist)
             << ", second operand over " << describe(other));
  const auto oracle = points_of(r);
  dmap::domain<N> D{dist, r}, D2{other, r};
  dmap::array<int, N> I{D};
  dmap::array<double, N> A{D}, B{D2};
  dmap::forall(dmap::zip(I, A, D), [](int& x, double& a, idx<N> i) {
    x = ia(i);
    a = da(i);
  });
  dmap::forall(dmap::zip(B, D2), [](double& b, idx<N> i) { b = db(i); });

  // The serial oracle.
  long long sum_i = 5;
  double sum_d = 0.5, dot = 0;
  int min_i = 3;
  double max_d = -3;
  int min_all = std::numeric_limits<int>::max();
  stats st{inf, -inf, 0, 0};
  index_t dom = 3;
  idx<N> dsum{};
  long long mixed = 0;
  located loc{inf, std::numeric_limits<index_t>::max()};
  for (const auto& i : oracle) {
    sum_i += ia(i);
    sum_d += da(i);
    min_i = std::min(min_i, ia(i));
    min_all = std::min(min_all, ia(i));
    max_d = std::max(max_d, da(i));
    st = {std::min(st.min, da(i)), std::max(st.max, da(i)), st.sum + da(i), st.count + 1};
    dom += weighted(i);
    for (std::size_t d = 0; d < N; ++d) dsum[d] += i[d];
    dot += da(i) * db(i);
    mixed += static_cast<long long>(ia(i)) * i[0];
    loc = min_located{}(loc, located{da(i), key(i)});
  }

  const int r_sum_i = dmap::reduce(I, 5, std::plus<>{});
  const double r_sum_d = dmap::reduce(A, 0.5, std::plus<>{});
  const int r_min_i = dmap::reduce(I, 3, dmap::minimum{});
  const int r_min_all = dmap::reduce(std::as_const(I), std::numeric_limits<int>::max(), dmap::minimum{});
  const double r_max_d = dmap::reduce(A, -3.0, dmap::maximum{});
  const stats r_st = dmap::reduce(A, stats{inf, -inf, 0, 0}, combine_stats{}, [](double a) { return stats{a, a, a, 1}; });
  const index_t r_dom = dmap::reduce(D, index_t{3}, std::plus<>{}, [](idx<N> i) { return weighted(i); });
  const idx<N> r_dsum = dmap::reduce(D, idx<N>{}, std::plus<>{});
  const double r_dot = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{}, [](double a, double b) { return a * b; });
  const long long r_mixed =
      dmap::reduce(dmap::zip(I, D), 0LL, std::plus<>{}, [](int a, idx<N> i) { return static_cast<long long>(a) * i[0]; });
  const long long r_mixed_domain_first =
      dmap::reduce(dmap::zip(D, I), 0LL, std::plus<>{}, [](idx<N> i, int a) { return static_cast<long long>(a) * i[0]; });
  const located r_loc = dmap::reduce(dmap::zip(A, D), located{inf, std::numeric_limits<index_t>::max()}, min_located{},
                                     [](double a, idx<N> i) { return located{a, key(i)}; });

  CAPTURE(sum_i, r_sum_i, sum_d, r_sum_d, min_i, r_min_i, min_all, r_min_all, max_d, r_max_d);
  CAPTURE(st.min, st.max, st.sum, st.count, r_st.min, r_st.max, r_st.sum, r_st.count);
  CAPTURE(dom, r_dom, dot, r_dot, mixed, r_mixed, loc.value, loc.where, r_loc.value, r_loc.where);
  DMAP_CHECK_ALL(r_sum_i == sum_i);
  DMAP_CHECK_ALL(r_sum_d == sum_d);
  DMAP_CHECK_ALL(r_min_i == min_i);
  DMAP_CHECK_ALL(r_min_all == min_all);
  DMAP_CHECK_ALL(r_max_d == max_d);
  DMAP_CHECK_ALL(same_bits(r_st, st));
  DMAP_CHECK_ALL(r_dom == dom);
  DMAP_CHECK_ALL(r_dsum == dsum);
  DMAP_CHECK_ALL(r_dot == dot);
  DMAP_CHECK_ALL(r_mixed == mixed && r_mixed_domain_first == mixed);
  DMAP_CHECK_ALL(same_bits(r_loc, loc));
  // Identical on every locale.
  DMAP_CHECK_ALL(same_on_all_locales(r_sum_i) && same_on_all_locales(r_sum_d) && same_on_all_locales(r_min_i) &&
                 same_on_all_locales(r_max_d) && same_on_all_locales(r_st) && same_on_all_locales(r_dom) &&
                 same_on_all_locales(r_dsum) && same_on_all_locales(r_dot) && same_on_all_locales(r_mixed) &&
                 same_on_all_locales(r_loc));
}

template <std::size_t N>
void random_exact_case(gen& g, int c) {
  const rect<N> r = random_rect<N>(g);
  const dmap::block<N> dist = random_block<N>(g);
  const dmap::block<N> other = g.chance(1, 2) ? dist
                                              : dmap::block<N>{dist.targets(), dist.order() == dmap::storage_order::row_major
                                                                                   ? dmap::storage_order::column_major
                                                                                   : dmap::storage_order::row_major};
  exact_case<N>(r, dist, other, "case " + std::to_string(c));
}

template <std::size_t N>
void empty_case(const rect<N>& r, const dmap::block<N>& dist) {
  INFO("empty " << N << "-D " << r << " over " << describe(dist));
  dmap::domain<N> D{dist, r};
  dmap::array<int, N> I{D, 9};
  dmap::array<double, N> A{D, 9.0}, B{D, 9.0};
  const int s = dmap::reduce(I, 42, std::plus<>{});
  const int m = dmap::reduce(I, -42, dmap::minimum{});
  const double x = dmap::reduce(A, -0.0, dmap::maximum{});
  const double dot = dmap::reduce(dmap::zip(A, B), 1.5, std::plus<>{}, [](double a, double b) { return a * b; });
  const stats st = dmap::reduce(A, stats{1, 2, 3, 4}, combine_stats{}, [](double a) { return stats{a, a, a, 1}; });
  const index_t dom = dmap::reduce(D, index_t{-17}, std::plus<>{}, [](idx<N> i) { return weighted(i); });
  CAPTURE(s, m, x, dot, dom);
  DMAP_CHECK_ALL(s == 42 && m == -42 && dot == 1.5 && dom == -17);
  DMAP_CHECK_ALL(same_bits(x, -0.0));
  DMAP_CHECK_ALL(same_bits(st, stats{1, 2, 3, 4}));
}

template <std::size_t N>
void determinism_case(const rect<N>& r, const dmap::block<N>& dist, const std::string& label) {
  INFO(label << ": " << N << "-D " << r << " (" << r.size() << " indices) over " << describe(dist) << ", "
             << dmap::num_threads() << " thread(s) per locale");
  const auto oracle = points_of(r);
  dmap::domain<N> D{dist, r};
  dmap::array<double, N> A{D}, B{D};
  dmap::forall(dmap::zip(A, B, D), [](double& a, double& b, idx<N> i) {
    a = xa(i);
    b = xb(i);
  });
  double sum = 0, magnitude = 0, dot = 0, dot_magnitude = 0;
  for (const auto& i : oracle) {
    sum += xa(i);
    magnitude += std::abs(xa(i));
    dot += xa(i) * xb(i);
    dot_magnitude += std::abs(xa(i) * xb(i));
  }
  const auto product = [](double a, double b) { return a * b; };
  const double s1 = dmap::reduce(A, 0.0, std::plus<>{});
  const double d1 = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{}, product);
  bool repeatable = true;
  for (int rep = 0; rep < 3; ++rep) {
    const double s = dmap::reduce(A, 0.0, std::plus<>{});
    const double d = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{}, product);
    repeatable = repeatable && same_bits(s, s1) && same_bits(d, d1);
  }
  CAPTURE(s1, sum, d1, dot);
  DMAP_CHECK_ALL(repeatable);
  DMAP_CHECK_ALL(same_on_all_locales(s1) && same_on_all_locales(d1));
  DMAP_CHECK_ALL(std::abs(s1 - sum) <= 1e-12 * magnitude + 1e-12);
  DMAP_CHECK_ALL(std::abs(d1 - dot) <= 1e-12 * dot_magnitude + 1e-12);
}

template <std::size_t N>
void random_determinism_case(gen& g, int c) {
  determinism_case<N>(random_rect<N>(g), random_block<N>(g), "case " + std::to_string(c));
}

}  // namespace

TEST_CASE("reduce: sums, minima, maxima, user operations and zips match a serial fold", "[reduce]") {
  gen g(0x7ed0ce'0001ULL);
  random_dimension_cases(g, 80, [&](auto n, int c) { random_exact_case<n>(g, c); });
}

TEST_CASE("reduce on domains large enough for several chunks per locale", "[reduce]") {
  const int p = dmap::num_locales();
  const auto col = dmap::storage_order::column_major;
  exact_case<1>(rect<1>{range::counted(-4, 70001, -3)}, dmap::block<1>{}, dmap::block<1>{}, "large 1-D");
  exact_case<2>(rect<2>{range{0, 300}, range{-7, 223, 2}}, dmap::block<2>{dmap::target_grid<2>{{1, p}}, col},
                dmap::block<2>{dmap::target_grid<2>{{1, p}}}, "large 2-D");
  exact_case<3>(rect<3>{range{0, 40}, range{0, 40, -1}, range{1, 81, 2}}, dmap::block<3>{},
                dmap::block<3>{dmap::target_grid<3>{}, col}, "large 3-D");
}

TEST_CASE("reduce over empty domains returns init on every locale", "[reduce]") {
  const int p = dmap::num_locales();
  empty_case<1>(rect<1>{range{0, 0}}, dmap::block<1>{});
  empty_case<1>(rect<1>{range{5, 2, -2}}, dmap::block<1>{});
  empty_case<2>(rect<2>{range{0, 40}, range{3, 3}}, dmap::block<2>{dmap::target_grid<2>{{p, 1}}});
  empty_case<2>(rect<2>{range{0, 0}, range{0, 40}}, dmap::block<2>{dmap::target_grid<2>{{1, p}}, dmap::storage_order::column_major});
  empty_case<3>(rect<3>{range{0, 4}, range{0, 1, 2, 1}, range{0, 9}}, dmap::block<3>{});
}

TEST_CASE("reduce of non-integer data is bit-identical across runs and locales", "[reduce]") {
  const int p = dmap::num_locales();
  gen g(0x7ed0ce'0002ULL);
  random_dimension_cases(g, 40, [&](auto n, int c) { random_determinism_case<n>(g, c); });
  determinism_case<1>(rect<1>{range{-30000, 30001}}, dmap::block<1>{}, "large 1-D");
  determinism_case<2>(rect<2>{range{0, 250, -1}, range{0, 200}},
                      dmap::block<2>{dmap::target_grid<2>{{p, 1}}, dmap::storage_order::column_major}, "large 2-D");
}

TEST_CASE("reduce: a transform that writes its operands updates them once per index, also a staged follower",
          "[reduce]") {
  const int p = dmap::num_locales();
  const rect<2> space{range{-3, 34}, range{5, 28}};  // 37 x 23: uneven over 2-4 locales
  const auto x0 = [](const idx<2>& i) { return static_cast<double>((i[0] * 7 + i[1] * 3) % 11 - 5); };
  const auto y0 = [](const idx<2>& i) { return static_cast<double>((i[0] * 5 - i[1]) % 13); };
  // The serial fold of what both cases compute: x' = x + 2 y, summed as x' * y.
  double want = 0;
  for (index_t i = space.dim(0).lo(); i < space.dim(0).hi(); ++i)
    for (index_t j = space.dim(1).lo(); j < space.dim(1).hi(); ++j) want += (x0({i, j}) + 2 * y0({i, j})) * y0({i, j});
  const dmap::domain rows{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, space};
  const dmap::domain columns{dmap::block<2>{dmap::target_grid<2>{{1, p}}, dmap::storage_order::column_major}, space};
  const auto update = [](double& x, double y) {
    x += 2 * y;
    return x * y;
  };
  const auto wrong_elements = [&](const dmap::array<double, 2>& x) {
    return dmap::reduce(dmap::zip(x, x.domain()), index_t{0}, std::plus<>{},
                        [&](double v, const idx<2>& i) { return index_t{v != x0(i) + 2 * y0(i)}; });
  };
  SECTION("aligned: the written leader") {
    dmap::array<double, 2> x{rows}, y{rows};
    dmap::forall(dmap::zip(x, y, rows), [&](double& a, double& b, const idx<2>& i) { a = x0(i), b = y0(i); });
    CHECK(dmap::reduce(dmap::zip(x, y), 0.0, std::plus<>{}, update) == want);
    CHECK(wrong_elements(x) == 0);
  }
  SECTION("misaligned: the written follower is staged and copied back") {
    dmap::array<double, 2> x{columns}, y{rows};
    dmap::forall(dmap::zip(x, columns), [&](double& a, const idx<2>& i) { a = x0(i); });
    dmap::forall(dmap::zip(y, rows), [&](double& b, const idx<2>& i) { b = y0(i); });
    CHECK(dmap::reduce(dmap::zip(y, x), 0.0, std::plus<>{}, [&](double b, double& a) { return update(a, b); }) == want);
    CHECK(wrong_elements(x) == 0);
  }
}

}  // namespace test_reduce
