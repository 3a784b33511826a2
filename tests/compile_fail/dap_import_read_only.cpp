// expect: dmap::dap_import adopts writable buffers
// A DAP description of a const array is read-only (buffer is a const T*): importing it would
// hand the new array a buffer it may not write.
#include <dmap/dmap.hpp>

dmap::array<double, 2> misuse(const dmap::array<double, 2>& a) { return dmap::dap_import(dmap::dap_export(a)); }
