// Dimensional: an N-D distribution built from one 1-D specifier per dimension (Chapel's
// DimensionalDist2D, generalised): block, cyclic, block-cyclic, irregular block,
// unstructured (explicit lists per grid coordinate, DAP 'u'), replicated or none. A locale at
// grid coordinates c owns the product of what each dimension's specifier deals to c[d]; it
// stores those indices as one dense local array (row- or column-major), so a block-cyclic
// dimension with column-major storage is ScaLAPACK's local matrix layout.
//
// A replicated dimension gives every locale along it the whole dimension: the locales that
// differ only in their coordinates along replicated dimensions hold copies of the same
// indices. The locales with equal coordinates along the replicated dimensions form a copy
// layer, which holds every index once; reads, writes, loops and reductions on a locale see
// its own layer (as Chapel's ReplicatedDim), and `replicate_from(A, root)` makes every layer
// equal to the root's.
// Cyclic, BlockCyclic and Irregular Block are dimensional maps with the same specifier in
// every dimension (dists/cyclic.hpp, block_cyclic.hpp, irregular.hpp).
//
// Chapel's descriptors: GlobalDistribution dimensional<N>, GlobalDomain
// dimensional_domain<N> (with one dimension_cut per dimension), LocalDomain
// dimensional_local_domain<N>.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../dsi/concepts.hpp"
#include "../dsi/detail/chunks.hpp"
#include "../dsi/layout.hpp"
#include "../dsi/local_domain.hpp"
#include "../dsi/rect.hpp"
#include "../layouts/product_layout.hpp"
#include "../runtime/grid.hpp"
#include "block.hpp"

namespace dmap {

/// Block along one dimension: Chapel's cut over the dimension's bounds.
struct block_dim {
  friend bool operator==(const block_dim&, const block_dim&) = default;
};
/// Cyclic along one dimension: index i goes to (i - start) mod p; start defaults to the
/// domain's low bound.
struct cyclic_dim {
  std::optional<index_t> start{};  ///< the index dealt to grid coordinate 0; unset: the domain's low bound
  friend bool operator==(const cyclic_dim&, const cyclic_dim&) = default;
};
/// Block-cyclic along one dimension: blocks of `block_size` indices from `start` (default:
/// the domain's low bound) dealt round robin; block j goes to j mod p (ScaLAPACK with source
/// process 0).
struct block_cyclic_dim {
  index_t block_size = 1;          ///< indices per block
  std::optional<index_t> start{};  ///< where the first block begins; unset: the domain's low bound
  friend bool operator==(const block_cyclic_dim&, const block_cyclic_dim&) = default;
};
/// Irregular block along one dimension: p - 1 nondecreasing cut points; locale k owns
/// [cuts[k-1], cuts[k]), the first and last locales everything below/above.
struct irregular_dim {
  std::vector<index_t> cuts{};  ///< the p - 1 cut points, nondecreasing
  friend bool operator==(const irregular_dim&, const irregular_dim&) = default;
};

/// Unstructured along one dimension: `lists[k]` holds the indices grid coordinate k owns,
/// in the order it stores them (DAP 'u'). Every index of the dimension must be in exactly
/// one list; listed values outside the dimension's range are ignored.
struct unstructured_dim {
  std::vector<std::vector<index_t>> lists{};  ///< per grid coordinate, the indices it owns
  /// What the map declares (DAP's `one_to_one`, which exports write): true promises every
  /// index is held once; false promises nothing (a DAP import without the promise). The lists
  /// place every index once either way.
  bool one_to_one = true;
  friend bool operator==(const unstructured_dim&, const unstructured_dim&) = default;
};
/// Replicated along one dimension: every grid coordinate holds the whole dimension.
struct replicated_dim {
  friend bool operator==(const replicated_dim&, const replicated_dim&) = default;
};
/// Not distributed: the grid has one locale along this dimension, which holds all of it.
struct none_dim {
  friend bool operator==(const none_dim&, const none_dim&) = default;
};

/// One dimension's specifier.
using dim_spec = std::variant<block_dim, cyclic_dim, block_cyclic_dim, irregular_dim, unstructured_dim,
                              replicated_dim, none_dim>;

namespace detail {
constexpr index_t floor_div(index_t a, index_t b) {
  const index_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/// floor(a / b) of wide integers, b > 0.
constexpr wide_int floor_div_wide(wide_int a, wide_int b) {
  const wide_int q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
/// (a mod m) of a wide integer, in [0, m) for m > 0.
constexpr index_t floor_mod_wide(wide_int a, index_t m) {
  const wide_int r = a % m;
  return static_cast<index_t>(r < 0 ? r + m : r);
}
/// The grid coordinate (of p) that a cyclic dimension starting at `start` deals index i to:
/// (i - start) mod p, without overflow when i and start lie far apart.
constexpr int cyclic_owner(index_t i, index_t start, int p) {
  index_t distance = 0;
  if (!__builtin_sub_overflow(i, start, &distance)) return static_cast<int>(floor_mod(distance, p));
  return static_cast<int>(floor_mod(floor_mod(i, p) - floor_mod(start, p), p));
}
/// The grid coordinate (of p) that a block-cyclic dimension with blocks of b from `start`
/// deals index i to: floor((i - start) / b) mod p, without overflow.
constexpr int block_cyclic_owner(index_t i, index_t start, index_t b, int p) {
  index_t distance = 0;
  if (!__builtin_sub_overflow(i, start, &distance)) return static_cast<int>(floor_mod(floor_div(distance, b), p));
  return static_cast<int>(floor_mod_wide(floor_div_wide(static_cast<wide_int>(i) - start, b), p));
}
inline std::string describe(const dim_spec& s) {
  std::ostringstream o;
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, block_dim>) o << "block";
        else if constexpr (std::is_same_v<X, cyclic_dim>) {
          o << "cyclic";
          if (x.start) o << "(start " << *x.start << ")";
        } else if constexpr (std::is_same_v<X, block_cyclic_dim>) {
          o << "block_cyclic(" << x.block_size;
          if (x.start) o << ", start " << *x.start;
          o << ")";
        } else if constexpr (std::is_same_v<X, irregular_dim>) {
          o << "irregular(";
          for (std::size_t k = 0; k < x.cuts.size(); ++k) o << (k ? ", " : "") << x.cuts[k];
          o << ")";
        } else if constexpr (std::is_same_v<X, unstructured_dim>) {
          o << "unstructured(";  // every value: locales compare names to check they agree
          for (std::size_t k = 0; k < x.lists.size(); ++k) {
            o << (k ? "; " : "");
            for (std::size_t j = 0; j < x.lists[k].size(); ++j) o << (j ? " " : "") << x.lists[k][j];
          }
          if (!x.one_to_one) o << "; not one_to_one";
          o << ")";
        } else if constexpr (std::is_same_v<X, replicated_dim>) {
          o << "replicated";
        } else {
          o << "none";
        }
      },
      s);
  return o.str();
}
}  // namespace detail

/// How one dimension of a domain is dealt to the p locales along it: the owner of each index
/// and, for each grid coordinate, its pieces (disjoint ranges, in the dimension's iteration
/// order, or in list order for an unstructured dimension) with their positions in that
/// locale's local dimension.
class dimension_cut {
 public:
  /// owner() of every index of a replicated dimension: each coordinate holds it.
  static constexpr int every_coordinate = -1;

  dimension_cut() = default;
  /// The cut of `whole` (dimension `d` of a domain) by `spec` over `parts` locales; throws
  /// argument_error when an unstructured dimension's lists do not cover `whole` exactly once.
  /// The pieces of coordinate `own` (this locale's, if any) are computed once and kept; any
  /// other coordinate's are computed when asked.
  dimension_cut(const dim_spec& spec, const range& whole, int parts, std::size_t d = 0, int own = -1)
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

  /// The grid coordinate owning index i (every_coordinate for a replicated dimension).
  int owner(index_t i) const {
    return std::visit(
        [&](const auto& x) -> int {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, block_dim>) return block<1>::owner(low_, high_, parts_, i);
          else if constexpr (std::is_same_v<X, replicated_dim>) return every_coordinate;
          else if constexpr (std::is_same_v<X, none_dim>) return 0;
          else if constexpr (std::is_same_v<X, unstructured_dim>) {
            const auto at = std::lower_bound(table_.begin(), table_.end(), std::pair<index_t, int>{i, -1});
            return at != table_.end() && at->first == i ? at->second : 0;
          }
          else if constexpr (std::is_same_v<X, cyclic_dim>)
            return detail::cyclic_owner(i, x.start.value_or(low_), parts_);
          else if constexpr (std::is_same_v<X, block_cyclic_dim>)
            return detail::block_cyclic_owner(i, x.start.value_or(low_), x.block_size, parts_);
          else
            return static_cast<int>(std::upper_bound(x.cuts.begin(), x.cuts.end(), i) - x.cuts.begin());
        },
        spec_);
  }
  /// True when every coordinate holds the whole dimension.
  bool replicated() const noexcept { return std::holds_alternative<replicated_dim>(spec_); }
  /// The pieces grid coordinate k owns, in the dimension's iteration order.
  std::vector<range> pieces(int k) const { return k == own_ ? own_pieces_ : ordered_pieces(k); }
  /// The local position of the first index of each piece of coordinate k.
  std::vector<index_t> positions(int k) const { return k == own_ ? own_positions_ : positions_of(pieces(k)); }
  /// The number of indices coordinate k owns.
  index_t count(int k) const {
    index_t n = 0;
    for (const auto& r : pieces(k)) n += r.size();
    return n;
  }
  /// The pieces of coordinate k that meet `r`, in the dimension's iteration order: O(pieces
  /// found) for block-cyclic dimensions of unit stride, O(pieces of k) otherwise.
  std::vector<range> pieces_meeting(int k, const range& r) const {
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
  /// The grid coordinates (sorted) that may own an index of `r` (a superset is allowed).
  std::vector<int> coordinates_meeting(const range& r) const {
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

 private:
  static index_t block_size_of(const cyclic_dim&) { return 1; }
  static index_t block_size_of(const block_cyclic_dim& x) { return x.block_size; }
  // The pieces of coordinate k in the dimension's iteration order.
  std::vector<range> ordered_pieces(int k) const {
    std::vector<range> list = compute_pieces(k);
    if (whole_.stride() < 0 && !std::holds_alternative<unstructured_dim>(spec_)) std::reverse(list.begin(), list.end());
    return list;
  }
  static std::vector<index_t> positions_of(const std::vector<range>& pieces) {
    std::vector<index_t> out;
    index_t at = 0;
    for (const auto& r : pieces) out.push_back(at), at += r.size();
    return out;
  }
  std::vector<range> compute_pieces(int k) const {
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

  // The owner table of an unstructured dimension, sorted by index; checks the cover.
  void build_table(const unstructured_dim& u, std::size_t d) {
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

  dim_spec spec_{};
  range whole_{};
  int parts_ = 1;
  std::vector<std::pair<index_t, int>> table_;  // unstructured: (index, coordinate), sorted
  index_t low_ = 0, high_ = 0;
  int own_ = -1;                        // the coordinate whose pieces are kept
  std::vector<range> own_pieces_;
  std::vector<index_t> own_positions_;
};

template <std::size_t N>
class dimensional_domain;

/// The Dimensional distribution: one specifier per dimension over a target grid.
template <std::size_t N>
class dimensional {
 public:
  /// `specs[d]` deals dimension d to the grid's extent(d) locales along it. Throws
  /// argument_error naming the dimension for a bad specifier, or a replicated dimension over
  /// a grid of some of the locales only (target-locale subsets: copy layers need them all).
  explicit dimensional(const std::array<dim_spec, N>& specs, const target_grid<N>& grid = {},
                       storage_order order = storage_order::row_major)
      : specs_(specs), grid_(grid), order_(order) {
    for (std::size_t d = 0; d < N; ++d) validate(d);
  }

  /// The specifiers.
  const std::array<dim_spec, N>& specs() const noexcept { return specs_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return grid_; }
  /// How each locale stores its indices.
  storage_order order() const noexcept { return order_; }
  /// "dimensional(block, cyclic; grid 2x2)".
  std::string name() const {
    std::ostringstream s;
    s << "dimensional(";
    for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << detail::describe(specs_[d]);
    s << "; grid " << grid_ << (order_ == storage_order::column_major ? ", column-major" : "") << ")";
    return s.str();
  }
  /// A global domain descriptor over `indices`.
  dimensional_domain<N> new_domain(const rect<N>& indices) const {
    return dimensional_domain<N>(*this, indices);
  }

  friend bool operator==(const dimensional&, const dimensional&) = default;

 private:
  void validate(std::size_t d) const {
    const auto where = [&] { return "dmap::dimensional: dimension " + std::to_string(d) + ": "; };
    if (const auto* bc = std::get_if<block_cyclic_dim>(&specs_[d]); bc && bc->block_size < 1)
      throw argument_error(where() + "block_size is " + std::to_string(bc->block_size) +
                           "; a block size must be >= 1");
    // Copy layers are numbered per locale of the program: locales outside would have none.
    if (std::holds_alternative<replicated_dim>(specs_[d]) && detail::current_environment != nullptr &&
        grid_.size() != num_locales()) {
      std::ostringstream s;
      s << where() << "is replicated over the target grid " << grid_ << " of " << grid_.size()
        << " locales; a grid with replicated dimensions must hold all " << num_locales() << " locales";
      throw argument_error(s.str());
    }
    if (std::holds_alternative<none_dim>(specs_[d]) && grid_.extent(d) != 1)
      throw argument_error(where() + "is not distributed ('none') but the grid has " +
                           std::to_string(grid_.extent(d)) + " locales along it; it must have 1");
    if (const auto* u = std::get_if<unstructured_dim>(&specs_[d]); u && u->lists.size() != static_cast<std::size_t>(grid_.extent(d)))
      throw argument_error(where() + "unstructured has " + std::to_string(u->lists.size()) + " lists; with " +
                           std::to_string(grid_.extent(d)) + " locales along it there must be exactly " +
                           std::to_string(grid_.extent(d)));
    if (const auto* ir = std::get_if<irregular_dim>(&specs_[d])) {
      const auto want = static_cast<std::size_t>(grid_.extent(d) - 1);
      if (ir->cuts.size() != want)
        throw argument_error(where() + "irregular block has " + std::to_string(ir->cuts.size()) +
                             " cut points; with " + std::to_string(grid_.extent(d)) +
                             " locales along it there must be exactly " + std::to_string(want));
      for (std::size_t k = 1; k < ir->cuts.size(); ++k)
        if (ir->cuts[k] < ir->cuts[k - 1])
          throw argument_error(where() + "cut point " + std::to_string(k) + " (" +
                               std::to_string(ir->cuts[k]) + ") is below cut point " +
                               std::to_string(k - 1) + " (" + std::to_string(ir->cuts[k - 1]) +
                               "); cut points must be in nondecreasing order");
    }
  }

  std::array<dim_spec, N> specs_;
  target_grid<N> grid_;
  storage_order order_;
};

/// This locale's part of a Dimensional domain: the product of its per-dimension pieces
/// (one rect per combination), stored as one dense local array.
template <std::size_t N>
using dimensional_local_domain = pieces_local_domain<N>;

/// The global descriptor of a domain distributed by Dimensional.
template <std::size_t N>
class dimensional_domain {
 public:
  /// The descriptor of the indices `indices` distributed by `dist`.
  /// Throws argument_error when the distribution's grid does not hold the program's locales.
  dimensional_domain(const dimensional<N>& dist, const rect<N>& indices) : dist_(dist) {
    detail::check_grid_matches_locales(dist.targets(), "dmap::dimensional");
    set_indices(indices);
  }

  /// The distribution.
  const dimensional<N>& distribution() const noexcept { return dist_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return dist_.targets(); }
  /// The whole index set.
  const rect<N>& indices() const noexcept { return whole_; }
  /// Replaces the index set; throws when irregular cut points lie outside its bounds.
  void set_indices(const rect<N>& indices) {
    std::array<dimension_cut, N> cuts;
    const int me = detail::current_environment ? here() : 0;
    std::array<int, N> mine{};  // this locale's coordinates (-1: outside the grid)
    mine.fill(-1);
    if (targets().holds(me)) mine = targets().coords_of(me);
    for (std::size_t d = 0; d < N; ++d) {
      if (const auto* ir = std::get_if<irregular_dim>(&dist_.specs()[d]); ir && !indices.dim(d).empty()) {
        const range r = indices.dim(d).normalized();
        for (std::size_t k = 0; k < ir->cuts.size(); ++k)
          if (ir->cuts[k] < r.lo() || ir->cuts[k] > r.hi()) {
            std::ostringstream s;
            s << "dmap::dimensional: dimension " << d << ": cut point " << k << " (" << ir->cuts[k]
              << ") is outside the bounds [" << r.lo() << ", " << r.hi() << "] of " << indices
              << "; cut points must lie within the domain's bounds";
            throw argument_error(s.str());
          }
      }
      cuts[d] = dimension_cut(dist_.specs()[d], indices.dim(d), targets().extent(d), d, mine[d]);
    }
    whole_ = indices;
    cuts_ = std::move(cuts);
    local_ = dimensional_local_domain<N>(local_subdomains(me), local_layouts(me));
  }

  /// The locale owning index `i`; along replicated dimensions, the one in this locale's
  /// copy layer.
  int locale_of(const idx<N>& i) const {
    std::array<int, N> c{};
    for (std::size_t d = 0; d < N; ++d) {
      c[d] = cuts_[d].owner(i[d]);
      if (c[d] == dimension_cut::every_coordinate) c[d] = targets().coords_of(detail::current_environment ? here() : 0)[d];
    }
    return targets().locale_at(c);
  }
  /// With replicated dimensions, the copy layer of each locale (locales with equal
  /// coordinates along the replicated dimensions share one); empty without.
  std::vector<int> copy_layers() const {
    std::vector<int> out;
    bool any = false;
    for (std::size_t d = 0; d < N; ++d) any = any || cuts_[d].replicated();
    if (!any) return out;
    for (int q = 0; q < targets().size(); ++q) {
      const auto c = targets().coords_of(q);
      int layer = 0;
      for (std::size_t d = 0; d < N; ++d)
        if (cuts_[d].replicated()) layer = layer * targets().extent(d) + c[d];
      out.push_back(layer);
    }
    return out;
  }
  /// The rects locale `locale` owns: every combination of its per-dimension pieces, in
  /// row-major order of the pieces.
  std::vector<rect<N>> local_subdomains(int locale) const {
    if (!targets().holds(locale)) return {};  // outside the target grid: owns nothing
    std::vector<rect<N>> out;
    for_each_piece(locale, [&](const rect<N>& r, const std::array<index_t, N>&) { out.push_back(r); });
    return out;
  }
  /// Their storage: one dense local array of the locale's per-dimension counts
  /// (product_layout).
  std::vector<dense_layout<N>> local_layouts(int locale) const {
    if (!targets().holds(locale)) return {};
    const auto c = targets().coords_of(locale);
    std::array<index_t, N> extent{};
    for (std::size_t d = 0; d < N; ++d) extent[d] = cuts_[d].count(c[d]);
    const auto strides = product_layout<N>(dist_.order()).strides(extent);
    std::vector<dense_layout<N>> out;
    for_each_piece(locale, [&](const rect<N>& r, const std::array<index_t, N>& position) {
      out.push_back(product_layout<N>::of(r, position, strides));
    });
    return out;
  }
  /// The rects of `locale` that meet `r`, in the order of local_subdomains(locale): per
  /// dimension, the pieces that meet r's range (a small search per dimension).
  std::vector<rect<N>> local_subdomains(int locale, const rect<N>& r) const {
    if (!targets().holds(locale)) return {};
    const auto c = targets().coords_of(locale);
    std::array<std::vector<range>, N> pieces;
    for (std::size_t d = 0; d < N; ++d) pieces[d] = cuts_[d].pieces_meeting(c[d], r.dim(d));
    std::vector<rect<N>> out;
    for_each_product(pieces, [&](const rect<N>& piece, const std::array<index_t, N>&) { out.push_back(piece); });
    return out;
  }
  /// The locales that may own an index of `r`: the grid coordinates meeting each dimension's
  /// range, combined (sorted).
  std::vector<int> locales_meeting(const rect<N>& r) const {
    std::array<std::vector<int>, N> coords;
    for (std::size_t d = 0; d < N; ++d) coords[d] = cuts_[d].coordinates_meeting(r.dim(d));
    return detail::locales_of_product(targets(), coords);
  }
  /// This locale's local domain descriptor.
  const dimensional_local_domain<N>& local() const noexcept { return local_; }
  /// How each dimension is dealt (the DSI's optional `dimension_kinds()`): block, irregular and
  /// none are block cuts, cyclic and block-cyclic deals of their block size, unstructured lists
  /// (with their one_to_one), replicated nothing declared.
  std::array<dimension_kind, N> dimension_kinds() const {
    std::array<dimension_kind, N> out;
    for (std::size_t d = 0; d < N; ++d)
      out[d] = std::visit(
          [](const auto& x) {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, cyclic_dim>) return dimension_kind::cyclic(1);
            else if constexpr (std::is_same_v<X, block_cyclic_dim>) return dimension_kind::cyclic(x.block_size);
            else if constexpr (std::is_same_v<X, unstructured_dim>) return dimension_kind::listed(x.one_to_one);
            else if constexpr (std::is_same_v<X, replicated_dim>) return dimension_kind{};
            else return dimension_kind::block();
          },
          dist_.specs()[d]);
    return out;
  }
  /// The cut of dimension d.
  const dimension_cut& cut(std::size_t d) const noexcept { return cuts_[d]; }

 private:
  // Calls f(rect, local positions of its first index) for each combination of pieces.
  template <class F>
  void for_each_piece(int locale, F&& f) const {
    const auto c = targets().coords_of(locale);
    std::array<std::vector<range>, N> pieces;
    std::array<std::vector<index_t>, N> positions;
    for (std::size_t d = 0; d < N; ++d) {
      pieces[d] = cuts_[d].pieces(c[d]);
      positions[d] = cuts_[d].positions(c[d]);
    }
    for_each_product(pieces, [&](const rect<N>& r, const std::array<index_t, N>& k) {
      std::array<index_t, N> position{};
      for (std::size_t d = 0; d < N; ++d) position[d] = positions[d][static_cast<std::size_t>(k[d])];
      f(r, position);
    });
  }
  // Calls f(rect, piece numbers) for each combination of one range per dimension, in
  // row-major order.
  template <class F>
  static void for_each_product(const std::array<std::vector<range>, N>& pieces, F&& f) {
    std::array<index_t, N> counts{};
    for (std::size_t d = 0; d < N; ++d) {
      counts[d] = static_cast<index_t>(pieces[d].size());
      if (counts[d] == 0) return;
    }
    detail::for_each_row_start<N>(counts, [&](const std::array<index_t, N>& k0) {
      std::array<index_t, N> k = k0;
      for (k[N - 1] = 0; k[N - 1] < counts[N - 1]; ++k[N - 1]) {
        rect<N> r;
        for (std::size_t d = 0; d < N; ++d) r.set_dim(d, pieces[d][static_cast<std::size_t>(k[d])]);
        f(r, k);
      }
    });
  }

  dimensional<N> dist_;
  rect<N> whole_{};
  std::array<dimension_cut, N> cuts_{};
  dimensional_local_domain<N> local_{};
};

}  // namespace dmap
