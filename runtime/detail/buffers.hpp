// Reusable message buffers. Transfers pack and unpack through buffers as large as their
// messages; allocating them anew for every transfer costs a fresh allocation, zero filling
// and the page faults of memory the system hands out again, which repeated redistributions
// and staged loops would pay each time. A transfer takes its buffers from this pool and
// gives them back when it is done; the pool keeps them (at most `kept` of them) for the
// next one. Used from the main thread only (transfers are collective).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "huge_pages.hpp"

namespace dmap::detail {

/// A byte buffer that returns to the pool when destroyed.
class pooled_buffer;

/// The pool of idle message buffers.
class buffer_pool {
 public:
  /// At most this many idle buffers are kept (the largest ones).
  static constexpr std::size_t kept = 64;
  /// At most this many idle bytes are kept: past it the largest idle buffers are freed (a sort
  /// of a few GiB per locale would otherwise keep several times that after it returned).
  static constexpr std::size_t kept_bytes = std::size_t{1} << 30;

  /// A buffer of at least `bytes` bytes (contents unspecified).
  pooled_buffer take(std::size_t bytes);
  /// The storage of a buffer of at least `bytes` bytes (> 0), and its capacity, owned by the
  /// caller (who may give() it back).
  std::pair<std::unique_ptr<std::byte[]>, std::size_t> lease(std::size_t bytes);
  /// Keeps `b` for a later take() (frees it when the list of idle buffers cannot grow).
  void give(std::unique_ptr<std::byte[]> b, std::size_t capacity) noexcept {
    if (!b) return;
    try {
      idle_.push_back({capacity, std::move(b)});
    } catch (...) {
      return;  // (the pair that held b is gone, and b with it)
    }
    idle_bytes_ += capacity;
    const auto by_size = [](const auto& x, const auto& y) { return x.first < y.first; };
    while (idle_.size() > kept) drop(std::min_element(idle_.begin(), idle_.end(), by_size));
    while (idle_bytes_ > kept_bytes) drop(std::max_element(idle_.begin(), idle_.end(), by_size));
  }
  /// The bytes of the idle buffers.
  std::size_t idle_bytes() const noexcept { return idle_bytes_; }

 private:
  using idle_buffer = std::pair<std::size_t, std::unique_ptr<std::byte[]>>;
  void drop(std::vector<idle_buffer>::iterator it) noexcept {
    idle_bytes_ -= it->first;
    idle_.erase(it);
  }
  std::vector<idle_buffer> idle_;
  std::size_t idle_bytes_ = 0;
};

/// The process's pool.
inline buffer_pool& message_buffers() {
  static buffer_pool pool;
  return pool;
}

class pooled_buffer {
 public:
  pooled_buffer() = default;
  pooled_buffer(std::unique_ptr<std::byte[]> data, std::size_t capacity) : data_(std::move(data)), capacity_(capacity) {}
  pooled_buffer(pooled_buffer&&) noexcept = default;
  pooled_buffer& operator=(pooled_buffer&& other) noexcept {
    release();
    data_ = std::move(other.data_);
    capacity_ = other.capacity_;
    return *this;
  }
  ~pooled_buffer() { release(); }
  /// The buffer as elements of T (trivially copyable; storage aligned like operator new).
  template <class T>
  T* as() const noexcept {
    return reinterpret_cast<T*>(data_.get());
  }

 private:
  void release() noexcept {
    if (data_) message_buffers().give(std::move(data_), capacity_);
  }
  std::unique_ptr<std::byte[]> data_;
  std::size_t capacity_ = 0;
};

inline std::pair<std::unique_ptr<std::byte[]>, std::size_t> buffer_pool::lease(std::size_t bytes) {
  // The smallest idle buffer that is large enough.
  auto best = idle_.end();
  for (auto it = idle_.begin(); it != idle_.end(); ++it)
    if (it->first >= bytes && (best == idle_.end() || it->first < best->first)) best = it;
  if (best != idle_.end()) {
    std::pair<std::unique_ptr<std::byte[]>, std::size_t> out{std::move(best->second), best->first};
    drop(best);
    return out;
  }
  auto fresh = std::make_unique_for_overwrite<std::byte[]>(bytes);
  advise_huge_pages(fresh.get(), bytes);
  return {std::move(fresh), bytes};
}

inline pooled_buffer buffer_pool::take(std::size_t bytes) {
  if (bytes == 0) return {};
  auto [data, capacity] = lease(bytes);
  return pooled_buffer(std::move(data), capacity);
}

/// An allocator whose storage comes from message_buffers() and goes back there: a vector of
/// it reuses the memory (and the huge pages) of earlier transfers and sorts instead of fresh
/// pages, and its elements are default-initialised (resize() of numbers writes nothing).
/// Main thread only, like the pool; for T no more aligned than operator new guarantees.
template <class T>
struct pooled_allocator {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "pooled_allocator: an over-aligned T");
  using value_type = T;
  pooled_allocator() = default;
  template <class U>
  pooled_allocator(const pooled_allocator<U>&) noexcept {}
  /// Storage for n elements.
  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    return reinterpret_cast<T*>(message_buffers().lease(std::max<std::size_t>(n * sizeof(T), 1)).first.release());
  }
  /// Gives the storage of n elements back to the pool (its capacity counted as n elements).
  void deallocate(T* p, std::size_t n) noexcept {
    message_buffers().give(std::unique_ptr<std::byte[]>(reinterpret_cast<std::byte*>(p)), n * sizeof(T));
  }
  /// Default-initialises (no zeroing) when given no arguments.
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) ::new (static_cast<void*>(p)) U;
    else ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const pooled_allocator&, const pooled_allocator&) noexcept { return true; }
};

/// A vector of pooled_allocator storage (std::allocator for over-aligned T).
template <class T>
using pooled_vector = std::vector<T, std::conditional_t<(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__),
                                                         pooled_allocator<T>, std::allocator<T>>>;

}  // namespace dmap::detail
