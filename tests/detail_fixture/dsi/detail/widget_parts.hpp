#pragma once

namespace dmap::detail {
struct widget_gear {};
}  // namespace dmap::detail
