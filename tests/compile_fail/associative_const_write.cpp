// expect: lvalue required as left operand of assignment
// A const associative array reads any key (A[key] gives the value) but is not written through.
#include <dmap/dmap.hpp>

#include <cstdint>

void misuse(const dmap::associative_array<double, std::int64_t>& a) { a[42] = 3.0; }
