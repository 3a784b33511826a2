// expect: contains\(keys\) was renamed contains_each\(keys\)
// The collective batch of membership queries is contains_each: contains(key) asks about one key
// from one locale alone, so a batch under the same name could leave one locale waiting.
#include <dmap/dmap.hpp>

#include <cstdint>
#include <vector>

std::vector<bool> misuse(const dmap::associative_domain<std::int64_t>& d, const std::vector<std::int64_t>& keys) {
  return d.contains(keys);
}
