// How a locale's pieces of an index set are cut into chunks (dense rects), one task each.
// The cut depends only on the pieces and the thread count, so every loop over the same
// domain meets the same threads (first touch).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "../../runtime/precompiled.hpp"
#include "../rect.hpp"

namespace dmap::detail {

/// The fewest indices a chunk is given when a piece is split (Chapel's
/// dataParMinGranularity, raised to amortise task start-up).
inline constexpr index_t min_chunk_indices = 4096;

/// Part k of p of the dense range `r`, cut by Chapel's _computeBlock rule.
inline range cut_range(const range& r, index_t parts, index_t k) {
  const index_t n = r.size();
  const index_t begin = n * k / parts, end = n * (k + 1) / parts;
  return range::counted(r.first() + begin * r.stride(), end - begin, r.stride());
}

/// One task's work: a dense rect inside piece `piece` of the leader's local pieces.
template <std::size_t N>
struct work_chunk {
  dense_rect<N> orders;
  std::size_t piece = 0;
};

/// Cuts `pieces` (dense rects) into chunks for `threads` threads: a piece becomes
/// ceil(threads * |piece| / total) chunks (at least min_chunk_indices each), split along the
/// first dimension long enough (Chapel's _computeChunkStuff), else its longest one. Many
/// small pieces stay whole; the task runner hands each thread a contiguous run of chunks.
template <std::size_t N>
std::vector<work_chunk<N>> cut_into_chunks(const std::vector<dense_rect<N>>& pieces, int threads) {
  std::vector<work_chunk<N>> chunks;
  index_t total = 0;
  for (const auto& p : pieces) total += p.size();
  if (total == 0) return chunks;
  for (std::size_t pi = 0; pi < pieces.size(); ++pi) {
    const auto& p = pieces[pi];
    const index_t size = p.size();
    if (size == 0) continue;
    index_t parts = (static_cast<index_t>(threads) * size + total - 1) / total;
    parts = std::max<index_t>(1, std::min(parts, size / min_chunk_indices));
    if (parts == 1) {
      chunks.push_back({p, pi});
      continue;
    }
    std::size_t dim = N;
    for (std::size_t d = 0; d < N && dim == N; ++d)
      if (p.dim(d).size() >= parts) dim = d;
    if (dim == N) {
      dim = 0;
      for (std::size_t d = 1; d < N; ++d)
        if (p.dim(d).size() > p.dim(dim).size()) dim = d;
      parts = p.dim(dim).size();
    }
    for (index_t k = 0; k < parts; ++k) {
      dense_rect<N> c = p;
      c.set_dim(dim, cut_range(p.dim(dim), parts, k));
      chunks.push_back({c, pi});
    }
  }
  return chunks;
}

/// Cuts the offsets [0, span) of a locale's storage into contiguous runs, one per thread
/// (none shorter than min_chunk_indices): the split used when a loop walks the storage
/// itself rather than the pieces (see `domain_state::dense_storage`).
inline std::vector<std::pair<index_t, index_t>> cut_storage(index_t span, int threads) {
  std::vector<std::pair<index_t, index_t>> runs;
  if (span <= 0) return runs;
  const index_t parts = std::max<index_t>(1, std::min<index_t>(threads, span / min_chunk_indices));
  for (index_t k = 0; k < parts; ++k) runs.emplace_back(span * k / parts, span * (k + 1) / parts);
  return runs;
}

/// Calls `f(k)` for every combination k of positions in the first N-1 dimensions of
/// `extents` (k[N-1] stays 0), in row-major order: one call per row of a block.
template <std::size_t N, class F>
void for_each_row_start(const std::array<index_t, N>& extents, F&& f) {
  for (std::size_t d = 0; d < N; ++d)
    if (extents[d] <= 0) return;
  std::array<index_t, N> k{};
  while (true) {
    f(static_cast<const std::array<index_t, N>&>(k));
    std::size_t d = N - 1;
    while (d-- > 0) {
      if (++k[d] < extents[d]) break;
      k[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

/// A loop leader's local pieces of its index set `whole`, densified, and the chunks
/// cut_into_chunks cuts them into for `threads` threads.
template <std::size_t N>
std::pair<std::vector<dense_rect<N>>, std::vector<work_chunk<N>>> dense_pieces_and_chunks(
    const rect<N>& whole, const std::vector<rect<N>>& pieces, int threads) {
  std::vector<dense_rect<N>> dense;
  dense.reserve(pieces.size());
  for (const auto& p : pieces) dense.push_back(densify(whole, p));
  auto chunks = cut_into_chunks(dense, threads);
  return {std::move(dense), std::move(chunks)};
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_CHUNKS_INSTANCES(N, how)                                                          \
  how std::vector<work_chunk<N>> cut_into_chunks<N>(const std::vector<dense_rect<N>>&, int);  \
  how std::pair<std::vector<dense_rect<N>>, std::vector<work_chunk<N>>> dense_pieces_and_chunks<N>( \
      const rect<N>&, const std::vector<rect<N>>&, int);
DMAP_DECLARE_PRECOMPILED(DMAP_CHUNKS_INSTANCES)

}  // namespace dmap::detail
