// A condition false for every type, so that a static_assert naming the rule a misuse breaks
// fires only when the misused template is instantiated (a member that was renamed, a loop
// over operands that cannot run together).
#pragma once

namespace dmap::detail {

/// False for every type: delays a static_assert until a misuse is instantiated.
template <class...>
inline constexpr bool misuse = false;

}  // namespace dmap::detail
