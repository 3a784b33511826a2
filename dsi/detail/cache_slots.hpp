// Caches that operations keep on a domain between calls (assignment plans, loop staging,
// halo and copy plans): one slot per cache type, so each layer keeps its own typed cache on
// the domain without the domain knowing the layers above it.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace dmap::detail {

/// One default-constructed `Cache` per type, made on first use and dropped with the domain.
class cache_slots {
 public:
  /// The cache of type `Cache` (made empty on first use).
  template <class Cache>
  Cache& get() {
    for (auto& s : slots_)
      if (s->tag == &tag_of<Cache>) return static_cast<slot<Cache>&>(*s).value;
    slots_.push_back(std::make_unique<slot<Cache>>());
    return static_cast<slot<Cache>&>(*slots_.back()).value;
  }

 private:
  struct slot_base {
    explicit slot_base(const void* t) : tag(t) {}
    virtual ~slot_base() = default;
    const void* tag;
  };
  template <class Cache>
  struct slot final : slot_base {
    slot() : slot_base(&tag_of<Cache>) {}
    Cache value{};
  };
  // One object per cache type; its address names the type (no RTTI needed).
  template <class Cache>
  static constexpr char tag_of = 0;

  std::vector<std::unique_ptr<slot_base>> slots_;
};

}  // namespace dmap::detail
