// expect: dmap::array::operator=: assignment copies values between arrays of one kind
// Assignment copies values between arrays of one kind; a dense array does not take a sparse one
// (read the sparse values into it with a loop zipping both).
#include <dmap/dmap.hpp>

void misuse(dmap::array<double, 1>& d, const dmap::sparse_array<double, 1>& s) { d = s; }
