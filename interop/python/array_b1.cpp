// dmap.Array of dtype bool: typed_array<boolean, M> for M = 1, 2, 3.
// The build compiles the six dtypes' files as one unit (cmake/dmapPython.cmake).
#include "array_impl.h"

namespace dmap::python {

std::shared_ptr<array_handle> make_array_b1(const std::shared_ptr<domain_handle>& domain, bool zeroed) {
  return make_typed<boolean>(domain, zeroed);
}

std::shared_ptr<array_handle> import_dap_b1(const dap_input& in) { return import_dap_typed<boolean>(in); }

std::shared_ptr<array_handle> import_partitioned_b1(const partitioned_input& in) {
  return import_partitioned_typed<boolean>(in);
}

}  // namespace dmap::python
