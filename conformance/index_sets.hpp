// Brute-force oracles of index sets: the indices of a range or a rect listed by scanning
// integers, reading a range only through lo, hi, stride and alignment (no dmap arithmetic),
// so that owner rules and checks do not trust the code they check.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <sstream>
#include <vector>

#include "../dsi/index.hpp"
#include "../dsi/range.hpp"
#include "../dsi/rect.hpp"
#include "../runtime/errors.hpp"

namespace dmap::conformance {

/// The indices of `r` in iteration order, by brute force: every integer i of [lo, hi) with
/// (i - alignment) mod |stride| == 0, descending for a negative stride. Throws
/// dmap::argument_error for a range reaching beyond +-2^40 or spanning more than 10^7 integers.
inline std::vector<index_t> indices_of(const range& r) {
  std::vector<index_t> out;
  if (r.hi() <= r.lo()) return out;
  if (r.lo() < -(index_t{1} << 40) || r.hi() > (index_t{1} << 40) || r.hi() - r.lo() > 10'000'000) {
    std::ostringstream s;
    s << "dmap::conformance::indices_of: the range " << r
      << " is too long to enumerate (the bounds must lie within +-2^40, at most 10^7 integers apart)";
    throw argument_error(s.str());
  }
  const index_t step = r.stride() < 0 ? -r.stride() : r.stride();
  for (index_t i = r.lo(); i < r.hi(); ++i)
    if (((i - r.alignment()) % step + step) % step == 0) out.push_back(i);
  if (r.stride() < 0) std::reverse(out.begin(), out.end());
  return out;
}

/// The indices of `r` in row-major order: the product of its dimensions' indices_of, the last
/// dimension varying fastest.
template <std::size_t N>
std::vector<idx<N>> indices_of(const rect<N>& r) {
  std::array<std::vector<index_t>, N> dims;
  for (std::size_t d = 0; d < N; ++d) {
    dims[d] = indices_of(r.dim(d));
    if (dims[d].empty()) return {};
  }
  std::vector<idx<N>> out;
  std::array<std::size_t, N> c{};
  while (true) {
    idx<N> i{};
    for (std::size_t d = 0; d < N; ++d) i[d] = dims[d][c[d]];
    out.push_back(i);
    std::size_t d = N;
    while (d-- > 0) {
      if (++c[d] < dims[d].size()) break;
      c[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return out;
  }
}

}  // namespace dmap::conformance
