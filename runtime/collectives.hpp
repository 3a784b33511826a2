// Typed wrappers of the MPI collectives dmap uses; each counts itself in the counters.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/collective_calls.hpp"
#include "detail/mpi_calls.hpp"
#include "environment.hpp"

namespace dmap {

/// A value that can travel between locales as raw bytes.
template <class T>
concept transferable = std::is_trivially_copyable_v<T>;

/// Waits until every locale arrives.
inline void barrier() {
  detail::count_collective();
  detail::check_mpi(MPI_Barrier(detail::env().comm()), "MPI_Barrier");
}

/// The sum of `value` over all locales.
template <class T>
  requires std::is_arithmetic_v<T>
T all_reduce_sum(T value) { return detail::all_reduce(value, MPI_SUM, "MPI_Allreduce(sum)"); }
/// The minimum of `value` over all locales.
template <class T>
  requires std::is_arithmetic_v<T>
T all_reduce_min(T value) { return detail::all_reduce(value, MPI_MIN, "MPI_Allreduce(min)"); }
/// The maximum of `value` over all locales.
template <class T>
  requires std::is_arithmetic_v<T>
T all_reduce_max(T value) { return detail::all_reduce(value, MPI_MAX, "MPI_Allreduce(max)"); }
/// The bitwise or of `value` over all locales.
template <class T>
  requires std::is_integral_v<T> && std::is_unsigned_v<T>
T all_reduce_bit_or(T value) { return detail::all_reduce(value, MPI_BOR, "MPI_Allreduce(bor)"); }
/// The smallest and the largest `value` over all locales, {min, max}, from one reduction of
/// fixed size (the minima of `value` and of its complement, reduced as signed in the same
/// order: detail::in_signed_order).
inline std::pair<std::uint64_t, std::uint64_t> all_reduce_min_max(std::uint64_t value) {
  detail::count_collective();
  const std::int64_t mine[2] = {detail::in_signed_order(value), detail::in_signed_order(~value)};
  std::int64_t least[2] = {0, 0};
  detail::check_mpi(MPI_Allreduce(mine, least, 2, MPI_INT64_T, MPI_MIN, detail::env().comm()),
                    "MPI_Allreduce(min, min)");
  return {detail::from_signed_order(least[0]), ~detail::from_signed_order(least[1])};
}
/// True on every locale iff `value` is true on every locale.
inline bool all_of_locales(bool value) { return all_reduce_min(int{value}) != 0; }
/// True on every locale iff `value` is true on some locale.
inline bool any_of_locales(bool value) { return all_reduce_max(int{value}) != 0; }

/// Every locale's `value`, indexed by locale. O(P) memory and time per locale: agreement
/// checks use the fixed-size reductions above instead.
template <transferable T>
std::vector<T> all_gather(const T& value) {
  detail::count_collective();
  std::vector<T> result(static_cast<std::size_t>(num_locales()));
  detail::check_mpi(MPI_Allgather(&value, sizeof(T), MPI_BYTE, result.data(), sizeof(T), MPI_BYTE,
                                  detail::env().comm()),
                    "MPI_Allgather");
  return result;
}

/// Every locale's `values`, locale after locale (locale q's at [q * values.size(), (q + 1) *
/// values.size())). Every locale must pass the same number of values. One collective call;
/// O(P) memory per locale, like all_gather.
template <transferable T>
std::vector<T> all_gather_fixed(std::span<const T> values) {
  detail::count_collective();
  std::vector<T> result(values.size() * static_cast<std::size_t>(num_locales()));
  if (values.size_bytes() > static_cast<std::size_t>(INT32_MAX))
    throw unsupported_error("dmap::all_gather_fixed: " + std::to_string(values.size_bytes()) +
                            " bytes per locale exceed 2^31-1");
  const int bytes = static_cast<int>(values.size_bytes());
  detail::check_mpi(MPI_Allgather(values.data(), bytes, MPI_BYTE, result.data(), bytes, MPI_BYTE,
                                  detail::env().comm()),
                    "MPI_Allgather");
  return result;
}

/// Copies `value` from locale `root` to every locale. `root` must be in [0, num_locales())
/// (argument_error otherwise).
template <transferable T>
void broadcast(T& value, int root) {
  detail::check_root(root, "dmap::broadcast");
  detail::count_collective();
  detail::check_mpi(MPI_Bcast(&value, sizeof(T), MPI_BYTE, root, detail::env().comm()),
                    "MPI_Bcast");
}

/// Copies the string `text` from locale `root` to every locale (`root` in [0,
/// num_locales()); texts longer than 2^31 - 1 characters are an unsupported_error on every
/// locale).
inline void broadcast(std::string& text, int root) {
  detail::check_root(root, "dmap::broadcast");
  std::uint64_t length = text.size();
  broadcast(length, root);
  if (length > static_cast<std::uint64_t>(INT32_MAX))
    throw unsupported_error(std::string("dmap::broadcast: the text has ") + std::to_string(length) +
                            " characters; at most 2^31 - 1 travel in one broadcast");
  text.resize(length);
  detail::count_collective();
  detail::check_mpi(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root,
                              detail::env().comm()),
                    "MPI_Bcast");
}

}  // namespace dmap
