// expect: concept dmap::associative_loop_iterand
// Associative operands are placed by key, dense ones by index: they do not zip.
#include <dmap/dmap.hpp>

#include <cstdint>

void misuse(dmap::associative_array<double, std::int64_t>& a, dmap::array<double, 1>& d) {
  dmap::forall(dmap::zip(a, d), [](double& x, double& y) { x = y; });
}
