// expect: assignment of read-only location
// local(i) of a const sparse array is a read-only reference.
#include <dmap/dmap.hpp>

void misuse(const dmap::sparse_array<double, 2>& a) { a.local(dmap::idx<2>{1, 2}) = 3.0; }
