// Hostile input to partial reductions, minloc/maxloc and reduce_each: mismatched shapes,
// moved-from arrays, indices at the int64 limits, and user operations that throw (or run out
// of memory) on one locale only, at every call of a reduction. Every locale must throw, none
// may hang, a failed partial reduction must leave its output unchanged, and the library must
// work afterwards.
#include "../maps_1d.hpp"
#include "support.hpp"

#include <cstdint>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace test_bad_reductions {
using dmap::bad_input::fails_from;
using dmap::bad_input::user_failure;

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::int64_max;
using dmap::bad_input::int64_min;

namespace {

/// Collective: true on every locale when every element of `out` is `v`.
bool all_equal(dmap::array<std::int64_t, 1>& out, std::int64_t v) {
  return dmap::reduce(out, std::int64_t{0}, std::plus<>{},
                      [v](std::int64_t x) { return std::int64_t{x != v}; }) == 0;
}

}  // namespace

TEST_CASE("bad input: partial_reduce with a mismatched output or a moved-from array", "[bad_input][reductions]") {
  const rect<2> r{range(0, 5), range(0, 7)};
  dmap::domain<2> D(dmap::block<2>{}, r);
  dmap::array<std::int64_t, 2> A(D, 1);
  dmap::domain<1> rows(dmap::cyclic<1>{}, rect<1>{range(0, 5)});
  dmap::domain<1> wrong(dmap::cyclic<1>{}, rect<1>{range(0, 6)});
  dmap::array<std::int64_t, 1> out(rows, 9), bad(wrong, 9);
  BAD_INPUT("partial_reduce: output one longer than the kept dimension", dmap::shape_error,
            dmap::partial_reduce<1>(A, bad, std::int64_t{0}));
  BAD_INPUT("partial_reduce: output of the reduced dimension's length", dmap::shape_error,
            dmap::partial_reduce<0>(A, out, std::int64_t{0}));
  DMAP_CHECK_ALL(all_equal(out, 9) && all_equal(bad, 9));
  dmap::array<std::int64_t, 2> gone(D, 1);
  dmap::array<std::int64_t, 2> taker(std::move(gone));
  BAD_INPUT("partial_reduce: a moved-from input", dmap::argument_error,
            dmap::partial_reduce<1>(gone, out, std::int64_t{0}));
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [&] { dmap::partial_reduce<1>(gone, out, std::int64_t{0}); }, "dmap::partial_reduce: an iterand is a moved-from"));
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([&] { (void)dmap::maxloc(gone); },
                                                                    "dmap::maxloc: an iterand is a moved-from"));
  dmap::array<std::int64_t, 1> moved(rows);
  dmap::array<std::int64_t, 1> keeper(std::move(moved));
  BAD_INPUT("partial_reduce: a moved-from output", dmap::argument_error,
            dmap::partial_reduce<1>(A, moved, std::int64_t{0}));
  BAD_INPUT("minloc: a moved-from array", dmap::argument_error, dmap::minloc(gone));
  BAD_INPUT("reduce_each: a moved-from array", dmap::argument_error,
            dmap::reduce_each(gone, std::tuple{0, 0}, std::tuple{std::plus<>{}, dmap::maximum{}}));
  dmap::domain<2> E(dmap::cyclic<2>{}, rect<2>{range(3, 3), range(0, 4)});
  dmap::array<int, 2> empty(E);
  BAD_INPUT("maxloc: an empty array", dmap::argument_error, dmap::maxloc(empty));
  BAD_INPUT("minloc: an empty view", dmap::argument_error, dmap::minloc(A[rect<2>{range(2, 2), range(0, 7)}]));
}

TEST_CASE("bad input: partial_reduce op or transform throwing at each call on one locale", "[bad_input][reductions]") {
  const int p = dmap::num_locales();
  const rect<2> r{range(0, 7), range(0, 9)};
  for (const auto out_kind : {dmap::testing::maps::map_kind::block, dmap::testing::maps::map_kind::hashed}) {
    for (const int origin : {0, p - 1}) {
      if (origin == p - 1 && p == 1) continue;
      const std::string sweep = std::string("partial_reduce: op throws at each call on locale ") +
                                (origin == 0 ? "0" : "P-1") + " into " + dmap::testing::maps::name_of(out_kind);
      INFO(sweep);
      CHECK(dmap::bad_input::census().insert(sweep).second);
      dmap::domain<2> D(dmap::block_cyclic<2>{{2, 4}}, r);
      dmap::array<std::int64_t, 2> A(D);
      dmap::forall(dmap::zip(D, A), [](const idx<2>& i, std::int64_t& a) { a = i[0] * 10 + i[1]; });
      dmap::domain<1> O = dmap::testing::maps::domain_of(out_kind, rect<1>{range(0, 9)});
      dmap::array<std::int64_t, 1> out(O, -1);
      // A clean run counts this locale's calls (chunks, bins, then the owner's fold).
      long calls = 0;
      dmap::partial_reduce<0>(A, out, std::int64_t{0}, [&](std::int64_t a, std::int64_t b) {
        ++calls;
        return a + b;
      });
      long most = calls;  // the origin's count
      dmap::broadcast(most, origin);
      for (long k = 1; k <= most; ++k) {
        INFO("throwing at call " << k);
        dmap::forall(out, [](std::int64_t& x) { x = -1; });
        long seen = 0;
        CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] {
          dmap::partial_reduce<0>(A, out, std::int64_t{0}, [&](std::int64_t a, std::int64_t b) {
            if (dmap::here() == origin && ++seen == k) throw user_failure("op failed on purpose");
            return a + b;
          });
        }));
        DMAP_CHECK_ALL(all_equal(out, -1));  // unchanged
      }
      CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] {
        dmap::partial_reduce<0>(dmap::zip(A), out, std::int64_t{0}, std::plus<>{},
                                [&](std::int64_t a) -> std::int64_t {
                                  if (dmap::here() == origin) throw user_failure("transform failed on purpose");
                                  return a;
                                });
      }));
      CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
    }
  }
}

TEST_CASE("bad input: minloc, maxloc and reduce_each with a throwing transform or op on one locale",
          "[bad_input][reductions]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(0, 4 * p + 3)};
  for (const auto kind : dmap::testing::maps::all_maps) {
    const int origin = p - 1;
    const std::string sweep = std::string("minloc/maxloc/reduce_each: a user function throws on locale P-1 (") +
                              dmap::testing::maps::name_of(kind) + ")";
    INFO(sweep);
    CHECK(dmap::bad_input::census().insert(sweep).second);
    dmap::domain<1> D = dmap::testing::maps::domain_of(kind, r);
    dmap::array<std::int64_t, 1> A(D, 3);
    const auto throwing = [&](std::int64_t a) -> std::int64_t {
      if (dmap::here() == origin) throw user_failure("transform failed on purpose");
      return a;
    };
    // A replicated array is reduced on every locale's own copy: the origin holds elements.
    CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] { (void)dmap::minloc(A, throwing); }));
    CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] { (void)dmap::maxloc(dmap::zip(A), throwing); }));
    CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] {
      (void)dmap::reduce_each(A, std::tuple{std::int64_t{0}, std::int64_t{0}},
                              std::tuple{std::plus<>{}, [&](std::int64_t a, std::int64_t b) {
                                           if (dmap::here() == origin) throw user_failure("op failed on purpose");
                                           return a + b;
                                         }});
    }));
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  }
}

TEST_CASE("bad input: partial_reduce when one locale runs out of memory in the op", "[bad_input][reductions][out_of_memory]") {
  // partial_reduce allocates no more than the locale's own part of the input and output, so
  // the allocation that fails here is the user's: an op whose result type allocates (a big
  // number, say) and cannot, on the last locale only.
  const int p = dmap::num_locales();
  const int origin = p - 1;
  CHECK(dmap::bad_input::census().insert("partial_reduce: the op runs out of memory on the last locale").second);
  const rect<2> r{range(0, 2 * p + 1), range(0, 5)};
  dmap::domain<2> D(dmap::block<2>{}, r);
  dmap::array<std::int64_t, 2> A(D, 2);
  dmap::domain<1> O(dmap::cyclic<1>{}, rect<1>{range(0, 5)});
  dmap::array<std::int64_t, 1> out(O, 7);
  CHECK_NO_FAILURE(fails_from<std::bad_alloc>(origin, [&] {
    dmap::partial_reduce<0>(A, out, std::int64_t{0}, [&](std::int64_t a, std::int64_t b) -> std::int64_t {
      if (dmap::here() == origin) throw std::bad_alloc();
      return a + b;
    });
  }));
  DMAP_CHECK_ALL(all_equal(out, 7));
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: reductions over indices at the int64 limits", "[bad_input][reductions]") {
  CHECK(dmap::bad_input::census().insert("partial_reduce and minloc: indices at the int64 limits").second);
  const rect<2> r{range(int64_max - 6, int64_max), range(int64_min, int64_min + 5)};
  for (int kind = 0; kind < 2; ++kind) {
    dmap::domain<2> D = kind == 0 ? dmap::domain<2>{dmap::block<2>{}, r} : dmap::domain<2>{dmap::cyclic<2>{}, r};
    dmap::array<std::int64_t, 2> A(D);
    // Positions, not indices, in the values (indices this large would overflow any sum).
    dmap::forall(dmap::zip(D, A), [&](const idx<2>& i, std::int64_t& a) {
      a = (i[0] - r.dim(0).first()) * 5 + (i[1] - r.dim(1).first());
    });
    dmap::domain<1> rows(dmap::hashed<1>{}, rect<1>{r.dim(0)});
    dmap::domain<1> cols(dmap::block<1>{}, rect<1>{r.dim(1)});
    dmap::array<std::int64_t, 1> rs(rows), cs(cols);
    dmap::partial_reduce<1>(A, rs, std::int64_t{0});
    dmap::partial_reduce<0>(A, cs, std::int64_t{0}, dmap::maximum{});
    const bool rows_ok = dmap::reduce(dmap::zip(rows, rs), std::int64_t{0}, std::plus<>{},
                                      [&](const idx<1>& i, std::int64_t v) {
                                        const std::int64_t k = i[0] - r.dim(0).first();
                                        return std::int64_t{v != 25 * k + 10};
                                      }) == 0;
    const bool cols_ok = dmap::reduce(dmap::zip(cols, cs), std::int64_t{0}, std::plus<>{},
                                      [&](const idx<1>& i, std::int64_t v) {
                                        return std::int64_t{v != 25 + (i[0] - r.dim(1).first())};
                                      }) == 0;
    DMAP_CHECK_ALL(rows_ok && cols_ok);
    const auto lo = dmap::minloc(A);
    const auto hi = dmap::maxloc(A);
    DMAP_CHECK_ALL(lo.value == 0 && lo.index == (idx<2>{int64_max - 6, int64_min}) && hi.value == 29 &&
                   hi.index == (idx<2>{int64_max - 1, int64_min + 4}));
  }
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

}  // namespace test_bad_reductions
