// dmap.Array of dtype int32: typed_array<std::int32_t, M> for M = 1, 2, 3.
// The build compiles the six dtypes' files as one unit (cmake/dmapPython.cmake).
#include "array_impl.h"

namespace dmap::python {

std::shared_ptr<array_handle> make_array_i32(const std::shared_ptr<domain_handle>& domain, bool zeroed) {
  return make_typed<std::int32_t>(domain, zeroed);
}

std::shared_ptr<array_handle> import_dap_i32(const dap_input& in) { return import_dap_typed<std::int32_t>(in); }

std::shared_ptr<array_handle> import_partitioned_i32(const partitioned_input& in) {
  return import_partitioned_typed<std::int32_t>(in);
}

}  // namespace dmap::python
