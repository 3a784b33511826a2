// Running a locale's tasks on its oneTBB arena, with a static assignment of tasks to
// threads so that the same task list meets the same threads every time (first touch).
#pragma once

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <cstddef>

#include "../environment.hpp"

namespace dmap::detail {

/// Runs `task(i)` for every i in [0, count) on this locale's arena; exceptions propagate
/// (the first one wins). Tasks are split over threads statically and contiguously.
template <class F>
void run_tasks(std::size_t count, F&& task) {
  if (count == 0) return;
  auto& e = env();
  if (count == 1 || e.threads() == 1) {
    for (std::size_t i = 0; i < count; ++i) task(i);
    return;
  }
  e.arena().execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<std::size_t>(0, count, 1),
        [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
          for (std::size_t i = r.begin(); i != r.end(); ++i) task(i);
        },
        oneapi::tbb::static_partitioner{});
  });
}

}  // namespace dmap::detail
