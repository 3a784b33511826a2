// The last stages of every reduction: a locale's chunk results combined in chunk order, then
// the locales' results along the fixed binomial tree, with failure agreement at each stage.
// Dense, sparse and associative loops all end here, so they share one grouping rule.
#pragma once

#include <exception>
#include <vector>

#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/combining_tree.hpp"

namespace dmap::detail {

/// One locale's (or one chunk's) part of a reduction: its value, when it has one.
template <class T>
struct partial {
  static constexpr int failed = -1;  // `has` of a locale whose op threw
  T value;
  int has;  // 1: value holds a result; 0: nothing reduced; failed
};

/// Collective: combines `chunks` (this locale's chunk results, in chunk order) with `op`,
/// then the locales' results, and returns `op(init, total)` on every locale (`init` when
/// nothing was reduced anywhere). `replicated`: every locale reduced the whole set on its
/// own copy (no combining across locales). `layers`: the leader's copy layers, one tree per
/// layer (null without copies). An exception from `op` on any locale at any stage is
/// rethrown on every locale.
template <class T, class Op>
T combine_partials(const std::vector<partial<T>>& chunks, T init, Op& op, bool replicated,
                   const std::vector<int>* layers) {
  // The user's op may throw at each stage: combining this locale's chunk results, then the
  // locales' results. Either failure reaches every locale (no locale is left in a collective).
  std::exception_ptr failure;
  partial<T> mine{init, 0};
  try {
    for (const auto& p : chunks)
      if (p.has) mine = {mine.has ? op(mine.value, p.value) : p.value, 1};
  } catch (...) {
    failure = std::current_exception();
  }
  // One locale, or a replicated leader (every locale reduced the whole set on its own copy,
  // as Chapel's replicated leader does): nothing to combine across locales.
  if (num_locales() == 1 || replicated) {
    T result = init;
    if (!failure) {
      try {
        if (mine.has) result = op(result, mine.value);
      } catch (...) {
        failure = std::current_exception();
      }
    }
    agree(failure);
    return result;
  }
  // Across locales: the fixed binomial tree of runtime/detail/combining_tree.hpp, then init
  // on the left at the root, and the root's result sent back down the tree, so every locale
  // returns the same bits and the grouping depends only on the number of locales. The failure
  // flag travels with the partial results (a locale whose op throws while combining still
  // takes part, passing a failed partial up): no collective at all when all went well.
  // A leader with copy layers (replicated dimensions) runs one tree per layer, over the
  // locales of that layer, each returning its own layer's result; finding the members scans
  // the per-locale layer list, O(P) local work that such a map already holds in memory.
  using part = partial<T>;
  if (failure) mine.has = part::failed;
  locale_group group;
  if (layers) {
    std::vector<int> members;
    const int layer = (*layers)[static_cast<std::size_t>(here())];
    for (std::size_t q = 0; q < layers->size(); ++q)
      if ((*layers)[q] == layer) members.push_back(static_cast<int>(q));
    group = locale_group(std::move(members));
  }
  const auto combine = [&](const part& lower, const part& higher) noexcept -> part {
    if (lower.has == part::failed || higher.has == part::failed) return {lower.value, part::failed};
    if (!higher.has) return lower;
    if (!lower.has) return higher;
    try {
      return {op(lower.value, higher.value), 1};
    } catch (...) {
      failure = std::current_exception();
      return {lower.value, part::failed};
    }
  };
  part total = tree_combine(mine, group, combine);
  if (group.position_here() == 0) total = combine(part{init, 1}, total);
  tree_broadcast(total, group);
  // Every locale sees the flag (a layer only its own: then all agree, one reduction).
  if (total.has == part::failed || layers) agree(failure);
  return total.value;
}

}  // namespace dmap::detail
