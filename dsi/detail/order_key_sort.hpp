// Sorting the indices of one rect by an integer key: an index's place in a nested order of
// the rect's dimensions (ascending values along each), so a sparse layout sorts 8-byte keys
// instead of comparing N-tuples.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../index.hpp"
#include "../rect.hpp"

namespace dmap::detail {

/// Sorts `indices` (all inside `piece`) in the order that compares dimension dims[0] first,
/// then dims[1], ..., each by ascending value, and drops repeats. Falls back to comparing
/// tuples when the piece holds more than 2^63 - 1 indices.
template <std::size_t N>
void sort_unique_by_key(const rect<N>& piece, const std::array<std::size_t, N>& dims, std::vector<idx<N>>& indices) {
  std::array<index_t, N> low{}, step{}, weight{};
  wide_int span = 1;
  for (std::size_t j = N; j-- > 0;) {
    const std::size_t d = dims[j];
    const range& r = piece.dim(d);
    low[d] = r.empty() ? 0 : r.aligned_low();
    step[d] = abs_index(r.stride());
    weight[d] = static_cast<index_t>(span);
    span *= r.size();
  }
  const auto before = [&](const idx<N>& a, const idx<N>& b) {
    for (std::size_t d : dims)
      if (a[d] != b[d]) return a[d] < b[d];
    return false;
  };
  if (span > static_cast<wide_int>(INT64_MAX)) {
    std::sort(indices.begin(), indices.end(), before);
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    return;
  }
  std::vector<index_t> keys(indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    index_t key = 0;
    for (std::size_t d = 0; d < N; ++d) key += (indices[k][d] - low[d]) / step[d] * weight[d];
    keys[k] = key;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  indices.resize(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    index_t rest = keys[k];
    for (std::size_t d : dims) {
      indices[k][d] = low[d] + rest / weight[d] * step[d];
      rest %= weight[d];
    }
  }
}

}  // namespace dmap::detail
