// expect: concept dmap::loop_body
// A body whose parameter cannot take the element: an index where a double is handed.
#include <dmap/dmap.hpp>

void misuse(dmap::array<double, 2>& a) {
  dmap::forall(a, [](const dmap::idx<2>& i) { (void)i; });
}
