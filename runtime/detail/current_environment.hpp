// The live environment: the one piece of global state dmap has.
#pragma once

#include "../errors.hpp"

namespace dmap {

class environment;

namespace detail {

/// The oneTBB state of an environment (complete in runtime/detail/thread_pool.hpp).
struct thread_pool;

/// The one piece of global state dmap has: the live environment, if any.
inline environment* current_environment = nullptr;

/// The live environment; throws when none exists.
inline environment& env() {
  if (current_environment == nullptr)
    throw runtime_error(
        "dmap: no dmap::environment exists; create one at the start of main before using dmap");
  return *current_environment;
}

}  // namespace detail
}  // namespace dmap
