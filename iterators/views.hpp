// Serial views of domains, arrays and array views in global row-major order: random-access
// views that model std::ranges::random_access_range and range-v3's view concept, so
// standard and range-v3 algorithms and adaptors take them. Not collective: any locale may
// iterate them alone. Array elements owned elsewhere arrive in batches, one message per
// batch and owning locale, never one per element.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/array_view.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/detail/assignment.hpp"
#include "../dsi/domain.hpp"
#include "detail/generated_view.hpp"
#include "detail/serial_views.hpp"

namespace dmap {

/// How many array elements a serial view fetches at once.
inline constexpr index_t view_batch_elements = detail::fetch_batch_elements;

/// The indices of `d` in row-major order, as a random-access view of idx<N> values (a
/// std::ranges::random_access_range and a range-v3 view). Reading a position outside
/// [0, size) is an out_of_bounds_error.
template <std::size_t N>
[[nodiscard]] detail::generated_view<detail::index_at_order<N>> view(const domain<N>& d) {
  return {{d.indices()}, d.size()};
}

/// The values of `a` in row-major order of its domain, as a random-access view of values.
/// The array must outlive the view; values are read when the view reaches them, in batches
/// of view_batch_elements. Copies of the view's iterators share one batch. Reading a
/// position outside [0, size) is an out_of_bounds_error; a moved-from array an
/// argument_error.
template <class T, std::size_t N>
[[nodiscard]] auto view(const array<T, N>& a) {
  if (!detail::state_of(a.domain()))
    throw argument_error("dmap::view: the array was moved from; it has no domain or elements to view");
  return detail::values_view<T>([&a](index_t first, index_t count, T* out) { a.fetch(first, count, out); },
                                a.domain().size());
}

/// The values of the array view `v` in row-major order of its indices (the array must
/// outlive the range).
template <class T, std::size_t N, std::size_t M>
[[nodiscard]] auto view(const array_view<T, N, M>& v) {
  using V = std::remove_const_t<T>;
  return detail::values_view<V>([v](index_t first, index_t count, V* out) { v.fetch(first, count, out); },
                                v.size());
}

}  // namespace dmap
