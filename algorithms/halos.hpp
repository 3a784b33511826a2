// Halo updates: the ghost cells of an array (indices its locales' layouts hold beyond their
// subdomains: a Stencil's communication padding, or a periodic image) refreshed from their
// owners, one aggregated message per neighbouring locale and no collective call. Works for
// any map whose layouts hold ghost cells; the descriptor's optional `periodic()` marks a map
// with ghost cells and says which dimensions wrap (ghost cells beyond such an edge hold the
// other edge's elements). A box update refreshes every ghost cell, a star update only the
// faces (ghost cells beyond the owned chunk along exactly one dimension): what a stencil
// that reads no diagonal neighbour needs, with fewer messages.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "../dsi/array.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/detail/domain_state.hpp"
#include "../dsi/detail/locator.hpp"
#include "../dsi/detail/transfer.hpp"
#include "../iterators/neighbors.hpp"
#include "detail/halos.hpp"

namespace dmap {

/// A halo update in flight (see start_halo_update): `finish()` must be called before the
/// ghost cells are read; dropping it unfinished loses the update.
template <class T, std::size_t N>
class [[nodiscard]] halo_update {
 public:
  /// Waits for the neighbours' data and writes it into the ghost cells.
  void finish() { pending_.finish(); }

 private:
  template <class U, std::size_t M>
  friend halo_update<U, M> start_halo_update(array<U, M>& a, halo_shape shape);
  halo_update(std::shared_ptr<const detail::transfer_plan<N>> plan, T* data, const detail::node_segment* node)
      : plan_(std::move(plan)), pending_(*plan_, data, data, false, node) {}

  std::shared_ptr<const detail::transfer_plan<N>> plan_;
  detail::pending_transfer<T, N> pending_;
};

/// Collective: posts the messages that refresh the ghost cells of `a` (one per neighbouring
/// locale): with halo_shape::box (the default) every ghost cell, faces, edges and corners
/// alike; with halo_shape::star only the faces (ghost cells beyond the owned chunk along
/// exactly one dimension), which is all a stencil without diagonal neighbours reads. Periodic
/// wraps that stay on this locale are copied at once; when `a` is in node-shared memory, the
/// ghost cells of neighbours on this node are copied into directly, once each neighbour has
/// started its own update. Owned elements may be computed on until
/// `finish()`, ghost cells not read. One plan per shape is built once per index set and kept
/// by the domain. Throws argument_error on every locale when the array's map holds no ghost
/// cells (Block, Cyclic, Replicated, directory maps...) or the array was moved from. Ghost
/// widths and periodic flags are the map's (dmap::stencil checks them: widths >= 0, no chunk
/// thinner than the width along a dimension that exchanges ghosts).
template <class T, std::size_t N>
[[nodiscard]] halo_update<T, N> start_halo_update(array<T, N>& a, halo_shape shape) {
  return halo_update<T, N>(detail::cached_halo_plan(a, shape, "dmap::update_halos"), a.local_data(),
                           detail::access::segment(a));
}

/// Collective: start_halo_update(a, halo_shape::box), every ghost cell.
template <class T, std::size_t N>
[[nodiscard]] halo_update<T, N> start_halo_update(array<T, N>& a) {
  return start_halo_update(a, halo_shape::box);
}

/// Collective: start_halo_update(a, nb.shape) for a stencil loop that reads `nb`, a
/// neighbourhood of `a` or of a view of `a` (argument_error on every locale otherwise): the
/// loop's neighbourhood shape picks the ghost cells refreshed (the whole frame width).
template <class T, std::size_t N, std::size_t K>
[[nodiscard]] halo_update<T, N> start_halo_update(array<T, N>& a, const neighbors_of<T, K, N>& nb) {
  if (&nb.view.base() != &a)
    throw argument_error("dmap::update_halos: the neighbourhood reads another array than the one to update; "
                         "pass the array that neighbors(...) was made from");
  return start_halo_update(a, nb.shape);
}

/// Collective: refreshes the ghost cells of `a` (all of them, or the faces: `shape`) from
/// their owners.
template <class T, std::size_t N>
void update_halos(array<T, N>& a, halo_shape shape = halo_shape::box) {
  start_halo_update(a, shape).finish();
}

/// Collective: refreshes the ghost cells of `a` that the neighbourhood `nb` reads (its shape).
template <class T, std::size_t N, std::size_t K>
void update_halos(array<T, N>& a, const neighbors_of<T, K, N>& nb) {
  start_halo_update(a, nb).finish();
}

}  // namespace dmap
