// What every collective call of dmap's does: count itself, check its root, mark the extent of
// the operation it belongs to.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "../environment.hpp"
#include "mpi_calls.hpp"

namespace dmap::detail {

/// Counts one collective call in this locale's counters.
inline void count_collective() { ++env().counters().collectives; }

/// Marks the extent of one collective operation of dmap's public API (an assignment, a
/// loop, a resize, a file read, ...): when the outermost scope on a locale ends, the locale
/// publishes that it has completed one more operation, and one-sided reads of its memory by
/// locales that completed the same operation may proceed (the memory model,
/// docs/guide/memory-model.md). Every locale must open the same scopes in the same order;
/// nested scopes count once. Costs no message. Ignored on loop threads and for simulated
/// locales.
class collective_scope {
 public:
  collective_scope() : counted_(simulated == nullptr && current_environment != nullptr && env().on_main_thread()) {
    if (counted_) env().begin_collective();
  }
  collective_scope(const collective_scope&) = delete;
  collective_scope& operator=(const collective_scope&) = delete;
  ~collective_scope() {
    if (counted_ && current_environment != nullptr) current_environment->end_collective();
  }

 private:
  bool counted_;
};

/// Throws argument_error unless `root` names a locale (checked before any message, so a
/// root out of range on every locale fails everywhere alike).
inline void check_root(int root, const char* who) {
  if (root < 0 || root >= env().size())
    throw argument_error(std::string(who) + ": root is " + std::to_string(root) + "; it must be a locale in [0, " +
                         std::to_string(env().size()) + ")");
}

/// An unsigned integer mapped to the signed type of its size so that signed order is its
/// unsigned order (the top bit flipped). MPI_MIN and MPI_MAX over unsigned types are not to be
/// trusted: MPICH 4.0.2 compares every unsigned type as signed, Open MPI 4.1.4 MPI_UNSIGNED_LONG
/// (docs/building.md, "MPI implementations"); dmap reduces the mapped values as signed instead.
template <class U>
  requires std::is_unsigned_v<U> && (!std::is_same_v<U, bool>)
std::make_signed_t<U> in_signed_order(U value) noexcept {
  return static_cast<std::make_signed_t<U>>(value ^ (U{1} << (8 * sizeof(U) - 1)));
}
/// The inverse of in_signed_order.
template <class S>
  requires std::is_signed_v<S> && std::is_integral_v<S>
std::make_unsigned_t<S> from_signed_order(S value) noexcept {
  using U = std::make_unsigned_t<S>;
  return static_cast<U>(value) ^ (U{1} << (8 * sizeof(U) - 1));
}

/// The reduction of `value` over all locales by `op` (the MPI call named `name`). The minimum
/// and the maximum of an unsigned type reduce its in_signed_order as signed.
template <class T>
T all_reduce(T value, MPI_Op op, const char* name) {
  count_collective();
  if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
    if (op == MPI_MIN || op == MPI_MAX) {
      using S = std::make_signed_t<T>;
      const S mine = in_signed_order(value);
      S result{};
      check_mpi(MPI_Allreduce(&mine, &result, 1, mpi_type<S>(), op, env().comm()), name);
      return from_signed_order(result);
    }
  }
  T result{};
  check_mpi(MPI_Allreduce(&value, &result, 1, mpi_type<T>(), op, env().comm()), name);
  return result;
}

}  // namespace dmap::detail
