// The 2-D maps that the zip, assignment and view tests pair with each other: a name and a
// factory of domains over any rect.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "../dmap.hpp"
#include "../examples/custom_dist/weighted_block.hpp"

namespace dmap::testing::maps {

using dmap::idx;
using dmap::index_t;
using dmap::rect;

/// A named way to make a 2-D domain over any rect.
struct maker {
  std::string name;
  std::function<dmap::domain<2>(const rect<2>&)> make;
  bool directory = false;  // kept in a directory (Hashed, Unstructured)
};

/// Every kind of 2-D map: Block on three grids, Cyclic, BlockCyclic, Irregular Block, a
/// column-major Dimensional mix, Replicated, Stencil, the user-defined weighted_block, Hashed
/// and Unstructured (uneven cuts for every rect).
inline std::vector<maker> makers() {
  const int p = dmap::num_locales();
  std::vector<maker> out;
  out.push_back({"block", [](const rect<2>& r) { return dmap::domain<2>{dmap::block<2>{}, r}; }});
  out.push_back({"block rows", [p](const rect<2>& r) { return dmap::domain<2>{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, r}; }});
  out.push_back({"block cols", [p](const rect<2>& r) { return dmap::domain<2>{dmap::block<2>{dmap::target_grid<2>{{1, p}}}, r}; }});
  out.push_back({"cyclic", [](const rect<2>& r) { return dmap::domain<2>{dmap::cyclic<2>{}, r}; }});
  out.push_back({"block_cyclic(2, 3)", [](const rect<2>& r) {
                   return dmap::domain<2>{dmap::block_cyclic<2>{{2, 3}}, r};
                 }});
  out.push_back({"irregular", [](const rect<2>& r) {
                   // Uneven cut points inside the bounds: locale k of p starts at k^2 / p^2 of each extent.
                   std::array<std::vector<index_t>, 2> cuts;
                   const auto grid = dmap::target_grid<2>{};
                   for (std::size_t d = 0; d < 2; ++d) {
                     const index_t lo = std::min(r.dim(d).first(), r.dim(d).last());
                     const index_t hi = std::max(r.dim(d).first(), r.dim(d).last()) + 1;
                     const int parts = grid.extent(d);
                     for (int k = 1; k < parts; ++k) cuts[d].push_back(lo + (hi - lo) * k * k / (parts * parts));
                   }
                   return dmap::domain<2>{dmap::irregular_block<2>{cuts, grid}, r};
                 }});
  out.push_back({"dimensional(block_cyclic, cyclic) column-major", [](const rect<2>& r) {
                   return dmap::domain<2>{dmap::dimensional<2>({dmap::block_cyclic_dim{2}, dmap::cyclic_dim{}},
                                                                dmap::target_grid<2>{}, dmap::storage_order::column_major),
                                          r};
                 }});
  out.push_back({"replicated", [](const rect<2>& r) { return dmap::domain<2>{dmap::replicated<2>{}, r}; }});
  out.push_back({"stencil(1)", [](const rect<2>& r) { return dmap::domain<2>{dmap::stencil<2>{{1, 1}}, r}; }});
  out.push_back({"weighted_block", [](const rect<2>& r) {
                   return dmap::domain<2>{custom_dist::weighted_block<2>::increasing(), r};
                 }});
  out.push_back({"hashed", [](const rect<2>& r) { return dmap::domain<2>{dmap::hashed<2>{}, r}; }, true});
  out.push_back({"unstructured", [p](const rect<2>& r) {
                   // Row-major orders dealt round robin in blocks of 5, listed backwards.
                   std::vector<idx<2>> mine;
                   for (index_t k = r.size() - 1; k >= 0; --k)
                     if ((k / 5) % p == dmap::here()) mine.push_back(r.index_at(k));
                   return dmap::domain<2>{dmap::unstructured<2>{mine}, r};
                 }, true});
  return out;
}

}  // namespace dmap::testing::maps
