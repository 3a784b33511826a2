// expect: concept dmap::associative_body
// The body of a loop over an associative domain takes the key, not a value.
#include <dmap/dmap.hpp>

#include <cstdint>

void misuse(dmap::associative_domain<std::int64_t>& d) {
  dmap::forall(d, [](double& x) { x = 1; });
}
