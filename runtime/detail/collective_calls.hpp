// What every collective call of dmap's does: count itself, check its root, mark the extent of
// the operation it belongs to.
#pragma once

#include <string>

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

/// The reduction of `value` over all locales by `op` (the MPI call named `name`).
template <class T>
T all_reduce(T value, MPI_Op op, const char* name) {
  count_collective();
  T result{};
  check_mpi(MPI_Allreduce(&value, &result, 1, mpi_type<T>(), op, env().comm()), name);
  return result;
}

}  // namespace dmap::detail
