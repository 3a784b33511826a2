// DAP descriptions read from JSON text (the form dmap::to_json writes, and what a Python
// producer's __distarray__ gives through json.dumps with the buffer left out), and the
// import of such text. Parsing by nlohmann/json (Debian nlohmann-json3-dev): a tested,
// non-recursive parser, so hostile text (huge numbers, truncation) is an error, never a crash.
// Printing, copying and comparing a parsed value recurse once per level of nesting, so text
// nested deeper than dap_json_depth_limit is refused while it is parsed. Not included by
// dmap.hpp: include it where JSON is read.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "dap.hpp"
#include "dap_import.hpp"
#include "detail/dap_json.hpp"

namespace dmap {

/// The deepest nesting of arrays and objects dap_from_json reads (a DAP description needs 4:
/// the text, "dim_data", a dictionary, "padding" or "indices"). Deeper text is an
/// argument_error naming this limit: the parsed value is printed into messages, which
/// recurses once per level, so the limit bounds that recursion.
inline constexpr int dap_json_depth_limit = detail::json_depth_limit;

/// A locale's DAP description read from JSON text, with `buffer` as its local buffer: keys
/// "__version__", "buffer" ({"shape", "strides" in bytes (absent: C-contiguous), "itemsize",
/// optional "typestr"}) and "dim_data" (N dictionaries; an empty one is DAP 0.10's shortcut
/// for a dimension not distributed; 'n' is DAP 0.9's). Throws argument_error naming the key
/// and the rule for text that is not JSON, a missing or mistyped key, an itemsize other
/// than sizeof(T), strides that are not whole elements, arrays or objects nested deeper than
/// dap_json_depth_limit, or a description `validate` rejects. Not collective.
template <class T, std::size_t N>
dap_description<T, N> dap_from_json(const std::string& text, T* buffer) {
  const nlohmann::json j = detail::json_parse_bounded(text, "dmap::dap_from_json");
  if (!j.is_object()) detail::reject_json("", "the text", detail::describe_json(j), "a JSON object");
  dap_description<T, N> x;
  const auto& version = detail::json_required(j, "", "__version__");
  if (!version.is_string()) detail::reject_json("", "__version__", detail::describe_json(version), "a string");
  x.version = version.get<std::string>();
  x.buffer = buffer;
  const auto& b = detail::json_required(j, "", "buffer");
  if (!b.is_object()) detail::reject_json("", "buffer", detail::describe_json(b), "an object with shape, strides and itemsize");
  const auto itemsize = detail::json_integer(detail::json_required(b, "buffer: ", "itemsize"), "buffer: ", "itemsize", 1);
  if (itemsize != static_cast<index_t>(sizeof(T)))
    detail::reject_json("buffer: ", "itemsize", std::to_string(itemsize),
                        "the element type's size (" + std::to_string(sizeof(T)) + " bytes)");
  if (const auto it = b.find("typestr"); it != b.end()) {
    if (!it->is_string()) detail::reject_json("buffer: ", "typestr", detail::describe_json(*it), "a string");
    x.typestr = it->get<std::string>();
  }
  const auto& shape = detail::json_required(b, "buffer: ", "shape");
  if (!shape.is_array() || shape.size() != N)
    detail::reject_json("buffer: ", "shape", detail::describe_json(shape), "an array of " + std::to_string(N) + " integers");
  for (std::size_t d = 0; d < N; ++d) x.shape[d] = detail::json_integer(shape[d], "buffer: ", detail::dap_text("shape[", d, "]"), 0);
  if (const auto it = b.find("strides"); it != b.end() && !it->is_null()) {
    if (!it->is_array() || it->size() != N)
      detail::reject_json("buffer: ", "strides", detail::describe_json(*it), "an array of " + std::to_string(N) + " integers");
    for (std::size_t d = 0; d < N; ++d) {
      const index_t bytes = detail::json_integer((*it)[d], "buffer: ", detail::dap_text("strides[", d, "]"));
      if (bytes % static_cast<index_t>(sizeof(T)) != 0)
        detail::reject_json("buffer: ", detail::dap_text("strides[", d, "]"), std::to_string(bytes),
                            "a multiple of the item size (" + std::to_string(sizeof(T)) + " bytes)");
      x.strides[d] = bytes / static_cast<index_t>(sizeof(T));
    }
  } else {  // C-contiguous
    index_t step = 1;
    for (std::size_t d = N; d-- > 0;) {
      x.strides[d] = step;
      step = static_cast<index_t>(std::min<detail::wide_int>(detail::wide_int{step} * std::max<index_t>(x.shape[d], 1),
                                                             std::numeric_limits<index_t>::max()));
    }
  }
  const auto& dims = detail::json_required(j, "", "dim_data");
  if (!dims.is_array() || dims.size() != N)
    detail::reject_json("", "dim_data", detail::describe_json(dims), "an array of " + std::to_string(N) + " dictionaries");
  for (std::size_t d = 0; d < N; ++d)
    x.dim_data[d] = detail::dap_dimension_from_json(dims[d], detail::dap_text("dimension ", d, ": "), x.shape[d]);
  validate(x);
  return x;
}

/// Collective: dap_import of the description each locale reads from its JSON `text` and
/// `buffer` (dap_from_json); a locale's bad text is an argument_error on every locale.
template <class T, std::size_t N>
array<T, N> dap_import_json(const std::string& text, T* buffer) {
  const dap_description<T, N> x = agreed([&] { return dap_from_json<T, N>(text, buffer); });
  return dap_import(x);
}

}  // namespace dmap
