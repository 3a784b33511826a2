// Stencil: Block plus ghost cells. Each locale stores its Block chunk expanded by `fluff`
// positions per dimension (DAP padding): copies of the neighbours' edge elements
// (communication padding), or, at the edge of a non-periodic dimension, boundary cells
// that belong to no locale (boundary padding). `update_halos(A)` (algorithms/halos.hpp)
// refreshes every ghost cell from its owner, one aggregated message per neighbour; periodic
// dimensions wrap, also on one locale.
//
// Chapel's descriptors: GlobalDistribution stencil<N>, GlobalDomain stencil_domain<N>,
// LocalDomain stencil_local_domain<N> (owned rect + the storage frame around it).
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../dsi/layout.hpp"
#include "../dsi/rect.hpp"
#include "../layouts/framed_layout.hpp"
#include "block.hpp"

namespace dmap {

template <std::size_t N>
class stencil_domain;

/// The Stencil distribution: Block's cut, with `fluff[d]` ghost positions on both sides of
/// each chunk along dimension d, and `periodic[d]` wrap-around. Each locale stores its frame
/// with rows padded as `padding` says: by default automatically, so frame rows of a
/// power-of-two length do not alias in the cache (row_padding::none() for compact frames).
template <std::size_t N>
class stencil {
 public:
  /// Ghost widths `fluff` (>= 0, in positions of the domain's stride), periodic flags, grid,
  /// storage order and row padding of the frames.
  explicit stencil(const idx<N>& fluff, const std::array<bool, N>& periodic = {},
                   const target_grid<N>& grid = {}, storage_order order = storage_order::row_major,
                   const row_padding& padding = row_padding::automatic())
      : block_(grid, order), fluff_(fluff), periodic_(periodic), padding_(padding) {
    for (std::size_t d = 0; d < N; ++d)
      if (fluff[d] < 0)
        throw argument_error("dmap::stencil: fluff[" + std::to_string(d) + "] is " +
                             std::to_string(fluff[d]) + "; ghost widths must be >= 0");
  }

  /// The Block distribution giving the cut.
  const block<N>& base() const noexcept { return block_; }
  /// Ghost widths per dimension.
  const idx<N>& fluff() const noexcept { return fluff_; }
  /// Periodic flags per dimension.
  const std::array<bool, N>& periodic() const noexcept { return periodic_; }
  /// How the frames' rows are padded.
  const row_padding& row_padding_policy() const noexcept { return padding_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return block_.targets(); }
  /// The local layout of each locale's chunk: framed by the ghost widths, in the base's
  /// storage order, rows padded as the policy says.
  ghost_frame_layout<N> layout() const { return ghost_frame_layout<N>(fluff_, block_.order(), padding_); }
  /// How every locale stores its elements (the DSI's optional distribution member `order()`).
  storage_order order() const noexcept { return block_.order(); }
  /// "stencil(grid 2x2, fluff (1, 1), periodic (0, 1))", with ", row padding none" (or
  /// "<k> elements") when the padding is not the default.
  std::string name() const {
    std::ostringstream s;
    s << "stencil(grid " << targets() << ", fluff " << fluff_ << ", periodic (";
    for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << periodic_[d];
    s << ")";
    if (padding_ != row_padding::automatic()) s << ", row padding " << padding_;
    s << ")";
    return s.str();
  }
  /// A global domain descriptor over `indices`.
  stencil_domain<N> new_domain(const rect<N>& indices) const { return stencil_domain<N>(*this, indices); }

  friend bool operator==(const stencil&, const stencil&) = default;

 private:
  block<N> block_;
  idx<N> fluff_;
  std::array<bool, N> periodic_;
  row_padding padding_;
};

/// This locale's part of a Stencil domain: the owned rect and the frame that stores it with
/// its ghost cells.
template <std::size_t N>
class stencil_local_domain {
 public:
  stencil_local_domain() = default;
  /// The local domain owning `owned`, stored with `layout` (of its frame: owned rect and ghosts).
  stencil_local_domain(const rect<N>& owned, const dense_layout<N>& layout) : owned_(owned), layout_(layout) {}
  /// The owned rect (none when this locale owns nothing).
  std::vector<rect<N>> subdomains() const {
    return owned_.empty() ? std::vector<rect<N>>{} : std::vector<rect<N>>{owned_};
  }
  /// Its storage: the owned rect plus ghost cells.
  std::vector<dense_layout<N>> layouts() const {
    return owned_.empty() ? std::vector<dense_layout<N>>{} : std::vector<dense_layout<N>>{layout_};
  }
  /// The number of owned indices.
  index_t size() const noexcept { return owned_.size(); }
  /// True when this locale owns `i`.
  bool contains(const idx<N>& i) const noexcept { return owned_.contains(i); }

 private:
  rect<N> owned_{};
  dense_layout<N> layout_{};
};

/// The global descriptor of a domain distributed by Stencil.
template <std::size_t N>
class stencil_domain {
 public:
  /// The descriptor of the indices `indices` distributed by `dist`.
  stencil_domain(const stencil<N>& dist, const rect<N>& indices)
      : dist_(dist), blocks_(dist.base(), indices) {
    set_indices(indices);
  }


  /// The distribution.
  const stencil<N>& distribution() const noexcept { return dist_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return dist_.targets(); }
  /// The whole index set (owned indices only; ghosts lie around it).
  const rect<N>& indices() const noexcept { return blocks_.indices(); }
  /// Replaces the index set; throws when a locale's chunk is thinner than the ghost width
  /// along a dimension that exchanges ghosts.
  void set_indices(const rect<N>& indices) {
    check_periodic_images(indices);
    block_domain<N> candidate(dist_.base(), indices);
    check_ghost_widths(candidate);
    block_domain<N> previous = std::exchange(blocks_, std::move(candidate));
    try {  // a fixed row padding may make the frame's layout too large: the domain stays as it was
      const rect<N> mine = chunk_of(here_or_zero());
      local_ = stencil_local_domain<N>(mine, dist_.layout().of(mine));
    } catch (...) {
      blocks_ = std::move(previous);
      throw;
    }
  }

  /// The locale owning index `i`.
  int locale_of(const idx<N>& i) const noexcept { return blocks_.locale_of(i); }
  /// The rect locale `locale` owns (none or one).
  std::vector<rect<N>> local_subdomains(int locale) const { return blocks_.local_subdomains(locale); }
  /// Per dimension, how far ghost cells reach beyond a chunk, in index units (the optional
  /// `ghost_reach()` halo plans use to find the neighbours whose ghosts hold an index).
  std::array<index_t, N> ghost_reach() const {
    std::array<index_t, N> out{};
    for (std::size_t d = 0; d < N; ++d) out[d] = dist_.fluff()[d] * detail::abs_index(indices().dim(d).stride());
    return out;
  }
  /// The locales whose chunks may meet `r` (Block's answer).
  std::vector<int> locales_meeting(const rect<N>& r) const { return blocks_.locales_meeting(r); }
  /// How locale `locale` stores it: the owned rect widened by the ghost widths.
  std::vector<dense_layout<N>> local_layouts(int locale) const {
    if (chunk_of(locale).empty()) return {};
    return {dist_.layout().of(chunk_of(locale))};
  }
  /// This locale's local domain descriptor.
  const stencil_local_domain<N>& local() const noexcept { return local_; }
  /// The Block domain that gives the owned chunks.
  const block_domain<N>& base() const noexcept { return blocks_; }
  /// Every dimension is a block cut (the DSI's optional `dimension_kinds()`).
  std::array<dimension_kind, N> dimension_kinds() const noexcept { return blocks_.dimension_kinds(); }

  /// The rect locale `locale` stores: owned plus ghost cells (empty when it owns nothing).
  rect<N> frame_of(int locale) const { return framed(chunk_of(locale), dist_.fluff()); }

  /// Per dimension, whether it wraps (ghost cells beyond an edge hold the other edge's
  /// elements): the DSI's optional `periodic()`, which halo updates follow.
  const std::array<bool, N>& periodic() const noexcept { return dist_.periodic(); }

 private:
  rect<N> chunk_of(int locale) const {
    const auto s = blocks_.local_subdomains(locale);
    if (!s.empty()) return s.front();
    rect<N> none = indices();
    for (std::size_t d = 0; d < N; ++d) none.set_dim(d, range(0, 0));
    return none;
  }

  // Throws when a locale that owns indices has fewer along a dimension that exchanges ghost
  // cells than the ghost width (its neighbours' ghosts would reach past it). Checked per grid
  // coordinate of each dimension (a chunk is a product of per-dimension ranges): O(sum of the
  // grid's extents), not O(locales).
  void check_ghost_widths(const block_domain<N>& blocks) const {
    const rect<N>& indices = blocks.indices();
    std::array<int, N> owning{};  // per dimension, the first coordinate whose range is not empty
    for (std::size_t d = 0; d < N; ++d) {
      owning[d] = -1;
      for (int k = 0; k < targets().extent(d) && owning[d] < 0; ++k)
        if (!blocks.chunk_range(d, k).empty()) owning[d] = k;
      if (owning[d] < 0) return;  // no locale owns anything
    }
    for (std::size_t d = 0; d < N; ++d) {
      const bool exchanges = targets().extent(d) > 1 || dist_.periodic()[d];
      if (!exchanges || dist_.fluff()[d] == 0) continue;
      for (int k = 0; k < targets().extent(d); ++k) {
        const range r = blocks.chunk_range(d, k);
        if (r.empty() || r.size() >= dist_.fluff()[d]) continue;
        std::array<int, N> c = owning;
        c[d] = k;
        std::ostringstream s;
        s << "dmap::stencil: locale " << targets().locale_at(c) << " (grid coordinates";
        for (std::size_t j = 0; j < N; ++j) s << (j ? ", " : " ") << c[j];
        s << ") owns " << r.size() << " indices along dimension " << d << " of " << indices
          << ", fewer than the ghost width " << dist_.fluff()[d]
          << "; every chunk must be at least as wide as the ghost width (use fewer locales along "
             "that dimension or a smaller fluff)";
        throw argument_error(s.str());
      }
    }
  }
  // Throws when, along a periodic dimension, a ghost cell's periodic images (its index moved
  // by one period, the dimension's size times |stride|, either way) cannot be named in int64:
  // halo updates look for a ghost cell's source among them. A periodic dimension keeps one
  // period plus the ghost width inside int64 on both sides (along a non-periodic dimension
  // the frame simply stops at the limits; see framed()).
  void check_periodic_images(const rect<N>& indices) const {
    if (indices.empty()) return;
    using detail::wide_int;
    for (std::size_t d = 0; d < N; ++d) {
      if (!dist_.periodic()[d]) continue;
      const range& r = indices.dim(d);
      const wide_int step = detail::abs_index(r.stride());
      const wide_int period = static_cast<wide_int>(r.size()) * step;
      const wide_int reach = static_cast<wide_int>(dist_.fluff()[d]) * step + period;
      const wide_int lowest_image = static_cast<wide_int>(r.aligned_low()) - reach;
      const wide_int bound_after_highest_image = static_cast<wide_int>(r.aligned_high()) + 1 + reach;
      if (period <= std::numeric_limits<index_t>::max() && lowest_image >= std::numeric_limits<index_t>::min() &&
          bound_after_highest_image <= std::numeric_limits<index_t>::max())
        continue;
      std::ostringstream s;
      s << "dmap::stencil: periodic dimension " << d << " of " << indices << " (period ";
      if (period <= std::numeric_limits<index_t>::max()) s << static_cast<index_t>(period);
      else s << "above 2^63 - 1";
      s << ", ghost width " << dist_.fluff()[d]
        << "): the periodic images of its ghost cells reach past the int64 range; a periodic dimension must lie "
           "at least one period plus the ghost width (times |stride|) inside [INT64_MIN, INT64_MAX]";
      throw argument_error(s.str());
    }
  }
  static int here_or_zero() { return detail::current_environment ? here() : 0; }

  stencil<N> dist_;
  block_domain<N> blocks_;
  stencil_local_domain<N> local_{};
};

}  // namespace dmap
