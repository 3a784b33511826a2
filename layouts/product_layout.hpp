// product_layout<N>: one dense local array for a locale whose part of a domain is a product
// of per-dimension pieces (Dimensional, Cyclic, BlockCyclic, Irregular): along dimension d
// the locale's pieces take consecutive local positions [0, extents[d]), and the array is
// stored row- or column-major. With a block-cyclic map and column-major order this is
// ScaLAPACK's local matrix (LLD = extents[0]). A local_layout model: `place` finds the
// positions from the pieces; a map that knows them already (Dimensional) calls `strides`
// and `of` directly.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "../dsi/layout.hpp"
#include "../dsi/local_layout.hpp"
#include "../dsi/rect.hpp"

namespace dmap {

/// The storage of a local array over a product of per-dimension pieces, in one order.
template <std::size_t N>
class product_layout {
 public:
  /// Row-major.
  product_layout() = default;
  /// A local array stored in `order`.
  explicit product_layout(storage_order order) : order_(order) {}

  /// The storage order of the local array.
  storage_order order() const noexcept { return order_; }
  /// "product(row-major)" or "product(column-major)".
  std::string name() const {
    return std::string("product(") + (order_ == storage_order::row_major ? "row-major" : "column-major") + ")";
  }
  /// Element distance between neighbouring positions, per dimension, of a local array of
  /// extents[d] positions along dimension d.
  std::array<index_t, N> strides(const std::array<index_t, N>& extents) const noexcept {
    std::array<index_t, N> out{};
    index_t step = 1;
    if (order_ == storage_order::row_major)
      for (std::size_t d = N; d-- > 0;) out[d] = step, step *= extents[d];
    else
      for (std::size_t d = 0; d < N; ++d) out[d] = step, step *= extents[d];
    return out;
  }
  /// The layout of `piece`, whose first index sits at local positions `position` of a local
  /// array with element distances `strides`.
  static dense_layout<N> of(const rect<N>& piece, const std::array<index_t, N>& position,
                            const std::array<index_t, N>& strides) noexcept {
    index_t offset = 0;
    for (std::size_t d = 0; d < N; ++d) offset += position[d] * strides[d];
    return dense_layout<N>{piece, strides, offset};
  }
  /// One part per non-empty piece, owning it. Precondition: the pieces are combinations of
  /// per-dimension ranges that are disjoint along each dimension (a product, as Dimensional
  /// lists it); along dimension d each distinct range takes the positions after those of the
  /// ranges met before it, in piece order.
  std::vector<placed_piece<N>> place(const std::vector<rect<N>>& pieces) const {
    using key = std::tuple<index_t, index_t, index_t>;  // first, size, stride: one range, however written
    std::array<std::map<key, index_t>, N> seen;
    std::array<index_t, N> extents{};
    std::vector<std::array<index_t, N>> positions;
    std::vector<rect<N>> kept;
    for (const auto& piece : pieces) {
      if (piece.empty()) continue;
      std::array<index_t, N> position{};
      for (std::size_t d = 0; d < N; ++d) {
        const range& r = piece.dim(d);
        const auto [it, fresh] = seen[d].emplace(key{r.first(), r.size(), r.stride()}, extents[d]);
        if (fresh) extents[d] += r.size();
        position[d] = it->second;
      }
      positions.push_back(position);
      kept.push_back(piece);
    }
    const auto step = strides(extents);
    std::vector<placed_piece<N>> out;
    out.reserve(kept.size());
    for (std::size_t k = 0; k < kept.size(); ++k) out.push_back({kept[k], of(kept[k], positions[k], step)});
    return out;
  }

  /// Equal layouts store in the same order.
  friend bool operator==(const product_layout&, const product_layout&) = default;

 private:
  storage_order order_ = storage_order::row_major;
};

static_assert(local_layout<product_layout<1>, 1>);
static_assert(local_layout<product_layout<2>, 2>);
static_assert(local_layout<product_layout<3>, 3>);

}  // namespace dmap
