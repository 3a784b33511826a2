// Serial views (range-v3) of domains and arrays in global row-major order. Not collective:
// any locale may iterate them alone. Array elements owned elsewhere arrive in batches, one
// message per batch and owning locale, never one per element.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/domain.hpp"
#include "ranges_shim.hpp"

namespace dmap {

/// How many array elements a serial view fetches at once.
inline constexpr index_t view_batch_elements = 16384;

/// The indices of `d` in row-major order, as a random-access range-v3 view.
template <std::size_t N>
auto view(const domain<N>& d) {
  const rect<N> whole = d.indices();
  return rng::views::iota(index_t{0}, whole.size()) |
         rng::views::transform([whole](index_t k) { return whole.index_at(k); });
}

namespace detail {
template <class T, std::size_t N>
struct view_cache {
  const array<T, N>* a;
  index_t base = -1;
  std::vector<T> values;

  T at(index_t k) {
    if (base < 0 || k < base || k >= base + static_cast<index_t>(values.size())) {
      base = k / view_batch_elements * view_batch_elements;
      const index_t count = std::min(view_batch_elements, a->domain().size() - base);
      values.resize(static_cast<std::size_t>(count));
      a->fetch(base, count, values.data());
    }
    return values[static_cast<std::size_t>(k - base)];
  }
};
}  // namespace detail

/// The values of `a` in row-major order of its domain, as a range-v3 view of values. The
/// array must outlive the view; values are read when the view reaches them.
template <class T, std::size_t N>
auto view(const array<T, N>& a) {
  auto cache = std::make_shared<detail::view_cache<T, N>>(detail::view_cache<T, N>{&a, -1, {}});
  return rng::views::iota(index_t{0}, a.domain().size()) |
         rng::views::transform([cache](index_t k) { return cache->at(k); });
}

}  // namespace dmap
