// One case as every locale agreed on it before it runs: the index set, its resizes, and which
// of them the map documents as refused (so no locale takes another branch than the others).
#pragma once

#include <cstddef>
#include <vector>

#include "../../dsi/rect.hpp"

namespace dmap::conformance::detail {

/// The index set of one case, its resizes, and the refusals the map's rule predicts.
template <std::size_t N>
struct case_plan {
  rect<N> whole{};
  std::vector<rect<N>> resizes{};
  bool large = false;                 // the large case: no resizes, skipped per-element checks
  bool refused = false;               // the map documents it refuses `whole`
  std::vector<bool> resize_refused{};  // the same for each resize
  bool gaps_allowed = false;          // options::gaps_allowed: layouts may leave unused elements
};

}  // namespace dmap::conformance::detail
