// The compiled library's instantiations of dsi/detail/locator.hpp (runtime/precompiled.hpp).
#include "locator.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_LOCATOR_INSTANCES)
DMAP_DEFINE_PRECOMPILED_PAIRS(DMAP_LOCATOR_SECTION_INSTANCES)
}  // namespace dmap::detail
