// expect: assignment of read-only location
// partitioned_export of a const array gives read-only tiles: writing through `data` is refused.
#include <dmap/dmap.hpp>

void misuse(const dmap::array<double, 1>& a) {
  const auto p = dmap::partitioned_export(a);
  for (const auto& position : p.locals) *p.partitions.at(position).data = 0.0;
}
