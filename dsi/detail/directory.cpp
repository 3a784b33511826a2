// The compiled library's instantiations of dsi/detail/directory.hpp (runtime/precompiled.hpp).
#include "directory.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_DIRECTORY_INSTANCES)
}  // namespace dmap::detail
