// forall: the data-parallel loop over a domain, an array, a view or a zip of them.
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

#include "concepts.hpp"
#include "detail/body_traits.hpp"
#include "detail/engine.hpp"

namespace dmap {

/// Collective: runs `body` once per index of the iterand, on the locale that owns it
/// (owner computes), in parallel on its threads:
///   forall(D, [](idx<N> i) {...})                  a domain yields indices;
///   forall(A, [](T& a) {...})                      an array or a view yields its elements;
///   forall(zip(B, A, D), [](T& b, const T& a, idx<N> i) {...})
///                                                  zipped iterands of one shape, the
///                                                  first leading.
/// A follower that is not aligned with the leader is staged: gathered before the loop, and
/// copied back after it only when the body may write it (a non-const operand whose
/// parameter is a non-const reference, or any non-const operand of a body with generic
/// parameters unless marked `dmap::in`). An exception thrown by the body on any locale is
/// rethrown on every locale. Arrays zipped over one domain whose storage holds exactly the
/// owned elements are walked as one contiguous span per thread (the order of calls is then
/// storage order).
template <loop_iterand Iterand, class Body>
  requires loop_body<Body, Iterand>
void forall(Iterand&& iterand, Body&& body) {
  const auto ops = detail::operands_of(iterand);
  constexpr std::size_t count = std::tuple_size_v<loop_args_t<Iterand>>;
  constexpr std::uint64_t written = detail::parameters_written<Body>(std::make_index_sequence<count>{});
  detail::run_loop(
      ops, [](std::size_t) {},
      [&](std::size_t, auto&& each_row) {
        each_row([&](index_t length, const auto&... rows) { detail::for_row(body, length, rows...); });
      },
      written);
}

/// A misuse of forall: says which rule it breaks.
template <class Iterand, class Body>
  requires(!loop_body<Body, Iterand> && !detail::leads_own_loops<std::remove_cvref_t<Iterand>>)
void forall(Iterand&&, Body&&) {
  if constexpr (!loop_iterand<Iterand>)
    static_assert(detail::misuse<Iterand, Body>,
                  "dmap::forall: the iterand must be a dmap::domain, array, array view, neighbors(...) or a zip(...) "
                  "of them (concept dmap::loop_iterand)");
  else
    static_assert(detail::misuse<Iterand, Body>,
                  "dmap::forall: the body must be callable with one argument per zipped iterand: T& or const T& for "
                  "an array or view of T, idx<N> for a domain, a neighbourhood for neighbors(...) (concept "
                  "dmap::loop_body)");
}

}  // namespace dmap
