// The machinery behind partitioned.hpp (not part of the API): describing an array as tiles,
// the JSON of a description, the checks of a description to import, and the choice of the map
// an import builds.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../dists/block.hpp"
#include "../../dists/block_cyclic.hpp"
#include "../../dists/irregular.hpp"
#include "../../dsi/array.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../dap.hpp"
#include "../process_locations.hpp"

namespace dmap {

template <class T, std::size_t N>
struct partition;
template <class T, std::size_t N>
struct partitioned;

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
    std::array<index_t, N> t{};
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
std::size_t tile_number(const std::array<index_t, N>& t, const std::array<index_t, N>& tiling) {
  std::size_t n = 0;
  for (std::size_t d = 0; d < N; ++d) n = n * static_cast<std::size_t>(tiling[d]) + static_cast<std::size_t>(t[d]);
  return n;
}

/// The tile at row-major number `n` of a grid of `tiling`.
template <std::size_t N>
std::array<index_t, N> tile_at(std::size_t n, const std::array<index_t, N>& tiling) {
  std::array<index_t, N> t{};
  for (std::size_t d = N; d-- > 0;) {
    t[d] = static_cast<index_t>(n % static_cast<std::size_t>(tiling[d]));
    n /= static_cast<std::size_t>(tiling[d]);
  }
  return t;
}

/// The __partitioned__ description of `a` (both partitioned_export overloads; E is T or const T).
template <class E, class T, std::size_t N>
partitioned<E, N> partitioned_describe(const array<T, N>& a) {
  if (!detail::state_of(a.domain()))
    throw argument_error("dmap::partitioned_export: the array was moved from; it has no domain or elements to describe");
  const auto& dom = a.domain();
  if (detail::state_of(dom)->dir)
    throw unsupported_error("dmap::partitioned_export: " + dom.name() +
                            " places indices one by one through a directory; its pieces are not rectangular "
                            "tiles of a grid, which __partitioned__ needs");
  const rect<N>& whole = dom.indices();
  partitioned<E, N> out;
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
  std::vector<partition<E, N>> grid(tiles);
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
      detail::for_each_product<N>(covered, [&](const std::array<index_t, N>& t) {
        partition<E, N>& tile = grid[detail::tile_number<N>(t, out.partition_tiling)];
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

/// The JSON text of `p`; `location(q)` writes locale q's entry of a `location` list.
template <class T, std::size_t N, class Location>
std::string partitioned_json(const partitioned<T, N>& p, Location&& location) {
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
    s << ", \"location\": [";
    for (std::size_t k = 0; k < tile.location.size(); ++k) s << (k ? ", " : "") << location(tile.location[k]);
    s << "]}";
  }
  s << "}, \"locals\": [";
  for (std::size_t k = 0; k < p.locals.size(); ++k) {
    s << (k ? ", " : "");
    list(p.locals[k]);
  }
  s << "]}";
  return s.str();
}

/// Throws argument_error "dmap::partitioned_import: <field> is <value>; it must be <rule>".
[[noreturn]] inline void reject_partitioned(const std::string& field, const std::string& value, const std::string& rule) {
  throw argument_error("dmap::partitioned_import: " + field + " is " + value + "; it must be " + rule);
}

/// The field name of a tile's entry: "partitions[(1, 0)]".
template <std::size_t N>
std::string tile_field(const std::array<index_t, N>& t) {
  return "partitions[" + tuple_text<N>(t) + "]";
}

/// A list of integers in brackets: "[0, 2]".
template <class Values>
std::string list_text(const Values& values) {
  std::ostringstream s;
  s << '[';
  bool first = true;
  for (const auto& v : values) s << (first ? "" : ", ") << v, first = false;
  s << ']';
  return s.str();
}

/// The checks of a description one locale can make alone (argument_error or
/// unsupported_error naming the field and the rule); returns the cut points per dimension
/// (tiling[d] + 1 of them, from 0 to shape[d]).
template <class T, std::size_t N>
std::array<std::vector<index_t>, N> check_partitioned(const partitioned<T, N>& x) {
  wide_int tiles = 1;  // saturated at 2^63 - 1 after each dimension: never overflows
  for (std::size_t d = 0; d < N; ++d) {
    std::string at(1, '[');  // appended: see below
    at.append(std::to_string(d)).push_back(']');
    if (x.shape[d] < 0) reject_partitioned("shape" + at, std::to_string(x.shape[d]), ">= 0");
    if (x.partition_tiling[d] < 0 || (x.partition_tiling[d] == 0) != (x.shape[d] == 0) ||
        x.partition_tiling[d] > x.shape[d])
      reject_partitioned("partition_tiling" + at, std::to_string(x.partition_tiling[d]),
                         partitioned_text("in [1, shape", at, "] = [1, ", x.shape[d],
                                          "] (0 only for an empty dimension): every tile holds positions"));
    tiles = std::min<wide_int>(tiles * x.partition_tiling[d], std::numeric_limits<index_t>::max());
  }
  for (const auto& [t, tile] : x.partitions)
    for (std::size_t d = 0; d < N; ++d)
      if (t[d] < 0 || t[d] >= x.partition_tiling[d])
        reject_partitioned("the key " + tuple_text<N>(t) + " of partitions", "outside partition_tiling " +
                           tuple_text<N>(x.partition_tiling), "a position in the tile grid");
  if (static_cast<wide_int>(x.partitions.size()) != tiles)
    reject_partitioned("partitions", partitioned_text(x.partitions.size(), " entries"),
                       partitioned_text("one entry per tile of partition_tiling ", tuple_text<N>(x.partition_tiling),
                                        ": ", static_cast<index_t>(tiles), " (no tile missing)"));
  // The cut points, from the tiles along each edge of the grid (none without tiles).
  std::array<std::vector<index_t>, N> cuts;
  for (std::size_t d = 0; d < N && tiles == 0; ++d) cuts[d] = {0};
  for (std::size_t d = 0; d < N && tiles > 0; ++d) {
    cuts[d] = {0};
    for (index_t k = 0; k < x.partition_tiling[d]; ++k) {
      std::array<index_t, N> t{};
      t[d] = k;
      const partition<T, N>& edge = x.partitions.at(t);
      // Appended, not "[" + std::string: g++ 12 warns falsely (-Wrestrict) on that form here.
      std::string at(1, '[');
      at.append(std::to_string(d)).push_back(']');
      if (edge.start[d] != cuts[d].back())
        reject_partitioned(tile_field<N>(t) + ".start" + at, std::to_string(edge.start[d]),
                           partitioned_text(cuts[d].back(), k == 0 ? " (the first tile starts at 0)"
                                                                   : " (where the previous tile along dimension " +
                                                                         std::to_string(d) + " ends: tiles neither overlap nor leave gaps)"));
      if (edge.shape[d] < 1 || edge.shape[d] > x.shape[d] - edge.start[d])
        reject_partitioned(tile_field<N>(t) + ".shape" + at, std::to_string(edge.shape[d]),
                           partitioned_text("in [1, shape", at, " - start", at, "] = [1, ", x.shape[d] - edge.start[d],
                                            "]: the tile lies inside the array"));
      cuts[d].push_back(edge.start[d] + edge.shape[d]);
    }
    if (x.partition_tiling[d] > 0 && cuts[d].back() != x.shape[d]) {
      std::array<index_t, N> last{};
      last[d] = x.partition_tiling[d] - 1;
      reject_partitioned(tile_field<N>(last) + ".shape[" + std::to_string(d) + "]",
                         std::to_string(x.partitions.at(last).shape[d]),
                         partitioned_text(x.shape[d] - x.partitions.at(last).start[d], " (the last tile along dimension ", d,
                                          " ends at shape[", d, "] = ", x.shape[d], ": the tiles cover the array)"));
    }
  }
  std::vector<std::array<index_t, N>> mine;
  for (const auto& [t, tile] : x.partitions) {
    for (std::size_t d = 0; d < N; ++d) {
      const index_t k = t[d];
      // Appended, not "[" + std::string: g++ 12 warns falsely (-Wrestrict) on that form here.
      std::string at(1, '[');
      at.append(std::to_string(d)).push_back(']');
      const auto j = static_cast<std::size_t>(k);
      if (tile.start[d] != cuts[d][j])
        reject_partitioned(tile_field<N>(t) + ".start" + at, std::to_string(tile.start[d]),
                           partitioned_text(cuts[d][j], " (as every tile at grid coordinate ", k, " along dimension ", d,
                                            ": the tiles form a grid, without overlaps or gaps)"));
      if (tile.shape[d] != cuts[d][j + 1] - cuts[d][j])
        reject_partitioned(tile_field<N>(t) + ".shape" + at, std::to_string(tile.shape[d]),
                           partitioned_text(cuts[d][j + 1] - cuts[d][j], " (as every tile at grid coordinate ", k,
                                            " along dimension ", d, ": the tiles form a grid)"));
    }
    if (tile.location.empty())
      reject_partitioned(tile_field<N>(t) + ".location", "empty", "the locale holding the tile");
    for (std::size_t k = 0; k < tile.location.size(); ++k)
      if (tile.location[k] < 0 || tile.location[k] >= num_locales())
        reject_partitioned(tile_field<N>(t) + ".location[" + std::to_string(k) + "]", std::to_string(tile.location[k]),
                           partitioned_text("a locale in [0, ", num_locales(), ")"));
    if (tile.location.size() > 1)
      throw unsupported_error("dmap::partitioned_import: " + tile_field<N>(t) + ".location lists " +
                              std::to_string(tile.location.size()) + " locales " + list_text(tile.location) +
                              "; dmap imports tiles held by one locale each, not copies");
    if (tile.location.front() != here()) continue;
    mine.push_back(t);
    if (tile.data == nullptr)
      reject_partitioned(tile_field<N>(t) + ".data", "null on its location (locale " + std::to_string(here()) + ")",
                         "a pointer to the tile's elements there");
  }
  if (x.locals != mine) {
    std::string have, want;
    for (const auto& t : x.locals) have += (have.empty() ? "" : ", ") + tuple_text<N>(t);
    for (const auto& t : mine) want += (want.empty() ? "" : ", ") + tuple_text<N>(t);
    reject_partitioned("locals", "[" + have + "] on locale " + std::to_string(here()),
                       "[" + want + "]: the positions of the partitions whose location is this locale, ascending");
  }
  return cuts;
}

/// A 64-bit fingerprint of what every locale's description must share: shape, tiling and
/// each tile's start, shape and location (not data or locals, which are per locale).
template <class T, std::size_t N>
std::uint64_t partitioned_fingerprint(const partitioned<T, N>& x) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&](auto v) {
    const auto u = static_cast<std::uint64_t>(v);
    for (int b = 0; b < 8; ++b) h = (h ^ ((u >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  for (std::size_t d = 0; d < N; ++d) mix(x.shape[d]), mix(x.partition_tiling[d]);
  mix(x.partitions.size());
  for (const auto& [t, tile] : x.partitions) {
    for (std::size_t d = 0; d < N; ++d) mix(t[d]), mix(tile.start[d]), mix(tile.shape[d]);
    mix(tile.location.size());
    for (const int q : tile.location) mix(q);
  }
  return h;
}

/// A map an import may use: its name, its descriptor's pieces and layouts per locale, and
/// how to make the domain (collective).
template <std::size_t N>
struct import_candidate {
  std::string name;                                          ///< the map's name
  std::function<std::vector<rect<N>>(int)> subdomains;       ///< the pieces of a locale
  std::function<std::vector<dense_layout<N>>(int)> layouts;  ///< their storage
  std::function<domain<N>()> make;                           ///< collective: the domain
};

/// The candidate of `dist` over `indices` (its descriptor built here, not collectively).
template <std::size_t N, class Dist>
import_candidate<N> candidate_of(const Dist& dist, const rect<N>& indices) {
  auto desc = std::make_shared<const decltype(dist.new_domain(indices))>(dist.new_domain(indices));
  std::string name = dist.name();
  if (dist.order() == storage_order::column_major && name.find("column-major") == std::string::npos)
    name += " (column-major)";
  return {name, [desc](int q) { return desc->local_subdomains(q); },
          [desc](int q) { return desc->local_layouts(q); }, [dist, indices] { return domain<N>(dist, indices); }};
}

/// Every C-order grid shape of `locales` locales over N dimensions.
template <std::size_t N>
std::vector<std::array<int, N>> grid_shapes(int locales) {
  std::vector<std::array<int, N>> out;
  std::array<int, N> shape{};
  const auto place = [&](auto&& self, std::size_t d, int left) -> void {
    if (d + 1 == N) {
      shape[d] = left;
      out.push_back(shape);
      return;
    }
    for (int f = 1; f <= left; ++f)
      if (left % f == 0) shape[d] = f, self(self, d + 1, left / f);
  };
  place(place, 0, locales);
  return out;
}

/// True when every piece `c` gives every locale covers whole tiles (its runs end at cut
/// points) owned by that locale, as the description says.
template <std::size_t N>
bool expresses(const import_candidate<N>& c, const rect<N>& whole, const std::array<std::vector<index_t>, N>& cuts,
               const std::array<index_t, N>& tiling, const std::vector<int>& owners) {
  for (int q = 0; q < num_locales(); ++q)
    for (const rect<N>& piece : c.subdomains(q)) {
      if (piece.empty()) continue;
      std::array<std::vector<index_t>, N> covered;
      bool aligned = true;
      for (std::size_t d = 0; d < N; ++d)
        for_each_position_run(whole.dim(d), piece.dim(d), [&](index_t lo, index_t hi) {
          const index_t a = cut_index(cuts[d], lo), b = cut_index(cuts[d], hi);
          if (a >= static_cast<index_t>(cuts[d].size()) || cuts[d][static_cast<std::size_t>(a)] != lo ||
              b >= static_cast<index_t>(cuts[d].size()) || cuts[d][static_cast<std::size_t>(b)] != hi) {
            aligned = false;
            return;
          }
          for (index_t k = a; k < b; ++k) covered[d].push_back(k);
        });
      if (!aligned) return false;
      bool owned = true;
      for_each_product<N>(covered, [&](const std::array<index_t, N>& t) {
        owned = owned && owners[tile_number<N>(t, tiling)] == q;
      });
      if (!owned) return false;
    }
  return true;
}

/// This locale's buffer for `c`'s local storage when every local tile sits where that
/// storage puts it (the same base address, offsets and strides); otherwise why not.
template <class T, std::size_t N>
std::pair<std::optional<foreign_buffer<T, N>>, std::string> fit_of(const import_candidate<N>& c,
                                                                    const partitioned<T, N>& x) {
  const auto pieces = c.subdomains(here());
  const auto layouts = c.layouts(here());
  foreign_buffer<T, N> buffer;
  if (layouts.empty()) return {buffer, ""};
  buffer.strides = layouts.front().strides;
  for (const auto& l : layouts) buffer.size = std::max(buffer.size, l.end());
  std::optional<std::uintptr_t> base;
  for (const auto& t : x.locals) {
    const partition<T, N>& tile = x.partitions.at(t);
    const idx<N> first(tile.start);
    std::size_t b = 0;
    while (b < pieces.size() && !pieces[b].contains(first)) ++b;
    if (b == pieces.size()) return {std::nullopt, "no piece holds " + tile_field<N>(t)};
    const auto address = reinterpret_cast<std::uintptr_t>(tile.data);
    const auto offset = static_cast<std::uintptr_t>(layouts[b].offset_of(first)) * sizeof(T);
    if (!base) base = address - offset;
    if (address != *base + offset)
      return {std::nullopt, partitioned_text(tile_field<N>(t), ".data is ", address, "; ", c.name,
                                             " keeps the tile at element ", layouts[b].offset_of(first),
                                             " of one local buffer, address ", *base + offset)};
    for (std::size_t d = 0; d < N; ++d)
      if (tile.shape[d] > 1 && tile.strides[d] != layouts[b].strides[d])
        return {std::nullopt, partitioned_text(tile_field<N>(t), ".strides[", d, "] is ", tile.strides[d], "; ", c.name,
                                               " steps ", layouts[b].strides[d], " elements along dimension ", d)};
  }
  if (base) buffer.data = reinterpret_cast<T*>(*base);  // no local tile: nothing stored here
  return {buffer, ""};
}

}  // namespace detail

}  // namespace dmap
