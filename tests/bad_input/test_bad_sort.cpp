// Hostile inputs to dmap::sort, stable_sort, sort_by_key, stable_sort_by_key, is_sorted and
// count_unique: moved-from arrays (on every locale or on one), keys and values of different
// sizes, a comparator that throws on one locale at each of its calls in turn (every stage:
// local sort, splitters, partition, merge, the boundary checks), one locale out of memory,
// and index sets at the int64 limits. Every failure must reach every locale, leave the
// arrays as they were, and leave the library working.
#include "../maps_1d.hpp"
#include "support.hpp"

#include <sys/resource.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace test_bad_sort {  // one per file: the tests also build as unity batches (docs/testing.md)
using dmap::bad_input::user_failure;
using dmap::bad_input::fails_from;

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::maps::domain_of;
using dmap::testing::maps::map_kind;
using dmap::testing::maps::name_of;

namespace {

std::atomic<long> calls{0};

/// Element k of the inputs: a few repeats, not sorted.
std::int64_t value_at(index_t k) { return (k * 7) % 5 - 2; }

/// Collective: every element of `a` is value_at(its position) ("" or what differs).
std::string unchanged(const dmap::array<std::int64_t, 1>& a) {
  const auto got = a.gather();
  for (std::size_t k = 0; k < got.size(); ++k)
    if (got[k] != value_at(static_cast<index_t>(k))) return "the array changed at position " + std::to_string(k);
  return "";
}

void fill(dmap::array<std::int64_t, 1>& a) {
  const index_t first = a.domain().indices().dim(0).first();
  const index_t stride = a.domain().indices().dim(0).stride();
  dmap::forall(dmap::zip(a.domain(), a), [&](const idx<1>& i, std::int64_t& x) { x = value_at((i[0] - first) / stride); });
}

}  // namespace

TEST_CASE("bad input: sorting moved-from arrays fails everywhere", "[bad_input][sort]") {
  const rect<1> r{range(0, 11)};
  dmap::domain<1> D(dmap::block<1>{}, r);
  {
    dmap::array<std::int64_t, 1> A(D), B(D), V(D);
    dmap::array<std::int64_t, 1> taken(std::move(A));
    BAD_INPUT("sort: a moved-from array", dmap::argument_error, dmap::sort(A));
    BAD_INPUT("stable_sort: a moved-from array", dmap::argument_error, dmap::stable_sort(A));
    BAD_INPUT("is_sorted: a moved-from array", dmap::argument_error, dmap::is_sorted(A));
    BAD_INPUT("count_unique: a moved-from array", dmap::argument_error, dmap::count_unique(A));
    BAD_INPUT("sort_by_key: moved-from keys", dmap::argument_error, dmap::sort_by_key(A, V));
    BAD_INPUT("stable_sort_by_key: moved-from values", dmap::argument_error, dmap::stable_sort_by_key(V, A));
  }
  {
    // Moved from on the last locale only: the others hold a live array, and still every
    // locale throws.
    dmap::array<std::int64_t, 1> A(D);
    fill(A);
    std::optional<dmap::array<std::int64_t, 1>> taken;
    const int origin = dmap::num_locales() - 1;
    if (dmap::here() == origin) taken.emplace(std::move(A));
    CHECK(dmap::bad_input::census().insert("sort: an array moved from on one locale only").second);
    CHECK_NO_FAILURE((fails_from<dmap::argument_error, dmap::argument_error>(origin, [&] { dmap::sort(A); })));
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  }
}

TEST_CASE("bad input: sort_by_key with keys and values of different sizes", "[bad_input][sort]") {
  dmap::domain<1> K(dmap::block<1>{}, rect<1>{range(0, 7)});
  dmap::domain<1> V(dmap::cyclic<1>{}, rect<1>{range(0, 8)});
  dmap::domain<1> E(dmap::block<1>{}, rect<1>{range(0, 0)});
  dmap::array<std::int64_t, 1> keys(K), empty(E);
  dmap::array<double, 1> values(V);
  fill(keys);
  BAD_INPUT("sort_by_key: 7 keys, 8 values", dmap::shape_error, dmap::sort_by_key(keys, values));
  BAD_INPUT("stable_sort_by_key: 7 keys, 0 values", dmap::shape_error, dmap::stable_sort_by_key(keys, empty));
  CHECK_NO_FAILURE(unchanged(keys));
}

TEST_CASE("bad input: a comparator throwing at each of its calls on one locale fails everywhere",
          "[bad_input][sort]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(-3, 10)};  // 13 elements: uneven on 2, 3 and 4 locales
  using op = std::function<void(const std::function<bool(std::int64_t, std::int64_t)>&)>;
  for (const map_kind k : {map_kind::block, map_kind::cyclic}) {
    dmap::domain<1> D = domain_of(k, r);
    dmap::array<std::int64_t, 1> A(D), W(D);
    const std::pair<const char*, op> operations[] = {
        {"sort", [&](const auto& c) { dmap::sort(A, c); }},
        {"stable_sort", [&](const auto& c) { dmap::stable_sort(A, c); }},
        {"sort_by_key", [&](const auto& c) { dmap::sort_by_key(A, W, c); }},
        {"is_sorted", [&](const auto& c) { (void)dmap::is_sorted(A, c); }},
        {"count_unique", [&](const auto& c) { (void)dmap::count_unique(A, c); }},
    };
    for (const auto& [name, run] : operations)
      {
        // Locale 0 under Block (a contiguous cut, sorted in place), the last locale under
        // Cyclic (sorted through a Block-cut copy).
        const int origin = k == map_kind::block ? 0 : p - 1;
        const std::string sweep = std::string(name) + ": the comparator throws at each call on locale " +
                                  (k == map_kind::block ? "0" : "P-1") + " (" + name_of(k) + ")";
        INFO(sweep);
        CHECK(dmap::bad_input::census().insert(sweep).second);
        // A clean run counts the origin's calls (on a fresh copy of the input).
        fill(A);
        calls = 0;
        run([](std::int64_t a, std::int64_t b) {
          ++calls;
          return a < b;
        });
        const long total = dmap::all_reduce_max(dmap::here() == origin ? calls.load() : 0L);
        DMAP_REQUIRE_ALL(total > 0);
        // Every call up to 24, then every few, and the last one.
        std::vector<long> points;
        for (long at = 1; at < total; at += at < 12 ? 1 : 1 + total / 10) points.push_back(at);
        points.push_back(total);
        for (const long at : points) {
          INFO("the comparator throws at its call " << at << " of " << total << " on locale " << origin);
          fill(A);
          calls = 0;
          CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] {
            run([&](std::int64_t a, std::int64_t b) {
              if (dmap::here() == origin && ++calls == at) throw user_failure("comparator failed at call " + std::to_string(at));
              return a < b;
            });
          }));
          CHECK_NO_FAILURE(unchanged(A));
        }
        CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
      }
  }
}

TEST_CASE("bad input: one locale out of memory while sorting fails everywhere",
          "[bad_input][sort][out_of_memory]") {
  // The last locale holds 2^23 elements (64 MiB) and may grow its address space by only 2 MiB
  // more while sorting: its copy of the elements cannot be allocated. (The copy must be larger
  // than any free block earlier tests may have left in the heap, which the limit cannot take
  // back: glibc serves blocks under 32 MiB from the heap once large blocks have been freed.)
  const int p = dmap::num_locales();
  const int origin = p - 1;
  const index_t n = (index_t{1} << 23) + p - 1;
  dmap::domain<1> D = domain_of(map_kind::irregular, rect<1>{range(0, n)});
  dmap::array<std::int64_t, 1> A(D);
  fill(A);
  CHECK(dmap::bad_input::census().insert("sort: the last locale cannot allocate its copy").second);
  const auto limited = [&](auto&& f) {  // 2 MiB more than it maps now, on the last locale
    return dmap::bad_input::with_memory_cap(origin, std::size_t{2} << 20, [&] { return fails_from<std::bad_alloc>(origin, f); });
  };

  // A comparator of the user's own: sorted from a copy on every locale count (std::less on
  // numbers sorts one locale's storage in place, with nothing large to allocate).
  const auto ascending = [](std::int64_t x, std::int64_t y) { return x < y; };
  std::string result;
  result = limited([&] { dmap::sort(A, ascending); });
  CHECK_NO_FAILURE(result);
  CHECK_NO_FAILURE(unchanged(A));
  CHECK(dmap::bad_input::census().insert("count_unique: the last locale cannot allocate its copy").second);
  result = limited([&] { (void)dmap::count_unique(A); });
  CHECK_NO_FAILURE(result);
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: sorting over index sets at the int64 limits works", "[bad_input][sort]") {
  using dmap::bad_input::int64_max;
  using dmap::bad_input::int64_min;
  const rect<1> sets[] = {rect<1>{range(int64_max - 10, int64_max)}, rect<1>{range(int64_min, int64_min + 9)},
                          rect<1>{range::counted(int64_max - 1, 6, -(int64_max / 8))}};
  for (const map_kind k : {map_kind::block, map_kind::cyclic, map_kind::hashed}) {
    for (const rect<1>& r : sets) {
      INFO("map " << name_of(k) << ", indices " << r);
      dmap::domain<1> D = domain_of(k, r);
      dmap::array<std::int64_t, 1> A(D);
      fill(A);
      std::vector<std::int64_t> want;
      for (index_t j = 0; j < r.size(); ++j) want.push_back(value_at(j));
      std::sort(want.begin(), want.end());
      DMAP_CHECK_ALL(!dmap::is_sorted(A) || r.size() < 2);
      dmap::stable_sort(A);
      const auto got = A.gather();
      DMAP_CHECK_ALL(dmap::here() != 0 || got == want);
      DMAP_CHECK_ALL(dmap::is_sorted(A));
    }
  }
}

}  // namespace test_bad_sort
