// dmap::minloc, dmap::maxloc and dmap::reduce_each against serial scans: every 2-D and 1-D
// map, many ties (the smallest index in row-major order wins), reversed strided views, NaN,
// int64 extremes, transforms and zips, empty inputs, and the communication of one reduce.
//
// The oracle walks the input's indices in their row-major order (tests/oracle.hpp seq_of,
// which reverses negative strides) and keeps the first strictly better value.
#include "../maps_1d.hpp"
#include "../maps_2d.hpp"
#include "../oracle.hpp"
#include "../support.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <tuple>
#include <vector>

namespace test_locations {

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using namespace dmap::testing::oracle;
namespace maps = dmap::testing::maps;

/// Values with many ties: 9 distinct values over any index set.
template <std::size_t N>
std::int64_t tied(const idx<N>& i) {
  std::int64_t v = 3;
  for (std::size_t d = 0; d < N; ++d) v = v * 7 + i[d];
  return pmod(v, 9) - 4;
}

/// The oracle's (value, index) of the first best element of `r` under `better` (strict).
template <class T, std::size_t N, class F, class Better>
std::pair<T, idx<N>> scan(const rect<N>& r, F&& value, Better&& better) {
  std::array<seq, N> s;
  for (std::size_t d = 0; d < N; ++d) s[d] = seq_of(r.dim(d));
  std::array<std::size_t, N> c{};
  bool any = false;
  std::pair<T, idx<N>> best{};
  bool more = true;
  for (std::size_t d = 0; d < N; ++d) more = more && !s[d].empty();
  while (more) {
    idx<N> i{};
    for (std::size_t d = 0; d < N; ++d) i[d] = s[d][c[d]];
    const T v = value(i);
    if (!any || better(v, best.first)) best = {v, i};
    any = true;
    std::size_t d = N;
    while (d-- > 0) {
      if (++c[d] < s[d].size()) break;
      c[d] = 0;
      if (d == 0) more = false;
    }
  }
  return best;
}

template <class T, std::size_t N>
bool same(const dmap::located<T, N>& got, const std::pair<T, idx<N>>& want) {
  return std::memcmp(&got.value, &want.first, sizeof(T)) == 0 && got.index == want.second;
}

}  // namespace

TEST_CASE("minloc and maxloc over every 2-D map, ties to the smallest index", "[locations]") {
  const std::vector<rect<2>> rects{{range(0, 5), range(0, 7)}, {range(-4, 3), range(9, 10)},
                                   {range(2, 3), range(0, 2)}, {range(0, 13, 3), range(-5, 6, 2)}};
  const auto makers = maps::makers();
  for (std::size_t ri = 0; ri < rects.size(); ++ri) {
    const auto& r = rects[ri];
    for (std::size_t mi = 0; mi < makers.size(); ++mi) {
      if ((mi + ri) % 2 != 0) continue;  // half the pairs: the file must stay fast
      INFO("map " << makers[mi].name << " over " << r);
      dmap::domain<2> D = makers[mi].make(r);
      dmap::array<std::int64_t, 2> A(D);
      dmap::forall(dmap::zip(D, A), [](const idx<2>& i, std::int64_t& a) { a = tied(i); });
      const auto lo = dmap::minloc(A);
      const auto hi = dmap::maxloc(A);
      DMAP_CHECK_ALL(same(lo, scan<std::int64_t, 2>(r, tied<2>, std::less<>{})));
      DMAP_CHECK_ALL(same(hi, scan<std::int64_t, 2>(r, tied<2>, std::greater<>{})));
    }
  }
}

TEST_CASE("minloc and maxloc over every 1-D map, uneven sizes", "[locations]") {
  for (const index_t n : {1, 2, 7, 37}) {
    const rect<1> r{range(-3, -3 + n)};
    for (const auto kind : maps::all_maps) {
      INFO("map " << maps::name_of(kind) << ", n = " << n);
      dmap::domain<1> D = maps::domain_of(kind, r);
      dmap::array<std::int64_t, 1> A(D);
      dmap::forall(dmap::zip(D, A), [](const idx<1>& i, std::int64_t& a) { a = tied(i); });
      DMAP_CHECK_ALL(same(dmap::minloc(A), scan<std::int64_t, 1>(r, tied<1>, std::less<>{})));
      DMAP_CHECK_ALL(same(dmap::maxloc(A), scan<std::int64_t, 1>(r, tied<1>, std::greater<>{})));
    }
  }
}

TEST_CASE("minloc over reversed strided views counts ties in the view's own order", "[locations]") {
  const rect<2> space{range(0, 20), range(0, 17)};
  dmap::domain<2> D(dmap::block_cyclic<2>{{3, 2}}, space);
  dmap::array<std::int64_t, 2> A(D);
  dmap::forall(dmap::zip(D, A), [](const idx<2>& i, std::int64_t& a) { a = tied(i); });
  for (const rect<2>& part : {rect<2>{range(1, 20, 3), range(0, 17, -2)}, rect<2>{range(0, 19, -4), range(3, 15)},
                              rect<2>{range(5, 6), range(16, 17)}}) {
    INFO("view " << part);
    const auto v = std::as_const(A)[part];
    const auto lo = dmap::minloc(v);
    const auto hi = dmap::maxloc(v);
    DMAP_CHECK_ALL(same(lo, scan<std::int64_t, 2>(v.indices(), tied<2>, std::less<>{})));
    DMAP_CHECK_ALL(same(hi, scan<std::int64_t, 2>(v.indices(), tied<2>, std::greater<>{})));
  }
}

TEST_CASE("minloc and maxloc: NaN is never an extreme unless every value is NaN", "[locations]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const index_t n = 41;
  dmap::domain<1> D(dmap::cyclic<1>{}, rect<1>{range(0, n)});
  dmap::array<double, 1> A(D);
  const auto value = [&](const idx<1>& i) { return i[0] % 3 == 0 ? nan : std::sin(0.7 * static_cast<double>(i[0])); };
  dmap::forall(dmap::zip(D, A), [&](const idx<1>& i, double& a) { a = value(i); });
  const auto no_nan_less = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
  const auto no_nan_greater = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a > b); };
  DMAP_CHECK_ALL(same(dmap::minloc(A), scan<double, 1>(D.indices(), value, no_nan_less)));
  DMAP_CHECK_ALL(same(dmap::maxloc(A), scan<double, 1>(D.indices(), value, no_nan_greater)));
  DMAP_CHECK_ALL(!std::isnan(dmap::minloc(A).value));
  // Every value NaN: the first index, whose value is NaN.
  dmap::forall(A, [&](double& a) { a = nan; });
  const auto lo = dmap::minloc(A);
  const auto hi = dmap::maxloc(A);
  DMAP_CHECK_ALL(std::isnan(lo.value) && lo.index == idx<1>{0} && std::isnan(hi.value) && hi.index == idx<1>{0});
}

TEST_CASE("minloc and maxloc at the int64 extremes, with transforms and zips", "[locations]") {
  constexpr std::int64_t lo64 = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t hi64 = std::numeric_limits<std::int64_t>::max();
  const rect<2> r{range(0, 9), range(0, 11)};
  dmap::domain<2> D(dmap::block<2>{}, r);
  dmap::domain<2> C(dmap::cyclic<2>{}, r);
  dmap::array<std::int64_t, 2> A(D), B(C);
  const auto value = [](const idx<2>& i) -> std::int64_t {
    const index_t k = i[0] * 11 + i[1];
    return k % 17 == 5 ? hi64 : k % 13 == 4 ? lo64 : tied(i);
  };
  dmap::forall(dmap::zip(D, A), [&](const idx<2>& i, std::int64_t& a) { a = value(i); });
  dmap::forall(dmap::zip(C, B), [](const idx<2>& i, std::int64_t& b) { b = i[0] - i[1]; });
  DMAP_CHECK_ALL(same(dmap::minloc(A), scan<std::int64_t, 2>(r, value, std::less<>{})));
  DMAP_CHECK_ALL(same(dmap::maxloc(A), scan<std::int64_t, 2>(r, value, std::greater<>{})));
  // A transform into another type, and a zip (the follower is staged).
  const auto halved = [&](const idx<2>& i) { return static_cast<double>(value(i)) / 2; };
  DMAP_CHECK_ALL(same(dmap::maxloc(A, [](std::int64_t a) { return static_cast<double>(a) / 2; }),
                      scan<double, 2>(r, halved, std::greater<>{})));
  const auto mixed = [&](const idx<2>& i) { return tied(i) * 3 + (i[0] - i[1]); };
  dmap::forall(dmap::zip(D, A), [](const idx<2>& i, std::int64_t& a) { a = tied(i); });
  DMAP_CHECK_ALL(same(dmap::minloc(dmap::zip(A, B), [](std::int64_t a, std::int64_t b) { return a * 3 + b; }),
                      scan<std::int64_t, 2>(r, mixed, std::less<>{})));
}

TEST_CASE("minloc and maxloc of an empty input throw argument_error on every locale", "[locations]") {
  dmap::domain<2> D(dmap::block<2>{}, rect<2>{range(0, 4), range(3, 3)});
  dmap::array<double, 2> A(D);
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([&] { (void)dmap::minloc(A); }, "dmap::minloc"));
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([&] { (void)dmap::maxloc(A); }, "is empty"));
}

TEST_CASE("reduce_each: several reductions in one pass, bit-identical to separate reduces", "[locations]") {
  const int p = dmap::num_locales();
  const rect<2> r{range(0, 37), range(-5, 96)};
  for (int kind = 0; kind < 3; ++kind) {
    dmap::domain<2> D = kind == 0   ? dmap::domain<2>{dmap::block<2>{}, r}
                        : kind == 1 ? dmap::domain<2>{dmap::block_cyclic<2>{{4, 3}}, r}
                                    : dmap::domain<2>{dmap::replicated<2>{}, r};
    INFO("map " << D.name());
    dmap::array<double, 2> A(D);
    dmap::forall(dmap::zip(D, A), [](const idx<2>& i, double& a) { a = std::sin(0.3 * i[0] - 0.7 * i[1]) * 10 + 0.1; });
    const double inf = std::numeric_limits<double>::infinity();
    dmap::reset_counters();
    const auto [s, mn, mx, positive] =
        dmap::reduce_each(A, std::tuple{1.0 / 3, inf, -inf, std::int64_t{0}},
                          std::tuple{std::plus<>{}, dmap::minimum{}, dmap::maximum{}, std::plus<>{}},
                          std::tuple{dmap::detail::identity_transform{}, dmap::detail::identity_transform{},
                                     [](double a) { return -a; }, [](double a) { return std::int64_t{a > 0}; }});
    const auto together = dmap::counters();
    dmap::reset_counters();
    const double s1 = dmap::reduce(A, 1.0 / 3);
    const auto alone = dmap::counters();
    const double mn1 = dmap::reduce(A, inf, dmap::minimum{});
    const double mx1 = dmap::reduce(dmap::zip(A), -inf, dmap::maximum{}, [](double a) { return -a; });
    const std::int64_t pos1 =
        dmap::reduce(dmap::zip(A), std::int64_t{0}, std::plus<>{}, [](double a) { return std::int64_t{a > 0}; });
    DMAP_CHECK_ALL(std::memcmp(&s, &s1, sizeof s) == 0 && mn == mn1 && mx == mx1 && positive == pos1);
    // One pass, one combine: the communication of a single reduce (the payload is wider).
    DMAP_CHECK_ALL(together.collectives == alone.collectives && together.messages_sent == alone.messages_sent &&
                   together.messages_received == alone.messages_received);
    // Against the oracle (sums within rounding).
    double os = 1.0 / 3, omn = inf, omx = -inf;
    std::int64_t opos = 0;
    for (index_t i = 0; i < 37; ++i)
      for (index_t j = -5; j < 96; ++j) {
        const double a = std::sin(0.3 * i - 0.7 * j) * 10 + 0.1;
        os += a, omn = std::min(omn, a), omx = std::max(omx, -a), opos += a > 0;
      }
    DMAP_CHECK_ALL(std::abs(s - os) < 1e-9 && mn == omn && mx == omx && positive == opos);
    (void)p;
  }
  // The form without transforms, over an empty array: the inits.
  dmap::domain<1> E(dmap::cyclic<1>{}, rect<1>{range(0, 0)});
  dmap::array<int, 1> Z(E);
  const auto [zs, zm] = dmap::reduce_each(Z, std::tuple{5, -1}, std::tuple{std::plus<>{}, dmap::maximum{}});
  DMAP_CHECK_ALL(zs == 5 && zm == -1);
}

}  // namespace test_locations
