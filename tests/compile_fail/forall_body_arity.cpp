// expect: concept dmap::loop_body
// A body that takes fewer arguments than the zip has iterands.
#include <dmap/dmap.hpp>

void misuse(dmap::array<double, 2>& a, dmap::array<double, 2>& b) {
  dmap::forall(dmap::zip(a, b), [](double& x) { x = 1; });
}
