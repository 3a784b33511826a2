// Text for messages: anything streamable joined into a string; grid shapes as "2x3".
#pragma once

#include <array>
#include <cstddef>
#include <sstream>
#include <string>

namespace dmap::conformance::detail {

/// The arguments written one after another into a string.
template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  return s.str();
}

/// A grid shape as "2x3x1".
template <std::size_t N>
std::string shape_text(const std::array<int, N>& s) {
  std::string t;
  for (std::size_t d = 0; d < N; ++d) {
    if (d > 0) t += 'x';
    t += std::to_string(s[d]);
  }
  return t;
}

}  // namespace dmap::conformance::detail
