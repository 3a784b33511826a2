// The compiled library's instantiations of runtime/grid.hpp (runtime/precompiled.hpp).
#include "grid.hpp"

namespace dmap {
DMAP_DEFINE_PRECOMPILED(DMAP_GRID_INSTANCES)
}  // namespace dmap
