// The compiled part of runtime/detail/per_thread.hpp.
#include "per_thread.hpp"

#include <oneapi/tbb/cache_aligned_allocator.h>
#include <oneapi/tbb/enumerable_thread_specific.h>

namespace dmap::detail {

struct thread_slots::slots {
  oneapi::tbb::enumerable_thread_specific<std::shared_ptr<void>,
                                          oneapi::tbb::cache_aligned_allocator<std::shared_ptr<void>>,
                                          oneapi::tbb::ets_key_per_instance>
      values;
};

thread_slots::thread_slots(std::function<std::shared_ptr<void>()> make)
    : slots_(std::make_unique<slots>(slots{decltype(slots::values)(std::move(make))})) {}

thread_slots::~thread_slots() = default;

void* thread_slots::local() { return slots_->values.local().get(); }

std::vector<void*> thread_slots::all() const {
  std::vector<void*> out;
  for (const auto& v : slots_->values) out.push_back(v.get());
  return out;
}

}  // namespace dmap::detail
