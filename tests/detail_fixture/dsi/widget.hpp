#pragma once

#include "detail/widget_parts.hpp"

namespace dmap {

struct widget {};

namespace detail {
struct widget_part {};
}  // namespace detail

}  // namespace dmap
