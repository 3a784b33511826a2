// element_ref<T>: what `A[i]` gives, a reference to one element of a distributed array that
// may live on another locale.
#pragma once

#include <cstddef>

#include "../runtime/detail/window.hpp"
#include "range.hpp"

namespace dmap {

template <transferable T, std::size_t N>
class array;

/// A reference to one element of a distributed array, local or remote. Reads come from
/// this locale's storage when it holds the index (owned or ghost copy), else from the owner;
/// writes go to the owner. Remote reads and writes are one message each.
template <class T>
class element_ref {
 public:
  /// The element's value.
  operator T() const {
    if (read_) return *read_;
    T value;
    window_->get(owner_, offset_, &value);
    return value;
  }
  /// Stores `value` in the element.
  element_ref& operator=(const T& value) {
    if (write_) *write_ = value;
    else window_->put(owner_, offset_, &value);
    return *this;
  }
  /// Copies another element's value.
  element_ref& operator=(const element_ref& other) { return *this = static_cast<T>(other); }
  /// Read-modify-write: a read and a write (two messages when remote; not atomic).
  element_ref& operator+=(const T& v) { return *this = static_cast<T>(*this) + v; }
  /// Read-modify-write subtraction, like operator+=.
  element_ref& operator-=(const T& v) { return *this = static_cast<T>(*this) - v; }
  /// Read-modify-write multiplication, like operator+=.
  element_ref& operator*=(const T& v) { return *this = static_cast<T>(*this) * v; }
  /// Read-modify-write division, like operator+=.
  element_ref& operator/=(const T& v) { return *this = static_cast<T>(*this) / v; }

 private:
  template <transferable U, std::size_t N>
  friend class array;
  element_ref(const T* read, T* write, const detail::rma_window* window, int owner, index_t offset) noexcept
      : read_(read), write_(write), window_(window), owner_(owner), offset_(offset) {}

  const T* read_;
  T* write_;
  const detail::rma_window* window_;
  int owner_;
  index_t offset_;
};

}  // namespace dmap
