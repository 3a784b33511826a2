// Hostile inputs to reverse halos (algorithms/reverse_halos.hpp): maps without ghost cells,
// moved-from arrays, a reduction finished twice, a combining operation that throws on one
// locale only (every locale must throw, none may hang, and the array must reduce again
// afterwards), and domains at the int64 limits, which must reduce correctly.
#include "support.hpp"

#include "../stencil_config.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace test_bad_reverse_halos {  // one per file: the tests also build as unity batches (docs/testing.md)
using dmap::bad_input::user_failure;
using dmap::bad_input::fails_from;

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::int64_max;
using dmap::bad_input::int64_min;

namespace {

/// Collective: every stored cell of A set to 1 (owned and ghost), reduced by sum: each owned
/// element then counts the cells that stand for it, which `count(i)` gives. "" or the
/// number of elements that are off.
template <std::size_t N, class Count>
std::string sums_count_cells(dmap::array<std::int64_t, N>& A, const dmap::domain<N>& D, Count count) {
  for (const auto& b : A.local_blocks()) std::fill(b.data(), b.data() + b.layout.size(), 1);
  dmap::reduce_halos(A);
  const int wrong = dmap::reduce(dmap::zip(A, D), 0, std::plus<>{},
                                [&](std::int64_t a, const idx<N>& i) { return a == count(i) ? 0 : 1; });
  return wrong == 0 ? "" : std::to_string(wrong) + " elements off";
}

}  // namespace

TEST_CASE("bad input: reverse halos on maps without ghost cells, moved-from arrays, finished twice",
          "[bad_input][reverse_halo]") {
  dmap::domain<1> B(dmap::block<1>{}, rect<1>{range(0, 10)});
  dmap::array<double, 1> A(B, 1.0);
  BAD_INPUT("reduce_halos: a block array (no ghost cells)", dmap::argument_error, dmap::reduce_halos(A));
  {
    dmap::domain<2> H(dmap::hashed<2>{}, rect<2>{range(0, 4), range(0, 5)});
    dmap::array<double, 2> X(H);
    BAD_INPUT("start_halo_reduction: a hashed array (a directory map, no ghost cells)", dmap::argument_error,
              dmap::start_halo_reduction(X, dmap::maximum{}).finish());
  }
  dmap::domain<1> S(dmap::stencil<1>{idx<1>{1}, {true}}, rect<1>{range(0, 11)});
  dmap::array<double, 1> moved(S), taker(std::move(moved));
  BAD_INPUT("reduce_halos: a moved-from stencil array", dmap::argument_error, dmap::reduce_halos(moved));
  BAD_INPUT("start_halo_reduction: a moved-from stencil array (star)", dmap::argument_error,
            dmap::start_halo_reduction(moved, std::plus<>{}, dmap::halo_shape::star));
  BAD_INPUT_DO("halo_reduction::finish: called twice", dmap::argument_error, {
    auto pending = dmap::start_halo_reduction(taker);
    pending.finish();
    pending.finish();
  });
  BAD_INPUT_DO("halo_reduction::finish: on a moved-from reduction", dmap::argument_error, {
    auto pending = dmap::start_halo_reduction(taker);
    auto other = std::move(pending);
    other.finish();
    pending.finish();  // NOLINT(bugprone-use-after-move): the point
  });
}

TEST_CASE("bad input: a combining operation throwing on one locale fails everywhere, no hang",
          "[bad_input][reverse_halo]") {
  const int p = dmap::num_locales();
  // 2-D periodic: every locale receives contributions (its own wrapped images at least), so
  // the operation runs on every locale.
  const dmap::testing::stencil_config::config<2> c{rect<2>{range(0, 9), range(-3, 8)}, idx<2>{1, 2}, {true, true},
                                                   dmap::target_grid<2>::balanced(p).shape()};
  auto D = dmap::testing::stencil_config::make_domain(c);
  dmap::array<std::int64_t, 2> A(D);
  for (const int origin : {0, p - 1}) {
    if (origin == p - 1 && p == 1) continue;
    for (const bool dmap_error : {false, true}) {
      const std::string name = std::string("reduce_halos: op throws ") + (dmap_error ? "a dmap error" : "a user exception") +
                               " on locale " + (origin == 0 ? "0" : "P-1");
      INFO(name);
      CHECK(dmap::bad_input::census().insert(name).second);
      const auto throwing = [origin, dmap_error](std::int64_t a, std::int64_t b) {
        if (dmap::here() == origin) {
          if (dmap_error) throw dmap::shape_error("the user's op refuses");
          throw user_failure("the user's op fails");
        }
        return a + b;
      };
      if (dmap_error)
        CHECK_NO_FAILURE((fails_from<dmap::shape_error, dmap::shape_error>(origin, [&] { dmap::reduce_halos(A, throwing); })));
      else
        CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] {
          auto pending = dmap::start_halo_reduction(A, throwing, dmap::halo_shape::star);
          pending.finish();
        }));
      // Nothing is left in flight: the array reduces again as a fresh one does.
      dmap::array<std::int64_t, 2> fresh(D);
      for (const auto& b : fresh.local_blocks()) std::fill(b.data(), b.data() + b.layout.size(), 1);
      dmap::reduce_halos(fresh);
      CHECK_NO_FAILURE(sums_count_cells(A, D, [&](const idx<2>& i) { return fresh.local(i); }));
      CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
    }
  }
}

TEST_CASE("bad input: reverse halos of domains at the int64 limits reduce correctly", "[bad_input][reverse_halo]") {
  const int p = dmap::num_locales();
  // The frame stops at the int64 limits; the ghost cells within them stand for elements of
  // the neighbours.
  for (const rect<1> r : {rect<1>{range(int64_max - 9, int64_max)}, rect<1>{range(int64_min, int64_min + 9)}}) {
    INFO(dmap::testing::oracle::text(r));
    dmap::domain<1> D(dmap::stencil<1>{idx<1>{2}, {false}}, r);
    dmap::array<std::int64_t, 1> A(D);
    const index_t lo = r.dim(0).lo(), n = r.dim(0).size();
    // Chunk k of p owns [lo + ceil(n k / p), lo + ceil(n (k + 1) / p)); an element within 2 of a
    // cut is also a ghost cell of each neighbouring chunk that reaches it.
    const auto count = [&](const idx<1>& i) {
      const index_t x = i[0] - lo;
      std::int64_t cells = 0;
      for (int k = 0; k < p; ++k) {
        const index_t a = (n * k + p - 1) / p, b = (n * (k + 1) + p - 1) / p;
        if (a < b && x >= a - 2 && x < b + 2) ++cells;
      }
      return cells;
    };
    CHECK_NO_FAILURE(sums_count_cells(A, D, count));
  }
}

}  // namespace test_bad_reverse_halos
