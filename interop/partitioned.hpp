// The __partitioned__ protocol (draft, issue 12): a distributed array as a grid of
// rectangular partitions (tiles), each with its start, shape and owners, and on its owners a
// pointer to its elements; as a C++ value (partitioned_export), as JSON text (to_json), and
// back: an array adopting a producer's partitions without copying (partitioned_import).
//
// Conventions (docs/guide/partitioned.md):
// - Positions are 0-based row-major orders per dimension (range::order_of): `start` and
//   `shape` count positions, whatever the domain's bounds and strides.
// - The tiling is the product grid of every distinct piece boundary per dimension, taken
//   from every locale's local_subdomains(q); a piece that is not contiguous in positions
//   (Cyclic) contributes one tile per position along that dimension.
// - `location` lists the MPI ranks (locales) holding the tile: one rank, or every rank with
//   a copy (Replicated, replicated dimensions). A rank stands for the draft's (IP, PID).
// - `data` is this locale's element at `start` when it holds the tile, null otherwise; the
//   tile's elements are at data + sum(p[d] * strides[d]) (strides in elements, a C++
//   addition the draft leaves to its nd-array type).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../dists/block.hpp"
#include "../dists/block_cyclic.hpp"
#include "../dists/irregular.hpp"
#include "../dsi/array.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"

namespace dmap {

/// A partition's key: its 0-based coordinates in the tile grid (`partition_tiling`).
template <std::size_t N>
using tile_position = std::array<index_t, N>;

/// One partition of a __partitioned__ description: a rectangular tile of positions.
template <class T, std::size_t N>
struct partition {
  std::array<index_t, N> start{};    ///< the tile's first position (0-based order per dimension)
  std::array<index_t, N> shape{};    ///< positions per dimension
  T* data = nullptr;                 ///< this locale's element at `start` when it holds the tile; null otherwise
  std::array<index_t, N> strides{};  ///< element strides of the tile from `data`, per dimension
  std::vector<int> location{};       ///< the locales (MPI ranks) holding the tile, ascending

  friend bool operator==(const partition&, const partition&) = default;
};

/// This locale's __partitioned__ description of an array: the global shape, the tile grid,
/// every tile keyed by its position (in row-major order of positions), and the positions of
/// the tiles this locale holds. Valid while the array lives and its domain keeps its indices.
template <class T, std::size_t N>
struct partitioned {
  std::array<index_t, N> shape{};                      ///< positions per dimension of the whole array
  std::array<index_t, N> partition_tiling{};           ///< tiles per dimension
  std::map<tile_position<N>, partition<T, N>> partitions{};  ///< every tile, by position
  std::vector<tile_position<N>> locals{};              ///< the positions of the tiles held here, ascending
  const array<T, N>* source = nullptr;                 ///< the array described (get reads it); null when built by hand

  /// The elements of the tile at `position`, in row-major order of its positions, wherever
  /// it lives: one message when another locale holds it. Not collective.
  std::vector<T> get(const tile_position<N>& position) const { return std::move(get(std::vector{position}).front()); }
  /// The elements of several tiles (each in row-major order): one message per other locale
  /// holding some of them. Not collective. Throws argument_error without a source array and
  /// out_of_bounds_error for a position that is not a tile's.
  std::vector<std::vector<T>> get(const std::vector<tile_position<N>>& positions) const;
};

namespace detail {

/// The parts written one after the other, as text.
template <class... Parts>
std::string partitioned_text(const Parts&... parts) {
  std::ostringstream s;
  (s << ... << parts);
  return s.str();
}

/// A tile position (or any index tuple) in Python tuple notation: "(1, 0)", "(3,)".
template <std::size_t N>
std::string tuple_text(const std::array<index_t, N>& t) {
  std::ostringstream s;
  s << '(';
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << t[d];
  s << (N == 1 ? ",)" : ")");
  return s.str();
}

/// Calls f(first, end) for each run of consecutive positions (0-based orders in `whole`)
/// that `piece` (a subset of `whole`) covers: one run when it steps through neighbouring
/// positions, one per position otherwise.
template <class F>
void for_each_position_run(const range& whole, const range& piece, F&& f) {
  const range dense = densify(whole, piece);
  if (dense.empty()) return;
  const index_t lo = std::min(dense.first(), dense.last()), hi = std::max(dense.first(), dense.last());
  if (dense.size() == 1 || abs_index(dense.stride()) == 1) {
    f(lo, hi + 1);
    return;
  }
  for (index_t j = 0; j < dense.size(); ++j) {
    const index_t p = dense.index_at(j);
    f(p, p + 1);
  }
}

/// The index of cut point `value` in the sorted `cuts` (precondition: it is one).
inline index_t cut_index(const std::vector<index_t>& cuts, index_t value) {
  return static_cast<index_t>(std::lower_bound(cuts.begin(), cuts.end(), value) - cuts.begin());
}

/// Calls f(tile numbers) for the row-major product of per-dimension lists.
template <std::size_t N, class F>
void for_each_product(const std::array<std::vector<index_t>, N>& lists, F&& f) {
  for (const auto& l : lists)
    if (l.empty()) return;
  std::array<std::size_t, N> k{};
  while (true) {
    tile_position<N> t{};
    for (std::size_t d = 0; d < N; ++d) t[d] = lists[d][k[d]];
    f(t);
    std::size_t d = N;
    while (d-- > 0) {
      if (++k[d] < lists[d].size()) break;
      k[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

/// The row-major number of tile `t` in a grid of `tiling`.
template <std::size_t N>
std::size_t tile_number(const tile_position<N>& t, const std::array<index_t, N>& tiling) {
  std::size_t n = 0;
  for (std::size_t d = 0; d < N; ++d) n = n * static_cast<std::size_t>(tiling[d]) + static_cast<std::size_t>(t[d]);
  return n;
}

/// The tile at row-major number `n` of a grid of `tiling`.
template <std::size_t N>
tile_position<N> tile_at(std::size_t n, const std::array<index_t, N>& tiling) {
  tile_position<N> t{};
  for (std::size_t d = N; d-- > 0;) {
    t[d] = static_cast<index_t>(n % static_cast<std::size_t>(tiling[d]));
    n /= static_cast<std::size_t>(tiling[d]);
  }
  return t;
}

}  // namespace detail

/// This locale's __partitioned__ description of `a` (not collective): the tiles are the
/// product grid of every locale's pieces (domain().local_subdomains(q)) cut at each
/// distinct piece boundary per dimension, so a block-cyclic map gives several tiles per
/// locale. Throws unsupported_error for maps known through a directory (Hashed,
/// Unstructured), whose pieces no formula gives, and argument_error for a moved-from array.
template <class T, std::size_t N>
partitioned<T, N> partitioned_export(const array<T, N>& a) {
  if (!detail::state_of(a.domain()))
    throw argument_error("dmap::partitioned_export: the array was moved from; it has no domain or elements to describe");
  const auto& dom = a.domain();
  if (detail::state_of(dom)->dir)
    throw unsupported_error("dmap::partitioned_export: " + dom.name() +
                            " places indices one by one through a directory; its pieces are not rectangular "
                            "tiles of a grid, which __partitioned__ needs");
  const rect<N>& whole = dom.indices();
  partitioned<T, N> out;
  out.source = &a;
  out.shape = whole.shape();
  const int locales = num_locales();
  std::vector<std::vector<rect<N>>> pieces(static_cast<std::size_t>(locales));
  for (int q = 0; q < locales; ++q) pieces[static_cast<std::size_t>(q)] = dom.local_subdomains(q);

  // The cut points per dimension: the ends of the dimension and of every run of every piece.
  std::array<std::vector<index_t>, N> cuts;
  for (std::size_t d = 0; d < N; ++d) {
    cuts[d] = {0, out.shape[d]};
    for (const auto& list : pieces)
      for (const auto& piece : list)
        detail::for_each_position_run(whole.dim(d), piece.dim(d), [&](index_t lo, index_t hi) {
          cuts[d].push_back(lo);
          cuts[d].push_back(hi);
        });
    std::sort(cuts[d].begin(), cuts[d].end());
    cuts[d].erase(std::unique(cuts[d].begin(), cuts[d].end()), cuts[d].end());
    out.partition_tiling[d] = static_cast<index_t>(cuts[d].size()) - 1;
  }
  std::size_t tiles = 1;
  for (std::size_t d = 0; d < N; ++d) tiles *= static_cast<std::size_t>(out.partition_tiling[d]);
  std::vector<partition<T, N>> grid(tiles);
  for (std::size_t n = 0; n < tiles; ++n) {
    const auto t = detail::tile_at<N>(n, out.partition_tiling);
    for (std::size_t d = 0; d < N; ++d) {
      grid[n].start[d] = cuts[d][static_cast<std::size_t>(t[d])];
      grid[n].shape[d] = cuts[d][static_cast<std::size_t>(t[d]) + 1] - grid[n].start[d];
    }
  }

  // Every piece of every locale covers whole tiles (its runs end at cut points).
  const auto& blocks = a.local_blocks();
  for (int q = 0; q < locales; ++q) {
    const auto& list = pieces[static_cast<std::size_t>(q)];
    for (std::size_t b = 0; b < list.size(); ++b) {
      std::array<std::vector<index_t>, N> covered;
      for (std::size_t d = 0; d < N; ++d)
        detail::for_each_position_run(whole.dim(d), list[b].dim(d), [&](index_t lo, index_t hi) {
          for (index_t k = detail::cut_index(cuts[d], lo); k < detail::cut_index(cuts[d], hi); ++k)
            covered[d].push_back(k);
        });
      detail::for_each_product<N>(covered, [&](const tile_position<N>& t) {
        partition<T, N>& tile = grid[detail::tile_number<N>(t, out.partition_tiling)];
        if (tile.location.empty() || tile.location.back() != q) tile.location.push_back(q);
        if (q != here()) return;
        const local_block<T, N>& block = blocks[b];
        idx<N> first;
        for (std::size_t d = 0; d < N; ++d) first[d] = whole.dim(d).index_at(tile.start[d]);
        const index_t at = block.layout.offset_of(first);
        tile.data = block.base + at;
        for (std::size_t d = 0; d < N; ++d) {
          tile.strides[d] = block.layout.strides[d];
          if (tile.shape[d] < 2) continue;
          idx<N> next = first;
          next[d] = whole.dim(d).index_at(tile.start[d] + 1);
          tile.strides[d] = block.layout.offset_of(next) - at;
        }
      });
    }
  }
  for (std::size_t n = 0; n < tiles; ++n) {
    const auto t = detail::tile_at<N>(n, out.partition_tiling);
    if (std::binary_search(grid[n].location.begin(), grid[n].location.end(), here())) out.locals.push_back(t);
    out.partitions.emplace(t, std::move(grid[n]));
  }
  return out;
}

template <class T, std::size_t N>
std::vector<std::vector<T>> partitioned<T, N>::get(const std::vector<tile_position<N>>& positions) const {
  if (source == nullptr)
    throw argument_error("dmap::partitioned::get: source is null; it must be the array described (a description "
                         "from partitioned_export), whose elements get reads");
  std::vector<index_t> orders;
  std::vector<std::vector<T>> out;
  out.reserve(positions.size());
  for (const auto& position : positions) {
    const auto found = partitions.find(position);
    if (found == partitions.end())
      throw out_of_bounds_error("dmap::partitioned::get: position " + detail::tuple_text<N>(position) +
                                " is not a partition's; it must lie in the tiling " +
                                detail::tuple_text<N>(partition_tiling));
    const partition<T, N>& tile = found->second;
    index_t count = 1;
    for (std::size_t d = 0; d < N; ++d) count *= tile.shape[d];
    out.emplace_back(static_cast<std::size_t>(count));
    if (count == 0) continue;
    // Row-major orders of the tile's positions in the whole array.
    std::array<index_t, N> p = tile.start;
    for (index_t k = 0; k < count; ++k) {
      index_t order = 0;
      for (std::size_t d = 0; d < N; ++d) order = order * shape[d] + p[d];
      orders.push_back(order);
      for (std::size_t d = N; d-- > 0;) {
        if (++p[d] < tile.start[d] + tile.shape[d]) break;
        p[d] = tile.start[d];
      }
    }
  }
  std::vector<T> all(orders.size());
  source->fetch(orders, all.data());
  std::size_t at = 0;
  for (auto& part : out) {
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(at),
              all.begin() + static_cast<std::ptrdiff_t>(at + part.size()), part.begin());
    at += part.size();
  }
  return out;
}

/// The description as JSON text, keys in the draft's order: shape, partition_tiling,
/// partitions (keyed by the position in Python tuple notation, "(0, 1)" or "(3,)", in
/// row-major order; each with start, shape, data, strides, location), locals. `data` is
/// the pointer as an unsigned integer, or null where this locale does not hold the tile;
/// `location` lists ranks. The get callable has no JSON form.
template <class T, std::size_t N>
std::string to_json(const partitioned<T, N>& p) {
  std::ostringstream s;
  const auto list = [&s](const auto& values) {
    s << '[';
    bool first = true;
    for (const auto& v : values) s << (first ? "" : ", ") << v, first = false;
    s << ']';
  };
  s << "{\"shape\": ";
  list(p.shape);
  s << ", \"partition_tiling\": ";
  list(p.partition_tiling);
  s << ", \"partitions\": {";
  bool first = true;
  for (const auto& [position, tile] : p.partitions) {
    s << (first ? "" : ", ") << '"' << detail::tuple_text<N>(position) << "\": {\"start\": ";
    first = false;
    list(tile.start);
    s << ", \"shape\": ";
    list(tile.shape);
    s << ", \"data\": ";
    if (tile.data == nullptr) s << "null";
    else s << reinterpret_cast<std::uintptr_t>(tile.data);
    s << ", \"strides\": ";
    list(tile.strides);
    s << ", \"location\": ";
    list(tile.location);
    s << '}';
  }
  s << "}, \"locals\": [";
  for (std::size_t k = 0; k < p.locals.size(); ++k) {
    s << (k ? ", " : "");
    list(p.locals[k]);
  }
  s << "]}";
  return s.str();
}

}  // namespace dmap
