// Serial views (range-v3) of domains, arrays and array views in global row-major order. Not collective:
// any locale may iterate them alone. Array elements owned elsewhere arrive in batches, one
// message per batch and owning locale, never one per element.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
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
/// The batch of values a serial view last fetched.
template <class T>
struct view_cache {
  std::function<void(index_t, index_t, T*)> fetch;  // (first, count, out)
  index_t total = 0;
  index_t base = -1;
  std::vector<T> values;

  T at(index_t k) {
    if (base < 0 || k < base || k >= base + static_cast<index_t>(values.size())) {
      base = k / view_batch_elements * view_batch_elements;
      const index_t count = std::min(view_batch_elements, total - base);
      values.resize(static_cast<std::size_t>(count));
      fetch(base, count, values.data());
    }
    return values[static_cast<std::size_t>(k - base)];
  }
};

template <class T>
auto values_view(std::function<void(index_t, index_t, T*)> fetch, index_t total) {
  auto cache = std::make_shared<view_cache<T>>(view_cache<T>{std::move(fetch), total, -1, {}});
  return rng::views::iota(index_t{0}, total) | rng::views::transform([cache](index_t k) { return cache->at(k); });
}
}  // namespace detail

/// The values of `a` in row-major order of its domain, as a range-v3 view of values. The
/// array must outlive the view; values are read when the view reaches them.
template <class T, std::size_t N>
auto view(const array<T, N>& a) {
  return detail::values_view<T>([&a](index_t first, index_t count, T* out) { a.fetch(first, count, out); },
                                a.domain().size());
}

/// The values of the array view `v` in row-major order of its indices (the array must
/// outlive the range).
template <class T, std::size_t N, std::size_t M>
auto view(const array_view<T, N, M>& v) {
  using V = std::remove_const_t<T>;
  return detail::values_view<V>([v](index_t first, index_t count, V* out) { v.fetch(first, count, out); },
                                v.size());
}

}  // namespace dmap
