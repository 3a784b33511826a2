// index_t and index_like: the integer type of global indices and the integer types that may
// stand for one.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace dmap {

/// The integer type of global indices, orders and extents.
using index_t = std::int64_t;

/// An integer type that may stand for an index, a bound, a stride or a count: any integral
/// type but bool and the character types.
template <class I>
concept index_like = std::integral<I> && !std::same_as<std::remove_cv_t<I>, bool> &&
                     !std::same_as<std::remove_cv_t<I>, char> && !std::same_as<std::remove_cv_t<I>, wchar_t> &&
                     !std::same_as<std::remove_cv_t<I>, char8_t> && !std::same_as<std::remove_cv_t<I>, char16_t> &&
                     !std::same_as<std::remove_cv_t<I>, char32_t>;

}  // namespace dmap
