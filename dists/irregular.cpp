// The compiled library's instantiations of dists/irregular.hpp (runtime/precompiled.hpp).
#include "irregular.hpp"

namespace dmap {
DMAP_DEFINE_PRECOMPILED(DMAP_IRREGULAR_INSTANCES)
}  // namespace dmap
