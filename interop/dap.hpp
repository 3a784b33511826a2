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
#include "dap_dimension.hpp"
#include "detail/dap.hpp"

namespace dmap {

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
