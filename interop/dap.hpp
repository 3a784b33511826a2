// The Distributed Array Protocol (DAP 0.10.0): a locale's part of a distributed array as
// dimension dictionaries plus its local buffer, as a C++ value and as JSON text.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <sstream>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "../dists/block.hpp"
#include "../dists/dimensional.hpp"
#include "../dists/private.hpp"
#include "../dists/stencil.hpp"
#include "../dists/unstructured.hpp"
#include "../dsi/array.hpp"

namespace dmap {

/// One DAP dimension dictionary. Block ('b') uses start/stop/padding/periodic, cyclic ('c')
/// start/block_size, unstructured ('u') indices/one_to_one.
struct dap_dimension {
  char dist_type = 'b';          ///< 'b' block, 'c' (block-)cyclic or 'u' unstructured
  index_t size = 0;              ///< global extent, boundary padding included
  int proc_grid_size = 1;        ///< locales along this dimension
  int proc_grid_rank = 0;        ///< this locale's grid coordinate along it
  index_t start = 0;             ///< first global position of the local buffer (inclusive)
  index_t stop = 0;              ///< end of the local buffer (exclusive), padding included
  std::array<index_t, 2> padding{0, 0};  ///< padding widths before and after
  bool periodic = false;         ///< whether the dimension wraps
  index_t block_size = 1;        ///< 'c': indices per block dealt round robin
  std::vector<index_t> indices{};  ///< 'u': the global positions held, in buffer order
  bool one_to_one = false;       ///< 'u': no position is held by two locales

  friend bool operator==(const dap_dimension&, const dap_dimension&) = default;
};

/// The indices a dimension dictionary's locale owns: its buffer extent less communication
/// padding (padding on a side with a neighbour), as the DAP appendix's num_owned_indices.
inline index_t num_owned_indices(const dap_dimension& d) {
  if (d.dist_type == 'u') return static_cast<index_t>(d.indices.size());
  if (d.dist_type == 'c') {
    // Whole blocks dealt round robin from this locale's first block, plus its partial block.
    const index_t blocks = d.size / d.block_size, partial = d.size % d.block_size;
    index_t count = 0;
    if (blocks > d.proc_grid_rank) count = ((blocks - 1 - d.proc_grid_rank) / d.proc_grid_size + 1) * d.block_size;
    if (partial > 0 && blocks % d.proc_grid_size == d.proc_grid_rank) count += partial;
    return count;
  }
  index_t count = d.stop - d.start;
  if (d.proc_grid_rank != 0) count -= d.padding[0];
  if (d.proc_grid_rank != d.proc_grid_size - 1) count -= d.padding[1];
  return count;
}

/// Throws argument_error naming the key when `d` breaks a DAP 0.10 rule.
inline void validate(const dap_dimension& d) {
  const auto fail = [](const std::string& what) { throw argument_error("dmap::dap: " + what); };
  if (d.dist_type != 'b' && d.dist_type != 'c' && d.dist_type != 'u')
    fail(std::string("dist_type '") + d.dist_type + "' is not one dmap describes ('b', 'c' or 'u')");
  if (d.size < 0) fail("size " + std::to_string(d.size) + " must be >= 0");
  if (d.proc_grid_size < 1) fail("proc_grid_size " + std::to_string(d.proc_grid_size) + " must be >= 1");
  if (d.proc_grid_rank < 0 || d.proc_grid_rank >= d.proc_grid_size)
    fail("proc_grid_rank " + std::to_string(d.proc_grid_rank) + " must be in [0, proc_grid_size)");
  if (d.dist_type == 'u') {
    std::vector<index_t> sorted = d.indices;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k) {
      if (sorted[k] < 0 || sorted[k] >= d.size)
        fail("indices: " + std::to_string(sorted[k]) + " is outside [0, size)");
      if (k > 0 && sorted[k] == sorted[k - 1])
        fail("indices: " + std::to_string(sorted[k]) + " appears twice; indices must be locally unique");
    }
    return;
  }
  if (d.start < 0) fail("start " + std::to_string(d.start) + " must be >= 0");
  if (d.dist_type == 'c') {
    if (d.block_size < 1) fail("block_size " + std::to_string(d.block_size) + " must be >= 1");
    if (d.start != d.proc_grid_rank * d.block_size)
      fail("start " + std::to_string(d.start) + " must equal proc_grid_rank * block_size (" +
           std::to_string(d.proc_grid_rank * d.block_size) + ")");
    return;
  }
  if (d.stop < d.start) fail("stop " + std::to_string(d.stop) + " must be >= start " + std::to_string(d.start));
  if (d.stop > d.size) fail("stop " + std::to_string(d.stop) + " must be <= size " + std::to_string(d.size));
  if (d.padding[0] < 0 || d.padding[1] < 0) fail("padding widths must be >= 0");
  if (d.proc_grid_rank == 0 && d.start != 0) fail("start must be 0 on proc_grid_rank 0");
}

/// A locale's DAP description of an array: the version, the local buffer (pointer, shape
/// and element strides, as in PEP 3118) and one dimension dictionary per dimension.
template <class T, std::size_t N>
struct dap_description {
  std::string version = "0.10.0";           ///< the DAP version described (`__version__`)
  T* buffer = nullptr;                      ///< this locale's local buffer
  std::array<index_t, N> shape{};           ///< the buffer's extent per dimension
  std::array<index_t, N> strides{};         ///< the buffer's strides per dimension, in elements
  std::array<dap_dimension, N> dim_data{};  ///< one dimension dictionary per dimension
};

namespace detail {
// The DAP dictionary of one dimension of a Dimensional domain, for grid coordinate k.
inline dap_dimension dap_of_dimension(const dimension_cut& cut, const dim_spec& spec, const range& whole, int parts,
                                      int k, std::size_t d) {
  dap_dimension dim;
  dim.proc_grid_size = parts;
  dim.proc_grid_rank = k;
  dim.size = whole.size();
  if (std::holds_alternative<replicated_dim>(spec) || std::holds_alternative<unstructured_dim>(spec)) {
    // 'u': the positions held, in storage order; a replicated dimension holds all of them on
    // every grid coordinate (not one_to_one).
    dim.dist_type = 'u';
    dim.one_to_one = !std::holds_alternative<replicated_dim>(spec);
    for (const range& piece : cut.pieces(k))
      for (index_t j = 0; j < piece.size(); ++j) dim.indices.push_back(whole.order_of(piece.index_at(j)));
    return dim;
  }
  const bool round_robin = std::holds_alternative<cyclic_dim>(spec) || std::holds_alternative<block_cyclic_dim>(spec);
  if (!round_robin) {
    if (whole.stride() < 0 && parts > 1)
      throw unsupported_error("dmap::dap_export: dimension " + std::to_string(d) +
                              " has a negative stride and is split over " + std::to_string(parts) +
                              " locales: grid rank 0 holds the last positions, which DAP (rank 0 starts "
                              "at position 0) cannot describe");
    for (int j = 0; j < k; ++j) dim.start += cut.count(j);
    dim.stop = dim.start + cut.count(k);
    return dim;
  }
  std::optional<index_t> start;
  index_t block = 1;
  if (const auto* c = std::get_if<cyclic_dim>(&spec)) start = c->start;
  if (const auto* b = std::get_if<block_cyclic_dim>(&spec)) start = b->start, block = b->block_size;
  if (whole.stride() != 1 || (start && !whole.empty() && *start != whole.aligned_low()))
    throw unsupported_error("dmap::dap_export: dimension " + std::to_string(d) +
                            " deals indices round robin by value from another origin than its first "
                            "position (a stride other than 1 or an explicit start); DAP 'c' counts "
                            "positions from 0 and cannot describe it");
  dim.dist_type = 'c';
  dim.block_size = block;
  dim.start = static_cast<index_t>(k) * block;
  dim.stop = dim.start;
  return dim;
}
}  // namespace detail

/// This locale's DAP description of `a`, whose domain is distributed by Block, Stencil, a
/// Dimensional map (Cyclic, BlockCyclic, Irregular Block) or, in 1-D, Hashed or Unstructured
/// ('u': the positions stored, in buffer order, copies included; throws unsupported_error
/// for other distributions). DAP positions are 0-based orders in the domain; a Stencil's ghost widths
/// are padding (boundary padding at the edges of the domain, counted in `size`;
/// communication padding between locales); cyclic and block-cyclic dimensions are 'c'.
template <class T, std::size_t N>
dap_description<T, N> dap_export(array<T, N>& a) {
  const auto& dom = a.domain();
  dap_description<T, N> out;
  if (!a.local_blocks().empty()) {
    const auto& b = a.local_blocks().front();
    out.buffer = b.base;
    out.strides = b.layout.strides;
  }
  const dimensional_domain<N>* dimensional_desc = dom.template descriptor<dimensional_domain<N>>();
  if constexpr (N == 1)
    if (dimensional_desc == nullptr) dimensional_desc = dom.template descriptor<private_domain>();
  if (const auto* dim = dimensional_desc) {
    const auto& grid = dim->targets();
    const auto coords = grid.coords_of(here());
    for (std::size_t d = 0; d < N; ++d) {
      out.dim_data[d] = detail::dap_of_dimension(dim->cut(d), dim->distribution().specs()[d], dom.indices().dim(d),
                                                 grid.extent(d), coords[d], d);
      out.shape[d] = dim->cut(d).count(coords[d]);
    }
    return out;
  }
  if (const auto& dir = detail::state_of(dom)->dir) {
    if constexpr (N != 1)
      throw unsupported_error("dmap::dap_export: " + dom.name() + " places " + std::to_string(N) +
                              "-D indices one by one; DAP 'u' lists indices per dimension and describes only "
                              "products of per-dimension lists");
    dap_dimension& dim = out.dim_data[0];
    dim.dist_type = 'u';
    dim.size = dom.size();
    dim.proc_grid_size = num_locales();
    dim.proc_grid_rank = here();
    dim.indices = dir->stored();
    dim.one_to_one = true;
    for (std::size_t k = 0; k < dir->stored().size(); ++k) dim.one_to_one = dim.one_to_one && dir->owns_stored(k);
    if (const auto* u = dom.template descriptor<unstructured_domain<N>>()) dim.one_to_one = u->one_to_one();
    out.buffer = a.local_data();
    out.shape[0] = static_cast<index_t>(dim.indices.size());
    out.strides[0] = 1;
    return out;
  }
  const block_domain<N>* blocks = dom.template descriptor<block_domain<N>>();
  idx<N> fluff{};
  std::array<bool, N> periodic{};
  if (const auto* s = dom.template descriptor<stencil_domain<N>>()) {
    blocks = &s->base();
    fluff = s->distribution().fluff();
    periodic = s->distribution().periodic();
  }
  if (blocks == nullptr)
    throw unsupported_error("dmap::dap_export: no DAP description for " + dom.name() + " yet");
  const auto& grid = blocks->targets();
  const auto coords = grid.coords_of(here());
  for (std::size_t d = 0; d < N; ++d) {
    if (dom.indices().dim(d).stride() < 0 && grid.extent(d) > 1)
      throw unsupported_error("dmap::dap_export: dimension " + std::to_string(d) +
                              " has a negative stride and is split over " + std::to_string(grid.extent(d)) +
                              " locales: grid rank 0 holds the last positions, which DAP (rank 0 starts "
                              "at position 0) cannot describe");
    dap_dimension& dim = out.dim_data[d];
    dim.proc_grid_size = grid.extent(d);
    dim.proc_grid_rank = coords[d];
    dim.size = dom.indices().dim(d).size() + 2 * fluff[d];
    for (int k = 0; k < coords[d]; ++k) dim.start += blocks->chunk_range(d, k).size();
    const index_t owned = blocks->chunk_range(d, coords[d]).size();
    dim.stop = dim.start + owned + (owned > 0 ? 2 * fluff[d] : 0);
    dim.padding = owned > 0 ? std::array<index_t, 2>{fluff[d], fluff[d]} : std::array<index_t, 2>{0, 0};
    dim.periodic = periodic[d];
    out.shape[d] = dim.stop - dim.start;
  }
  return out;
}

/// DAP dimension dictionary as JSON, keys in the protocol's order; padding as a pair.
inline std::string to_json(const dap_dimension& d) {
  std::ostringstream s;
  if (d.dist_type == 'u') {
    s << "{\"dist_type\": \"u\", \"size\": " << d.size << ", \"proc_grid_size\": " << d.proc_grid_size
      << ", \"proc_grid_rank\": " << d.proc_grid_rank << ", \"indices\": [";
    for (std::size_t k = 0; k < d.indices.size(); ++k) s << (k ? ", " : "") << d.indices[k];
    s << "], \"one_to_one\": " << (d.one_to_one ? "true" : "false") << "}";
    return s.str();
  }
  if (d.dist_type == 'c') {
    s << "{\"dist_type\": \"c\", \"size\": " << d.size << ", \"proc_grid_size\": " << d.proc_grid_size
      << ", \"proc_grid_rank\": " << d.proc_grid_rank << ", \"start\": " << d.start
      << ", \"block_size\": " << d.block_size << "}";
    return s.str();
  }
  s << "{\"dist_type\": \"" << d.dist_type << "\", \"size\": " << d.size
    << ", \"proc_grid_size\": " << d.proc_grid_size << ", \"proc_grid_rank\": " << d.proc_grid_rank
    << ", \"start\": " << d.start << ", \"stop\": " << d.stop << ", \"padding\": [" << d.padding[0]
    << ", " << d.padding[1] << "], \"periodic\": " << (d.periodic ? "true" : "false") << "}";
  return s.str();
}

/// The whole description as JSON: version, buffer shape/strides/item size, dim_data.
template <class T, std::size_t N>
std::string to_json(const dap_description<T, N>& x) {
  std::ostringstream s;
  s << "{\"__version__\": \"" << x.version << "\", \"buffer\": {\"shape\": [";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << x.shape[d];
  s << "], \"strides\": [";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << x.strides[d] * static_cast<index_t>(sizeof(T));
  s << "], \"itemsize\": " << sizeof(T) << "}, \"dim_data\": [";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << to_json(x.dim_data[d]);
  s << "]}";
  return s.str();
}

}  // namespace dmap
