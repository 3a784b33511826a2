// expect: dmap scans: the operation must combine two values
// An operation that cannot combine two values of the scanned type.
#include <dmap/dmap.hpp>

#include <string>

void misuse(dmap::array<double, 1>& a, dmap::array<double, 1>& b) {
  dmap::inclusive_scan(a, b, [](const std::string& x, const std::string& y) { return x + y; });
}
