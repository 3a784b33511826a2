// Irregular Block: explicit cut points per dimension; along dimension d with p locales,
// locale k owns [cuts[d][k-1], cuts[d][k]) (the first and last locales also own whatever
// lies below/above). For unequal locales or load balancing by hand.
#pragma once

#include <array>
#include <vector>

#include "../runtime/precompiled.hpp"
#include "dimensional.hpp"

namespace dmap {

/// The irregular Block distribution over a target grid: `cuts[d]` holds extent(d) - 1
/// nondecreasing cut points inside the domain's bounds.
template <std::size_t N>
class irregular_block : public dimensional<N> {
 public:
  /// Cut points `cuts[d]` per dimension over `grid`.
  explicit irregular_block(const std::array<std::vector<index_t>, N>& cuts, const target_grid<N>& grid = {},
                           storage_order order = storage_order::row_major)
      : dimensional<N>(specs(cuts), grid, order) {}

 private:
  static std::array<dim_spec, N> specs(const std::array<std::vector<index_t>, N>& cuts);
};

template <std::size_t N>
std::array<dim_spec, N> irregular_block<N>::specs(const std::array<std::vector<index_t>, N>& cuts) {
  std::array<dim_spec, N> s;
  for (std::size_t d = 0; d < N; ++d) s[d] = irregular_dim{cuts[d]};
  return s;
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_IRREGULAR_INSTANCES(N, how)                                                      \
  how class irregular_block<N>;                                                               \
  how class detail::domain_model<N, irregular_block<N>, dimensional_domain<N>>;
DMAP_DECLARE_PRECOMPILED(DMAP_IRREGULAR_INSTANCES)

}  // namespace dmap
