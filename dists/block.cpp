// The compiled library's instantiations of dists/block.hpp (runtime/precompiled.hpp).
#include "block.hpp"

namespace dmap {
DMAP_DEFINE_PRECOMPILED(DMAP_BLOCK_INSTANCES)
}  // namespace dmap
