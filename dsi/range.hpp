// range: a 1-D index sequence, half-open [lo, hi) with a stride (may be negative) and an
// alignment. Chapel's `lo..hi by s` is `range{lo, hi + 1, s}`.
//
// Arithmetic rules (checked where a range is made or transformed, never per index): the
// bounds lo and hi are int64 values, and a nonempty range spans at most 2^63 - 1 integers
// (hi - lo <= INT64_MAX), so every size, order and distance between two of its indices fits
// int64. The upper bound is exclusive and must itself be representable: the largest index a
// range can hold is INT64_MAX - 1, the smallest INT64_MIN. |stride| is at most INT64_MAX
// (the stride INT64_MIN is refused). A constructor or transformation (counted, translated,
// expanded, exterior, ...) whose result would break these rules throws argument_error naming
// the function, the values and the rule; interior and intersections only shrink a range.
// Two ranges are equal when they hold the same indices in the same order, whatever their
// bounds: `range{0, 100, 2} == range{0, 99, 2}`.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <limits>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>

#include "../runtime/errors.hpp"
#include "detail/range.hpp"
#include "index_type.hpp"

namespace dmap {

/// A 1-D sequence of indices: the i in [lo, hi) with i = alignment (mod |stride|), in
/// ascending order for a positive stride and descending order for a negative one. See the
/// header comment for the bounds a range may have.
class range {
 public:
  /// The empty range [0, 0).
  constexpr range() = default;
  /// The unit-stride range [lo, hi) (bounds of any integral type).
  template <index_like L, index_like H>
  constexpr range(L lo, H hi) : lo_(detail::to_index(lo)), hi_(detail::to_index(hi)) {
    check_span(lo_, hi_, "dmap::range");
  }
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
    check_span(lo_, hi_, "dmap::range");
  }

  /// `count` indices starting at `first` and stepping by `stride`. Throws argument_error
  /// when count < 0 or when the last index or the exclusive bound after the largest one
  /// would leave the int64 range (the largest index a range holds is INT64_MAX - 1).
  static constexpr range counted(index_t first, index_t count, index_t stride = 1) {
    if (count < 0) counted_error(first, count, stride, "count must be >= 0");
    if (count == 0) return range(first, first, stride, first);
    index_t distance = 0, last = 0;
    if (__builtin_mul_overflow(count - 1, stride, &distance) || __builtin_add_overflow(first, distance, &last))
      counted_error(first, count, stride, "its last index, first + (count - 1) * stride, lies outside the int64 range");
    const index_t high = std::max(first, last);
    if (high == std::numeric_limits<index_t>::max())
      counted_error(first, count, stride,
                    "its largest index would be INT64_MAX, whose exclusive upper bound INT64_MAX + 1 is not "
                    "representable; the largest index a range holds is INT64_MAX - 1");
    return range(std::min(first, last), high + 1, stride, first, "dmap::range::counted");
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
  /// range is not empty; of an empty range it may lie past INT64_MAX and then wraps).
  constexpr index_t aligned_low() const noexcept { return detail::wrapping_add(lo_, skip_low()); }
  /// The largest integer <= hi - 1 congruent to the alignment (the largest index when the
  /// range is not empty; of an empty range it may lie below INT64_MIN and then wraps).
  constexpr index_t aligned_high() const noexcept {
    const index_t m = abs_stride();
    if (m == 1) return detail::wrapping_sub(hi_, 1);
    index_t last_minus_align = 0;  // (hi - 1) - alignment, when it fits
    if (hi_ != std::numeric_limits<index_t>::min() && !__builtin_sub_overflow(hi_ - 1, align_, &last_minus_align))
      return detail::wrapping_sub(hi_ - 1, detail::floor_mod(last_minus_align, m));
    const index_t residue_of_last = detail::floor_mod(detail::floor_mod(hi_, m) - 1, m);
    return detail::wrapping_sub(detail::wrapping_sub(hi_, 1), detail::floor_mod(residue_of_last - align_, m));
  }
  /// The number of indices.
  constexpr index_t size() const noexcept {
    if (hi_ <= lo_) return 0;
    const index_t span = hi_ - lo_;  // fits: construction checked it
    if (stride_ == 1 || stride_ == -1) return span;
    const index_t skip = skip_low();
    return skip >= span ? 0 : (span - 1 - skip) / abs_stride() + 1;
  }
  /// True when the range holds no index.
  constexpr bool empty() const noexcept {
    // |stride| consecutive integers always hold an aligned one.
    return hi_ <= lo_ || (hi_ - lo_ < abs_stride() && skip_low() >= hi_ - lo_);
  }
  /// The first index in iteration order (precondition: not empty).
  constexpr index_t first() const noexcept { return stride_ > 0 ? aligned_low() : aligned_high(); }
  /// The last index in iteration order (precondition: not empty).
  constexpr index_t last() const noexcept { return stride_ > 0 ? aligned_high() : aligned_low(); }

  /// True when `i` is one of the indices.
  constexpr bool contains(index_t i) const noexcept {
    return lo_ <= i && i < hi_ && detail::floor_mod(i, abs_stride()) == align_;
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
  /// The same sequence moved by `offset`; throws argument_error when a bound would leave
  /// the int64 range.
  constexpr range translated(index_t offset) const {
    index_t lo = 0, hi = 0;
    if (__builtin_add_overflow(lo_, offset, &lo) || __builtin_add_overflow(hi_, offset, &hi))
      transform_overflow("dmap::range::translated", "moved by", offset);
    // align_ + offset (mod |stride|) without overflow: both terms reduced below |stride|.
    const index_t m = abs_stride();
    return range(lo, hi, stride_, align_ - (m - detail::floor_mod(offset, m)), "dmap::range::translated");
  }
  /// The bounds widened by `amount` on both sides (narrowed when negative); same stride and
  /// alignment. Throws argument_error when a bound would leave the int64 range or the
  /// result would span more than 2^63 - 1 integers.
  constexpr range expanded(index_t amount) const {
    index_t lo = 0, hi = 0;
    if (__builtin_sub_overflow(lo_, amount, &lo) || __builtin_add_overflow(hi_, amount, &hi))
      transform_overflow("dmap::range::expanded", "expanded by", amount);
    return range(lo, hi, stride_, align_, "dmap::range::expanded");
  }
  /// The indices within `width` of the upper bound (width > 0) or of the lower bound
  /// (width < 0), inside the range: Chapel's `interior`; width 0 keeps the range.
  constexpr range interior(index_t width) const {
    if (width == 0) return *this;
    index_t bound = 0;
    if (width > 0) {
      // hi - width below INT64_MIN lies below lo too: the whole range.
      const bool below = __builtin_sub_overflow(hi_, width, &bound);
      return range(below ? lo_ : std::max(lo_, bound), hi_, stride_, align_, "dmap::range::interior");
    }
    const bool above = __builtin_sub_overflow(lo_, width, &bound);
    return range(lo_, above ? hi_ : std::min(hi_, bound), stride_, align_, "dmap::range::interior");
  }
  /// The indices within `width` beyond the upper bound (width > 0) or below the lower bound
  /// (width < 0), outside the range: Chapel's `exterior`; width 0 keeps the range. Throws
  /// argument_error when a bound would leave the int64 range or |width| > 2^63 - 1.
  constexpr range exterior(index_t width) const {
    if (width == 0) return *this;
    index_t bound = 0;
    if (width > 0) {
      if (__builtin_add_overflow(hi_, width, &bound)) transform_overflow("dmap::range::exterior", "exterior width", width);
      return range(hi_, bound, stride_, align_, "dmap::range::exterior");
    }
    if (__builtin_add_overflow(lo_, width, &bound)) transform_overflow("dmap::range::exterior", "exterior width", width);
    return range(bound, lo_, stride_, align_, "dmap::range::exterior");
  }
  /// The same sequence with bounds tightened to its first and last index.
  constexpr range normalized() const {
    if (empty()) return range(0, 0, stride_, 0);
    return range(aligned_low(), aligned_high() + 1, stride_, align_);
  }

  /// True when both ranges represent the same sequence of indices (bounds may differ).
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
      if (natural_alignment(r.lo_, r.hi_, r.stride_) != r.align_) os << " align " << r.align_;
    }
    return os;
  }

 private:
  constexpr index_t abs_stride() const noexcept { return detail::abs_index(stride_); }
  // How far the smallest aligned integer >= lo lies above lo, in [0, |stride|).
  constexpr index_t skip_low() const noexcept {
    const index_t m = abs_stride();
    if (m == 1) return 0;  // every integer is aligned (and no division)
    index_t align_minus_lo = 0;
    if (!__builtin_sub_overflow(align_, lo_, &align_minus_lo)) return detail::floor_mod(align_minus_lo, m);
    return detail::floor_mod(align_ - detail::floor_mod(lo_, m), m);
  }

  // Intersection by the Chinese remainder theorem on the two alignments.
  constexpr range meet(const range& other, bool ascending) const {
    const index_t lo = std::max(lo_, other.lo_), hi = std::min(hi_, other.hi_);
    const index_t a = abs_stride(), b = other.abs_stride();
    const index_t step_sign = ascending ? 1 : -1;
    if (hi <= lo) return range(lo, lo, step_sign);
    // One unit step: the other range's step and alignment (no residue to solve for).
    if (b == 1) return range(lo, hi, step_sign * a, align_, trusted{});
    if (a == 1) return range(lo, hi, step_sign * b, other.align_, trusted{});
    const index_t g = std::gcd(a, b);
    if (detail::floor_mod(other.align_ - align_, g) != 0) return range(lo, lo, step_sign);
    // x = align_ + a * t, with a * t = other.align_ - align_ (mod b).
    const detail::wide_int l = static_cast<detail::wide_int>(a / g) * b;
    const index_t bg = b / g;
    index_t t = 0;
    if (bg > 1) {
      const index_t rhs = detail::floor_mod((other.align_ - align_) / g, bg);
      t = static_cast<index_t>(
          static_cast<detail::wide_int>(rhs) * inverse_mod(detail::floor_mod(a / g, bg), bg) % bg);
    }
    // The common residue, in [0, lcm); lcm may exceed 64 bits.
    detail::wide_int residue = (static_cast<detail::wide_int>(align_) + static_cast<detail::wide_int>(a) * t) % l;
    if (residue < 0) residue += l;
    if (l > INT64_MAX) {
      // Steps wider than any range's span: the intersection holds at most one index.
      detail::wide_int offset = (residue - lo) % l;
      if (offset < 0) offset += l;
      const detail::wide_int x = static_cast<detail::wide_int>(lo) + offset;
      if (x >= hi) return range(lo, lo, step_sign);
      return range(static_cast<index_t>(x), static_cast<index_t>(x) + 1, step_sign);
    }
    const index_t lcm = static_cast<index_t>(l);
    return range(lo, hi, step_sign * lcm, static_cast<index_t>(residue));
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
  struct trusted {};
  // Parts of valid ranges: a stride of one of them (or its negation), an alignment already
  // reduced modulo it, bounds within theirs.
  constexpr range(index_t lo, index_t hi, index_t stride, index_t alignment, trusted) noexcept
      : lo_(lo), hi_(hi), stride_(stride), align_(alignment) {}
  constexpr range(index_t lo, index_t hi, index_t stride, aligned_to_first) : lo_(lo), hi_(hi), stride_(stride) {
    check_stride(lo, hi, stride);
    align_ = natural_alignment(lo, hi, stride);
    check_span(lo, hi, "dmap::range");
  }
  // The checked constructor of the transformations: `who` names the caller in messages.
  constexpr range(index_t lo, index_t hi, index_t stride, index_t alignment, const char* who)
      : lo_(lo), hi_(hi), stride_(stride) {
    align_ = checked_alignment(lo, hi, stride, alignment);
    check_span(lo, hi, who);
  }
  // The residue of the first bound in iteration order (lo, or hi - 1 for a negative
  // stride), computed without forming hi - 1 (hi may be INT64_MIN). Stride checked.
  static constexpr index_t natural_alignment(index_t lo, index_t hi, index_t stride) noexcept {
    const index_t m = detail::abs_index(stride);
    return stride > 0 ? detail::floor_mod(lo, m) : detail::floor_mod(detail::floor_mod(hi, m) - 1, m);
  }
  // Throws when the stride is 0 or INT64_MIN (whose magnitude does not fit int64).
  static constexpr void check_stride(index_t lo, index_t hi, index_t stride) {
    if (stride == 0 || stride == std::numeric_limits<index_t>::min()) stride_error(lo, hi, stride);
  }
  // The alignment as a residue mod |stride|; throws when the stride is 0 or INT64_MIN.
  static constexpr index_t checked_alignment(index_t lo, index_t hi, index_t stride, index_t alignment) {
    check_stride(lo, hi, stride);
    return detail::floor_mod(alignment, detail::abs_index(stride));
  }
  // Throws when [lo, hi) spans more than 2^63 - 1 integers (its size would not fit int64).
  static constexpr void check_span(index_t lo, index_t hi, const char* who) {
    index_t span = 0;
    if (hi > lo && __builtin_sub_overflow(hi, lo, &span)) span_error(lo, hi, who);
  }
  // The messages (apart, so that the checks stay constexpr).
  [[noreturn]] static void stride_error(index_t lo, index_t hi, index_t stride) {
    std::ostringstream s;
    s << "dmap::range: stride is " << detail::index_text(stride) << " in [" << lo << ", " << hi << ") by " << stride
      << (stride == 0 ? "; the stride must be nonzero" : "; |stride| must be at most 2^63 - 1 (INT64_MAX)");
    throw argument_error(s.str());
  }
  [[noreturn]] static void span_error(index_t lo, index_t hi, const char* who) {
    std::ostringstream s;
    s << who << ": [" << detail::index_text(lo) << ", " << detail::index_text(hi)
      << ") spans more than 2^63 - 1 integers; a range's bounds must satisfy hi - lo <= 2^63 - 1 (INT64_MAX), "
         "so that its size fits int64";
    throw argument_error(s.str());
  }
  [[noreturn]] static void counted_error(index_t first, index_t count, index_t stride, const char* rule) {
    std::ostringstream s;
    s << "dmap::range::counted(first " << detail::index_text(first) << ", count " << count << ", stride "
      << detail::index_text(stride) << "): " << rule;
    throw argument_error(s.str());
  }
  [[noreturn]] void transform_overflow(const char* who, const char* how, index_t amount) const {
    std::ostringstream s;
    s << "a bound of " << *this << " " << how << " " << detail::index_text(amount);
    detail::throw_bound_overflow(who, s.str());
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
  // One order has no step: the product of the strides might not fit (and is not needed).
  return range::counted(whole.index_at(dense.first()), dense.size(),
                        dense.size() == 1 ? whole.stride() : whole.stride() * dense.stride());
}

}  // namespace dmap
