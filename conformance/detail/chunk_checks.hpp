// 4. Chunks: a locale's pieces, densified against the whole index set and cut into chunks for
// 1, 2, 3 and 7 threads, then undensified, cover the locale's part exactly once, each chunk
// inside its piece; undensify(densify(piece)) is the piece.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "../../dsi/detail/chunks.hpp"
#include "../../dsi/domain.hpp"
#include "../index_sets.hpp"
#include "ordered_rect.hpp"
#include "report.hpp"
#include "text.hpp"

namespace dmap::conformance::detail {

/// Check 4 for this locale's pieces of `D` (whose index set is `w`).
template <std::size_t N>
void check_chunks(recorder& b, const dmap::domain<N>& D, const ordered_rect<N>& w) {
  local_report chunks;
  guarded(chunks, [&] {
    const auto& whole = D.indices();
    const auto& subs = D.local_subdomains();
    std::vector<dmap::dense_rect<N>> pieces;
    for (const auto& s : subs) pieces.push_back(dmap::densify(whole, s));
    for (std::size_t k = 0; k < subs.size(); ++k) {
      const auto back = indices_of(dmap::undensify(whole, pieces[k]));
      if (back != indices_of(subs[k])) chunks.fail(str("undensify(densify(", subs[k], ")) differs from it"));
    }
    for (int threads : {1, 2, 3, 7}) {
      std::unordered_map<index_t, int> seen;
      for (const auto& c : dmap::detail::cut_into_chunks(pieces, threads)) {
        if (c.piece >= subs.size()) {
          chunks.fail(str(threads, " threads: a chunk names piece ", c.piece, " of ", subs.size()));
          continue;
        }
        const ordered_rect<N> piece(subs[c.piece]);
        for (const auto& i : indices_of(dmap::undensify(whole, c.orders))) {
          if (piece.order(i) < 0)
            chunks.fail(str(threads, " threads: chunk index ", i, " is outside its piece ", subs[c.piece]));
          ++seen[w.order(i)];
        }
      }
      index_t owned = 0;
      for (const auto& s : subs)
        for (const auto& i : indices_of(s)) {
          ++owned;
          const auto it = seen.find(w.order(i));
          if (it == seen.end() || it->second != 1)
            chunks.fail(str(threads, " threads: owned index ", i, " is in ", it == seen.end() ? 0 : it->second,
                            " chunks"));
        }
      if (static_cast<index_t>(seen.size()) != owned)
        chunks.fail(str(threads, " threads: the chunks hold ", seen.size(), " indices, the locale owns ", owned));
    }
  });
  b.add("4. chunks cover the local part exactly once", chunks);
}

}  // namespace dmap::conformance::detail
