// Where every locale keeps the indices of one placement, asked for by region: which locales
// may hold indices of a rect, and which of their regions meet it. Transfer plans ask only
// about this locale's own blocks, so what a locale computes and stores grows with its own
// pieces and the peers they meet, not with the number of locales.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "../../runtime/detail/function_ref.hpp"
#include "../../runtime/environment.hpp"
#include "../layout.hpp"
#include "../rect.hpp"

namespace dmap::detail {

/// One block of a placement: the indices it holds (`owned`) and where: the element of
/// index i lives at `layout.offset_of(i + shift)` (a nonzero shift stores indices under
/// other names, as periodic ghost cells do).
template <std::size_t N>
struct placed_block {
  rect<N> owned;
  dense_layout<N> layout;
  idx<N> shift{};
};

/// An order of the N dimensions, the last one fastest (identity: row-major).
template <std::size_t N>
using dimension_order = std::array<std::size_t, N>;

/// The identity order: row-major.
template <std::size_t N>
constexpr dimension_order<N> row_major_order() noexcept {
  dimension_order<N> o{};
  for (std::size_t d = 0; d < N; ++d) o[d] = d;
  return o;
}

/// The order in which `layout` stores its elements: dimensions by decreasing |stride|.
template <std::size_t N>
dimension_order<N> storage_order_of(const dense_layout<N>& layout) {
  dimension_order<N> o = row_major_order<N>();
  std::stable_sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) {
    return abs_index(layout.strides[a]) > abs_index(layout.strides[b]);
  });
  return o;
}

/// The order of the dimensions in which storage of `order` keeps its elements.
template <std::size_t N>
constexpr dimension_order<N> order_of(storage_order order) noexcept {
  dimension_order<N> o = row_major_order<N>();
  if (order == storage_order::column_major)
    for (std::size_t d = 0; d < N; ++d) o[d] = N - 1 - d;
  return o;
}

/// Row-major layouts of `pieces` stored one after another from offset 0: how a locale keeps
/// its pieces when it stores them compactly, in the order given.
template <std::size_t N>
std::vector<dense_layout<N>> packed_layouts(const std::vector<rect<N>>& pieces) {
  std::vector<dense_layout<N>> out;
  out.reserve(pieces.size());
  index_t offset = 0;
  for (const auto& r : pieces) {
    out.push_back(dense_layout<N>::make(r, offset));
    offset += r.size();
  }
  return out;
}

/// Where every locale keeps its indices: placement[q] lists locale q's blocks.
template <std::size_t N>
using placement = std::vector<std::vector<placed_block<N>>>;

/// Indices another locale holds, without their storage: what a plan needs to know of a peer.
template <std::size_t N>
struct held_region {
  rect<N> owned;
  idx<N> shift{};  ///< as placed_block::shift
};

/// Every locale's regions of one placement, answered by region.
template <std::size_t N>
class placement_query {
 public:
  virtual ~placement_query() = default;
  /// The locales that may hold an index of `r`, sorted and distinct (a superset is allowed).
  virtual std::vector<int> meeting(const rect<N>& r) const = 0;
  /// Regions of locale `locale` that include every one of its regions meeting `r` (others
  /// may come too: callers intersect).
  virtual std::vector<held_region<N>> regions(int locale, const rect<N>& r) const = 0;
  /// Both questions at once: (locale, region) for each region regions(q, r) lists of each
  /// locale q meeting(r) lists, by locale. Placements with a formula answer it without a
  /// list per locale (plans meeting many locales ask this).
  virtual std::vector<std::pair<int, held_region<N>>> regions_meeting(const rect<N>& r) const {
    std::vector<std::pair<int, held_region<N>>> out;
    for (int q : meeting(r))
      for (const auto& g : regions(q, r)) out.push_back({q, g});
    return out;
  }
  /// Calls f(locale, region) for each pair regions_meeting(r) lists, in its order, without
  /// listing them (a plan whose block meets every locale writes nothing per locale).
  virtual void for_each_region_meeting(const rect<N>& r,
                                       function_ref<void(int, const held_region<N>&)> f) const {
    for (const auto& [q, g] : regions_meeting(r)) f(q, g);
  }
  /// All blocks of locale `locale`, with their storage (for the few uses that read another
  /// locale's storage offsets: remote element access, copies read from a layer).
  virtual std::vector<placed_block<N>> blocks(int locale) const = 0;
  /// Per dimension, a distance after which the placement deals indices alike again (a
  /// cyclic deal: block size x locales along it), 0 when none is known. Only a hint, the
  /// same on every locale: plans list parts that repeat one another together.
  virtual idx<N> period() const { return {}; }
  /// The order in which the placement's blocks store their indices, where its map declares
  /// one for every locale (row-major otherwise). Only a hint, the same on every locale: plans
  /// put the elements of their messages in the destination's order, so that both sides walk
  /// storage of that order in runs.
  virtual dimension_order<N> storage_order_hint() const { return row_major_order<N>(); }
};

/// A placement listed in full (small placements: a gather's target, tests). Answers by
/// scanning every locale: O(P + blocks) per question.
template <std::size_t N>
class listed_query final : public placement_query<N> {
 public:
  explicit listed_query(std::shared_ptr<const placement<N>> all) : all_(std::move(all)) {}
  std::vector<int> meeting(const rect<N>& r) const override {
    std::vector<int> out;
    for (std::size_t q = 0; q < all_->size(); ++q)
      for (const auto& b : (*all_)[q])
        if (!b.owned.intersect(r).empty()) {
          out.push_back(static_cast<int>(q));
          break;
        }
    return out;
  }
  std::vector<held_region<N>> regions(int locale, const rect<N>& r) const override {
    std::vector<held_region<N>> out;
    for (const auto& b : (*all_)[static_cast<std::size_t>(locale)])
      if (!b.owned.intersect(r).empty()) out.push_back({b.owned, b.shift});
    return out;
  }
  std::vector<placed_block<N>> blocks(int locale) const override {
    return (*all_)[static_cast<std::size_t>(locale)];
  }
  /// The order of the first block listed.
  dimension_order<N> storage_order_hint() const override {
    for (const auto& blocks : *all_)
      if (!blocks.empty()) return storage_order_of(blocks.front().layout);
    return row_major_order<N>();
  }

 private:
  std::shared_ptr<const placement<N>> all_;
};

/// Locale `q`'s blocks of `all` (empty past its end).
template <std::size_t N>
std::vector<placed_block<N>> blocks_of(const placement<N>& all, int q) {
  return q >= 0 && static_cast<std::size_t>(q) < all.size() ? all[static_cast<std::size_t>(q)]
                                                            : std::vector<placed_block<N>>{};
}

/// The rect holding the single index `i`.
template <std::size_t N>
rect<N> point_rect(const idx<N>& i) {
  rect<N> r;
  for (std::size_t d = 0; d < N; ++d) r.set_dim(d, range::counted(i[d], 1));
  return r;
}

}  // namespace dmap::detail
