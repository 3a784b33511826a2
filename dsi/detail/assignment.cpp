// The compiled library's instantiations of dsi/detail/assignment.hpp (runtime/precompiled.hpp).
#include "assignment.hpp"

namespace dmap::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_ASSIGNMENT_INSTANCES)
}  // namespace dmap::detail
