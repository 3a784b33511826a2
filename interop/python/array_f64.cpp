// dmap.Array of dtype float64: typed_array<double, M> for M = 1, 2, 3.
// The build compiles the six dtypes' files as one unit (cmake/dmapPython.cmake).
#include "array_impl.h"

namespace dmap::python {

std::shared_ptr<array_handle> make_array_f64(const std::shared_ptr<domain_handle>& domain, bool zeroed) {
  return make_typed<double>(domain, zeroed);
}

std::shared_ptr<array_handle> import_dap_f64(const dap_input& in) { return import_dap_typed<double>(in); }

std::shared_ptr<array_handle> import_partitioned_f64(const partitioned_input& in) {
  return import_partitioned_typed<double>(in);
}

}  // namespace dmap::python
