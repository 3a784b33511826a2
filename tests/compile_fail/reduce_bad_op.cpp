// expect: concept dmap::reduction_op
// An operation that cannot combine two values of the result type.
#include <dmap/dmap.hpp>

#include <string>

double misuse(dmap::array<double, 1>& a) {
  return dmap::reduce(a, 0.0, [](const std::string& x, const std::string& y) { return x + y; });
}
