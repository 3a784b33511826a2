// The control: the correct forms of every misuse in this folder compile with the same flags.
#include <dmap/dmap.hpp>

#include <string>
#include <utility>

double fine(dmap::array<double, 2>& a, dmap::array<double, 2>& b, dmap::array<double, 1>& c) {
  dmap::forall(dmap::zip(a, b), [](double& x, const double& y) { x = y; });
  dmap::forall(a, [](double& x) { x = 1; });
  dmap::forall(dmap::zip(a, dmap::inout(b)), [](auto& x, auto& y) { y = x; });
  auto h = dmap::start_halo_update(a);
  h.finish();
  return dmap::reduce(dmap::zip(a, b), 0.0, std::plus<>{}, [](double x, double y) { return x * y; }) +
         dmap::reduce(c, 0.0, [](double x, double y) { return x + y; });
}

// Exports of writable arrays hand out writable buffers, which import adopts; a const array's
// exports read.
dmap::array<double, 2> exported(dmap::array<double, 2>& a, const dmap::array<double, 1>& c) {
  const auto p = dmap::partitioned_export(c);
  double sum = 0;
  for (const auto& position : p.locals) sum += *p.partitions.at(position).data;
  (void)sum;
  return dmap::dap_import(dmap::dap_export(a));
}
