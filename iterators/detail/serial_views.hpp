// The machinery behind views.hpp (not part of the API): the functions a serial view computes
// its indices and values with, and the batch cache its values are read through.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../../dsi/detail/assignment.hpp"
#include "../../dsi/rect.hpp"
#include "../../runtime/errors.hpp"
#include "generated_view.hpp"

namespace dmap {

namespace detail {
/// Index k of a rect in row-major order.
template <std::size_t N>
struct index_at_order {
  rect<N> whole;
  idx<N> operator()(index_t k) const { return whole.index_at(k); }
};

/// The batch of values a serial view last fetched.
template <class T>
struct view_cache {
  std::function<void(index_t, index_t, T*)> fetch;  // (first, count, out)
  index_t total = 0;
  index_t base = -1;
  std::vector<T> values;

  T at(index_t k) {
    if (k < 0 || k >= total)
      throw out_of_bounds_error(std::string("dmap::view: position ") + std::to_string(k) + " is outside [0, " +
                                std::to_string(total) + "), the view's values");
    if (base < 0 || k < base || k >= base + static_cast<index_t>(values.size())) {
      base = k / fetch_batch_elements * fetch_batch_elements;
      const index_t count = std::min(fetch_batch_elements, total - base);
      values.resize(static_cast<std::size_t>(count));
      fetch(base, count, values.data());
    }
    return values[static_cast<std::size_t>(k - base)];
  }
};

/// Value k of an array or view in row-major order, read through a shared batch cache.
template <class T>
struct value_at_order {
  std::shared_ptr<view_cache<T>> cache;
  T operator()(index_t k) const { return cache->at(k); }
};

template <class T>
generated_view<value_at_order<T>> values_view(std::function<void(index_t, index_t, T*)> fetch, index_t total) {
  return {{std::make_shared<view_cache<T>>(view_cache<T>{std::move(fetch), total, -1, {}})}, total};
}
}  // namespace detail

}  // namespace dmap
