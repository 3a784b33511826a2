// The rules of a local layout (dsi/local_layout.hpp), checked by brute force: on one locale's
// owned rects and layouts (what the kit's check 3 runs on every locale of every case), and on
// what a layout model's place(pieces) returns (for authors of layouts, and dmap's own tests).
// Offsets are recomputed from the brute-force index lists (positions in each dimension's
// iteration order times the strides), so the checks do not trust dense_layout::offset_of.
#pragma once

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../dsi/layout.hpp"
#include "../dsi/local_layout.hpp"
#include "../dsi/rect.hpp"
#include "detail/ordered_rect.hpp"
#include "detail/text.hpp"
#include "index_sets.hpp"

namespace dmap::conformance {

/// How many violations the checks below list before they stop looking.
inline constexpr std::size_t max_violations = 20;

/// The ways one locale's storage breaks the local_layout rules (empty when it keeps them):
/// one layout per owned rect; layouts[k] holds owned[k]; offset_of(i) of every index a layout
/// stores is its offset plus the positions times the strides, inside [0, storage size) (the
/// storage size being the largest end, as arrays allocate); no two stored indices share an
/// element; and, unless `gaps_allowed`, the storage is compact (every element is some index's:
/// what the library's maps promise, padded rows aside).
template <std::size_t N>
std::vector<std::string> layout_rule_violations(const std::vector<rect<N>>& owned,
                                                const std::vector<dense_layout<N>>& layouts,
                                                bool gaps_allowed = false) {
  using detail::str;
  std::vector<std::string> out;
  const auto fail = [&](std::string s) {
    if (out.size() < max_violations) out.push_back(std::move(s));
  };
  if (owned.size() != layouts.size()) {
    fail(str(owned.size(), " subdomains but ", layouts.size(), " layouts"));
    return out;
  }
  // The buffer: one past the largest element any layout uses, by the layout's own numbers.
  index_t span = 0;
  std::vector<detail::ordered_rect<N>> frames;
  for (const auto& l : layouts) {
    frames.emplace_back(l.indices);
    const auto& f = frames.back();
    index_t end = l.offset;
    if (f.size > 0) {
      end = l.offset + 1;
      for (std::size_t d = 0; d < N; ++d) end += (static_cast<index_t>(f.seq[d].size()) - 1) * l.strides[d];
    }
    span = std::max(span, end);
  }
  std::unordered_map<index_t, std::pair<std::size_t, idx<N>>> used;
  index_t stored = 0;
  for (std::size_t k = 0; k < layouts.size() && out.size() < max_violations; ++k) {
    const auto& l = layouts[k];
    const auto& f = frames[k];
    for (index_t o = 0; o < f.size; ++o) {
      const auto i = f.at(o);
      ++stored;
      index_t want = l.offset;
      for (std::size_t d = 0; d < N; ++d) want += f.position(d, i[d]) * l.strides[d];
      const index_t got = l.offset_of(i);
      if (got != want) fail(str("layout ", k, ": offset_of(", i, ") is ", got, ", expected ", want));
      if (got < 0 || got >= span) fail(str("layout ", k, ": offset_of(", i, ") = ", got, " is outside [0, ", span, ")"));
      const auto [it, fresh] = used.emplace(got, std::pair{k, i});
      if (!fresh)
        fail(str(i, " (layout ", k, ") and ", it->second.second, " (layout ", it->second.first, ") share element ",
                 got));
    }
    for (const auto& i : indices_of(owned[k]))
      if (f.order(i) < 0) fail(str("layout ", k, " (", l.indices, ") does not hold owned index ", i));
  }
  if (!gaps_allowed && out.empty() && stored != span)
    fail(str("storage is not compact: ", stored, " stored indices in a buffer of ", span));
  return out;
}

/// The ways `layout.place(pieces)` breaks the local_layout rules (empty when it keeps them):
/// the parts come in piece order and the owned rects of each non-empty piece's parts
/// partition it (empty pieces have none), then layout_rule_violations on the parts' owned
/// rects and layouts. `pieces` must be disjoint, as a map's pieces on one locale are.
template <std::size_t N, class Layout>
  requires local_layout<Layout, N>
std::vector<std::string> placement_violations(const Layout& layout, const std::vector<rect<N>>& pieces,
                                              bool gaps_allowed = false) {
  using detail::str;
  const std::vector<placed_piece<N>> parts = layout.place(pieces);
  std::vector<std::string> out;
  const auto fail = [&](std::string s) {
    if (out.size() < max_violations) out.push_back(std::move(s));
  };
  std::size_t k = 0;
  for (std::size_t j = 0; j < pieces.size(); ++j) {
    const detail::ordered_rect<N> piece(pieces[j]);
    if (piece.size == 0) continue;
    std::set<idx<N>> seen;
    while (k < parts.size() && static_cast<index_t>(seen.size()) < piece.size) {
      const auto owned = indices_of(parts[k].owned);
      if (owned.empty()) fail(str(layout.name(), ": part ", k, " owns no index"));
      for (const auto& i : owned) {
        if (piece.order(i) < 0) fail(str(layout.name(), ": part ", k, " owns ", i, ", not an index of piece ", j, " ", pieces[j], " (parts must follow piece order)"));
        else if (!seen.insert(i).second) fail(str(layout.name(), ": ", i, " of piece ", j, " is owned by two parts (", k, " and an earlier one)"));
      }
      ++k;
    }
    if (static_cast<index_t>(seen.size()) != piece.size)
      fail(str(layout.name(), ": the parts own ", seen.size(), " of the ", piece.size, " indices of piece ", j, " ", pieces[j]));
  }
  if (k != parts.size()) fail(str(layout.name(), ": ", parts.size() - k, " parts beyond those of the pieces"));
  for (auto& v : layout_rule_violations(owned_rects(parts), layouts_of(parts), gaps_allowed))
    fail(layout.name() + ": " + v);
  return out;
}

}  // namespace dmap::conformance
