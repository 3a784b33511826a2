// Where a domain's elements live, as far as one locale can tell, and the transfer plans
// between two such descriptions. Maps given by formulas tell every locale's blocks, so plans
// intersect blocks and need no communication; maps known only through a directory (Hashed,
// Unstructured) tell this locale's own blocks and answer the rest by batched lookups, so
// their plans pair elements and exchange the offset lists once (collectively).
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "../../runtime/detail/byte_exchange.hpp"
#include "directory.hpp"
#include "transfer.hpp"

namespace dmap::detail {

/// Where the elements of one index set live: this locale's owned blocks, and either a query
/// that answers for every locale's blocks (`peers`) or the directory (`dir`).
template <std::size_t N>
struct locator {
  rect<N> whole;                              ///< the index set
  std::vector<placed_block<N>> mine;          ///< this locale's owned blocks
  std::shared_ptr<const placement_query<N>> peers;  ///< every locale's blocks, when formulas tell them
  std::shared_ptr<const order_directory> dir; ///< otherwise the directory
  /// When locales hold copies, each locale's copy layer (null: none): a destination reads
  /// from the source locales of its own layer.
  std::shared_ptr<const std::vector<int>> layers;
  /// With a directory: the directory's order of the index at each order of `whole` (empty:
  /// the same order; a view of part of a domain needs it).
  std::function<index_t(index_t)> dir_order;

  /// The directory's locations of the indices at `orders` of `whole` (collective).
  std::vector<location> lookup(std::vector<index_t> orders) const {
    if (dir_order)
      for (auto& o : orders) o = dir_order(o);
    return dir->lookup(orders);
  }
};


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
      const index_t row_first = i[N - 1], step = part.dim(N - 1).stride();
      for (index_t c = 0; c < extents[N - 1]; ++c) {  // no step past the last index: it may not fit
        i[N - 1] = row_first + c * step;
        f(i, b.layout.offset_of(i + b.shift));
      }
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

/// The index of `to` at the position that `i` has in `from` (the k-th index of one range
/// names the k-th of the other).
inline index_t reindex(index_t i, const range& from, const range& to) {
  return to.first() + (i - from.first()) / from.stride() * to.stride();
}

/// The image of `x` (indices on the lattice of `from`, possibly beyond its bounds) under the
/// map that sends the k-th index of `from` to the k-th index of `to`.
inline range reindex(const range& x, const range& from, const range& to) {
  if (x.empty() || from.empty()) return range::counted(to.empty() ? 0 : to.first(), 0, to.stride());
  return range::counted(reindex(x.first(), from, to), x.size(),
                        x.size() == 1 ? to.stride() : x.stride() / from.stride() * to.stride());
}

/// The image of `r` (indices on the lattice of `from`, possibly beyond its bounds) under the
/// map that sends the k-th index of `from` to the k-th index of `to`, per dimension.
template <std::size_t N>
rect<N> reindex(const rect<N>& r, const rect<N>& from, const rect<N>& to) {
  rect<N> out;
  for (std::size_t d = 0; d < N; ++d) out.set_dim(d, reindex(r.dim(d), from.dim(d), to.dim(d)));
  return out;
}

/// The index of `target` named by index `i` of `whole` in a view (see sectioned): view
/// dimension n runs along dimension dims[n] of `target`, whose other dimensions hold one index.
template <std::size_t N, std::size_t M>
idx<M> section_index(const idx<N>& i, const rect<N>& whole, const rect<M>& target,
                     const std::array<std::size_t, N>& dims) {
  idx<M> b = target.first();
  for (std::size_t n = 0; n < N; ++n) b[dims[n]] = reindex(i[n], whole.dim(n), target.dim(dims[n]));
  return b;
}

/// A block of `from` seen from another index set `to` of the same shape, its layout narrowed
/// to the owned indices: only their offsets matter to a transfer, and the images of the
/// ghost positions around them (a Stencil's frame) may lie past the int64 limits when `to`
/// sits near them.
template <std::size_t N>
placed_block<N> reindexed_block(const placed_block<N>& b, const rect<N>& from, const rect<N>& to) {
  placed_block<N> out;
  out.owned = reindex(b.owned, from, to);
  out.layout.indices = out.owned;
  out.layout.offset = b.owned.empty() ? b.layout.offset : b.layout.offset_of(b.owned.first() + b.shift);
  for (std::size_t d = 0; d < N; ++d) {
    const range& owned = b.owned.dim(d);
    const index_t steps = owned.size() > 1 ? owned.stride() / b.layout.indices.dim(d).stride() : 1;
    out.layout.strides[d] = steps * b.layout.strides[d];  // between neighbouring owned indices
  }
  return out;  // locators of domains carry no shift
}

/// The regions of `base` (a placement of `from`) named by the indices of `to`, of the same
/// shape (the k-th index of one names the k-th of the other).
template <std::size_t N>
class reindexed_query final : public placement_query<N> {
 public:
  reindexed_query(std::shared_ptr<const placement_query<N>> base, const rect<N>& from, const rect<N>& to)
      : base_(std::move(base)), from_(from), to_(to) {}
  std::vector<int> meeting(const rect<N>& r) const override { return base_->meeting(reindex(r, to_, from_)); }
  std::vector<held_region<N>> regions(int locale, const rect<N>& r) const override {
    auto out = base_->regions(locale, reindex(r, to_, from_));
    for (auto& g : out) g.owned = reindex(g.owned, from_, to_);
    return out;
  }
  std::vector<placed_block<N>> blocks(int locale) const override {
    auto out = base_->blocks(locale);
    for (auto& b : out) b = reindexed_block(b, from_, to_);
    return out;
  }
  dimension_order<N> storage_order_hint() const override { return base_->storage_order_hint(); }

 private:
  std::shared_ptr<const placement_query<N>> base_;
  rect<N> from_, to_;
};

/// `l` seen from another index set `to` of the same shape: the k-th index (row-major) of
/// l.whole is named by the k-th index of `to`, blocks and layouts alike (a directory is
/// keyed by row-major orders, which do not change).
template <std::size_t N>
locator<N> reindexed(const locator<N>& l, const rect<N>& to) {
  locator<N> out{to, {}, {}, l.dir, l.layers, l.dir_order};
  for (const auto& b : l.mine) out.mine.push_back(reindexed_block(b, l.whole, to));
  if (l.peers) out.peers = std::make_shared<const reindexed_query<N>>(l.peers, l.whole, to);
  return out;
}

/// The part of block `b` (of an M-D placement) within `target`, as a block of the view that
/// names `target`'s indices by those of `whole` (view dimension n runs along dims[n]); false
/// when they do not meet. The layout keeps pointing into the same storage, stepping through it
/// with the view's strides.
template <std::size_t N, std::size_t M>
bool sectioned_block(const placed_block<M>& b, const rect<M>& target, const rect<N>& whole,
                     const std::array<std::size_t, N>& dims, placed_block<N>& v) {
  const rect<M> common = target.intersect(b.owned);
  if (common.empty()) return false;
  v = {};
  for (std::size_t n = 0; n < N; ++n) {
    const std::size_t e = dims[n];
    const range& c = common.dim(e);
    v.owned.set_dim(n, reindex(c, target.dim(e), whole.dim(n)));
    const index_t base_step = c.size() == 1 ? target.dim(e).stride() : c.stride();  // between neighbours
    v.layout.strides[n] = base_step / b.layout.indices.dim(e).stride() * b.layout.strides[e];
  }
  v.layout.indices = v.owned;
  v.layout.offset = b.layout.offset_of(common.first() + b.shift);
  return true;
}

/// The regions of `base` (an M-D placement) within `target`, named by the indices of `whole`
/// (see sectioned).
template <std::size_t N, std::size_t M>
class sectioned_query final : public placement_query<N> {
 public:
  sectioned_query(std::shared_ptr<const placement_query<M>> base, const rect<M>& target, const rect<N>& whole,
                  const std::array<std::size_t, N>& dims)
      : base_(std::move(base)), target_(target), whole_(whole), dims_(dims) {}
  std::vector<int> meeting(const rect<N>& r) const override;
  std::vector<held_region<N>> regions(int locale, const rect<N>& r) const override;
  std::vector<placed_block<N>> blocks(int locale) const override;
  /// The base's order among the dimensions the view keeps.
  dimension_order<N> storage_order_hint() const override;

 private:
  // The indices of `target_` that the view's indices `r` name.
  rect<M> image(const rect<N>& r) const;
  std::shared_ptr<const placement_query<M>> base_;
  rect<M> target_;
  rect<N> whole_;
  std::array<std::size_t, N> dims_;
};

template <std::size_t N, std::size_t M>
std::vector<int> sectioned_query<N, M>::meeting(const rect<N>& r) const {
  return base_->meeting(image(r));
}

template <std::size_t N, std::size_t M>
auto sectioned_query<N, M>::regions(int locale, const rect<N>& r) const -> std::vector<held_region<N>> {
  std::vector<held_region<N>> out;
  for (const auto& g : base_->regions(locale, image(r))) {
    const rect<M> common = target_.intersect(g.owned);
    if (common.empty()) continue;
    held_region<N> v;
    for (std::size_t n = 0; n < N; ++n)
      v.owned.set_dim(n, reindex(common.dim(dims_[n]), target_.dim(dims_[n]), whole_.dim(n)));
    out.push_back(v);
  }
  return out;
}

template <std::size_t N, std::size_t M>
auto sectioned_query<N, M>::blocks(int locale) const -> std::vector<placed_block<N>> {
  std::vector<placed_block<N>> out;
  placed_block<N> v;
  for (const auto& b : base_->blocks(locale))
    if (sectioned_block(b, target_, whole_, dims_, v)) out.push_back(v);
  return out;
}

template <std::size_t N, std::size_t M>
dimension_order<N> sectioned_query<N, M>::storage_order_hint() const {
  const dimension_order<M> base = base_->storage_order_hint();
  std::array<std::size_t, M> position{};  // of each base dimension in the base's order
  for (std::size_t k = 0; k < M; ++k) position[base[k]] = k;
  dimension_order<N> out = row_major_order<N>();
  std::stable_sort(out.begin(), out.end(),
                   [&](std::size_t a, std::size_t b) { return position[dims_[a]] < position[dims_[b]]; });
  return out;
}

template <std::size_t N, std::size_t M>
rect<M> sectioned_query<N, M>::image(const rect<N>& r) const {
  rect<M> out = target_;
  for (std::size_t n = 0; n < N; ++n)
    out.set_dim(dims_[n], reindex(r.dim(n), whole_.dim(n), target_.dim(dims_[n])));
  return out;
}

/// A view of part of `l`: the indices of `target` (a subset of l.whole, a single index along
/// every dimension that is not kept), named in order by the indices of `whole`; view
/// dimension n runs along dimension dims[n] of l.whole. Blocks keep pointing into the same
/// storage: their layouts step through it with the view's strides.
template <std::size_t N, std::size_t M>
locator<N> sectioned(const locator<M>& l, const rect<M>& target, const rect<N>& whole,
                     const std::array<std::size_t, N>& dims) {
  locator<N> out{whole, {}, {}, l.dir, l.layers, {}};
  placed_block<N> v;
  for (const auto& b : l.mine)
    if (sectioned_block(b, target, whole, dims, v)) out.mine.push_back(v);
  if (l.peers) out.peers = std::make_shared<const sectioned_query<N, M>>(l.peers, target, whole, dims);
  if (l.dir)
    out.dir_order = [whole, target, dims, base_whole = l.whole, inner = l.dir_order](index_t o) {
      const index_t base_order = base_whole.order_of(section_index(whole.index_at(o), whole, target, dims));
      return inner ? inner(base_order) : base_order;
    };
  return out;
}

/// The plan of this locale for moving the indices held by both `from` and `to` from the
/// first to the second. Local (no messages) when formulas tell both sides' blocks;
/// collective when a side is known through a directory.
template <std::size_t N>
transfer_plan<N> plan_transfer(const locator<N>& from, const locator<N>& to) {
  if (!from.dir && !to.dir)
    return transfer_plan<N>(here(), from.mine, *from.peers, to.mine, *to.peers, from.layers.get());
  if (from.layers) {  // a source with copies (given by formulas): read from this locale's layer
    const auto& layer = *from.layers;
    placement<N> mine_layer(layer.size());  // the blocks of this locale's layer
    for (std::size_t q = 0; q < layer.size(); ++q)
      if (layer[q] == layer[static_cast<std::size_t>(here())]) mine_layer[q] = from.peers->blocks(static_cast<int>(q));
    return element_plan<N>(to.mine, from.whole, true, [&](const std::vector<index_t>& orders) {
      std::vector<location> out(orders.size());
      for (std::size_t k = 0; k < orders.size(); ++k) {
        const idx<N> i = from.whole.index_at(orders[k]);
        for (std::size_t q = 0; q < mine_layer.size() && out[k].locale < 0; ++q)
          for (const auto& b : mine_layer[q])
            if (b.owned.contains(i)) {
              out[k] = {b.layout.offset_of(i + b.shift), static_cast<int>(q), 1};
              break;
            }
      }
      return out;
    });
  }
  if (from.dir)  // destinations ask the source's directory
    return element_plan<N>(to.mine, from.whole, true,
                                   [&](const std::vector<index_t>& orders) { return from.lookup(orders); });
  // sources ask the destination's directory
  return element_plan<N>(from.mine, to.whole, false,
                                 [&](const std::vector<index_t>& orders) { return to.lookup(orders); });
}

/// Collective. Copies every index held by both `from` (elements at `from_base`) and `to`
/// (elements at `to_base`, in node-shared memory `to_node` if not null), in one message per
/// pair of locales that share indices (or a direct copy between locales of one node).
template <transferable T, std::size_t N>
void transfer(const locator<N>& from, const T* from_base, const locator<N>& to, T* to_base,
              const node_segment* to_node = nullptr) {
  const transfer_plan<N> plan = plan_transfer(from, to);
  pending_transfer<T, N>(plan, from_base, to_base, from_base != to_base, to_node).finish();
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_LOCATOR_ELEMENT_INSTANCES(T, N, how) \
  how void transfer<T, N>(const locator<N>&, const T*, const locator<N>&, T*, const node_segment*);
#define DMAP_LOCATOR_INSTANCES(N, how)                                                         \
  how transfer_plan<N> plan_transfer<N>(const locator<N>&, const locator<N>&);                \
  how locator<N> reindexed<N>(const locator<N>&, const rect<N>&);                             \
  DMAP_PRECOMPILED_ELEMENTS(DMAP_LOCATOR_ELEMENT_INSTANCES, N, how)
DMAP_DECLARE_PRECOMPILED(DMAP_LOCATOR_INSTANCES)
#define DMAP_LOCATOR_SECTION_INSTANCES(N, M, how)                                              \
  how class sectioned_query<N, M>;                                                              \
  how locator<N> sectioned<N, M>(const locator<M>&, const rect<M>&, const rect<N>&,           \
                                 const std::array<std::size_t, N>&);
DMAP_DECLARE_PRECOMPILED_PAIRS(DMAP_LOCATOR_SECTION_INSTANCES)

}  // namespace dmap::detail
