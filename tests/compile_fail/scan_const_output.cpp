// expect: concept dmap::scan_output
// A scan into a const array (or a read-only view) cannot write its result.
#include <dmap/dmap.hpp>

void misuse(dmap::array<double, 1>& a, const dmap::array<double, 1>& b) { dmap::exclusive_scan(a, b, 0.0); }
