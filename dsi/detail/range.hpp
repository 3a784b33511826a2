// The machinery behind range.hpp (not part of the API): floor_mod, abs_index, wrapping_add,
// wrapping_sub, index_text, throw_bound_overflow, to_index.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "../../runtime/errors.hpp"
#include "../index_type.hpp"

namespace dmap::detail {

/// The mathematical modulus: result in [0, m) for m > 0.
constexpr index_t floor_mod(index_t a, index_t m) {
  const index_t r = a % m;
  return r < 0 ? r + m : r;
}
constexpr index_t abs_index(index_t a) { return a < 0 ? -a : a; }
/// A 128-bit integer for overflow-free products of two indices.
__extension__ typedef __int128 wide_int;
/// a + b modulo 2^64, without undefined behaviour: for bounds of empty ranges, which may
/// lie past the int64 limits and are never used as indices.
constexpr index_t wrapping_add(index_t a, index_t b) noexcept {
  return static_cast<index_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
/// a - b modulo 2^64 (see wrapping_add).
constexpr index_t wrapping_sub(index_t a, index_t b) noexcept {
  return static_cast<index_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
/// Text for messages: the number, with its name when it is an int64 limit.
inline std::string index_text(index_t v) {
  if (v == std::numeric_limits<index_t>::min()) return "-9223372036854775808 (INT64_MIN)";
  if (v == std::numeric_limits<index_t>::max()) return "9223372036854775807 (INT64_MAX)";
  return std::to_string(v);
}
/// Throws argument_error: `who` computed `what` (a bound) and it left the int64 range.
[[noreturn]] inline void throw_bound_overflow(const char* who, const std::string& what) {
  std::string m = who;
  m += ": ";
  m += what;
  m += " lies outside the int64 range; range bounds must be int64 values (indices in [INT64_MIN, INT64_MAX - 1])";
  throw argument_error(m);
}

/// `value` as an index_t; throws argument_error when it does not fit (an unsigned value
/// above 2^63 - 1).
template <index_like I>
constexpr index_t to_index(I value) {
  if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(index_t)) {
    if (value > static_cast<std::make_unsigned_t<index_t>>(std::numeric_limits<index_t>::max()))
      throw argument_error("dmap: the integer " + std::to_string(value) +
                           " does not fit an index (int64); indices, bounds and counts must be below 2^63");
  }
  return static_cast<index_t>(value);
}

}  // namespace dmap::detail
