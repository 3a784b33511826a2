// The check that every locale passed the same arguments to a collective call that makes or
// changes a domain: a fingerprint of the index set and the map's name, compared everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "../../runtime/collectives.hpp"
#include "../rect.hpp"

namespace dmap::detail {

/// A 64-bit fingerprint of a rect and a map name, to check that all locales agree. The
/// rect counts by its indices, not its bounds (as rect's operator== does), dimension by
/// dimension: the size, and the first index and the stride when there is an index, so
/// `{0..<100 by 2}` and `{0..<99 by 2}` agree while `{0..<10}` and `{0..<10 by -1}` do not.
/// (The stride of a single index counts too: it spaces the ghost cells a map may keep.)
template <std::size_t N>
std::uint64_t fingerprint(const rect<N>& r, const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  for (const auto& d : r.dims()) {
    const index_t size = d.size();
    mix(static_cast<std::uint64_t>(size));
    if (size == 0) continue;
    mix(static_cast<std::uint64_t>(d.first()));
    mix(static_cast<std::uint64_t>(d.stride()));
  }
  for (char c : name) mix(static_cast<unsigned char>(c));
  return h;
}

/// Collective: throws on every locale unless all passed the same (rect, map). One reduction
/// of fixed size (the least and the greatest fingerprint); only when they differ, a broadcast
/// of locale 0's and a second reduction find the lowest locale that differs from it.
template <std::size_t N>
void check_same_on_all_locales(const char* what, const rect<N>& r, const std::string& name) {
  const auto mine = fingerprint(r, name);
  const auto [least, greatest] = all_reduce_min_max(mine);
  if (least == greatest) return;
  auto first = mine;
  broadcast(first, 0);
  const int q = all_reduce_min(mine != first ? here() : num_locales());
  std::ostringstream s;
  s << what << ": locales 0 and " << q
    << " passed different index sets or distributions (here: " << r << " over " << name
    << "); it is a collective call and every locale must pass the same arguments";
  throw argument_error(s.str());
}

}  // namespace dmap::detail
