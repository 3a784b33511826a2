// rect<N>: an N-D rectangular index set, a tuple of ranges iterated in row-major order.
//
// Arithmetic rules: every dimension is a valid range (dsi/range.hpp: bounds within int64,
// hi - lo <= 2^63 - 1), and the product of the dimensions' sizes, an empty dimension
// counting as 1, is at most 2^63 - 1, so the size, every row-major order and every dense
// layout's strides fit int64 (`{0..<2^32, 0..<2^32}` is refused; `{0..<0, 0..<2^62,
// 0..<2^62}` too, although empty). Constructors, set_dim and the transformations that can
// grow a rect (translated, expanded, exterior) check these rules and throw argument_error
// naming the function, the rect and the rule; intersections, slices and interior only
// shrink. Rects compare by their indices and order, not by their bounds.
#pragma once

#include <array>
#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "detail/rect.hpp"
#include "index.hpp"
#include "range.hpp"

namespace dmap {

template <std::size_t N>
class rect;

/// The Cartesian product of N ranges; row-major order (last dimension fastest).
template <std::size_t N>
class rect : private detail::rect_storage<N> {
  using base = detail::rect_storage<N>;
  using base::dims_;

 public:
  static_assert(N >= 1, "dmap::rect needs at least one dimension");
  /// The number of dimensions.
  static constexpr std::size_t rank = N;

  using base::base;
  /// The empty rect.
  constexpr rect() = default;

  /// The ranges, one per dimension.
  constexpr const std::array<range, N>& dims() const noexcept { return dims_; }
  /// The range of dimension d.
  constexpr const range& dim(std::size_t d) const noexcept { return dims_[d]; }
  /// Replaces the range of dimension d; throws argument_error (the rect unchanged) when the
  /// product of the sizes would no longer fit int64.
  constexpr void set_dim(std::size_t d, const range& r) {
    std::array<range, N> next = dims_;
    next[d] = r;
    detail::check_rect_size<N>(next, "dmap::rect::set_dim");
    dims_[d] = r;
  }

  /// The number of indices per dimension.
  constexpr std::array<index_t, N> shape() const noexcept {
    std::array<index_t, N> s{};
    for (std::size_t d = 0; d < N; ++d) s[d] = dims_[d].size();
    return s;
  }
  /// The number of indices.
  constexpr index_t size() const noexcept {
    index_t n = 1;
    for (const auto& r : dims_) n *= r.size();
    return n;
  }
  /// True when the rect holds no index.
  constexpr bool empty() const noexcept {
    for (const auto& r : dims_)
      if (r.empty()) return true;
    return false;
  }
  /// The lowest bounds, one per dimension.
  constexpr idx<N> low() const noexcept { return per_dim([](const range& r) { return r.lo(); }); }
  /// The upper (exclusive) bounds, one per dimension.
  constexpr idx<N> high() const noexcept { return per_dim([](const range& r) { return r.hi(); }); }
  /// The strides, one per dimension.
  constexpr idx<N> stride() const noexcept {
    return per_dim([](const range& r) { return r.stride(); });
  }
  /// The first index in row-major order (precondition: not empty).
  constexpr idx<N> first() const noexcept {
    return per_dim([](const range& r) { return r.first(); });
  }
  /// The last index in row-major order (precondition: not empty).
  constexpr idx<N> last() const noexcept { return per_dim([](const range& r) { return r.last(); }); }

  /// True when `i` is an index of the rect.
  constexpr bool contains(const idx<N>& i) const noexcept {
    for (std::size_t d = 0; d < N; ++d)
      if (!dims_[d].contains(i[d])) return false;
    return true;
  }
  /// True when every index of `other` is an index of this rect.
  constexpr bool contains(const rect& other) const noexcept {
    if (other.empty()) return true;
    for (std::size_t d = 0; d < N; ++d)
      if (!dims_[d].contains(other.dims_[d])) return false;
    return true;
  }
  /// The row-major 0-based order of `i`, or -1 when `i` is not an index.
  constexpr index_t order_of(const idx<N>& i) const noexcept {
    index_t k = 0;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t o = dims_[d].order_of(i[d]);
      if (o < 0) return -1;
      k = k * dims_[d].size() + o;
    }
    return k;
  }
  /// The index at row-major order `k`; throws when k is outside [0, size()).
  constexpr idx<N> index_at(index_t k) const {
    if (k < 0 || k >= size())
      throw out_of_bounds_error("dmap::rect::index_at: order " + std::to_string(k) +
                                " is outside [0, " + std::to_string(size()) + ")");
    idx<N> i{};
    for (std::size_t d = N; d-- > 0;) {
      const index_t n = dims_[d].size();
      i[d] = dims_[d].first() + (k % n) * dims_[d].stride();
      k /= n;
    }
    return i;
  }

  /// The indices in both rects, per dimension in this rect's direction.
  constexpr rect intersect(const rect& other) const {
    return combine(other, [](const range& a, const range& b) { return a.intersect(b); });
  }
  /// Chapel slicing `D[S]`, per dimension.
  constexpr rect operator[](const rect& other) const {
    return combine(other, [](const range& a, const range& b) { return a[b]; });
  }
  /// The rect moved by `offset`; throws argument_error when a bound would leave int64.
  constexpr rect translated(const idx<N>& offset) const {
    rect r = *this;
    for (std::size_t d = 0; d < N; ++d) r.dims_[d] = dims_[d].translated(offset[d]);
    return r;
  }
  /// Every dimension widened by `amount[d]` on both sides; throws argument_error when a
  /// bound would leave int64 or the size would not fit.
  constexpr rect expanded(const idx<N>& amount) const {
    rect r = *this;
    for (std::size_t d = 0; d < N; ++d) r.dims_[d] = dims_[d].expanded(amount[d]);
    detail::check_rect_size<N>(r.dims_, "dmap::rect::expanded");
    return r;
  }
  /// Every dimension widened by `amount` on both sides (see expanded(idx)).
  constexpr rect expanded(index_t amount) const { return expanded(filled(amount)); }
  /// Per dimension, the part within `width[d]` of the high (> 0) or low (< 0) bound; a
  /// dimension with width 0 is kept whole (Chapel's domain `interior`).
  constexpr rect interior(const idx<N>& width) const {
    rect r = *this;
    for (std::size_t d = 0; d < N; ++d) r.dims_[d] = dims_[d].interior(width[d]);
    return r;
  }
  /// Per dimension, the part within `width[d]` beyond the high (> 0) or low (< 0) bound; a
  /// dimension with width 0 is kept whole (Chapel's domain `exterior`).
  constexpr rect exterior(const idx<N>& width) const {
    rect r = *this;
    for (std::size_t d = 0; d < N; ++d) r.dims_[d] = dims_[d].exterior(width[d]);
    detail::check_rect_size<N>(r.dims_, "dmap::rect::exterior");
    return r;
  }

  /// True when both rects hold the same indices in the same order.
  friend constexpr bool operator==(const rect& a, const rect& b) noexcept {
    if (a.empty() || b.empty()) return a.empty() && b.empty();
    for (std::size_t d = 0; d < N; ++d)
      if (!(a.dims_[d] == b.dims_[d])) return false;
    return true;
  }
  /// Chapel notation `{0..<n, 0..<m}`.
  friend std::ostream& operator<<(std::ostream& os, const rect& r) {
    os << '{';
    for (std::size_t d = 0; d < N; ++d) os << (d ? ", " : "") << r.dims_[d];
    return os << '}';
  }

 private:
  template <class F>
  constexpr idx<N> per_dim(F f) const {
    idx<N> i{};
    for (std::size_t d = 0; d < N; ++d) i[d] = f(dims_[d]);
    return i;
  }
  template <class F>
  constexpr rect combine(const rect& other, F f) const {
    rect r = *this;
    for (std::size_t d = 0; d < N; ++d) r.dims_[d] = f(dims_[d], other.dims_[d]);
    return r;
  }
  static constexpr idx<N> filled(index_t v) {
    idx<N> i{};
    i.fill(v);
    return i;
  }
};

/// The indices of `outer` that are not in `inner`, as disjoint rects (at most 2N), where
/// per dimension `inner` holds a contiguous run of `outer`'s indices (a block inside its
/// ghost-cell frame, say).
template <std::size_t N>
std::vector<rect<N>> difference(const rect<N>& outer, const rect<N>& inner) {
  if (outer.empty()) return {};
  if (inner.empty()) return {outer};
  return detail::slabs_beside(outer, inner, outer);
}

/// A rect of orders (0-based positions per dimension inside a whole index set): the work
/// description a leader hands to its followers. Kept apart from rect of indices on purpose.
template <std::size_t N>
class dense_rect : public rect<N> {
 public:
  constexpr dense_rect() = default;
  /// Marks `orders` as a rect of dense coordinates.
  constexpr explicit dense_rect(const rect<N>& orders) : rect<N>(orders) {}
};

/// The orders of the indices of `sub` inside `whole`, per dimension (Chapel's densify).
template <std::size_t N>
constexpr dense_rect<N> densify(const rect<N>& whole, const rect<N>& sub) {
  rect<N> r;
  if (sub.empty()) return dense_rect<N>(r);  // no index, so a subset of anything
  for (std::size_t d = 0; d < N; ++d) r.set_dim(d, densify(whole.dim(d), sub.dim(d)));
  return dense_rect<N>(r);
}
/// The orders of index `i` inside `whole`, per dimension.
template <std::size_t N>
constexpr idx<N> densify(const rect<N>& whole, const idx<N>& i) noexcept {
  idx<N> k{};
  for (std::size_t d = 0; d < N; ++d) k[d] = whole.dim(d).order_of(i[d]);
  return k;
}
/// The indices of `whole` at the orders in `dense` (Chapel's unDensify).
template <std::size_t N>
constexpr rect<N> undensify(const rect<N>& whole, const dense_rect<N>& dense) {
  rect<N> r;
  for (std::size_t d = 0; d < N; ++d) r.set_dim(d, undensify(whole.dim(d), dense.dim(d)));
  return r;
}

}  // namespace dmap
