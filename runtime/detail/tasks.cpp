// The compiled part of runtime/detail/tasks.hpp: the one instantiation of oneTBB's parallel_for
// every loop of dmap runs through.
#include "tasks.hpp"
#include "thread_pool.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

namespace dmap::detail {

void run_tasks_on_arena(std::size_t count, task_ref task) {
  locale_arena().execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<std::size_t>(0, count, 1),
        [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
          for (std::size_t i = r.begin(); i != r.end(); ++i) task(i);
        },
        oneapi::tbb::static_partitioner{});
  });
}

}  // namespace dmap::detail
