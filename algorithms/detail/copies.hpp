// The machinery behind copies.hpp (not part of the API): copies_plans.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/detail/domain_state.hpp"
#include "../../dsi/detail/locator.hpp"
#include "../../dsi/detail/transfer.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"

namespace dmap::detail {

/// The copy-refresh plan a domain kept in a directory keeps (its cache of this type).
template <std::size_t N>
struct copies_plans {
  generation_plan<N> plan;
};

}  // namespace dmap::detail
