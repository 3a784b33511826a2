// reduce: combine one value per index of a domain, an array or a zip, across threads and
// locales, deterministically (per chunk, then in chunk order, then along a fixed binomial
// tree over the locales).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "concepts.hpp"
#include "detail/body_traits.hpp"
#include "detail/combine_partials.hpp"
#include "detail/engine.hpp"
#include "detail/reduce.hpp"

namespace dmap {

/// The smaller of two values, as a reduction operation.
struct minimum {
  template <class T>
  /// The smaller of `a` and `b` (`a` when they are equal).
  constexpr T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
/// The larger of two values, as a reduction operation.
struct maximum {
  template <class T>
  /// The larger of `a` and `b` (`a` when they are equal).
  constexpr T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};

/// Collective: folds `transform(elements...)` of every index with `op`, starting from
/// `init`, and returns the same result on every locale. `op` must be associative and
/// commutative; the grouping is fixed by the data layout, the thread count and the number of
/// locales (within a locale chunk by chunk in order; across locales a binomial tree in
/// locale order, see runtime/detail/combining_tree.hpp; then `op(init, total)`), so repeated
/// runs give bit-identical results. T must be trivially copyable.
/// The transform may also write elements through non-const reference parameters, as a forall
/// body does (Chapel's forall with a reduce intent: one pass that updates arrays and folds a
/// value); a written follower that is not aligned with the leader is copied back after the
/// loop, as in forall.
///   reduce(A, 0.0, std::plus<>{})                                      sum of A
///   reduce(zip(A, B), 0.0, std::plus<>{}, [](double a, double b) { return a * b; })
///   reduce(zip(R, Q), 0.0, std::plus<>{}, [=](double& r, double q) { r -= alpha * q; return r * r; })
template <loop_iterand Iterand, class T, class Op, class Transform>
  requires reduction_op<Op, T> && reduction_transform<Transform, Iterand, T>
[[nodiscard]] T reduce(Iterand&& iterand, T init, Op op, Transform transform) {
  static_assert(std::is_trivially_copyable_v<T>,
                "dmap::reduce: the result type must be trivially copyable");
  const auto ops = detail::operands_of(iterand);
  constexpr std::size_t count = std::tuple_size_v<loop_args_t<Iterand>>;
  constexpr std::uint64_t written = detail::parameters_written<Transform>(std::make_index_sequence<count>{});
  std::vector<detail::partial<T>> partials;
  detail::run_loop(
      ops, [&](std::size_t count) { partials.assign(count, detail::partial<T>{init, 0}); },
      [&](std::size_t slot, auto&& each_row) {
        T acc = init;
        bool has = false;
        each_row([&](index_t length, const auto&... rows) {
          detail::reduce_row(acc, has, op, transform, length, rows...);
        });
        partials[slot] = {acc, has ? 1 : 0};
      },
      written);
  const auto& lead = std::get<0>(ops.ops);
  return detail::combine_partials(partials, init, op, lead.state_is_replicated(), lead.copy_layers());
}

/// Collective: folds the elements of an array or view (or the indices of a domain) with
/// `op`, starting from `init`; `op` defaults to `std::plus<>` (a sum). A zip needs the
/// transform that combines its elements (the four-argument form).
template <iterand Iterand, class T, class Op = std::plus<>>
  requires reduction_op<Op, T> && reduction_transform<detail::identity_transform, Iterand, T>
[[nodiscard]] T reduce(Iterand&& iterand, T init, Op op = {}) {
  return reduce(std::forward<Iterand>(iterand), init, op, detail::identity_transform{});
}

/// A misuse of reduce: says which rule it breaks.
template <class Iterand, class T, class... Rest>
  requires(sizeof...(Rest) <= 2 && !detail::leads_own_loops<std::remove_cvref_t<Iterand>> && !(sizeof...(Rest) == 2 && loop_iterand<Iterand> &&
                                     reduction_op<std::tuple_element_t<0, std::tuple<Rest..., void>>, T> &&
                                     reduction_transform<std::tuple_element_t<1, std::tuple<Rest..., void, void>>,
                                                         Iterand, T>) &&
           !(sizeof...(Rest) <= 1 && iterand<Iterand> &&
             reduction_op<std::remove_cvref_t<std::tuple_element_t<0, std::tuple<Rest..., std::plus<>>>>, T> &&
             reduction_transform<detail::identity_transform, Iterand, T>))
T reduce(Iterand&&, T init, Rest&&...) {
  if constexpr (!loop_iterand<Iterand>)
    static_assert(detail::misuse<Iterand, T>,
                  "dmap::reduce: the iterand must be a dmap::domain, array, array view or a zip(...) of them (concept "
                  "dmap::loop_iterand)");
  else if constexpr (sizeof...(Rest) < 2 && !iterand<Iterand>)
    static_assert(detail::misuse<Iterand, T>,
                  "dmap::reduce over a zip needs a transform combining the zipped elements: reduce(zip(A, B), init, "
                  "op, [](auto a, auto b) { ... })");
  else if constexpr (!reduction_op<std::remove_cvref_t<std::tuple_element_t<0, std::tuple<Rest..., std::plus<>>>>, T>)
    static_assert(detail::misuse<Iterand, T>,
                  "dmap::reduce: the operation must combine two values of the result type T into one convertible "
                  "to T (concept dmap::reduction_op)");
  else
    static_assert(detail::misuse<Iterand, T>,
                  "dmap::reduce: the transform must be callable with the iterand's elements (one per zipped "
                  "iterand) and return something convertible to T (concept dmap::reduction_transform)");
  return init;
}

}  // namespace dmap
