// Where a domain's elements live, as far as one locale can tell, and the transfer plans
// between two such descriptions. Maps given by formulas tell every locale's blocks, so plans
// intersect blocks and need no communication; maps known only through a directory (Hashed,
// Unstructured) tell this locale's own blocks and answer the rest by batched lookups, so
// their plans pair elements and exchange the offset lists once (collectively).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "directory.hpp"
#include "transfer.hpp"

namespace dmap {

/// Where the elements of one index set live: this locale's owned blocks, and either every
/// locale's blocks (`all`) or the directory (`dir`).
template <std::size_t N>
struct locator {
  rect<N> whole;                              ///< the index set
  std::vector<placed_block<N>> mine;          ///< this locale's owned blocks
  std::shared_ptr<const placement<N>> all;    ///< every locale's blocks, when formulas tell them
  std::shared_ptr<const directory<N>> dir;    ///< otherwise the directory
  /// When locales hold copies, each locale's copy layer (null: none): a destination reads
  /// from the source locales of its own layer.
  std::shared_ptr<const std::vector<int>> layers;
};

namespace detail {

/// Calls f(i, offset) for every index of the blocks, block by block, row-major within each.
template <std::size_t N, class F>
void for_each_stored_index(const std::vector<placed_block<N>>& blocks, F&& f) {
  for (const auto& b : blocks) {
    const rect<N>& part = b.owned;
    if (part.empty()) continue;
    const auto extents = part.shape();
    for_each_row_start<N>(extents, [&](const std::array<index_t, N>& k) {
      idx<N> i{};
      for (std::size_t d = 0; d < N; ++d) i[d] = part.dim(d).first() + k[d] * part.dim(d).stride();
      for (index_t c = 0; c < extents[N - 1]; ++c, i[N - 1] += part.dim(N - 1).stride())
        f(i, b.layout.offset_of(i + b.shift));
    });
  }
}


/// Collective. An element-list plan: each index of `walked` (this locale's blocks of one
/// side) paired with its location on the other side, found by `locate` (orders of the other
/// side's index set -> locations). `pull`: `walked` are destinations and the locations are
/// sources; otherwise the reverse.
template <std::size_t N, class Locate>
transfer_plan<N> element_plan(const std::vector<placed_block<N>>& walked, const rect<N>& other_whole, bool pull,
                              Locate&& locate) {
  std::vector<index_t> mine, orders;
  for_each_stored_index<N>(walked, [&](const idx<N>& i, index_t offset) {
    const index_t o = other_whole.order_of(i);
    if (o < 0) return;  // not an index of the other side (a resize)
    mine.push_back(offset);
    orders.push_back(o);
  });
  const std::vector<location> there = locate(orders);
  const int p = num_locales(), me = here();
  std::vector<std::vector<index_t>> kept(static_cast<std::size_t>(p)), told(static_cast<std::size_t>(p));
  std::vector<std::pair<index_t, index_t>> local;
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const location& l = there[k];
    if (l.locale < 0) continue;  // an index the other side does not hold
    if (l.locale == me) {
      local.push_back(pull ? std::pair{l.offset, mine[k]} : std::pair{mine[k], l.offset});
      continue;
    }
    kept[static_cast<std::size_t>(l.locale)].push_back(mine[k]);
    told[static_cast<std::size_t>(l.locale)].push_back(l.offset);
  }
  byte_buffers outgoing(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q)
    if (q != me) outgoing[static_cast<std::size_t>(q)] = to_bytes(told[static_cast<std::size_t>(q)]);
  const byte_buffers incoming = exchange(std::move(outgoing));
  std::vector<std::vector<index_t>> learned(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q)
    if (q != me) learned[static_cast<std::size_t>(q)] = from_bytes<index_t>(incoming[static_cast<std::size_t>(q)]);
  return pull ? transfer_plan<N>::of_elements(std::move(learned), std::move(kept), std::move(local))
              : transfer_plan<N>::of_elements(std::move(kept), std::move(learned), std::move(local));
}

/// The image of `r` (indices on the lattice of `from`, possibly beyond its bounds) under the
/// map that sends the k-th index of `from` to the k-th index of `to`, per dimension.
template <std::size_t N>
rect<N> reindex(const rect<N>& r, const rect<N>& from, const rect<N>& to) {
  rect<N> out;
  for (std::size_t d = 0; d < N; ++d) {
    const range& x = r.dim(d);
    const range& f = from.dim(d);
    const range& t = to.dim(d);
    if (x.empty() || f.empty()) {
      out.set_dim(d, range::counted(t.empty() ? 0 : t.first(), 0, t.stride()));
      continue;
    }
    const index_t first = t.first() + (x.first() - f.first()) / f.stride() * t.stride();
    out.set_dim(d, range::counted(first, x.size(), x.size() == 1 ? t.stride() : x.stride() / f.stride() * t.stride()));
  }
  return out;
}
}  // namespace detail

/// `l` seen from another index set `to` of the same shape: the k-th index (row-major) of
/// l.whole is named by the k-th index of `to`, blocks and layouts alike (a directory is
/// keyed by row-major orders, which do not change).
template <std::size_t N>
locator<N> reindexed(const locator<N>& l, const rect<N>& to) {
  const auto move = [&](const placed_block<N>& b) {
    placed_block<N> out = b;
    out.owned = detail::reindex(b.owned, l.whole, to);
    out.layout.indices = detail::reindex(b.layout.indices, l.whole, to);
    out.shift = idx<N>{};  // locators of domains carry no shift
    return out;
  };
  locator<N> out{to, {}, {}, l.dir, l.layers};
  for (const auto& b : l.mine) out.mine.push_back(move(b));
  if (l.all) {
    auto all = std::make_shared<placement<N>>(l.all->size());
    for (std::size_t q = 0; q < all->size(); ++q)
      for (const auto& b : (*l.all)[q]) (*all)[q].push_back(move(b));
    out.all = std::move(all);
  }
  return out;
}

/// The plan of this locale for moving the indices held by both `from` and `to` from the
/// first to the second. Local (no messages) when formulas tell both sides' blocks;
/// collective when a side is known through a directory.
template <std::size_t N>
transfer_plan<N> plan_transfer(const locator<N>& from, const locator<N>& to) {
  if (!from.dir && !to.dir) return transfer_plan<N>(*from.all, *to.all, from.layers.get());
  if (from.layers) {  // a source with copies (given by formulas): read from this locale's layer
    const auto& layer = *from.layers;
    return detail::element_plan<N>(to.mine, from.whole, true, [&](const std::vector<index_t>& orders) {
      std::vector<location> out(orders.size());
      for (std::size_t k = 0; k < orders.size(); ++k) {
        const idx<N> i = from.whole.index_at(orders[k]);
        for (int q = 0; q < static_cast<int>(layer.size()) && out[k].locale < 0; ++q) {
          if (layer[static_cast<std::size_t>(q)] != layer[static_cast<std::size_t>(here())]) continue;
          for (const auto& b : (*from.all)[static_cast<std::size_t>(q)])
            if (b.owned.contains(i)) {
              out[k] = {b.layout.offset_of(i + b.shift), q, 1};
              break;
            }
        }
      }
      return out;
    });
  }
  if (from.dir)  // destinations ask the source's directory
    return detail::element_plan<N>(to.mine, from.whole, true,
                                   [&](const std::vector<index_t>& orders) { return from.dir->lookup(orders); });
  // sources ask the destination's directory
  return detail::element_plan<N>(from.mine, to.whole, false,
                                 [&](const std::vector<index_t>& orders) { return to.dir->lookup(orders); });
}

/// Collective. Copies every index held by both `from` (elements at `from_base`) and `to`
/// (elements at `to_base`), in one message per pair of locales that share indices.
template <transferable T, std::size_t N>
void transfer(const locator<N>& from, const T* from_base, const locator<N>& to, T* to_base) {
  const transfer_plan<N> plan = plan_transfer(from, to);
  pending_transfer<T, N>(plan, from_base, to_base).finish();
}

}  // namespace dmap
