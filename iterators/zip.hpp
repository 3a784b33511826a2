// zip(...): iterands traversed together in a parallel loop, the first one leading; in() and
// inout() say whether the loop body reads or writes an operand.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../dsi/array.hpp"
#include "../dsi/array_view.hpp"
#include "concepts.hpp"

namespace dmap {

/// Several iterands (domains, arrays, views, neighbourhoods of one shape) traversed
/// together; the first leads. Holds references to domains and arrays (they must outlive the
/// loop) and copies of small operand descriptions such as views and `neighbors(A)`.
template <class... Iterands>
struct zipped {
  std::tuple<Iterands...> iterands;  ///< the iterands, leader first
};

/// Zips iterands for forall/reduce: `forall(zip(B, A, C), [](double& b, const double& a,
/// const double& c) {...})`. Every iterand must have the same number of dimensions (and,
/// checked when the loop runs, the same shape).
template <class... Iterands>
  requires same_rank_iterands<Iterands...> || (sizeof...(Iterands) >= 1 && detail::own_loops<std::tuple_element_t<0, std::tuple<Iterands..., void>>>)
zipped<Iterands...> zip(Iterands&&... iterands) {
  return zipped<Iterands...>{std::tuple<Iterands...>(std::forward<Iterands>(iterands)...)};
}
/// A misuse of zip: says which rule it breaks.
template <class... Iterands>
  requires(!same_rank_iterands<Iterands...> &&
           !(sizeof...(Iterands) >= 1 && detail::own_loops<std::tuple_element_t<0, std::tuple<Iterands..., void>>>))
auto zip(Iterands&&...) {
  if constexpr (sizeof...(Iterands) == 0)
    static_assert(detail::misuse<Iterands...>, "dmap::zip needs at least one iterand");
  else if constexpr (!(iterand<Iterands> && ...))
    static_assert(detail::misuse<Iterands...>,
                  "dmap::zip: every iterand must be a dmap::domain, array, array view or neighbors(...) (concept "
                  "dmap::iterand); a sparse or associative domain or array zips only as the leader");
  else
    static_assert(detail::misuse<Iterands...>,
                  "dmap::zip: zipped iterands must have the same number of dimensions (concept "
                  "dmap::same_rank_iterands)");
}

/// Marks an operand the body only reads (Chapel's `const` intent): a misaligned operand is
/// then only gathered before the loop, never copied back. `zip(A, in(B))` is the same as
/// `zip(A, std::as_const(B))`. Needed only for bodies with generic (`auto`) parameters:
/// when the body names its parameter types, a value or `const T&` parameter says it already.
template <class T, std::size_t N>
const array<T, N>& in(const array<T, N>& a) noexcept {
  return a;
}
/// A read-only form of a view.
template <class T, std::size_t N, std::size_t M>
array_view<const T, N, M> in(const array_view<T, N, M>& v) {
  return v;
}

/// Marks an operand the body writes (Chapel's `ref` intent): after the loop a misaligned
/// operand is copied back. This is what dmap assumes for a non-const operand handed to a
/// generic `auto&` parameter; `inout` says it explicitly and refuses read-only operands.
template <class T, std::size_t N>
array<T, N>& inout(array<T, N>& a) noexcept {
  return a;
}
/// A view the body writes.
template <class T, std::size_t N, std::size_t M>
  requires(!std::is_const_v<T>)
array_view<T, N, M> inout(const array_view<T, N, M>& v) {
  return v;
}

}  // namespace dmap
