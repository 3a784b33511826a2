// A map for whole-array algorithms that work in global row-major order (scans): locale q owns
// the row-major positions [n q / P, n (q + 1) / P) of a 0-based rect of n indices, as at most
// 2N - 1 rects stored one after another, so its part is one contiguous run of positions and of
// storage, and the runs follow each other in locale order. Written against the DSI only (an
// algorithm may not include dists/), like a user's map.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "../../dsi/domain.hpp"
#include "../../dsi/layout.hpp"
#include "../../dsi/rect.hpp"
#include "../../runtime/grid.hpp"

namespace dmap::detail {

template <std::size_t N>
class linear_slabs_domain;

/// The rects, in row-major order, holding the positions [first, last) of `box` (0-based,
/// unit strides): a partial run, whole sub-blocks, a partial run, per dimension.
template <std::size_t N>
void linear_rects(const rect<N>& box, std::size_t d, index_t first, index_t last, std::vector<rect<N>>& out) {
  if (first >= last) return;
  index_t inner = 1;  // positions per index of dimension d
  for (std::size_t e = d + 1; e < N; ++e) inner *= box.dim(e).size();
  const index_t base = box.dim(d).first();
  const auto with = [&](index_t lo, index_t hi) {
    rect<N> r = box;
    r.set_dim(d, range(base + lo, base + hi));
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

/// The distribution: equal runs of row-major positions, in locale order.
template <std::size_t N>
class linear_slabs {
 public:
  /// Target grid P x 1 x ... x 1 (for readers of targets(); the cut is by position).
  linear_slabs() : grid_(shape()) {}
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return grid_; }
  /// The map's name, the same on every locale.
  std::string name() const { return "dmap::detail::linear_slabs"; }
  /// A global domain descriptor over `indices`.
  linear_slabs_domain<N> new_domain(const rect<N>& indices) const { return linear_slabs_domain<N>(*this, indices); }
  /// All of them place equal index sets alike.
  friend bool operator==(const linear_slabs&, const linear_slabs&) noexcept { return true; }

 private:
  static std::array<int, N> shape() {
    std::array<int, N> s{};
    s.fill(1);
    s[0] = num_locales();
    return s;
  }
  target_grid<N> grid_;
};

/// This locale's part of a linear_slabs domain: its rects, stored one after another.
template <std::size_t N>
class linear_slabs_local_domain {
 public:
  linear_slabs_local_domain() = default;
  /// The part made of `mine`, in row-major order.
  explicit linear_slabs_local_domain(std::vector<rect<N>> mine) : mine_(std::move(mine)) {
    index_t offset = 0;
    for (const auto& r : mine_) {
      layouts_.push_back(dense_layout<N>::make(r, offset));
      offset += r.size();
    }
    size_ = offset;
  }
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

/// The global descriptor: answers for any locale from the formula.
template <std::size_t N>
class linear_slabs_domain {
 public:
  /// The descriptor of `indices` (0-based, unit strides).
  linear_slabs_domain(const linear_slabs<N>& dist, const rect<N>& indices) : dist_(dist) { set_indices(indices); }
  /// The distribution.
  const linear_slabs<N>& distribution() const noexcept { return dist_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return dist_.targets(); }
  /// The whole index set.
  const rect<N>& indices() const noexcept { return whole_; }
  /// Replaces the index set.
  void set_indices(const rect<N>& indices) {
    whole_ = indices;
    local_ = linear_slabs_local_domain<N>(local_subdomains(here()));
  }
  /// The first position locale q owns (q = P: the size).
  index_t start(int q) const noexcept {
    const index_t n = whole_.size(), p = num_locales();
    return n / p * q + n % p * q / p;  // floor(n q / p) without overflow
  }
  /// The locale owning `i`.
  int locale_of(const idx<N>& i) const noexcept {
    const index_t pos = whole_.order_of(i);
    int lo = 0, hi = num_locales() - 1;  // the last q with start(q) <= pos
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (start(mid) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
  /// The rects locale `q` owns, in row-major order.
  std::vector<rect<N>> local_subdomains(int q) const {
    std::vector<rect<N>> out;
    if (!whole_.empty()) linear_rects<N>(whole_, 0, start(q), start(q + 1), out);
    return out;
  }
  /// How locale `q` stores them: one after another.
  std::vector<dense_layout<N>> local_layouts(int q) const {
    std::vector<dense_layout<N>> out;
    index_t offset = 0;
    for (const auto& r : local_subdomains(q)) {
      out.push_back(dense_layout<N>::make(r, offset));
      offset += r.size();
    }
    return out;
  }
  /// This locale's part.
  const linear_slabs_local_domain<N>& local() const noexcept { return local_; }

 private:
  linear_slabs<N> dist_;
  rect<N> whole_{};
  linear_slabs_local_domain<N> local_{};
};

/// Collective: a domain over the 0-based rect of `shape` placed by linear_slabs.
template <std::size_t N>
domain<N> linear_slabs_of(const std::array<index_t, N>& shape) {
  rect<N> r;
  for (std::size_t d = 0; d < N; ++d) r.set_dim(d, range(0, shape[d]));
  return domain<N>(linear_slabs<N>{}, r);
}

}  // namespace dmap::detail
