// forall and reduce over sparse domains and arrays: owner computes, each locale's indices cut
// into chunks by positions (nonzeros, not rows), zipped with sparse arrays over the same
// sparse domain and with dense arrays of the parent's shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/tasks.hpp"
#include "concepts.hpp"
#include "detail/body_traits.hpp"
#include "detail/combine_partials.hpp"
#include "detail/sparse_loops.hpp"
#include "detail/sparse_operands.hpp"
#include "reduce.hpp"
#include "zip.hpp"

namespace dmap {

/// What sparse loops (forall, reduce) accept:
///
/// | form | rule (checked) |
/// |---|---|
/// | `dmap::sparse_domain<N>` (yields `idx<N>`) or `dmap::sparse_array<T, N>` (yields `T&`, `const T&` when const) | at compile time |
/// | `zip(lead, x1, ...)` led by one | at compile time: each follower a sparse domain or array, or a dense `dmap::array` (not a view, not an associative operand) |
/// | sparse followers | over the leader's sparse domain: shape_error on every locale otherwise |
/// | dense followers | of the parent's shape: shape_error on every locale otherwise; read in place when placed like the parent, staged otherwise |
template <class X>
concept sparse_iterand = detail::leads_own_loops<std::remove_cvref_t<X>> && detail::sparse_loop_operands<X>();

/// The arguments a body of a sparse loop over X receives: `idx<N>` for the sparse domain,
/// `T&` or `const T&` for arrays.
template <sparse_iterand X>
using sparse_args_t = typename detail::sparse_args<detail::sparse_iterands_t<X>>::type;

/// A body for a sparse loop over X:
///
/// | iterand | the body is called as |
/// |---|---|
/// | the sparse domain | `body(idx<N>)` |
/// | a sparse or dense array of T | `body(T&)`, or `body(const T&)` / `body(T)` for a const one |
/// | `zip(x0, x1, ...)` | `body(a0, a1, ...)`, one argument per iterand as above |
template <class Body, class X>
concept sparse_body = sparse_iterand<X> && detail::invocable_with_tuple<Body&, sparse_args_t<X>>::value;

/// Collective: runs `body` once per index of a sparse domain (or element of a sparse array),
/// on the locale that owns it, in parallel on its threads; chunks are cut by positions
/// (nonzeros), so rows of very different lengths do not unbalance the threads:
///   forall(S, [](idx<2> i) {...})
///   forall(A, [](double& a) {...})                                   values of a sparse array
///   forall(zip(A, B, S, X), [](double& a, const double& b, idx<2> i, double& x) {...})
/// Zipped sparse arrays must be over the leader's sparse domain; a dense array of the
/// parent's shape is read at each index: in place when its domain is placed like the parent
/// (the parent itself, or the same map over the same indices), otherwise gathered before the
/// loop and written back after it when the body may write it (as for dense zips). An
/// exception thrown by the body on any locale is rethrown on every locale.
template <class Iterand, class Body>
  requires sparse_iterand<Iterand> && sparse_body<Body, Iterand>
void forall(Iterand&& iterand, Body&& body) {
  const detail::collective_scope scope;
  constexpr std::size_t count = std::tuple_size_v<sparse_args_t<Iterand>>;
  constexpr std::uint64_t written = detail::parameters_written<Body>(std::make_index_sequence<count>{});
  detail::run_sparse_loop(
      iterand, [](std::size_t) {},
      [&](std::size_t, auto&& rows) {
        rows([&](index_t length, const auto&... row) { detail::for_row(body, length, row...); });
      },
      written);
}

/// A misuse of forall over a sparse iterand: says which rule it breaks.
template <class Iterand, class Body>
  requires(detail::leads_own_loops<std::remove_cvref_t<Iterand>> &&
           detail::is_sparse_leader<std::remove_cvref_t<std::tuple_element_t<0, detail::sparse_iterands_t<Iterand>>>> &&
           !sparse_body<Body, Iterand>)
void forall(Iterand&&, Body&&) {
  if constexpr (!sparse_iterand<Iterand>)
    static_assert(detail::misuse<Iterand, Body>,
                  "dmap::forall: a zip led by a sparse domain or array takes sparse arrays over that domain, the "
                  "domain itself and dense dmap::arrays of the parent's shape (concept dmap::sparse_iterand)");
  else
    static_assert(detail::misuse<Iterand, Body>,
                  "dmap::forall: the body must be callable with one argument per zipped iterand: idx<N> for the "
                  "sparse domain, T& or const T& for arrays (concept dmap::sparse_body)");
}

/// Collective: folds `transform(arguments...)` of every index of a sparse iterand with `op`
/// from `init`; the same result on every locale, grouped by chunk in order and then along
/// the fixed tree over the locales (as dense reduce), so repeated runs give identical bits.
template <class Iterand, class T, class Op, class Transform>
  requires sparse_iterand<Iterand> && reduction_op<Op, T> && sparse_body<Transform, Iterand>
[[nodiscard]] T reduce(Iterand&& iterand, T init, Op op, Transform transform) {
  const detail::collective_scope scope;
  static_assert(std::is_trivially_copyable_v<T>, "dmap::reduce: the result type must be trivially copyable");
  std::vector<detail::partial<T>> partials;
  detail::run_sparse_loop(
      iterand, [&](std::size_t chunks) { partials.assign(chunks, detail::partial<T>{init, 0}); },
      [&](std::size_t c, auto&& rows) {
        T acc = init;
        bool has = false;
        rows([&](index_t length, const auto&... row) { detail::reduce_row(acc, has, op, transform, length, row...); });
        partials[c] = {acc, has ? 1 : 0};
      },
      0);
  return detail::combine_partials(partials, init, op, false, nullptr);
}

/// Collective: folds the values of a sparse array (or the indices of a sparse domain) with
/// `op` (a sum by default) from `init`. Absent indices do not take part (the implicit value
/// is not folded in).
template <class Iterand, class T, class Op = std::plus<>>
  requires sparse_iterand<Iterand> && (!detail::is_zip_v<std::remove_cvref_t<Iterand>>) && reduction_op<Op, T>
[[nodiscard]] T reduce(Iterand&& iterand, T init, Op op = {}) {
  return reduce(std::forward<Iterand>(iterand), init, op, detail::identity_transform{});
}

}  // namespace dmap
