// expect: lvalue required as left operand of assignment
// A const dense array reads any index (A[i] gives the value) but is not written through.
#include <dmap/dmap.hpp>

void misuse(const dmap::array<double, 2>& a) { a[dmap::idx<2>{1, 2}] = 3.0; }
