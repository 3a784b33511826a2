// expect: concept dmap::sparse_iterand
// A zip led by a sparse array takes sparse arrays over its domain, the domain and dense
// arrays, not an array view.
#include <dmap/dmap.hpp>

void misuse(dmap::sparse_array<double, 2>& a, dmap::array<double, 2>& d) {
  dmap::forall(dmap::zip(a, d[dmap::rect<2>{{0, 2}, {0, 2}}]), [](double& x, double& y) { x = y; });
}
