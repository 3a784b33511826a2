// One DAP dimension dictionary (dap_dimension): how a locale's buffer covers one dimension of
// a distributed array, the unit DAP descriptions are made of.
#pragma once

#include <array>
#include <vector>

#include "../dsi/index_type.hpp"

namespace dmap {

/// One DAP dimension dictionary. Block ('b') uses start/stop/padding/periodic, cyclic ('c')
/// start/block_size, unstructured ('u') indices/one_to_one; not distributed ('n', DAP 0.9;
/// DAP 0.10's empty dictionary) only size and padding.
struct dap_dimension {
  char dist_type = 'b';          ///< 'b' block, 'c' (block-)cyclic, 'u' unstructured, 'n' not distributed
  index_t size = 0;              ///< global extent, boundary padding included
  int proc_grid_size = 1;        ///< locales along this dimension
  int proc_grid_rank = 0;        ///< this locale's grid coordinate along it
  index_t start = 0;             ///< first global position of the local buffer (inclusive)
  index_t stop = 0;              ///< end of the local buffer (exclusive); 0.10: padding included
  std::array<index_t, 2> padding{0, 0};  ///< padding widths before and after
  bool periodic = false;         ///< whether the dimension wraps
  index_t block_size = 1;        ///< 'c': indices per block dealt round robin
  std::vector<index_t> indices{};  ///< 'u': the global positions held, in buffer order
  bool one_to_one = false;       ///< 'u': no position is held by two locales

  friend bool operator==(const dap_dimension&, const dap_dimension&) = default;
};

}  // namespace dmap
