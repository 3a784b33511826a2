// position_cut: a private 1-D distribution for algorithms that need their own contiguous
// placement of n positions (sort's working and result arrays): locale q owns positions
// [starts[q], starts[q + 1]), stored compactly in order. algorithms/ may not name dists/, so
// this is the one such map the algorithms layer has; it is written only against the DSI
// concepts, like a user's map.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "../../dsi/concepts.hpp"
#include "../../dsi/local_domain.hpp"
#include "../../dsi/range.hpp"
#include "../../runtime/environment.hpp"
#include "../../runtime/grid.hpp"

namespace dmap::detail {

class position_cut_domain;

/// Locale q owns the positions [starts[q], starts[q + 1]) of a 1-D rect [0, n) (n =
/// starts.back()). Equal on every locale when made from the same starts.
class position_cut {
 public:
  /// The cut `starts` (num_locales() + 1 non-decreasing values from 0).
  explicit position_cut(std::vector<index_t> starts) : starts_(std::move(starts)) {}
  /// Block's cut of n positions: locale q owns [ceil(n q / P), ceil(n (q + 1) / P)).
  static position_cut block(index_t n) {
    const int p = num_locales();
    std::vector<index_t> starts(static_cast<std::size_t>(p) + 1);
    for (int q = 0; q <= p; ++q)
      starts[static_cast<std::size_t>(q)] =
          static_cast<index_t>((static_cast<wide_int>(n) * q + p - 1) / p);
    return position_cut(std::move(starts));
  }
  /// The first position of every locale, and the total at the end.
  const std::vector<index_t>& starts() const noexcept { return starts_; }
  /// A grid of all locales in order.
  target_grid<1> targets() const { return target_grid<1>(std::array<int, 1>{num_locales()}); }
  /// "position_cut(0, 3, 7)": every start, so locales compare the whole cut.
  std::string name() const {
    std::string s = "position_cut(";
    for (std::size_t q = 0; q < starts_.size(); ++q) s += (q ? ", " : "") + std::to_string(starts_[q]);
    return s + ")";
  }
  /// The descriptor of a domain over `indices` (which must be [0, starts().back())).
  position_cut_domain new_domain(const rect<1>& indices) const;
  /// Equal cuts place alike.
  friend bool operator==(const position_cut&, const position_cut&) = default;

 private:
  std::vector<index_t> starts_;
};

/// The global descriptor of a position_cut domain.
class position_cut_domain {
 public:
  /// The domain of `indices` cut by `cut`.
  position_cut_domain(position_cut cut, const rect<1>& indices) : cut_(std::move(cut)) { set_indices(indices); }
  /// The whole index set.
  const rect<1>& indices() const noexcept { return whole_; }
  /// Replaces the index set; a size other than the cut's falls back to Block's cut.
  void set_indices(const rect<1>& indices) {
    whole_ = indices;
    if (indices.size() != cut_.starts().back()) cut_ = position_cut::block(indices.size());
    local_ = pieces_local_domain<1>(local_subdomains(here()), local_layouts(here()));
  }
  /// The locale owning `i`: a binary search of the starts.
  int locale_of(const idx<1>& i) const {
    const index_t o = whole_.order_of(i);
    const auto& s = cut_.starts();
    return static_cast<int>(std::upper_bound(s.begin() + 1, s.end() - 1, o) - (s.begin() + 1));
  }
  /// Locale q's one rect (none when it owns no position).
  std::vector<rect<1>> local_subdomains(int q) const {
    const auto& s = cut_.starts();
    const index_t a = s[static_cast<std::size_t>(q)], b = s[static_cast<std::size_t>(q) + 1];
    if (a == b) return {};
    const range& w = whole_.dim(0);
    return {rect<1>{range::counted(w.index_at(a), b - a, w.stride())}};
  }
  /// Locale q's storage: its rect, compact, in position order.
  std::vector<dense_layout<1>> local_layouts(int q) const {
    std::vector<dense_layout<1>> out;
    for (const auto& r : local_subdomains(q)) out.push_back(dense_layout<1>::make(r, 0));
    return out;
  }
  /// This locale's part.
  const pieces_local_domain<1>& local() const noexcept { return local_; }
  /// All locales in order.
  target_grid<1> targets() const { return cut_.targets(); }

 private:
  position_cut cut_;
  rect<1> whole_{};
  pieces_local_domain<1> local_{};
};

inline position_cut_domain position_cut::new_domain(const rect<1>& indices) const {
  return position_cut_domain(*this, indices);
}

static_assert(distribution<position_cut, 1>, "detail::position_cut must model dmap::distribution");

}  // namespace dmap::detail
