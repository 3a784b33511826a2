// This locale's oneTBB arena, for the code that runs oneTBB algorithms of its own (sorting,
// thread-local accumulation, benchmarks' hand-written baselines). Everything else reaches the
// arena through runtime/detail/tasks.hpp, compiled once, and never parses oneTBB's headers.
#pragma once

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <memory>

#include "current_environment.hpp"
#include "../environment.hpp"

namespace dmap::detail {

/// The oneTBB state of one environment: its arena and, when DMAP_NUM_THREADS asked for more
/// threads than oneTBB's default, the process-wide limit that allows them.
struct thread_pool {
  std::unique_ptr<oneapi::tbb::global_control> parallelism;
  std::unique_ptr<oneapi::tbb::task_arena> arena;
};

/// The oneTBB arena every parallel loop of this locale runs in.
inline oneapi::tbb::task_arena& locale_arena() { return *env().pool().arena; }

}  // namespace dmap::detail
