// Cyclic: index i goes to locale (i - start) mod p along each dimension (Chapel's
// cyclicDist). A dimensional map with a cyclic specifier in every dimension; each locale
// owns one strided rect, stored densely.
#pragma once

#include <array>
#include <optional>

#include "../runtime/precompiled.hpp"
#include "dimensional.hpp"

namespace dmap {

/// The Cyclic distribution over a target grid; `start` defaults to the domain's low bounds.
template <std::size_t N>
class cyclic : public dimensional<N> {
 public:
  /// Cyclic from the domain's low bounds over the default grid.
  cyclic() : cyclic(std::nullopt) {}
  /// Cyclic from `start` (per dimension) over `grid`.
  explicit cyclic(std::optional<idx<N>> start, const target_grid<N>& grid = {},
                  storage_order order = storage_order::row_major)
      : dimensional<N>(specs(start), grid, order) {}

 private:
  static std::array<dim_spec, N> specs(const std::optional<idx<N>>& start);
};

template <std::size_t N>
std::array<dim_spec, N> cyclic<N>::specs(const std::optional<idx<N>>& start) {
  std::array<dim_spec, N> s;
  for (std::size_t d = 0; d < N; ++d)
    s[d] = cyclic_dim{start ? std::optional<index_t>((*start)[d]) : std::nullopt};
  return s;
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_CYCLIC_INSTANCES(N, how)                                                         \
  how class cyclic<N>;                                                                        \
  how class detail::domain_model<N, cyclic<N>, dimensional_domain<N>>;
DMAP_DECLARE_PRECOMPILED(DMAP_CYCLIC_INSTANCES)

}  // namespace dmap
