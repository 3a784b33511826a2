// BlockCyclic: blocks of block_size[d] indices dealt round robin to the locales along each
// dimension (Chapel's blockCycDist, ScaLAPACK's 2-D block-cyclic layout with source process
// 0 and a C-order grid). With storage_order::column_major a locale's elements sit exactly
// where ScaLAPACK's local matrix (LLD = local row count) keeps them.
#pragma once

#include <array>
#include <optional>

#include "../runtime/precompiled.hpp"
#include "dimensional.hpp"

namespace dmap {

/// The BlockCyclic distribution over a target grid.
template <std::size_t N>
class block_cyclic : public dimensional<N> {
 public:
  /// Blocks of `block_size[d]` indices from the domain's low bounds over `grid`.
  explicit block_cyclic(const idx<N>& block_size, const target_grid<N>& grid = {},
                        storage_order order = storage_order::row_major)
      : block_cyclic(block_size, std::nullopt, grid, order) {}
  /// Blocks of `block_size[d]` indices, block 0 starting at `start[d]`, over `grid`.
  block_cyclic(const idx<N>& block_size, std::optional<idx<N>> start, const target_grid<N>& grid = {},
               storage_order order = storage_order::row_major)
      : dimensional<N>(specs(block_size, start), grid, order) {}

 private:
  static std::array<dim_spec, N> specs(const idx<N>& block_size, const std::optional<idx<N>>& start);
};

template <std::size_t N>
std::array<dim_spec, N> block_cyclic<N>::specs(const idx<N>& block_size, const std::optional<idx<N>>& start) {
  std::array<dim_spec, N> s;
  for (std::size_t d = 0; d < N; ++d)
    s[d] = block_cyclic_dim{block_size[d], start ? std::optional<index_t>((*start)[d]) : std::nullopt};
  return s;
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_BLOCK_CYCLIC_INSTANCES(N, how)                                                   \
  how class block_cyclic<N>;                                                                  \
  how class detail::domain_model<N, block_cyclic<N>, dimensional_domain<N>>;
DMAP_DECLARE_PRECOMPILED(DMAP_BLOCK_CYCLIC_INSTANCES)

}  // namespace dmap
