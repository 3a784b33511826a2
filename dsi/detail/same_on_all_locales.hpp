// The check that every locale passed the same arguments to a collective call that makes or
// changes a domain: a fingerprint of the index set and the map's name, compared everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "../../runtime/agreement.hpp"
#include "../rect.hpp"

namespace dmap::detail {

/// A 64-bit fingerprint of a rect and a map name, to check that all locales agree. The
/// rect counts by its indices, not its bounds (as rect's operator== does), dimension by
/// dimension: the size, and the first index and the stride when there is an index, so
/// `{0..<100 by 2}` and `{0..<99 by 2}` agree while `{0..<10}` and `{0..<10 by -1}` do not.
/// (The stride of a single index counts too: it spaces the ghost cells a map may keep.)
template <std::size_t N>
std::uint64_t index_set_fingerprint(const rect<N>& r, const std::string& name) {
  fingerprint f;
  for (const auto& d : r.dims()) {
    const index_t size = d.size();
    f.add(size);
    if (size == 0) continue;
    f.add(d.first()).add(d.stride());
  }
  return f.add(std::string_view(name)).value();
}

/// Collective: throws argument_error on every locale unless all passed the same (rect, map).
/// One agreement (a reduction of fixed size); only when they differ, a broadcast of locale
/// 0's fingerprint and a second reduction find the lowest locale that differs from it.
template <std::size_t N>
void check_same_on_all_locales(const char* what, const rect<N>& r, const std::string& name) {
  agree(nullptr, {what, index_set_fingerprint(r, name), [&] {
                    std::ostringstream s;
                    s << "different index sets or distributions: " << r << " over " << name;
                    return s.str();
                  }});
}

}  // namespace dmap::detail
