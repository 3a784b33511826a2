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

/// A single thing a parallel loop iterates: a dmap::domain (yields indices), a dmap::array or
/// an array view (yield references to elements, const ones when it is const), or a
/// neighbourhood operand (dmap::neighbors: yields neighbourhoods).
template <class X>
concept iterand = detail::has_operand<X>;

/// What forall and reduce accept: an iterand or a zip of iterands.
template <class X>
concept loop_iterand =
    iterand<X> || (detail::is_zip_v<std::remove_cvref_t<X>> && !detail::leads_own_loops<std::remove_cvref_t<X>>);

/// The arguments a loop body receives for each index of `X`, as a std::tuple (one per
/// zipped iterand, in order).
template <loop_iterand X>
using loop_args_t = typename detail::loop_args<std::remove_cvref_t<X>>::type;

/// A body for a loop over `X`: callable with one argument per zipped iterand, each the
/// iterand's element (`T&`, `const T&`, `idx<N>` or a neighbourhood).
template <class Body, class X>
concept loop_body = loop_iterand<X> && detail::invocable_with_tuple<Body&, loop_args_t<X>>::value;

/// A reduction operation on values of type T: `op(a, b)` combines two of them into a T.
template <class Op, class T>
concept reduction_op = std::is_invocable_v<Op&, T, T> && std::convertible_to<std::invoke_result_t<Op&, T, T>, T>;

/// A transform for a reduction over `X` into T: called like a loop body, it returns
/// something convertible to T.
template <class Transform, class X, class T>
concept reduction_transform =
    loop_body<Transform, X> &&
    std::convertible_to<decltype(std::apply(std::declval<Transform&>(), std::declval<loop_args_t<X>>())), T>;

/// Iterands that can be zipped: all of them iterands of the same number of dimensions.
template <class... Iterands>
concept same_rank_iterands =
    sizeof...(Iterands) >= 1 && (iterand<Iterands> && ...) &&
    ((detail::operand<std::remove_reference_t<Iterands>>::rank ==
      detail::operand<std::remove_reference_t<std::tuple_element_t<0, std::tuple<Iterands...>>>>::rank) &&
     ...);

}  // namespace dmap
