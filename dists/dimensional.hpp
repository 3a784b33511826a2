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
#include "../dsi/detail/domain_model.hpp"
#include "../dsi/layout.hpp"
#include "../dsi/local_domain.hpp"
#include "../dsi/rect.hpp"
#include "../layouts/product_layout.hpp"
#include "../runtime/grid.hpp"
#include "../runtime/precompiled.hpp"
#include "block.hpp"
#include "detail/dimensional.hpp"

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

/// How one dimension of a domain is dealt to the p locales along it: the owner of each index
/// and, for each grid coordinate, its pieces (disjoint ranges, in the dimension's iteration
/// order, or in list order for an unstructured dimension) with their positions in that
/// locale's local dimension.
class dimension_cut {
 public:
  /// owner() of every index of a replicated dimension: each coordinate holds it.
  static constexpr int every_coordinate = -1;

  dimension_cut() = default;
  // Copies, moves and destruction are compiled once, in the library (dists/dimensional.cpp).
  /// A copy.
  dimension_cut(const dimension_cut&);
  /// Takes over `other`'s state.
  dimension_cut(dimension_cut&&) noexcept;
  /// Copies `other`.
  dimension_cut& operator=(const dimension_cut&);
  /// Takes over `other`'s state.
  dimension_cut& operator=(dimension_cut&&) noexcept;
  ~dimension_cut();
  /// The cut of `whole` (dimension `d` of a domain) by `spec` over `parts` locales; throws
  /// argument_error when an unstructured dimension's lists do not cover `whole` exactly once.
  /// The pieces of coordinate `own` (this locale's, if any) are computed once and kept; any
  /// other coordinate's are computed when asked.
  dimension_cut(const dim_spec& spec, const range& whole, int parts, std::size_t d = 0, int own = -1);

  /// The grid coordinate owning index i (every_coordinate for a replicated dimension).
  /// Inline: locale_of asks it once per dimension of every index.
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
  std::vector<range> pieces(int k) const;
  /// The local position of the first index of each piece of coordinate k.
  std::vector<index_t> positions(int k) const;
  /// The number of indices coordinate k owns.
  index_t count(int k) const;
  /// The pieces of coordinate k that meet `r`, in the dimension's iteration order: O(pieces
  /// found) for block-cyclic dimensions of unit stride, O(pieces of k) otherwise.
  std::vector<range> pieces_meeting(int k, const range& r) const;
  /// The grid coordinates (sorted) that may own an index of `r` (a superset is allowed).
  std::vector<int> coordinates_meeting(const range& r) const;
  /// Both questions at once: (coordinate, piece) for every piece of every coordinate that
  /// meets `r`, by coordinate, each coordinate's pieces as pieces_meeting(k, r) lists them.
  /// O(coordinates found) for a cyclic dimension, with no list per coordinate.
  std::vector<std::pair<int, range>> pieces_meeting(const range& r) const;

 private:
  static index_t block_size_of(const cyclic_dim&) { return 1; }
  static index_t block_size_of(const block_cyclic_dim& x) { return x.block_size; }
  // The pieces of coordinate k in the dimension's iteration order.
  std::vector<range> ordered_pieces(int k) const;
  static std::vector<index_t> positions_of(const std::vector<range>& pieces);
  std::vector<range> compute_pieces(int k) const;

  // The owner table of an unstructured dimension, sorted by index; checks the cover.
  void build_table(const unstructured_dim& u, std::size_t d);

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
                       storage_order order = storage_order::row_major);
  // Copies, moves and destruction are not inline: the library holds them for its ranks.
  /// A copy.
  dimensional(const dimensional&);
  /// Takes over `other`'s state.
  dimensional(dimensional&&) noexcept;
  /// Copies `other`.
  dimensional& operator=(const dimensional&);
  /// Takes over `other`'s state.
  dimensional& operator=(dimensional&&) noexcept;
  ~dimensional();

  /// The specifiers.
  const std::array<dim_spec, N>& specs() const noexcept { return specs_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return grid_; }
  /// How each locale stores its indices.
  storage_order order() const noexcept { return order_; }
  /// "dimensional(block, cyclic; grid 2x2)".
  std::string name() const;
  /// A global domain descriptor over `indices`.
  dimensional_domain<N> new_domain(const rect<N>& indices) const {
    return dimensional_domain<N>(*this, indices);
  }

  friend bool operator==(const dimensional&, const dimensional&) = default;

 private:
  void validate(std::size_t d) const;

  std::array<dim_spec, N> specs_;
  target_grid<N> grid_;
  storage_order order_;
};

template <std::size_t N>
dimensional<N>::dimensional(const std::array<dim_spec, N>& specs, const target_grid<N>& grid, storage_order order)
    : specs_(specs), grid_(grid), order_(order) {
  for (std::size_t d = 0; d < N; ++d) validate(d);
}

template <std::size_t N>
dimensional<N>::dimensional(const dimensional&) = default;
template <std::size_t N>
dimensional<N>::dimensional(dimensional&&) noexcept = default;
template <std::size_t N>
dimensional<N>& dimensional<N>::operator=(const dimensional&) = default;
template <std::size_t N>
dimensional<N>& dimensional<N>::operator=(dimensional&&) noexcept = default;
template <std::size_t N>
dimensional<N>::~dimensional() = default;

template <std::size_t N>
std::string dimensional<N>::name() const {
  std::ostringstream s;
  s << "dimensional(";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << detail::describe(specs_[d]);
  s << "; grid " << grid_ << (order_ == storage_order::column_major ? ", column-major" : "") << ")";
  return s.str();
}

template <std::size_t N>
void dimensional<N>::validate(std::size_t d) const {
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
  dimensional_domain(const dimensional<N>& dist, const rect<N>& indices);
  // Copies, moves and destruction are not inline: the library holds them for its ranks.
  /// A copy.
  dimensional_domain(const dimensional_domain&);
  /// Takes over `other`'s state.
  dimensional_domain(dimensional_domain&&) noexcept;
  /// Copies `other`.
  dimensional_domain& operator=(const dimensional_domain&);
  /// Takes over `other`'s state.
  dimensional_domain& operator=(dimensional_domain&&) noexcept;
  ~dimensional_domain();

  /// The distribution.
  const dimensional<N>& distribution() const noexcept { return dist_; }
  /// The target grid.
  const target_grid<N>& targets() const noexcept { return dist_.targets(); }
  /// The whole index set.
  const rect<N>& indices() const noexcept { return whole_; }
  /// Replaces the index set; throws when irregular cut points lie outside its bounds.
  void set_indices(const rect<N>& indices);

  /// The locale owning index `i`; along replicated dimensions, the one in this locale's
  /// copy layer. Inline: the domain model asks it once per index.
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
  std::vector<int> copy_layers() const;
  /// The rects locale `locale` owns: every combination of its per-dimension pieces, in
  /// row-major order of the pieces.
  std::vector<rect<N>> local_subdomains(int locale) const;
  /// Their storage: one dense local array of the locale's per-dimension counts
  /// (product_layout).
  std::vector<dense_layout<N>> local_layouts(int locale) const;
  /// The rects of `locale` that meet `r`, in the order of local_subdomains(locale): per
  /// dimension, the pieces that meet r's range (a small search per dimension).
  std::vector<rect<N>> local_subdomains(int locale, const rect<N>& r) const;
  /// The locales that may own an index of `r`: the grid coordinates meeting each dimension's
  /// range, combined (sorted).
  std::vector<int> locales_meeting(const rect<N>& r) const;
  /// Every locale's rects meeting `r`, as (locale, rect) pairs by locale, each locale's as
  /// local_subdomains(locale, r) lists them: the two questions above in one, for plans that
  /// meet many locales.
  std::vector<std::pair<int, rect<N>>> subdomains_meeting(const rect<N>& r) const;
  /// Calls f(locale, rect) for each pair subdomains_meeting(r) lists, in its order, without
  /// listing them.
  void for_each_subdomain_meeting(const rect<N>& r, detail::function_ref<void(int, const rect<N>&)> f) const;
  /// This locale's local domain descriptor.
  const dimensional_local_domain<N>& local() const noexcept { return local_; }
  /// How each dimension is dealt (the DSI's optional `dimension_kinds()`): block, irregular and
  /// none are block cuts, cyclic and block-cyclic deals of their block size, unstructured lists
  /// (with their one_to_one), replicated nothing declared.
  std::array<dimension_kind, N> dimension_kinds() const;
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

template <std::size_t N>
dimensional_domain<N>::dimensional_domain(const dimensional<N>& dist, const rect<N>& indices) : dist_(dist) {
  detail::check_grid_matches_locales(dist.targets(), "dmap::dimensional");
  set_indices(indices);
}

template <std::size_t N>
dimensional_domain<N>::dimensional_domain(const dimensional_domain&) = default;
template <std::size_t N>
dimensional_domain<N>::dimensional_domain(dimensional_domain&&) noexcept = default;
template <std::size_t N>
dimensional_domain<N>& dimensional_domain<N>::operator=(const dimensional_domain&) = default;
template <std::size_t N>
dimensional_domain<N>& dimensional_domain<N>::operator=(dimensional_domain&&) noexcept = default;
template <std::size_t N>
dimensional_domain<N>::~dimensional_domain() = default;

template <std::size_t N>
void dimensional_domain<N>::set_indices(const rect<N>& indices) {
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

template <std::size_t N>
std::vector<int> dimensional_domain<N>::copy_layers() const {
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

template <std::size_t N>
std::vector<rect<N>> dimensional_domain<N>::local_subdomains(int locale) const {
  if (!targets().holds(locale)) return {};  // outside the target grid: owns nothing
  std::vector<rect<N>> out;
  for_each_piece(locale, [&](const rect<N>& r, const std::array<index_t, N>&) { out.push_back(r); });
  return out;
}

template <std::size_t N>
std::vector<dense_layout<N>> dimensional_domain<N>::local_layouts(int locale) const {
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

template <std::size_t N>
std::vector<rect<N>> dimensional_domain<N>::local_subdomains(int locale, const rect<N>& r) const {
  if (!targets().holds(locale)) return {};
  const auto c = targets().coords_of(locale);
  std::array<std::vector<range>, N> pieces;
  for (std::size_t d = 0; d < N; ++d) pieces[d] = cuts_[d].pieces_meeting(c[d], r.dim(d));
  std::vector<rect<N>> out;
  for_each_product(pieces, [&](const rect<N>& piece, const std::array<index_t, N>&) { out.push_back(piece); });
  return out;
}

template <std::size_t N>
std::vector<int> dimensional_domain<N>::locales_meeting(const rect<N>& r) const {
  std::array<std::vector<int>, N> coords;
  for (std::size_t d = 0; d < N; ++d) coords[d] = cuts_[d].coordinates_meeting(r.dim(d));
  return detail::locales_of_product(targets(), coords);
}

template <std::size_t N>
std::vector<std::pair<int, rect<N>>> dimensional_domain<N>::subdomains_meeting(const rect<N>& r) const {
  std::vector<std::pair<int, rect<N>>> out;
  for_each_subdomain_meeting(r, [&](int q, const rect<N>& s) { out.emplace_back(q, s); });
  return out;
}

template <std::size_t N>
void dimensional_domain<N>::for_each_subdomain_meeting(const rect<N>& r,
                                                       detail::function_ref<void(int, const rect<N>&)> f) const {
  std::array<std::vector<std::pair<int, range>>, N> pieces;
  for (std::size_t d = 0; d < N; ++d) {
    pieces[d] = cuts_[d].pieces_meeting(r.dim(d));
    if (pieces[d].empty()) return;
  }
  detail::for_each_rect_of_product(targets(), pieces, f);
}

template <std::size_t N>
std::array<dimension_kind, N> dimensional_domain<N>::dimension_kinds() const {
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

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_DIMENSIONAL_INSTANCES(N, how)                                                     \
  how class dimensional<N>;                                                                    \
  how class dimensional_domain<N>;                                                             \
  how class detail::domain_model<N, dimensional<N>, dimensional_domain<N>>;
DMAP_DECLARE_PRECOMPILED(DMAP_DIMENSIONAL_INSTANCES)

}  // namespace dmap
