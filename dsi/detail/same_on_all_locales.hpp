// The check that every locale passed the same arguments to a collective call that makes or
// changes a domain (a fingerprint of the index set and the map's name) or an array's implicit
// value (a fingerprint of its bytes), compared everywhere.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>

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
/// 0's fingerprint and a second reduction find the lowest locale that differs from it. A
/// `failure` of this locale (a moved-from handle) is thrown on every locale first.
template <std::size_t N>
void check_same_on_all_locales(const char* what, const rect<N>& r, const std::string& name,
                               std::exception_ptr failure = nullptr) {
  agree(failure, {what, index_set_fingerprint(r, name), [&] {
                    std::ostringstream s;
                    s << "different index sets or distributions: " << r << " over " << name;
                    return s.str();
                  }});
}

/// True for values whose bytes say everything about them (no padding): integers, floating
/// point (every bit counts: -0.0 is not 0.0), std::complex, and types with unique object
/// representations.
template <class T>
inline constexpr bool compared_by_bytes =
    std::has_unique_object_representations_v<T> || std::is_floating_point_v<T>;
template <class F>
inline constexpr bool compared_by_bytes<std::complex<F>> = std::is_floating_point_v<F>;

/// Collective: the value every locale passed as `value` to the collective call `who`. Values
/// whose bytes say everything (compared_by_bytes) are compared by one reduction of fixed size
/// (the least and the greatest fingerprint of their bytes): different values are an
/// argument_error on every locale. Other types (with padding bytes, which no comparison may
/// read) take locale 0's value (one broadcast), so the locales stay alike.
template <class T>
T same_value_on_all_locales(const char* who, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>, "dmap: values agreed between locales travel as bytes");
  if constexpr (compared_by_bytes<T>) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
    const auto [least, greatest] = all_reduce_min_max(h);
    if (least != greatest) {
      auto first = h;
      broadcast(first, 0);
      const int q = all_reduce_min(h != first ? here() : num_locales());
      throw argument_error(std::string(who) + ": locales 0 and " + std::to_string(q) +
                           " passed different values; it is a collective call and every locale must pass the same "
                           "value");
    }
    return value;
  } else {
    T agreed_value = value;
    broadcast(agreed_value, 0);
    return agreed_value;
  }
}

}  // namespace dmap::detail
