// Bad inputs to the public API outside index math: distribution constructor arguments and
// the index sets a map refuses (Block, BlockCyclic, Irregular Block, Hashed, Unstructured,
// Stencil, Private and Dimensional specifiers), domain and array operations (shapes that do
// not match, moved-from arrays, arguments that differ between locales), the algorithms
// (halo updates, copies), collectives with a bad root, neighbourhood loops and views. Every
// collective call gets the same bad input on every locale (or, where the library promises
// agreement, on one locale only) and must fail on all of them.
#include "support.hpp"

#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace test_bad_api {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::bad_input::int64_max;
using dmap::bad_input::int64_min;

namespace {
/// Cut points for an irregular block over `p` locales: p - 1 copies of `value`.
std::vector<index_t> cuts_of(int p, index_t value) { return std::vector<index_t>(static_cast<std::size_t>(p - 1), value); }
using index_mapper_fn = int (*)(index_t);

}  // namespace

TEST_CASE("bad input: distribution constructor arguments", "[bad_input][api]") {
  const int p = dmap::num_locales();
  // Constructors check their own arguments (not collective: every locale throws alike).
  BAD_INPUT("block_cyclic: block size 0", dmap::argument_error, dmap::block_cyclic<1>{idx<1>{0}});
  BAD_INPUT("block_cyclic: a negative block size in dimension 1 (2-D, with a start)", dmap::argument_error,
            dmap::block_cyclic<2>(idx<2>{2, -1}, idx<2>{0, 0}));
  BAD_INPUT("irregular_block: cut points in decreasing order", dmap::argument_error,
            dmap::irregular_block<1>({{{5, 3}}}, dmap::target_grid<1>({3}, 3)));
  BAD_INPUT("irregular_block: one cut point too many (p of them)", dmap::argument_error,
            dmap::irregular_block<1>{{std::vector<index_t>(static_cast<std::size_t>(p), 0)}});
  BAD_INPUT("dimensional: 'none' along a dimension the grid splits over 2 locales", dmap::argument_error,
            dmap::dimensional<1>({dmap::none_dim{}}, dmap::target_grid<1>({2}, 2)));
  BAD_INPUT("dimensional: unstructured with one list more than locales along it", dmap::argument_error,
            dmap::dimensional<1>({dmap::unstructured_dim{std::vector<std::vector<index_t>>(static_cast<std::size_t>(p + 1))}}));
  BAD_INPUT("stencil: fluff -1", dmap::argument_error, dmap::stencil<1>{idx<1>{-1}});
  BAD_INPUT("stencil: fluff INT64_MIN in dimension 1 (2-D)", dmap::argument_error, dmap::stencil<2>{idx<2>{1, int64_min}});
  BAD_INPUT("block: a bounding box of stride 2", dmap::argument_error, dmap::block<1>{rect<1>{range(0, 10, 2)}});
  BAD_INPUT("block: an empty bounding box (dimension 1)", dmap::argument_error,
            dmap::block<2>{rect<2>{range(0, 4), range(5, 5)}});
}

TEST_CASE("bad input: index sets a map refuses, when a domain is made or resized", "[bad_input][api]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(0, 10 * p)};
  if (p >= 2) {
    BAD_INPUT("irregular_block: cut points at INT64_MAX, outside the domain", dmap::argument_error,
              dmap::domain<1>(dmap::irregular_block<1>{{cuts_of(p, int64_max)}}, r));
    dmap::domain<1> D(dmap::irregular_block<1>{{cuts_of(p, 5)}}, r);
    dmap::array<index_t, 1> A(D, 3);
    BAD_INPUT("irregular_block: set_indices leaving the cut points outside", dmap::argument_error,
              D.set_indices(rect<1>{range(6, 10 * p)}));
    DMAP_CHECK_ALL(D.indices() == r);
    DMAP_CHECK_ALL(dmap::reduce(A, index_t{0}) == 3 * r.size());
  }
  BAD_INPUT("dimensional: an unstructured dimension listing an index twice", dmap::argument_error, [&] {
    std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
    for (index_t i = 0; i < 10; ++i) lists[0].push_back(i);
    lists[0].push_back(4);
    return dmap::domain<1>(dmap::dimensional<1>({dmap::unstructured_dim{lists}}), rect<1>{range(0, 10)});
  }());
  BAD_INPUT("dimensional: an unstructured dimension leaving an index unlisted", dmap::argument_error, [&] {
    std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
    for (index_t i = 0; i < 9; ++i) lists[static_cast<std::size_t>(i % p)].push_back(i);
    return dmap::domain<1>(dmap::dimensional<1>({dmap::unstructured_dim{lists}}), rect<1>{range(0, 10)});
  }());
  const dmap::hashed<1, index_mapper_fn> to_minus_one{+[](index_t) { return -1; }, "to -1"};
  BAD_INPUT("hashed: the mapper names locale -1", dmap::argument_error, dmap::domain<1>(to_minus_one, r));
  {
    // Indices from 10 on go to locale P: fine until the domain grows there.
    const dmap::hashed<1, index_mapper_fn> below_ten{+[](index_t i) { return i < 10 ? 0 : dmap::num_locales(); },
                                                     "below ten"};
    dmap::domain<1> D(below_ten, rect<1>{range(0, 10)});
    dmap::array<index_t, 1> A(D, 2);
    BAD_INPUT("hashed: set_indices onto indices the mapper sends to locale P", dmap::argument_error,
              D.set_indices(rect<1>{range(0, 12)}));
    DMAP_CHECK_ALL(D.indices() == rect<1>{range(0, 10)});
    DMAP_CHECK_ALL(dmap::reduce(A, index_t{0}) == 20);
  }
  // A mapper may return any integer type convertible to int: a locale past int's range is as
  // much outside [0, P) as -1 (library bug: dists/hashed.hpp's map() truncates it to int
  // first, so 2^32 silently becomes locale 0; see the report).
  const dmap::hashed<1, index_t (*)(index_t)> to_two_pow_32{+[](index_t) { return index_t{1} << 32; }, "to 2^32"};
  BAD_INPUT("hashed: the mapper names locale 2^32 (an index_t past int)", dmap::argument_error,
            dmap::domain<1>(to_two_pow_32, r));
  BAD_INPUT("unstructured (with copies): a locale lists one index twice in its own list", dmap::argument_error, [&] {
    std::vector<idx<1>> all;
    for (index_t i = 0; i < 10; ++i) all.push_back(idx<1>{i});
    all.push_back(idx<1>{3});
    return dmap::domain<1>(dmap::unstructured<1>{all, false}, rect<1>{range(0, 10)});
  }());
  BAD_INPUT("stencil: a periodic chunk thinner than the ghost width", dmap::argument_error,
            dmap::domain<1>(dmap::stencil<1>{idx<1>{5}, {true}}, rect<1>{range(0, 3)}));
  if (p >= 2)
    BAD_INPUT("stencil: a chunk between locales thinner than the ghost width", dmap::argument_error,
              dmap::domain<1>(dmap::stencil<1>{idx<1>{3}}, rect<1>{range(0, 2 * p)}));
  BAD_INPUT("stencil: a periodic dimension whose images pass INT64_MAX", dmap::argument_error,
            dmap::domain<1>(dmap::stencil<1>{idx<1>{1}, {true}}, rect<1>{range(int64_max - 10, int64_max)}));
  {
    dmap::domain<1> S(dmap::stencil<1>{idx<1>{2}, {true}}, rect<1>{range(0, 10 * p)});
    dmap::array<double, 1> A(S, 1.0);
    BAD_INPUT("stencil: set_indices to chunks thinner than the ghost width", dmap::argument_error,
              S.set_indices(rect<1>{range(0, p)}));
    DMAP_CHECK_ALL(S.indices() == (rect<1>{range(0, 10 * p)}));
    DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 10.0 * p);
  }
  BAD_INPUT("private_dist: a domain of one index more than locales", dmap::argument_error,
            dmap::domain<1>(dmap::private_dist{}, rect<1>{range(0, p + 1)}));
  {
    dmap::domain<1> P = dmap::private_space();
    BAD_INPUT("private_dist: set_indices to another index set", dmap::argument_error,
              P.set_indices(rect<1>{range(1, p + 1)}));
    DMAP_CHECK_ALL(P.indices() == (rect<1>{range(0, p)}));
  }
  if (p >= 2) {
    // Agreement: one locale passes other arguments to a collective call.
    BAD_INPUT("domain: locale 0 passes another index set than the others", dmap::argument_error,
              dmap::domain<1>(dmap::block<1>{}, rect<1>{range(0, dmap::here() == 0 ? 11 : 10)}));
    dmap::domain<1> D(dmap::cyclic<1>{}, rect<1>{range(0, 10)});
    BAD_INPUT("domain::set_indices: the last locale passes another index set", dmap::argument_error,
              D.set_indices(rect<1>{range(0, dmap::here() == p - 1 ? 12 : 11)}));
    DMAP_CHECK_ALL(D.indices() == rect<1>{range(0, 10)});
  }
}

TEST_CASE("bad input: domain queries and array assignment", "[bad_input][api]") {
  const int p = dmap::num_locales();
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10)});
  dmap::domain<1> E(dmap::cyclic<1>{}, rect<1>{range(0, 11)});
  dmap::array<double, 1> A(D, 1.0), B(E, 2.0);
  BAD_INPUT("domain::local_subdomains: locale -1", dmap::argument_error, D.local_subdomains(-1));
  BAD_INPUT("domain::local_layouts: locale num_locales()", dmap::argument_error, D.local_layouts(p));
  BAD_INPUT("domain::local_subdomain: this locale owns several rects", dmap::unsupported_error, [&] {
    std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
    for (int k = 0; k < p; ++k) lists[static_cast<std::size_t>(k)] = {3 * k, 3 * k + 2, 3 * k + 1};
    dmap::domain<1> U(dmap::dimensional<1>({dmap::unstructured_dim{lists}}), rect<1>{range(0, 3 * p)});
    return U.local_subdomain();
  }());
  {
    dmap::domain<1> H(dmap::hashed<1>{}, rect<1>{range(0, 10)});
    BAD_INPUT("domain::locales_of: a non-index among them (hashed)", dmap::out_of_bounds_error,
              H.locales_of({idx<1>{0}, idx<1>{10}}));
  }
  BAD_INPUT("array: A = B of another shape", dmap::shape_error, A = B);
  BAD_INPUT("array: A = a view of another shape", dmap::shape_error, A = B[rect<1>{range(0, 4)}]);
  BAD_INPUT("array_view: a view = an array of another shape", dmap::shape_error, A[rect<1>{range(0, 5)}] = B);
  BAD_INPUT("array_view: a view = a view of another shape", dmap::shape_error,
            A[rect<1>{range(0, 5)}] = B[rect<1>{range(0, 6)}]);
  BAD_INPUT("array: A = std::move(B) of another shape", dmap::shape_error, A = std::move(B));
  DMAP_CHECK_ALL(dmap::reduce(B, 0.0) == 22.0);  // B was only read
  {
    dmap::array<double, 1> C(D, 3.0), moved(std::move(C));
    BAD_INPUT("array: A = a moved-from array", dmap::argument_error, A = C);
    BAD_INPUT("array: a moved-from array = A (copy assignment)", dmap::argument_error, C = A);
    BAD_INPUT("array: A = std::move(a moved-from array)", dmap::argument_error, A = std::move(C));
    BAD_INPUT("array: a copy of a moved-from array", dmap::argument_error, dmap::array<double, 1>(C));
  }
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 10.0);
  // Zips of different shapes.
  BAD_INPUT("forall: zip of arrays of different shapes", dmap::shape_error,
            dmap::forall(dmap::zip(A, B), [](double& a, double b) { a = b; }));
  BAD_INPUT("reduce: zip of arrays of different shapes", dmap::shape_error,
            dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{}, [](double a, double b) { return a * b; }));
  BAD_INPUT("forall: zip of a domain and an array of another shape", dmap::shape_error,
            dmap::forall(dmap::zip(E, A), [](const idx<1>&, double& a) { a = 0; }));
  BAD_INPUT("forall: zip of an array and a view of another shape", dmap::shape_error,
            dmap::forall(dmap::zip(A, B[rect<1>{range(1, 10)}]), [](double& a, double b) { a = b; }));
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 10.0);
}

TEST_CASE("bad input: halo updates, copies and collectives", "[bad_input][api]") {
  const int p = dmap::num_locales();
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10)});
  dmap::array<double, 1> A(D, 1.0);
  dmap::array<double, 1> moved(D), taker(std::move(moved));
  BAD_INPUT("update_halos: a block array (no ghost cells)", dmap::argument_error, dmap::update_halos(A));
  BAD_INPUT("update_halos: a moved-from array", dmap::argument_error, dmap::update_halos(moved));
  {
    dmap::domain<1> H(dmap::hashed<1>{}, rect<1>{range(0, 10)});
    dmap::array<double, 1> X(H);
    BAD_INPUT("start_halo_update: a hashed array (a directory map, no ghost cells)", dmap::argument_error,
              dmap::start_halo_update(X).finish());
  }
  BAD_INPUT("update_copies: a block array (no directory)", dmap::argument_error, dmap::update_copies(A));
  BAD_INPUT("update_copies: a moved-from array", dmap::argument_error, dmap::update_copies(moved));
  {
    dmap::domain<1> R(dmap::replicated<1>{}, rect<1>{range(0, 10)});
    dmap::array<double, 1> X(R, static_cast<double>(dmap::here()));
    BAD_INPUT("replicate_from: root -1 (replicated)", dmap::argument_error, dmap::replicate_from(X, -1));
    DMAP_CHECK_ALL(dmap::reduce(X, 0.0) == 10.0 * dmap::here());  // copies untouched
  }
  {
    dmap::domain<2> L(dmap::dimensional<2>({dmap::block_dim{}, dmap::replicated_dim{}}), rect<2>{range(0, 6), range(0, 4)});
    dmap::array<double, 2> X(L);
    BAD_INPUT("replicate_from: root num_locales() (a replicated dimension)", dmap::argument_error,
              dmap::replicate_from(X, p));
  }
  BAD_INPUT("replicate_from: a block array (no copy layers)", dmap::argument_error, dmap::replicate_from(A, 0));
  BAD_INPUT("replicate_from: a moved-from array", dmap::argument_error, dmap::replicate_from(moved, 0));
  BAD_INPUT_DO("broadcast: root -1", dmap::argument_error, {
    int v = 7;
    dmap::broadcast(v, -1);
  });
  BAD_INPUT_DO("broadcast (string): root num_locales()", dmap::argument_error, {
    std::string s = "text";
    dmap::broadcast(s, p);
  });
  BAD_INPUT_DO("dmap::detail::broadcast_bytes: root INT_MIN", dmap::argument_error, {
    double v = 1.0;
    dmap::detail::broadcast_bytes(&v, sizeof v, INT_MIN);
  });
  BAD_INPUT("exchange: one buffer more than locales", dmap::argument_error,
            dmap::detail::exchange(dmap::detail::byte_buffers(static_cast<std::size_t>(p + 1))));
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 10.0);
}

TEST_CASE("bad input: neighbourhoods and views", "[bad_input][api]") {
  const int p = dmap::num_locales();
  dmap::domain<1> S(dmap::stencil<1>{idx<1>{1}}, rect<1>{range(0, 4 * p)});
  dmap::array<double, 1> A(S, 1.0), C(S);
  dmap::domain<2> S2(dmap::stencil<2>{idx<2>{1, 1}}, rect<2>{range(0, 2 * p), range(0, 2 * p)});
  dmap::array<double, 2> A2(S2);
  dmap::array<double, 1> moved(S), taker(std::move(moved));
  BAD_INPUT("neighbors: radius -1", dmap::argument_error, dmap::neighbors(A, -1));
  BAD_INPUT("neighbors: radius (1, -1) (2-D, per dimension)", dmap::argument_error, dmap::neighbors(A2, idx<2>{1, -1}));
  BAD_INPUT("neighbors: a moved-from array", dmap::argument_error, dmap::neighbors(moved, 1));
  BAD_INPUT("neighbors: a view with radius INT64_MIN", dmap::argument_error,
            dmap::neighbors(dmap::view_of(A), int64_min));
  BAD_INPUT("forall: neighbours within a radius wider than the ghost cells", dmap::unsupported_error,
            dmap::forall(dmap::zip(C, dmap::neighbors(A, 2)), [](double& c, const auto& n) { c = n(-2) + n(2); }));
  // Wider than any ghost cells (its reach leaves int64 even): refused like radius 2.
  BAD_INPUT("forall: neighbours within radius INT64_MAX", dmap::unsupported_error,
            dmap::forall(dmap::zip(C, dmap::neighbors(A, int64_max)), [](double& c, const auto& n) { c = n(0); }));
  {
    dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 4 * p)});
    dmap::array<double, 1> X(D, 1.0), Y(D);
    BAD_INPUT("forall: neighbours of a block array (no ghost cells)", dmap::unsupported_error,
              dmap::forall(dmap::zip(Y, dmap::neighbors(X, 1)), [](double& y, const auto& n) { y = n(-1); }));
  }
  // Views.
  BAD_INPUT("view: a moved-from array", dmap::argument_error, dmap::view(moved));
  BAD_INPUT("view: reading position size()", dmap::out_of_bounds_error, [&] {
    const auto v = dmap::view(A);
    return v.begin()[A.domain().size()];
  }());
  BAD_INPUT("reindex: new indices of another shape", dmap::shape_error, dmap::reindex(A, rect<1>{range(0, 4 * p + 1)}));
  BAD_INPUT("rank_change: fixing an index outside the dimension", dmap::out_of_bounds_error,
            dmap::rank_change(dmap::view_of(A2), index_t{2 * p}, dmap::all));
  {
    dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10)});
    dmap::array<double, 1> X(D, 1.0);
    const auto v = X[rect<1>{range(5, 10)}];
    D.set_indices(rect<1>{range(0, 6)});
    BAD_INPUT("array_view: used after its array's domain shrank below it", dmap::out_of_bounds_error,
              v.local_subdomains());
  }
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 4.0 * p);
}

// Moved-from arrays and domains in loops and constructors (these crashed before: a null
// domain state was dereferenced).
TEST_CASE("bad input: loops and arrays over moved-from arrays and domains", "[bad_input][api][moved_from]") {
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10)});
  dmap::array<double, 1> moved(D, 1.0), taker(std::move(moved));
  BAD_INPUT("reduce: a moved-from array", dmap::argument_error, dmap::reduce(moved, 0.0));
  BAD_INPUT("forall: a moved-from array", dmap::argument_error, dmap::forall(moved, [](double& x) { x = 0; }));
  BAD_INPUT("forall: zip with a moved-from array", dmap::argument_error,
            dmap::forall(dmap::zip(taker, moved), [](double& a, double b) { a = b; }));
  dmap::domain<1> gone(dmap::block<1>{}, rect<1>{range(0, 10)}), keeper(std::move(gone));
  BAD_INPUT("array: over a moved-from domain", dmap::argument_error, dmap::array<double, 1>(gone));
  BAD_INPUT("domain: set_indices of a moved-from domain", dmap::argument_error, gone.set_indices(rect<1>{range(0, 5)}));
}

// A neighbourhood radius whose reach leaves int64 while some locales own nothing of the
// loop (this hung before: the locales owning part of it threw before the collective that
// decides which operands to stage, the others entered it alone).
TEST_CASE("bad input: a neighbourhood radius past int64 while some locales own nothing", "[bad_input][api][neighbors]") {
  if (dmap::num_locales() < 3) return;  // every locale owns part of the 2 indices otherwise
  dmap::domain<1> S(dmap::stencil<1>{idx<1>{1}}, rect<1>{range(0, 2)});
  dmap::array<double, 1> A(S, 1.0), C(S);
  BAD_INPUT("forall: neighbours within radius INT64_MAX, some locales owning nothing", dmap::unsupported_error,
            dmap::forall(dmap::zip(C, dmap::neighbors(A, int64_max)), [](double& c, const auto& n) { c = n(0); }));
}

}  // namespace test_bad_api
