// range: a 1-D index sequence, half-open [lo, hi) with a stride (may be negative) and an
// alignment. Chapel's `lo..hi by s` is `range{lo, hi + 1, s}`.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <limits>
#include <numeric>
#include <ostream>
#include <string>
#include <type_traits>

#include "../runtime/errors.hpp"

namespace dmap {

/// The integer type of global indices, orders and extents.
using index_t = std::int64_t;

namespace detail {
/// The mathematical modulus: result in [0, m) for m > 0.
constexpr index_t floor_mod(index_t a, index_t m) {
  const index_t r = a % m;
  return r < 0 ? r + m : r;
}
constexpr index_t abs_index(index_t a) { return a < 0 ? -a : a; }
/// A 128-bit integer for overflow-free products of two indices.
__extension__ typedef __int128 wide_int;
}  // namespace detail

/// An integer type that may stand for an index, a bound, a stride or a count: any integral
/// type but bool and the character types.
template <class I>
concept index_like = std::integral<I> && !std::same_as<std::remove_cv_t<I>, bool> &&
                     !std::same_as<std::remove_cv_t<I>, char> && !std::same_as<std::remove_cv_t<I>, wchar_t> &&
                     !std::same_as<std::remove_cv_t<I>, char8_t> && !std::same_as<std::remove_cv_t<I>, char16_t> &&
                     !std::same_as<std::remove_cv_t<I>, char32_t>;

namespace detail {
/// `value` as an index_t; throws argument_error when it does not fit (an unsigned value
/// above 2^63 - 1).
template <index_like I>
constexpr index_t to_index(I value) {
  if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(index_t)) {
    if (value > static_cast<std::make_unsigned_t<index_t>>(std::numeric_limits<index_t>::max()))
      throw argument_error("dmap: the integer " + std::to_string(value) +
                           " does not fit an index (int64); indices, bounds and counts must be below 2^63");
  }
  return static_cast<index_t>(value);
}
}  // namespace detail

/// A 1-D sequence of indices: the i in [lo, hi) with i = alignment (mod |stride|), in
/// ascending order for a positive stride and descending order for a negative one.
class range {
 public:
  /// The empty range [0, 0).
  constexpr range() = default;
  /// The unit-stride range [lo, hi) (bounds of any integral type).
  template <index_like L, index_like H>
  constexpr range(L lo, H hi) : lo_(detail::to_index(lo)), hi_(detail::to_index(hi)) {}
  /// [lo, hi) by `stride`, aligned to its first bound in iteration order (lo for a
  /// positive stride, hi - 1 for a negative one), as Chapel aligns `lo..hi by s`.
  template <index_like L, index_like H, index_like S>
  constexpr range(L lo, H hi, S stride)
      : range(detail::to_index(lo), detail::to_index(hi), detail::to_index(stride), aligned_to_first{}) {}
  /// [lo, hi) by `stride`, holding the indices congruent to `alignment` mod |stride|.
  template <index_like L, index_like H, index_like S, index_like A>
  constexpr range(L lo, H hi, S stride, A alignment)
      : lo_(detail::to_index(lo)), hi_(detail::to_index(hi)), stride_(detail::to_index(stride)) {
    align_ = checked_alignment(lo_, hi_, stride_, detail::to_index(alignment));
  }

  /// `count` indices starting at `first` and stepping by `stride`.
  static constexpr range counted(index_t first, index_t count, index_t stride = 1) {
    if (count < 0)
      throw argument_error("dmap::range::counted: count is " + std::to_string(count) +
                           "; it must be >= 0");
    if (count == 0) return range(first, first, stride, first);
    const index_t last = first + (count - 1) * stride;
    return range(std::min(first, last), std::max(first, last) + 1, stride, first);
  }

  /// The lower bound (inclusive).
  constexpr index_t lo() const noexcept { return lo_; }
  /// The upper bound (exclusive).
  constexpr index_t hi() const noexcept { return hi_; }
  /// The signed step between consecutive indices.
  constexpr index_t stride() const noexcept { return stride_; }
  /// The residue mod |stride| every index has, in [0, |stride|).
  constexpr index_t alignment() const noexcept { return align_; }

  /// The smallest integer >= lo congruent to the alignment (the smallest index when the
  /// range is not empty).
  constexpr index_t aligned_low() const noexcept {
    return lo_ + detail::floor_mod(align_ - lo_, abs_stride());
  }
  /// The largest integer <= hi - 1 congruent to the alignment (the largest index when the
  /// range is not empty).
  constexpr index_t aligned_high() const noexcept {
    return (hi_ - 1) - detail::floor_mod((hi_ - 1) - align_, abs_stride());
  }
  /// The number of indices.
  constexpr index_t size() const noexcept {
    if (hi_ <= lo_) return 0;
    const index_t low = aligned_low(), high = aligned_high();
    return low > high ? 0 : (high - low) / abs_stride() + 1;
  }
  /// True when the range holds no index.
  constexpr bool empty() const noexcept { return size() == 0; }
  /// The first index in iteration order (precondition: not empty).
  constexpr index_t first() const noexcept { return stride_ > 0 ? aligned_low() : aligned_high(); }
  /// The last index in iteration order (precondition: not empty).
  constexpr index_t last() const noexcept { return stride_ > 0 ? aligned_high() : aligned_low(); }

  /// True when `i` is one of the indices.
  constexpr bool contains(index_t i) const noexcept {
    return lo_ <= i && i < hi_ && detail::floor_mod(i - align_, abs_stride()) == 0;
  }
  /// True when every index of `other` is an index of this range.
  constexpr bool contains(const range& other) const noexcept {
    if (other.empty()) return true;
    if (!contains(other.first()) || !contains(other.last())) return false;
    return other.size() == 1 || other.stride_ % stride_ == 0;
  }
  /// The 0-based position of `i` in iteration order, or -1 when `i` is not an index.
  constexpr index_t order_of(index_t i) const noexcept {
    return contains(i) ? (i - first()) / stride_ : -1;
  }
  /// The index at 0-based position `k` in iteration order; throws when k is out of range.
  constexpr index_t index_at(index_t k) const {
    if (k < 0 || k >= size())
      throw out_of_bounds_error("dmap::range::index_at: order " + std::to_string(k) +
                                " is outside [0, " + std::to_string(size()) + ")");
    return first() + k * stride_;
  }

  /// The indices in both ranges, in this range's direction.
  constexpr range intersect(const range& other) const { return meet(other, stride_ > 0); }
  /// Chapel slicing `r[s]`: the indices in both, ascending iff the strides' signs agree.
  constexpr range operator[](const range& other) const {
    return meet(other, (stride_ > 0) == (other.stride_ > 0));
  }
  /// The same sequence moved by `offset`.
  constexpr range translated(index_t offset) const {
    return range(lo_ + offset, hi_ + offset, stride_, align_ + offset);
  }
  /// The bounds widened by `amount` on both sides (narrowed when negative); same stride and
  /// alignment.
  constexpr range expanded(index_t amount) const {
    return range(lo_ - amount, hi_ + amount, stride_, align_);
  }
  /// The indices within `width` of the upper bound (width > 0) or of the lower bound
  /// (width < 0), inside the range: Chapel's `interior`; width 0 keeps the range.
  constexpr range interior(index_t width) const {
    if (width == 0) return *this;
    if (width > 0) return range(std::max(lo_, hi_ - width), hi_, stride_, align_);
    return range(lo_, std::min(hi_, lo_ - width), stride_, align_);
  }
  /// The indices within `width` beyond the upper bound (width > 0) or below the lower bound
  /// (width < 0), outside the range: Chapel's `exterior`; width 0 keeps the range.
  constexpr range exterior(index_t width) const {
    if (width == 0) return *this;
    if (width > 0) return range(hi_, hi_ + width, stride_, align_);
    return range(lo_ + width, lo_, stride_, align_);
  }
  /// The same sequence with bounds tightened to its first and last index.
  constexpr range normalized() const {
    if (empty()) return range(0, 0, stride_, 0);
    return range(aligned_low(), aligned_high() + 1, stride_, align_);
  }

  /// True when both ranges represent the same sequence of indices.
  friend constexpr bool operator==(const range& a, const range& b) noexcept {
    const index_t n = a.size();
    if (n != b.size()) return false;
    if (n == 0) return true;
    if (a.first() != b.first()) return false;
    return n == 1 || a.stride_ == b.stride_;
  }

  /// Chapel notation: `lo..<hi`, with ` by s` and ` align a` when they are not the defaults.
  friend std::ostream& operator<<(std::ostream& os, const range& r) {
    os << r.lo_ << "..<" << r.hi_;
    if (r.stride_ != 1) {
      os << " by " << r.stride_;
      const index_t natural = detail::floor_mod(r.stride_ > 0 ? r.lo_ : r.hi_ - 1, r.abs_stride());
      if (natural != r.align_) os << " align " << r.align_;
    }
    return os;
  }

 private:
  constexpr index_t abs_stride() const noexcept { return detail::abs_index(stride_); }

  // Intersection by the Chinese remainder theorem on the two alignments.
  constexpr range meet(const range& other, bool ascending) const {
    const index_t lo = std::max(lo_, other.lo_), hi = std::min(hi_, other.hi_);
    const index_t a = abs_stride(), b = other.abs_stride();
    const index_t g = std::gcd(a, b);
    const index_t step_sign = ascending ? 1 : -1;
    if (detail::floor_mod(other.align_ - align_, g) != 0 || hi <= lo)
      return range(lo, lo, step_sign);
    // x = align_ + a * t, with a * t = other.align_ - align_ (mod b).
    const detail::wide_int l = static_cast<detail::wide_int>(a / g) * b;
    if (l > INT64_MAX)
      throw unsupported_error("dmap::range: intersection stride lcm(" + std::to_string(a) + ", " +
                              std::to_string(b) + ") overflows 64 bits");
    const index_t bg = b / g;
    index_t t = 0;
    if (bg > 1) {
      const index_t rhs = detail::floor_mod((other.align_ - align_) / g, bg);
      t = static_cast<index_t>(
          static_cast<detail::wide_int>(rhs) * inverse_mod(detail::floor_mod(a / g, bg), bg) % bg);
    }
    const index_t lcm = static_cast<index_t>(l);
    const index_t alignment =
        detail::floor_mod(static_cast<index_t>((static_cast<detail::wide_int>(align_) + static_cast<detail::wide_int>(a) * t) % lcm), lcm);
    return range(lo, hi, step_sign * lcm, alignment);
  }
  static constexpr index_t inverse_mod(index_t value, index_t modulus) {
    // Extended Euclid; value and modulus are coprime.
    index_t r0 = modulus, r1 = value, s0 = 0, s1 = 1;
    while (r1 != 0) {
      const index_t q = r0 / r1;
      const index_t r2 = r0 - q * r1;
      r0 = r1;
      r1 = r2;
      const index_t s2 = s0 - q * s1;
      s0 = s1;
      s1 = s2;
    }
    return detail::floor_mod(s0, modulus);
  }

  struct aligned_to_first {};
  constexpr range(index_t lo, index_t hi, index_t stride, aligned_to_first)
      : lo_(lo), hi_(hi), stride_(stride) {
    align_ = checked_alignment(lo, hi, stride, stride > 0 ? lo : hi - 1);
  }
  // The alignment as a residue mod |stride|; throws when the stride is 0.
  static constexpr index_t checked_alignment(index_t lo, index_t hi, index_t stride, index_t alignment) {
    if (stride == 0)
      throw argument_error("dmap::range: stride is 0 in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                           ") by 0; the stride must be nonzero");
    return detail::floor_mod(alignment, detail::abs_index(stride));
  }

  index_t lo_ = 0;
  index_t hi_ = 0;
  index_t stride_ = 1;
  index_t align_ = 0;
};

/// The 0-based order of index `i` inside `whole` (Chapel's densify of one index); -1 when
/// `i` is not in `whole`.
constexpr index_t densify(const range& whole, index_t i) noexcept { return whole.order_of(i); }

/// The orders, inside `whole`, of the indices of `sub` (a subset of `whole`), as a range in
/// `sub`'s iteration order. Throws when `sub` is not a subset of `whole`.
constexpr range densify(const range& whole, const range& sub) {
  if (sub.empty()) return range();
  if (!whole.contains(sub))
    throw argument_error("dmap::densify: the sub-range is not a subset of the whole range");
  const index_t first = whole.order_of(sub.first());
  if (sub.size() == 1) return range(first, first + 1);
  return range::counted(first, sub.size(), sub.stride() / whole.stride());
}

/// The index of `whole` at order `k` (Chapel's undensify of one order).
constexpr index_t undensify(const range& whole, index_t k) { return whole.index_at(k); }

/// The indices of `whole` at the orders in `dense` (inverse of densify). Throws when an
/// order lies outside `whole`.
constexpr range undensify(const range& whole, const range& dense) {
  if (dense.empty()) return range();
  if (dense.aligned_low() < 0 || dense.aligned_high() >= whole.size())
    throw out_of_bounds_error("dmap::undensify: dense range reaches outside [0, " +
                              std::to_string(whole.size()) + ")");
  return range::counted(whole.index_at(dense.first()), dense.size(),
                        whole.stride() * dense.stride());
}

}  // namespace dmap
