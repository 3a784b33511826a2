// dmap.Array of dtype complex128: typed_array<std::complex<double>, M> for M = 1, 2, 3.
// The build compiles the six dtypes' files as one unit (cmake/dmapPython.cmake).
#include "array_impl.h"

namespace dmap::python {

std::shared_ptr<array_handle> make_array_c128(const std::shared_ptr<domain_handle>& domain, bool zeroed) {
  return make_typed<std::complex<double>>(domain, zeroed);
}

std::shared_ptr<array_handle> import_dap_c128(const dap_input& in) { return import_dap_typed<std::complex<double>>(in); }

std::shared_ptr<array_handle> import_partitioned_c128(const partitioned_input& in) {
  return import_partitioned_typed<std::complex<double>>(in);
}

}  // namespace dmap::python
