// A rect with its brute-force index lists: the position of an index in each dimension's
// iteration order, the row-major order of an index, and the index at an order.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <unordered_map>
#include <vector>

#include "../index_sets.hpp"

namespace dmap::conformance::detail {

/// A rect with its per-dimension index lists (from indices_of) and the positions in them.
template <std::size_t N>
struct ordered_rect {
  rect<N> r;
  std::array<std::vector<index_t>, N> seq{};
  std::array<std::unordered_map<index_t, index_t>, N> pos{};
  index_t size = 1;

  explicit ordered_rect(const rect<N>& rr) : r(rr) {
    for (std::size_t d = 0; d < N; ++d) {
      seq[d] = indices_of(rr.dim(d));
      for (std::size_t k = 0; k < seq[d].size(); ++k) pos[d][seq[d][k]] = static_cast<index_t>(k);
      size *= static_cast<index_t>(seq[d].size());
    }
  }
  /// The position of v in dimension d's iteration order, or -1.
  index_t position(std::size_t d, index_t v) const {
    const auto it = pos[d].find(v);
    return it == pos[d].end() ? -1 : it->second;
  }
  /// The row-major order of `i`, or -1 when it is not an index.
  index_t order(const idx<N>& i) const {
    index_t k = 0;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t p = position(d, i[d]);
      if (p < 0) return -1;
      k = k * static_cast<index_t>(seq[d].size()) + p;
    }
    return k;
  }
  /// The index at row-major order k.
  idx<N> at(index_t k) const {
    idx<N> i{};
    for (std::size_t d = N; d-- > 0;) {
      const auto n = static_cast<index_t>(seq[d].size());
      i[d] = seq[d][static_cast<std::size_t>(k % n)];
      k /= n;
    }
    return i;
  }
  /// The smallest index of dimension d, and one past the largest (dimension not empty).
  index_t low(std::size_t d) const { return std::min(seq[d].front(), seq[d].back()); }
  index_t high(std::size_t d) const { return std::max(seq[d].front(), seq[d].back()) + 1; }
};

}  // namespace dmap::conformance::detail
