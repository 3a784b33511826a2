// expect: a sparse or associative domain or array zips only as the leader
// A dense leader cannot drive a sparse follower: the sparse operand leads (its indices say where
// the loop runs).
#include <dmap/dmap.hpp>

void misuse(dmap::array<double, 2>& d, dmap::sparse_array<double, 2>& s) {
  dmap::forall(dmap::zip(d, s), [](double& x, double& y) { x = y; });
}
