// Hostile input to the scans: an output of another shape, moved-from arrays, indices at the
// int64 limits, and a user operation or transform that throws on one locale only, at every
// one of its calls (so at each stage: the first pass over the locale's run, the combination
// of the locales' totals, the second pass), including a std::bad_alloc (a locale's allocation
// failing inside the user's code). Every locale must throw, none may hang, and the library
// must work afterwards.
#include "../maps_1d.hpp"
#include "support.hpp"

#include <atomic>
#include <cstdint>
#include <new>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace test_bad_scan {  // one per file: the tests also build as unity batches (docs/testing.md)
using dmap::bad_input::user_failure;
using dmap::bad_input::fails_from;

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using i64 = std::int64_t;

namespace {

using dmap::testing::maps::domain_of;
using dmap::testing::maps::map_kind;
using dmap::testing::maps::name_of;

std::atomic<long> calls{0};

/// Collective: A's elements set to their positions.
void fill(dmap::array<i64, 1>& a) {
  const auto& whole = a.domain().indices();
  dmap::forall(dmap::zip(a.domain(), a), [&](const idx<1>& i, i64& x) { x = whole.order_of(i); });
}

}  // namespace

TEST_CASE("bad input: scans of another shape or of moved-from arrays fail everywhere", "[bad_input][scan]") {
  const int p = dmap::num_locales();
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 2 * p + 1)});
  dmap::domain<1> E(dmap::cyclic<1>{}, rect<1>{range(0, 2 * p + 2)});
  dmap::array<i64, 1> A(D), B(E), C(D);
  fill(A);
  BAD_INPUT("inclusive_scan: out has another size", dmap::shape_error, dmap::inclusive_scan(A, B));
  BAD_INPUT("exclusive_scan: out a view of another size", dmap::shape_error,
            dmap::exclusive_scan(A, B[rect<1>{range(0, 2 * p)}], i64{0}));
  dmap::domain<2> F(dmap::block<2>{}, rect<2>{range(0, 1), range(0, 2 * p + 1)});
  dmap::array<i64, 2> G(F);
  dmap::array<i64, 2> H(dmap::domain<2>(dmap::block<2>{}, rect<2>{range(0, 2 * p + 1), range(0, 1)}));
  BAD_INPUT("inclusive_scan: 2-D out transposed (same size, other shape)", dmap::shape_error,
            dmap::inclusive_scan(G, H));
  dmap::array<i64, 1> moved(D);
  dmap::array<i64, 1> taker(std::move(moved));
  BAD_INPUT("inclusive_scan: in is a moved-from array", dmap::argument_error, dmap::inclusive_scan(moved, C));
  BAD_INPUT("transform_exclusive_scan: out is a moved-from array", dmap::argument_error,
            dmap::transform_exclusive_scan(A, moved, i64{0}, std::plus<>{}, [](i64 x) { return x; }));
}

TEST_CASE("bad input: scans over indices at the int64 limits are exact", "[bad_input][scan]") {
  using dmap::bad_input::int64_max;
  using dmap::bad_input::int64_min;
  for (const map_kind k : {map_kind::block, map_kind::cyclic, map_kind::hashed}) {
    const std::string name = std::string("scan: indices at the int64 limits (") + name_of(k) + ")";
    INFO(name);
    CHECK(dmap::bad_input::census().insert(name).second);
    dmap::domain<1> D = domain_of(k, rect<1>{range(int64_max - 9, int64_max)});  // 9 indices
    dmap::domain<1> E = domain_of(map_kind::block, rect<1>{range(int64_min, int64_min + 27, 3)});
    dmap::array<i64, 1> A(D), B(E);
    fill(A);
    const i64 total = dmap::exclusive_scan(A, B, i64{100});
    bool ok = total == 100 + 36;
    for (index_t k2 = 0; k2 < 9; ++k2) ok = ok && B[idx<1>{int64_min + 3 * k2}] == 100 + k2 * (k2 - 1) / 2;
    DMAP_CHECK_ALL(ok);
    // Backwards, through views whose strides reach the limits.
    const i64 back = dmap::inclusive_scan(A[rect<1>{range(int64_max - 9, int64_max, -1)}], B);
    ok = back == 36;
    for (index_t k2 = 0; k2 < 9; ++k2) ok = ok && B[idx<1>{int64_min + 3 * k2}] == (8 - k2 + 8) * (k2 + 1) / 2;
    DMAP_CHECK_ALL(ok);
  }
}

TEST_CASE("bad input: a scan's op or transform throwing at each call on one locale fails everywhere",
          "[bad_input][scan]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(-3, 8)};  // 11 indices: uneven on 2, 3 and 4 locales
  for (const map_kind k : {map_kind::block, map_kind::cyclic, map_kind::replicated, map_kind::hashed}) {
    for (const int origin : p == 1 ? std::vector<int>{0} : std::vector<int>{0, p - 1}) {
      for (const bool transform : {false, true}) {
        const std::string sweep = std::string("scan: ") + (transform ? "transform" : "op") + " throws at each call on locale " +
                                  (origin == 0 ? "0" : "P-1") + " (" + name_of(k) + ")";
        INFO(sweep);
        CHECK(dmap::bad_input::census().insert(sweep).second);
        dmap::domain<1> D = domain_of(k, r);
        dmap::domain<1> O = domain_of(map_kind::block, r);
        dmap::array<i64, 1> A(D), B(O);
        fill(A);
        const auto expected = [] {
          std::vector<i64> v(11);
          std::iota(v.begin(), v.end(), i64{0});
          std::inclusive_scan(v.begin(), v.end(), v.begin());
          return v;
        }();
        // A clean run counts this locale's calls: both passes and the combination of totals.
        calls = 0;
        long fail_at = -1;
        const auto op = [&](i64 a, i64 b) {
          if (!transform && dmap::here() == origin && ++calls == fail_at) throw user_failure("op failed");
          return a + b;
        };
        const auto tr = [&](i64 x) {
          if (transform && dmap::here() == origin && ++calls == fail_at) throw std::bad_alloc();
          return x;
        };
        (void)dmap::transform_inclusive_scan(A, B, op, tr);
        const long here_calls = calls.load();
        const long total_calls = dmap::all_reduce_max(origin == dmap::here() ? here_calls : 0L);
        // Every call of a locale whose part is empty is none; the origin has some under these maps.
        for (fail_at = 1; fail_at <= total_calls; ++fail_at) {
          INFO("throws at call " << fail_at << " of " << total_calls);
          calls = 0;
          if (transform)
            CHECK_NO_FAILURE(fails_from<std::bad_alloc>(origin, [&] { (void)dmap::transform_inclusive_scan(A, B, op, tr); }));
          else
            CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] { (void)dmap::transform_inclusive_scan(A, B, op, tr); }));
        }
        // The input is intact and a clean scan still gives the right answer.
        fail_at = -1;
        const i64 t = dmap::inclusive_scan(A, B);
        bool ok = t == 55;
        for (index_t k2 = 0; k2 < 11; ++k2) ok = ok && B[idx<1>{k2 - 3}] == expected[static_cast<std::size_t>(k2)];
        DMAP_CHECK_ALL(ok);
        CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
      }
    }
  }
}


TEST_CASE("bad input: a scan of row stretches whose op throws at each call on one locale fails everywhere",
          "[bad_input][scan]") {
  // Columns cut across the locales: every locale scans one stretch per row where it is (one
  // record per stretch in the all-gather), so the failure must travel with the records.
  const int p = dmap::num_locales();
  const rect<2> r{range(0, 3), range(0, 2 * p + 1)};
  dmap::domain<2> D(dmap::block<2>{dmap::target_grid<2>{{1, p}}}, r);
  dmap::array<i64, 2> A(D), B(D);
  const auto& whole = D.indices();
  dmap::forall(dmap::zip(D, A), [&](const idx<2>& i, i64& x) { x = whole.order_of(i); });
  const i64 n = r.size();
  for (const int origin : p == 1 ? std::vector<int>{0} : std::vector<int>{0, p - 1}) {
    const std::string sweep = std::string("scan: op throws at each call on locale ") + (origin == 0 ? "0" : "P-1") +
                              " (2-D Block, columns cut)";
    INFO(sweep);
    CHECK(dmap::bad_input::census().insert(sweep).second);
    calls = 0;
    long fail_at = -1;
    const auto op = [&](i64 a, i64 b) {
      if (dmap::here() == origin && ++calls == fail_at) throw user_failure("op failed");
      return a + b;
    };
    (void)dmap::inclusive_scan(A, B, op);
    const long total_calls = dmap::all_reduce_max(origin == dmap::here() ? calls.load() : 0L);
    for (fail_at = 1; fail_at <= total_calls; ++fail_at) {
      INFO("throws at call " << fail_at << " of " << total_calls);
      calls = 0;
      CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] { (void)dmap::inclusive_scan(A, B, op); }));
    }
    fail_at = -1;
    const i64 t = dmap::inclusive_scan(A, B);
    std::atomic<bool> ok{t == n * (n - 1) / 2};
    dmap::forall(dmap::zip(D, B), [&](const idx<2>& i, const i64& b) {
      if (b != whole.order_of(i) * (whole.order_of(i) + 1) / 2) ok = false;
    });
    DMAP_CHECK_ALL(ok.load());
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  }
}

}  // namespace test_bad_scan
