// The compiled part of dists/dimensional.hpp: the cuts of single dimensions
// (dimension_cut), which do not depend on the rank, and the library's instantiations of the
// Dimensional map (runtime/precompiled.hpp). The maps built on it (Cyclic, BlockCyclic,
// Irregular Block) have sources of their own, so that each domain model is the only caller
// of dimensional_domain's inline locale_of in its translation unit and inlines it as a
// program would.
#include "dimensional.hpp"

namespace dmap {

dimension_cut::dimension_cut(const dimension_cut&) = default;
dimension_cut::dimension_cut(dimension_cut&&) noexcept = default;
dimension_cut& dimension_cut::operator=(const dimension_cut&) = default;
dimension_cut& dimension_cut::operator=(dimension_cut&&) noexcept = default;
dimension_cut::~dimension_cut() = default;

dimension_cut::dimension_cut(const dim_spec& spec, const range& whole, int parts, std::size_t d, int own)
    : spec_(spec), whole_(whole), parts_(parts) {
  low_ = whole.empty() ? whole.lo() : whole.aligned_low();
  high_ = whole.empty() ? whole.lo() : whole.aligned_high() + 1;
  if (const auto* u = std::get_if<unstructured_dim>(&spec)) build_table(*u, d);
  if (own >= 0 && own < parts) {
    own_ = own;
    own_pieces_ = ordered_pieces(own);
    own_positions_ = positions_of(own_pieces_);
  }
}

std::vector<range> dimension_cut::pieces(int k) const { return k == own_ ? own_pieces_ : ordered_pieces(k); }

std::vector<index_t> dimension_cut::positions(int k) const {
  return k == own_ ? own_positions_ : positions_of(pieces(k));
}

index_t dimension_cut::count(int k) const {
  index_t n = 0;
  for (const auto& r : pieces(k)) n += r.size();
  return n;
}

std::vector<range> dimension_cut::pieces_meeting(int k, const range& r) const {
  std::vector<range> out;
  const range within = whole_.intersect(r);
  if (within.empty()) return out;
  const auto* bc = std::get_if<block_cyclic_dim>(&spec_);
  if (k != own_ && bc && bc->block_size > 1 && parts_ > 1 && detail::abs_index(whole_.stride()) == 1) {
    // Blocks dealt to k between the bounds of `within`; with unit stride and p > 1 no two
    // of k's blocks touch, so these are exactly k's pieces there.
    using detail::wide_int;
    const index_t s = bc->start.value_or(low_), b = bc->block_size;
    const auto [lo, hi] = std::pair{within.lo(), std::max(within.lo(), within.hi() - 1)};
    const wide_int first_block = detail::floor_div_wide(static_cast<wide_int>(lo) - s, b);
    const wide_int last_block = detail::floor_div_wide(static_cast<wide_int>(hi) - s, b);
    for (wide_int j = first_block + detail::floor_mod_wide(k - first_block, parts_); j <= last_block; j += parts_) {
      const wide_int begin = std::max<wide_int>(static_cast<wide_int>(s) + j * b, low_);
      const wide_int end = std::min<wide_int>(static_cast<wide_int>(s) + (j + 1) * b, high_);
      if (begin < end) out.push_back(whole_.intersect(range(static_cast<index_t>(begin), static_cast<index_t>(end))));
    }
    if (whole_.stride() < 0) std::reverse(out.begin(), out.end());
    return out;
  }
  for (const auto& p : pieces(k))
    if (!p.intersect(within).empty()) out.push_back(p);
  return out;
}

std::vector<int> dimension_cut::coordinates_meeting(const range& r) const {
  std::vector<int> out;
  const range within = whole_.intersect(r);
  if (within.empty()) return out;
  const auto all = [&] {
    out.resize(static_cast<std::size_t>(parts_));
    for (int k = 0; k < parts_; ++k) out[static_cast<std::size_t>(k)] = k;
  };
  const index_t lo = within.lo(), hi = std::max(within.lo(), within.hi() - 1);
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, block_dim> || std::is_same_v<X, irregular_dim>) {
          for (int k = owner(lo); k <= owner(hi); ++k) out.push_back(k);
        } else if constexpr (std::is_same_v<X, none_dim>) {
          out.push_back(0);
        } else if constexpr (std::is_same_v<X, cyclic_dim> || std::is_same_v<X, block_cyclic_dim>) {
          // The coordinates of the blocks (single indices when cyclic) between the bounds:
          // every coordinate once they number p or more.
          using detail::wide_int;
          const index_t s = x.start.value_or(low_), b = block_size_of(x);
          const wide_int first_block = detail::floor_div_wide(static_cast<wide_int>(lo) - s, b);
          const wide_int last_block = detail::floor_div_wide(static_cast<wide_int>(hi) - s, b);
          if (last_block - first_block + 1 >= parts_) {
            all();
            return;
          }
          for (wide_int j = first_block; j <= last_block; ++j)
            out.push_back(static_cast<int>(detail::floor_mod_wide(j, parts_)));
          std::sort(out.begin(), out.end());
          out.erase(std::unique(out.begin(), out.end()), out.end());
        } else {  // replicated, unstructured: any coordinate
          all();
        }
      },
      spec_);
  return out;
}

std::vector<std::pair<int, range>> dimension_cut::pieces_meeting(const range& r) const {
  std::vector<std::pair<int, range>> out;
  const range within = whole_.intersect(r);
  if (within.empty()) return out;
  const auto* cyclic = std::get_if<cyclic_dim>(&spec_);
  const auto* bc = std::get_if<block_cyclic_dim>(&spec_);
  if ((cyclic || (bc && bc->block_size == 1)) && detail::abs_index(whole_.stride()) == 1 &&
      detail::abs_index(r.stride()) == 1 && within.size() >= parts_) {
    // `within` holds parts_ consecutive indices, so every coordinate's one strided piece
    // (compute_pieces) meets it.
    const index_t first = detail::floor_mod(cyclic ? cyclic->start.value_or(low_) : bc->start.value_or(low_), parts_);
    out.reserve(static_cast<std::size_t>(parts_));
    for (int k = 0; k < parts_; ++k) {
      const range piece = whole_.intersect(range(low_, high_, parts_, first + k));
      if (!piece.empty()) out.emplace_back(k, piece);
    }
    return out;
  }
  for (int k : coordinates_meeting(r))
    for (const range& piece : pieces_meeting(k, r)) out.emplace_back(k, piece);
  return out;
}

std::vector<range> dimension_cut::ordered_pieces(int k) const {
  std::vector<range> list = compute_pieces(k);
  if (whole_.stride() < 0 && !std::holds_alternative<unstructured_dim>(spec_)) std::reverse(list.begin(), list.end());
  return list;
}

std::vector<index_t> dimension_cut::positions_of(const std::vector<range>& pieces) {
  std::vector<index_t> out;
  index_t at = 0;
  for (const auto& r : pieces) out.push_back(at), at += r.size();
  return out;
}

std::vector<range> dimension_cut::compute_pieces(int k) const {
  std::vector<range> out;
  if (whole_.empty()) return out;
  const auto keep = [&](const range& r) {
    const range part = whole_.intersect(r);
    if (part.empty()) return;
    // A piece that continues the previous one in the same direction extends it (blocks
    // dealt to one coordinate only, e.g. block-cyclic over one locale along a dimension).
    if (!out.empty() && out.back().stride() == part.stride() && out.back().size() > 0 &&
        out.back().last() + part.stride() == part.first()) {
      out.back() = range::counted(out.back().first(), out.back().size() + part.size(), part.stride());
      return;
    }
    out.push_back(part);
  };
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, block_dim>) {
          keep(block<1>::chunk_indices(whole_, low_, high_, parts_, k));
        } else if constexpr (std::is_same_v<X, cyclic_dim>) {
          // The alignment start + k, reduced first: start may lie anywhere in int64.
          if (high_ > low_) keep(range(low_, high_, parts_, detail::floor_mod(x.start.value_or(low_), parts_) + k));
        } else if constexpr (std::is_same_v<X, block_cyclic_dim>) {
          const index_t s = x.start.value_or(low_), b = x.block_size;
          if (high_ <= low_) return;
          if (b == 1) {
            keep(range(low_, high_, parts_, detail::floor_mod(s, parts_) + k));
            return;
          }
          // Block numbers and bounds in 128 bits: a user's start may lie far from the
          // indices, and the last block may reach past INT64_MAX (it is cut at high_).
          using detail::wide_int;
          const wide_int first_block = detail::floor_div_wide(static_cast<wide_int>(low_) - s, b);
          const wide_int last_block = detail::floor_div_wide(static_cast<wide_int>(high_) - 1 - s, b);
          // A widely strided dimension can meet far fewer indices than blocks: then walk
          // its indices (each lies in one block) rather than the blocks.
          if ((last_block - first_block) / parts_ >= whole_.size()) {
            for (index_t n = 0; n < whole_.size(); ++n) {
              const index_t i = whole_.index_at(whole_.stride() > 0 ? n : whole_.size() - 1 - n);
              if (detail::block_cyclic_owner(i, s, b, parts_) == k) keep(range(i, i + 1));
            }
            return;
          }
          wide_int j = first_block + detail::floor_mod_wide(k - first_block, parts_);
          for (; j <= last_block; j += parts_) {
            const wide_int begin = std::max<wide_int>(static_cast<wide_int>(s) + j * b, low_);
            const wide_int end = std::min<wide_int>(static_cast<wide_int>(s) + (j + 1) * b, high_);
            keep(range(static_cast<index_t>(begin), static_cast<index_t>(end)));
          }
        } else if constexpr (std::is_same_v<X, replicated_dim> || std::is_same_v<X, none_dim>) {
          keep(whole_);
        } else if constexpr (std::is_same_v<X, unstructured_dim>) {
          // Runs of listed indices that follow each other in the dimension's order.
          const index_t s = whole_.stride();
          index_t first = 0, count = 0;
          for (index_t v : x.lists[static_cast<std::size_t>(k)]) {
            if (!whole_.contains(v)) continue;
            if (count > 0 && v == first + count * s) {
              ++count;
              continue;
            }
            if (count > 0) out.push_back(range::counted(first, count, s));
            first = v, count = 1;
          }
          if (count > 0) out.push_back(range::counted(first, count, s));
        } else {
          const index_t lo = k == 0 ? std::min(low_, whole_.lo()) : x.cuts[static_cast<std::size_t>(k - 1)];
          const index_t hi = k == parts_ - 1 ? std::max(high_, whole_.hi())
                                             : x.cuts[static_cast<std::size_t>(k)];
          if (hi > lo) keep(range(lo, hi));
        }
      },
      spec_);
  return out;
}

void dimension_cut::build_table(const unstructured_dim& u, std::size_t d) {
  for (std::size_t k = 0; k < u.lists.size(); ++k)
    for (index_t v : u.lists[k])
      if (whole_.contains(v)) table_.push_back({v, static_cast<int>(k)});
  std::sort(table_.begin(), table_.end());
  const auto where = [&] { return "dmap::dimensional: dimension " + std::to_string(d) + ": "; };
  for (std::size_t j = 1; j < table_.size(); ++j)
    if (table_[j].first == table_[j - 1].first)
      throw argument_error(where() + "index " + std::to_string(table_[j].first) + " is listed by grid coordinates " +
                           std::to_string(table_[j - 1].second) + " and " + std::to_string(table_[j].second) +
                           "; an unstructured dimension lists every index once");
  if (static_cast<index_t>(table_.size()) != whole_.size())
    for (index_t k = 0; k < whole_.size(); ++k) {
      const index_t v = whole_.index_at(k);
      if (!std::binary_search(table_.begin(), table_.end(), std::pair<index_t, int>{v, -1},
                              [](const auto& a, const auto& b) { return a.first < b.first; })) {
        std::ostringstream s;
        s << where() << "index " << v << " of " << whole_ << " is in no list; the lists of an unstructured "
          << "dimension must cover it";
        throw argument_error(s.str());
      }
    }
}

DMAP_DEFINE_PRECOMPILED(DMAP_DIMENSIONAL_INSTANCES)

}  // namespace dmap
