// compressed_layout<N, Major>: a sparse layout compressed along one dimension (CSR along
// dimension 0, CSC along dimension N - 1): one start position per slice of the piece along
// that dimension, and the other coordinates of each index, sorted within each slice.
// Chapel's CS layout, generalised to N dimensions.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "../dsi/detail/order_key_sort.hpp"
#include "../dsi/index.hpp"
#include "../dsi/rect.hpp"
#include "../dsi/sparse_layout.hpp"

namespace dmap {

/// Compressed storage along dimension `Major`: the indices sorted by their `Major`
/// coordinate, then by the others in dimension order; `starts()[k]` is the position of the
/// first index whose `Major` coordinate is the k-th integer of the piece's range along
/// `Major` (ascending), `starts()[k + 1]` one past its last; `minor()` holds the other
/// coordinates. Holds (piece extent along `Major` + 1) + size() * (N - 1) integers.
template <std::size_t N, std::size_t Major>
  requires(Major < N)
class compressed_layout {
 public:
  /// The other coordinates of an index, in dimension order.
  using minor_index = std::array<index_t, N - 1>;

  /// An empty layout (the prototype a sparse domain is given).
  compressed_layout() = default;

  /// The storage order: by the `Major` coordinate, then the others in dimension order.
  static bool precedes(const idx<N>& a, const idx<N>& b) noexcept {
    if (a[Major] != b[Major]) return a[Major] < b[Major];
    for (std::size_t d = 0; d < N; ++d)
      if (d != Major && a[d] != b[d]) return a[d] < b[d];
    return false;
  }
  /// Sorts `indices` (inside `piece`) in storage order and drops repeats, by integer keys.
  static void sort_unique(const rect<N>& piece, std::vector<idx<N>>& indices) {
    std::array<std::size_t, N> dims{};
    dims[0] = Major;
    for (std::size_t d = 0, j = 1; d < N; ++d)
      if (d != Major) dims[j++] = d;
    detail::sort_unique_by_key(piece, dims, indices);
  }
  /// The layout of `sorted` (distinct, in storage order, inside `piece`).
  compressed_layout built(const rect<N>& piece, std::span<const idx<N>> sorted) const {
    compressed_layout l;
    const range& major = piece.dim(Major);
    l.low_ = major.empty() ? 0 : major.aligned_low();
    l.step_ = detail::abs_index(major.stride());
    l.starts_.assign(static_cast<std::size_t>(major.size()) + 1, 0);
    l.minor_.reserve(sorted.size());
    for (const idx<N>& i : sorted) {
      ++l.starts_[static_cast<std::size_t>(l.slot_of(i[Major])) + 1];
      l.minor_.push_back(minor_of(i));
    }
    for (std::size_t k = 1; k < l.starts_.size(); ++k) l.starts_[k] += l.starts_[k - 1];
    return l;
  }
  /// The number of indices stored.
  index_t size() const noexcept { return static_cast<index_t>(minor_.size()); }
  /// The position of `i`, or -1 when it is not stored.
  index_t position_of(const idx<N>& i) const noexcept {
    if (starts_.size() < 2 || i[Major] < low_) return -1;
    const index_t offset = i[Major] - low_;
    if (offset % step_ != 0 || offset / step_ >= static_cast<index_t>(starts_.size()) - 1) return -1;
    const auto k = static_cast<std::size_t>(offset / step_);
    const minor_index m = minor_of(i);
    const auto first = minor_.begin() + starts_[k], last = minor_.begin() + starts_[k + 1];
    const auto it = std::lower_bound(first, last, m);
    return it != last && *it == m ? static_cast<index_t>(it - minor_.begin()) : -1;
  }
  /// Writes the indices at positions [first, last) to `out`.
  void decode(index_t first, index_t last, idx<N>* out) const noexcept {
    if (first >= last) return;
    auto k = static_cast<std::size_t>(std::upper_bound(starts_.begin(), starts_.end(), first) - starts_.begin()) - 1;
    for (index_t p = first; p < last; ++p) {
      while (starts_[k + 1] <= p) ++k;
      idx<N> i;
      i[Major] = low_ + static_cast<index_t>(k) * step_;
      for (std::size_t d = 0, m = 0; d < N; ++d)
        if (d != Major) i[d] = minor_[static_cast<std::size_t>(p)][m++];
      *out++ = i;
    }
  }
  /// "csr" (compressed along dimension 0), "csc" (along N - 1) or "compressed(d)".
  static std::string name() {
    if (N > 1 && Major == 0) return "csr";
    if (N > 1 && Major == N - 1) return "csc";
    return "compressed(" + std::to_string(Major) + ")";
  }
  /// The bytes of index storage an empty layout of `piece` holds already: one start per slice
  /// along `Major` (and one more), whatever the set; saturates at SIZE_MAX.
  static std::size_t empty_bytes(const rect<N>& piece) noexcept {
    const auto slices = static_cast<std::size_t>(piece.dim(Major).size());
    return slices >= SIZE_MAX / sizeof(index_t) ? SIZE_MAX : (slices + 1) * sizeof(index_t);
  }
  /// The bytes of index storage.
  std::size_t bytes() const noexcept {
    return starts_.size() * sizeof(index_t) + minor_.size() * sizeof(minor_index);
  }
  /// Start positions of the slices along `Major` (piece extent + 1 entries; empty for an
  /// empty layout).
  std::span<const index_t> starts() const noexcept { return starts_; }
  /// The other coordinates of each stored index, in storage order.
  std::span<const minor_index> minor() const noexcept { return minor_; }
  /// The `Major` coordinate of slice k.
  index_t major_at(std::size_t k) const noexcept { return low_ + static_cast<index_t>(k) * step_; }

  /// Equal layouts store the same indices of the same piece.
  friend bool operator==(const compressed_layout&, const compressed_layout&) = default;

 private:
  static minor_index minor_of(const idx<N>& i) noexcept {
    minor_index m{};
    for (std::size_t d = 0, k = 0; d < N; ++d)
      if (d != Major) m[k++] = i[d];
    return m;
  }
  index_t slot_of(index_t major) const noexcept { return (major - low_) / step_; }

  index_t low_ = 0;   // the smallest integer of the piece's range along Major
  index_t step_ = 1;  // that range's stride, as a distance
  std::vector<index_t> starts_;
  std::vector<minor_index> minor_;
};

/// Compressed sparse rows: compressed along dimension 0 (for a matrix, row pointers and
/// column indices).
template <std::size_t N>
using csr_layout = compressed_layout<N, 0>;
/// Compressed sparse columns: compressed along dimension N - 1.
template <std::size_t N>
using csc_layout = compressed_layout<N, N - 1>;

static_assert(sparse_layout<csr_layout<2>, 2>);
static_assert(sparse_layout<csc_layout<3>, 3>);

}  // namespace dmap
