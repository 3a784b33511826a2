// The compiled library's instantiations of dsi/detail/transfer.hpp (runtime/precompiled.hpp).
#include "transfer.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_TRANSFER_INSTANCES)
}  // namespace dmap::detail
