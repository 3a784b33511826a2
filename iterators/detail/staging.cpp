// The compiled library's instantiations of iterators/detail/staging.hpp (runtime/precompiled.hpp).
#include "staging.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_STAGING_INSTANCES)
}  // namespace dmap::detail
