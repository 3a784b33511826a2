// product_layout<N>: one dense local array for a locale whose part of a domain is a product
// of per-dimension pieces (Dimensional, Cyclic, BlockCyclic, Irregular): along dimension d
// the locale's pieces take consecutive local positions [0, extents[d]), and the array is
// stored row- or column-major. With a block-cyclic map and column-major order this is
// ScaLAPACK's local matrix (LLD = extents[0]).
#pragma once

#include <array>
#include <cstddef>

#include "../dsi/layout.hpp"
#include "../dsi/rect.hpp"

namespace dmap {

/// The storage of a local array of `extents` positions per dimension.
template <std::size_t N>
class product_layout {
 public:
  /// A local array of extents[d] positions along dimension d, stored in `order`.
  product_layout(const std::array<index_t, N>& extents, storage_order order) {
    index_t step = 1;
    if (order == storage_order::row_major)
      for (std::size_t d = N; d-- > 0;) strides_[d] = step, step *= extents[d];
    else
      for (std::size_t d = 0; d < N; ++d) strides_[d] = step, step *= extents[d];
    size_ = step;
  }
  /// The layout of `piece`, whose first index sits at local positions `position`.
  dense_layout<N> of(const rect<N>& piece, const std::array<index_t, N>& position) const {
    index_t offset = 0;
    for (std::size_t d = 0; d < N; ++d) offset += position[d] * strides_[d];
    return dense_layout<N>{piece, strides_, offset};
  }
  /// Element distance between neighbouring positions, per dimension.
  const std::array<index_t, N>& strides() const noexcept { return strides_; }
  /// The number of elements of the local array.
  index_t size() const noexcept { return size_; }

 private:
  std::array<index_t, N> strides_{};
  index_t size_ = 0;
};

}  // namespace dmap
