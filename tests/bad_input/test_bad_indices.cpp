// Bad inputs to index arithmetic and positions: ranges and rects whose bounds, spans or sizes
// leave int64 (strides 0 and INT64_MIN, counted ranges past the limits, transformations that
// overflow, orders outside a range or rect), target grids of impossible shapes and the
// lookups on them, distributions over a grid of another locale count, and positions and
// indices outside an array, a view or a domain on every kind of map (fetch runs, order
// lists, one-sided and local access, slices, rank changes, serial views, moved-from arrays).
// Non-collective calls throw locally on every locale; collective ones (making a domain,
// set_indices, with_indices) get the same bad input on every locale and fail on all.
#include "../maps_1d.hpp"
#include "support.hpp"

#include <array>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace test_bad_indices {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::target_grid;
using dmap::bad_input::int64_max;
using dmap::bad_input::int64_min;

namespace {

constexpr index_t two_pow_32 = index_t{1} << 32;

using dmap::testing::maps::all_maps;
using dmap::testing::maps::domain_of;
using dmap::testing::maps::map_kind;
using dmap::testing::maps::name_of;

/// The message `f` throws as an E ("" when it throws something else or nothing).
template <class E, class F>
std::string message_of(F&& f) {
  const auto [ok, what] = dmap::testing::throws_as<E>(std::forward<F>(f));
  return ok ? what : "";
}

}  // namespace

TEST_CASE("bad input: range strides, spans and bounds", "[bad_input][indices]") {
  BAD_INPUT("range: stride 0 (lo, hi, stride)", dmap::argument_error, range(0, 10, 0));
  BAD_INPUT("range: stride INT64_MIN (lo, hi, stride)", dmap::argument_error, range(0, 10, int64_min));
  BAD_INPUT("range: stride 0 with an alignment (lo, hi, stride, alignment)", dmap::argument_error, range(0, 10, 0, 3));
  BAD_INPUT("range: stride INT64_MIN with an alignment, empty bounds", dmap::argument_error, range(5, 5, int64_min, 0));
  BAD_INPUT("range: [INT64_MIN, INT64_MAX) spans 2^64 - 1 integers", dmap::argument_error, range(int64_min, int64_max));
  BAD_INPUT("range: [-1, INT64_MAX) spans exactly 2^63 integers", dmap::argument_error, range(index_t{-1}, int64_max));
  BAD_INPUT("range: [INT64_MIN, 0) by 2 spans 2^63 integers (strided constructor)", dmap::argument_error,
            range(int64_min, index_t{0}, index_t{2}));
  BAD_INPUT("range: [INT64_MIN, 1) by -1 align 0 spans past 2^63 - 1 (aligned constructor)", dmap::argument_error,
            range(int64_min, index_t{1}, index_t{-1}, index_t{0}));
  BAD_INPUT("range: an unsigned upper bound 2^63 that does not fit int64", dmap::argument_error,
            range(0, std::uint64_t{1} << 63));
  BAD_INPUT("range: an unsigned stride UINT64_MAX that does not fit int64", dmap::argument_error,
            range(0, 10, ~std::uint64_t{0}));

  // The messages name the rule.
  CHECK_THAT(message_of<dmap::argument_error>([] { (void)range(0, 10, 0); }), Catch::Contains("stride") &&
                                                                               Catch::Contains("nonzero"));
  CHECK_THAT(message_of<dmap::argument_error>([] { (void)range(0, 10, int64_min); }),
             Catch::Contains("INT64_MIN") && Catch::Contains("stride"));
  CHECK_THAT(message_of<dmap::argument_error>([] { (void)range(int64_min, int64_max); }),
             Catch::Contains("2^63 - 1") && Catch::Contains("dmap::range"));
}

TEST_CASE("bad input: counted ranges", "[bad_input][indices]") {
  BAD_INPUT("range::counted: count -1", dmap::argument_error, range::counted(0, -1));
  BAD_INPUT("range::counted: count INT64_MIN", dmap::argument_error, range::counted(5, int64_min, 2));
  BAD_INPUT("range::counted: last index first + count - 1 past INT64_MAX", dmap::argument_error,
            range::counted(int64_max - 5, 10));
  BAD_INPUT("range::counted: last index exactly INT64_MAX (no exclusive bound)", dmap::argument_error,
            range::counted(int64_max, 1));
  BAD_INPUT("range::counted: (count - 1) * stride overflows (stride INT64_MAX, count 3)", dmap::argument_error,
            range::counted(0, 3, int64_max));
  BAD_INPUT("range::counted: a negative stride stepping below INT64_MIN", dmap::argument_error,
            range::counted(int64_min, 2, -1));
  BAD_INPUT("range::counted: stride 0", dmap::argument_error, range::counted(0, 2, 0));
  BAD_INPUT("range::counted: span of first and last index past 2^63 - 1", dmap::argument_error,
            range::counted(int64_min, 2, int64_max));

  CHECK_THAT(message_of<dmap::argument_error>([] { (void)range::counted(0, -1); }),
             Catch::Contains("count") && Catch::Contains(">= 0"));
  CHECK_THAT(message_of<dmap::argument_error>([] { (void)range::counted(int64_max, 1); }),
             Catch::Contains("INT64_MAX - 1"));
}

TEST_CASE("bad input: range transformations and orders", "[bad_input][indices]") {
  const range r(0, 10);
  BAD_INPUT("range::translated: upper bound past INT64_MAX", dmap::argument_error, r.translated(int64_max));
  BAD_INPUT("range::translated: lower bound below INT64_MIN", dmap::argument_error,
            range(-10, 0).translated(int64_min));
  BAD_INPUT("range::translated: a strided range moved past INT64_MAX", dmap::argument_error,
            range(0, 100, 7).translated(int64_max - 50));
  BAD_INPUT("range::expanded: upper bound past INT64_MAX", dmap::argument_error, r.expanded(int64_max));
  BAD_INPUT("range::expanded: by INT64_MIN (lo - INT64_MIN overflows)", dmap::argument_error, r.expanded(int64_min));
  BAD_INPUT("range::expanded: both bounds fit but the span passes 2^63 - 1", dmap::argument_error,
            range(0, 2).expanded((index_t{1} << 62) + 1));
  BAD_INPUT("range::exterior: width INT64_MAX past the upper bound", dmap::argument_error, r.exterior(int64_max));
  BAD_INPUT("range::exterior: width INT64_MIN spans 2^63 integers", dmap::argument_error, r.exterior(int64_min));
  BAD_INPUT("range::exterior: a negative width below INT64_MIN", dmap::argument_error,
            range(int64_min + 2, 0).exterior(-5));
  BAD_INPUT("range::index_at: order -1", dmap::out_of_bounds_error, r.index_at(-1));
  BAD_INPUT("range::index_at: order size() (strided, descending)", dmap::out_of_bounds_error,
            range(0, 10, -3).index_at(4));
  BAD_INPUT("range::index_at: order 0 of an empty range", dmap::out_of_bounds_error, range(3, 3).index_at(0));
  BAD_INPUT("range::index_at: order INT64_MAX (no overflowing product)", dmap::out_of_bounds_error,
            range(0, 10, 2).index_at(int64_max));
  BAD_INPUT("undensify (range, order): order size()", dmap::out_of_bounds_error, dmap::undensify(r, index_t{10}));
  BAD_INPUT("undensify (range, range): dense orders reaching past size()", dmap::out_of_bounds_error,
            dmap::undensify(r, range(5, 11)));
  BAD_INPUT("undensify (range, range): a dense order -1", dmap::out_of_bounds_error,
            dmap::undensify(range(0, 20, 2), range(-1, 3)));
  BAD_INPUT("densify (range, range): a sub-range not inside the whole", dmap::argument_error,
            dmap::densify(r, range(5, 15)));
  BAD_INPUT("densify (range, range): a sub-range off the whole's stride", dmap::argument_error,
            dmap::densify(range(0, 20, 2), range(1, 5)));

  CHECK_THAT(message_of<dmap::argument_error>([&] { (void)r.translated(int64_max); }),
             Catch::Contains("translated") && Catch::Contains("int64"));
  CHECK_THAT(message_of<dmap::out_of_bounds_error>([&] { (void)r.index_at(-1); }),
             Catch::Contains("index_at") && Catch::Contains("[0, 10)"));
}

TEST_CASE("bad input: rect sizes, transformations and orders", "[bad_input][indices]") {
  BAD_INPUT("rect: {0..<2^32, 0..<2^32} has 2^64 indices", dmap::argument_error,
            rect<2>{range(0, two_pow_32), range(0, two_pow_32)});
  BAD_INPUT("rect: an empty dimension does not hide {0..<2^62, 0..<2^62}", dmap::argument_error,
            rect<3>{range(0, 0), range(0, index_t{1} << 62), range(0, index_t{1} << 62)});
  BAD_INPUT("rect: from std::array, 2^21 x 2^21 x 2^21 indices", dmap::argument_error,
            rect<3>(std::array<range, 3>{range(0, 1 << 21), range(0, 1 << 21), range(0, 1 << 21)}));
  {
    rect<2> r{range(0, two_pow_32), range(0, 1)};
    const rect<2> before = r;
    BAD_INPUT("rect::set_dim: a second dimension of 2^32 indices", dmap::argument_error,
              r.set_dim(1, range(0, two_pow_32)));
    CHECK(r == before);  // unchanged
  }
  const rect<2> r{range(0, 10), range(0, 20)};
  BAD_INPUT("rect::translated: dimension 1 past INT64_MAX", dmap::argument_error, r.translated(idx<2>{0, int64_max}));
  BAD_INPUT("rect::translated: dimension 0 below INT64_MIN", dmap::argument_error,
            rect<2>(range(-10, 0), range(0, 20)).translated(idx<2>{int64_min, 0}));
  BAD_INPUT("rect::expanded (scalar): bounds past INT64_MAX", dmap::argument_error, r.expanded(int64_max));
  BAD_INPUT("rect::expanded: every bound fits but the size passes 2^63 - 1", dmap::argument_error,
            rect<2>{range(0, index_t{1} << 31), range(0, index_t{1} << 31)}.expanded(idx<2>{index_t{1} << 31, index_t{1} << 31}));
  BAD_INPUT("rect::exterior: dimension 1 past INT64_MAX", dmap::argument_error, r.exterior(idx<2>{0, int64_max}));
  BAD_INPUT("rect::exterior: the size passes 2^63 - 1", dmap::argument_error,
            rect<2>{range(0, index_t{1} << 40), range(0, 10)}.exterior(idx<2>{0, index_t{1} << 40}));
  BAD_INPUT("rect::index_at: order -1", dmap::out_of_bounds_error, r.index_at(-1));
  BAD_INPUT("rect::index_at: order size()", dmap::out_of_bounds_error, r.index_at(200));
  BAD_INPUT("rect::index_at: order 0 of an empty rect", dmap::out_of_bounds_error,
            rect<2>{range(0, 5), range(3, 3)}.index_at(0));
  BAD_INPUT("undensify (rect): dense orders outside dimension 1", dmap::out_of_bounds_error,
            dmap::undensify(r, dmap::dense_rect<2>(rect<2>{range(0, 2), range(15, 25)})));
  BAD_INPUT("densify (rect): a sub-rect outside dimension 0", dmap::argument_error,
            dmap::densify(r, rect<2>{range(-1, 3), range(0, 2)}));

  CHECK_THAT(message_of<dmap::argument_error>([] { (void)rect<2>{range(0, two_pow_32), range(0, two_pow_32)}; }),
             Catch::Contains("4294967296 x 4294967296") && Catch::Contains("2^63 - 1"));
  CHECK_THAT(message_of<dmap::argument_error>([] {
               rect<2> x{range(0, two_pow_32), range(0, 1)};
               x.set_dim(1, range(0, two_pow_32));
             }),
             Catch::Contains("set_dim"));
}

TEST_CASE("bad input: target grids", "[bad_input][indices]") {
  const int p = dmap::num_locales();
  BAD_INPUT("target_grid: extent 0", dmap::argument_error, target_grid<1>({0}, 1));
  BAD_INPUT("target_grid: a negative extent in dimension 1", dmap::argument_error, target_grid<2>({1, -2}, 2));
  BAD_INPUT("target_grid: extents multiply to 2, not the 3 locales asked", dmap::argument_error,
            target_grid<2>({2, 1}, 3));
  BAD_INPUT("target_grid: extents 65536 x 65536 overflow int", dmap::argument_error,
            target_grid<2>({65536, 65536}, 1));
  BAD_INPUT("target_grid: INT_MAX x INT_MAX x 2 (a product past int64 too)", dmap::argument_error,
            target_grid<3>({2147483647, 2147483647, 2}, 2));
  BAD_INPUT("target_grid: locales 0", dmap::argument_error, target_grid<1>({1}, 0));
  BAD_INPUT("target_grid: one more locale than the program has (shape only)", dmap::argument_error,
            target_grid<1>(std::array<int, 1>{p + 1}));
  BAD_INPUT("target_grid::balanced: locales -1", dmap::argument_error, target_grid<2>::balanced(-1));
  const target_grid<2> g({2, 3}, 6);
  BAD_INPUT("target_grid::extent: dimension N", dmap::argument_error, g.extent(2));
  BAD_INPUT("target_grid::locale_at: coordinate -1", dmap::argument_error, g.locale_at({-1, 0}));
  BAD_INPUT("target_grid::locale_at: coordinate 1 equal to its extent", dmap::argument_error, g.locale_at({0, 3}));
  BAD_INPUT("target_grid::coords_of: locale -1", dmap::argument_error, g.coords_of(-1));
  BAD_INPUT("target_grid::coords_of: locale size()", dmap::argument_error, g.coords_of(6));

  CHECK_THAT(message_of<dmap::argument_error>([] { (void)target_grid<2>({65536, 65536}, 1); }),
             Catch::Contains("2^31 - 1") && Catch::Contains("exactly 1"));
  CHECK_THAT(message_of<dmap::argument_error>([&] { (void)g.locale_at({0, 3}); }),
             Catch::Contains("coordinate 1") && Catch::Contains("[0, 3)"));

  // Distributions over a grid made for another locale count cannot place a domain
  // (collective: every locale passes the same grid and fails).
  const target_grid<1> other({p + 1}, p + 1);
  const rect<1> r{range(0, 10 * (p + 1))};
  BAD_INPUT("block: a domain over a grid of num_locales() + 1 locales", dmap::argument_error,
            dmap::domain<1>(dmap::block<1>{other}, r));
  BAD_INPUT("cyclic: a domain over a grid of num_locales() + 1 locales", dmap::argument_error,
            dmap::domain<1>(dmap::cyclic<1>{std::nullopt, other}, r));
  BAD_INPUT("block_cyclic: a domain over a grid of num_locales() + 1 locales", dmap::argument_error,
            dmap::domain<1>(dmap::block_cyclic<1>{idx<1>{2}, idx<1>{0}, other}, r));
  BAD_INPUT("stencil: a domain over a grid of num_locales() + 1 locales", dmap::argument_error,
            dmap::domain<1>(dmap::stencil<1>{idx<1>{1}, {}, other}, r));
  BAD_INPUT("block (2-D): a domain over a 2 x P grid", dmap::argument_error,
            dmap::domain<2>(dmap::block<2>{target_grid<2>({2, p}, 2 * p)}, rect<2>{range(0, 8), range(0, 8)}));
}

TEST_CASE("bad input: array positions and indices on every map", "[bad_input][indices]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(-5, 18)};  // 23 indices: uneven on 2, 3 and 4 locales
  const index_t n = r.size();
  for (const map_kind k : all_maps) {
    const std::string map = std::string(" (") + name_of(k) + ")";
    dmap::domain<1> D = domain_of(k, r);
    dmap::array<std::int64_t, 1> A(D);
    dmap::forall(D, [&](const idx<1>& i) { A.local(i) = i[0]; });
    std::vector<std::int64_t> out(static_cast<std::size_t>(n) + 2);
    std::int64_t* o = out.data();

    BAD_INPUT("array::fetch: count -1" + map, dmap::argument_error, A.fetch(0, -1, o));
    BAD_INPUT("array::fetch: first -1" + map, dmap::out_of_bounds_error, A.fetch(-1, 1, o));
    BAD_INPUT("array::fetch: first size() + 1, count 0" + map, dmap::out_of_bounds_error, A.fetch(n + 1, 0, o));
    BAD_INPUT("array::fetch: first + count one past the end" + map, dmap::out_of_bounds_error, A.fetch(n - 1, 2, o));
    BAD_INPUT("array::fetch: first INT64_MAX" + map, dmap::out_of_bounds_error, A.fetch(int64_max, 1, o));
    BAD_INPUT("array::fetch: count INT64_MAX (first + count overflows)" + map, dmap::out_of_bounds_error,
              A.fetch(1, int64_max, o));
    BAD_INPUT("array::fetch (orders): an order -1" + map, dmap::out_of_bounds_error,
              A.fetch(std::vector<index_t>{0, 3, -1}, o));
    BAD_INPUT("array::fetch (orders): an order size()" + map, dmap::out_of_bounds_error,
              A.fetch(std::vector<index_t>{n, 0}, o));
    // Far beyond any ghost cell a Stencil locale keeps (those are boundary cells, readable).
    BAD_INPUT("array::operator[]: an index far above the domain" + map, dmap::out_of_bounds_error,
              static_cast<std::int64_t>(A[idx<1>{r.high()[0] + 1000}]));
    BAD_INPUT("array::local: an index far below the domain" + map, dmap::not_local_error,
              A.local(idx<1>{r.low()[0] - 1000}));
    BAD_INPUT("array::operator[] (rect): a slice reaching one past the end" + map, dmap::out_of_bounds_error,
              A[rect<1>{range(0, r.high()[0] + 1)}]);
    BAD_INPUT("view (array): reading position -1" + map, dmap::out_of_bounds_error, [&] {
      const auto v = dmap::view(A);
      return v.begin()[-1];
    }());
    // The array is intact.
    DMAP_CHECK_ALL(dmap::reduce(A, std::int64_t{0}) == (-5 + 17) * 23 / 2);
    if (k == map_kind::block) {
      CHECK_THAT(message_of<dmap::out_of_bounds_error>([&] { A.fetch(n - 1, 2, o); }),
                 Catch::Contains("dmap::array::fetch") && Catch::Contains("[0, 23)"));
      CHECK_THAT(message_of<dmap::argument_error>([&] { A.fetch(0, -1, o); }), Catch::Contains("count is -1"));
    }
  }
  (void)p;
}

TEST_CASE("bad input: strided domains, 2-D arrays, views and rank changes", "[bad_input][indices]") {
  const int p = dmap::num_locales();
  // A strided domain: indices between the strided ones are not in it.
  dmap::domain<1> S(dmap::block<1>{}, rect<1>{range(0, 8 * p, 2)});
  dmap::array<double, 1> A(S, 1.0);
  BAD_INPUT("array::operator[]: an index between two strided indices", dmap::out_of_bounds_error,
            static_cast<double>(A[idx<1>{3}]));
  BAD_INPUT("array::local: an index between two strided indices", dmap::not_local_error, A.local(idx<1>{1}));
  BAD_INPUT("array::operator[] (rect): a slice off the domain's stride", dmap::out_of_bounds_error,
            A[rect<1>{range(1, 7, 2)}]);
  BAD_INPUT("domain::locale_of: an index between two strided indices", dmap::out_of_bounds_error,
            S.locale_of(idx<1>{5}));
  BAD_INPUT("domain::locales_of: one index past the end among them", dmap::out_of_bounds_error,
            S.locales_of({idx<1>{0}, idx<1>{8 * p}}));

  // 2-D.
  dmap::domain<2> D2(dmap::block<2>{}, rect<2>{range(0, 3 * p), range(0, 5)});
  dmap::array<double, 2> B(D2, 2.0);
  const index_t n2 = D2.size();
  std::vector<double> out(static_cast<std::size_t>(n2) + 2);
  BAD_INPUT("array::fetch (2-D): first + count one past the end", dmap::out_of_bounds_error,
            B.fetch(1, n2, out.data()));
  BAD_INPUT("array::operator[] (2-D): column 5 of 5", dmap::out_of_bounds_error, static_cast<double>(B[idx<2>{0, 5}]));
  BAD_INPUT("array::operator[] (2-D rect): a slice reaching past dimension 1", dmap::out_of_bounds_error,
            B[rect<2>{range(0, 1), range(2, 6)}]);
  BAD_INPUT("rank_change: fixing dimension 1 at an index outside it", dmap::out_of_bounds_error,
            dmap::rank_change(B, dmap::all, index_t{-1}));
  BAD_INPUT("rank_change: fixing a dimension at the unsigned 2^63 (not an int64)", dmap::argument_error,
            dmap::rank_change(B, std::uint64_t{1} << 63, dmap::all));
  BAD_INPUT("rank_change: keeping a range reaching outside the dimension", dmap::out_of_bounds_error,
            dmap::rank_change(B, index_t{0}, range(-2, 3)));
  BAD_INPUT("view (domain): reading position -1", dmap::out_of_bounds_error, [&] {
    const auto v = dmap::view(D2);
    return v.begin()[-1];
  }());
  BAD_INPUT("view (domain): reading position size()", dmap::out_of_bounds_error, [&] {
    const auto v = dmap::view(D2);
    return v.begin()[n2];
  }());

  // Views of part of an array.
  const auto v = B[rect<2>{range(1, 3), range(1, 4)}];  // 2 x 3
  BAD_INPUT("array_view::fetch: count -1", dmap::argument_error, v.fetch(0, -1, out.data()));
  BAD_INPUT("array_view::fetch: first + count one past the view's end", dmap::out_of_bounds_error,
            v.fetch(2, 5, out.data()));
  BAD_INPUT("array_view::fetch: first INT64_MAX", dmap::out_of_bounds_error, v.fetch(int64_max, 1, out.data()));
  BAD_INPUT("array_view::operator[]: an index of the array outside the view", dmap::out_of_bounds_error,
            static_cast<double>(v[idx<2>{0, 0}]));
  BAD_INPUT("array_view::locale_of: an index outside the view", dmap::out_of_bounds_error, v.locale_of(idx<2>{3, 1}));
  BAD_INPUT("array_view::operator[] (rect): a slice inside the array but outside the view", dmap::out_of_bounds_error,
            v[rect<2>{range(0, 2), range(1, 4)}]);
  BAD_INPUT("view (array_view): reading position size()", dmap::out_of_bounds_error, [&] {
    const auto w = dmap::view(v);
    return w.begin()[v.size()];
  }());
  BAD_INPUT("rank_change (of a view): fixing an index of the array outside the view", dmap::out_of_bounds_error,
            dmap::rank_change(v, index_t{0}, dmap::all));
  {
    const auto row = dmap::rank_change(B, index_t{1}, dmap::all);  // 1-D, 5 elements
    BAD_INPUT("array_view (rank-changed)::fetch: first 5 of 5, count 1", dmap::out_of_bounds_error,
              row.fetch(5, 1, out.data()));
  }
  DMAP_CHECK_ALL(dmap::reduce(B, 0.0) == 2.0 * static_cast<double>(n2));
}

TEST_CASE("bad input: set_indices and with_indices past the int64 limits", "[bad_input][indices]") {
  const int p = dmap::num_locales();
  // A periodic Stencil dimension must keep one period plus the ghost width inside int64.
  dmap::domain<1> D(dmap::stencil<1>{idx<1>{1}, {true}}, rect<1>{range(0, 4 * p)});
  dmap::array<double, 1> A(D, 1.0);
  BAD_INPUT("domain::set_indices: a periodic stencil dimension ending at INT64_MAX - 1", dmap::argument_error,
            D.set_indices(rect<1>{range(int64_max - 1 - 4 * p, int64_max - 1)}));
  BAD_INPUT("domain::with_indices: a periodic stencil dimension starting at INT64_MIN", dmap::argument_error,
            D.with_indices(rect<1>{range(int64_min, int64_min + 4 * p)}));
  BAD_INPUT("domain::set_indices: a rect expanded past INT64_MAX (refused before the call)", dmap::argument_error,
            D.set_indices(D.indices().expanded(int64_max)));
  // Nothing changed.
  DMAP_CHECK_ALL(D.indices() == rect<1>{range(0, 4 * p)});
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 4.0 * p);
}

TEST_CASE("bad input: fetching from a moved-from array", "[bad_input][indices]") {
  dmap::domain<1> D(dmap::cyclic<1>{}, rect<1>{range(0, 10)});
  dmap::array<double, 1> moved(D, 1.0), taker(std::move(moved));
  double x = 0;
  BAD_INPUT("array::fetch: a moved-from array", dmap::argument_error, moved.fetch(0, 1, &x));
  BAD_INPUT("array::fetch (orders): a moved-from array", dmap::argument_error,
            moved.fetch(std::vector<index_t>{0}, &x));
  BAD_INPUT("array::fetch: a moved-from array, count 0", dmap::argument_error, moved.fetch(0, 0, &x));
  CHECK_THAT(message_of<dmap::argument_error>([&] { moved.fetch(0, 1, &x); }), Catch::Contains("moved from"));
}

// Indexing, slicing and printing a moved-from array (these crashed before: a null domain
// state was dereferenced).
TEST_CASE("bad input: indexing, slicing and printing a moved-from array", "[bad_input][indices][moved_from]") {
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 10)});
  dmap::array<double, 1> moved(D, 1.0), taker(std::move(moved));
  BAD_INPUT("array::operator[]: an index of a moved-from array", dmap::argument_error,
            static_cast<double>(moved[idx<1>{0}]));
  BAD_INPUT("array::local: an index of a moved-from array", dmap::argument_error, moved.local(idx<1>{0}));
  BAD_INPUT("array::operator[] (rect): a slice of a moved-from array", dmap::argument_error,
            moved[rect<1>{range(0, 2)}]);
  BAD_INPUT("view_of: a moved-from array", dmap::argument_error, dmap::view_of(moved));
  BAD_INPUT("rank_change: a moved-from array", dmap::argument_error, dmap::rank_change(moved, dmap::all));
  BAD_INPUT("array::gather: a moved-from array", dmap::argument_error, moved.gather());
  BAD_INPUT_DO("array operator<<: a moved-from array", dmap::argument_error, {
    std::ostringstream s;
    s << moved;
  });
}

}  // namespace test_bad_indices
