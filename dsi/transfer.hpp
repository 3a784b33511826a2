// Moving elements between two placements of the same indices (which locale owns which
// rect, and where it stores it): every locale sends each peer the intersections of its
// blocks with the peer's, in one message per peer. Used by resize, gathers, array
// assignment and halo updates.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

#include "../layouts/dense_layout.hpp"
#include "../runtime/collectives.hpp"
#include "chunks.hpp"
#include "rect.hpp"

namespace dmap {

/// One block of a placement: the indices it holds (`owned`) and where: the element of
/// index i lives at `layout.offset_of(i + shift)` (a nonzero shift stores indices under
/// other names, as periodic ghost cells do).
template <std::size_t N>
struct placed_block {
  rect<N> owned;
  dense_layout<N> layout;
  idx<N> shift{};
};

/// Where every locale keeps its indices: placement[q] lists locale q's blocks.
template <std::size_t N>
using placement = std::vector<std::vector<placed_block<N>>>;

namespace detail {

/// Calls `f(offset, step, count)` for each row (run along the last dimension) of `part`,
/// a subset of `layout.indices`, in row-major order of `part`.
template <std::size_t N, class F>
void for_each_run(const rect<N>& part, const dense_layout<N>& layout, F&& f) {
  for_each_run(part, layout, idx<N>{}, std::forward<F>(f));
}
/// The same for the indices of `part` moved by `shift` (`part` + shift within the layout).
template <std::size_t N, class F>
void for_each_run(const rect<N>& part, const dense_layout<N>& layout, const idx<N>& shift, F&& f) {
  if (part.empty()) return;
  std::array<index_t, N> step{};
  for (std::size_t d = 0; d < N; ++d)
    step[d] = part.dim(d).size() == 1
                  ? 0
                  : part.dim(d).stride() / layout.indices.dim(d).stride() * layout.strides[d];
  const index_t base = layout.offset_of(part.first() + shift);
  const auto extents = part.shape();
  for_each_row_start<N>(extents, [&](const std::array<index_t, N>& k) {
    index_t offset = base;
    for (std::size_t d = 0; d + 1 < N; ++d) offset += k[d] * step[d];
    f(offset, step[N - 1], extents[N - 1]);
  });
}

/// Copies the elements of `part` from one block to another (both hold `part`).
template <class T, std::size_t N>
void copy_part(const rect<N>& part, const placed_block<N>& from, const T* from_base,
               const placed_block<N>& to, T* to_base) {
  std::vector<std::array<index_t, 2>> runs;
  for_each_run(part, to.layout, to.shift,
               [&](index_t offset, index_t step, index_t) { runs.push_back({offset, step}); });
  std::size_t row = 0;
  for_each_run(part, from.layout, from.shift, [&](index_t offset, index_t step, index_t count) {
    const auto [to_offset, to_step] = runs[row++];
    for (index_t k = 0; k < count; ++k) to_base[to_offset + k * to_step] = from_base[offset + k * step];
  });
}

}  // namespace detail

/// Collective. Copies every index present in both placements from `from` (elements at
/// `from_base`) to `to` (elements at `to_base`). One message per pair of locales that share
/// indices; nothing else is sent.
template <transferable T, std::size_t N>
void transfer(const placement<N>& from, const T* from_base, const placement<N>& to, T* to_base) {
  const int p = num_locales(), me = here();
  byte_buffers outgoing(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) {
    for (const auto& fb : from[me])
      for (const auto& tb : to[q]) {
        const rect<N> part = fb.owned.intersect(tb.owned);
        if (part.empty()) continue;
        if (q == me) {
          detail::copy_part(part, fb, from_base, tb, to_base);
          continue;
        }
        auto& out = outgoing[q];
        std::size_t at = out.size();
        out.resize(at + static_cast<std::size_t>(part.size()) * sizeof(T));
        detail::for_each_run(part, fb.layout, fb.shift, [&](index_t offset, index_t step, index_t count) {
          for (index_t k = 0; k < count; ++k, at += sizeof(T))
            std::memcpy(out.data() + at, from_base + offset + k * step, sizeof(T));
        });
      }
  }
  const byte_buffers incoming = exchange(std::move(outgoing));
  for (int q = 0; q < p; ++q) {
    if (q == me || incoming[q].empty()) continue;
    std::size_t at = 0;
    for (const auto& fb : from[q])
      for (const auto& tb : to[me]) {
        const rect<N> part = fb.owned.intersect(tb.owned);
        detail::for_each_run(part, tb.layout, tb.shift, [&](index_t offset, index_t step, index_t count) {
          for (index_t k = 0; k < count; ++k, at += sizeof(T))
            std::memcpy(to_base + offset + k * step, incoming[q].data() + at, sizeof(T));
        });
      }
  }
}

}  // namespace dmap
