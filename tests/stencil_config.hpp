// One Stencil test configuration (indices, ghost widths, periodic flags, grid, storage order),
// its description and its domain: shared by the Stencil and star-halo tests.
#pragma once

#include <array>
#include <cstddef>
#include <sstream>
#include <string>

#include "oracle.hpp"
#include "support.hpp"

namespace dmap::testing::stencil_config {

/// A Stencil domain to test: indices, ghost widths, periodic flags, grid, storage order.
template <std::size_t N>
struct config {
  rect<N> r;
  idx<N> fluff;
  std::array<bool, N> periodic{};
  std::array<int, N> grid{};
  dmap::storage_order order = dmap::storage_order::row_major;
};

/// "rect ... fluff ... periodic (...) grid ... row-major on P locale(s)".
template <std::size_t N>
std::string describe(const config<N>& c) {
  std::ostringstream s;
  s << "rect " << c.r << " fluff " << c.fluff << " periodic (";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << c.periodic[d];
  s << ") grid " << oracle::shape_text(c.grid)
    << (c.order == dmap::storage_order::row_major ? " row-major" : " column-major") << " on "
    << dmap::num_locales() << " locale(s)";
  return s.str();
}

/// The domain of `c`.
template <std::size_t N>
dmap::domain<N> make_domain(const config<N>& c) {
  return dmap::domain<N>{dmap::stencil<N>{c.fluff, c.periodic, dmap::target_grid<N>{c.grid}, c.order}, c.r};
}

}  // namespace dmap::testing::stencil_config
