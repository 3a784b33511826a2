// The compiled library's instantiations of dsi/detail/locator.hpp (runtime/precompiled.hpp).
#include "locator.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_LOCATOR_INSTANCES)
}  // namespace dmap::detail
