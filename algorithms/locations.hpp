// Locations of extrema (minloc, maxloc: the value and its index) and several reductions in
// one pass (reduce_each: one loop over the data, one combine across locales).
#pragma once

#include <array>
#include <cstddef>
#include <exception>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../iterators/concepts.hpp"
#include "../iterators/detail/combine_partials.hpp"
#include "../iterators/reduce.hpp"
#include "../runtime/agreement.hpp"
#include "detail/locations.hpp"
#include "detail/reduction_loop.hpp"

namespace dmap {

/// A value and the index where it was found: what minloc and maxloc return.
template <class T, std::size_t N>
struct located {
  T value;       ///< the extreme value (after the transform, when one was given)
  idx<N> index;  ///< its index in the input's own index set (a view's indices, the leader's for a zip)
};

/// Collective: the smallest value of an array or view (or of `transform(elements...)` over
/// a zip) and its index, the same on every locale. Ties go to the smallest index in the
/// input's row-major order (its dense order: a view with a negative stride counts from its
/// first index); NaN is larger than every number (the result is NaN only when every value
/// is, at the first of them). An empty input is an argument_error on every locale.
/// Communication: that of one dmap::reduce (one agreement, the combining tree).
template <loop_iterand Iterand, class Transform>
  requires loop_body<Transform, Iterand>
[[nodiscard]] auto minloc(Iterand&& iterand, Transform transform) {
  return detail::locate_extreme<false>(iterand, transform, "dmap::minloc");
}
/// Collective: minloc of the elements of an array or view themselves.
template <iterand Iterand>
[[nodiscard]] auto minloc(Iterand&& iterand) {
  return detail::locate_extreme<false>(iterand, detail::identity_transform{}, "dmap::minloc");
}
/// Collective: the largest value and its index, as minloc (ties to the smallest index; NaN
/// is smaller than every number).
template <loop_iterand Iterand, class Transform>
  requires loop_body<Transform, Iterand>
[[nodiscard]] auto maxloc(Iterand&& iterand, Transform transform) {
  return detail::locate_extreme<true>(iterand, transform, "dmap::maxloc");
}
/// Collective: maxloc of the elements of an array or view themselves.
template <iterand Iterand>
[[nodiscard]] auto maxloc(Iterand&& iterand) {
  return detail::locate_extreme<true>(iterand, detail::identity_transform{}, "dmap::maxloc");
}

/// Collective: several reductions of one iterand in one pass, as std::tuple of results:
///   auto [s, lo, hi] = dmap::reduce_each(A, std::tuple{0.0, inf, -inf},
///                                        std::tuple{std::plus<>{}, dmap::minimum{}, dmap::maximum{}});
/// Result k is what `dmap::reduce(iterand, get<k>(inits), get<k>(ops), get<k>(transforms))`
/// returns, bit for bit (the same grouping), but the data is read once and the locales
/// combine all results in one tree: the communication of one reduce. Every type must be
/// trivially copyable; an exception from any op or transform is thrown on every locale.
template <loop_iterand Iterand, class... Ts, class... Ops, class... Transforms>
  requires(sizeof...(Ts) >= 1 && sizeof...(Ts) == sizeof...(Ops) && sizeof...(Ts) == sizeof...(Transforms) &&
           (reduction_op<Ops, Ts> && ...) && (reduction_transform<Transforms, Iterand, Ts> && ...))
[[nodiscard]] std::tuple<Ts...> reduce_each(Iterand&& iterand, std::tuple<Ts...> inits, std::tuple<Ops...> ops,
                                            std::tuple<Transforms...> transforms) {
  static_assert((std::is_trivially_copyable_v<Ts> && ...),
                "dmap::reduce_each: every result type must be trivially copyable");
  using flat = detail::flat_tuple<Ts...>;
  constexpr auto seq = std::index_sequence_for<Ts...>{};
  const auto op = [&](const flat& a, const flat& b) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      flat r = a;
      ((detail::flat_get<I>(r) = static_cast<Ts>(std::get<I>(ops)(detail::flat_get<I>(a),
                                                                  detail::flat_get<I>(b)))),
       ...);
      return r;
    }(seq);
  };
  const auto transform = [&](auto&&... elements) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      flat r{};
      ((detail::flat_get<I>(r) = static_cast<Ts>(std::get<I>(transforms)(elements...))), ...);
      return r;
    }(seq);
  };
  return detail::from_flat(reduce(std::forward<Iterand>(iterand), detail::to_flat(inits, seq), op, transform), seq);
}

/// Collective: several reductions of the elements of an array or view (or the indices of a
/// domain) in one pass; see the form with transforms.
template <iterand Iterand, class... Ts, class... Ops>
  requires(sizeof...(Ts) >= 1 && sizeof...(Ts) == sizeof...(Ops) && (reduction_op<Ops, Ts> && ...) &&
           (reduction_transform<detail::identity_transform, Iterand, Ts> && ...))
[[nodiscard]] std::tuple<Ts...> reduce_each(Iterand&& iterand, std::tuple<Ts...> inits, std::tuple<Ops...> ops) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return reduce_each(std::forward<Iterand>(iterand), std::move(inits), std::move(ops),
                       std::tuple<detail::identity_for<I>...>{});
  }(std::index_sequence_for<Ts...>{});
}

}  // namespace dmap
