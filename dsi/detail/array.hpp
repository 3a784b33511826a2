// The machinery behind array.hpp (not part of the API): check_position_run, check_positions.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "../../runtime/errors.hpp"
#include "../index_type.hpp"

namespace dmap::detail {

/// Throws unless positions [first, first + count) lie in [0, size) (row-major positions of
/// an index set of `size` indices): argument_error for a negative count, out_of_bounds_error
/// for positions outside. `who` starts the message.
inline void check_position_run(const char* who, index_t first, index_t count, index_t size) {
  if (count < 0) throw argument_error(std::string(who) + ": count is " + std::to_string(count) + "; a count of elements must be >= 0");
  if (first >= 0 && first <= size && count <= size - first) return;
  std::ostringstream s;
  s << who << ": positions [" << first << ", " << first << " + " << count << ") reach outside [0, " << size
    << "); the array has " << size << " elements, at row-major positions 0 to " << size - 1;
  throw out_of_bounds_error(s.str());
}
/// Throws out_of_bounds_error naming the first of `positions` outside [0, size).
inline void check_positions(const char* who, const std::vector<index_t>& positions, index_t size) {
  for (std::size_t k = 0; k < positions.size(); ++k) {
    if (positions[k] >= 0 && positions[k] < size) continue;
    std::ostringstream s;
    s << who << ": position " << positions[k] << " (entry " << k << " of " << positions.size()
      << ") is outside [0, " << size << "); the array has " << size << " elements";
    throw out_of_bounds_error(s.str());
  }
}

}  // namespace dmap::detail
