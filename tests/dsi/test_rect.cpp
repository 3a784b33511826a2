// dmap::idx<N>, dmap::rect<N> and rect densify/undensify against an independent oracle.
//
// The oracle of a rect is the row-major list of its indices, built by nested loops (an
// odometer, last dimension fastest) over each dimension's sequence, and each dimension's
// sequence is found by scanning every integer of [lo, hi) for (i - a) mod |s| == 0, as in
// dsi/test_range.cpp; nothing of the code under test is used to build it. A result rect is read
// back through its dims' accessors (lo, hi, stride, alignment).
//
// ORACLE_CHECK counts the exhaustive comparisons and hands only failures to Catch.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../../dsi/index.hpp"
#include "../../dsi/rect.hpp"
#include "../oracle.hpp"

namespace test_rect {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

// ------------------------------------------------------------------------------- oracle

using namespace dmap::testing::oracle;  // tests/oracle.hpp

bool has(const seq& s, index_t i) { return std::find(s.begin(), s.end(), i) != s.end(); }

/// Dimensions to build rects from: unit, strided, descending, aligned, single, empty.
/// Entries 8 and 9 share first index and size with, or first and last index with, entry 1.
constexpr std::array<dim_spec, 10> menu{{
    {0, 4, 1, 0},    // 0 1 2 3
    {-2, 5, 2, 0},   // -2 0 2 4
    {-3, 4, -2, 1},  // 3 1 -1 -3
    {1, 8, 3, 2},    // 2 5
    {2, 3, -5, 2},   // 2
    {-4, 3, -3, 0},  // 0 -3
    {0, 0, 1, 0},    // (empty)
    {5, 2, 2, 1},    // (empty: hi < lo)
    {-2, 2, 1, 0},   // -2 -1 0 1
    {-2, 5, 1, 0},   // -2 -1 0 1 2 3 4
}};

/// A rect given per dimension by the oracle and by the code under test.
template <std::size_t N>
struct rect_sample {
  std::array<dim_spec, N> spec;
  rect<N> r;
  std::array<seq, N> dims;
  std::vector<idx<N>> points;  // row-major
  std::vector<idx<N>> sorted;  // for membership
};

template <std::size_t N>
rect_sample<N> make_sample(const std::array<dim_spec, N>& spec) {
  rect_sample<N> x;
  x.spec = spec;
  std::array<range, N> ranges;
  for (std::size_t d = 0; d < N; ++d) {
    ranges[d] = spec[d].make();
    x.dims[d] = spec[d].indices();
  }
  x.r = rect<N>(ranges);
  x.points = product(x.dims);
  x.sorted = x.points;
  std::sort(x.sorted.begin(), x.sorted.end());
  return x;
}

/// Every rect whose dimensions are drawn from `choices` (indices into menu).
template <std::size_t N>
std::vector<rect_sample<N>> all_rects(const std::vector<std::size_t>& choices) {
  std::vector<rect_sample<N>> out;
  std::array<std::size_t, N> c{};
  do {
    std::array<dim_spec, N> spec;
    for (std::size_t d = 0; d < N; ++d) spec[d] = menu[choices[c[d]]];
    out.push_back(make_sample(spec));
  } while (next_row_major(c, [&](std::size_t) { return choices.size(); }));
  return out;
}
const std::vector<std::size_t> every_dim{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

template <std::size_t N>
bool member(const rect_sample<N>& x, const idx<N>& p) {
  return std::binary_search(x.sorted.begin(), x.sorted.end(), p);
}

/// A list of indices for failure messages.
template <std::size_t N>
std::string show(const std::vector<idx<N>>& v) {
  std::ostringstream os;
  os << '[';
  for (std::size_t k = 0; k < v.size(); ++k) os << (k ? " " : "") << v[k];
  os << ']';
  return os.str();
}

}  // namespace

// ------------------------------------------------------------------------------- idx

TEST_CASE("idx: arithmetic, comparison, printing, structured bindings", "[serial][rect]") {
  const idx<2> a{3, -4}, b{1, 2};
  CHECK(a + b == idx<2>{4, -2});
  CHECK(a - b == idx<2>{2, -6});
  CHECK(a + b - b == a);
  CHECK(a != b);
  CHECK(b < a);
  CHECK(a[0] == 3);
  CHECK(a[1] == -4);
  CHECK(text(a) == "(3, -4)");
  CHECK(text(idx<1>{7}) == "(7)");
  CHECK(text(idx<3>{1, 0, -2}) == "(1, 0, -2)");

  auto [i, j] = idx<2>{5, 6};
  CHECK(i == 5);
  CHECK(j == 6);
  idx<3> c{1, 2, 3};
  auto& [x, y, z] = c;
  z = 7;
  x += y;
  CHECK(c == idx<3>{3, 2, 7});
  const auto [p, q] = a + b;
  CHECK(p == 4);
  CHECK(q == -2);

  static_assert(std::tuple_size_v<idx<3>> == 3);
  static_assert(std::is_same_v<std::tuple_element_t<1, idx<2>>, index_t>);
  constexpr idx<2> sum = idx<2>{1, 2} + idx<2>{3, 4};
  static_assert(sum[0] == 4 && sum[1] == 6);
  constexpr idx<2> diff = idx<2>{1, 2} - idx<2>{3, 5};
  static_assert(diff[0] == -2 && diff[1] == -3);
}

// ------------------------------------------------------------------------------- rect

TEST_CASE("rect: construction, accessors, printing", "[serial][rect]") {
  const rect<2> r{{0, 4}, {0, 6, 2}};
  static_assert(rect<2>::rank == 2);
  CHECK(r.dim(0) == range(0, 4));
  CHECK(r.dim(1) == range(0, 6, 2));
  CHECK(r.dims()[1].stride() == 2);
  CHECK(r.shape() == std::array<index_t, 2>{4, 3});
  CHECK(r.size() == 12);
  CHECK_FALSE(r.empty());
  CHECK(r.low() == idx<2>{0, 0});
  CHECK(r.high() == idx<2>{4, 6});
  CHECK(r.stride() == idx<2>{1, 2});
  CHECK(r.first() == idx<2>{0, 0});
  CHECK(r.last() == idx<2>{3, 4});
  CHECK(text(r) == "{0..<4, 0..<6 by 2}");

  const rect<1> one{range{-2, 3}};
  CHECK(one.size() == 5);
  CHECK(text(one) == "{-2..<3}");
  const rect<3> three{{0, 2}, {0, 10, -3}, {1, 8, 3, 0}};
  CHECK(text(three) == "{0..<2, 0..<10 by -3, 1..<8 by 3 align 0}");
  CHECK(three.first() == idx<3>{0, 9, 3});
  CHECK(three.last() == idx<3>{1, 0, 6});

  const rect<2> e;
  CHECK(e.empty());
  CHECK(e.size() == 0);
  CHECK(text(e) == "{0..<0, 0..<0}");

  rect<2> m = r;
  m.set_dim(1, range{5, 9});
  CHECK(m.dim(1) == range(5, 9));
  CHECK(m.dim(0) == r.dim(0));
  CHECK(m.size() == 16);
}

namespace {

template <std::size_t N>
void check_indexing(tally& t, index_t box_lo, index_t box_hi) {
  for (const auto& x : all_rects<N>(every_dim)) {
    const rect<N>& r = x.r;
    const auto n = static_cast<index_t>(x.points.size());
    ORACLE_CHECK(t, r.size() == n, r << " size " << r.size() << ", oracle " << n);
    ORACLE_CHECK(t, r.empty() == (n == 0), r);
    for (std::size_t d = 0; d < N; ++d) {
      ORACLE_CHECK(t, r.shape()[d] == static_cast<index_t>(x.dims[d].size()),
                   r << " shape dim " << d);
      ORACLE_CHECK(t,
                   r.low()[d] == x.spec[d].lo && r.high()[d] == x.spec[d].hi &&
                       r.stride()[d] == x.spec[d].stride,
                   r << " bounds dim " << d);
    }
    if (n > 0) {
      ORACLE_CHECK(t, r.first() == x.points.front(), r << " first " << r.first());
      ORACLE_CHECK(t, r.last() == x.points.back(), r << " last " << r.last());
    }
    ORACLE_CHECK(t, points_of(r) == x.points, r);
    for (index_t k = 0; k < n; ++k) {
      const idx<N>& p = x.points[static_cast<std::size_t>(k)];
      ORACLE_CHECK(t, r.index_at(k) == p,
                   r << " index_at(" << k << ") = " << r.index_at(k) << ", oracle " << p);
      ORACLE_CHECK(t, r.order_of(p) == k,
                   r << " order_of" << p << " = " << r.order_of(p) << ", oracle " << k);
    }
    for (const index_t k : {index_t{-1}, n}) {
      bool threw = false;
      try {
        (void)r.index_at(k);
      } catch (const dmap::out_of_bounds_error&) {
        threw = true;
      }
      ORACLE_CHECK(t, threw, r << " index_at(" << k << ") did not throw out_of_bounds_error");
    }
    // contains and order_of over a box around every dimension.
    std::array<index_t, N> k{};  // p[d] = box_lo + k[d]
    do {
      idx<N> p{};
      for (std::size_t d = 0; d < N; ++d) p[d] = box_lo + k[d];
      const bool in = member(x, p);
      ORACLE_CHECK(t, r.contains(p) == in, r << " contains" << p);
      ORACLE_CHECK(t, in || r.order_of(p) == -1, r << " order_of" << p << " = " << r.order_of(p));
    } while (next_row_major(k, [&](std::size_t) { return box_hi - box_lo + 1; }));
  }
}

}  // namespace

TEST_CASE("rect<N>: shape, size, first/last, contains, order_of, index_at", "[serial][rect]") {
  tally t;
  check_indexing<1>(t, -6, 9);
  check_indexing<2>(t, -5, 8);
  check_indexing<3>(t, -4, 5);
  ORACLE_DONE(t);
}

namespace {

/// The per-dimension oracle of intersect (slicing = false) or of slicing `a[b]`.
template <std::size_t N>
std::vector<idx<N>> expected_meet(const rect_sample<N>& a, const rect_sample<N>& b, bool slicing) {
  std::array<seq, N> dims;
  for (std::size_t d = 0; d < N; ++d) {
    for (const index_t i : a.dims[d])
      if (has(b.dims[d], i)) dims[d].push_back(i);  // in a's order
    if (slicing && b.spec[d].stride < 0) std::reverse(dims[d].begin(), dims[d].end());
  }
  return product(dims);
}

template <std::size_t N>
void check_pairs(tally& t, const std::vector<std::size_t>& choices) {
  const auto all = all_rects<N>(choices);
  for (const auto& a : all)
    for (const auto& b : all) {
      bool subset = true;
      for (const auto& p : b.points) subset = subset && member(a, p);
      ORACLE_CHECK(t, a.r.contains(b.r) == subset, a.r << ".contains(" << b.r << ")");
      ORACLE_CHECK(t, (a.r == b.r) == (a.points == b.points), a.r << " == " << b.r);

      const auto meet = expected_meet(a, b, false);
      const rect<N> m = a.r.intersect(b.r);
      ORACLE_CHECK(t, points_of(m) == meet,
                   a.r << ".intersect(" << b.r << ") = " << m << ", oracle " << show(meet));
      // The product of per-dimension meets is the set intersection.
      std::vector<idx<N>> common;
      for (const auto& p : a.points)
        if (member(b, p)) common.push_back(p);
      std::sort(common.begin(), common.end());
      auto sorted_meet = meet;
      std::sort(sorted_meet.begin(), sorted_meet.end());
      ORACLE_CHECK(t, sorted_meet == common, a.r << " with " << b.r);

      const rect<N> s = a.r[b.r];
      const auto sliced = expected_meet(a, b, true);
      ORACLE_CHECK(t, points_of(s) == sliced,
                   a.r << "[" << b.r << "] = " << s << ", oracle " << show(sliced));
    }
}

}  // namespace

TEST_CASE("rect<N>: contains(rect), intersect, slicing, operator==", "[serial][rect]") {
  tally t;
  check_pairs<1>(t, every_dim);
  check_pairs<2>(t, every_dim);
  check_pairs<3>(t, {1, 2, 4, 6, 8, 9});
  ORACLE_DONE(t);

  const rect<2> a{{0, 10}, {0, 10}};
  const rect<2> b{{5, 15, 2}, {-3, 4, -1}};
  CHECK(a.intersect(b) == rect<2>{{5, 10, 2}, {0, 4}});
  CHECK(a[b] == rect<2>{{5, 10, 2}, {0, 4, -1}});
  CHECK(rect<2>{{0, 0}, {0, 5}} == rect<2>{{3, 4}, {7, 7}});  // empty rects are equal
}

namespace {

template <std::size_t N>
void check_moves(tally& t, const std::vector<std::size_t>& choices,
                 const std::vector<index_t>& amounts) {
  for (const auto& x : all_rects<N>(choices)) {
    // Every combination of per-dimension amounts.
    std::array<std::size_t, N> c{};
    do {
      idx<N> v{};
      for (std::size_t d = 0; d < N; ++d) v[d] = amounts[c[d]];

      std::vector<idx<N>> moved;
      for (const auto& p : x.points) moved.push_back(p + v);
      ORACLE_CHECK(t, points_of(x.r.translated(v)) == moved, x.r << ".translated" << v);

      std::array<seq, N> grown, inner, outer;
      for (std::size_t d = 0; d < N; ++d) {
        const dim_spec& s = x.spec[d];
        const index_t w = v[d];
        grown[d] = brute(s.lo - w, s.hi + w, s.stride, s.align);
        if (w == 0) {  // width 0 keeps the dimension whole
          inner[d] = x.dims[d];
          outer[d] = x.dims[d];
        } else {
          for (const index_t i : x.dims[d])
            if (w > 0 ? i >= s.hi - w : i < s.lo - w) inner[d].push_back(i);
          outer[d] = w > 0 ? brute(s.hi, s.hi + w, s.stride, s.align)
                           : brute(s.lo + w, s.lo, s.stride, s.align);
        }
      }
      const rect<N> g = x.r.expanded(v), in = x.r.interior(v), out = x.r.exterior(v);
      ORACLE_CHECK(t, points_of(g) == product(grown), x.r << ".expanded" << v << " = " << g);
      ORACLE_CHECK(t, points_of(in) == product(inner), x.r << ".interior" << v << " = " << in);
      ORACLE_CHECK(t, points_of(out) == product(outer), x.r << ".exterior" << v << " = " << out);
      for (std::size_t d = 0; d < N; ++d) {
        const range& r = x.r.dim(d);
        for (const rect<N>* y : {&g, &in, &out})
          ORACLE_CHECK(t,
                       y->dim(d).stride() == r.stride() && y->dim(d).alignment() == r.alignment(),
                       x.r << " moved by " << v << ": " << *y);
        if (v[d] == 0)
          ORACLE_CHECK(t,
                       in.dim(d).lo() == r.lo() && in.dim(d).hi() == r.hi() &&
                           out.dim(d).lo() == r.lo() && out.dim(d).hi() == r.hi(),
                       x.r << " width " << v << ": " << in << ", " << out);
      }
      bool same = true;
      for (std::size_t d = 0; d < N; ++d) same = same && v[d] == v[0];
      if (same)
        ORACLE_CHECK(t, points_of(x.r.expanded(v[0])) == product(grown),
                     x.r << ".expanded(" << v[0] << ")");
    } while (next_row_major(c, [&](std::size_t) { return amounts.size(); }));
  }
}

}  // namespace

TEST_CASE("rect<N>: translated, expanded, interior, exterior", "[serial][rect]") {
  tally t;
  check_moves<1>(t, every_dim, {-9, -5, -3, -2, -1, 0, 1, 2, 3, 4, 8});
  check_moves<2>(t, every_dim, {-5, -2, -1, 0, 1, 3});
  check_moves<3>(t, {1, 2, 3, 6}, {-2, 0, 1});
  ORACLE_DONE(t);

  // Chapel: {1..8, 1..8}.interior((1, 0)) = {8..8, 1..8}; exterior((0, -2)) = {1..8, -1..0}.
  const rect<2> d{{1, 9}, {1, 9}};
  CHECK(d.interior(idx<2>{1, 0}) == rect<2>{{8, 9}, {1, 9}});
  CHECK(d.exterior(idx<2>{0, -2}) == rect<2>{{1, 9}, {-1, 1}});
  CHECK(d.expanded(1) == rect<2>{{0, 10}, {0, 10}});
  CHECK(d.translated(idx<2>{-1, 2}) == rect<2>{{0, 8}, {3, 11}});
}

// ------------------------------------------------------------------------------- densify

namespace {

/// A sub-range of one dimension of a whole rect: the range, its indices and their orders.
struct sub_dim {
  range r;
  seq indices;
  seq orders;
};

/// Every sub-range of the whole dimension `w` (sequence `ws`): the elements at orders
/// k0, k0 + q, ..., as a range, plus two empty ones.
std::vector<sub_dim> sub_dims(const seq& ws, index_t stride) {
  std::vector<sub_dim> out;
  out.push_back({range{}, {}, {}});
  out.push_back({range{4, 4, -3}, {}, {}});
  const auto n = static_cast<index_t>(ws.size());
  for (index_t k0 = 0; k0 < n; ++k0) {
    out.push_back({range{ws[static_cast<std::size_t>(k0)], ws[static_cast<std::size_t>(k0)] + 1},
                   {ws[static_cast<std::size_t>(k0)]},
                   {k0}});
    for (index_t q = -(n - 1); q <= n - 1; ++q) {
      if (q == 0) continue;
      sub_dim s;
      for (index_t k = k0; k >= 0 && k < n; k += q) {
        s.indices.push_back(ws[static_cast<std::size_t>(k)]);
        s.orders.push_back(k);
        if (s.indices.size() < 2) continue;
        const index_t lo = std::min(s.indices.front(), s.indices.back());
        const index_t hi = std::max(s.indices.front(), s.indices.back()) + 1;
        s.r = range{lo, hi, stride * q, s.indices.front()};
        out.push_back(s);
      }
    }
  }
  return out;
}

template <std::size_t N>
void check_densify(tally& t, const std::vector<std::size_t>& whole_choices,
                   std::size_t keep_every) {
  for (const auto& w : all_rects<N>(whole_choices)) {
    std::array<std::vector<sub_dim>, N> subs;
    for (std::size_t d = 0; d < N; ++d) {
      const auto all = sub_dims(w.dims[d], w.spec[d].stride);
      for (std::size_t k = 0; k < all.size(); ++k)
        if (k % keep_every == 0 || k + 1 == all.size()) subs[d].push_back(all[k]);
    }
    // Single indices: densify(w, p) is p's order in every dimension.
    for (const auto& p : w.points) {
      idx<N> want{};
      for (std::size_t d = 0; d < N; ++d)
        want[d] = std::find(w.dims[d].begin(), w.dims[d].end(), p[d]) - w.dims[d].begin();
      ORACLE_CHECK(t, dmap::densify(w.r, p) == want, "densify(" << w.r << ", " << p << ")");
    }
    // Every product of per-dimension sub-ranges.
    std::array<std::size_t, N> c{};
    do {
      rect<N> s;
      std::array<seq, N> indices, orders;
      for (std::size_t d = 0; d < N; ++d) {
        s.set_dim(d, subs[d][c[d]].r);
        indices[d] = subs[d][c[d]].indices;
        orders[d] = subs[d][c[d]].orders;
      }
      const auto s_points = product(indices);
      const auto d_points = product(orders);
      ORACLE_CHECK(t, points_of(s) == s_points, "test generator: " << s);

      const dmap::dense_rect<N> dense = dmap::densify(w.r, s);
      ORACLE_CHECK(
          t, points_of(static_cast<const rect<N>&>(dense)) == d_points,
          "densify(" << w.r << ", " << s << ") = " << dense << ", oracle " << show(d_points));
      const rect<N> back = dmap::undensify(w.r, dense);
      ORACLE_CHECK(t, back == s && points_of(back) == s_points,
                   "undensify(" << w.r << ", densify(" << s << ")) = " << back);
      // Zip: the k-th index of s densifies to the k-th dense index.
      for (std::size_t k = 0; k < s_points.size() && k < d_points.size(); ++k)
        ORACLE_CHECK(t, dmap::densify(w.r, s_points[k]) == d_points[k],
                     "densify(" << w.r << ", " << s_points[k] << ") in " << s);
    } while (next_row_major(c, [&](std::size_t d) { return subs[d].size(); }));
  }
}

}  // namespace

TEST_CASE("rect<N>: densify/undensify round trip", "[serial][rect][densify]") {
  static_assert(
      std::is_same_v<decltype(dmap::densify(std::declval<rect<2>>(), std::declval<rect<2>>())),
                     dmap::dense_rect<2>>);
  static_assert(
      std::is_same_v<decltype(dmap::densify(std::declval<rect<2>>(), std::declval<idx<2>>())),
                     idx<2>>);
  tally t;
  check_densify<1>(t, {0, 1, 2, 3, 4, 5}, 1);
  check_densify<2>(t, {0, 1, 2, 3, 4, 5}, 1);
  check_densify<3>(t, {0, 2, 5}, 3);
  ORACLE_DONE(t);

  // Chapel's worked example in one dimension of a 2-D rect, the other one descending.
  const rect<2> w{{1, 21, 3}, {0, 10, -2}};  // (1, 4, ..., 19) x (9, 7, 5, 3, 1)
  const rect<2> s{{7, 20, 6}, {1, 6, 2}};    // (7, 13, 19) x (1, 3, 5)
  const dmap::dense_rect<2> d = dmap::densify(w, s);
  CHECK(static_cast<const rect<2>&>(d) == rect<2>{{2, 7, 2}, {2, 5, -1}});
  CHECK(dmap::undensify(w, d) == s);
  CHECK(dmap::densify(w, idx<2>{13, 9}) == idx<2>{4, 0});
  CHECK(dmap::densify(w, idx<2>{13, 8}) == idx<2>{4, -1});
  // An empty sub-rect holds no index, so it densifies (to an empty rect) whatever its bounds.
  CHECK(dmap::densify(rect<2>{{0, 4}, {0, 4}}, rect<2>{{0, 0}, {10, 12}}).empty());

  CHECK_THROWS_AS(dmap::densify(w, rect<2>{{7, 20, 6}, {0, 2}}), dmap::argument_error);
  CHECK_THROWS_AS(dmap::densify(w, rect<2>{{0, 5}, {1, 2}}), dmap::argument_error);
  CHECK_THROWS_AS(dmap::undensify(w, dmap::dense_rect<2>(rect<2>{{0, 8}, {0, 1}})),
                  dmap::out_of_bounds_error);
  CHECK_THROWS_AS(dmap::undensify(w, dmap::dense_rect<2>(rect<2>{{0, 1}, {-1, 2}})),
                  dmap::out_of_bounds_error);
  CHECK(dmap::undensify(w, dmap::dense_rect<2>(rect<2>{{6, 7}, {4, 5}})) ==
        rect<2>{{19, 20}, {1, 2}});
}

}  // namespace test_rect
