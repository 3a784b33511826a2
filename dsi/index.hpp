// idx<N>: an N-D global index (one integer per dimension), with element-wise arithmetic.
#pragma once

#include <array>
#include <cstddef>
#include <ostream>
#include <tuple>

#include "range.hpp"

namespace dmap {

/// An N-D global index: `idx<2>{i, j}`. Indexable, comparable, structured-bindable.
template <std::size_t N>
struct idx : std::array<index_t, N> {
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
