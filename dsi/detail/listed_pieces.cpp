// The compiled library's instantiations of dsi/detail/listed_pieces.hpp (runtime/precompiled.hpp).
#include "listed_pieces.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_LISTED_PIECES_INSTANCES)
}  // namespace dmap::detail
