// The __partitioned__ protocol (draft): a distributed array as a grid of
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
// - Import builds a domain over the positions [0, shape) with Block, Irregular Block or
//   Block Cyclic (whichever expresses the tiling) and adopts the local partitions in place
//   (dsi/foreign_buffer.hpp); it takes one location per tile (no copies).
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

#include "../dists/block.hpp"
#include "../dists/block_cyclic.hpp"
#include "../dists/irregular.hpp"
#include "../dsi/array.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "dap.hpp"
#include "detail/partitioned.hpp"
#include "process_locations.hpp"

namespace dmap {

/// A partition's key: its 0-based coordinates in the tile grid (`partition_tiling`).
template <std::size_t N>
using tile_position = std::array<index_t, N>;

/// One partition of a __partitioned__ description: a rectangular tile of positions (`T`
/// const: a read-only description, from partitioned_export of a const array).
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
/// `T` is const in a read-only description (partitioned_export of a const array), which
/// partitioned_import does not take.
template <class T, std::size_t N>
struct partitioned {
  /// The element type without const (what get returns).
  using value_type = std::remove_const_t<T>;
  std::array<index_t, N> shape{};                      ///< positions per dimension of the whole array
  std::array<index_t, N> partition_tiling{};           ///< tiles per dimension
  std::map<tile_position<N>, partition<T, N>> partitions{};  ///< every tile, by position
  std::vector<tile_position<N>> locals{};              ///< the positions of the tiles held here, ascending
  const array<value_type, N>* source = nullptr;        ///< the array described (get reads it); null when built by hand

  /// The elements of the tile at `position`, in row-major order of its positions, wherever
  /// it lives: one message when another locale holds it. Not collective.
  std::vector<value_type> get(const tile_position<N>& position) const {
    return std::move(get(std::vector{position}).front());
  }
  /// The elements of several tiles (each in row-major order): one message per other locale
  /// holding some of them. Not collective. Throws argument_error without a source array and
  /// out_of_bounds_error for a position that is not a tile's.
  std::vector<std::vector<value_type>> get(const std::vector<tile_position<N>>& positions) const;
};

/// This locale's __partitioned__ description of `a`, read-only (a const array: every `data`
/// is a `const T*`; the overload for a non-const array hands out writable ones). Not
/// collective. The tiles are the product grid of every locale's pieces
/// (domain().local_subdomains(q)) cut at each distinct piece boundary per dimension, so a
/// block-cyclic map gives several tiles per locale. Throws unsupported_error for maps known
/// through a directory (Hashed, Unstructured), whose pieces no formula gives, and
/// argument_error for a moved-from array.
template <class T, std::size_t N>
partitioned<const T, N> partitioned_export(const array<T, N>& a) {
  return detail::partitioned_describe<const T>(a);
}

/// This locale's __partitioned__ description of `a` with writable tiles (`data` is a `T*`:
/// writes through it are writes to the array); otherwise as the read-only overload for a
/// const array. Not collective.
template <class T, std::size_t N>
partitioned<T, N> partitioned_export(array<T, N>& a) {
  return detail::partitioned_describe<T>(a);
}

template <class T, std::size_t N>
std::vector<std::vector<typename partitioned<T, N>::value_type>> partitioned<T, N>::get(
    const std::vector<tile_position<N>>& positions) const {
  if (source == nullptr)
    throw argument_error("dmap::partitioned::get: source is null; it must be the array described (a description "
                         "from partitioned_export), whose elements get reads");
  std::vector<index_t> orders;
  std::vector<std::vector<value_type>> out;
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
  std::vector<value_type> all(orders.size());
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
  return detail::partitioned_json(p, [](int q) { return std::to_string(q); });
}

/// The description as JSON text with the draft's locations: each `location` entry is
/// [IP, PID], the address and process id of the locale's process in `locations`
/// (process_locations(), collective, gives them; process_location::address() says which
/// address). Otherwise as to_json(p). Throws argument_error when a location names a locale
/// outside `locations`.
template <class T, std::size_t N>
std::string to_json(const partitioned<T, N>& p, const std::vector<process_location>& locations) {
  return detail::partitioned_json(p, [&](int q) {
    if (q < 0 || static_cast<std::size_t>(q) >= locations.size())
      throw argument_error("dmap::to_json: a partition's location is locale " + std::to_string(q) + "; it must be in [0, " +
                           std::to_string(locations.size()) + "), the locales `locations` describes");
    const process_location& l = locations[static_cast<std::size_t>(q)];
    return "[" + detail::json_string(l.address()) + ", " + std::to_string(l.pid) + "]";
  });
}

/// Collective: an array over the positions [0, shape) (one range per dimension) whose
/// elements are the partitions `x` describes, adopted without copying. The map expresses
/// the tiling: Block (one tile per locale, on a C-order grid of locales, cut as Block cuts),
/// Irregular Block (one tile per locale on a C-order grid, other cuts) or Block Cyclic
/// (equal tiles dealt round a C-order grid), row- or column-major, compact (or Block with rows
/// padded as row_padding::automatic() pads them, tried last). Every locale passes the
/// same shape, tiling, starts, shapes and locations, and its own data and locals. Throws on
/// every locale: argument_error naming the field and the rule when the description is
/// inconsistent (tiles overlapping or missing, a shape mismatch, locations out of range,
/// locals or data not matching the locations, descriptions differing across locales);
/// unsupported_error when tiles have several locations (copies), when no map expresses the
/// tiling, or when the local partitions do not sit where that map's one local buffer keeps
/// them (several tiles of one locale in separate buffers, for instance).
template <class T, std::size_t N>
array<T, N> partitioned_import(const partitioned<T, N>& x) {
  static_assert(!std::is_const_v<T>,
                "dmap::partitioned_import adopts writable partitions: a partitioned<const T, N> "
                "(partitioned_export of a const array) is read-only; import a description of non-const T");
  const auto cuts = agreed([&] { return detail::check_partitioned(x); });
  const auto prints = all_gather(detail::partitioned_fingerprint(x));
  for (std::size_t q = 1; q < prints.size(); ++q)
    if (prints[q] != prints[0])
      detail::reject_partitioned("the description on locale " + std::to_string(q), "different from locale 0's",
                                 "the same on every locale (shape, partition_tiling, and every partition's start, "
                                 "shape and location; only data and locals differ)");
  rect<N> whole;
  for (std::size_t d = 0; d < N; ++d) whole.set_dim(d, range(0, x.shape[d]));
  std::vector<int> owners;
  for (const auto& entry : x.partitions) owners.push_back(entry.second.location.front());

  std::vector<detail::import_candidate<N>> candidates;
  const int p = num_locales();
  for (const storage_order order : {storage_order::row_major, storage_order::column_major}) {
    for (const auto& shape : detail::grid_shapes<N>(p))
      candidates.push_back(detail::candidate_of<N>(block<N>(target_grid<N>(shape), order), whole));
    std::array<int, N> one_per_locale{};
    std::size_t tiles = 1;
    for (std::size_t d = 0; d < N; ++d) one_per_locale[d] = static_cast<int>(x.partition_tiling[d]), tiles *= cuts[d].size() - 1;
    if (tiles == static_cast<std::size_t>(p)) {
      std::array<std::vector<index_t>, N> inner;
      for (std::size_t d = 0; d < N; ++d) inner[d].assign(cuts[d].begin() + 1, cuts[d].end() - 1);
      candidates.push_back(detail::candidate_of<N>(irregular_block<N>(inner, target_grid<N>(one_per_locale), order), whole));
    }
    if (tiles > 0) {
      idx<N> block_size;
      for (std::size_t d = 0; d < N; ++d) block_size[d] = cuts[d][1];
      for (const auto& shape : detail::grid_shapes<N>(p))
        candidates.push_back(detail::candidate_of<N>(block_cyclic<N>(block_size, target_grid<N>(shape), order), whole));
    }
  }
  if constexpr (N >= 2)  // Block with padded rows, as a Block array with row_padding::automatic() exports
    for (const storage_order order : {storage_order::row_major, storage_order::column_major})
      for (const auto& shape : detail::grid_shapes<N>(p))
        candidates.push_back(
            detail::candidate_of<N>(block<N>(target_grid<N>(shape), order, row_padding::automatic()), whole));
  std::vector<const detail::import_candidate<N>*> expressing;
  for (const auto& c : candidates)
    if (detail::expresses<N>(c, whole, cuts, x.partition_tiling, owners)) expressing.push_back(&c);
  if (expressing.empty())
    throw unsupported_error(
        "dmap::partitioned_import: no dmap map expresses the tiling " + detail::tuple_text<N>(x.partition_tiling) +
        " with these locations: it is neither one tile per locale on a C-order grid (Block, Irregular Block) nor "
        "equal tiles dealt round a C-order grid (Block Cyclic)");
  for (const auto* c : expressing) {
    const auto fit = detail::fit_of<T, N>(*c, x);
    if (!all_of_locales(fit.first.has_value())) continue;
    return array<T, N>(c->make(), *fit.first);
  }
  agreed([&] {
    const auto fit = detail::fit_of<T, N>(*expressing.front(), x);
    if (!fit.first)
      throw unsupported_error("dmap::partitioned_import: on locale " + std::to_string(here()) + ", " + fit.second +
                              "; the partitions must sit where a dmap map that expresses the tiling keeps them (" +
                              expressing.front()->name + " and " + std::to_string(expressing.size() - 1) +
                              " others tried)");
  });
  // Not reached: the first map fitted everywhere (returned above) or failed somewhere (thrown).
  throw unsupported_error("dmap::partitioned_import: the partitions sit where no single map keeps them everywhere");
}

}  // namespace dmap
