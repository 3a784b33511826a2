// linear_slabs: the one private map of the algorithms layer (algorithms/ may not include
// dists/), for whole-array algorithms that need their own placement in global row-major order
// (scan's temporary, sort's working and result arrays): locale q owns the row-major positions
// [starts[q], starts[q + 1]) of a rect of n = starts.back() indices, as at most 2N - 1 rects
// stored one after another, so its part is one contiguous run of positions and of storage, and
// the runs follow each other in locale order. Any non-decreasing cut from 0 to n: the even cut
// [n q / P, n (q + 1) / P) (scan), Block's cut (sort's default), or one given by an array's map
// (sort places into the cut of its result). Written against the DSI only, like a user's map.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "../../dsi/concepts.hpp"
#include "../../dsi/detail/placement_query.hpp"
#include "../../dsi/domain.hpp"
#include "../../dsi/layout.hpp"
#include "../../dsi/rect.hpp"
#include "../../runtime/errors.hpp"
#include "../../runtime/grid.hpp"

namespace dmap::detail {

template <std::size_t N>
class linear_slabs_domain;

/// The rects, in row-major order, holding the positions [first, last) of `box` (any bounds
/// and strides): a partial run, whole sub-blocks, a partial run, per dimension.
template <std::size_t N>
void linear_rects(const rect<N>& box, std::size_t d, index_t first, index_t last, std::vector<rect<N>>& out) {
  if (first >= last) return;
  index_t inner = 1;  // positions per index of dimension d
  for (std::size_t e = d + 1; e < N; ++e) inner *= box.dim(e).size();
  const range& along = box.dim(d);
  const auto with = [&](index_t lo, index_t hi) {  // the indices [lo, hi) of dimension d, lo < hi
    rect<N> r = box;
    r.set_dim(d, range::counted(along.index_at(lo), hi - lo, along.stride()));
    return r;
  };
  const index_t a = first / inner, b = last / inner;  // whole indices of d in [ceil, floor)
  if (d + 1 == N || (first % inner == 0 && last % inner == 0)) {
    out.push_back(with(a, b));
    return;
  }
  if (a == b) {  // inside one index of dimension d
    linear_rects(with(a, a + 1), d + 1, first - a * inner, last - a * inner, out);
    return;
  }
  index_t mid_lo = a;
  if (first % inner != 0) {
    linear_rects(with(a, a + 1), d + 1, first - a * inner, inner, out);
    mid_lo = a + 1;
  }
  if (mid_lo < b) out.push_back(with(mid_lo, b));
  if (last % inner != 0) linear_rects(with(b, b + 1), d + 1, 0, last - b * inner, out);
}

/// The distribution: locale q owns the row-major positions [starts[q], starts[q + 1]), in
/// locale order. Equal (and of equal name) on every locale when made from the same starts.
template <std::size_t N>
class linear_slabs {
 public:
  /// The cut `starts`: num_locales() + 1 non-decreasing positions from 0 (to n, the size of
  /// the index sets it places as cut; another size gets the even cut of that size).
  explicit linear_slabs(std::vector<index_t> starts) : grid_(shape()), starts_(std::move(starts)) {
    const auto p = static_cast<std::size_t>(num_locales());
    bool ok = starts_.size() == p + 1 && starts_.front() == 0;
    for (std::size_t q = 1; ok && q < starts_.size(); ++q) ok = starts_[q - 1] <= starts_[q];
    if (!ok)
      throw argument_error("dmap::detail::linear_slabs: starts (" + list() + ") must be " + std::to_string(p + 1) +
                           " non-decreasing positions from 0");
  }
  /// The even cut of n positions: locale q owns [floor(n q / P), floor(n (q + 1) / P)).
  static linear_slabs even(index_t n) {
    const index_t p = num_locales();
    std::vector<index_t> starts(static_cast<std::size_t>(p) + 1);
    for (index_t q = 0; q <= p; ++q)
      starts[static_cast<std::size_t>(q)] = n / p * q + n % p * q / p;  // floor(n q / p) without overflow
    return linear_slabs(std::move(starts));
  }
  /// Block's cut of n positions: locale q owns [ceil(n q / P), ceil(n (q + 1) / P)).
  static linear_slabs block(index_t n) {
    const int p = num_locales();
    std::vector<index_t> starts(static_cast<std::size_t>(p) + 1);
    for (int q = 0; q <= p; ++q)
      starts[static_cast<std::size_t>(q)] = static_cast<index_t>((static_cast<wide_int>(n) * q + p - 1) / p);
    return linear_slabs(std::move(starts));
  }
  /// The first position of every locale, and the total at the end.
  const std::vector<index_t>& starts() const noexcept { return starts_; }
  /// Target grid P x 1 x ... x 1 (for readers of targets(); the cut is by position).
  const target_grid<N>& targets() const noexcept { return grid_; }
  /// "dmap::detail::linear_slabs(0, 3, 7)": every start, so locales compare the whole cut.
  std::string name() const { return "dmap::detail::linear_slabs(" + list() + ")"; }
  /// A global domain descriptor over `indices`.
  linear_slabs_domain<N> new_domain(const rect<N>& indices) const { return linear_slabs_domain<N>(*this, indices); }
  /// Equal cuts place equal index sets alike (so placement keys and plan caches compare cuts).
  friend bool operator==(const linear_slabs& a, const linear_slabs& b) noexcept { return a.starts_ == b.starts_; }

 private:
  static std::array<int, N> shape() {
    std::array<int, N> s{};
    s.fill(1);
    s[0] = num_locales();
    return s;
  }
  std::string list() const {
    std::string s;
    for (std::size_t q = 0; q < starts_.size(); ++q) s += (q ? ", " : "") + std::to_string(starts_[q]);
    return s;
  }
  target_grid<N> grid_;
  std::vector<index_t> starts_;
};

/// This locale's part of a linear_slabs domain: its rects, stored one after another.
template <std::size_t N>
class linear_slabs_local_domain {
 public:
  linear_slabs_local_domain() = default;
  /// The part made of `mine`, in row-major order.
  explicit linear_slabs_local_domain(std::vector<rect<N>> mine)
      : mine_(std::move(mine)), layouts_(packed_layouts(mine_)), size_(layouts_.empty() ? 0 : layouts_.back().end()) {}
  /// The owned rects.
  const std::vector<rect<N>>& subdomains() const noexcept { return mine_; }
  /// Their storage, one after another.
  const std::vector<dense_layout<N>>& layouts() const noexcept { return layouts_; }
  /// The number of owned indices.
  index_t size() const noexcept { return size_; }
  /// True when this locale owns `i`.
  bool contains(const idx<N>& i) const noexcept {
    return std::any_of(mine_.begin(), mine_.end(), [&](const rect<N>& r) { return r.contains(i); });
  }

 private:
  std::vector<rect<N>> mine_;
  std::vector<dense_layout<N>> layouts_;
  index_t size_ = 0;
};

/// The global descriptor: answers for any locale from the cut.
template <std::size_t N>
class linear_slabs_domain {
 public:
  /// The descriptor of `indices` (any bounds and strides).
  linear_slabs_domain(const linear_slabs<N>& dist, const rect<N>& indices) : dist_(dist) { set_indices(indices); }
  /// The distribution.
  const linear_slabs<N>& distribution() const noexcept { return dist_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return dist_.targets(); }
  /// The whole index set.
  const rect<N>& indices() const noexcept { return whole_; }
  /// Replaces the index set; a size other than the cut's gets the even cut of that size.
  void set_indices(const rect<N>& indices) {
    whole_ = indices;
    if (indices.size() != dist_.starts().back()) dist_ = linear_slabs<N>::even(indices.size());
    local_ = linear_slabs_local_domain<N>(local_subdomains(here()));
  }
  /// The first position locale q owns (q = P: the size).
  index_t start(int q) const noexcept { return dist_.starts()[static_cast<std::size_t>(q)]; }
  /// The locale owning `i`: the last q with start(q) at or before its position.
  int locale_of(const idx<N>& i) const noexcept {
    const index_t pos = whole_.order_of(i);
    const auto& s = dist_.starts();
    return static_cast<int>(std::upper_bound(s.begin() + 1, s.end() - 1, pos) - (s.begin() + 1));
  }
  /// The rects locale `q` owns, in row-major order.
  std::vector<rect<N>> local_subdomains(int q) const {
    std::vector<rect<N>> out;
    if (!whole_.empty()) linear_rects<N>(whole_, 0, start(q), start(q + 1), out);
    return out;
  }
  /// How locale `q` stores them: one after another.
  std::vector<dense_layout<N>> local_layouts(int q) const { return packed_layouts(local_subdomains(q)); }
  /// This locale's part.
  const linear_slabs_local_domain<N>& local() const noexcept { return local_; }

 private:
  linear_slabs<N> dist_;
  rect<N> whole_{};
  linear_slabs_local_domain<N> local_{};
};

/// Collective: a domain over the 0-based rect of `shape` placed by the even cut.
template <std::size_t N>
domain<N> linear_slabs_of(const std::array<index_t, N>& shape) {
  rect<N> r;
  for (std::size_t d = 0; d < N; ++d) r.set_dim(d, range(0, shape[d]));
  return domain<N>(linear_slabs<N>::even(r.size()), r);
}

static_assert(distribution<linear_slabs<1>, 1>, "detail::linear_slabs must model dmap::distribution");

}  // namespace dmap::detail
