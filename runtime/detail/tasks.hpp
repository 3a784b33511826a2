// Running a locale's tasks on its oneTBB arena, with a static assignment of tasks to
// threads so that the same task list meets the same threads every time (first touch).
#pragma once

#include <cstddef>

#include "../environment.hpp"
#include "function_ref.hpp"

namespace dmap::detail {

/// A reference to a callable `void(std::size_t)` that the caller keeps alive: the loop engine's
/// tasks cross into the compiled library through it, one indirect call per task (a chunk of
/// indices), so that oneTBB's parallel_for is instantiated once, not per loop body.
using task_ref = function_ref<void(std::size_t)>;

/// Runs `task(i)` for every i in [0, count) on this locale's oneTBB arena, statically split
/// over its threads in contiguous runs; exceptions propagate (the first one wins). Defined in
/// the compiled library (tasks.cpp).
void run_tasks_on_arena(std::size_t count, task_ref task);

/// Runs `task(i)` for every i in [0, count) on this locale's arena; exceptions propagate
/// (the first one wins). Tasks are split over threads statically and contiguously.
template <class F>
void run_tasks(std::size_t count, F&& task) {
  if (count == 0) return;
  if (count == 1 || env().threads() == 1) {
    for (std::size_t i = 0; i < count; ++i) task(i);
    return;
  }
  run_tasks_on_arena(count, task_ref(task));
}

}  // namespace dmap::detail
