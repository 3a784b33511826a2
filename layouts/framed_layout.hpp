// Framed storage: a locale's rect stored together with a frame of ghost positions around it
// (DAP padding), `fluff[d]` positions of the rect's stride on both sides along dimension d.
// Stencil stores its chunks this way; the frame's cells are filled by halo updates
// (algorithms/halos.hpp) or hold boundary values.
#pragma once

#include <cstddef>

#include "../dsi/index.hpp"
#include "../dsi/layout.hpp"
#include "../dsi/rect.hpp"

namespace dmap {

/// `owned` widened by fluff[d] positions on both sides of every dimension d (same stride and
/// alignment); empty when `owned` is.
template <std::size_t N>
rect<N> framed(const rect<N>& owned, const idx<N>& fluff) {
  if (owned.empty()) return owned;
  rect<N> frame = owned;
  for (std::size_t d = 0; d < N; ++d) {
    const range& r = owned.dim(d);
    const index_t step = detail::abs_index(r.stride());
    frame.set_dim(d, range(r.aligned_low() - fluff[d] * step, r.aligned_high() + 1 + fluff[d] * step, r.stride(),
                           r.alignment()));
  }
  return frame;
}

/// The compact storage of framed(owned, fluff) in `order`, starting at offset 0.
template <std::size_t N>
dense_layout<N> framed_layout(const rect<N>& owned, const idx<N>& fluff, storage_order order) {
  return dense_layout<N>::make(framed(owned, fluff), 0, order);
}

}  // namespace dmap
