// The compiled library's instantiations of the conformance checks (conformance/detail/one_case.hpp,
// runtime/precompiled.hpp).
#include "one_case.hpp"

namespace dmap::conformance::detail {
DMAP_DEFINE_PRECOMPILED(DMAP_CONFORMANCE_INSTANCES)
}  // namespace dmap::conformance::detail
