// The compiled library's instantiations of dsi/detail/chunks.hpp (runtime/precompiled.hpp).
#include "chunks.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_CHUNKS_INSTANCES)
}  // namespace dmap::detail
