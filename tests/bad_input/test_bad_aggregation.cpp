// Hostile inputs to aggregated accumulate, scatter and gather: indices outside the domain
// (int64 extremes too) on one locale only, moved-from arrays, a map that keeps copies, a
// domain that changes under a handle, a user operation that throws on one locale only, a
// loop body that throws while adding, one locale out of memory while buffering. Every
// locale must throw (nobody waits in finish()), and the handle must work afterwards.
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../maps_1d.hpp"
#include "support.hpp"

namespace test_bad_aggregation {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::int64_max;
using dmap::bad_input::int64_min;
using dmap::bad_input::user_failure;
namespace maps = dmap::testing::maps;

namespace {

/// Collective: "" when every element of A over D equals `expected(i)`, else a description.
std::string holds(const dmap::domain<1>& D, dmap::array<std::int64_t, 1>& A, std::int64_t expected) {
  index_t bad = 0;
  for (const auto& r : D.local_subdomains())
    for (index_t k = 0; k < r.size(); ++k)
      if (A.local(r.index_at(k)) != expected) ++bad;
  bad = dmap::all_reduce_sum(bad);
  return bad == 0 ? "" : std::to_string(bad) + " elements differ from " + std::to_string(expected);
}

/// Runs `f`: "" when it throws (a user's exception where the op or body threw, a
/// remote_failure elsewhere), "threw nothing" otherwise.
template <class F>
std::string throws_something(F&& f) {
  try {
    f();
  } catch (const std::exception&) {
    return "";
  }
  return "threw nothing";
}

}  // namespace

/// The bad input `name` (run on every locale) throws on every locale; the library works after.
#define BAD_INPUT_ANY(name, ...)                              \
  do {                                                        \
    INFO("bad input: " << (name));                            \
    CHECK(dmap::bad_input::census().insert(name).second);     \
    CHECK_NO_FAILURE(throws_something([&] __VA_ARGS__));      \
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works()); \
  } while (0)

TEST_CASE("bad input: aggregated writes to indices outside the domain fail on every locale",
          "[bad_input][aggregation]") {
  const int p = dmap::num_locales(), last = p - 1;
  for (const auto k :
       {maps::map_kind::block, maps::map_kind::block_cyclic, maps::map_kind::hashed, maps::map_kind::unstructured})
    for (const auto how : {dmap::aggregation::table, dmap::aggregation::lists}) {
      const std::string map = std::string(maps::name_of(k)) + (how == dmap::aggregation::table ? ", table" : ", lists");
      const dmap::domain<1> D = maps::domain_of(k, rect<1>{range(-3, 34)});
      dmap::array<std::int64_t, 1> A(D);
      auto acc = dmap::accumulate(A, std::plus<>{}, how);
      for (const index_t bad : {index_t{34}, index_t{-4}, int64_max, int64_min}) {
        // Every locale adds good contributions; only the last one adds the bad index.
        BAD_INPUT_DO("accumulate (" + map + "): index " + std::to_string(bad) + " on the last locale only",
                     dmap::out_of_bounds_error, {
                       for (index_t i = -3; i < 34; ++i) acc.add(i, 1);
                       if (dmap::here() == last) acc.add(bad, 1);
                       acc.finish();
                     });
        // The failed round delivered nothing and left the handle empty and usable.
        CHECK_NO_FAILURE(holds(D, A, 0));
        DMAP_CHECK_ALL(!acc.pending());
      }
      for (index_t i = -3; i < 34; ++i) acc.add(i, 2);
      acc.finish();
      CHECK_NO_FAILURE(holds(D, A, 2 * p));
      BAD_INPUT("gather (" + map + "): int64 extremes on the last locale only", dmap::out_of_bounds_error,
                dmap::gather(A, dmap::here() == last ? std::vector<index_t>{0, int64_min, int64_max}
                                                     : std::vector<index_t>{0, 1}));
      BAD_INPUT("gather (" + map + "): one past the end on locale 0 only", dmap::out_of_bounds_error,
                dmap::gather(A, dmap::here() == 0 ? std::vector<index_t>{34} : std::vector<index_t>{}));
    }
}

TEST_CASE("bad input: aggregation over moved-from arrays, copies and changed domains", "[bad_input][aggregation]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(0, 2 * p + 3)};
  {
    dmap::domain<1> D(dmap::block<1>{}, r);
    dmap::array<std::int64_t, 1> A(D), B(std::move(A));
    BAD_INPUT_DO("accumulate: a moved-from array", dmap::argument_error, {
      auto acc = dmap::accumulate(A);
      acc.add(0, 1);
      acc.finish();
    });
    BAD_INPUT("gather: a moved-from array", dmap::argument_error, dmap::gather(A, std::vector<index_t>{0}));
    BAD_INPUT_DO("accumulate: the array moved away after the handle was made", dmap::argument_error, {
      auto acc = dmap::accumulate(B);
      acc.add(1, 1);
      dmap::array<std::int64_t, 1> C(std::move(B));
      acc.finish();
    });
  }
  {
    const dmap::domain<1> D = maps::domain_of(maps::map_kind::replicated, r);
    dmap::array<std::int64_t, 1> A(D);
    BAD_INPUT_DO("accumulate: a replicated array (copies)", dmap::unsupported_error, {
      auto acc = dmap::accumulate(A);
      acc.add(0, 1);
      acc.finish();
    });
  }
  {
    dmap::domain<1> D(dmap::cyclic<1>{}, r);
    dmap::array<std::int64_t, 1> A(D);
    auto acc = dmap::accumulate(A);
    acc.add(0, 1);
    D.set_indices(rect<1>{range(0, 3 * p + 1)});
    BAD_INPUT("accumulate: the domain changed its index set before finish", dmap::argument_error, acc.finish());
    acc.add(0, 1);  // a new handle would do; this one keeps failing, and says why
    BAD_INPUT("accumulate: the same handle again after the change", dmap::argument_error, acc.finish());
  }
}

TEST_CASE("bad input: an aggregation op or loop body throwing on one locale fails everywhere",
          "[bad_input][aggregation]") {
  const int p = dmap::num_locales(), last = p - 1;
  const rect<1> r{range(0, 3 * p + 2)};
  for (const auto k : {maps::map_kind::block, maps::map_kind::hashed})
    for (const auto how : {dmap::aggregation::table, dmap::aggregation::lists}) {
      const std::string map = std::string(maps::name_of(k)) + (how == dmap::aggregation::table ? ", table" : ", lists");
      const dmap::domain<1> D = maps::domain_of(k, r);
      dmap::array<std::int64_t, 1> A(D);
      // The op throws on the value 666, which only the last locale sends: it fails while the
      // last locale combines its contributions or while an owner applies them.
      const auto picky = [](std::int64_t a, std::int64_t b) -> std::int64_t {
        if (b == 666) throw user_failure("the op refuses 666");
        return a + b;
      };
      auto acc = dmap::accumulate(A, picky, how);
      BAD_INPUT_ANY("accumulate (" + map + "): the op throws on the last locale's contribution", {
        for (index_t i = 0; i < r.size(); ++i) acc.add(i, 1);
        if (dmap::here() == last) acc.add(r.size() / 2, 666);
        acc.finish();
      });
      DMAP_CHECK_ALL(!acc.pending());
      // (An op that throws while the owners apply may leave some contributions applied.)
      dmap::forall(A, [](std::int64_t& a) { a = 0; });
      // A body that throws on one locale while adding: forall fails everywhere, and finish()
      // then delivers what was added before, with nobody left waiting.
      dmap::domain<1> S(dmap::block<1>{}, rect<1>{range(0, 4 * p)});
      auto plain = dmap::accumulate(A, std::plus<>{}, how);
      BAD_INPUT_ANY("accumulate (" + map + "): a loop body throws on the last locale", {
        dmap::forall(S, [&](const idx<1>& j) {
          if (dmap::here() == last && j[0] == 4 * p - 1) throw user_failure("body fails");
          plain.add(j[0] % r.size(), 0);
        });
      });
      plain.finish();
      CHECK_NO_FAILURE(holds(D, A, 0));
    }
}

TEST_CASE("bad input: add_each with bad indices or a throwing function on one locale fails everywhere",
          "[bad_input][aggregation]") {
  // The bad index sits in the middle of a row of the last locale's part, after the table went
  // live: the fast loop leaves, keeps the failure, and goes on with the rest of the row.
  const int p = dmap::num_locales(), last = p - 1;
  const index_t n = 3 * 4096 * 2 + 5;
  const dmap::domain<1> S(dmap::block<1>{}, rect<1>{range(0, n)});
  const index_t last_middle = S.indices().dim(0).first() + (n * last) / p + (n / p) / 2;
  for (const auto k : {maps::map_kind::block, maps::map_kind::cyclic, maps::map_kind::hashed})
    for (const auto how : {dmap::aggregation::automatic, dmap::aggregation::table, dmap::aggregation::lists}) {
      const std::string map = std::string(maps::name_of(k)) +
                              (how == dmap::aggregation::table   ? ", table"
                               : how == dmap::aggregation::lists ? ", lists"
                                                                 : ", automatic");
      const dmap::domain<1> D = maps::domain_of(k, rect<1>{range(-3, 34)});
      dmap::array<std::int64_t, 1> A(D);
      auto acc = dmap::accumulate(A, std::plus<>{}, how);
      for (const index_t bad : {index_t{34}, index_t{-4}, int64_max, int64_min}) {
        BAD_INPUT_DO("add_each (" + map + "): index " + std::to_string(bad) + " mid-row on the last locale only",
                     dmap::out_of_bounds_error, {
                       acc.add_each(S, [&](const idx<1>& j) {
                         return std::pair{j[0] == last_middle ? bad : -3 + j[0] % 37, std::int64_t{1}};
                       });
                       acc.finish();
                     });
        CHECK_NO_FAILURE(holds(D, A, 0));
        DMAP_CHECK_ALL(!acc.pending());
      }
      // The function throws on the last locale part way: add_each fails everywhere (as a
      // forall), the contributions made before stay buffered and finish() delivers them.
      BAD_INPUT_ANY("add_each (" + map + "): the function throws on the last locale", {
        acc.add_each(S, [&](const idx<1>& j) {
          if (dmap::here() == last && j[0] == last_middle) throw user_failure("f fails");
          return std::pair{-3 + j[0] % 37, std::int64_t{0}};
        });
      });
      acc.finish();
      CHECK_NO_FAILURE(holds(D, A, 0));
      // Afterwards the handle counts right.
      acc.add_each(S, [](const idx<1>& j) { return std::pair{idx<1>{-3 + j[0] % 37}, std::int64_t{j[0] < 37 ? 1 : 0}}; });
      acc.finish();
      CHECK_NO_FAILURE(holds(D, A, 1));
    }
}

TEST_CASE("bad input: one locale out of memory while buffering aggregated writes fails everywhere",
          "[bad_input][aggregation][out_of_memory]") {
  const int p = dmap::num_locales(), last = p - 1;
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 5 * p + 1)});
  dmap::array<std::int64_t, 1> A(D);
  auto acc = dmap::accumulate(A, std::plus<>{}, dmap::aggregation::lists);  // lists grow with every add
  acc.add(0, 1);
  CHECK(dmap::bad_input::census().insert("accumulate: the last locale cannot grow its buffers").second);
  std::string seen;
  if (dmap::here() == last) {
    // The address space is capped a little above what the process uses, so that a buffer
    // growing past 64 MiB cannot be allocated; the cap is lifted before anything else runs.
    rlimit before{};
    getrlimit(RLIMIT_AS, &before);
    index_t used_pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &used_pages) != 1) used_pages = 0;
      std::fclose(f);
    }
    rlimit capped = before;
    capped.rlim_cur = static_cast<rlim_t>(used_pages) * 4096 + (rlim_t{32} << 20);
    if (used_pages > 0 && setrlimit(RLIMIT_AS, &capped) == 0) {
      // (2^25 contributions: 128 MiB of 4-byte orders.)
      for (index_t k = 0; k < (index_t{1} << 25); ++k) acc.add(k % (5 * p + 1), 1);
      setrlimit(RLIMIT_AS, &before);
    } else {
      seen = "could not cap the address space";
    }
  }
  try {
    acc.finish();
    seen = "threw nothing";
  } catch (const dmap::remote_failure<dmap::error>& e) {
    if (dmap::here() == last)
      seen = "a remote failure on the failing locale";
    else if (e.origin() != last)
      seen = "the failure names locale " + std::to_string(e.origin());
  } catch (const std::bad_alloc&) {
    if (dmap::here() != last) seen = "bad_alloc away from the failing locale";
  } catch (const std::exception& e) {
    seen = std::string("another exception: ") + e.what();
  }
  CHECK_NO_FAILURE(seen);
  // The round is over everywhere; the handle and the library work again.
  for (index_t i = 0; i < 5 * p + 1; ++i) acc.add(i, 3);
  acc.finish();
  CHECK_NO_FAILURE(holds(D, A, 3 * p));
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

}  // namespace test_bad_aggregation
