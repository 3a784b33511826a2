// idx<N>: an N-D global index (one integer per dimension), with element-wise arithmetic.
#pragma once

#include <array>
#include <cstddef>
#include <ostream>
#include <tuple>

#include "range.hpp"

namespace dmap {

/// An N-D global index: `idx<2>{i, j}` with integers of any integral type (an unsigned value
/// that does not fit int64 is an argument_error). Indexable, comparable, structured-bindable;
/// a 1-D index converts from a plain integer, so `A[5]` works on a 1-D array.
template <std::size_t N>
struct idx : std::array<index_t, N> {
  /// The index 0 in every dimension.
  constexpr idx() noexcept : std::array<index_t, N>{} {}
  /// The index (i0, i1, ...), one integer per dimension.
  template <index_like... I>
    requires(sizeof...(I) == N)
  constexpr idx(I... i) : std::array<index_t, N>{detail::to_index(i)...} {}
  /// The index with these coordinates.
  constexpr idx(const std::array<index_t, N>& coordinates) noexcept : std::array<index_t, N>(coordinates) {}

  /// The index with `value` in every dimension.
  static constexpr idx filled(index_t value) noexcept {
    idx i;
    i.fill(value);
    return i;
  }
  /// Element-wise sum (an index moved by an offset).
  friend constexpr idx operator+(idx a, const idx& b) noexcept {
    for (std::size_t d = 0; d < N; ++d) a[d] += b[d];
    return a;
  }
  /// Element-wise difference.
  friend constexpr idx operator-(idx a, const idx& b) noexcept {
    for (std::size_t d = 0; d < N; ++d) a[d] -= b[d];
    return a;
  }
  /// Chapel tuple notation `(i, j)`.
  friend std::ostream& operator<<(std::ostream& os, const idx& i) {
    os << '(';
    for (std::size_t d = 0; d < N; ++d) os << (d ? ", " : "") << i[d];
    return os << ')';
  }
};

}  // namespace dmap

template <std::size_t N>
struct std::tuple_size<dmap::idx<N>> : std::integral_constant<std::size_t, N> {};
template <std::size_t I, std::size_t N>
struct std::tuple_element<I, dmap::idx<N>> {
  using type = dmap::index_t;
};
