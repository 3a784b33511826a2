// Padded: an irregular block cut with padding of its own width on each side of each chunk,
// as the Distributed Array Protocol allows ('b' with `padding`): boundary padding at the
// domain's edges (cells that belong to no locale), communication padding between
// neighbours (ghost copies of the neighbour's edge, refreshed by `update_halos`), periodic
// dimensions wrapping. Stencil is the special case of Block's cut with one width everywhere;
// Padded is what a DAP description with unequal widths imports as.
//
// Chapel's descriptors: GlobalDistribution padded<N>, GlobalDomain padded_domain<N>,
// LocalDomain stencil_local_domain<N> (owned rect + the storage frame around it).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "../dsi/layout.hpp"
#include "../dsi/rect.hpp"
#include "../runtime/grid.hpp"
#include "stencil.hpp"

namespace dmap {

template <std::size_t N>
class padded_domain;

/// Padding widths of one chunk along one dimension: {before, after}, in indices.
using padding_widths = std::array<index_t, 2>;

/// The Padded distribution: along dimension d, grid coordinate k owns the indices in
/// [cuts[d][k - 1], cuts[d][k]) (the first and last coordinates also own whatever lies
/// below / above) and stores them widened by padding[d][k]; `periodic[d]` wraps dimension d.
/// Domains must have unit strides. Rows of the stored frames are padded as `rows` says
/// (automatically by default, as Stencil's: see row_padding).
template <std::size_t N>
class padded {
 public:
  /// Cut points (extent(d) - 1 nondecreasing per dimension), padding widths (extent(d)
  /// pairs >= 0 per dimension), periodic flags, grid, storage order and the row padding of
  /// the stored frames. Throws argument_error naming the dimension and entry that breaks a
  /// rule.
  padded(const std::array<std::vector<index_t>, N>& cuts, const std::array<std::vector<padding_widths>, N>& padding,
         const std::array<bool, N>& periodic = {}, const target_grid<N>& grid = {},
         storage_order order = storage_order::row_major, const row_padding& rows = row_padding::automatic())
      : cuts_(cuts), padding_(padding), periodic_(periodic), grid_(grid), order_(order), rows_(rows) {
    for (std::size_t d = 0; d < N; ++d) {
      const auto parts = static_cast<std::size_t>(grid.extent(d));
      if (cuts[d].size() != parts - 1)
        fail(d, "cuts[" + std::to_string(d) + "] holds " + std::to_string(cuts[d].size()) + " cut points; it must hold " +
                    std::to_string(parts - 1) + " (the grid's extent along the dimension less one)");
      for (std::size_t k = 1; k < cuts[d].size(); ++k)
        if (cuts[d][k] < cuts[d][k - 1])
          fail(d, "cuts[" + std::to_string(d) + "][" + std::to_string(k) + "] is " + std::to_string(cuts[d][k]) +
                      "; cut points must be nondecreasing (the one before is " + std::to_string(cuts[d][k - 1]) + ")");
      if (padding[d].size() != parts)
        fail(d, "padding[" + std::to_string(d) + "] holds " + std::to_string(padding[d].size()) +
                    " pairs; it must hold one per grid coordinate (" + std::to_string(parts) + ")");
      for (std::size_t k = 0; k < parts; ++k)
        for (std::size_t side = 0; side < 2; ++side)
          if (padding[d][k][side] < 0)
            fail(d, "padding[" + std::to_string(d) + "][" + std::to_string(k) + "][" + std::to_string(side) + "] is " +
                        std::to_string(padding[d][k][side]) + "; padding widths must be >= 0");
    }
  }

  /// The cut points per dimension.
  const std::array<std::vector<index_t>, N>& cuts() const noexcept { return cuts_; }
  /// The padding widths per dimension and grid coordinate.
  const std::array<std::vector<padding_widths>, N>& padding() const noexcept { return padding_; }
  /// Periodic flags per dimension.
  const std::array<bool, N>& periodic() const noexcept { return periodic_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return grid_; }
  /// How each locale stores its chunk and padding.
  storage_order order() const noexcept { return order_; }
  /// How the stored frames' rows are padded.
  const row_padding& row_padding_policy() const noexcept { return rows_; }
  /// "padded(grid 2x1; cuts [5] []; padding [(1, 2) (2, 0)] [(0, 0)]; periodic (0, 0))": every
  /// parameter ("; row padding none" or "<k> elements" when not the default).
  std::string name() const {
    std::ostringstream s;
    s << "padded(grid " << grid_ << ";";
    for (std::size_t d = 0; d < N; ++d) {
      s << (d ? " [" : " cuts [");
      for (std::size_t k = 0; k < cuts_[d].size(); ++k) s << (k ? " " : "") << cuts_[d][k];
      s << ']';
    }
    s << ";";
    for (std::size_t d = 0; d < N; ++d) {
      s << (d ? " [" : " padding [");
      for (std::size_t k = 0; k < padding_[d].size(); ++k)
        s << (k ? " (" : "(") << padding_[d][k][0] << ", " << padding_[d][k][1] << ')';
      s << ']';
    }
    s << "; periodic (";
    for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << periodic_[d];
    s << (order_ == storage_order::column_major ? "), column-major" : ")");
    if (rows_ != row_padding::automatic()) s << "; row padding " << rows_;
    s << ")";
    return s.str();
  }
  /// A global domain descriptor over `indices`.
  padded_domain<N> new_domain(const rect<N>& indices) const { return padded_domain<N>(*this, indices); }

  friend bool operator==(const padded&, const padded&) = default;

 private:
  [[noreturn]] static void fail(std::size_t d, const std::string& what) {
    throw argument_error("dmap::padded: dimension " + std::to_string(d) + ": " + what);
  }

  std::array<std::vector<index_t>, N> cuts_;
  std::array<std::vector<padding_widths>, N> padding_;
  std::array<bool, N> periodic_;
  target_grid<N> grid_;
  storage_order order_;
  row_padding rows_;
};

/// The global descriptor of a domain distributed by Padded.
template <std::size_t N>
class padded_domain {
 public:
  /// The descriptor of `indices` distributed by `dist`.
  padded_domain(const padded<N>& dist, const rect<N>& indices) : dist_(dist) {
    detail::check_grid_matches_locales(dist.targets(), "dmap::padded");
    set_indices(indices);
  }

  /// The distribution.
  const padded<N>& distribution() const noexcept { return dist_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return dist_.targets(); }
  /// The whole index set (owned indices only; padding lies around the chunks).
  const rect<N>& indices() const noexcept { return indices_; }
  /// Replaces the index set. Throws argument_error for a stride other than 1, or a chunk
  /// whose padded frame would reach past the int64 range.
  void set_indices(const rect<N>& indices) {
    for (std::size_t d = 0; d < N; ++d)
      if (indices.dim(d).stride() != 1 && !indices.empty()) {
        std::ostringstream s;
        s << "dmap::padded: dimension " << d << " of " << indices << " has stride " << indices.dim(d).stride()
          << "; padded domains need stride 1 (the cuts and padding count indices)";
        throw argument_error(s.str());
      }
    rect<N> previous = indices_;
    indices_ = indices;
    try {
      for (int q : targets().locales()) (void)frame_of(q);
      const int me = detail::current_environment ? here() : 0;
      local_ = stencil_local_domain<N>(chunk_of(me), layout_of(me));
    } catch (...) {
      indices_ = previous;
      throw;
    }
  }

  /// The locale owning index `i`.
  int locale_of(const idx<N>& i) const {
    std::array<int, N> c{};
    for (std::size_t d = 0; d < N; ++d) {
      const auto& cuts = dist_.cuts()[d];
      c[d] = static_cast<int>(std::upper_bound(cuts.begin(), cuts.end(), i[d]) - cuts.begin());
    }
    return targets().locale_at(c);
  }
  /// The rect locale `locale` owns (none or one).
  std::vector<rect<N>> local_subdomains(int locale) const {
    const rect<N> c = chunk_of(locale);
    return c.empty() ? std::vector<rect<N>>{} : std::vector<rect<N>>{c};
  }
  /// Per dimension, the widest padding of any chunk (the optional `ghost_reach()` halo plans
  /// use to find the neighbours whose padding holds an index).
  std::array<index_t, N> ghost_reach() const {
    std::array<index_t, N> out{};
    for (std::size_t d = 0; d < N; ++d)
      for (const padding_widths& w : dist_.padding()[d]) out[d] = std::max({out[d], w[0], w[1]});
    return out;
  }
  /// The locales whose chunks may meet `r`: per dimension, the coordinates between the
  /// owners of r's bounds.
  std::vector<int> locales_meeting(const rect<N>& r) const {
    std::array<std::vector<int>, N> coords;
    for (std::size_t d = 0; d < N; ++d) {
      const range within = indices_.dim(d).intersect(r.dim(d));
      if (within.empty()) return {};
      const auto& cuts = dist_.cuts()[d];
      const auto owner = [&](index_t i) { return static_cast<int>(std::upper_bound(cuts.begin(), cuts.end(), i) - cuts.begin()); };
      for (int k = owner(within.lo()); k <= owner(std::max(within.lo(), within.hi() - 1)); ++k) coords[d].push_back(k);
    }
    return detail::locales_of_product(targets(), coords);
  }
  /// How locale `locale` stores it: the owned rect widened by its padding.
  std::vector<dense_layout<N>> local_layouts(int locale) const {
    const rect<N> c = chunk_of(locale);
    if (c.empty()) return {};
    return {layout_of(locale)};
  }
  /// This locale's local domain descriptor.
  const stencil_local_domain<N>& local() const noexcept { return local_; }
  /// Per dimension, whether it wraps (the DSI's optional `periodic()`: halo updates apply).
  const std::array<bool, N>& periodic() const noexcept { return dist_.periodic(); }
  /// Every dimension is a block cut (irregular cut points; the DSI's optional `dimension_kinds()`).
  std::array<dimension_kind, N> dimension_kinds() const noexcept {
    std::array<dimension_kind, N> out;
    out.fill(dimension_kind::block());
    return out;
  }

  /// The rect locale `locale` owns (empty when none, or outside the target grid).
  rect<N> chunk_of(int locale) const {
    const auto c = targets().holds(locale) ? targets().coords_of(locale) : std::array<int, N>{};
    rect<N> chunk = indices_;
    bool empty = indices_.empty() || !targets().holds(locale);
    for (std::size_t d = 0; d < N && !empty; ++d) {
      const auto& cuts = dist_.cuts()[d];
      const auto k = static_cast<std::size_t>(c[d]);
      const range& r = indices_.dim(d);
      const index_t lo = k == 0 ? r.lo() : std::max(r.lo(), cuts[k - 1]);
      const index_t hi = k == cuts.size() ? r.hi() : std::min(r.hi(), cuts[k]);
      empty = lo >= hi;
      if (!empty) chunk.set_dim(d, range(lo, hi));
    }
    if (!empty) return chunk;
    for (std::size_t d = 0; d < N; ++d) chunk.set_dim(d, range(0, 0));
    return chunk;
  }
  /// How locale `locale` stores its frame (its rows padded as the distribution says).
  dense_layout<N> layout_of(int locale) const {
    return dense_layout<N>::make(frame_of(locale), 0, dist_.order(), dist_.row_padding_policy());
  }
  /// The rect locale `locale` stores: its chunk and padding (empty when it owns nothing).
  rect<N> frame_of(int locale) const {
    rect<N> frame = chunk_of(locale);
    if (frame.empty()) return frame;
    const auto c = targets().coords_of(locale);
    for (std::size_t d = 0; d < N; ++d) {
      const padding_widths& w = dist_.padding()[d][static_cast<std::size_t>(c[d])];
      const range& r = frame.dim(d);
      const detail::wide_int lo = static_cast<detail::wide_int>(r.lo()) - w[0];
      const detail::wide_int hi = static_cast<detail::wide_int>(r.hi()) + w[1];
      if (lo < std::numeric_limits<index_t>::min() || hi > std::numeric_limits<index_t>::max()) {
        std::ostringstream s;
        s << "dmap::padded: locale " << locale << "'s chunk " << chunk_of(locale) << " widened by padding (" << w[0]
          << ", " << w[1] << ") along dimension " << d << " reaches past the int64 range";
        throw argument_error(s.str());
      }
      frame.set_dim(d, range(static_cast<index_t>(lo), static_cast<index_t>(hi)));
    }
    return frame;
  }

 private:
  padded<N> dist_;
  rect<N> indices_{};
  stencil_local_domain<N> local_{};
};

}  // namespace dmap
