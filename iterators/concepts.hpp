// The contracts of parallel loops as C++20 concepts: what may be iterated, what a loop body
// and a reduction must accept. forall, zip and reduce are constrained by them, so a misuse
// fails at the call with the concept's name instead of deep inside the engine.
#pragma once

#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../dsi/detail/misuse.hpp"
#include "detail/loop_args.hpp"
#include "detail/operands.hpp"

namespace dmap {

template <class... Iterands>
struct zipped;

/// A single thing a dense parallel loop iterates (any reference, const or not):
///
/// | iterand | yields to the body |
/// |---|---|
/// | `dmap::domain<N>` | `idx<N>`, each index on its owner |
/// | `dmap::array<T, N>`, `dmap::array_view<T, N, M>` | `T&` (`const T&` when const) |
/// | `dmap::neighbors(A, radius)` | the element's neighbourhood |
///
/// Sparse and associative domains and arrays are not iterands of dense loops: they lead loops
/// of their own (dmap::sparse_iterand, dmap::associative_loop_iterand).
template <class X>
concept iterand = detail::has_operand<X>;

/// What dense forall and reduce accept:
///
/// | form | rule (checked) |
/// |---|---|
/// | an iterand | at compile time |
/// | `zip(x0, x1, ...)` of iterands | same number of dimensions at compile time (dmap::same_rank_iterands); same shape when the loop runs (shape_error on every locale) |
template <class X>
concept loop_iterand =
    iterand<X> || (detail::is_zip_v<std::remove_cvref_t<X>> && !detail::leads_own_loops<std::remove_cvref_t<X>>);

/// The arguments a loop body receives for each index of `X`, as a std::tuple (one per
/// zipped iterand, in order): the "yields" column of dmap::iterand.
template <loop_iterand X>
using loop_args_t = typename detail::loop_args<std::remove_cvref_t<X>>::type;

/// A body for a dense loop over `X`:
///
/// | iterand | the body is called as |
/// |---|---|
/// | a domain | `body(idx<N>)` |
/// | an array or view of T | `body(T&)`, `body(const T&)` or `body(T)` (`const T&` or `T` when const) |
/// | neighbors(A, r) | `body(neighbourhood)` |
/// | `zip(x0, x1, ...)` | `body(a0, a1, ...)`, one argument per iterand as above |
template <class Body, class X>
concept loop_body = loop_iterand<X> && detail::invocable_with_tuple<Body&, loop_args_t<X>>::value;

/// A reduction operation on values of type T, for reduce over any kind of iterand:
///
/// | requirement | checked |
/// |---|---|
/// | `op(a, b)` for two T, convertible to T | at compile time |
/// | associative and commutative (the grouping is fixed, not the order of the operands) | by the user |
template <class Op, class T>
concept reduction_op = std::is_invocable_v<Op&, T, T> && std::convertible_to<std::invoke_result_t<Op&, T, T>, T>;

/// A transform for a dense reduction over `X` into T:
///
/// | requirement | checked |
/// |---|---|
/// | callable like a loop body over X (dmap::loop_body) | at compile time |
/// | returns something convertible to T | at compile time |
template <class Transform, class X, class T>
concept reduction_transform =
    loop_body<Transform, X> &&
    std::convertible_to<decltype(std::apply(std::declval<Transform&>(), std::declval<loop_args_t<X>>())), T>;

/// Iterands that can be zipped into a dense loop:
///
/// | requirement | checked |
/// |---|---|
/// | at least one, every one a dmap::iterand | at compile time |
/// | the same number of dimensions N | at compile time |
/// | the same shape | when the loop runs (shape_error on every locale) |
template <class... Iterands>
concept same_rank_iterands =
    sizeof...(Iterands) >= 1 && (iterand<Iterands> && ...) &&
    ((detail::operand<std::remove_reference_t<Iterands>>::rank ==
      detail::operand<std::remove_reference_t<std::tuple_element_t<0, std::tuple<Iterands...>>>>::rank) &&
     ...);

}  // namespace dmap
