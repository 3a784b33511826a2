// The compiled library's instantiations of dsi/detail/domain_state.hpp (runtime/precompiled.hpp).
#include "domain_state.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_DOMAIN_STATE_INSTANCES)
}  // namespace dmap::detail
