// foreign_buffer<T, N>: a locale's part of an array in memory someone else owns (a pointer,
// the number of elements it holds and its strides), for arrays that adopt it instead of
// allocating: `dmap::array<double, 2> A(D, dmap::foreign_buffer<double, 2>{p, n, {cols, 1}})`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "detail/domain_state.hpp"
#include "detail/foreign_buffer.hpp"
#include "index.hpp"

namespace dmap {

/// This locale's elements of an array, kept in a buffer the array does not own: `data`
/// points at `size` elements, laid out with element `strides` per dimension exactly as the
/// domain's local layouts say (`D.local_layouts()`: the same strides, offsets from `data`).
/// Lifetime as std::span: the buffer must outlive the array's use of it, which ends when
/// the array is destroyed or its domain changes its index set (the elements then move to
/// storage dmap allocates).
template <class T, std::size_t N>
struct foreign_buffer {
  T* data = nullptr;                 ///< the local buffer's first element
  index_t size = 0;                  ///< how many elements from `data` the array may use
  std::array<index_t, N> strides{};  ///< the buffer's element strides per dimension
};

}  // namespace dmap
