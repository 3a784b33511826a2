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
