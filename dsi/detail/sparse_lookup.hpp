// How any locale finds an index of a sparse domain on its owner without the owner's help:
// each locale exposes, in an RMA window, the parent's row-major orders of its indices in
// ascending order, with each one's position beside it unless positions already follow that
// order. A reader searches the owner's table with a few one-sided reads (64 samples per read,
// then the last interval of at most 256 entries whole), then reads the value at the position
// from the array's window.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/window.hpp"
#include "../index.hpp"
#include "../range.hpp"
#include "../rect.hpp"

namespace dmap::detail {

/// What the other locales know of one locale's lookup table: its number of entries and
/// whether each entry is an (order, position) pair (else positions are the entries' ranks).
struct sparse_lookup_info {
  index_t count = 0;   ///< entries (the locale's indices)
  index_t paired = 0;  ///< 1: pairs (order, position); 0: orders only, position = rank
};

/// A locale's lookup table: the orders of its indices, ascending.
struct sparse_lookup_table {
  std::vector<std::int64_t> words;  ///< orders, or (order, position) pairs
  bool paired = false;              ///< see sparse_lookup_info::paired
  /// The number of entries.
  index_t count() const noexcept {
    return static_cast<index_t>(words.size() / (paired ? 2 : 1));
  }
};

/// The row-major order of indices known to lie in `whole`, computed with one division per
/// strided dimension and none for unit strides (rect::order_of checks membership too).
template <std::size_t N>
class order_of_member {
 public:
  /// The orders of indices of `whole`.
  explicit order_of_member(const rect<N>& whole) {
    index_t m = 1;
    for (std::size_t d = N; d-- > 0;) {
      const range& r = whole.dim(d);
      first_[d] = r.empty() ? 0 : r.first();
      stride_[d] = r.stride();
      weight_[d] = m;
      m *= std::max<index_t>(r.size(), 1);
    }
  }
  /// The order of `i`, which must lie in `whole`.
  std::int64_t operator()(const idx<N>& i) const noexcept {
    std::int64_t k = 0;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t step = stride_[d] == 1 ? i[d] - first_[d] : (i[d] - first_[d]) / stride_[d];
      k += step * weight_[d];
    }
    return k;
  }

 private:
  std::array<index_t, N> first_{}, stride_{}, weight_{};
};

/// The lookup table of the indices whose parent orders are `orders`, listed by position:
/// the orders alone when they ascend (8 bytes per index), else (order, position) pairs sorted
/// by order (16 bytes per index).
inline sparse_lookup_table make_sparse_lookup(std::vector<std::int64_t> orders) {
  sparse_lookup_table t;
  if (std::is_sorted(orders.begin(), orders.end())) {
    t.words = std::move(orders);
    return t;
  }
  t.paired = true;
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs(orders.size());
  for (std::size_t p = 0; p < orders.size(); ++p) pairs[p] = {orders[p], static_cast<std::int64_t>(p)};
  std::sort(pairs.begin(), pairs.end());
  t.words.resize(2 * pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    t.words[2 * k] = pairs[k].first;
    t.words[2 * k + 1] = pairs[k].second;
  }
  return t;
}

/// Every locale's lookup table, reachable one-sidedly.
class sparse_lookup {
 public:
  sparse_lookup() = default;
  sparse_lookup(const sparse_lookup&) = delete;
  sparse_lookup& operator=(const sparse_lookup&) = delete;

  /// Collective: makes `table` this locale's table (none: keeps the current one), exposes it
  /// in a new window and learns every locale's count and form (one all-gather of two words
  /// per locale). Returns the number of entries on all locales.
  index_t expose(std::optional<sparse_lookup_table> table) {
    window_ = rma_window();
    if (table) table_ = std::move(*table);
    window_ = rma_window(table_.words.data(), table_.words.size() * sizeof(std::int64_t), sizeof(std::int64_t));
    peers_ = all_gather(sparse_lookup_info{table_.count(), table_.paired ? 1 : 0});
    index_t total = 0;
    for (const auto& i : peers_) total += i.count;
    return total;
  }
  /// This locale's table.
  const sparse_lookup_table& table() const noexcept { return table_; }
  /// The position of the index of parent order `order` on locale `owner`, or -1 when that
  /// locale does not hold it: `owner`'s table searched one-sidedly (ceil(log_65(n / 256)) + 1
  /// reads of at most 4 KiB, for n entries there). Not collective.
  index_t position_on(int owner, std::int64_t order) const {
    const sparse_lookup_info info = peers_[static_cast<std::size_t>(owner)];
    const index_t w = info.paired ? 2 : 1;  // words per entry
    index_t lo = 0, hi = info.count;        // the entry, when present, is in [lo, hi)
    constexpr index_t fan = 64;             // samples per read
    constexpr index_t whole = 256;          // an interval this short is read whole
    std::vector<element_run> runs;
    std::vector<std::int64_t> got;
    while (hi - lo > whole) {
      runs.clear();
      const auto sample = [&](index_t k) {  // the k-th of `fan` entries spread over [lo, hi)
        return lo + static_cast<index_t>(static_cast<wide_int>(k + 1) * (hi - lo) / (fan + 1));
      };
      for (index_t k = 0; k < fan; ++k) runs.push_back({sample(k) * w, w});
      got.resize(static_cast<std::size_t>(fan * w));
      window_.get(owner, runs, got.data());
      index_t k = 0;
      while (k < fan && got[static_cast<std::size_t>(k * w)] < order) ++k;
      if (k < fan && got[static_cast<std::size_t>(k * w)] == order)
        return w == 2 ? got[static_cast<std::size_t>(k * w + 1)] : sample(k);
      const index_t next_lo = k == 0 ? lo : sample(k - 1) + 1;
      hi = k == fan ? hi : sample(k);
      lo = next_lo;
    }
    if (hi <= lo) return -1;
    got.resize(static_cast<std::size_t>((hi - lo) * w));
    window_.get(owner, std::vector<element_run>{{lo * w, (hi - lo) * w}}, got.data());
    index_t a = 0, b = hi - lo;
    while (a < b) {
      const index_t m = a + (b - a) / 2;
      if (got[static_cast<std::size_t>(m * w)] < order) a = m + 1;
      else b = m;
    }
    if (a == hi - lo || got[static_cast<std::size_t>(a * w)] != order) return -1;
    return w == 2 ? got[static_cast<std::size_t>(a * w + 1)] : lo + a;
  }
  /// Calls `f(owner, order, position)` for every entry of every locale's table, in
  /// ascending order (the parent's row-major order of the indices): this locale's table
  /// directly, the others' one-sidedly in batches of 16,384 entries (one message each).
  /// Not collective.
  template <class F>
  void for_each_in_order(F&& f) const {
    const int p = num_locales(), me = here();
    constexpr index_t batch = 16384;
    struct cursor {
      index_t next = 0;                 // the first entry not read yet
      index_t base = 0;                 // the entry words[0] belongs to
      std::size_t at = 0;               // the current entry in `words`
      std::vector<std::int64_t> words;  // a batch of entries
    };
    std::vector<cursor> cursors(static_cast<std::size_t>(p));
    const auto width = [&](int q) { return peers_[static_cast<std::size_t>(q)].paired ? std::size_t{2} : std::size_t{1}; };
    const auto ready = [&](int q) {  // true when cursor q stands on an entry (reads the next batch if needed)
      cursor& c = cursors[static_cast<std::size_t>(q)];
      const std::size_t w = width(q);
      if (c.at * w < c.words.size()) return true;
      const index_t count = peers_[static_cast<std::size_t>(q)].count;
      if (c.next >= count) return false;
      const index_t n = std::min(batch, count - c.next);
      c.words.resize(static_cast<std::size_t>(n) * w);
      if (q == me)
        std::copy_n(table_.words.begin() + static_cast<std::ptrdiff_t>(c.next * static_cast<index_t>(w)), c.words.size(),
                    c.words.begin());
      else
        read(q, c.next * static_cast<index_t>(w), n * static_cast<index_t>(w), c.words.data());
      c.base = c.next;
      c.next += n;
      c.at = 0;
      return true;
    };
    using head = std::pair<std::int64_t, int>;  // (order, locale)
    std::priority_queue<head, std::vector<head>, std::greater<>> heads;
    for (int q = 0; q < p; ++q)
      if (ready(q)) heads.push({cursors[static_cast<std::size_t>(q)].words[0], q});
    while (!heads.empty()) {
      const auto [order, q] = heads.top();
      heads.pop();
      cursor& c = cursors[static_cast<std::size_t>(q)];
      const std::size_t w = width(q);
      const index_t position = w == 2 ? c.words[c.at * 2 + 1] : c.base + static_cast<index_t>(c.at);
      f(q, order, position);
      ++c.at;
      if (ready(q)) heads.push({c.words[c.at * w], q});
    }
  }
  /// Every locale's count and form, by locale.
  const std::vector<sparse_lookup_info>& peers() const noexcept { return peers_; }
  /// Reads `count` words of `owner`'s table from word `first` into `out` (one message).
  void read(int owner, index_t first, index_t count, std::int64_t* out) const {
    if (count > 0) window_.get(owner, std::vector<element_run>{{first, count}}, out);
  }

 private:
  sparse_lookup_table table_;
  rma_window window_;
  std::vector<sparse_lookup_info> peers_;
};

}  // namespace dmap::detail
