// The machinery behind aggregation.hpp (not part of the API): keyed_value, dense_combine_ratio,
// dense_table_bytes, op_identity, count_table_bytes, count_switch_ratio,
// count_cached_table_bytes, count_large_switch_ratio, table_switch_at,
// order_runs, one_run_owners, dense_routes,
// owned_element, combined_bytes.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../../runtime/detail/per_thread.hpp"

namespace dmap::detail {

/// One buffered contribution: a key (the index's row-major order in the domain, or with a
/// directory map the element's offset in its owner's storage) and a value.
template <class T>
struct keyed_value {
  index_t key;
  T value;
};

/// Pre-combining at the source pays when a destination's keys are this dense (contributions
/// per key of their span): a histogram's bins, say.
inline constexpr index_t dense_combine_ratio = 2;

/// An aggregator over an index set whose table of one value and one flag per index fits in
/// this many bytes folds each thread's contributions into such a table as they come (dense
/// mode: no per-destination lists, no owner lookup per contribution).
inline constexpr index_t dense_table_bytes = index_t{1} << 21;

/// Numbers an op identity is known for: integers but bool, float and double (no padding bits,
/// so that a value equals the identity exactly when its bytes do).
template <class T>
concept plain_number =
    (std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_same_v<T, float> || std::is_same_v<T, double>;

/// The identity of an aggregation's `op` on T when dmap knows one (`op(identity, x) == x` bit
/// for bit, for every x): then a thread's table can start filled with it and fold with a plain
/// `t[k] = op(t[k], x)`, no flag per index. Unknown by default.
template <class Op, class T>
struct op_identity {
  static constexpr bool known = false;  ///< no identity known: tables keep a flag per index
};
/// Sums: 0, and -0.0 for floating point (+0.0 would turn a -0.0 element into +0.0).
template <class T>
  requires plain_number<T>
struct op_identity<std::plus<>, T> {
  static constexpr bool known = true;                                             ///< an identity is known
  static constexpr T value() { return std::is_floating_point_v<T> ? T(-0.0) : T(0); }  ///< the identity
};
/// Sums written `std::plus<T>`: as `std::plus<>`.
template <class T>
  requires plain_number<T>
struct op_identity<std::plus<T>, T> : op_identity<std::plus<>, T> {};
/// Products: 1.
template <class T>
  requires plain_number<T>
struct op_identity<std::multiplies<>, T> {
  static constexpr bool known = true;           ///< an identity is known
  static constexpr T value() { return T(1); }  ///< the identity
};
/// Products written `std::multiplies<T>`: as `std::multiplies<>`.
template <class T>
  requires plain_number<T>
struct op_identity<std::multiplies<T>, T> : op_identity<std::multiplies<>, T> {};

/// With an op identity (op_identity), `aggregation::automatic` lets a thread fold into a table
/// of the whole index set only when that table takes at most this many bytes.
inline constexpr index_t count_table_bytes = index_t{1} << 28;

/// With an op identity, `aggregation::automatic` starts each thread on lists and moves it to a
/// table of the whole index set (n elements) at its (n / count_switch_ratio)-th contribution
/// of the round: from there on a table (filled, summed, sent and applied once per round: a
/// few passes over n elements) costs less than buffering each contribution (measured,
/// docs/performance.md "histogram").
inline constexpr index_t count_switch_ratio = 16;

/// A table larger than this many bytes lives in main memory, not in the caches: its passes
/// cost more per element (and every locale sends all of it), so a thread moves to it only at
/// its (n / count_large_switch_ratio)-th contribution (measured at 2^24 int64 bins: 2 and 4
/// locales were faster on lists at n / 8 and n / 16 contributions per thread, on the table
/// from n / 4).
inline constexpr index_t count_cached_table_bytes = index_t{1} << 24;

/// The ratio of count_switch_ratio for tables beyond count_cached_table_bytes.
inline constexpr index_t count_large_switch_ratio = 4;

/// The first word of a dense message (values in route sequence, no keys): a key of a keyed
/// message (an order) is never negative.
inline constexpr index_t dense_message_tag = -1;

/// The rule of `aggregation::automatic` with an op identity over a formula map: the
/// contribution of a round (counted from 1) at which a thread moves to a table of the `n`
/// elements of `element_bytes` bytes each (n / 16 up to 16 MiB, n / 4 beyond), or -1 when it
/// never does (the table would exceed count_table_bytes).
constexpr index_t table_switch_at(index_t n, index_t element_bytes) {
  if (n <= 0 || element_bytes <= 0 || n > count_table_bytes / element_bytes) return -1;
  const bool cached = n <= count_cached_table_bytes / element_bytes;
  return std::max<index_t>(1, n / (cached ? count_switch_ratio : count_large_switch_ratio));
}

/// The owners of a 1-D index set whose locales each own at most one run of consecutive
/// orders (Block, Irregular): the runs' first orders, increasing, and their locales. Empty
/// when the map deals otherwise (Cyclic, BlockCyclic) or owns no index set.
struct order_runs {
  std::vector<index_t> first;  ///< the first order of each run, increasing from 0
  std::vector<int> locale;     ///< the locale owning each run
  /// The locale owning the index at order `o` (0 <= o < the size of the index set).
  int owner(index_t o) const {
    if (first.size() <= 16) {  // a branch-free count: random indices would mispredict a search
      std::size_t at = 0;
      for (const index_t f : first) at += static_cast<std::size_t>(f <= o);
      return locale[at - 1];
    }
    const auto at = std::upper_bound(first.begin(), first.end(), o) - first.begin();
    return locale[static_cast<std::size_t>(at - 1)];
  }
};

/// The order_runs of `whole` under `model` (p questions to the model, once per handle).
inline order_runs one_run_owners(const domain_model_base<1>& model, const rect<1>& whole) {
  std::vector<std::pair<index_t, std::pair<index_t, int>>> runs;  // (first order, (count, locale))
  const int p = num_locales();
  for (int q = 0; q < p; ++q) {
    const auto pieces = model.local_subdomains(q);
    index_t count = 0;
    for (const auto& r : pieces) count += r.size();
    if (count == 0) continue;
    if (pieces.size() != 1 && std::count_if(pieces.begin(), pieces.end(), [](const rect<1>& r) { return !r.empty(); }) != 1)
      return {};
    const rect<1>& r = *std::find_if(pieces.begin(), pieces.end(), [](const rect<1>& x) { return !x.empty(); });
    if (r.dim(0).stride() != whole.dim(0).stride()) return {};
    runs.push_back({whole.order_of(r.index_at(0)), {count, q}});
  }
  std::sort(runs.begin(), runs.end());
  order_runs out;
  index_t next = 0;
  for (const auto& [first, rest] : runs) {
    if (first != next) return {};  // the runs must tile the index set
    out.first.push_back(first);
    out.locale.push_back(rest.second);
    next = first + rest.first;
  }
  if (next != whole.size()) return {};
  return out;
}

/// `count` consecutive positions from `first` (orders of an index set, or storage offsets).
struct run {
  index_t first;  ///< the first position
  index_t count;  ///< how many
};

/// Appends the positions [first, first + count) to `runs`, extending the last run when they
/// follow it.
inline void append_run(std::vector<run>& runs, index_t first, index_t count) {
  if (!runs.empty() && runs.back().first + runs.back().count == first)
    runs.back().count += count;
  else
    runs.push_back({first, count});
}

/// Where a dense table of the whole index set goes (formula maps): for every locale, the runs
/// of row-major orders of the elements it owns, piece by piece (as its local_subdomains lists
/// them), row by row; and for this locale, the runs of storage offsets (from local_data()) of
/// the same elements in the same sequence. A message of values in that sequence needs no keys.
struct dense_routes {
  std::vector<std::vector<run>> to;  ///< per locale: the orders of its elements, in message sequence
  std::vector<run> here;             ///< this locale's storage offsets, in message sequence
  index_t here_count = 0;            ///< the number of elements this locale owns
};

/// The routes of `whole` under `model` for an array `a` over it (this locale's storage).
template <std::size_t N, class T>
dense_routes make_dense_routes(const domain_model_base<N>& model, const rect<N>& whole, const array<T, N>& a) {
  dense_routes routes;
  const int p = num_locales(), me = here();
  routes.to.resize(static_cast<std::size_t>(p));
  // Calls f(first index, count) for each row (the last dimension) of r, in row-major order.
  const auto rows = [](const rect<N>& r, auto&& f) {
    if (r.empty()) return;
    const index_t len = r.dim(N - 1).size();
    for (index_t k = 0; k < r.size(); k += len) f(r.index_at(k), len);
  };
  const index_t whole_stride = whole.dim(N - 1).stride();
  for (int q = 0; q < p; ++q) {
    auto& runs = routes.to[static_cast<std::size_t>(q)];
    for (const rect<N>& r : model.local_subdomains(q))
      rows(r, [&](idx<N> i, index_t len) {
        const index_t step = r.dim(N - 1).stride();
        if (step == whole_stride) {  // consecutive orders
          append_run(runs, whole.order_of(i), len);
        } else {
          const index_t first = i[N - 1];
          for (index_t j = 0; j < len; ++j) {
            i[N - 1] = first + j * step;
            append_run(runs, whole.order_of(i), 1);
          }
        }
      });
  }
  const T* data = a.local_data();
  const auto& owned = model.local_subdomains(me);
  const auto& blocks = a.local_blocks();
  for (std::size_t b = 0; b < owned.size() && b < blocks.size(); ++b) {
    const rect<N>& r = owned[b];
    rows(r, [&](idx<N> i, index_t len) {
      const index_t step = r.dim(N - 1).stride();
      const index_t first = i[N - 1];
      const index_t at = &blocks[b](i) - data;
      i[N - 1] = first + (len - 1) * step;
      if (&blocks[b](i) - data == at + len - 1) {  // layouts are affine: the row is contiguous
        append_run(routes.here, at, len);
      } else {
        for (index_t j = 0; j < len; ++j) {
          i[N - 1] = first + j * step;
          append_run(routes.here, &blocks[b](i) - data, 1);
        }
      }
      routes.here_count += len;
    });
  }
  return routes;
}

/// The element of the index at row-major order `order` of `whole`, which this locale owns,
/// in `a`'s storage (formula maps). Throws runtime_error when this locale does not own it.
template <class T, std::size_t N>
T* owned_element(const array<T, N>& a, const rect<N>& whole, index_t order) {
  const idx<N> i = whole.index_at(order);
  const auto& owned = a.domain().local_subdomains();
  const auto& blocks = a.local_blocks();
  for (std::size_t b = 0; b < blocks.size(); ++b)
    if (owned[b].contains(i)) return &blocks[b](i);
  std::ostringstream s;
  s << "dmap aggregation: locale " << here() << " received index " << i
    << " it does not own (the map's locale_of disagrees with its pieces)";
  throw runtime_error(s.str());
}

/// The message of one destination: the contributions of `parts` (lists of one destination,
/// each in the order it was added, taken in turn) as bytes. When their keys are dense
/// enough, equal keys are folded first: one entry per distinct key, by increasing key, each
/// value `op` folded over the key's contributions in their order. Sparse keys travel as
/// they are.
/// Written into `out`, whose capacity is reused (a kept message buffer: no fresh pages to fault
/// in and zero, round after round).
template <class T, class Op>
void combined_bytes(const std::vector<const std::vector<keyed_value<T>>*>& parts, Op& op, std::vector<std::byte>& out) {
  std::size_t count = 0;
  index_t lo = std::numeric_limits<index_t>::max(), hi = -1;
  for (const auto* part : parts) {
    count += part->size();
    for (const auto& e : *part) {
      lo = std::min(lo, e.key);
      hi = std::max(hi, e.key);
    }
  }
  if (count < 2 || hi - lo >= static_cast<index_t>(count) * dense_combine_ratio ||  // keys >= 0: no overflow
      !std::is_default_constructible_v<T>) {
    out.resize(count * sizeof(keyed_value<T>));  // (zeroes only what grows; then overwritten)
    std::size_t at = 0;
    for (const auto* part : parts) {
      if (part->empty()) continue;
      std::memcpy(out.data() + at, part->data(), part->size() * sizeof(keyed_value<T>));
      at += part->size() * sizeof(keyed_value<T>);
    }
    return;
  }
  if constexpr (std::is_default_constructible_v<T>) {
    const auto span = static_cast<std::size_t>(hi - lo + 1);
    std::vector<T> folded(span);
    std::vector<unsigned char> seen(span, 0);
    std::size_t distinct = 0;
    for (const auto* part : parts)
      for (const auto& e : *part) {
        const auto k = static_cast<std::size_t>(e.key - lo);
        if (seen[k]) {
          folded[k] = op(folded[k], e.value);
        } else {
          folded[k] = e.value;
          seen[k] = 1;
          ++distinct;
        }
      }
    out.resize(distinct * sizeof(keyed_value<T>));
    std::size_t at = 0;
    for (std::size_t k = 0; k < span; ++k)
      if (seen[k]) {
        const keyed_value<T> e{lo + static_cast<index_t>(k), folded[k]};
        std::memcpy(out.data() + at, &e, sizeof e);
        at += sizeof e;
      }
  }
}

}  // namespace dmap::detail
