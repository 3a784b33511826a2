// expect: nodiscard
// Dropping the handle of a started halo update loses the update.
#include <dmap/dmap.hpp>

void misuse(dmap::array<double, 2>& a) {
  dmap::start_halo_update(a);
}
