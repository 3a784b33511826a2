// block_with_layout<N, Layout>: a distribution written OUTSIDE dmap that brings its own local
// layout. It cuts index sets exactly as dmap::block<N> does (it asks a dmap::block_domain for
// the chunks) and stores each locale's chunk with any model of the dmap::local_layout concept
// (dsi/local_layout.hpp): a tiled_layout, a dense_order_layout with padded rows, a layout of
// your own. tiled_block<N> is the one with tiles: each chunk stored as tiles of t0 x t1 x ...
// elements, each tile one contiguous block, listed as the locale's subdomains.
//
// What the layout decides, the map just passes on: local_subdomains(q) are the owned rects of
// layout.place(chunks of q) (dmap::owned_rects), local_layouts(q) their layouts
// (dmap::layouts_of). Nothing in dmap names these types, yet loops, zips with other maps,
// reductions, assignments and resizes work on them, and dmap's conformance kit checks them
// (examples/tiled_block/main.cpp, tests/layouts/test_local_layouts.cpp).
//
// Chapel's descriptors, side by side:
//   GlobalDistribution  block_with_layout<N, Layout>
//   GlobalDomain        block_with_layout_domain<N, Layout>  (answers for any locale)
//   LocalDomain         block_with_layout_local_domain<N>     (the chunk, its parts, their layouts)
//   GlobalArray / LocalArray: dmap::array<T, N>, over storage from local_layouts.
#pragma once

// A project of your own writes <dmap/dmap.hpp>; this header sits in dmap's source tree and
// includes the library relatively, so tests can include it without any include path.
#include "../../dmap.hpp"

#include <cstddef>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace user_layouts {

template <std::size_t N, class Layout>
  requires dmap::local_layout<Layout, N>
class block_with_layout_domain;

/// Block's cut, each locale's chunk stored as `Layout` places it. Constructing one is not
/// collective, but every locale must construct it alike (domains check that, through name()).
template <std::size_t N, class Layout>
  requires dmap::local_layout<Layout, N>
class block_with_layout {
 public:
  /// Block over the given target grid (all locales by default), chunks stored by `layout`.
  explicit block_with_layout(Layout layout, const dmap::target_grid<N>& grid = {})
      : cut_(grid), layout_(std::move(layout)) {}

  /// The target grid (dsiTargetLocales).
  const dmap::target_grid<N>& targets() const noexcept { return cut_.targets(); }
  /// The Block map that gives the cut.
  const dmap::block<N>& cut() const noexcept { return cut_; }
  /// The local layout of every locale's chunk.
  const Layout& layout() const noexcept { return layout_; }
  /// "block_with_layout(grid 2x2, tiled(4x4, row-major))" (dsiDisplayRepresentation).
  std::string name() const {
    std::ostringstream s;
    s << "block_with_layout(grid " << targets() << ", " << layout_.name() << ")";
    return s.str();
  }
  /// A global domain descriptor over `indices` (dsiNewRectangularDom).
  block_with_layout_domain<N, Layout> new_domain(const dmap::rect<N>& indices) const {
    return block_with_layout_domain<N, Layout>(*this, indices);
  }

  /// Equal maps cut alike and store alike.
  friend bool operator==(const block_with_layout&, const block_with_layout&) = default;

 private:
  dmap::block<N> cut_;
  Layout layout_;
};

/// Block cut, chunks stored as tiles (dmap::tiled_layout).
template <std::size_t N>
using tiled_block = block_with_layout<N, dmap::tiled_layout<N>>;

/// This locale's part: its Block chunk, the parts the layout made of it and their layouts.
template <std::size_t N>
class block_with_layout_local_domain {
 public:
  block_with_layout_local_domain() = default;
  /// The part of a locale owning `chunk`, stored as `parts` (what the layout placed).
  block_with_layout_local_domain(const dmap::rect<N>& chunk, const std::vector<dmap::placed_piece<N>>& parts)
      : chunk_(chunk), owned_(dmap::owned_rects(parts)), layouts_(dmap::layouts_of(parts)) {}

  /// The owned rects (the tiles of a tiled layout), in storage order.
  const std::vector<dmap::rect<N>>& subdomains() const noexcept { return owned_; }
  /// Their layouts, in the same order.
  const std::vector<dmap::dense_layout<N>>& layouts() const noexcept { return layouts_; }
  /// The number of owned indices.
  dmap::index_t size() const noexcept { return chunk_.size(); }
  /// True when this locale owns `i`: its chunk holds it (O(N), however many tiles).
  bool contains(const dmap::idx<N>& i) const noexcept { return chunk_.contains(i); }

 private:
  dmap::rect<N> chunk_{};
  std::vector<dmap::rect<N>> owned_;
  std::vector<dmap::dense_layout<N>> layouts_;
};

/// The global descriptor of a domain distributed by block_with_layout: Block's answers for
/// ownership, the layout's for storage.
template <std::size_t N, class Layout>
  requires dmap::local_layout<Layout, N>
class block_with_layout_domain {
 public:
  /// The descriptor of `indices` distributed by `dist` (argument_error when the grid does not
  /// hold the program's locales, as for dmap::block).
  block_with_layout_domain(const block_with_layout<N, Layout>& dist, const dmap::rect<N>& indices)
      : dist_(dist), cut_(dist.cut(), indices) {
    local_ = local_of(dmap::here());
  }

  /// The distribution (dsiMyDist).
  const block_with_layout<N, Layout>& distribution() const noexcept { return dist_; }
  /// The target grid (dsiTargetLocales).
  const dmap::target_grid<N>& targets() const noexcept { return dist_.targets(); }
  /// The whole index set (dsiGetIndices).
  const dmap::rect<N>& indices() const noexcept { return cut_.indices(); }
  /// Replaces the index set (dsiSetIndices; local computation only: dmap::domain moves the
  /// arrays' elements). If the layout throws, the domain stays as it was.
  void set_indices(const dmap::rect<N>& indices) {
    dmap::block_domain<N> previous = cut_;
    cut_.set_indices(indices);
    try {
      local_ = local_of(dmap::here());
    } catch (...) {
      cut_ = std::move(previous);
      throw;
    }
  }

  /// The locale owning index `i` (dsiIndexToLocale): Block's owner.
  int locale_of(const dmap::idx<N>& i) const noexcept { return cut_.locale_of(i); }
  /// The rects locale `locale` owns: the owned rects of the parts its chunk is placed as.
  std::vector<dmap::rect<N>> local_subdomains(int locale) const {
    return dmap::owned_rects(dist_.layout().place(cut_.local_subdomains(locale)));
  }
  /// How locale `locale` stores them, in the same order.
  std::vector<dmap::dense_layout<N>> local_layouts(int locale) const {
    return dmap::layouts_of(dist_.layout().place(cut_.local_subdomains(locale)));
  }
  /// The locales whose chunks may meet `r` (Block's search; optional, saves asking all P).
  std::vector<int> locales_meeting(const dmap::rect<N>& r) const { return cut_.locales_meeting(r); }
  /// This locale's local domain descriptor.
  const block_with_layout_local_domain<N>& local() const noexcept { return local_; }

 private:
  block_with_layout_local_domain<N> local_of(int locale) const {
    const auto chunks = cut_.local_subdomains(locale);
    return chunks.empty() ? block_with_layout_local_domain<N>{}
                          : block_with_layout_local_domain<N>(chunks.front(), dist_.layout().place(chunks));
  }

  block_with_layout<N, Layout> dist_;
  dmap::block_domain<N> cut_;
  block_with_layout_local_domain<N> local_{};
};

static_assert(dmap::distribution<tiled_block<2>, 2>);
static_assert(dmap::distribution<block_with_layout<3, dmap::dense_order_layout<3>>, 3>);
static_assert(dmap::domain_descriptor<block_with_layout_domain<2, dmap::tiled_layout<2>>, 2>);
static_assert(dmap::local_domain_descriptor<block_with_layout_local_domain<2>, 2>);

}  // namespace user_layouts
