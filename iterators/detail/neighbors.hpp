// The machinery behind neighbors.hpp (not part of the API): checked_radius.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include "../../dsi/array.hpp"
#include "../../dsi/array_view.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/index.hpp"

namespace dmap::detail {

/// `radius`, checked: every entry must be >= 0 (argument_error naming the dimension otherwise).
template <std::size_t N>
idx<N> checked_radius(const idx<N>& radius) {
  for (std::size_t d = 0; d < N; ++d)
    if (radius[d] < 0)
      throw argument_error("dmap::neighbors: radius[" + std::to_string(d) + "] is " + std::to_string(radius[d]) +
                           "; a neighbourhood radius must be >= 0");
  return radius;
}

}  // namespace dmap::detail
