// forall: the data-parallel loop over a domain, an array or a zip of them.
#pragma once

#include <utility>

#include "engine.hpp"

namespace dmap {

/// Collective. Runs `body` once per index of the iterand, on the locale that owns it
/// (owner computes), in parallel on its threads:
///   forall(D, [](idx<N> i) {...})                  a domain yields indices;
///   forall(A, [](T& a) {...})                      an array yields its elements;
///   forall(zip(B, A, D), [](T& b, const T& a, idx<N> i) {...})
///                                                  zipped iterands of one shape, the
///                                                  first leading.
/// An exception thrown by the body on any locale is rethrown on every locale. Arrays zipped
/// over one domain whose storage holds exactly the owned elements are walked as one
/// contiguous span per thread (the order of calls is then storage order).
template <class Iterand, class Body>
void forall(Iterand&& iterand, Body&& body) {
  const auto ops = detail::operands_of(iterand);
  detail::run_loop(ops, [](std::size_t) {}, [&](std::size_t, auto&& each_row) {
    each_row([&](index_t length, const auto&... rows) { detail::for_row(body, length, rows...); });
  });
}

}  // namespace dmap
