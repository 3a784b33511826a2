// The 1-D maps that the extreme-value and bad-input tests sweep: a name and a domain over any
// valid rect, at the int64 limits too.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "../dmap.hpp"

namespace dmap::testing::maps {

/// Every kind of 1-D map: formula maps, directory maps, copies, ghost cells.
enum class map_kind { block, cyclic, block_cyclic, irregular, hashed, unstructured, replicated, stencil };

/// All of them, in the order the sweeps run.
inline constexpr map_kind all_maps[] = {map_kind::block,     map_kind::cyclic, map_kind::block_cyclic,
                                        map_kind::irregular, map_kind::hashed, map_kind::unstructured,
                                        map_kind::replicated, map_kind::stencil};

/// The map's name as the tests print it.
inline const char* name_of(map_kind k) {
  switch (k) {
    case map_kind::block: return "block";
    case map_kind::cyclic: return "cyclic";
    case map_kind::block_cyclic: return "block_cyclic";
    case map_kind::irregular: return "irregular";
    case map_kind::hashed: return "hashed";
    case map_kind::unstructured: return "unstructured";
    case map_kind::replicated: return "replicated";
    case map_kind::stencil: return "stencil";
  }
  return "?";
}

/// Collective: a 1-D domain of `r` under map `k`. BlockCyclic has blocks of 2, Stencil a ghost
/// width of 1. Irregular: locale q < p - 1 owns the index at position q (when there is one) and
/// the last locale the rest. Unstructured: positions dealt round the locales, listed backwards.
/// Cuts and lists are made from positions, never by adding to an index, so they cannot overflow.
inline dmap::domain<1> domain_of(map_kind k, const rect<1>& r) {
  const int p = dmap::num_locales();
  const range& dim = r.dim(0);
  const index_t n = dim.size();
  switch (k) {
    case map_kind::block: return {dmap::block<1>{}, r};
    case map_kind::cyclic: return {dmap::cyclic<1>{}, r};
    case map_kind::block_cyclic: return {dmap::block_cyclic<1>{idx<1>{2}}, r};
    case map_kind::irregular: {
      std::vector<index_t> cuts;
      const auto ascending = [&](index_t q) { return dim.index_at(dim.stride() > 0 ? q : n - 1 - q); };
      for (int q = 1; q < p; ++q)
        cuts.push_back(q < n ? ascending(q) : n == 0 ? std::max(dim.lo(), dim.hi()) : ascending(n - 1) + 1);
      return {dmap::irregular_block<1>{{cuts}}, r};
    }
    case map_kind::hashed: return {dmap::hashed<1>{}, r};
    case map_kind::unstructured: {
      std::vector<idx<1>> mine;
      for (index_t k2 = n; k2-- > 0;)
        if (k2 % p == (dmap::here() + 1) % p) mine.push_back(idx<1>{dim.index_at(k2)});
      return {dmap::unstructured<1>{mine}, r};
    }
    case map_kind::replicated: return {dmap::replicated<1>{}, r};
    case map_kind::stencil: return {dmap::stencil<1>{idx<1>{1}}, r};
  }
  throw std::logic_error("unknown map");
}

}  // namespace dmap::testing::maps
