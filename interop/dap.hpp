// The Distributed Array Protocol (DAP 0.9 and 0.10): a locale's part of a distributed array
// as dimension dictionaries plus its local buffer, as a C++ value and as JSON text, with
// the protocol's rules. Export: interop/dap_export.hpp; import: interop/dap_import.hpp.
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

#include "../dsi/range.hpp"
#include "../runtime/environment.hpp"
#include "../runtime/errors.hpp"

namespace dmap {

/// One DAP dimension dictionary. Block ('b') uses start/stop/padding/periodic, cyclic ('c')
/// start/block_size, unstructured ('u') indices/one_to_one; not distributed ('n', DAP 0.9;
/// DAP 0.10's empty dictionary) only size and padding.
struct dap_dimension {
  char dist_type = 'b';          ///< 'b' block, 'c' (block-)cyclic, 'u' unstructured, 'n' not distributed
  index_t size = 0;              ///< global extent, boundary padding included
  int proc_grid_size = 1;        ///< locales along this dimension
  int proc_grid_rank = 0;        ///< this locale's grid coordinate along it
  index_t start = 0;             ///< first global position of the local buffer (inclusive)
  index_t stop = 0;              ///< end of the local buffer (exclusive); 0.10: padding included
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
  return parts == 2 && digits > 0 && version.size() <= 32;
}

/// The minor version of a DAP version dmap reads (0.9.x: 9, 0.10.x: 10). Throws
/// argument_error for text that is not major.minor.patch, unsupported_error for others.
inline int dap_minor_version(const std::string& version, const std::string& who) {
  if (!is_semantic_version(version))
    throw argument_error(who + ": '__version__' is " + json_string(version) +
                         "; it must be of the form major.minor.patch (three non-negative integers), such as \"0.10.0\"");
  const auto first_dot = version.find('.'), second_dot = version.find('.', first_dot + 1);
  const std::string major = version.substr(0, first_dot), minor = version.substr(first_dot + 1, second_dot - first_dot - 1);
  if (major == "0" && minor == "9") return 9;
  if (major == "0" && minor == "10") return 10;
  throw unsupported_error(who + ": '__version__' is " + json_string(version) +
                          "; dmap reads and writes DAP 0.9.x and 0.10.x");
}

/// The padding widths of a 'b' or 'n' dictionary that are communication padding (shared
/// with a neighbour), per side; the others are boundary padding, counted in `size`. DAP
/// 0.10: the first grid rank's padding before and the last one's after are boundary padding,
/// periodic or not (its appendix's num_owned_indices, and start >= 0 and stop <= size, leave
/// no other reading; along a periodic dimension those cells hold the wrapped values). DAP
/// 0.9: padding on an edge of a periodic dimension is communication padding.
inline std::array<bool, 2> dap_communication_sides(const dap_dimension& d, int minor) {
  const bool wraps = minor < 10 && d.periodic;
  if (d.dist_type == 'n') return {wraps, wraps};
  return {d.proc_grid_rank != 0 || wraps, d.proc_grid_rank != d.proc_grid_size - 1 || wraps};
}

/// The local buffer's extent of a 'b' dictionary: stop - start in 0.10; in 0.9, where
/// start and stop leave out communication padding, that plus the communication padding.
inline index_t dap_buffer_extent(const dap_dimension& d, int minor) {
  if (d.dist_type == 'n') return d.size;
  if (minor >= 10) return d.stop - d.start;
  const auto comm = dap_communication_sides(d, minor);
  return d.stop - d.start + (comm[0] ? d.padding[0] : 0) + (comm[1] ? d.padding[1] : 0);
}

/// True when a 'c' dictionary's grid coordinate is dealt no position (its first block,
/// proc_grid_rank * block_size, lies at or past size).
inline bool dap_cyclic_owns_nothing(const dap_dimension& d) {
  return static_cast<wide_int>(d.proc_grid_rank) * d.block_size >= d.size;
}

/// The one check of a dimension dictionary against the rules of DAP 0.`minor` (the list is
/// in validate's comment); `where` prefixes the message ("dimension 1: " or "").
inline void check_dap_dimension(const dap_dimension& d, const std::string& where, int minor = 10) {
  const auto text = [](auto v) { return std::to_string(v); };
  if (d.dist_type != 'b' && d.dist_type != 'c' && d.dist_type != 'u' && d.dist_type != 'n')
    reject_dap(where, "dist_type", describe_dist_type(d.dist_type),
               "'b', 'c', 'u' or 'n' (the kinds DAP defines; 'n' or an empty dictionary: not distributed)");
  if (d.size < 0) reject_dap(where, "size", text(d.size), ">= 0");
  if (d.dist_type == 'n') {
    if (d.proc_grid_size != 1) reject_dap(where, "proc_grid_size", text(d.proc_grid_size), "1 for 'n' (not distributed)");
    if (d.proc_grid_rank != 0) reject_dap(where, "proc_grid_rank", text(d.proc_grid_rank), "0 for 'n' (not distributed)");
    for (std::size_t side = 0; side < 2; ++side)
      if (d.padding[side] < 0) reject_dap(where, dap_text("padding[", side, "]"), text(d.padding[side]), ">= 0");
    if (d.padding[0] > d.size || d.padding[1] > d.size - d.padding[0])
      reject_dap(where, "padding", dap_text('(', d.padding[0], ", ", d.padding[1], ')'),
                 dap_text("at most size = ", d.size, " wide together (padding lies inside the buffer)"));
    return;
  }
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
  if (d.dist_type == 'c') {
    if (d.start < 0) reject_dap(where, "start", text(d.start), ">= 0");
    if (d.block_size < 1) reject_dap(where, "block_size", text(d.block_size), ">= 1");
    const wide_int want = static_cast<wide_int>(d.proc_grid_rank) * d.block_size;
    // An empty local buffer may also say start == size (DAP 0.9 and 0.10, "Empty local
    // buffers"), but only where the deal gives the grid rank nothing.
    if (d.start == d.size && want != d.start && !dap_cyclic_owns_nothing(d))
      reject_dap(where, "start", text(d.start),
                 dap_text("proc_grid_rank * block_size = ", d.proc_grid_rank, " * ", d.block_size,
                          ": start == size marks an empty buffer, but the deal gives this grid rank the block at ",
                          static_cast<long long>(want), " of ", d.size, " positions"));
    if (want != d.start && d.start != d.size)
      reject_dap(where, "start", text(d.start),
                 dap_text("proc_grid_rank * block_size = ", d.proc_grid_rank, " * ", d.block_size,
                          " (where this grid rank's first block begins)",
                          dap_cyclic_owns_nothing(d) ? dap_text(", or size = ", d.size, " (an empty buffer)") : ""));
    return;
  }
  for (std::size_t side = 0; side < 2; ++side)
    if (d.padding[side] < 0) reject_dap(where, dap_text("padding[", side, "]"), text(d.padding[side]), ">= 0");
  // DAP's ranges, periodic or not: 0 <= start <= stop <= size (0.10 counts a periodic
  // dimension's edge padding in size, as boundary padding holding the wrapped values).
  if (d.start < 0) reject_dap(where, "start", text(d.start), ">= 0");
  if (d.stop < d.start) reject_dap(where, "stop", text(d.stop), dap_text(">= start (", d.start, ")"));
  if (d.stop > d.size) reject_dap(where, "stop", text(d.stop), dap_text("<= size (", d.size, ")"));
  // start == size: an empty local buffer (DAP's "Empty local buffers"), wherever its grid
  // rank sits; it holds nothing, padding included.
  const bool empty_marker = d.start == d.size && d.size > 0;
  if (empty_marker && (d.padding[0] != 0 || d.padding[1] != 0))
    reject_dap(where, "padding", dap_text('(', d.padding[0], ", ", d.padding[1], ')'),
               dap_text("(0, 0) when start == size (", d.size, "): that marks an empty local buffer"));
  const wide_int extent = static_cast<wide_int>(d.stop) - d.start;
  // The padding lies inside the buffer: in 0.9 only the boundary padding lies inside [start, stop).
  const auto comm = dap_communication_sides(d, minor);
  const wide_int inside = minor >= 10 ? static_cast<wide_int>(d.padding[0]) + d.padding[1]
                                      : wide_int{comm[0] ? 0 : d.padding[0]} + (comm[1] ? 0 : d.padding[1]);
  if (inside > extent)
    reject_dap(where, "padding", dap_text('(', d.padding[0], ", ", d.padding[1], ')'),
               dap_text("at most stop - start = ", static_cast<long long>(extent),
                        minor >= 10 ? " wide together (padding lies inside the buffer)"
                                    : " wide in its boundary padding (DAP 0.9: boundary padding lies inside [start, stop))"));
  if (d.proc_grid_rank == 0 && d.start != 0 && !empty_marker)
    reject_dap(where, "start", text(d.start),
               dap_text("0 on proc_grid_rank 0 (the first block begins the dimension), or size = ", d.size,
                        " with stop == size (an empty buffer)"));
  if (d.proc_grid_rank == d.proc_grid_size - 1 && d.stop != d.size)
    reject_dap(where, "stop", text(d.stop), dap_text(d.size, " on the last proc_grid_rank (the last block ends the dimension)"));
}

}  // namespace detail

/// Throws argument_error naming the key, its value and the rule when `d` breaks a rule of
/// DAP 0.`minor` (10 or 9). The rules: dist_type is 'b', 'c', 'u' or 'n'; size >= 0;
/// proc_grid_size >= 1; 0 <= proc_grid_rank < proc_grid_size. 'n': one grid coordinate,
/// padding >= 0 and inside size. 'b': 0 <= start <= stop <= size (periodic or not: DAP 0.10
/// counts a periodic dimension's edge padding in size), start == 0 on grid rank 0 and stop
/// == size on the last grid rank, padding widths >= 0 and inside the buffer (0.10: [start,
/// stop) holds all padding; 0.9: it holds the boundary padding, the communication padding
/// lies beyond); start == size (size > 0) marks an empty buffer on any grid rank, without
/// padding. 'c': block_size >= 1, start == proc_grid_rank * block_size, or start == size on
/// a grid rank the deal gives nothing (an empty buffer). 'u': every index in [0, size)
/// (dmap's positions are 0-based orders; the protocol itself allows any integers) and no
/// index twice.
inline void validate(const dap_dimension& d, int minor = 10) { detail::check_dap_dimension(d, "", minor); }

/// The indices a dimension dictionary's locale owns, as the DAP appendix's
/// num_owned_indices counts them (boundary padding included, so the counts of a grid line
/// sum to `size`): 'b' the buffer extent less communication padding; 'c' the positions of
/// its blocks; 'u' its indices; 'n' size. Validates `d` first (argument_error as validate).
inline index_t num_owned_indices(const dap_dimension& d, int minor = 10) {
  validate(d, minor);
  if (d.dist_type == 'n') return d.size;
  if (d.dist_type == 'u') return static_cast<index_t>(d.indices.size());
  if (d.dist_type == 'c') {
    // Whole blocks dealt round robin from this locale's first block, plus its partial block.
    const index_t blocks = d.size / d.block_size, partial = d.size % d.block_size;
    index_t count = 0;
    if (blocks > d.proc_grid_rank) count = ((blocks - 1 - d.proc_grid_rank) / d.proc_grid_size + 1) * d.block_size;
    if (partial > 0 && blocks % d.proc_grid_size == d.proc_grid_rank) count += partial;
    return count;
  }
  const auto comm = detail::dap_communication_sides(d, minor);
  return detail::dap_buffer_extent(d, minor) - (comm[0] ? d.padding[0] : 0) - (comm[1] ? d.padding[1] : 0);
}

/// A locale's DAP description of an array: the version, the local buffer (pointer, shape
/// and element strides, as in PEP 3118; the element type as a NumPy typestr) and one
/// dimension dictionary per dimension. `T` is const in a read-only description (dap_export
/// of a const array), which dap_import does not take.
template <class T, std::size_t N>
struct dap_description {
  std::string version = "0.10.0";           ///< the DAP version described (`__version__`)
  T* buffer = nullptr;                      ///< this locale's local buffer (read-only when T is const)
  std::array<index_t, N> shape{};           ///< the buffer's extent per dimension
  std::array<index_t, N> strides{};         ///< the buffer's strides per dimension, in elements
  std::string typestr{};                    ///< the element type, as NumPy's "<f8" (empty: unknown)
  std::array<dap_dimension, N> dim_data{};  ///< one dimension dictionary per dimension
};

/// Throws argument_error naming the field, its value and the rule when `x` breaks a DAP
/// rule: `version` is 0.9.x or 0.10.x (unsupported_error for another well-formed version);
/// every dimension dictionary is valid under that version (see validate(const
/// dap_dimension&, int); messages name the dimension); the buffer's shape is >= 0 and
/// matches the dictionaries (the buffer extent for 'b', size for 'n', num_owned_indices for
/// 'c' and 'u'); strides in bytes fit int64; a buffer with elements is not null; and the
/// proc_grid_sizes multiply to the number of processes (num_locales()).
template <class T, std::size_t N>
void validate(const dap_description<T, N>& x) {
  using detail::dap_text;
  const int minor = detail::dap_minor_version(x.version, "dmap::dap");
  detail::wide_int processes = 1;
  bool holds_elements = true;
  for (std::size_t d = 0; d < N; ++d) {
    const dap_dimension& dim = x.dim_data[d];
    const std::string where = dap_text("dimension ", d, ": ");
    detail::check_dap_dimension(dim, where, minor);
    processes *= dim.proc_grid_size;  // each factor < 2^31: no overflow before the check below
    if (processes > std::numeric_limits<int>::max()) processes = std::numeric_limits<int>::max() + detail::wide_int{1};
    if (x.shape[d] < 0) detail::reject_dap("", dap_text("buffer.shape[", d, "]"), std::to_string(x.shape[d]), ">= 0");
    const bool extent_rule = dim.dist_type == 'b' || dim.dist_type == 'n';
    const index_t want = extent_rule ? detail::dap_buffer_extent(dim, minor) : num_owned_indices(dim, minor);
    if (x.shape[d] != want)
      detail::reject_dap("", dap_text("buffer.shape[", d, "]"), std::to_string(x.shape[d]),
                         dap_text("the extent dimension ", d, "'s dictionary gives (",
                                  dim.dist_type == 'n'   ? "size"
                                  : dim.dist_type == 'b' ? (minor >= 10 ? "stop - start" : "stop - start + communication padding")
                                                         : "its owned indices",
                                  " = ", want, ")"));
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

/// A dimension dictionary as JSON in DAP 0.`minor`'s form (keys in the protocol's order,
/// padding as a pair; 0.9 writes 'n' as dist_type and size only, and leaves one_to_one out
/// when false). Validates `d` first (argument_error as validate), so the text is always a
/// valid dictionary and valid JSON.
inline std::string to_json(const dap_dimension& d, int minor = 10) {
  validate(d, minor);
  std::ostringstream s;
  const std::string dist_type = detail::json_string(std::string(1, d.dist_type));
  if (d.dist_type == 'n') {
    s << "{\"dist_type\": " << dist_type << ", \"size\": " << d.size;
    if (d.padding[0] > 0 || d.padding[1] > 0) s << ", \"padding\": [" << d.padding[0] << ", " << d.padding[1] << "]";
    if (d.periodic) s << ", \"periodic\": true";
    s << "}";
    return s.str();
  }
  s << "{\"dist_type\": " << dist_type << ", \"size\": " << d.size << ", \"proc_grid_size\": " << d.proc_grid_size
    << ", \"proc_grid_rank\": " << d.proc_grid_rank;
  if (d.dist_type == 'u') {
    s << ", \"indices\": [";
    for (std::size_t k = 0; k < d.indices.size(); ++k) s << (k ? ", " : "") << d.indices[k];
    s << "]";
    if (minor >= 10 || d.one_to_one) s << ", \"one_to_one\": " << (d.one_to_one ? "true" : "false");
    s << "}";
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

/// The whole description as JSON: version, buffer (shape, strides in bytes, item size and
/// typestr), dim_data. Validates `x` first (argument_error as validate).
template <class T, std::size_t N>
std::string to_json(const dap_description<T, N>& x) {
  validate(x);
  const int minor = detail::dap_minor_version(x.version, "dmap::to_json");
  std::ostringstream s;
  s << "{\"__version__\": " << detail::json_string(x.version) << ", \"buffer\": {\"shape\": [";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << x.shape[d];
  s << "], \"strides\": [";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << x.strides[d] * static_cast<index_t>(sizeof(T));
  s << "], \"itemsize\": " << sizeof(T);
  if (!x.typestr.empty()) s << ", \"typestr\": " << detail::json_string(x.typestr);
  s << "}, \"dim_data\": [";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << to_json(x.dim_data[d], minor);
  s << "]}";
  return s.str();
}

}  // namespace dmap
