// Keeping copies consistent: maps whose locales hold copies of other locales' elements
// (Unstructured lists without one_to_one; Replicated and Dimensional maps with replicated
// dimensions, whose copy layers each hold every index) read their copies locally, and
// these collective operations refresh them from one source.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/detail/domain_state.hpp"
#include "../dsi/detail/locator.hpp"
#include "../dsi/detail/transfer.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"
#include "detail/copies.hpp"

namespace dmap {

/// Collective: refreshes every copy of `a`'s elements held through the directory (an
/// Unstructured map that is not one_to_one) from its owner: one message per pair of locales
/// that share indices; the plan is made once per index set and reused. Nothing to do when
/// no locale holds a copy. Throws argument_error on every locale for a map without a
/// directory or a moved-from array.
template <class T, std::size_t N>
void update_copies(array<T, N>& a) {
  const detail::collective_scope scope;
  // No agreement: like a halo update, a refresh is point to point once its plan is built. The
  // checks read what every locale holds alike, except a handle moved from on one locale only.
  detail::check_array_live(a, "dmap::update_copies", "it has no copies to refresh");
  auto& st = *detail::state_of(a.domain());
  if (!st.dir)
    throw argument_error("dmap::update_copies: the array is distributed by " + a.domain().name() +
                         "; only Unstructured maps hold copies that update_copies refreshes (copies of "
                         "Replicated maps and replicated dimensions: dmap::replicate_from)");
  const auto& plan = st.caches.template get<detail::copies_plans<N>>().plan.for_generation(st.generation, [&] {
    const auto& dir = *st.dir;
    std::vector<detail::placed_block<N>> copies;
    for (std::size_t k = 0; k < dir.stored().size(); ++k)
      if (!dir.owns_stored(k)) {
        const idx<N> i = dir.whole().index_at(dir.stored()[k]);
        rect<N> one;
        for (std::size_t d = 0; d < N; ++d) one.set_dim(d, range::counted(i[d], 1, dir.whole().dim(d).stride()));
        copies.push_back({one, dense_layout<N>::make(one, static_cast<index_t>(k)), {}});
      }
    return detail::element_plan<N>(copies, dir.whole(), true,
                                   [&](const std::vector<index_t>& orders) { return dir.lookup(orders); });
  });
  detail::pending_transfer<T, N>(*plan, a.local_data(), a.local_data()).finish();
}

/// Collective: makes every copy of `a`'s elements equal to locale `root`'s: for a
/// Replicated array, every locale's copy becomes root's; for a Dimensional array with
/// replicated dimensions, every copy layer becomes root's layer (each locale receives its
/// indices from the locale of root's layer holding them). Throws argument_error on every
/// locale when `root` is outside [0, num_locales()), the map holds no copy layers or the
/// array was moved from.
template <class T, std::size_t N>
void replicate_from(array<T, N>& a, int root) {
  const detail::collective_scope scope;
  // One agreement: the array is whole and holds copies, root is a locale, and every locale
  // names the same array and the same root.
  agreed({"dmap::replicate_from", detail::fingerprint().add(detail::access::serial(a)).add(root).value(),
          [root] { return "root " + std::to_string(root); }},
         [&] {
           detail::check_array_live(a, "dmap::replicate_from", "it has no copies to make consistent");
           if (!detail::state_of(a.domain())->layers)
             throw argument_error("dmap::replicate_from: the array is distributed by " + a.domain().name() +
                                  "; only arrays whose domain holds copies (dmap::replicated, or dmap::dimensional "
                                  "with replicated dimensions) have copies to make consistent");
           if (root < 0 || root >= num_locales())
             throw argument_error("dmap::replicate_from: root is " + std::to_string(root) + "; it must be in [0, " +
                                  std::to_string(num_locales()) + ")");
         });
  const auto& st = *detail::state_of(a.domain());
  if (num_locales() == 1) return;
  if (st.replicated) {
    if (!a.local_blocks().empty())
      detail::broadcast_bytes(a.local_data(), static_cast<std::size_t>(a.local_size()) * sizeof(T), root);
    return;
  }
  detail::placement<N> from = st.blocks_of_all();
  for (std::size_t q = 0; q < from.size(); ++q)
    if ((*st.layers)[q] != (*st.layers)[static_cast<std::size_t>(root)]) from[q].clear();
  detail::transfer(from, a.local_data(), st.blocks_of_all(), a.local_data());
}

}  // namespace dmap
