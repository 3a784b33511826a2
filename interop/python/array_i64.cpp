// dmap.Array of dtype int64: typed_array<std::int64_t, M> for M = 1, 2, 3.
// The build compiles the six dtypes' files as one unit (cmake/dmapPython.cmake).
#include "array_impl.h"

namespace dmap::python {

std::shared_ptr<array_handle> make_array_i64(const std::shared_ptr<domain_handle>& domain, bool zeroed) {
  return make_typed<std::int64_t>(domain, zeroed);
}

std::shared_ptr<array_handle> import_dap_i64(const dap_input& in) { return import_dap_typed<std::int64_t>(in); }

std::shared_ptr<array_handle> import_partitioned_i64(const partitioned_input& in) {
  return import_partitioned_typed<std::int64_t>(in);
}

}  // namespace dmap::python
