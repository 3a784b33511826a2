// The machinery behind dap.hpp (not part of the API): DAP text and version handling, and the
// rules a dimension dictionary must keep.
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

#include "../../dsi/range.hpp"
#include "../../runtime/environment.hpp"
#include "../../runtime/errors.hpp"
#include "../dap_dimension.hpp"

namespace dmap {

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

}  // namespace dmap
