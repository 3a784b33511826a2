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

  /// A buffer of at least `bytes` bytes (contents unspecified).
  pooled_buffer take(std::size_t bytes);
  /// Keeps `b` for a later take().
  void give(std::unique_ptr<std::byte[]> b, std::size_t capacity) {
    if (!b) return;
    idle_.push_back({capacity, std::move(b)});
    if (idle_.size() > kept) {
      const auto smallest = std::min_element(idle_.begin(), idle_.end(),
                                             [](const auto& x, const auto& y) { return x.first < y.first; });
      idle_.erase(smallest);
    }
  }

 private:
  std::vector<std::pair<std::size_t, std::unique_ptr<std::byte[]>>> idle_;
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

inline pooled_buffer buffer_pool::take(std::size_t bytes) {
  if (bytes == 0) return {};
  // The smallest idle buffer that is large enough.
  auto best = idle_.end();
  for (auto it = idle_.begin(); it != idle_.end(); ++it)
    if (it->first >= bytes && (best == idle_.end() || it->first < best->first)) best = it;
  if (best != idle_.end()) {
    pooled_buffer out(std::move(best->second), best->first);
    idle_.erase(best);
    return out;
  }
  auto fresh = std::make_unique_for_overwrite<std::byte[]>(bytes);
  advise_huge_pages(fresh.get(), bytes);
  return pooled_buffer(std::move(fresh), bytes);
}

}  // namespace dmap::detail
