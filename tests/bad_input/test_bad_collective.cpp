// Failures inside collective operations: a user operation that throws at any stage of a
// reduction or a loop, a user mapper or list that throws while a domain is built, and one
// locale running out of memory while an array is made or its domain resized. The failure
// must reach every locale (the original exception where it was raised, a remote_failure of
// the same family elsewhere), nothing may hang, and the library must work afterwards.
#include "../maps_1d.hpp"
#include "support.hpp"

#include <atomic>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace test_bad_collective {  // one per file: the tests also build as unity batches (docs/testing.md)
using dmap::bad_input::user_failure;
using dmap::bad_input::fails_from;

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

namespace {

using dmap::testing::maps::all_maps;
using dmap::testing::maps::domain_of;
using dmap::testing::maps::map_kind;
using dmap::testing::maps::name_of;

std::atomic<long> op_calls{0};

}  // namespace

TEST_CASE("bad input: a reduction op throwing at each of its calls on one locale fails everywhere",
          "[bad_input][collective]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(-5, 18)};  // 23 indices: uneven on 2, 3 and 4 locales
  for (const map_kind k : all_maps) {
    for (const int origin : {0, p - 1}) {
      if (origin == p - 1 && p == 1) continue;
      const std::string sweep = std::string("reduce: op throws at each call on locale ") +
                                (origin == 0 ? "0" : "P-1") + " (" + name_of(k) + ")";
      INFO(sweep);
      CHECK(dmap::bad_input::census().insert(sweep).second);
      dmap::domain<1> D = domain_of(k, r);
      dmap::array<std::int64_t, 1> A(D);
      dmap::forall(D, [&](const idx<1>& i) { A.local(i) = i[0]; });
      // A clean run counts this locale's calls: the row stage, the combination of the chunk
      // results, then the combination of the locales' results.
      op_calls = 0;
      const auto counting = [](std::int64_t a, std::int64_t b) {
        ++op_calls;
        return a + b;
      };
      const std::int64_t clean = dmap::reduce(A, std::int64_t{0}, counting);
      const std::int64_t expected = (-5 + 17) * 23 / 2;
      DMAP_CHECK_ALL(clean == expected);
      const long calls_here = op_calls.load();
      const long calls = dmap::all_reduce_max(origin == dmap::here() ? calls_here : 0L);
      DMAP_REQUIRE_ALL(calls > 0);
      for (long fail_at = 1; fail_at <= calls; ++fail_at) {
        INFO("the op throws at its call " << fail_at << " of " << calls << " on locale " << origin);
        op_calls = 0;
        const auto throwing = [&](std::int64_t a, std::int64_t b) {
          if (dmap::here() == origin && ++op_calls == fail_at) throw user_failure("op failed at call " + std::to_string(fail_at));
          return a + b;
        };
        CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] { (void)dmap::reduce(A, std::int64_t{0}, throwing); }));
      }
      // The array and the library are intact.
      DMAP_CHECK_ALL(dmap::reduce(A, std::int64_t{0}) == expected);
      CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
    }
  }
}

TEST_CASE("bad input: a throwing transform, loop body or zipped body fails everywhere", "[bad_input][collective]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(0, 4 * p + 3)};
  const index_t bad = r.high()[0] - 2;  // on the last locale under block, locale (bad mod p) under cyclic
  for (const map_kind k : all_maps) {
    dmap::domain<1> D = domain_of(k, r);
    dmap::array<double, 1> A(D, 1.0);
    // Under a replicated map every locale runs the whole index set and raises the failure:
    // the lowest locale's is the one every locale sees.
    const int origin = k == map_kind::replicated ? 0 : D.locale_of(idx<1>{bad});
    const std::string map = name_of(k);
    const auto fails = [&](auto&& f) { return fails_from<user_failure>(origin, f); };
    const auto check = [&](const std::string& name, auto&& f) {
      INFO(name);
      CHECK(dmap::bad_input::census().insert(name).second);
      CHECK_NO_FAILURE(fails(f));
      CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
    };
    check("reduce: transform throws at one index (" + map + ")", [&] {
      (void)dmap::reduce(dmap::zip(D, A), 0.0, std::plus<>{}, [&](const idx<1>& i, double a) {
        if (i[0] == bad) throw user_failure("transform failed");
        return a;
      });
    });
    check("forall: body throws at one index (" + map + ")", [&] {
      dmap::forall(D, [&](const idx<1>& i) {
        if (i[0] == bad) throw user_failure("body failed");
      });
    });
    check("forall: body over the array throws at one element (" + map + ")", [&] {
      dmap::forall(dmap::zip(D, A), [&](const idx<1>& i, double& a) {
        a += 1.0;
        if (i[0] == bad) throw user_failure("body failed");
      });
    });
    // A misaligned follower runs on staging copies: the failure must reach every locale
    // before anything is copied back.
    if (k != map_kind::replicated) {
      dmap::domain<1> C(dmap::cyclic<1>{}, rect<1>{range(100, 100 + r.size())});
      dmap::array<double, 1> B(C, 2.0);
      check("forall: body of a misaligned zip throws at one index (" + map + ")", [&] {
        dmap::forall(dmap::zip(D, A, dmap::inout(B)), [&](const idx<1>& i, double a, double& b) {
          b = a;
          if (i[0] == bad) throw user_failure("zipped body failed");
        });
      });
      check("reduce: op of a misaligned zip throws on one locale (" + map + ")", [&] {
        (void)dmap::reduce(dmap::zip(A, std::as_const(B)), 0.0,
                           [&](double x, double y) {
                             if (dmap::here() == origin) throw user_failure("op failed");
                             return x + y;
                           },
                           [](double a, double b) { return a * b; });
      });
    }
  }
  // A dmap error raised by user code keeps its family on the other locales.
  dmap::domain<1> D(dmap::block<1>{}, r);
  BAD_INPUT_DO("forall: body throws dmap::argument_error on the last locale", dmap::argument_error, {
    dmap::forall(D, [&](const idx<1>& i) {
      if (i[0] == r.high()[0] - 1) throw dmap::argument_error("user rule broken");
    });
  });
  BAD_INPUT_DO("reduce: op throws dmap::shape_error on locale 0 only", dmap::shape_error, {
    (void)dmap::reduce(D, index_t{0}, [](index_t a, index_t b) {
      if (dmap::here() == 0) throw dmap::shape_error("user shape rule");
      return a + b;
    }, [](const idx<1>& i) { return i[0]; });
  });
}

TEST_CASE("bad input: a user mapper or list that throws while a domain is built fails everywhere",
          "[bad_input][collective]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(0, 10 * p + 1)};
  // The mapper is evaluated by each index's directory home: it throws where index 7 is homed.
  const auto throwing = [](index_t i) -> index_t {
    if (i == 7) throw user_failure("mapper failed at 7");
    return 0;
  };
  const dmap::hashed<1, index_t (*)(index_t)> dist{+throwing, "throws at 7"};
  BAD_INPUT_DO("hashed: mapper throws while the domain is built", user_failure, {
    try {
      dmap::domain<1> D(dist, r);
    } catch (const dmap::remote_failure<dmap::error>& e) {
      throw user_failure(e.what());  // the same failure, seen elsewhere
    }
  });
  // A resize onto the throwing index: refused everywhere, the domain and its array unchanged.
  dmap::domain<1> D(dist, rect<1>{range(0, 5)});
  dmap::array<index_t, 1> A(D);
  dmap::forall(dmap::zip(D, A), [](const idx<1>& i, index_t& a) { a = 10 * i[0]; });
  BAD_INPUT_DO("hashed: mapper throws while the domain is resized", user_failure, {
    try {
      D.set_indices(r);
    } catch (const dmap::remote_failure<dmap::error>& e) {
      throw user_failure(e.what());
    }
  });
  DMAP_CHECK_ALL(D.indices() == rect<1>{range(0, 5)});
  DMAP_CHECK_ALL(dmap::reduce(A, index_t{0}) == 100);
  // Lists that break the rules.
  BAD_INPUT("unstructured: a locale lists an index outside the domain", dmap::argument_error,
            dmap::domain<1>(dmap::unstructured<1>{std::vector<idx<1>>{idx<1>{r.high()[0] + dmap::here()}}}, r));
  BAD_INPUT("unstructured: the lists leave indices unlisted", dmap::argument_error,
            dmap::domain<1>(dmap::unstructured<1>{std::vector<idx<1>>{idx<1>{dmap::here()}}}, r));
  BAD_INPUT("unstructured: a one-to-one map listed twice", dmap::argument_error, [&] {
    std::vector<idx<1>> all;
    for (index_t i = 0; i < r.size(); ++i) all.push_back(idx<1>{i});
    if (p == 1) all.push_back(idx<1>{0});
    return dmap::domain<1>(dmap::unstructured<1>{all}, r);
  }());
}

namespace {
/// A size no locale can allocate as int64 elements (2^49 bytes: beyond the address space
/// even when the kernel overcommits).
constexpr index_t unallocatable = index_t{1} << 46;

/// Collective: an irregular domain of `r` where locale k < p-1 owns index k and the last
/// locale owns the rest (so only the last locale gets a huge part).
dmap::domain<1> last_takes_the_rest(const rect<1>& r) { return domain_of(map_kind::irregular, r); }
}  // namespace

TEST_CASE("bad input: one locale out of memory making an array or resizing fails everywhere",
          "[bad_input][collective][out_of_memory]") {
  const int p = dmap::num_locales();
  const int origin = p - 1;
  {
    CHECK(dmap::bad_input::census().insert("array: the last locale cannot allocate its part").second);
    dmap::domain<1> D = last_takes_the_rest(rect<1>{range(0, unallocatable)});
    CHECK_NO_FAILURE(fails_from<std::bad_alloc>(origin, [&] { dmap::array<std::int64_t, 1> A(D); }));
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  }
  {
    CHECK(dmap::bad_input::census().insert("set_indices: the last locale cannot allocate the new part").second);
    const rect<1> small{range(0, 2 * p + 1)};
    dmap::domain<1> D = last_takes_the_rest(small);
    dmap::array<std::int64_t, 1> A(D), B(D, 7);
    dmap::forall(dmap::zip(D, A), [](const idx<1>& i, std::int64_t& a) { a = 3 * i[0]; });
    CHECK_NO_FAILURE(fails_from<std::bad_alloc>(origin, [&] { D.set_indices(rect<1>{range(0, unallocatable)}); }));
    // The domain and both arrays are as they were, and the domain can still change.
    DMAP_CHECK_ALL(D.indices() == small);
    DMAP_CHECK_ALL(dmap::reduce(A, std::int64_t{0}) == 3 * small.size() * (small.size() - 1) / 2);
    DMAP_CHECK_ALL(dmap::reduce(B, std::int64_t{0}) == 7 * small.size());
    D.set_indices(rect<1>{range(0, 3 * p + 2)});
    DMAP_CHECK_ALL(dmap::reduce(A, std::int64_t{0}) == 3 * small.size() * (small.size() - 1) / 2);
    DMAP_CHECK_ALL(dmap::reduce(B, std::int64_t{0}) == 7 * (3 * p + 2));  // new indices take B's implicit value
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  }
  {
    CHECK(dmap::bad_input::census().insert("array: every locale cannot allocate its part (block)").second);
    dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, unallocatable * p)});
    CHECK_NO_FAILURE(fails_from<std::bad_alloc>(0, [&] { dmap::array<double, 1> A(D, 1.0); }));
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  }
}

}  // namespace test_bad_collective
