// Element-wise assignment between any two placements of the same shape (arrays and array
// views, any maps, any index sets): the k-th index in row-major order of the source gives
// its value to the k-th of the destination, through a transfer plan kept for the next time;
// gathering and printing any placement.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <ostream>
#include <sstream>
#include <memory>
#include <vector>

#include "locator.hpp"
#include "plan_cache.hpp"
#include "transfer.hpp"

namespace dmap::detail {

/// One side of an assignment as this locale sees it.
template <class T, std::size_t N>
struct placed_elements {
  placement_key key;                       ///< names the placement (plan cache)
  std::function<locator<N>()> locate;      ///< where its elements live (when a plan is built)
  rect<N> whole;                           ///< its index set
  T* data = nullptr;                       ///< this locale's buffer
  index_t local_size = 0;                  ///< elements in that buffer
  std::shared_ptr<void>* plans = nullptr;  ///< the plan cache of its domain (destinations)
};

/// Collective. Every element of `where` (elements at `data`), in row-major order, on
/// locale 0 (empty elsewhere).
template <class T, std::size_t N>
std::vector<T> gather_to_root(const locator<N>& where, const T* data) {
  const rect<N>& whole = where.whole;
  placement<N> to(static_cast<std::size_t>(num_locales()));
  to[0].push_back({whole, dense_layout<N>::make(whole, 0), {}});
  std::vector<T> all(here() == 0 ? static_cast<std::size_t>(whole.size()) : 0);
  locator<N> target{whole, {}, std::make_shared<const placement<N>>(std::move(to)), nullptr, nullptr, {}};
  if (here() == 0) target.mine = (*target.all)[0];
  transfer(where, data, target, all.data());
  return all;
}

/// Writes gathered elements of the given shape like Chapel (rows on lines, planes separated
/// by blank lines); only locale 0 writes.
template <class T, std::size_t N>
std::ostream& write_elements(std::ostream& os, const std::vector<T>& all, const std::array<index_t, N>& shape) {
  if (here() != 0) return os;
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (k > 0) {
      std::size_t boundaries = 0;
      index_t span = 1;
      for (std::size_t d = N; d-- > 0;) {
        span *= shape[d];
        if (k % static_cast<std::size_t>(span) == 0) ++boundaries;
        else break;
      }
      if (boundaries == 0) os << ' ';
      else os << (boundaries >= 2 ? "\n\n" : "\n");
    }
    os << all[k];
  }
  return os;
}

/// Throws shape_error unless an assignment of `source` to `target` has equal shapes; `who`
/// starts the message.
template <std::size_t N>
void check_assignment_shapes(const rect<N>& source, const rect<N>& target, const char* who) {
  if (source.shape() == target.shape()) return;
  std::ostringstream s;
  s << who << ": the right-hand side has indices " << source << " but the left-hand side has " << target
    << "; assignment needs equal shapes";
  throw shape_error(s.str());
}

/// Collective. Copies `from` (only read) into `to` (same shape; the caller checks): one message per pair
/// of locales that share elements, exactly those elements. When both sides live in the same
/// buffer the source is read from a copy taken first, so overlapping parts move as a whole.
template <class T, std::size_t N>
void assign_elements(const placed_elements<T, N>& from, const placed_elements<T, N>& to) {
  const auto locate_from = [&] {
    locator<N> l = from.locate();
    return l.whole == to.whole ? l : reindexed(l, to.whole);
  };
  const auto plan = cached_transfer_plan<N>(*to.plans, from.key, to.key, locate_from, to.locate);
  const T* source = from.data;
  std::vector<T> before;
  if (from.data == to.data && from.data != nullptr) {
    before.assign(from.data, from.data + from.local_size);
    source = before.data();
  }
  pending_transfer<T, N>(*plan, source, to.data, true).finish();
}

}  // namespace dmap::detail
