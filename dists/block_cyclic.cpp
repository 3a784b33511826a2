// The compiled library's instantiations of dists/block_cyclic.hpp (runtime/precompiled.hpp).
#include "block_cyclic.hpp"

namespace dmap {
DMAP_DEFINE_PRECOMPILED(DMAP_BLOCK_CYCLIC_INSTANCES)
}  // namespace dmap
