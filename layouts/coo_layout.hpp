// coo_layout<N>: a sparse layout that keeps the coordinates of its indices, sorted in
// row-major order (Chapel's default sparse layout, the COO format): N integers per index,
// lookups by binary search.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "../dsi/detail/order_key_sort.hpp"
#include "../dsi/index.hpp"
#include "../dsi/rect.hpp"
#include "../dsi/sparse_layout.hpp"

namespace dmap {

/// Sorted coordinates (COO): the indices of a piece in row-major order, one idx per index.
template <std::size_t N>
class coo_layout {
 public:
  /// An empty layout (the prototype a sparse domain is given).
  coo_layout() = default;

  /// Row-major order: `a` before `b` when its first differing coordinate is smaller.
  static bool precedes(const idx<N>& a, const idx<N>& b) noexcept {
    for (std::size_t d = 0; d < N; ++d)
      if (a[d] != b[d]) return a[d] < b[d];
    return false;
  }
  /// Sorts `indices` (inside `piece`) in row-major order and drops repeats, by integer keys.
  static void sort_unique(const rect<N>& piece, std::vector<idx<N>>& indices) {
    std::array<std::size_t, N> dims{};
    for (std::size_t d = 0; d < N; ++d) dims[d] = d;
    detail::sort_unique_by_key(piece, dims, indices);
  }
  /// The layout of `sorted` (distinct indices in row-major order, inside the piece).
  coo_layout built(const rect<N>&, std::span<const idx<N>> sorted) const {
    coo_layout l;
    l.indices_.assign(sorted.begin(), sorted.end());
    return l;
  }
  /// The number of indices stored.
  index_t size() const noexcept { return static_cast<index_t>(indices_.size()); }
  /// The position of `i`, or -1 when it is not stored.
  index_t position_of(const idx<N>& i) const noexcept {
    const auto it = std::lower_bound(indices_.begin(), indices_.end(), i);
    return it != indices_.end() && *it == i ? static_cast<index_t>(it - indices_.begin()) : -1;
  }
  /// Writes the indices at positions [first, last) to `out`.
  void decode(index_t first, index_t last, idx<N>* out) const noexcept {
    std::copy(indices_.begin() + first, indices_.begin() + last, out);
  }
  /// "coo".
  static std::string name() { return "coo"; }
  /// The bytes of index storage.
  std::size_t bytes() const noexcept { return indices_.size() * sizeof(idx<N>); }
  /// The stored indices, in row-major order.
  std::span<const idx<N>> coordinates() const noexcept { return indices_; }

  /// Equal layouts store the same indices.
  friend bool operator==(const coo_layout&, const coo_layout&) = default;

 private:
  std::vector<idx<N>> indices_;
};

static_assert(sparse_layout<coo_layout<2>, 2>);

}  // namespace dmap
