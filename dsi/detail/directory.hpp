// A distributed directory: for every index of a domain, the locale that owns it and the
// offset of its element in that locale's storage. It serves the maps no formula describes
// (Hashed, Unstructured): the entries are spread over the locales by blocks of row-major
// order (the "home" of an index keeps its entry), so no locale stores the whole map, and
// lookups are one-sided and batched: one message per home, whatever the number of indices.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../../runtime/detail/window.hpp"
#include "../../runtime/precompiled.hpp"
#include "../layout.hpp"
#include "../rect.hpp"

namespace dmap::detail {

/// Where the element of one index lives: its owner and the offset in the owner's storage.
struct location {
  std::int64_t offset = -1;  ///< element offset in the owner's buffer
  std::int32_t locale = -1;  ///< the owning locale (-1: nobody)
  std::int32_t holders = 0;  ///< how many locales store the index (more than 1: copies)
};

/// One index a locale stores: its row-major order in the domain and its element offset.
struct stored_entry {
  index_t order = 0;
  index_t offset = 0;
};

/// The homes of a directory: locale h keeps the entries of orders [first(h), first(h + 1)),
/// an even split of [0, n).
class directory_homes {
 public:
  directory_homes() = default;
  directory_homes(index_t n, int p) : n_(n), p_(p) {}
  /// The first order kept by locale h (h may be p: one past the last).
  index_t first(int h) const noexcept {
    return static_cast<index_t>(static_cast<wide_int>(h) * n_ / p_);
  }
  /// The locale keeping the entry of order o (0 <= o < n).
  int home_of(index_t o) const noexcept {
    return static_cast<int>((static_cast<wide_int>(o + 1) * p_ - 1) / n_);
  }

 private:
  index_t n_ = 0;
  int p_ = 1;
};

/// What a locale does with indices no locale lists while a directory is built.
enum class unlisted_indices {
  refuse,  ///< an argument_error naming the first one (the lists must cover the domain)
  home     ///< the index's home owns it (appended to its storage)
};

/// Where the indices of an index set live, by row-major order (any number of dimensions).
class order_directory {
 public:
  virtual ~order_directory() = default;
  /// The locations of the indices of row-major orders `orders`. Not collective.
  virtual std::vector<location> lookup(const std::vector<index_t>& orders) const = 0;
};

/// The directory of one index set. Building it is collective; lookups are not.
template <std::size_t N>
class directory final : public order_directory {
 public:
  /// Collective. `stored` lists what this locale stores, in storage order (the element of
  /// stored[k] is at offset k), as row-major orders in `whole`. When `one_to_one`, every index
  /// may be stored by one locale only; otherwise the lowest locale storing it owns it and
  /// the others hold copies. `rule` says what happens to indices nobody stores. `who`
  /// starts error messages. Throws argument_error on every locale when a list breaks a rule.
  directory(const rect<N>& whole, std::vector<index_t> stored, bool one_to_one, unlisted_indices rule,
            const std::string& who);
  directory(const directory&) = delete;
  directory& operator=(const directory&) = delete;

  /// The index set.
  const rect<N>& whole() const noexcept { return whole_; }
  /// The orders this locale stores, in storage order: stored()[k] is at offset k (owned
  /// indices and copies).
  const std::vector<index_t>& stored() const noexcept { return mine_; }
  /// True when this locale owns the k-th stored index (false: a copy of another's).
  bool owns_stored(std::size_t k) const noexcept { return owned_[k] != 0; }
  /// The indices this locale took as their home because no locale listed them (appended to
  /// its storage, in order).
  const std::vector<stored_entry>& claimed() const noexcept { return claimed_; }
  /// This locale's element offset of order `o` and whether it owns it; nothing when this
  /// locale does not store it.
  std::optional<std::pair<index_t, bool>> find_stored(index_t o) const noexcept {
    const auto at = std::lower_bound(sorted_.begin(), sorted_.end(), o,
                                     [&](std::size_t k, index_t v) { return mine_[k] < v; });
    if (at == sorted_.end() || mine_[*at] != o) return std::nullopt;
    return std::pair<index_t, bool>{static_cast<index_t>(*at), owned_[*at] != 0};
  }

  /// The locations of the indices of row-major orders `orders`: one message per home
  /// holding some of them (none for entries kept here). Not collective.
  std::vector<location> lookup(const std::vector<index_t>& orders) const override;
  /// The location of order `o` (one message unless its entry is kept here).
  location lookup(index_t o) const { return lookup(std::vector<index_t>{o}).front(); }

  /// Entries kept by this locale (its share of the map).
  std::size_t entries_kept() const noexcept { return table_.size(); }

 private:
  static byte_buffers packed(const std::vector<std::vector<stored_entry>>& per_locale) {
    byte_buffers out;
    for (const auto& v : per_locale) out.push_back(to_bytes(v));
    return out;
  }
  [[noreturn]] void fail(const std::string& who, const std::string& before, index_t order,
                         const std::string& after = "") const;

  rect<N> whole_;
  directory_homes homes_;
  std::vector<index_t> mine_;           // the orders this locale stores, by offset
  std::vector<char> owned_;             // per stored entry: owned (1) or a copy (0)
  std::vector<std::size_t> sorted_;     // stored entries by order
  std::vector<stored_entry> claimed_;   // unlisted indices this locale took as home
  std::vector<location> table_;         // entries of the orders this locale is home of
  rma_window window_;
};

template <std::size_t N>
directory<N>::directory(const rect<N>& whole, std::vector<index_t> stored, bool one_to_one, unlisted_indices rule,
                        const std::string& who)
    : whole_(whole), homes_(whole.size(), num_locales()), mine_(std::move(stored)) {
  const int p = num_locales(), me = here();
  // Every local step between two collective ones agrees on failure (an allocation that
  // fails on one locale), so no locale is left waiting in the next exchange.
  byte_buffers outgoing = agreed([&] {
    std::vector<std::vector<stored_entry>> to_homes(static_cast<std::size_t>(p));
    for (std::size_t k = 0; k < mine_.size(); ++k)
      to_homes[static_cast<std::size_t>(homes_.home_of(mine_[k]))].push_back({mine_[k], static_cast<index_t>(k)});
    return packed(to_homes);
  });
  const byte_buffers incoming = exchange(std::move(outgoing));

  // Fill this locale's share of the table; remember which stored indices are copies.
  const index_t first = homes_.first(me), count = homes_.first(me + 1) - first;
  std::vector<std::vector<stored_entry>> copies(static_cast<std::size_t>(p));
  agreed([&] {
    table_.assign(static_cast<std::size_t>(count), location{});
    std::vector<int> last_lister(static_cast<std::size_t>(count), -1);
    for (int q = 0; q < p; ++q)
      for (const auto& e : from_bytes<stored_entry>(incoming[static_cast<std::size_t>(q)])) {
        location& l = table_[static_cast<std::size_t>(e.order - first)];
        int& last = last_lister[static_cast<std::size_t>(e.order - first)];
        if (last == q) fail(who, "locale " + std::to_string(q) + " lists index ", e.order, " twice");
        last = q;
        if (l.locale >= 0 && one_to_one)
          fail(who, "locales " + std::to_string(l.locale) + " and " + std::to_string(q) + " both list index ",
               e.order, "; a one_to_one map lists every index once");
        if (l.locale < 0) {
          l = {e.offset, q, 1};
        } else {
          ++l.holders;
          copies[static_cast<std::size_t>(q)].push_back(e);
        }
      }
    index_t next = static_cast<index_t>(mine_.size());
    for (index_t k = 0; k < count; ++k) {
      location& l = table_[static_cast<std::size_t>(k)];
      if (l.locale >= 0) continue;
      if (rule == unlisted_indices::refuse)
        fail(who, "no locale lists index ", first + k, "; the lists must cover the domain");
      l = {next++, me, 1};
      claimed_.push_back({first + k, l.offset});
    }
  });
  outgoing = agreed([&] {
    for (const auto& e : claimed_) mine_.push_back(e.order);
    owned_.assign(mine_.size(), 1);
    return packed(copies);
  });
  const byte_buffers copied = exchange(std::move(outgoing));
  agreed([&] {
    for (const auto& buffer : copied)
      for (const auto& e : from_bytes<stored_entry>(buffer)) owned_[static_cast<std::size_t>(e.offset)] = 0;
    sorted_.resize(mine_.size());
    for (std::size_t k = 0; k < mine_.size(); ++k) sorted_[k] = k;
    std::sort(sorted_.begin(), sorted_.end(), [&](std::size_t a, std::size_t b) { return mine_[a] < mine_[b]; });
  });
  window_ = rma_window(table_.data(), table_.size() * sizeof(location), sizeof(location));
}

template <std::size_t N>
auto directory<N>::lookup(const std::vector<index_t>& orders) const -> std::vector<location> {
  std::vector<location> out(orders.size());
  const int p = num_locales(), me = here();
  // Requests per home, sorted by entry so that the remote reads form few, ascending runs.
  std::vector<std::vector<std::pair<index_t, std::size_t>>> asked(static_cast<std::size_t>(p));
  for (std::size_t k = 0; k < orders.size(); ++k) {
    const index_t o = orders[k];
    const int h = homes_.home_of(o);
    const index_t at = o - homes_.first(h);
    if (h == me) out[k] = table_[static_cast<std::size_t>(at)];
    else asked[static_cast<std::size_t>(h)].push_back({at, k});
  }
  std::vector<element_run> runs;
  std::vector<location> incoming;
  for (int h = 0; h < p; ++h) {
    auto& a = asked[static_cast<std::size_t>(h)];
    if (a.empty()) continue;
    std::sort(a.begin(), a.end());
    runs.clear();
    for (const auto& [at, k] : a) {
      if (!runs.empty() && runs.back().first + runs.back().count - 1 == at) continue;  // asked twice
      if (!runs.empty() && runs.back().first + runs.back().count == at) ++runs.back().count;
      else runs.push_back({at, 1});
    }
    index_t fetched = 0;
    for (const auto& r : runs) fetched += r.count;
    incoming.resize(static_cast<std::size_t>(fetched));
    window_.get(h, runs, incoming.data());
    // Entry `at` sits in `incoming` at its rank among the distinct entries asked.
    std::size_t slot = 0;
    for (std::size_t j = 0; j < a.size(); ++j) {
      if (j > 0 && a[j].first != a[j - 1].first) ++slot;
      out[a[j].second] = incoming[slot];
    }
  }
  return out;
}

template <std::size_t N>
[[noreturn]] void directory<N>::fail(const std::string& who, const std::string& before, index_t order,
                                       const std::string& after) const {
  std::ostringstream s;
  s << who << ": " << before << whole_.index_at(order) << after << " (domain " << whole_ << ")";
  throw argument_error(s.str());
}


/// The owned indices a locale stores, as pieces: maximal runs of stored entries that are
/// consecutive both in storage and along the last dimension of `whole` become one rect
/// with a row layout. Copies are left out.
template <std::size_t N>
void pieces_of_stored(const directory<N>& dir, std::vector<rect<N>>& owned, std::vector<dense_layout<N>>& layouts) {
  owned.clear();
  layouts.clear();
  const rect<N>& whole = dir.whole();
  const auto& stored = dir.stored();
  const index_t row = whole.empty() ? 1 : whole.dim(N - 1).size();
  std::size_t k = 0;
  while (k < stored.size()) {
    if (!dir.owns_stored(k)) {
      ++k;
      continue;
    }
    std::size_t end = k + 1;
    while (end < stored.size() && dir.owns_stored(end) && stored[end] == stored[end - 1] + 1 && stored[end] % row != 0)
      ++end;
    const idx<N> first = whole.index_at(stored[k]);
    rect<N> r;
    for (std::size_t d = 0; d < N; ++d)
      r.set_dim(d, range::counted(first[d], d + 1 == N ? static_cast<index_t>(end - k) : 1, whole.dim(d).stride()));
    owned.push_back(r);
    layouts.push_back(dense_layout<N>::make(r, static_cast<index_t>(k)));
    k = end;
  }
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_DIRECTORY_INSTANCES(N, how)                                                       \
  how class directory<N>;                                                                     \
  how void pieces_of_stored<N>(const directory<N>&, std::vector<rect<N>>&, std::vector<dense_layout<N>>&);
DMAP_DECLARE_PRECOMPILED(DMAP_DIRECTORY_INSTANCES)

}  // namespace dmap::detail
