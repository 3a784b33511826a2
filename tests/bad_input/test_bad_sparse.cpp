// Bad inputs to sparse domains and arrays: indices outside the parent (int64 extremes, on one
// locale only), absent indices written, positions and pieces past the end, a layout of
// another type asked for, lists of different lengths, and failures inside their collective
// operations (a user layout running out of memory on one locale while indices are added, a
// throwing loop body, reduction op or transform). Every failure reaches every locale and
// leaves the domain and its arrays unchanged.
#include "support.hpp"

#include <atomic>
#include <cstdint>
#include <new>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../layouts/compressed_layout.hpp"
#include "../../layouts/coo_layout.hpp"
#include "../oracle.hpp"

namespace test_bad_sparse {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::int64_max;
using dmap::bad_input::int64_min;

namespace {

/// Locale whose next layout build runs out of memory (-1: none).
std::atomic<int> starving{-1};

/// A user layout: COO that reports std::bad_alloc on the starving locale.
struct starving_layout : dmap::coo_layout<2> {
  starving_layout() = default;
  explicit starving_layout(dmap::coo_layout<2> l) : dmap::coo_layout<2>(std::move(l)) {}
  starving_layout built(const rect<2>& piece, std::span<const idx<2>> sorted) const {
    if (dmap::here() == starving.load() && !sorted.empty()) throw std::bad_alloc();
    return starving_layout(dmap::coo_layout<2>::built(piece, sorted));
  }
};
static_assert(dmap::sparse_layout<starving_layout, 2>);

/// Collective: the set of `s` (sorted, from every locale) and the sum of `a`'s values.
std::string state_of(const dmap::sparse_domain<2>& s, const dmap::sparse_array<double, 2>& a) {
  std::ostringstream o;
  o << s.size() << "/" << dmap::reduce(a, 0.0);
  return o.str();
}

}  // namespace

TEST_CASE("bad input: sparse domain arguments", "[bad_input][sparse]") {
  const rect<2> space{{0, 9}, {-4, 6}};
  dmap::domain<2> parent{dmap::block<2>{}, space};
  dmap::sparse_domain<2> s{parent, dmap::csr_layout<2>{}};
  s.add({idx<2>{0, 0}, idx<2>{3, -4}, idx<2>{8, 5}, idx<2>{5, 1}});
  dmap::sparse_array<double, 2> a{s, -1.0};
  dmap::forall(dmap::zip(a, s), [](double& v, idx<2> i) { v = static_cast<double>(i[0] * 10 + i[1]); });
  const std::string before = state_of(s, a);
  const bool last = dmap::here() == dmap::num_locales() - 1;
  const std::vector<idx<2>> none;

  BAD_INPUT("sparse add: INT64_MIN in dimension 0 on every locale", dmap::out_of_bounds_error,
            s.add({idx<2>{int64_min, 0}}));
  BAD_INPUT("sparse add: INT64_MAX in dimension 1 on the last locale only", dmap::out_of_bounds_error,
            s.add(last ? std::vector<idx<2>>{{1, 1}, {1, int64_max}} : none));
  BAD_INPUT("sparse add: one past the parent's end on locale 0 only", dmap::out_of_bounds_error,
            s.add(dmap::here() == 0 ? std::vector<idx<2>>{{9, 0}} : none));
  BAD_INPUT("sparse remove: an index below the parent on the last locale only", dmap::out_of_bounds_error,
            s.remove(last ? std::vector<idx<2>>{{0, -5}} : none));
  BAD_INPUT("sparse_array get: INT64_MIN in both dimensions on every locale", dmap::out_of_bounds_error,
            a.get(std::vector<idx<2>>{{int64_min, int64_min}}));
  BAD_INPUT("sparse_array get: an index past the parent on the last locale only", dmap::out_of_bounds_error,
            a.get(last ? std::vector<idx<2>>{{int64_max, 0}} : none));
  BAD_INPUT("sparse_array set: an absent index on the last locale only", dmap::out_of_bounds_error,
            a.set(last ? std::vector<idx<2>>{{2, 2}} : none, last ? std::vector<double>{1.0} : std::vector<double>{}));
  BAD_INPUT("sparse_array set: one value fewer than indices on locale 0 only", dmap::argument_error,
            a.set(std::vector<idx<2>>{{0, 0}}, dmap::here() == 0 ? std::vector<double>{} : std::vector<double>{2.0}));
  CHECK_NO_FAILURE(state_of(s, a) == before ? "" : "a refused input changed the set or the values");

  // Local (not collective) misuse: every locale checks its own call.
  BAD_INPUT("sparse local_indices: positions past the end", dmap::out_of_bounds_error,
            [&] {
              std::vector<idx<2>> out(2);
              s.local_indices(s.local_size(), s.local_size() + 1, out.data());
            }());
  BAD_INPUT("sparse local_indices: a negative first position", dmap::out_of_bounds_error,
            [&] {
              idx<2> out;
              s.local_indices(-1, 0, &out);
            }());
  BAD_INPUT("sparse local_piece: a piece past this locale's pieces", dmap::out_of_bounds_error,
            s.local_piece(s.local_pieces()));
  BAD_INPUT("sparse local_layout: asking a CSR domain for COO", dmap::argument_error,
            [&] {
              if (s.local_pieces() == 0) throw dmap::argument_error("no piece here: nothing to ask");
              (void)s.local_layout<dmap::coo_layout<2>>(0);
            }());
  BAD_INPUT("sparse local_position: an index outside the parent", dmap::out_of_bounds_error,
            s.local_position(idx<2>{int64_max, int64_min}));
  BAD_INPUT("sparse_array local: writing an absent index this locale owns", dmap::out_of_bounds_error,
            [&] {
              for (const auto& i : dmap::testing::oracle::points_of(space))
                if (parent.locale_of(i) == dmap::here() && !s.contains(i)) {
                  a.local(i) = 1.0;
                  return;
                }
              throw dmap::out_of_bounds_error("every local index is present");
            }());
  BAD_INPUT("sparse_array local: an index another locale owns", dmap::not_local_error,
            [&] {
              for (const auto& i : dmap::testing::oracle::points_of(space))
                if (parent.locale_of(i) != dmap::here()) {
                  (void)a.local(i);
                  return;
                }
              throw dmap::not_local_error("one locale owns everything");
            }());
  BAD_INPUT("sparse_array operator[]: writing an absent index another locale owns", dmap::out_of_bounds_error,
            [&] {
              for (const auto& i : dmap::testing::oracle::points_of(space))
                if (parent.locale_of(i) != dmap::here() && !s.contains(i)) {
                  a[i] = 1.0;
                  return;
                }
              throw dmap::out_of_bounds_error("no absent index elsewhere");
            }());
  BAD_INPUT("sparse_array operator[]: writing an absent index this locale owns", dmap::out_of_bounds_error,
            [&] {
              for (const auto& i : dmap::testing::oracle::points_of(space))
                if (s.locale_of(i) == dmap::here() && !s.contains(i)) {
                  a[i] = 1.0;
                  return;
                }
              throw dmap::out_of_bounds_error("no absent index here");
            }());
  BAD_INPUT("sparse_array operator[]: reading (INT64_MIN, INT64_MAX), outside the parent", dmap::out_of_bounds_error,
            (void)static_cast<double>(a[idx<2>{int64_min, int64_max}]));
  BAD_INPUT("sparse_array operator[] const: reading one past the parent's last row", dmap::out_of_bounds_error,
            (void)std::as_const(a)[idx<2>{9, 0}]);
  BAD_INPUT("sparse locale_of: INT64_MAX in dimension 0", dmap::out_of_bounds_error,
            (void)s.locale_of(idx<2>{int64_max, 0}));
  BAD_INPUT("sparse_array: a moved-from array", dmap::argument_error,
            [&] {
              dmap::sparse_array<double, 2> b{s};
              dmap::sparse_array<double, 2> c{std::move(b)};
              (void)b.local_values();
            }());
  BAD_INPUT("sparse forall: a moved-from sparse array leading", dmap::argument_error,
            [&] {
              dmap::sparse_array<double, 2> b{s};
              dmap::sparse_array<double, 2> c{std::move(b)};
              dmap::forall(b, [](double& v) { v = 1; });
            }());
  BAD_INPUT("sparse reduce: a moved-from sparse domain leading", dmap::argument_error,
            [&] {
              dmap::sparse_domain<2> t{parent, dmap::coo_layout<2>{}};
              dmap::sparse_domain<2> u{std::move(t)};
              (void)dmap::reduce(t, index_t{0}, std::plus<>{}, [](idx<2> i) { return i[0]; });
            }());
  BAD_INPUT("sparse forall: a moved-from sparse array following", dmap::argument_error,
            [&] {
              dmap::sparse_array<double, 2> b{s};
              dmap::sparse_array<double, 2> c{std::move(b)};
              dmap::forall(dmap::zip(a, b), [](double& x, double& y) { x = y; });
            }());
  CHECK_NO_FAILURE(state_of(s, a) == before ? "" : "a refused input changed the set or the values");
}

TEST_CASE("bad input: failures inside sparse collectives reach every locale", "[bad_input][sparse]") {
  const rect<2> space{{0, 12}, {0, 12}};
  dmap::domain<2> parent{dmap::cyclic<2>{}, space};
  dmap::sparse_domain<2> s{parent, starving_layout{}};
  std::vector<idx<2>> every_third;  // several indices on every locale of every grid
  for (const auto& i : dmap::testing::oracle::points_of(space))
    if ((i[0] + i[1]) % 3 == 0) every_third.push_back(i);
  s.add(every_third);
  dmap::sparse_array<double, 2> a{s, 0.0};
  dmap::forall(dmap::zip(a, s), [](double& v, idx<2> i) { v = static_cast<double>(i[0]); });
  const std::string before = state_of(s, a);
  const int p = dmap::num_locales();
  for (int origin = 0; origin < p; ++origin) {
    starving = origin;
    // Every locale adds indices that every locale owns some of: the origin's build fails.
    std::vector<idx<2>> more;
    for (const auto& i : dmap::testing::oracle::points_of(space))
      if ((i[0] + i[1]) % 3 == 1) more.push_back(i);
    BAD_INPUT("sparse add: out of memory building the layouts on locale " + std::to_string(origin), std::bad_alloc,
              [&] {
                try {
                  s.add(more);
                } catch (const dmap::remote_failure<dmap::error>& e) {
                  // Away from the origin the failure arrives as a remote_failure naming it.
                  if (dmap::here() != origin && e.origin() == origin) throw std::bad_alloc();
                  throw;
                }
              }());
    starving = -1;
    CHECK_NO_FAILURE(state_of(s, a) == before ? "" : "a failed add changed the set or the values");
    const auto thrower = [origin](idx<2> i) {
      if (dmap::here() == origin && i[0] + i[1] >= 0) throw dmap::runtime_error("user body failed");
    };
    BAD_INPUT("sparse forall: a body throwing on locale " + std::to_string(origin), dmap::error,
              dmap::forall(s, thrower));
    BAD_INPUT("sparse reduce: an op throwing on locale " + std::to_string(origin), dmap::error,
              (void)dmap::reduce(a, 0.0, [origin](double x, double y) -> double {
                if (dmap::here() == origin) throw dmap::runtime_error("user op failed");
                return x + y;
              }));
    BAD_INPUT("sparse reduce: a transform throwing on locale " + std::to_string(origin), dmap::error,
              (void)dmap::reduce(dmap::zip(a, s), 0.0, std::plus<>{}, [origin](double v, idx<2>) -> double {
                if (dmap::here() == origin) throw dmap::runtime_error("user transform failed");
                return v;
              }));
  }
  CHECK_NO_FAILURE(state_of(s, a) == before ? "" : "failures changed the set or the values");
}

}  // namespace test_bad_sparse
