// expect: no matching function for call to .*inout\(const
// inout() marks an operand the body writes: a read-only array cannot be one.
#include <dmap/dmap.hpp>

#include <utility>

void misuse(dmap::array<double, 2>& a, const dmap::array<double, 2>& b) {
  dmap::forall(dmap::zip(a, dmap::inout(b)), [](auto& x, auto& y) { x = y; });
}
