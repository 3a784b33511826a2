// The machinery behind concepts.hpp (not part of the API): what a loop body receives from each
// iterand, whether an iterand is a zip, whether it runs loops of its own.
#pragma once

#include <tuple>
#include <type_traits>
#include <utility>

#include "operands.hpp"

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

}  // namespace dmap
