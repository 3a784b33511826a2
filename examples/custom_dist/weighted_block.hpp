// weighted_block<N>: a distribution written OUTSIDE dmap, only against the public DSI
// concepts (dsi/concepts.hpp). Block-like along dimension 0 for unequal locales: locale k
// gets a share of the rows proportional to weights[k]; the other dimensions are not
// distributed (target grid P x 1 x ... x 1). Nothing in dmap names this type, yet domains
// over it work with forall, zip, reduce, resize, assignment, views and printing.
//
// The cut: along dimension 0, with R rows (indices, in ascending order, of the domain's
// dimension 0, strided or not) and prefix sums S_k = weights[0] + ... + weights[k-1] of total
// W, locale k owns the rows at ascending positions [ceil(R * S_k / W), ceil(R * S_{k+1} / W)).
// Equal weights give Block's cut (for a unit-stride dimension 0). Locale 0 also owns whatever
// lies below the domain's bounds and locale P-1 whatever lies above them, as in Block.
//
// Chapel's descriptors, side by side:
//   GlobalDistribution  weighted_block<N>
//   GlobalDomain        weighted_block_domain<N>        (answers for any locale)
//   LocalDomain         weighted_block_local_domain<N>  (this locale's rect and its layout)
//   GlobalArray / LocalArray: dmap::array<T, N>, over storage from local_layouts.
#pragma once

// A project of your own writes <dmap/dmap.hpp>; this header sits in dmap's source tree and
// includes the library relatively, so tests can include it without any include path.
#include "../../dmap.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace custom_dist {

template <std::size_t N>
class weighted_block_domain;

/// Block along dimension 0 with one positive weight per locale; a row share per locale
/// proportional to its weight. Constructing one is not collective, but every locale must
/// construct it from the same weights (the domain checks that, through name()).
template <std::size_t N>
class weighted_block {
 public:
  /// `weights[k]` is locale k's relative speed: exactly dmap::num_locales() of them, each
  /// positive and finite; otherwise dmap::argument_error (on every locale that passes them).
  explicit weighted_block(std::vector<double> weights,
                          dmap::storage_order order = dmap::storage_order::row_major)
      : weights_(std::move(weights)), grid_(validated_grid(weights_)), order_(order) {}

  /// Weights 1, 2, ..., P: locale k gets about (k + 1) / (P (P + 1) / 2) of the rows.
  static weighted_block increasing(dmap::storage_order order = dmap::storage_order::row_major) {
    std::vector<double> w(static_cast<std::size_t>(dmap::num_locales()));
    for (std::size_t k = 0; k < w.size(); ++k) w[k] = static_cast<double>(k + 1);
    return weighted_block(std::move(w), order);
  }
  /// Equal weights: the rows are cut exactly as dmap::block<N> over a P x 1 x ... grid cuts
  /// a unit-stride dimension 0.
  static weighted_block uniform(dmap::storage_order order = dmap::storage_order::row_major) {
    return weighted_block(std::vector<double>(static_cast<std::size_t>(dmap::num_locales()), 1.0), order);
  }

  /// The weights, one per locale.
  const std::vector<double>& weights() const noexcept { return weights_; }
  /// The target grid: P x 1 x ... x 1.
  const dmap::target_grid<N>& targets() const noexcept { return grid_; }
  /// How each locale stores its rows.
  dmap::storage_order order() const noexcept { return order_; }
  /// "weighted_block(weights 1, 2, 3; grid 3x1)". The weights are written exactly (shortest
  /// round trip), so the domain's same-arguments-on-every-locale check sees any difference.
  std::string name() const {
    std::string s = "weighted_block(weights ";
    for (std::size_t k = 0; k < weights_.size(); ++k) {
      char text[32];
      const auto end = std::to_chars(text, text + sizeof text, weights_[k]).ptr;
      s += (k ? ", " : "") + std::string(text, end);
    }
    std::ostringstream grid;
    grid << grid_;
    s += "; grid " + grid.str();
    if (order_ == dmap::storage_order::column_major) s += ", column-major";
    return s + ")";
  }
  /// A global domain descriptor over `indices` (dsiNewRectangularDom).
  weighted_block_domain<N> new_domain(const dmap::rect<N>& indices) const {
    return weighted_block_domain<N>(*this, indices);
  }

  /// The P - 1 cut points of `rows` (a domain's dimension 0), ascending: locale k owns the
  /// indices i of `rows` with cut[k-1] <= i < cut[k] (locale 0 everything below cut[0],
  /// locale P-1 everything from cut[P-2] on). Depends only on the weights and `rows`, so
  /// every locale computes the same cut.
  std::vector<dmap::index_t> cut_points(const dmap::range& rows) const {
    const dmap::index_t count = rows.size();
    const dmap::index_t low = rows.empty() ? rows.lo() : rows.aligned_low();
    const dmap::index_t step = rows.stride() < 0 ? -rows.stride() : rows.stride();
    double total = 0;
    for (double w : weights_) total += w;
    std::vector<dmap::index_t> cuts;
    double prefix = 0;
    dmap::index_t previous = 0;
    for (std::size_t k = 0; k + 1 < weights_.size(); ++k) {
      prefix += weights_[k];
      // Position of the first row of locale k + 1. (count * prefix) / total in long double
      // keeps equal weights exact (Block's ceil(count * j / p)); clamped and monotone
      // whatever rounds.
      auto position = static_cast<dmap::index_t>(
          std::ceil(static_cast<long double>(count) * prefix / static_cast<long double>(total)));
      position = std::clamp(position, previous, count);
      previous = position;
      cuts.push_back(low + position * step);
    }
    return cuts;
  }

  friend bool operator==(const weighted_block&, const weighted_block&) = default;

 private:
  static dmap::target_grid<N> validated_grid(const std::vector<double>& weights) {
    const int p = dmap::num_locales();
    if (weights.size() != static_cast<std::size_t>(p))
      throw dmap::argument_error("custom_dist::weighted_block: weights has " + std::to_string(weights.size()) +
                                 " entries; there must be exactly one per locale (" + std::to_string(p) +
                                 " locales)");
    for (std::size_t k = 0; k < weights.size(); ++k)
      if (!(weights[k] > 0) || !std::isfinite(weights[k])) {
        std::ostringstream s;
        s << "custom_dist::weighted_block: weights[" << k << "] is " << weights[k]
          << "; every weight must be positive and finite";
        throw dmap::argument_error(s.str());
      }
    std::array<int, N> shape{};
    shape.fill(1);
    shape[0] = p;
    return dmap::target_grid<N>(shape);
  }

  std::vector<double> weights_;
  dmap::target_grid<N> grid_;
  dmap::storage_order order_;
};

/// This locale's part of a weighted_block domain: at most one rect, stored densely.
template <std::size_t N>
class weighted_block_local_domain {
 public:
  weighted_block_local_domain() = default;
  weighted_block_local_domain(const dmap::rect<N>& mine, dmap::storage_order order)
      : mine_(mine), layout_(dmap::dense_layout<N>::make(mine, 0, order)) {}

  /// The owned rect (none when this locale owns no row).
  std::vector<dmap::rect<N>> subdomains() const {
    return mine_.empty() ? std::vector<dmap::rect<N>>{} : std::vector<dmap::rect<N>>{mine_};
  }
  /// Its storage, in the same order as subdomains().
  std::vector<dmap::dense_layout<N>> layouts() const {
    return mine_.empty() ? std::vector<dmap::dense_layout<N>>{} : std::vector<dmap::dense_layout<N>>{layout_};
  }
  /// The number of owned indices.
  dmap::index_t size() const noexcept { return mine_.size(); }
  /// True when this locale owns `i`.
  bool contains(const dmap::idx<N>& i) const noexcept { return mine_.contains(i); }

 private:
  dmap::rect<N> mine_{};
  dmap::dense_layout<N> layout_{};
};

/// The global descriptor of a domain distributed by weighted_block: every locale holds one
/// and answers for any locale from the cut points, without messages.
template <std::size_t N>
class weighted_block_domain {
 public:
  weighted_block_domain(const weighted_block<N>& dist, const dmap::rect<N>& indices) : dist_(dist) {
    set_indices(indices);
  }

  /// The distribution (dsiMyDist).
  const weighted_block<N>& distribution() const noexcept { return dist_; }
  /// The target grid (dsiTargetLocales).
  const dmap::target_grid<N>& targets() const noexcept { return dist_.targets(); }
  /// The whole index set (dsiGetIndices).
  const dmap::rect<N>& indices() const noexcept { return whole_; }
  /// Replaces the index set and recomputes the cut and this locale's part (dsiSetIndices).
  /// Local computation only: dmap::domain::set_indices calls it on every locale and moves
  /// the arrays' elements itself.
  void set_indices(const dmap::rect<N>& indices) {
    whole_ = indices;
    cuts_ = dist_.cut_points(indices.dim(0));
    local_ = weighted_block_local_domain<N>(chunk_of(dmap::here()), dist_.order());
  }

  /// The locale owning index `i` (dsiIndexToLocale): a binary search over the P - 1 cut
  /// points, O(log P).
  int locale_of(const dmap::idx<N>& i) const noexcept {
    return static_cast<int>(std::upper_bound(cuts_.begin(), cuts_.end(), i[0]) - cuts_.begin());
  }
  /// The rects locale `locale` owns (none or one).
  std::vector<dmap::rect<N>> local_subdomains(int locale) const {
    const dmap::rect<N> mine = chunk_of(locale);
    return mine.empty() ? std::vector<dmap::rect<N>>{} : std::vector<dmap::rect<N>>{mine};
  }
  /// How locale `locale` stores them: one dense block per rect, in the same order.
  std::vector<dmap::dense_layout<N>> local_layouts(int locale) const {
    const dmap::rect<N> mine = chunk_of(locale);
    if (mine.empty()) return {};
    return {dmap::dense_layout<N>::make(mine, 0, dist_.order())};
  }
  /// This locale's local domain descriptor.
  const weighted_block_local_domain<N>& local() const noexcept { return local_; }
  /// The rows (indices of dimension 0) locale `locale` owns.
  dmap::range rows(int locale) const {
    const auto k = static_cast<std::size_t>(locale);
    // The first and last locales own everything below and above the cuts: their intervals
    // end at the domain's bounds (a range spans at most 2^63 - 1 integers).
    const dmap::range& all = whole_.dim(0);
    const dmap::index_t first = k == 0 ? all.lo() : cuts_[k - 1];
    const dmap::index_t last = k == cuts_.size() ? std::max(all.lo(), all.hi()) : cuts_[k];
    return all.intersect(dmap::range(first, last));
  }
  /// The P - 1 cut points of dimension 0 (see weighted_block::cut_points).
  const std::vector<dmap::index_t>& cut_points() const noexcept { return cuts_; }

 private:
  dmap::rect<N> chunk_of(int locale) const {
    dmap::rect<N> mine = whole_;
    mine.set_dim(0, rows(locale));
    return mine;
  }

  weighted_block<N> dist_;
  dmap::rect<N> whole_{};
  std::vector<dmap::index_t> cuts_{};
  weighted_block_local_domain<N> local_{};
};

static_assert(dmap::distribution<weighted_block<1>, 1>);
static_assert(dmap::distribution<weighted_block<2>, 2>);
static_assert(dmap::distribution<weighted_block<3>, 3>);
static_assert(dmap::domain_descriptor<weighted_block_domain<2>, 2>);
static_assert(dmap::local_domain_descriptor<weighted_block_local_domain<2>, 2>);

}  // namespace custom_dist
