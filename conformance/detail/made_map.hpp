// What a factory returned: a distribution alone, or a map_with_rules (the distribution and the
// rules it documents). rules_of reads either the same way.
#pragma once

#include <cstddef>

#include "../options.hpp"

namespace dmap::conformance::detail {

/// A distribution alone: no rules of its own (the options' apply).
template <class T>
struct rules_of {
  using map_type = T;
  static const T& map(const T& made) { return made; }
  template <std::size_t N>
  static owner_rule<N> owner(const T&) { return {}; }
  template <std::size_t N>
  static refusal_rule<N> refuses(const T&) { return {}; }
};

/// A distribution with its rules.
template <class Dist, std::size_t M>
struct rules_of<map_with_rules<Dist, M>> {
  using map_type = Dist;
  static const Dist& map(const map_with_rules<Dist, M>& made) { return made.map; }
  template <std::size_t N>
  static owner_rule<N> owner(const map_with_rules<Dist, M>& made) {
    static_assert(N == M, "dmap::conformance::check<N>: the factory returned a map_with_rules of another N");
    return made.owner;
  }
  template <std::size_t N>
  static refusal_rule<N> refuses(const map_with_rules<Dist, M>& made) {
    static_assert(N == M, "dmap::conformance::check<N>: the factory returned a map_with_rules of another N");
    return made.refuses;
  }
};

}  // namespace dmap::conformance::detail
