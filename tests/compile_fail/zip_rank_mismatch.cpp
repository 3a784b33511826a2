// expect: concept dmap::same_rank_iterands
// Zipped iterands must have the same number of dimensions.
#include <dmap/dmap.hpp>

void misuse(dmap::array<double, 2>& a, dmap::array<double, 1>& b) {
  dmap::forall(dmap::zip(a, b), [](double& x, double& y) { x = y; });
}
