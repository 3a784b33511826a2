// expect: concept dmap::reduction_transform
// A transform that does not take the zip's elements.
#include <dmap/dmap.hpp>

#include <functional>

double misuse(dmap::array<double, 2>& a, dmap::array<double, 2>& b) {
  return dmap::reduce(dmap::zip(a, b), 0.0, std::plus<>{}, [](double x) { return x; });
}
