// expect: concept dmap::sparse_body
// A sparse loop body whose parameter cannot take what the zip hands: a double where the
// sparse domain yields an index.
#include <dmap/dmap.hpp>

void misuse(dmap::sparse_array<double, 2>& a, const dmap::sparse_domain<2>& s) {
  dmap::forall(dmap::zip(a, s), [](double& x, double i) { x = i; });
}
