// The Distributed Array Protocol (DAP 0.10.0): a locale's part of a distributed array as
// dimension dictionaries plus its local buffer, as a C++ value and as JSON text.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
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

namespace detail {

/// The parts written one after the other, as text (for messages).
template <class... Parts>
std::string dap_text(const Parts&... parts) {
  std::ostringstream s;
  (s << ... << parts);
  return s.str();
}

/// A string as a JSON string literal: quoted, with quotes, backslashes and control
/// characters escaped, so the text is valid JSON whatever the string holds.
inline std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto code = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (code < 0x20) {
      constexpr char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[code >> 4];
      out += hex[code & 0xf];
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

/// A dist_type character for a message: 'b', or its character code when not printable.
inline std::string describe_dist_type(char c) {
  const auto code = static_cast<unsigned char>(c);
  if (code >= 0x20 && code < 0x7f) return dap_text('\'', c, '\'');
  return dap_text("the character of code ", static_cast<int>(code));
}

/// Throws argument_error "dmap::dap: <where>'<key>' is <value>; it must be <rule>".
[[noreturn]] inline void reject_dap(const std::string& where, const std::string& key, const std::string& value,
                                    const std::string& rule) {
  throw argument_error(dap_text("dmap::dap: ", where, '\'', key, "' is ", value, "; it must be ", rule));
}

/// The one check of a dimension dictionary against the DAP 0.10 rules (the list is in
/// validate's comment); `where` prefixes the message ("dimension 1: " or "").
inline void check_dap_dimension(const dap_dimension& d, const std::string& where) {
  const auto text = [](auto v) { return std::to_string(v); };
  if (d.dist_type != 'b' && d.dist_type != 'c' && d.dist_type != 'u')
    reject_dap(where, "dist_type", describe_dist_type(d.dist_type), "'b', 'c' or 'u' (the kinds DAP 0.10 defines)");
  if (d.size < 0) reject_dap(where, "size", text(d.size), ">= 0");
  if (d.proc_grid_size < 1) reject_dap(where, "proc_grid_size", text(d.proc_grid_size), ">= 1");
  if (d.proc_grid_rank < 0 || d.proc_grid_rank >= d.proc_grid_size)
    reject_dap(where, "proc_grid_rank", text(d.proc_grid_rank),
               dap_text("in [0, proc_grid_size) = [0, ", d.proc_grid_size, ")"));
  if (d.dist_type == 'u') {
    // Every position in [0, size) (dmap's positions are orders in the domain), none twice.
    std::vector<std::pair<index_t, std::size_t>> sorted;
    sorted.reserve(d.indices.size());
    for (std::size_t k = 0; k < d.indices.size(); ++k) {
      const index_t v = d.indices[k];
      if (v < 0 || v >= d.size)
        reject_dap(where, dap_text("indices[", k, "]"), text(v),
                   dap_text("in [0, size) = [0, ", d.size, "): a position of the dimension"));
      sorted.push_back({v, k});
    }
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 1; k < sorted.size(); ++k)
      if (sorted[k].first == sorted[k - 1].first)
        reject_dap(where, dap_text("indices[", sorted[k].second, "]"), text(sorted[k].first),
                   dap_text("different from indices[", sorted[k - 1].second,
                            "] (the same position): indices must be locally unique"));
    return;
  }
  if (d.start < 0) reject_dap(where, "start", text(d.start), ">= 0");
  if (d.dist_type == 'c') {
    if (d.block_size < 1) reject_dap(where, "block_size", text(d.block_size), ">= 1");
    const wide_int want = static_cast<wide_int>(d.proc_grid_rank) * d.block_size;
    if (want != d.start)
      reject_dap(where, "start", text(d.start),
                 dap_text("proc_grid_rank * block_size = ", d.proc_grid_rank, " * ", d.block_size,
                          " (where this grid rank's first block begins)"));
    return;
  }
  if (d.stop < d.start) reject_dap(where, "stop", text(d.stop), dap_text(">= start (", d.start, ")"));
  if (d.stop > d.size) reject_dap(where, "stop", text(d.stop), dap_text("<= size (", d.size, ")"));
  for (std::size_t side = 0; side < 2; ++side)
    if (d.padding[side] < 0) reject_dap(where, dap_text("padding[", side, "]"), text(d.padding[side]), ">= 0");
  const index_t extent = d.stop - d.start;  // no overflow: 0 <= start <= stop <= size
  if (d.padding[0] > extent || d.padding[1] > extent - d.padding[0])
    reject_dap(where, "padding", dap_text('(', d.padding[0], ", ", d.padding[1], ')'),
               dap_text("at most stop - start = ", extent, " wide together (padding lies inside the buffer)"));
  if (d.proc_grid_rank == 0 && d.start != 0)
    reject_dap(where, "start", text(d.start), "0 on proc_grid_rank 0 (the first block begins the dimension)");
  if (d.proc_grid_rank == d.proc_grid_size - 1 && d.stop != d.size)
    reject_dap(where, "stop", text(d.stop),
               dap_text("size (", d.size, ") on the last proc_grid_rank (the last block ends the dimension)"));
}

}  // namespace detail

/// Throws argument_error naming the key, its value and the rule when `d` breaks a DAP 0.10
/// rule. The rules: dist_type is 'b', 'c' or 'u'; size >= 0; proc_grid_size >= 1;
/// 0 <= proc_grid_rank < proc_grid_size. 'b': 0 <= start <= stop <= size, start == 0 on
/// grid rank 0 and stop == size on the last grid rank, padding widths >= 0 and together at
/// most stop - start. 'c': block_size >= 1, start == proc_grid_rank * block_size. 'u':
/// every index in [0, size) (dmap's positions are 0-based orders; the protocol itself
/// allows any integers) and no index twice.
inline void validate(const dap_dimension& d) { detail::check_dap_dimension(d, ""); }

/// The indices a dimension dictionary's locale owns: its buffer extent less communication
/// padding (padding on a side with a neighbour), as the DAP appendix's num_owned_indices.
/// Validates `d` first (argument_error as validate).
inline index_t num_owned_indices(const dap_dimension& d) {
  validate(d);
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
/// True when `version` has the form major.minor.patch (three non-negative integers).
inline bool is_semantic_version(const std::string& version) {
  int parts = 0;
  std::size_t digits = 0;
  for (const char c : version) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if (c == '.' && digits > 0 && parts < 2) {
      ++parts, digits = 0;
    } else {
      return false;
    }
  }
  return parts == 2 && digits > 0;
}
}  // namespace detail

/// Throws argument_error naming the field, its value and the rule when `x` breaks a DAP
/// 0.10 rule: `version` has the form major.minor.patch; every dimension dictionary is valid
/// (see validate(const dap_dimension&); messages name the dimension); the buffer's shape
/// is >= 0 and matches the dictionaries (stop - start for 'b', num_owned_indices for 'c'
/// and 'u'); strides in bytes fit int64; a buffer with elements is not null; and the
/// proc_grid_sizes multiply to the number of processes (num_locales()).
template <class T, std::size_t N>
void validate(const dap_description<T, N>& x) {
  using detail::dap_text;
  if (!detail::is_semantic_version(x.version))
    detail::reject_dap("", "__version__", detail::json_string(x.version),
                       "of the form major.minor.patch (three non-negative integers), such as \"0.10.0\"");
  detail::wide_int processes = 1;
  bool holds_elements = true;
  for (std::size_t d = 0; d < N; ++d) {
    const dap_dimension& dim = x.dim_data[d];
    const std::string where = dap_text("dimension ", d, ": ");
    detail::check_dap_dimension(dim, where);
    processes *= dim.proc_grid_size;  // each factor < 2^31: no overflow before the check below
    if (processes > std::numeric_limits<int>::max()) processes = std::numeric_limits<int>::max() + detail::wide_int{1};
    if (x.shape[d] < 0) detail::reject_dap("", dap_text("buffer.shape[", d, "]"), std::to_string(x.shape[d]), ">= 0");
    const index_t want = dim.dist_type == 'b' ? dim.stop - dim.start : num_owned_indices(dim);
    if (x.shape[d] != want)
      detail::reject_dap("", dap_text("buffer.shape[", d, "]"), std::to_string(x.shape[d]),
                         dap_text("the extent dimension ", d, "'s dictionary gives (",
                                  dim.dist_type == 'b' ? "stop - start" : "its owned indices", " = ", want, ")"));
    const detail::wide_int stride_bytes = static_cast<detail::wide_int>(x.strides[d]) * sizeof(T);
    if (stride_bytes > std::numeric_limits<index_t>::max() || stride_bytes < std::numeric_limits<index_t>::min())
      detail::reject_dap("", dap_text("strides[", d, "]"), std::to_string(x.strides[d]),
                         dap_text("small enough that strides[", d, "] * itemsize (", sizeof(T),
                                  " bytes) fits a 64-bit integer"));
    holds_elements = holds_elements && x.shape[d] > 0;
  }
  if (holds_elements && x.buffer == nullptr)
    detail::reject_dap("", "buffer", "null", "a pointer to the local elements when the shape holds some");
  if (detail::current_environment != nullptr && N > 0 && processes != num_locales())
    detail::reject_dap("", "proc_grid_size",
                       processes > std::numeric_limits<int>::max()
                           ? std::string("a product above 2^31 - 1 over the dimensions")
                           : dap_text("a product of ", static_cast<long long>(processes), " over the dimensions"),
                       dap_text("a product equal to the number of processes (", num_locales(), ")"));
}

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
  // Checked for the last grid rank, so that every locale gives the same answer.
  if (static_cast<wide_int>(parts - 1) * block > std::numeric_limits<index_t>::max())
    throw unsupported_error(dap_text("dmap::dap_export: dimension ", d, ": grid rank ", parts - 1,
                                     " starts at its first block, position ", parts - 1, " * ", block,
                                     ", past 2^63 - 1; DAP 'c' cannot describe it"));
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
  if (!detail::state_of(a.domain()))
    throw argument_error("dmap::dap_export: the array was moved from; it has no domain or elements to describe");
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
    // Boundary padding exists only where cells are stored: none for an empty dimension.
    const index_t extent = dom.indices().dim(d).size();
    if (extent > 0 && fluff[d] > 0 && blocks->chunk_range(d, grid.extent(d) - 1).empty())
      throw unsupported_error(detail::dap_text(
          "dmap::dap_export: dimension ", d, " has ", extent, " indices over ", grid.extent(d),
          " locales, and the last grid rank owns none: the trailing boundary padding sits on another grid rank, "
          "which DAP (boundary padding on the last grid rank) cannot describe"));
    if (extent > 0 && extent + detail::wide_int{2} * fluff[d] > std::numeric_limits<index_t>::max())
      throw unsupported_error(detail::dap_text("dmap::dap_export: dimension ", d, ": ", extent,
                                               " indices plus boundary padding 2 * ", fluff[d],
                                               " exceed 2^63 - 1 positions"));
    dim.size = extent > 0 ? extent + 2 * fluff[d] : 0;
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
/// Validates `d` first (argument_error as validate), so the text is always a valid
/// dictionary and valid JSON.
inline std::string to_json(const dap_dimension& d) {
  validate(d);
  std::ostringstream s;
  const std::string dist_type = detail::json_string(std::string(1, d.dist_type));
  s << "{\"dist_type\": " << dist_type << ", \"size\": " << d.size << ", \"proc_grid_size\": " << d.proc_grid_size
    << ", \"proc_grid_rank\": " << d.proc_grid_rank;
  if (d.dist_type == 'u') {
    s << ", \"indices\": [";
    for (std::size_t k = 0; k < d.indices.size(); ++k) s << (k ? ", " : "") << d.indices[k];
    s << "], \"one_to_one\": " << (d.one_to_one ? "true" : "false") << "}";
    return s.str();
  }
  if (d.dist_type == 'c') {
    s << ", \"start\": " << d.start << ", \"block_size\": " << d.block_size << "}";
    return s.str();
  }
  s << ", \"start\": " << d.start << ", \"stop\": " << d.stop << ", \"padding\": [" << d.padding[0] << ", "
    << d.padding[1] << "], \"periodic\": " << (d.periodic ? "true" : "false") << "}";
  return s.str();
}

/// The whole description as JSON: version, buffer shape/strides (in bytes)/item size,
/// dim_data. Validates `x` first (argument_error as validate).
template <class T, std::size_t N>
std::string to_json(const dap_description<T, N>& x) {
  validate(x);
  std::ostringstream s;
  s << "{\"__version__\": " << detail::json_string(x.version) << ", \"buffer\": {\"shape\": [";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << x.shape[d];
  s << "], \"strides\": [";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << x.strides[d] * static_cast<index_t>(sizeof(T));
  s << "], \"itemsize\": " << sizeof(T) << "}, \"dim_data\": [";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << to_json(x.dim_data[d]);
  s << "]}";
  return s.str();
}

}  // namespace dmap
