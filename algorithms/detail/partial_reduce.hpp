// The machinery behind partial_reduce.hpp (not part of the API): kept_dims, row_major_strides,
// for_each_index, append_segment.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/detail/domain_state.hpp"
#include "../../dsi/detail/locator.hpp"
#include "../../iterators/concepts.hpp"
#include "../../iterators/reduce.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "reduction_loop.hpp"

namespace dmap::detail {

/// The dimensions of a rank-N index set that a partial reduction keeps, given the ones it
/// folds (`Reduced`): `reduced[d]` says whether d is folded, `kept` lists the others in order.
template <std::size_t N, std::size_t... Reduced>
struct kept_dims {
  static_assert(sizeof...(Reduced) >= 1, "dmap::partial_reduce: name at least one dimension to reduce");
  static_assert(((Reduced < N) && ...), "dmap::partial_reduce: a reduced dimension must be below the input's rank");
  static constexpr std::array<bool, N> reduced = [] {
    std::array<bool, N> m{};
    ((m[Reduced < N ? Reduced : 0] = true), ...);
    return m;
  }();
  static_assert(static_cast<std::size_t>(std::count(reduced.begin(), reduced.end(), true)) == sizeof...(Reduced),
                "dmap::partial_reduce: each reduced dimension may be named once");
  /// The rank of the output.
  static constexpr std::size_t K = N - sizeof...(Reduced);
  static_assert(K >= 1, "dmap::partial_reduce: reducing every dimension leaves no array; use dmap::reduce");
  static constexpr std::array<std::size_t, K> kept = [] {
    std::array<std::size_t, K> k{};
    std::size_t j = 0;
    for (std::size_t d = 0; d < N; ++d)
      if (!reduced[d]) k[j++] = d;
    return k;
  }();
  /// The kept dimensions of `r`.
  static rect<K> project(const rect<N>& r) {
    rect<K> out;
    for (std::size_t j = 0; j < K; ++j) out.set_dim(j, r.dim(kept[j]));
    return out;
  }
};

/// Row-major strides of a rect of `extents`.
template <std::size_t K>
std::array<index_t, K> row_major_strides(const std::array<index_t, K>& extents) {
  std::array<index_t, K> s{};
  index_t size = 1;
  for (std::size_t j = K; j-- > 0;) {
    s[j] = size;
    size *= extents[j];
  }
  return s;
}

/// Calls f(i, n) for every index i of `r` in row-major order, n counting from 0.
template <std::size_t K, class F>
void for_each_index(const rect<K>& r, F&& f) {
  if (r.empty()) return;
  const auto extents = r.shape();
  index_t n = 0;
  for_each_row_start<K>(extents, [&](const std::array<index_t, K>& k) {
    idx<K> i{};
    for (std::size_t d = 0; d + 1 < K; ++d) i[d] = r.dim(d).index_at(k[d]);
    for (index_t c = 0; c < extents[K - 1]; ++c) {
      i[K - 1] = r.dim(K - 1).index_at(c);
      f(i, n++);
    }
  });
}

/// A partial result travelling to an output owner: the output indices (a rect, as first,
/// size and stride per dimension) followed by one value per index in row-major order.
template <class T, std::size_t K, class Value>
void append_segment(std::vector<std::byte>& out, const rect<K>& s, Value&& value_at) {
  const std::size_t head = 3 * K * sizeof(index_t);
  const std::size_t at = out.size();
  out.resize(at + head + static_cast<std::size_t>(s.size()) * sizeof(T));
  std::byte* p = out.data() + at;
  for (std::size_t j = 0; j < K; ++j) {
    const index_t h[3] = {s.dim(j).first(), s.dim(j).size(), s.dim(j).stride()};
    std::memcpy(p, h, sizeof h);
    p += sizeof h;
  }
  for_each_index<K>(s, [&](const idx<K>& i, index_t) {
    const T v = value_at(i);
    std::memcpy(p, &v, sizeof(T));
    p += sizeof(T);
  });
}

}  // namespace dmap::detail
