// The shared state of a sparse domain: its parent, this locale's pieces of the parent (one
// sparse layout each, behind a virtual interface called per piece or per batch, never per
// element in loops), the positions that number the local indices, the lookup table through
// which other locales find them one-sidedly, and the arrays declared over it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <typeinfo>
#include <vector>

#include "../../runtime/environment.hpp"
#include "../domain.hpp"
#include "../index.hpp"
#include "../rect.hpp"
#include "../sparse_layout.hpp"
#include "cache_slots.hpp"
#include "sparse_lookup.hpp"

namespace dmap::detail {

/// A sparse layout seen through virtual calls.
template <std::size_t N>
struct sparse_piece {
  virtual ~sparse_piece() = default;
  virtual index_t size() const noexcept = 0;
  virtual index_t position_of(const idx<N>& i) const noexcept = 0;
  virtual void decode(index_t first, index_t last, idx<N>* out) const = 0;
  virtual bool precedes(const idx<N>& a, const idx<N>& b) const noexcept = 0;
  /// Sorts `indices` (inside `piece`) in storage order and drops repeats.
  virtual void sort_unique(const rect<N>& piece, std::vector<idx<N>>& indices) const = 0;
  virtual std::unique_ptr<const sparse_piece> built(const rect<N>& piece, std::span<const idx<N>> sorted) const = 0;
  virtual std::string name() const = 0;
  virtual std::size_t bytes() const noexcept = 0;
  virtual const void* find(const std::type_info& type) const noexcept = 0;
};

/// The sparse_piece of layout type L.
template <class L, std::size_t N>
  requires sparse_layout<L, N>
struct sparse_piece_of final : sparse_piece<N> {
  explicit sparse_piece_of(L l) : layout(std::move(l)) {}
  index_t size() const noexcept override { return static_cast<index_t>(layout.size()); }
  index_t position_of(const idx<N>& i) const noexcept override { return static_cast<index_t>(layout.position_of(i)); }
  void decode(index_t first, index_t last, idx<N>* out) const override { layout.decode(first, last, out); }
  bool precedes(const idx<N>& a, const idx<N>& b) const noexcept override { return layout.precedes(a, b); }
  void sort_unique(const rect<N>& piece, std::vector<idx<N>>& indices) const override {
    if constexpr (requires { layout.sort_unique(piece, indices); }) {
      layout.sort_unique(piece, indices);
    } else {
      std::sort(indices.begin(), indices.end(),
                [this](const idx<N>& a, const idx<N>& b) { return layout.precedes(a, b); });
      indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    }
  }
  std::unique_ptr<const sparse_piece<N>> built(const rect<N>& piece, std::span<const idx<N>> sorted) const override {
    return std::make_unique<const sparse_piece_of>(layout.built(piece, sorted));
  }
  std::string name() const override { return layout.name(); }
  std::size_t bytes() const noexcept override { return static_cast<std::size_t>(layout.bytes()); }
  const void* find(const std::type_info& type) const noexcept override {
    return type == typeid(L) ? &layout : nullptr;
  }
  L layout;
};

/// An array over a sparse domain, as the domain sees it when its index set changes: first
/// every array prepares its new values (may throw: nothing changed yet), then all commit.
template <std::size_t N>
struct sparse_array_hook {
  virtual ~sparse_array_hook() = default;
  /// Allocates the values of the new set: position p takes old position moved_from[p]'s
  /// value, or the implicit value when moved_from[p] < 0.
  virtual void prepare(const std::vector<index_t>& moved_from) = 0;
  /// Makes the prepared values current.
  virtual void commit() noexcept = 0;
  /// Drops the prepared values.
  virtual void abandon() noexcept = 0;
  /// Collective: exposes the (committed) values to one-sided access again.
  virtual void expose() = 0;
};

/// Finds which of a locale's pieces holds an index: a binary search on the pieces' lowest
/// first coordinate, then a backward scan bounded by the largest highest first coordinate
/// of the pieces before (an interval stab along dimension 0), checking containment.
template <std::size_t N>
class piece_finder {
 public:
  piece_finder() = default;
  /// A finder over `pieces` (kept by reference: must outlive the finder's use).
  explicit piece_finder(const std::vector<rect<N>>& pieces) : pieces_(&pieces) {
    for (std::size_t k = 0; k < pieces.size(); ++k)
      if (!pieces[k].empty()) order_.push_back(k);
    std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      return pieces[a].dim(0).aligned_low() < pieces[b].dim(0).aligned_low();
    });
    index_t high = std::numeric_limits<index_t>::min();
    for (std::size_t k : order_) {
      lows_.push_back(pieces[k].dim(0).aligned_low());
      high = std::max(high, pieces[k].dim(0).aligned_high());
      reach_.push_back(high);
    }
  }
  /// The piece holding `i`, or the number of pieces when none does.
  std::size_t find(const idx<N>& i) const noexcept {
    const auto& pieces = *pieces_;
    std::size_t j = static_cast<std::size_t>(std::upper_bound(lows_.begin(), lows_.end(), i[0]) - lows_.begin());
    while (j-- > 0) {
      if (reach_[j] < i[0]) break;
      if (pieces[order_[j]].contains(i)) return order_[j];
    }
    return pieces.size();
  }

 private:
  const std::vector<rect<N>>* pieces_ = nullptr;
  std::vector<std::size_t> order_;  // non-empty pieces by lowest first coordinate
  std::vector<index_t> lows_;       // their lowest first coordinates
  std::vector<index_t> reach_;      // the largest highest first coordinate up to each
};

/// The shared state of a sparse domain (every handle and array refers to it).
template <std::size_t N>
struct sparse_state {
  static constexpr std::size_t rank = N;           // the number of dimensions
  explicit sparse_state(const domain<N>& p) : parent(p) {}
  domain<N> parent;                                // the dense domain the indices belong to
  std::uint64_t parent_generation = 0;             // the parent's generation when pieces were read
  std::unique_ptr<const sparse_piece<N>> prototype;  // the empty layout every piece is built from
  std::vector<rect<N>> pieces;                     // the parent's subdomains on this locale
  piece_finder<N> finder;                          // which piece holds an index
  std::vector<std::unique_ptr<const sparse_piece<N>>> layouts;  // one per piece
  std::vector<index_t> offsets;                    // piece k's positions start at offsets[k] (k <= pieces)
  index_t global_size = 0;                         // indices on all locales
  std::uint64_t version = 0;                       // bumps whenever the index set changes
  std::vector<sparse_array_hook<N>*> arrays;       // arrays declared over the domain
  mutable cache_slots caches;                      // plans kept by operations, by type
  sparse_lookup lookup;                            // every locale's indices, searchable one-sidedly

  /// This locale's number of indices.
  index_t local_size() const noexcept { return offsets.empty() ? 0 : offsets.back(); }
  /// The position of local index `i`, or -1 when `i` is not in the set (or not local).
  index_t position_of(const idx<N>& i) const noexcept {
    const std::size_t k = finder.find(i);
    if (k == pieces.size()) return -1;
    const index_t p = layouts[k]->position_of(i);
    return p < 0 ? -1 : offsets[k] + p;
  }
  /// The position of `i` on locale `owner` (this one or another), or -1 when `i` is not in
  /// the set: a local search here, one-sided reads of `owner`'s lookup table elsewhere.
  index_t position_on(int owner, const idx<N>& i) const {
    if (owner == here()) return position_of(i);
    return lookup.position_on(owner, parent.indices().order_of(i));
  }
  /// The piece holding position p.
  std::size_t piece_at(index_t p) const noexcept {
    return static_cast<std::size_t>(std::upper_bound(offsets.begin(), offsets.end(), p) - offsets.begin()) - 1;
  }
  /// Writes the indices at positions [first, last) to `out`, across pieces.
  void decode(index_t first, index_t last, idx<N>* out) const {
    if (first >= last) return;
    std::size_t k = piece_at(first);
    while (first < last) {
      while (offsets[k + 1] <= first) ++k;
      const index_t end = std::min(last, offsets[k + 1]);
      layouts[k]->decode(first - offsets[k], end - offsets[k], out);
      out += end - first;
      first = end;
    }
  }
};

}  // namespace dmap::detail
