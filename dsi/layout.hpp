// dense_layout<N>: how one locale stores one rectangular block of indices, as an (offset,
// extents, strides) mapping like mdspan's layout_stride; local_block<T, N> pairs it with the
// memory. Part of the DSI contract: a distribution describes its local storage with these.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>

#include "rect.hpp"
#include "strided_span.hpp"

namespace dmap {

/// The order in which a block's elements follow each other in memory.
enum class storage_order { row_major, column_major };

/// Maps the indices of one rect to element offsets in a locale's buffer. Element positions
/// follow each dimension's iteration order, so strided rects are stored compactly.
template <std::size_t N>
struct dense_layout {
  rect<N> indices;                    ///< the global indices stored
  std::array<index_t, N> strides{};   ///< element distance between neighbours, per dimension
  index_t offset = 0;                 ///< offset of the first element in the locale's buffer

  /// A compact layout of `indices` starting at `offset`.
  static dense_layout make(const rect<N>& indices, index_t offset,
                           storage_order order = storage_order::row_major) {
    dense_layout l{indices, {}, offset};
    index_t step = 1;
    if (order == storage_order::row_major) {
      for (std::size_t d = N; d-- > 0;) l.strides[d] = step, step *= indices.dim(d).size();
    } else {
      for (std::size_t d = 0; d < N; ++d) l.strides[d] = step, step *= indices.dim(d).size();
    }
    return l;
  }

  /// The number of elements stored.
  index_t size() const noexcept { return indices.size(); }
  /// One past the largest offset used (mdspan's required_span_size, plus the offset): the
  /// buffer length this block needs; blocks of one local array may interleave.
  index_t end() const noexcept {
    if (indices.empty()) return offset;
    index_t last = offset;
    for (std::size_t d = 0; d < N; ++d) last += (indices.dim(d).size() - 1) * strides[d];
    return last + 1;
  }
  /// The number of elements per dimension.
  std::array<index_t, N> extents() const noexcept { return indices.shape(); }
  /// The buffer offset of index `i` (precondition: indices.contains(i)).
  index_t offset_of(const idx<N>& i) const noexcept {
    index_t o = offset;
    for (std::size_t d = 0; d < N; ++d) {
      const range& r = indices.dim(d);
      const index_t s = r.stride();
      const index_t pos = s == 1 ? i[d] - r.lo() : (i[d] - r.first()) / s;
      o += pos * strides[d];
    }
    return o;
  }
  /// True: every index has its own element (mdspan's is_unique).
  static constexpr bool is_unique() noexcept { return true; }
  /// True when the elements fill [offset, offset + size()) without gaps (mdspan's
  /// is_exhaustive): a compact row- or column-major block, not a piece of a larger array.
  bool is_exhaustive() const noexcept {
    std::array<std::size_t, N> by_stride{};
    for (std::size_t d = 0; d < N; ++d) by_stride[d] = d;
    std::sort(by_stride.begin(), by_stride.end(),
              [&](std::size_t a, std::size_t b) { return detail::abs_index(strides[a]) < detail::abs_index(strides[b]); });
    index_t step = 1;
    for (std::size_t d : by_stride) {
      const index_t extent = indices.dim(d).size();
      if (extent == 0) return true;
      if (extent > 1 && detail::abs_index(strides[d]) != step) return false;
      step *= extent;
    }
    return true;
  }
  /// True: offsets are linear in the positions (mdspan's is_strided).
  static constexpr bool is_strided() noexcept { return true; }
};

/// One locale's block of an array: the layout and the memory. `span()` is the block as an
/// mdspan-style view (pointer, extents, strides), which `to_mdspan` turns into a
/// std::mdspan (or Kokkos mdspan) with a layout_stride mapping.
template <class T, std::size_t N>
struct local_block {
  dense_layout<N> layout;  ///< which indices, and where each one lives
  T* base = nullptr;       ///< the locale's buffer; element of i is base[layout.offset_of(i)]

  /// The first element of the block.
  T* data() const noexcept { return base + layout.offset; }
  /// The number of elements per dimension.
  std::array<index_t, N> extents() const noexcept { return layout.extents(); }
  /// The element distance between neighbours per dimension (negative: stored backwards).
  const std::array<index_t, N>& strides() const noexcept { return layout.strides; }
  /// The element of global index `i` (precondition: layout.indices.contains(i)).
  T& operator()(const idx<N>& i) const noexcept { return base[layout.offset_of(i)]; }
  /// The block as an mdspan-style view indexed by local positions (0-based per dimension).
  strided_span<T, N> span() const noexcept { return {data(), extents(), layout.strides}; }
};

}  // namespace dmap
