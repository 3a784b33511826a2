// The machinery behind halos.hpp (not part of the API): face_slabs, ghost_query, frame_reach,
// ghost_reach, halo_plan, has_ghost_cells, halo_plans, cached_halo_plan.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "../../dsi/array.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/detail/domain_state.hpp"
#include "../../dsi/detail/locator.hpp"
#include "../../dsi/detail/transfer.hpp"
#include "../../iterators/neighbors.hpp"

namespace dmap::detail {

/// The face slabs of `outer` around `inner` (a contiguous run of `outer`'s indices per
/// dimension): the indices of `outer` beyond `inner` along exactly one dimension, at most 2N
/// disjoint rects.
template <std::size_t N>
std::vector<rect<N>> face_slabs(const rect<N>& outer, const rect<N>& inner) {
  if (outer.empty() || inner.empty()) return {};
  rect<N> core = outer;
  for (std::size_t d = 0; d < N; ++d)
    core.set_dim(d, outer.dim(d).intersect(range(inner.dim(d).aligned_low(), inner.dim(d).aligned_high() + 1)));
  return slabs_beside(outer, inner, core);
}

/// Every locale's ghost cells (all of them, or the faces only: `shape`) as blocks named by the
/// indices whose values fill them: a ghost index g holds the value of g - shift, where shift
/// is a whole number of periods along periodic dimensions (zero elsewhere). Ghost indices
/// outside the domain that no wrap brings back are boundary cells and get nothing. Answers
/// from the owners' placement: the locales whose ghost cells may hold an index are the owners
/// within `reach` (the widest ghost frame, per dimension, in index units) of it or of one of
/// its periodic images.
template <std::size_t N>
class ghost_query final : public placement_query<N> {
 public:
  ghost_query(std::shared_ptr<const placement_query<N>> owners, const rect<N>& whole,
              const std::array<bool, N>& periodic, const std::array<index_t, N>& reach,
              halo_shape shape = halo_shape::box)
      : owners_(std::move(owners)), whole_(whole), periodic_(periodic), reach_(reach), shape_(shape) {
    for (std::size_t d = 0; d < N; ++d) period_[d] = whole.dim(d).size() * abs_index(whole.dim(d).stride());
  }
  std::vector<int> meeting(const rect<N>& r) const override {
    std::vector<int> out;
    const rect<N> sources = r.intersect(whole_);
    if (sources.empty()) return out;
    for_each_shift([&](const idx<N>& shift) {
      // The ghost cells holding `sources` under this shift sit at sources + shift, within
      // reach of their owners' pieces.
      rect<N> around;
      for (std::size_t d = 0; d < N; ++d) {
        const auto [lo, hi] = bounds_of(sources.dim(d));
        const wide_int first = static_cast<wide_int>(lo) + shift[d] - reach_[d];
        const wide_int last = static_cast<wide_int>(hi) + shift[d] + reach_[d];
        const auto [wlo, whi] = bounds_of(whole_.dim(d));
        const wide_int a = std::max<wide_int>(first, wlo), b = std::min<wide_int>(last, whi);
        around.set_dim(d, a > b ? range(0, 0) : range(static_cast<index_t>(a), static_cast<index_t>(b) + 1));
      }
      if (around.empty()) return;
      for (int q : owners_->meeting(around)) out.push_back(q);
    });
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  std::vector<held_region<N>> regions(int locale, const rect<N>& r) const override {
    std::vector<held_region<N>> out;
    for (const auto& b : blocks(locale))
      if (!b.owned.intersect(r).empty()) out.push_back({b.owned, b.shift});
    return out;
  }
  std::vector<placed_block<N>> blocks(int locale) const override { return ghosts_of(owners_->blocks(locale)); }
  /// Ghost cells lie in the owners' layouts.
  dimension_order<N> storage_order_hint() const override { return owners_->storage_order_hint(); }
  /// The ghost blocks of the given owned blocks (one locale's).
  std::vector<placed_block<N>> ghosts_of(const std::vector<placed_block<N>>& owned) const {
    std::vector<placed_block<N>> out;
    for (const auto& b : owned)
      for (const rect<N>& slab : shape_ == halo_shape::star ? face_slabs(b.layout.indices, b.owned)
                                                           : difference(b.layout.indices, b.owned))
        for_each_shift([&](const idx<N>& shift) {
          const rect<N> source = slab.translated(idx<N>{} - shift).intersect(whole_);
          if (!source.empty()) out.push_back({source, b.layout, shift});
        });
    return out;
  }

 private:
  // Calls f(shift) for every combination of wraps (-1, 0, +1 periods) along the periodic
  // dimensions.
  template <class F>
  void for_each_shift(F&& f) const {
    std::array<int, N> wrap{};
    for (std::size_t d = 0; d < N; ++d) wrap[d] = periodic_[d] ? -1 : 0;
    while (true) {
      idx<N> shift{};
      for (std::size_t d = 0; d < N; ++d) shift[d] = wrap[d] * period_[d];
      f(shift);
      std::size_t d = N;
      while (d-- > 0) {
        if (!periodic_[d]) continue;
        if (++wrap[d] <= 1) break;
        wrap[d] = -1;
      }
      if (d == static_cast<std::size_t>(-1)) break;
    }
  }

  std::shared_ptr<const placement_query<N>> owners_;
  rect<N> whole_;
  std::array<bool, N> periodic_;
  std::array<index_t, N> reach_;
  halo_shape shape_;
  idx<N> period_{};
};

/// How far (in index units, per dimension) the widest frame of `blocks` reaches beyond its
/// owned indices.
template <std::size_t N>
std::array<index_t, N> frame_reach(const std::vector<placed_block<N>>& blocks) {
  std::array<index_t, N> reach{};
  for (const auto& b : blocks) {
    if (b.owned.empty()) continue;
    for (std::size_t d = 0; d < N; ++d) {
      const auto [olo, ohi] = bounds_of(b.owned.dim(d));
      const auto [flo, fhi] = bounds_of(b.layout.indices.dim(d));
      reach[d] = std::max({reach[d], static_cast<index_t>(std::max<wide_int>(0, static_cast<wide_int>(olo) - flo)),
                           static_cast<index_t>(std::max<wide_int>(0, static_cast<wide_int>(fhi) - ohi))});
    }
  }
  return reach;
}

/// The widest ghost frame of any locale of `model`: the descriptor's `ghost_reach()`, else
/// found from every locale's layouts (O(P x pieces); no messages).
template <std::size_t N>
std::array<index_t, N> ghost_reach(const std::shared_ptr<const domain_model_base<N>>& model) {
  if (auto reach = model->ghost_reach()) return *reach;
  std::array<index_t, N> reach{};
  const model_query<N> all(model);
  for (int q = 0; q < num_locales(); ++q) {
    const auto r = frame_reach(all.blocks(q));
    for (std::size_t d = 0; d < N; ++d) reach[d] = std::max(reach[d], r[d]);
  }
  return reach;
}

/// The halo plan of this locale: its pieces to the ghost cells of `shape` that hold them
/// (no messages).
template <std::size_t N>
transfer_plan<N> halo_plan(const domain_state<N>& st, halo_shape shape) {
  const locator<N> owners = st.locate();
  const ghost_query<N> ghosts(owners.peers, st.whole, st.model->periodic().value_or(std::array<bool, N>{}),
                              ghost_reach<N>(st.model), shape);
  return transfer_plan<N>(here(), owners.mine, *owners.peers, ghosts.ghosts_of(owners.mine), ghosts);
}

/// True when the map keeps ghost cells: its descriptor says so (`periodic()`) or some
/// locale's layouts hold indices beyond its subdomains (the same answer on every locale;
/// found without messages, from this locale's layouts or else every locale's).
template <std::size_t N>
bool has_ghost_cells(const domain_state<N>& st) {
  if (st.dir) return false;
  if (st.model->periodic()) return true;
  for (std::size_t k = 0; k < st.my_subdomains.size(); ++k)
    if (!(st.my_layouts[k].indices == st.my_subdomains[k])) return true;
  const auto reach = ghost_reach<N>(st.model);
  return std::any_of(reach.begin(), reach.end(), [](index_t r) { return r > 0; });
}

/// The halo plans a domain keeps (its cache of this type), one per halo_shape.
template <std::size_t N>
struct halo_plans {
  std::array<generation_plan<N>, 2> plans;

  /// The plan of `shape`.
  generation_plan<N>& of(halo_shape shape) { return plans[shape == halo_shape::star ? 1 : 0]; }
};

/// The halo plan of `shape` for `a`, kept by its domain (built on first use for each index
/// set). Throws argument_error, naming `who`, when `a` was moved from or its map holds no
/// ghost cells (the same answer on every locale). Halo updates send along it, halo
/// reductions against it.
template <class T, std::size_t N>
std::shared_ptr<const transfer_plan<N>> cached_halo_plan(array<T, N>& a, halo_shape shape, const char* who) {
  check_array_live(a, who, "it has no ghost cells");
  auto& st = *state_of(a.domain());
  if (!has_ghost_cells(st))
    throw argument_error(std::string(who) + ": the array's domain is distributed by " + a.domain().name() +
                         ", whose layouts hold no ghost cells; halo updates and reductions need a map with ghost "
                         "cells, such as a dmap::stencil domain");
  return st.caches.template get<halo_plans<N>>().of(shape).for_generation(st.generation,
                                                                          [&] { return halo_plan(st, shape); });
}

}  // namespace dmap::detail
