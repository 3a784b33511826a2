// Element values of the checks: formulas of the index, so every expected value is known
// without the library.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../dsi/index.hpp"

namespace dmap::conformance::detail {

/// A distinct value >= 1 per index (for indices in (-500, 500)).
template <std::size_t N>
std::int64_t fval(const idx<N>& i) {
  std::int64_t v = 0;
  for (std::size_t d = 0; d < N; ++d) v = v * 1000 + (i[d] + 500);
  return v + 1;
}
/// A double computed from an element, exact in binary.
inline double gval(std::int64_t a) { return static_cast<double>(a % 1000) - 0.5; }
/// A value per index for domain reductions.
template <std::size_t N>
std::int64_t hval(const idx<N>& i) {
  std::int64_t v = 7;
  for (std::size_t d = 0; d < N; ++d) v += static_cast<std::int64_t>(d + 1) * i[d] * i[d] - 3 * i[d];
  return v;
}

}  // namespace dmap::conformance::detail
