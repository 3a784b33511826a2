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
#include "detail/reduction_loop.hpp"

namespace dmap {

/// A value and the index where it was found: what minloc and maxloc return.
template <class T, std::size_t N>
struct located {
  T value;       ///< the extreme value (after the transform, when one was given)
  idx<N> index;  ///< its index in the input's own index set (a view's indices, the leader's for a zip)
};

namespace detail {

/// One candidate of a location search: a value, its position (dense coordinates, whose
/// lexicographic order is the row-major order of the index set), and whether it holds one.
template <class T, std::size_t N>
struct location_candidate {
  T value;
  std::array<index_t, N> position;
  int valid;
};

/// -1 when `a` is a better extreme than `b`, 1 when worse, 0 when neither (equal, or
/// unordered). NaN is worse than any number, for the minimum and the maximum alike.
template <bool Max, class T>
constexpr int compare_extremes(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool an = a != a, bn = b != b;
    if (an != bn) return an ? 1 : -1;
    if (an) return 0;
  }
  if (Max ? b < a : a < b) return -1;
  if (Max ? a < b : b < a) return 1;
  return 0;
}

/// The better of two candidates: the better value, on a tie the smaller position. A total
/// order on (value class, value, position), so any grouping picks the same candidate.
template <bool Max, class T, std::size_t N>
struct better_candidate {
  location_candidate<T, N> operator()(const location_candidate<T, N>& a, const location_candidate<T, N>& b) const {
    if (!a.valid) return b;
    if (!b.valid) return a;
    const int c = compare_extremes<Max>(a.value, b.value);
    if (c != 0) return c < 0 ? a : b;
    return b.position < a.position ? b : a;
  }
};

template <bool Max, class Iterand, class Transform>
auto locate_extreme(Iterand&& iterand, Transform transform, const char* who) {
  using ops_type = decltype(operands_of(iterand));
  constexpr std::size_t N = ops_type::N;
  using T = std::remove_cvref_t<decltype(std::apply(transform, std::declval<loop_args_t<Iterand>>()))>;
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "dmap::minloc/maxloc: the value type must be trivially copyable and default-constructible");
  using cand = location_candidate<T, N>;
  const auto ops = operands_agreed(iterand, who, [who](const auto& checked) {
    const auto& first = std::get<0>(checked.ops);
    if (first.whole().empty()) {
      std::ostringstream s;
      s << who << ": the input (" << first.describe() << ") is empty; an extreme needs at least one element";
      throw argument_error(s.str());
    }
  });
  const auto& lead = std::get<0>(ops.ops);
  const rect<N> whole = lead.whole();
  std::vector<work_chunk<N>> chunks;
  std::vector<partial<cand>> partials;
  const std::exception_ptr failure = run_positioned_loop(
      ops,
      [&](const auto&, const auto& cut) {
        chunks = cut;
        partials.assign(cut.size(), partial<cand>{cand{T{}, {}, 0}, 0});
      },
      [&](std::size_t c, auto&& each_row) {
        const dense_rect<N>& orders = chunks[c].orders;
        cand best{T{}, {}, 0};
        each_row([&](const std::array<index_t, N>& k, index_t length, const auto&... rows) {
          std::array<index_t, N> at{};
          for (std::size_t d = 0; d < N; ++d) at[d] = orders.dim(d).index_at(k[d]);
          const range& along = orders.dim(N - 1);
          for (index_t e = 0; e < length; ++e) {
            const T v = static_cast<T>(transform(rows.at(e)...));
            const int cmp = best.valid ? compare_extremes<Max>(v, best.value) : -1;
            if (cmp > 0) continue;
            at[N - 1] = along.index_at(e);
            if (cmp < 0 || at < best.position) best = {v, at, 1};
          }
        });
        partials[c] = {best, best.valid};
      });
  agree(failure);
  better_candidate<Max, T, N> op;
  const cand found = combine_partials(partials, cand{T{}, {}, 0}, op, lead.state_is_replicated(), lead.copy_layers());
  idx<N> index{};
  for (std::size_t d = 0; d < N; ++d) index[d] = whole.dim(d).index_at(found.position[d]);
  return located<T, N>{found.value, index};
}

/// A tuple of trivially copyable values that is itself trivially copyable (std::tuple is
/// not), so several reductions travel as one value.
template <class... Ts>
struct flat_tuple;
template <>
struct flat_tuple<> {};
template <class T, class... Rest>
struct flat_tuple<T, Rest...> {
  T head;
  flat_tuple<Rest...> tail;
};

template <std::size_t I, class F>
constexpr auto& flat_get(F& t) {
  if constexpr (I == 0) return t.head;
  else return flat_get<I - 1>(t.tail);
}

template <class... Ts, std::size_t... I>
flat_tuple<Ts...> to_flat(const std::tuple<Ts...>& t, std::index_sequence<I...>) {
  flat_tuple<Ts...> f{};
  ((flat_get<I>(f) = std::get<I>(t)), ...);
  return f;
}

template <class... Ts, std::size_t... I>
std::tuple<Ts...> from_flat(flat_tuple<Ts...> f, std::index_sequence<I...>) {
  return std::tuple<Ts...>{flat_get<I>(f)...};
}

/// The identity transform, once per reduction.
template <std::size_t>
using identity_for = identity_transform;

}  // namespace detail

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
