// One alias hides whether range-v3 or std::ranges provides the views dmap uses; the day
// std::ranges has them all, this line changes and nothing else.
#pragma once

#include <range/v3/view/iota.hpp>
#include <range/v3/view/transform.hpp>

namespace dmap {
/// The ranges library in use.
namespace rng = ::ranges;
}  // namespace dmap
