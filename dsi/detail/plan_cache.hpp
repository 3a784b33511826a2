// Transfer plans kept between calls: a plan depends only on where the elements of its two
// sides live, so it is reused until either side's domain changes. Keys name a placement
// (a domain at one generation, seen whole or through a view); every locale searches and
// evicts in the same order, so hits and misses agree where building a plan is collective.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "../../runtime/environment.hpp"
#include "domain_state.hpp"
#include "locator.hpp"

namespace dmap::detail {

/// Names one placement of elements: a domain (while it lives) at one generation, seen
/// through a view mapping (empty: the domain's own index set).
struct placement_key {
  std::weak_ptr<const void> state;
  std::uint64_t generation = 0;
  std::vector<index_t> mapping;

  /// True when both name the same live domain at the same generation, through the same view.
  bool same_as(const placement_key& other) const {
    const auto mine = state.lock();
    return mine && mine == other.state.lock() && generation == other.generation && mapping == other.mapping;
  }
  /// True when both name the same live domain through the same view, whatever the generation.
  bool same_place(const placement_key& other) const {
    const auto mine = state.lock();
    return mine && mine == other.state.lock() && mapping == other.mapping;
  }
  bool expired() const { return state.expired(); }
};

/// The key of a domain's own placement.
template <std::size_t N>
placement_key key_of(const std::shared_ptr<domain_state<N>>& s) {
  return {s, s->generation, {}};
}

/// The entry of `entries` that `matches`, counted as reused; else, after dropping the
/// entries that are `stale` and the oldest beyond `capacity`, a new one made by `build()`,
/// counted as built (collective when `build` is: every locale keeps the same entries).
template <class Entry, class Matches, class Stale, class Build>
Entry& find_or_build(std::vector<Entry>& entries, std::size_t capacity, Matches&& matches, Stale&& stale,
                     Build&& build) {
  for (auto& e : entries)
    if (matches(e)) {
      ++env().plans().reused;
      return e;
    }
  std::erase_if(entries, stale);
  if (entries.size() >= capacity) entries.erase(entries.begin());
  entries.push_back(build());
  ++env().plans().built;
  return entries.back();
}

/// The assignment plans kept by a destination domain (its cache of this type).
template <std::size_t N>
struct assignment_plans {
  struct entry {
    placement_key from, to;
    std::shared_ptr<const transfer_plan<N>> plan;
  };
  std::vector<entry> entries;
  /// Entries kept per destination domain; the oldest goes first.
  static constexpr std::size_t capacity = 16;
};

/// Collective. The plan moving the elements of `from` to `to` (placements named by the
/// keys, located by `locate_from()` / `locate_to()` when the plan must be built), kept in
/// `cache` (the destination domain's). plan_statistics() counts builds and reuses.
template <std::size_t N, class LocateFrom, class LocateTo>
std::shared_ptr<const transfer_plan<N>> cached_transfer_plan(assignment_plans<N>& cache, const placement_key& from,
                                                             const placement_key& to, LocateFrom&& locate_from,
                                                             LocateTo&& locate_to) {
  using entry = typename assignment_plans<N>::entry;
  const auto& e = find_or_build(
      cache.entries, assignment_plans<N>::capacity,
      [&](const entry& e) { return e.from.same_as(from) && e.to.same_as(to); },
      [&](const entry& e) {
        return e.from.expired() || e.to.expired() || (e.from.same_place(from) && e.to.same_place(to));
      },
      [&] { return entry{from, to, std::make_shared<const transfer_plan<N>>(plan_transfer(locate_from(), locate_to()))}; });
  return e.plan;
}

}  // namespace dmap::detail
