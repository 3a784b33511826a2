// expect: concept dmap::loop_iterand
// Something that is neither a domain, an array, a view nor a zip of them.
#include <dmap/dmap.hpp>

#include <vector>

void misuse(std::vector<double>& v) {
  dmap::forall(v, [](double& x) { x = 1; });
}
