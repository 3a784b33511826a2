// expect: reduce over a zip needs a transform
// A zip has no single element to fold: reduce over a zip needs a transform.
#include <dmap/dmap.hpp>

double misuse(dmap::array<double, 2>& a, dmap::array<double, 2>& b) {
  return dmap::reduce(dmap::zip(a, b), 0.0);
}
