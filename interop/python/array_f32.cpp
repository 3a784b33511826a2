// dmap.Array of dtype float32: typed_array<float, M> for M = 1, 2, 3.
// The build compiles the six dtypes' files as one unit (cmake/dmapPython.cmake).
#include "array_impl.h"

namespace dmap::python {

std::shared_ptr<array_handle> make_array_f32(const std::shared_ptr<domain_handle>& domain, bool zeroed) {
  return make_typed<float>(domain, zeroed);
}

std::shared_ptr<array_handle> import_dap_f32(const dap_input& in) { return import_dap_typed<float>(in); }

std::shared_ptr<array_handle> import_partitioned_f32(const partitioned_input& in) {
  return import_partitioned_typed<float>(in);
}

}  // namespace dmap::python
