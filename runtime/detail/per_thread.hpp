// One value per thread that asks for one (oneTBB's enumerable_thread_specific, compiled once in
// the library so that the headers that keep per-thread state never parse oneTBB's).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace dmap::detail {

/// Type-erased per-thread slots: each thread that calls local() gets its own object, made
/// by `make` on its first call; all() lists the objects made so far.
class thread_slots {
 public:
  /// Slots whose objects `make` makes (called on the asking thread).
  explicit thread_slots(std::function<std::shared_ptr<void>()> make);
  thread_slots(const thread_slots&) = delete;
  thread_slots& operator=(const thread_slots&) = delete;
  ~thread_slots();
  /// The calling thread's object, made on its first call. Safe to call from any thread.
  void* local();
  /// Every object made so far. Not safe while threads call local().
  std::vector<void*> all() const;

 private:
  struct slots;
  std::unique_ptr<slots> slots_;
};

/// One T per thread that asks for one, each on its own cache lines: local() is the calling
/// thread's, iteration visits every T made so far (in serial code only).
template <class T>
class per_thread {
  struct alignas(64) padded {
    T value;
  };

 public:
  /// An iterator over the values made so far.
  class iterator {
   public:
    explicit iterator(std::vector<void*>::const_iterator at) : at_(at) {}
    T& operator*() const { return static_cast<padded*>(*at_)->value; }
    iterator& operator++() {
      ++at_;
      return *this;
    }
    bool operator==(const iterator&) const = default;

   private:
    std::vector<void*>::const_iterator at_;
  };

  /// Values made by `make()` on each thread's first local().
  explicit per_thread(std::function<T()> make)
      : slots_([make = std::move(make)] { return std::shared_ptr<void>(std::make_shared<padded>(padded{make()})); }) {}
  /// The calling thread's value.
  T& local() { return static_cast<padded*>(slots_.local())->value; }
  /// The first value made so far (serial code only: it lists them anew).
  iterator begin() {
    seen_ = slots_.all();
    return iterator(seen_.cbegin());
  }
  /// The end of the values begin() listed.
  iterator end() const { return iterator(seen_.cend()); }

 private:
  thread_slots slots_;
  std::vector<void*> seen_;
};

}  // namespace dmap::detail
