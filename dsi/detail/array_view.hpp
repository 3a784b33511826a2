// The machinery behind array_view.hpp (not part of the API): identity_dims, keeps_dimension.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>

#include "../range.hpp"

namespace dmap {

struct all_t;

namespace detail {
template <std::size_t N>
std::array<std::size_t, N> identity_dims() {
  std::array<std::size_t, N> d{};
  for (std::size_t n = 0; n < N; ++n) d[n] = n;
  return d;
}
// Kept dimensions of a rank-change slice: ranges and dmap::all; integers fix a dimension.
template <class A>
constexpr bool keeps_dimension = std::is_same_v<std::remove_cvref_t<A>, range> ||
                                 std::is_same_v<std::remove_cvref_t<A>, all_t>;
}  // namespace detail

}  // namespace dmap
