// dense_layout<N>: how one locale stores one rectangular block of indices, as an (offset,
// extents, strides) mapping like mdspan's layout_stride; local_block<T, N> pairs it with the
// memory. Part of the DSI contract: a distribution describes its local storage with these.
// row_padding: how far apart a dense layout's rows are (rows of a power-of-two length alias
// in the cache; a few elements of padding after each row avoid it).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>

#include "rect.hpp"
#include "strided_span.hpp"

namespace dmap {

/// The order in which a block's elements follow each other in memory.
enum class storage_order { row_major, column_major };

/// How a dense layout pads its rows: the leading dimension's stride (dimension N - 2 of a
/// row-major layout, dimension 1 of a column-major one) may exceed the row length, leaving
/// unused elements (gaps) after each row. Rows whose length in elements is a multiple of 256
/// (4096 doubles: 32 KiB) sit a multiple of 4 KiB apart and map to the same cache sets, so a
/// stencil reading rows i - 1, i and i + 1 evicts its own data (4K aliasing); padding breaks
/// the pattern. 1-D layouts have no rows and are never padded.
class row_padding {
 public:
  /// What a policy does.
  enum class mode {
    none,       ///< rows follow each other (compact storage)
    automatic,  ///< rows whose length is a multiple of automatic_period get automatic_elements more
    fixed       ///< every row gets elements() more
  };
  /// Automatic padding pads a row whose length is a multiple of this many elements.
  static constexpr index_t automatic_period = 256;
  /// How many elements automatic padding adds after such a row (64 bytes of doubles: one
  /// cache line).
  static constexpr index_t automatic_elements = 8;

  /// Compact rows, no gaps.
  static constexpr row_padding none() noexcept { return row_padding(mode::none, 0); }
  /// Rows whose length is a multiple of automatic_period elements get automatic_elements
  /// more; other rows stay compact. Never makes a layout too large for int64 (it then pads
  /// nothing).
  static constexpr row_padding automatic() noexcept { return row_padding(mode::automatic, 0); }
  /// Every row gets `elements` more (>= 0; 0 is none()). Throws argument_error naming
  /// `elements` when it is negative; a layout whose padded size would not fit int64 is an
  /// argument_error when it is made.
  static row_padding fixed(index_t elements) {
    if (elements < 0)
      throw argument_error("dmap::row_padding::fixed: elements is " + std::to_string(elements) +
                           "; row padding must be >= 0 elements");
    return elements == 0 ? none() : row_padding(mode::fixed, elements);
  }

  /// The policy.
  constexpr mode kind() const noexcept { return mode_; }
  /// The elements fixed() adds to every row (0 for the other modes).
  constexpr index_t elements() const noexcept { return elements_; }
  /// The elements added after a row of `length` elements.
  constexpr index_t extra(index_t length) const noexcept {
    switch (mode_) {
      case mode::automatic: return length > 0 && length % automatic_period == 0 ? automatic_elements : 0;
      case mode::fixed: return elements_;
      default: return 0;
    }
  }

  /// Equal policies pad every row alike.
  friend constexpr bool operator==(const row_padding&, const row_padding&) = default;
  /// "none", "automatic" or "<k> elements".
  friend std::ostream& operator<<(std::ostream& os, const row_padding& p) {
    if (p.mode_ == mode::fixed) return os << p.elements_ << " elements";
    return os << (p.mode_ == mode::none ? "none" : "automatic");
  }

 private:
  constexpr row_padding(mode m, index_t elements) noexcept : mode_(m), elements_(elements) {}
  mode mode_ = mode::none;
  index_t elements_ = 0;
};

/// Maps the indices of one rect to element offsets in a locale's buffer. Element positions
/// follow each dimension's iteration order, so strided rects are stored compactly (or with
/// padded rows: see row_padding).
template <std::size_t N>
struct dense_layout {
  rect<N> indices;                    ///< the global indices stored
  std::array<index_t, N> strides{};   ///< element distance between neighbours, per dimension
  index_t offset = 0;                 ///< offset of the first element in the locale's buffer

  /// A layout of `indices` starting at `offset`, in `order`: compact, or with rows padded
  /// as `padding` says (the leading dimension's stride is the row length plus the padding).
  /// Throws argument_error when padded rows make the layout's end exceed 2^63 - 1 (fixed
  /// padding only: automatic padding then pads nothing).
  static dense_layout make(const rect<N>& indices, index_t offset, storage_order order = storage_order::row_major,
                           const row_padding& padding = row_padding::none()) {
    dense_layout l{indices, {}, offset};
    const std::size_t inner = order == storage_order::row_major ? N - 1 : 0;
    const index_t extra = N >= 2 && !indices.empty() ? padding.extra(indices.dim(inner).size()) : 0;
    detail::wide_int step = 1;
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t d = order == storage_order::row_major ? N - 1 - j : j;
      l.strides[d] = static_cast<index_t>(step);
      step *= indices.dim(d).size();
      if (j == 0) step += extra;
      if (extra > 0 && step + offset > std::numeric_limits<index_t>::max()) {
        if (padding.kind() == row_padding::mode::automatic) return make(indices, offset, order);
        std::ostringstream s;
        s << "dmap::dense_layout::make: " << indices << " at offset " << offset << " with row padding " << padding
          << " needs more than 2^63 - 1 elements; a padded layout's end must fit int64";
        throw argument_error(s.str());
      }
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
