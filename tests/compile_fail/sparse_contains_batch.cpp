// expect: contains\(indices\) was renamed contains_each\(indices\)
// The collective batch of membership queries is contains_each: contains(i) asks about one index
// from one locale alone, so a batch under the same name could leave one locale waiting.
#include <dmap/dmap.hpp>

#include <vector>

std::vector<bool> misuse(const dmap::sparse_domain<2>& s, const std::vector<dmap::idx<2>>& indices) {
  return s.contains(indices);
}
