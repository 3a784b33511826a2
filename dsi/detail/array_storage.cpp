// The compiled library's instantiations of dsi/detail/array_storage.hpp (runtime/precompiled.hpp).
#include "array_storage.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_ARRAY_STORAGE_INSTANCES)
}  // namespace dmap::detail
