// expect: contains\(\{keys...\}\) was renamed contains_each
// A braced list of keys is a batch: contains_each (collective), not contains (one key).
#include <dmap/dmap.hpp>

#include <cstdint>
#include <vector>

std::vector<bool> misuse(const dmap::associative_domain<std::int64_t>& d) { return d.contains({4, 8, 15}); }
