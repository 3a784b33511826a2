// What an operation on whole arrays may read from and write to: dmap arrays and array views,
// told apart at compile time (scans, file input and output).
#pragma once

#include <cstddef>
#include <type_traits>

#include "array.hpp"
#include "array_view.hpp"
#include "detail/array_traits.hpp"

namespace dmap {

/// A dmap::array (const or not) or an array view: something whole-array operations read.
template <class X>
concept array_source = detail::array_traits_of<X>::input;

/// A non-const dmap::array or a view of writable elements: something they write.
template <class X>
concept array_target = detail::array_traits_of<X>::output;

}  // namespace dmap
