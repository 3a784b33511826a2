// dmap.Array of dtype float64: typed_array<double, M> for M = 1, 2, 3 (one
// translation unit per dtype keeps each compile small and lets them build in parallel).
#include "array_impl.h"

namespace dmap::python {

std::shared_ptr<array_handle> make_array_f64(const std::shared_ptr<domain_handle>& domain) {
  return make_typed<double>(domain);
}

}  // namespace dmap::python
