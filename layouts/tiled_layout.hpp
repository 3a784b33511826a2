// tiled_layout<N>: a local layout that stores each piece as tiles of tile[0] x tile[1] x ...
// positions (in the piece's own iteration order and stride), each tile one contiguous block;
// the tiles at a piece's far edges are cut short. A tile is its own dense_layout, so a piece
// becomes several parts: a map that uses this layout lists the tiles as its local_subdomains
// (dmap::owned_rects) and their layouts as its local_layouts (dmap::layouts_of), and loops,
// reductions and transfers then work tile by tile. Tiles keep a small working set contiguous
// (blocked algorithms, cache-sized tiles handed to a kernel as one compact array).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "../dsi/index.hpp"
#include "../dsi/layout.hpp"
#include "../dsi/local_layout.hpp"
#include "../dsi/rect.hpp"
#include "../runtime/errors.hpp"

namespace dmap {

/// Pieces cut into tiles of `tile()` positions per dimension, each tile stored compactly in
/// `order()`; the tiles of a piece follow each other in the same order over the tile grid
/// (row-major: the last dimension's tile index fastest), the pieces' tiles in piece order,
/// from offset 0 without gaps.
template <std::size_t N>
class tiled_layout {
 public:
  /// Tiles of tile[d] >= 1 positions along dimension d (argument_error naming `tile`
  /// otherwise), stored in `order`.
  explicit tiled_layout(const std::array<index_t, N>& tile, storage_order order = storage_order::row_major)
      : tile_(tile), order_(order) {
    for (std::size_t d = 0; d < N; ++d)
      if (tile[d] < 1) {
        std::ostringstream s;
        s << "dmap::tiled_layout: tile is " << idx<N>(tile) << "; a tile must hold at least 1 position in every dimension";
        throw argument_error(s.str());
      }
  }

  /// The tile extents, in positions per dimension.
  const std::array<index_t, N>& tile() const noexcept { return tile_; }
  /// The order of the elements in a tile and of the tiles of a piece.
  storage_order order() const noexcept { return order_; }
  /// "tiled(4x8, row-major)".
  std::string name() const {
    std::ostringstream s;
    s << "tiled(";
    for (std::size_t d = 0; d < N; ++d) s << (d ? "x" : "") << tile_[d];
    s << ", " << (order_ == storage_order::row_major ? "row-major" : "column-major") << ")";
    return s.str();
  }
  /// The tiles of `piece`, in storage order (none when it is empty).
  std::vector<rect<N>> tiles(const rect<N>& piece) const {
    std::vector<rect<N>> out;
    if (piece.empty()) return out;
    std::array<index_t, N> count{}, k{};
    for (std::size_t d = 0; d < N; ++d) count[d] = (piece.dim(d).size() + tile_[d] - 1) / tile_[d];
    while (true) {
      rect<N> t = piece;
      for (std::size_t d = 0; d < N; ++d) {
        const range& r = piece.dim(d);
        const index_t from = k[d] * tile_[d];
        const index_t n = std::min(tile_[d], r.size() - from);
        t.set_dim(d, range::counted(r.first() + from * r.stride(), n, r.stride()));
      }
      out.push_back(t);
      // The next tile coordinate: the last dimension fastest (row-major) or the first.
      std::size_t j = 0;
      for (; j < N; ++j) {
        const std::size_t d = order_ == storage_order::row_major ? N - 1 - j : j;
        if (++k[d] < count[d]) break;
        k[d] = 0;
      }
      if (j == N) break;
    }
    return out;
  }
  /// One part per tile of every non-empty piece, each stored compactly after the previous one.
  std::vector<placed_piece<N>> place(const std::vector<rect<N>>& pieces) const {
    std::vector<placed_piece<N>> out;
    index_t offset = 0;
    for (const auto& piece : pieces)
      for (const auto& t : tiles(piece)) {
        out.push_back({t, dense_layout<N>::make(t, offset, order_)});
        offset += t.size();
      }
    return out;
  }

  /// Equal layouts cut the same tiles and store them alike.
  friend bool operator==(const tiled_layout&, const tiled_layout&) = default;

 private:
  std::array<index_t, N> tile_{};
  storage_order order_ = storage_order::row_major;
};

static_assert(local_layout<tiled_layout<1>, 1>);
static_assert(local_layout<tiled_layout<2>, 2>);
static_assert(local_layout<tiled_layout<3>, 3>);

}  // namespace dmap
