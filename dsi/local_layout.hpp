// local_layout<L, N>: what the engine and arrays need from a local layout, the arrangement a
// map chooses for one locale's pieces in that locale's one buffer. The layer above (`layouts/`)
// holds the models (dense_order_layout, product_layout, ghost_frame_layout, tiled_layout);
// a user map may bring its own, and the conformance kit checks the rules below on any map.
#pragma once

#include <concepts>
#include <cstddef>
#include <string>
#include <vector>

#include "layout.hpp"
#include "rect.hpp"

namespace dmap {

/// One stored part of a locale's pieces: the indices it owns and the layout that stores them.
/// A layout stores a piece whole (one part, `owned` the piece) or split (tiles: several
/// parts whose `owned` rects partition the piece); `layout.indices` holds at least `owned`,
/// more when the layout keeps ghost cells around it.
template <std::size_t N>
struct placed_piece {
  rect<N> owned;            ///< the indices this part owns: a piece or a part of one
  dense_layout<N> layout;   ///< where they (and any ghost cells) live in the buffer

  /// Equal parts own the same indices and store them alike.
  friend bool operator==(const placed_piece& a, const placed_piece& b) {
    return a.owned == b.owned && a.layout.indices == b.layout.indices && a.layout.strides == b.layout.strides &&
           a.layout.offset == b.layout.offset;
  }
};

/// A local layout: how a map arranges one locale's pieces in the locale's buffer.
///
/// | member            | meaning                                                                            |
/// |-------------------|------------------------------------------------------------------------------------|
/// | `place(pieces)`   | the parts storing `pieces` (disjoint rects of one locale), as placed_piece values   |
/// | `name()`          | a description naming every parameter (maps put it in their own `name()`)           |
/// | copy, `==`        | equal layouts place equal pieces alike                                             |
///
/// The rules `place` keeps (the compiler checks the members; the conformance kit checks the
/// rules on a map's `local_subdomains` and `local_layouts`, and tests check them on the models):
///   1. the parts come in piece order: the parts of a piece, then those of the next; an empty
///      piece has none; the `owned` rects of a piece's parts partition it;
///   2. each part's layout holds its `owned` rect (`layout.indices` contains it);
///   3. every element lies in [0, storage size), the storage size being the largest
///      `layout.end()` (what an array allocates);
///   4. no two indices stored by the parts share an element (owned or ghost); elements no
///      index uses (padding between rows) are allowed.
/// A map lists the parts' `owned` rects as its `local_subdomains(q)` and their layouts as its
/// `local_layouts(q)` (owned_rects and layouts_of below), so a layout that splits pieces
/// into tiles gives the engine tiles to cut into chunks.
template <class L, std::size_t N>
concept local_layout = std::copy_constructible<L> && std::equality_comparable<L> &&
                       requires(const L& l, const std::vector<rect<N>>& pieces) {
                         { l.place(pieces) } -> std::convertible_to<std::vector<placed_piece<N>>>;
                         { l.name() } -> std::convertible_to<std::string>;
                       };

/// The `owned` rects of `parts`, in order: what a map answers as `local_subdomains(q)`.
template <std::size_t N>
std::vector<rect<N>> owned_rects(const std::vector<placed_piece<N>>& parts) {
  std::vector<rect<N>> out;
  out.reserve(parts.size());
  for (const auto& p : parts) out.push_back(p.owned);
  return out;
}

/// The layouts of `parts`, in order: what a map answers as `local_layouts(q)`.
template <std::size_t N>
std::vector<dense_layout<N>> layouts_of(const std::vector<placed_piece<N>>& parts) {
  std::vector<dense_layout<N>> out;
  out.reserve(parts.size());
  for (const auto& p : parts) out.push_back(p.layout);
  return out;
}

}  // namespace dmap
