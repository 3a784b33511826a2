// The control: the correct forms of every misuse in this folder compile with the same flags.
#include <dmap/dmap.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

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

// The correct forms of the sparse and associative misuses.
double fine_kinds(dmap::sparse_array<double, 2>& s, dmap::sparse_array<double, 2>& t, dmap::array<double, 2>& d,
                  dmap::associative_array<double, std::int64_t>& a, dmap::associative_domain<std::int64_t>& k) {
  s[dmap::idx<2>{1, 2}] = 3.0;
  a[42] = 3.0;
  d[dmap::idx<2>{1, 2}] = 3.0;
  s.local(dmap::idx<2>{1, 2}) = 3.0;
  s = t;
  dmap::forall(dmap::zip(s, d), [](const double& x, double& y) { y = x; });
  dmap::forall(dmap::zip(a, k), [](double& x, const std::int64_t& key) { x = static_cast<double>(key); });
  const std::vector<bool> in = k.contains_each({4, 8, 15});
  const std::vector<bool> also = s.domain().contains_each(std::vector<dmap::idx<2>>{{1, 2}});
  return dmap::reduce(dmap::zip(a, k), 0.0, std::plus<>{}, [](double x, const std::int64_t&) { return x; }) +
         static_cast<double>(in.size() + also.size()) + (k.contains(4) ? 1.0 : 0.0);
}
