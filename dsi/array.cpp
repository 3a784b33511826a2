// The compiled library's instantiations of dsi/array.hpp (runtime/precompiled.hpp).
#include "array.hpp"

namespace dmap {
DMAP_DEFINE_PRECOMPILED(DMAP_ARRAY_INSTANCES)
}  // namespace dmap
