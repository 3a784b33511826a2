// Halo updates: the ghost cells of an array (indices its locales' layouts hold beyond their
// subdomains: a Stencil's communication padding, or a periodic image) refreshed from their
// owners, one aggregated message per neighbouring locale and no collective call. Works for
// any map whose layouts hold ghost cells; the descriptor's optional `periodic()` marks a map
// with ghost cells and says which dimensions wrap (ghost cells beyond such an edge hold the
// other edge's elements).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <utility>

#include "../dsi/array.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/detail/domain_state.hpp"
#include "../dsi/detail/transfer.hpp"

namespace dmap {

namespace detail {

/// For every locale, its ghost slabs as blocks named by the indices whose values fill them:
/// a ghost index g holds the value of g - shift, where shift is a whole number of periods
/// along periodic dimensions (zero elsewhere). Ghost indices outside the domain that no
/// wrap brings back are boundary cells and get nothing.
template <std::size_t N>
placement<N> ghost_sources(const domain_state<N>& st) {
  const int p = num_locales();
  const rect<N>& whole = st.whole;
  const std::array<bool, N> periodic = st.model->periodic().value_or(std::array<bool, N>{});
  idx<N> period{};
  for (std::size_t d = 0; d < N; ++d) period[d] = whole.dim(d).size() * abs_index(whole.dim(d).stride());
  placement<N> halos(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q)
    for (const auto& b : st.blocks_of_all()[static_cast<std::size_t>(q)])
      for (const rect<N>& slab : difference(b.layout.indices, b.owned)) {
        // Every combination of wraps (-1, 0, +1 periods) along the periodic dimensions.
        std::array<int, N> wrap{};
        for (std::size_t d = 0; d < N; ++d) wrap[d] = periodic[d] ? -1 : 0;
        while (true) {
          idx<N> shift{};
          for (std::size_t d = 0; d < N; ++d) shift[d] = wrap[d] * period[d];
          const rect<N> source = slab.translated(idx<N>{} - shift).intersect(whole);
          if (!source.empty()) halos[static_cast<std::size_t>(q)].push_back({source, b.layout, shift});
          std::size_t d = N;
          while (d-- > 0) {
            if (!periodic[d]) continue;
            if (++wrap[d] <= 1) break;
            wrap[d] = -1;
          }
          if (d == static_cast<std::size_t>(-1)) break;
        }
      }
  return halos;
}

/// True when the map keeps ghost cells: its descriptor says so (`periodic()`) or some
/// locale's layouts hold indices beyond its subdomains (the same answer on every locale).
template <std::size_t N>
bool has_ghost_cells(const domain_state<N>& st) {
  if (st.dir) return false;
  if (st.model->periodic()) return true;
  for (const auto& blocks : st.blocks_of_all())
    for (const auto& b : blocks)
      if (!(b.layout.indices == b.owned)) return true;
  return false;
}

/// The halo plan a domain keeps (its cache of this type).
template <std::size_t N>
struct halo_plans {
  generation_plan<N> plan;
};

}  // namespace detail

/// A halo update in flight (see start_halo_update): `finish()` must be called before the
/// ghost cells are read; dropping it unfinished loses the update.
template <class T, std::size_t N>
class [[nodiscard]] halo_update {
 public:
  /// Waits for the neighbours' data and writes it into the ghost cells.
  void finish() { pending_.finish(); }

 private:
  template <class U, std::size_t M>
  friend halo_update<U, M> start_halo_update(array<U, M>& a);
  halo_update(std::shared_ptr<const detail::transfer_plan<N>> plan, T* data)
      : plan_(std::move(plan)), pending_(*plan_, data, data) {}

  std::shared_ptr<const detail::transfer_plan<N>> plan_;
  detail::pending_transfer<T, N> pending_;
};

/// Collective: posts the messages that refresh every ghost cell of `a` (one per neighbouring
/// locale, faces, edges and corners alike) and copies the periodic wraps that stay on this
/// locale; owned elements may be computed on until `finish()`, ghost cells not read. The plan
/// is built once per index set and kept by the domain. Throws argument_error on every locale
/// when the array's map holds no ghost cells (Block, Cyclic, Replicated, directory maps...)
/// or the array was moved from. Ghost widths and periodic flags are the map's (dmap::stencil
/// checks them: widths >= 0, no chunk thinner than the width along a dimension that
/// exchanges ghosts).
template <class T, std::size_t N>
[[nodiscard]] halo_update<T, N> start_halo_update(array<T, N>& a) {
  detail::check_array_live(a, "dmap::update_halos", "it has no ghost cells to update");
  auto& st = *detail::state_of(a.domain());
  if (!detail::has_ghost_cells(st))
    throw argument_error("dmap::update_halos: the array's domain is distributed by " + a.domain().name() +
                         ", whose layouts hold no ghost cells; halo updates need a map with ghost cells, "
                         "such as a dmap::stencil domain");
  const auto& plan = st.caches.template get<detail::halo_plans<N>>().plan.for_generation(
      st.generation, [&] { return detail::transfer_plan<N>(st.blocks_of_all(), detail::ghost_sources(st)); });
  return halo_update<T, N>(plan, a.local_data());
}

/// Collective: refreshes every ghost cell of `a` from the owning locale.
template <class T, std::size_t N>
void update_halos(array<T, N>& a) {
  start_halo_update(a).finish();
}

}  // namespace dmap
