// The compiled library's instantiations of dsi/domain.hpp (runtime/precompiled.hpp).
#include "domain.hpp"

namespace dmap {
DMAP_DEFINE_PRECOMPILED(DMAP_DOMAIN_INSTANCES)
}  // namespace dmap
