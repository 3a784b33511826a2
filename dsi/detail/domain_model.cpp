// The compiled library's instantiations of dsi/detail/domain_model.hpp (runtime/precompiled.hpp).
#include "domain_model.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_DOMAIN_MODEL_INSTANCES)
}  // namespace dmap::detail
