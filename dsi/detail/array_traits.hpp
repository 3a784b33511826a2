// The machinery behind array_traits.hpp (not part of the API): array_traits, array_traits_of,
// array_value_t.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../array.hpp"
#include "../array_view.hpp"

namespace dmap::detail {

/// The element type, rank and writability of an array or view type (false for others).
template <class X>
struct array_traits {
  static constexpr bool input = false;
  static constexpr bool output = false;
};
template <class T, std::size_t N>
struct array_traits<array<T, N>> {
  using value_type = T;
  static constexpr std::size_t rank = N;
  static constexpr bool input = true;
  static constexpr bool output = true;
  static constexpr bool is_array = true;
};
template <class T, std::size_t N>
struct array_traits<const array<T, N>> : array_traits<array<T, N>> {
  static constexpr bool output = false;
};
template <class T, std::size_t N, std::size_t M>
struct array_traits<array_view<T, N, M>> {
  using value_type = std::remove_const_t<T>;
  static constexpr std::size_t rank = N;
  static constexpr bool input = true;
  static constexpr bool output = !std::is_const_v<T>;  // assigning through a view is const
  static constexpr bool is_array = false;
};
template <class T, std::size_t N, std::size_t M>
struct array_traits<const array_view<T, N, M>> : array_traits<array_view<T, N, M>> {};

/// array_traits of X without references.
template <class X>
using array_traits_of = array_traits<std::remove_reference_t<X>>;

/// The element type (without const) of an array or view type.
template <class X>
using array_value_t = typename array_traits_of<X>::value_type;

}  // namespace dmap::detail
