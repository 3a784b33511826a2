// Block: the N-D block distribution. Along a dimension of n indices starting at lo,
// split over p locales, locale k owns [lo + ceil(n*k/p), lo + ceil(n*(k+1)/p)), so the
// owner of index i is floor((i - lo) * p / n) (Chapel's BlockDist cut).
//
// Chapel's six descriptors, side by side:
//   GlobalDistribution  block<N>               (target grid, optional bounding box)
//   GlobalDomain        block_domain<N>        (whole index set; answers for any locale)
//   LocalDomain         block_local_domain<N>  (this locale's rect and its layout)
//   GlobalArray / LocalArray: dmap::array<T, N> over dense storage from local_layouts.
//   LocalDistribution: no state needed; `block<N>::chunk` answers for any locale.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../dsi/concepts.hpp"
#include "../dsi/detail/domain_model.hpp"
#include "../dsi/rect.hpp"
#include "../dsi/layout.hpp"
#include "../layouts/dense_order_layout.hpp"
#include "../runtime/grid.hpp"
#include "../runtime/precompiled.hpp"

namespace dmap {

template <std::size_t N>
class block_domain;

/// The Block distribution: a target grid of locales, each owning one rectangular chunk of
/// a bounding box (the domain's own bounds unless one is given), stored compactly unless a
/// row padding is asked for (row_padding::automatic(): see row_padding). Compact is the
/// default because a locale's chunk is then one dense row- or column-major array that code
/// written for such arrays (foreign buffers, DAP and __partitioned__ imports of compact
/// buffers) shares without copying, and loops over Block arrays walk it as one span.
template <std::size_t N>
class block {
 public:
  /// Block over all locales, grid factorised like MPI_Dims_create, row-major storage.
  block() = default;
  /// Block over the given target grid, in `order`, rows padded as `padding` says.
  explicit block(const target_grid<N>& grid, storage_order order = storage_order::row_major,
                 const row_padding& padding = row_padding::none())
      : grid_(grid), order_(order), padding_(padding) {}
  /// Block of a fixed bounding box over the given grid: indices outside the box belong to
  /// the nearest edge locale, so domains over this map share one cut (Chapel's
  /// `boundingBox`).
  explicit block(const rect<N>& bounding_box, const target_grid<N>& grid = {},
                 storage_order order = storage_order::row_major, const row_padding& padding = row_padding::none());

  /// The target grid.
  const target_grid<N>& targets() const noexcept { return grid_; }
  /// The fixed bounding box, if one was given.
  const std::optional<rect<N>>& bounding_box() const noexcept { return box_; }
  /// How each locale stores its chunk.
  storage_order order() const noexcept { return order_; }
  /// How each locale's rows are padded.
  const row_padding& row_padding_policy() const noexcept { return padding_; }
  /// The local layout of each locale's chunk: whole, in order(), rows padded as the policy says.
  dense_order_layout<N> layout() const { return dense_order_layout<N>(order_, padding_); }
  /// "block(grid 2x2)", with ", row padding automatic" (or "<k> elements") when padded.
  std::string name() const;
  /// A global domain descriptor over `indices`.
  block_domain<N> new_domain(const rect<N>& indices) const { return block_domain<N>(*this, indices); }

  /// The cut interval [first, last) of part k of p over the bounds [lo, hi); the edge
  /// parts extend to the whole integer line.
  static std::pair<index_t, index_t> chunk(index_t lo, index_t hi, int p, int k) noexcept {
    return {k == 0 ? std::numeric_limits<index_t>::min() : cut(lo, hi, p, k),
            k == p - 1 ? std::numeric_limits<index_t>::max() : cut(lo, hi, p, k + 1)};
  }
  /// The indices of `whole` in part k of p of the bounds [lo, hi): chunk's interval kept
  /// within whole's bounds (an edge part's interval, the whole integer line on one side, is
  /// not a valid range).
  static range chunk_indices(const range& whole, index_t lo, index_t hi, int p, int k) {
    const auto [first, last] = chunk(lo, hi, p, k);
    return within(whole, first, last);
  }
  /// Calls f(k, chunk_indices(whole, lo, hi, p, k)) for k = k0 .. k1 in order, each cut
  /// computed once (plans that meet every part ask for all of them).
  template <class F>
  static void for_each_chunk_indices(const range& whole, index_t lo, index_t hi, int p, int k0, int k1, F&& f) {
    index_t first = k0 == 0 ? std::numeric_limits<index_t>::min() : cut(lo, hi, p, k0);
    for (int k = k0; k <= k1; ++k) {
      const index_t last = k == p - 1 ? std::numeric_limits<index_t>::max() : cut(lo, hi, p, k + 1);
      f(k, within(whole, first, last));
      first = last;
    }
  }
  /// The part (0 <= part < p) owning index i for the bounds [lo, hi).
  static int owner(index_t lo, index_t hi, int p, index_t i) noexcept {
    if (hi <= lo || i < lo) return 0;
    if (i >= hi) return p - 1;
    const detail::wide_int n = static_cast<detail::wide_int>(hi) - lo;
    // (i - lo) * p < n * p fits in 64 bits for every array that fits in memory: a 64-bit
    // division then (a 128-bit one is a library call, several times slower; aggregation asks
    // per contribution).
    if (n <= std::numeric_limits<index_t>::max() / p)
      return static_cast<int>(static_cast<index_t>(static_cast<std::uint64_t>(i) - static_cast<std::uint64_t>(lo)) * p /
                              static_cast<index_t>(n));
    return static_cast<int>((static_cast<detail::wide_int>(i) - lo) * p / n);
  }

  friend bool operator==(const block&, const block&) = default;

 private:
  // Boundary j (0 < j < p) between the parts of [lo, hi).
  static index_t cut(index_t lo, index_t hi, int p, int j) noexcept {
    const detail::wide_int n = hi > lo ? static_cast<detail::wide_int>(hi) - lo : 0;
    // n * j + p fits in 64 bits for every array that fits in memory (0 <= j <= p; other j, of
    // a k outside [0, p), keep 128 bits): a 64-bit division then
    // (a 128-bit one is a library call, several times slower, and plans ask per chunk).
    if (j >= 0 && j <= p && n <= (std::numeric_limits<index_t>::max() - p) / p)
      return static_cast<index_t>(lo + (static_cast<index_t>(n) * j + p - 1) / p);
    return static_cast<index_t>(lo + (n * j + p - 1) / p);
  }
  // The indices of `whole` in the interval [first, last), which may reach past int64's ends.
  static range within(const range& whole, index_t first, index_t last) {
    const index_t low = whole.lo(), high = std::max(whole.lo(), whole.hi());
    return whole.intersect(range(std::max(first, low), std::min(last, high)));
  }
  target_grid<N> grid_{};
  std::optional<rect<N>> box_{};
  storage_order order_ = storage_order::row_major;
  row_padding padding_ = row_padding::none();
};

template <std::size_t N>
block<N>::block(const rect<N>& bounding_box, const target_grid<N>& grid, storage_order order,
                const row_padding& padding)
    : grid_(grid), box_(bounding_box), order_(order), padding_(padding) {
  for (std::size_t d = 0; d < N; ++d) {
    if (bounding_box.dim(d).stride() != 1)
      throw argument_error("dmap::block: bounding_box dimension " + std::to_string(d) +
                           " has stride " + std::to_string(bounding_box.dim(d).stride()) +
                           "; a bounding box must have stride 1");
    if (bounding_box.dim(d).empty()) {
      std::ostringstream s;
      s << "dmap::block: bounding_box dimension " << d << " is empty (" << bounding_box.dim(d)
        << "); a bounding box must hold at least one index per dimension";
      throw argument_error(s.str());
    }
  }
}

template <std::size_t N>
std::string block<N>::name() const {
  std::ostringstream s;
  s << "block(grid " << grid_;
  if (box_) s << ", bounding box " << *box_;
  if (padding_ != row_padding::none()) s << ", row padding " << padding_;
  s << ")";
  return s.str();
}

/// This locale's part of a Block domain: at most one rect, stored densely.
template <std::size_t N>
class block_local_domain {
 public:
  block_local_domain() = default;
  /// The local domain owning `mine`, stored with `layout`.
  block_local_domain(const rect<N>& mine, const dense_layout<N>& layout) : mine_(mine), layout_(layout) {}

  /// The owned rect (none when this locale owns nothing).
  std::vector<rect<N>> subdomains() const;
  /// Its storage layout.
  std::vector<dense_layout<N>> layouts() const;
  /// The number of owned indices.
  index_t size() const noexcept { return mine_.size(); }
  /// True when this locale owns `i`.
  bool contains(const idx<N>& i) const noexcept { return mine_.contains(i); }

 private:
  rect<N> mine_{};
  dense_layout<N> layout_{};
};

template <std::size_t N>
std::vector<rect<N>> block_local_domain<N>::subdomains() const {
  return mine_.empty() ? std::vector<rect<N>>{} : std::vector<rect<N>>{mine_};
}

template <std::size_t N>
std::vector<dense_layout<N>> block_local_domain<N>::layouts() const {
  return mine_.empty() ? std::vector<dense_layout<N>>{} : std::vector<dense_layout<N>>{layout_};
}

/// The global descriptor of a domain distributed by Block.
template <std::size_t N>
class block_domain {
 public:
  /// The descriptor of the indices `indices` distributed by `dist`.
  /// Throws argument_error when the distribution's grid does not hold the program's locales.
  block_domain(const block<N>& dist, const rect<N>& indices);

  /// The distribution.
  const block<N>& distribution() const noexcept { return dist_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return dist_.targets(); }
  /// The whole index set.
  const rect<N>& indices() const noexcept { return whole_; }
  /// Replaces the index set and recomputes this locale's part.
  void set_indices(const rect<N>& indices);

  /// The locale owning index `i` (indices outside the bounds go to the nearest edge locale).
  int locale_of(const idx<N>& i) const noexcept {
    std::array<int, N> c{};
    for (std::size_t d = 0; d < N; ++d)
      c[d] = block<N>::owner(bounds_[d].first, bounds_[d].second, targets().extent(d), i[d]);
    return targets().locale_at(c);
  }
  /// The rects locale `locale` owns (none or one; none outside the target grid).
  std::vector<rect<N>> local_subdomains(int locale) const;
  /// The locales whose chunks may meet `r`: per dimension, the owners of r's bounds and
  /// every coordinate between them.
  std::vector<int> locales_meeting(const rect<N>& r) const;
  /// Every locale's rect meeting `r`, as (locale, rect) pairs by locale: locales_meeting and
  /// local_subdomains in one question, for plans that meet many locales.
  std::vector<std::pair<int, rect<N>>> subdomains_meeting(const rect<N>& r) const;
  /// Calls f(locale, rect) for each pair subdomains_meeting(r) lists, in its order, without
  /// listing them.
  void for_each_subdomain_meeting(const rect<N>& r, detail::function_ref<void(int, const rect<N>&)> f) const;
  /// How locale `locale` stores its rect.
  std::vector<dense_layout<N>> local_layouts(int locale) const;
  /// This locale's local domain descriptor.
  const block_local_domain<N>& local() const noexcept { return local_; }
  /// Every dimension is a block cut (the DSI's optional `dimension_kinds()`).
  std::array<dimension_kind, N> dimension_kinds() const noexcept {
    std::array<dimension_kind, N> out;
    out.fill(dimension_kind::block());
    return out;
  }
  /// The indices of dimension d owned by the locales at grid coordinate k along d.
  range chunk_range(std::size_t d, int k) const;

 private:
  rect<N> chunk_of(int locale) const;
  // The first and last grid coordinates along d whose chunks lie between r's bounds there
  // (nothing when r misses the domain along d).
  std::optional<std::pair<int, int>> coordinates_meeting(std::size_t d, const range& r) const;
  // Per dimension, the (coordinate, chunk) pairs meeting r's bounds there (none when r
  // misses the domain).
  std::optional<std::array<std::vector<std::pair<int, range>>, N>> chunks_meeting(const rect<N>& r) const;
  dense_layout<N> layout_of(const rect<N>& mine) const {
    return dist_.layout().of(mine);
  }
  static int here_or_zero() { return detail::current_environment ? here() : 0; }

  block<N> dist_;
  rect<N> whole_{};
  std::array<std::pair<index_t, index_t>, N> bounds_{};
  block_local_domain<N> local_{};
};

template <std::size_t N>
block_domain<N>::block_domain(const block<N>& dist, const rect<N>& indices) : dist_(dist) {
  detail::check_grid_matches_locales(dist.targets(), "dmap::block");
  set_indices(indices);
}

template <std::size_t N>
void block_domain<N>::set_indices(const rect<N>& indices) {
  const rect<N> previous_whole = whole_;
  const auto previous_bounds = bounds_;
  whole_ = indices;
  for (std::size_t d = 0; d < N; ++d) {
    const range& r = dist_.bounding_box() ? dist_.bounding_box()->dim(d) : indices.dim(d).normalized();
    bounds_[d] = {r.lo(), std::max(r.lo(), r.hi())};
  }
  try {  // a fixed row padding may make the layout too large: the domain stays as it was
    const int me = here_or_zero();
    local_ = targets().holds(me) ? block_local_domain<N>(chunk_of(me), layout_of(chunk_of(me)))
                                 : block_local_domain<N>{};
  } catch (...) {
    whole_ = previous_whole;
    bounds_ = previous_bounds;
    throw;
  }
}

template <std::size_t N>
std::vector<rect<N>> block_domain<N>::local_subdomains(int locale) const {
  if (!targets().holds(locale)) return {};
  const rect<N> mine = chunk_of(locale);
  return mine.empty() ? std::vector<rect<N>>{} : std::vector<rect<N>>{mine};
}

template <std::size_t N>
std::optional<std::pair<int, int>> block_domain<N>::coordinates_meeting(std::size_t d, const range& r) const {
  const range within = whole_.dim(d).intersect(r);
  if (within.empty()) return std::nullopt;
  const index_t lo = within.lo(), hi = std::max(within.lo(), within.hi() - 1);
  const int p = targets().extent(d);
  return std::pair{block<N>::owner(bounds_[d].first, bounds_[d].second, p, lo),
                   block<N>::owner(bounds_[d].first, bounds_[d].second, p, hi)};
}

template <std::size_t N>
std::vector<int> block_domain<N>::locales_meeting(const rect<N>& r) const {
  std::array<std::vector<int>, N> coords;
  for (std::size_t d = 0; d < N; ++d) {
    const auto between = coordinates_meeting(d, r.dim(d));
    if (!between) return {};
    for (int k = between->first; k <= between->second; ++k) coords[d].push_back(k);
  }
  return detail::locales_of_product(targets(), coords);
}

template <std::size_t N>
auto block_domain<N>::chunks_meeting(const rect<N>& r) const
    -> std::optional<std::array<std::vector<std::pair<int, range>>, N>> {
  std::array<std::vector<std::pair<int, range>>, N> chunks;
  for (std::size_t d = 0; d < N; ++d) {
    const auto between = coordinates_meeting(d, r.dim(d));
    if (!between) return std::nullopt;
    block<N>::for_each_chunk_indices(whole_.dim(d), bounds_[d].first, bounds_[d].second, targets().extent(d),
                                     between->first, between->second, [&](int k, const range& c) {
                                       if (!c.empty()) chunks[d].emplace_back(k, c);
                                     });
  }
  return chunks;
}

template <std::size_t N>
std::vector<std::pair<int, rect<N>>> block_domain<N>::subdomains_meeting(const rect<N>& r) const {
  const auto chunks = chunks_meeting(r);
  return chunks ? detail::rects_of_product(targets(), *chunks) : std::vector<std::pair<int, rect<N>>>{};
}

template <std::size_t N>
void block_domain<N>::for_each_subdomain_meeting(const rect<N>& r,
                                                 detail::function_ref<void(int, const rect<N>&)> f) const {
  // When every dimension before the last meets one coordinate (always in 1-D; a row of
  // blocks), the chunks along the last come straight from its cuts, in locale order (a
  // contiguous grid, or one chunk): no lists.
  std::array<int, N> c{};
  rect<N> chunk;
  bool one_row = true;
  for (std::size_t d = 0; d + 1 < N && one_row; ++d) {
    const auto between = coordinates_meeting(d, r.dim(d));
    if (!between) return;
    one_row = between->first == between->second;
    c[d] = between->first;
    if (one_row) {
      chunk.set_dim(d, chunk_range(d, c[d]));
      if (chunk.dim(d).empty()) return;
    }
  }
  if (one_row) {
    constexpr std::size_t last = N - 1;
    const auto between = coordinates_meeting(last, r.dim(last));
    if (!between) return;
    if (between->first == between->second || targets().contiguous()) {
      block<N>::for_each_chunk_indices(whole_.dim(last), bounds_[last].first, bounds_[last].second,
                                       targets().extent(last), between->first, between->second,
                                       [&](int k, const range& piece) {
                                         if (piece.empty()) return;
                                         c[last] = k;
                                         chunk.set_dim(last, piece);
                                         f(targets().locale_at(c), chunk);
                                       });
      return;
    }
  }
  if (const auto chunks = chunks_meeting(r)) detail::for_each_rect_of_product(targets(), *chunks, f);
}

template <std::size_t N>
std::vector<dense_layout<N>> block_domain<N>::local_layouts(int locale) const {
  if (!targets().holds(locale)) return {};
  const rect<N> mine = chunk_of(locale);
  if (mine.empty()) return {};
  return {layout_of(mine)};
}

template <std::size_t N>
range block_domain<N>::chunk_range(std::size_t d, int k) const {
  return block<N>::chunk_indices(whole_.dim(d), bounds_[d].first, bounds_[d].second, targets().extent(d), k);
}

template <std::size_t N>
rect<N> block_domain<N>::chunk_of(int locale) const {
  const auto c = targets().coords_of(locale);
  rect<N> mine = whole_;
  for (std::size_t d = 0; d < N; ++d)
    mine.set_dim(d, block<N>::chunk_indices(whole_.dim(d), bounds_[d].first, bounds_[d].second,
                                            targets().extent(d), c[d]));
  return mine;
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_BLOCK_INSTANCES(N, how)                                                           \
  how class block<N>;                                                                          \
  how class block_local_domain<N>;                                                             \
  how class block_domain<N>;                                                                   \
  how class detail::domain_model<N, block<N>, block_domain<N>>;
DMAP_DECLARE_PRECOMPILED(DMAP_BLOCK_INSTANCES)

}  // namespace dmap
