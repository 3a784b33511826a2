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

namespace dmap {

/// The deepest nesting of arrays and objects dap_from_json reads (a DAP description needs 4:
/// the text, "dim_data", a dictionary, "padding" or "indices"). Deeper text is an
/// argument_error naming this limit: the parsed value is printed into messages, which
/// recurses once per level, so the limit bounds that recursion.
inline constexpr int dap_json_depth_limit = 64;

namespace detail {

/// Throws argument_error "dmap::dap_from_json: <where><key> is <what>; it must be <rule>".
[[noreturn]] inline void reject_json(const std::string& where, const std::string& key, const std::string& what,
                                     const std::string& rule) {
  throw argument_error("dmap::dap_from_json: " + where + "'" + key + "' is " + what + "; it must be " + rule);
}

/// A short description of a JSON value for messages ("a string", "3.5", ...). `v` is part of
/// a value json_parse_bounded read, so printing it recurses at most dap_json_depth_limit deep.
inline std::string describe_json(const nlohmann::json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + text;
}

/// `text` parsed, refusing (argument_error naming `who` and the limit) arrays and objects nested
/// deeper than dap_json_depth_limit, before the parser builds them; nlohmann's own errors
/// become argument_error too.
inline nlohmann::json json_parse_bounded(const std::string& text, const std::string& who) {
  const nlohmann::json::parser_callback_t bounded = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    // depth: the containers open around this event (the one starting here not counted)
    if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) &&
        depth >= dap_json_depth_limit)
      throw argument_error(who + ": the text has arrays or objects nested deeper than " +
                           std::to_string(dap_json_depth_limit) + " levels (dap_json_depth_limit); a DAP description needs 4");
    return true;
  };
  try {
    return nlohmann::json::parse(text, bounded);
  } catch (const nlohmann::json::exception& e) {
    throw argument_error(who + ": the text is not valid JSON (" + e.what() + ")");
  }
}

/// The integer at `v`, which must be a JSON integer in [lowest, highest].
inline index_t json_integer(const nlohmann::json& v, const std::string& where, const std::string& key,
                            index_t lowest = std::numeric_limits<index_t>::min(),
                            index_t highest = std::numeric_limits<index_t>::max()) {
  const auto rule = [&] {
    return dap_text("an integer in [", lowest, ", ", highest, "]");
  };
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(highest)) reject_json(where, key, describe_json(v), rule());
    return static_cast<index_t>(u);
  }
  if (!v.is_number_integer()) reject_json(where, key, describe_json(v), rule());
  const auto i = v.get<std::int64_t>();
  if (i < lowest || i > highest) reject_json(where, key, describe_json(v), rule());
  return i;
}

/// The value of `key` in `object`, which must be there.
inline const nlohmann::json& json_required(const nlohmann::json& object, const std::string& where, const std::string& key) {
  const auto it = object.find(key);
  if (it == object.end()) reject_json(where, key, "missing", "present");
  return *it;
}

/// A boolean key, `fallback` when absent.
inline bool json_flag(const nlohmann::json& object, const std::string& where, const std::string& key, bool fallback) {
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_boolean()) reject_json(where, key, describe_json(*it), "true or false");
  return it->get<bool>();
}

/// One dimension dictionary; `extent` is the buffer's extent along it (for the empty
/// dictionary, DAP 0.10's shortcut for a dimension not distributed).
inline dap_dimension dap_dimension_from_json(const nlohmann::json& j, const std::string& where, index_t extent) {
  if (!j.is_object()) reject_json(where, "dimension dictionary", describe_json(j), "a JSON object");
  dap_dimension d;
  if (j.empty()) {  // {'dist_type': 'b', 'proc_grid_size': 1, 'proc_grid_rank': 0, 'start': 0, 'stop': n, 'size': n}
    d.dist_type = 'b';
    d.size = extent;
    d.stop = extent;
    return d;
  }
  const auto& type = json_required(j, where, "dist_type");
  if (!type.is_string() || type.get_ref<const std::string&>().size() != 1)
    reject_json(where, "dist_type", describe_json(type), "a one-character string: \"b\", \"c\", \"u\" or \"n\"");
  d.dist_type = type.get_ref<const std::string&>()[0];
  d.size = json_integer(json_required(j, where, "size"), where, "size", 0);
  if (d.dist_type == 'n') {
    d.proc_grid_size = 1;
    d.proc_grid_rank = 0;
  } else {
    d.proc_grid_size = static_cast<int>(json_integer(json_required(j, where, "proc_grid_size"), where, "proc_grid_size", 1,
                                                     std::numeric_limits<int>::max()));
    d.proc_grid_rank = static_cast<int>(json_integer(json_required(j, where, "proc_grid_rank"), where, "proc_grid_rank", 0,
                                                     std::numeric_limits<int>::max()));
  }
  if (d.dist_type == 'b' || d.dist_type == 'n') {
    if (d.dist_type == 'b') {
      d.start = json_integer(json_required(j, where, "start"), where, "start");
      d.stop = json_integer(json_required(j, where, "stop"), where, "stop");
    }
    if (const auto it = j.find("padding"); it != j.end()) {
      if (!it->is_array() || it->size() != 2) reject_json(where, "padding", describe_json(*it), "a pair of integers");
      d.padding = {json_integer((*it)[0], where, "padding[0]", 0), json_integer((*it)[1], where, "padding[1]", 0)};
    }
    d.periodic = json_flag(j, where, "periodic", false);
  } else if (d.dist_type == 'c') {
    d.start = json_integer(json_required(j, where, "start"), where, "start");
    if (const auto it = j.find("block_size"); it != j.end()) d.block_size = json_integer(*it, where, "block_size", 1);
  } else if (d.dist_type == 'u') {
    const auto& list = json_required(j, where, "indices");
    if (!list.is_array()) reject_json(where, "indices", describe_json(list), "an array of integers");
    d.indices.reserve(list.size());
    for (std::size_t k = 0; k < list.size(); ++k) d.indices.push_back(json_integer(list[k], where, dap_text("indices[", k, "]")));
    d.one_to_one = json_flag(j, where, "one_to_one", false);
  }
  return d;
}

}  // namespace detail

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
