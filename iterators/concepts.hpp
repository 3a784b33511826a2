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
#include "detail/operands.hpp"

namespace dmap {

template <class... Iterands>
struct zipped;

namespace detail {
template <class X>
concept has_operand = requires { detail::operand<std::remove_reference_t<X>>::rank; };

// What the body receives from one iterand: a reference to an element (const for read-only
// operands), an index (domains) or a neighbourhood.
template <class X>
using element_arg_t = decltype(std::declval<typename operand<std::remove_reference_t<X>>::row_type>().at(0));

template <class X>
struct loop_args {
  using type = std::tuple<element_arg_t<X>>;
};
template <class... X>
struct loop_args<zipped<X...>> {
  using type = std::tuple<element_arg_t<X>...>;
};

template <class F, class Tuple>
struct invocable_with_tuple;
template <class F, class... A>
struct invocable_with_tuple<F, std::tuple<A...>> : std::bool_constant<std::is_invocable_v<F, A...>> {};

template <class X>
inline constexpr bool is_zip_v = false;
template <class... X>
inline constexpr bool is_zip_v<zipped<X...>> = true;

/// Iterands that run loops of their own (sparse and associative domains and arrays): the
/// type says so with a member `using own_loops = void;`, and its header brings the forall
/// and reduce overloads that take it. The dense engine then leaves it alone.
template <class X>
concept own_loops = requires { typename std::remove_cvref_t<X>::own_loops; };

/// True for an iterand with loops of its own, or a zip led by one.
template <class X>
inline constexpr bool leads_own_loops = own_loops<X>;
template <class Lead, class... X>
inline constexpr bool leads_own_loops<zipped<Lead, X...>> = own_loops<Lead>;
}  // namespace detail

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
