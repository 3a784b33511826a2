// expect: dmap::sparse_array::operator=: assignment copies values between arrays of one kind
// Sparse arrays are placed by index, associative ones by key: one does not take the other.
#include <dmap/dmap.hpp>

#include <cstdint>

void misuse(dmap::sparse_array<double, 1>& s, const dmap::associative_array<double, std::int64_t>& a) { s = a; }
