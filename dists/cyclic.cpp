// The compiled library's instantiations of dists/cyclic.hpp (runtime/precompiled.hpp).
#include "cyclic.hpp"

namespace dmap {
DMAP_DEFINE_PRECOMPILED(DMAP_CYCLIC_INSTANCES)
}  // namespace dmap
