// The machinery behind dap_json.hpp (not part of the API): a JSON parse bounded in depth, and
// the readers of the keys of a DAP description that reject what does not fit.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "../dap.hpp"
#include "../dap_import.hpp"

namespace dmap {

namespace detail {

/// The deepest nesting of arrays and objects json_parse_bounded reads (dmap::dap_json_depth_limit).
inline constexpr int json_depth_limit = 64;

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
        depth >= json_depth_limit)
      throw argument_error(who + ": the text has arrays or objects nested deeper than " +
                           std::to_string(json_depth_limit) + " levels (dap_json_depth_limit); a DAP description needs 4");
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

}  // namespace dmap
