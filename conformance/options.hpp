// What dmap::conformance::check is told about a map beyond the map itself: the rules it
// documents (who owns an index, which index sets it refuses) and how many random cases to draw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <type_traits>

#include "../dsi/index.hpp"
#include "../dsi/rect.hpp"

namespace dmap::conformance {

/// The random source a map factory draws its parameters from; seeded alike on every locale.
using random_engine = std::mt19937_64;

/// The seed of the random cases when the options name none (the same on every locale).
inline constexpr std::uint64_t default_seed = 0x0c0f02a115eedULL;

/// A map's documented owner rule, written either as `int(const idx<N>& i, const rect<N>& whole)`
/// (the locale owning index `i` of the index set `whole`) or, for a rule that depends on the
/// domain's history (such as Unstructured's: indices that survive a resize stay where they were)
/// or is costly to derive, as `f(const rect<N>& whole)` returning the owner of each index as an
/// `int(const idx<N>&)`. The kit derives it once for each index set a domain takes (created
/// over or resized to, empty ones included), in order.
template <std::size_t N>
class owner_rule {
 public:
  /// The owner of each index of one index set.
  using per_index = std::function<int(const idx<N>&)>;

  /// No rule: ownership is checked for consistency only.
  owner_rule() = default;
  /// A rule of each index and the index set: `rule(i, whole)` owns `i`.
  template <class Rule>
    requires std::is_invocable_r_v<int, Rule&, const idx<N>&, const rect<N>&>
  owner_rule(Rule rule)
      : derive_([rule](const rect<N>& whole) -> per_index {
          return [rule, whole](const idx<N>& i) mutable { return static_cast<int>(rule(i, whole)); };
        }) {}
  /// A rule derived per index set: `rule(whole)` returns the owner of each index of `whole`.
  template <class Rule>
    requires(std::is_invocable_v<Rule&, const rect<N>&> &&
             std::is_invocable_r_v<int, std::invoke_result_t<Rule&, const rect<N>&>&, const idx<N>&>)
  owner_rule(Rule rule)
      : derive_([rule](const rect<N>& whole) mutable -> per_index { return per_index(rule(whole)); }) {}

  /// True when there is a rule.
  explicit operator bool() const noexcept { return static_cast<bool>(derive_); }
  /// The owner of each index of `whole`, the index set a domain has just taken.
  per_index for_index_set(const rect<N>& whole) const { return derive_(whole); }

 private:
  std::function<per_index(const rect<N>&)> derive_;
};

/// A map's documented refusals: true for an index set the map refuses (a domain over it, or a
/// resize to it, must throw dmap::argument_error on every locale).
template <std::size_t N>
using refusal_rule = std::function<bool(const rect<N>& whole)>;

/// What a factory returns when its maps' rules depend on the parameters it drew: the map and
/// its rules (an empty rule falls back to the one in the options).
template <class Dist, std::size_t N>
struct map_with_rules {
  Dist map;                       ///< the distribution to check
  owner_rule<N> owner = {};       ///< its documented owner of each index (empty: the options')
  refusal_rule<N> refuses = {};   ///< the index sets it documents as refused (empty: the options')
};

/// How dmap::conformance::check runs; every locale must pass the same options.
template <std::size_t N>
struct options {
  /// The map's documented owner rule, checked against every placement (empty: not checked).
  owner_rule<N> owner = {};
  /// The index sets the map documents as refused (empty: it must accept every index set).
  refusal_rule<N> refuses = {};
  /// How many random index sets to check (each also resized once or twice).
  int random_cases = 10;
  /// Whether to add one large unit-stride index set, big enough for several chunks per piece.
  bool large_case = true;
  /// The seed of the random cases; mixed with the subject's name and N.
  std::uint64_t seed = default_seed;
  /// Whether the map's layouts may leave elements no index uses (padded rows): check 3 then
  /// skips its compactness rule and keeps the others (see layout_rules.hpp).
  bool gaps_allowed = false;
};

}  // namespace dmap::conformance
