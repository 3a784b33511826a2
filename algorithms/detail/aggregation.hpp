// The machinery behind aggregation.hpp (not part of the API): keyed_value, dense_combine_ratio,
// list_fold_ratio, dense_table_bytes, op_identity, count_table_bytes,
// count_cached_table_bytes, fraction, table_switch_fraction, table_switch_at,
// order_runs, one_run_owners, dense_routes,
// owned_element, combined_bytes, order_lists, list_message_tag, write_list_message,
// list_message.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
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

/// Pre-combining keyed contributions (16 bytes and more each) at the source pays when a
/// destination's keys are this dense (their span is below this many times their number): a
/// histogram's bins, say.
inline constexpr index_t dense_combine_ratio = 2;

/// Folding a destination's list (order_lists: 4 bytes per contribution while the values are
/// uniform) pays when it holds at least this many contributions per order of its span: a
/// folded list sends (order, value) per distinct order, 12 bytes for an int64 count, so it is
/// smaller only where most orders repeat, and a fold is one more random pass at the source.
inline constexpr index_t list_fold_ratio = 4;

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

/// A table of at most this many bytes stays in the caches (L2) while a thread counts into it;
/// a larger one lives in main memory, where its passes cost more per element.
inline constexpr index_t count_cached_table_bytes = index_t{1} << 20;

/// A fraction `num / den` of a count.
struct fraction {
  index_t num;  ///< the numerator
  index_t den;  ///< the denominator (> 0)
};

/// With an op identity, `aggregation::automatic` starts each thread on lists and moves it to a
/// table of the whole index set (n elements) at its (n * f)-th contribution of the round, f this
/// fraction: from there on the table (filled, summed, sent and applied once per round: a few
/// passes over n elements, and with several locales every element sent) costs less than listing
/// each contribution (4 bytes buffered, sent and applied at random). Measured where the two cost
/// the same (docs/performance.md, "Histogram: the switch point measured again": 2^14 to 2^24
/// int64 bins at 1 x 2, 2 x 1 and 4 x 1): with one locale n / 8 for a cached table, n / 4
/// beyond; with several, whose tables travel whole, n / 2 and 4n / 5.
constexpr fraction table_switch_fraction(bool cached, bool one_locale) {
  if (one_locale) return {1, cached ? 8 : 4};
  return cached ? fraction{1, 2} : fraction{4, 5};
}

/// The first word of a dense message (values in route sequence, no keys): a key of a keyed
/// message (an order) is never negative.
inline constexpr index_t dense_message_tag = -1;

/// The rule of `aggregation::automatic` with an op identity over a formula map on `locales`
/// locales: the contribution of a round (counted from 1) at which a thread moves to a table of
/// the `n` elements of `element_bytes` bytes each (n times table_switch_fraction, rounded
/// down, at least 1), or -1 when it never does (the table would exceed count_table_bytes).
constexpr index_t table_switch_at(index_t n, index_t element_bytes, int locales) {
  if (n <= 0 || element_bytes <= 0 || n > count_table_bytes / element_bytes) return -1;
  const bool cached = n <= count_cached_table_bytes / element_bytes;
  const fraction f = table_switch_fraction(cached, locales <= 1);
  return std::max<index_t>(1, n * f.num / f.den);  // (n <= 2^28: no overflow)
}

/// The owners of a 1-D index set whose locales each own at most one run of consecutive
/// orders (Block, Irregular): the runs' first orders, increasing, and their locales. Empty
/// when the map deals otherwise (Cyclic, BlockCyclic) or owns no index set.
struct order_runs {
  std::vector<index_t> first;  ///< the first order of each run, increasing from 0
  std::vector<int> locale;     ///< the locale owning each run
  /// The locale owning the index at order `o` (0 <= o < the size of the index set).
  [[gnu::always_inline]] int owner(index_t o) const {
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

/// Contributions of one thread, a list per destination locale, each in the order they were
/// added: the row-major orders of their indices (one 32-bit word each while the index set has
/// at most 2^32 elements, else two: `wide`) and their values. The values are left out while
/// every contribution of the round is the same value, bit for bit (a count: `uniform()`), and
/// written out for every list at the first that differs. A histogram's contribution then
/// buffers 4 bytes, where an (order, value) pair of 64-bit numbers takes 16.
template <class T>
class order_lists {
 public:
  static_assert(std::is_trivially_copyable_v<T>, "aggregated values travel as bytes");

  /// Empty lists to `destinations` locales; orders of two words each when `wide`.
  void reset(std::size_t destinations, bool wide) {
    to_.assign(destinations, {});
    wide_ = wide;
    uniform_ = true;
    any_ = false;
  }
  /// Appends (order `o`, value `x`) to the list of destination `q`. May throw (allocation);
  /// then the lists are only good for clear().
  [[gnu::always_inline]] void push(std::size_t q, index_t o, const T& x) {
    list& l = to_[q];
    if (uniform_) {
      if (!any_) {
        std::memcpy(same_.data(), &x, sizeof(T));
        any_ = true;
      } else if (std::memcmp(same_.data(), &x, sizeof(T)) != 0) {
        spell_out();
      }
    }
    if (!uniform_) l.values.push_back(x);
    if (wide_) {
      l.words.push_back(static_cast<std::uint32_t>(static_cast<std::uint64_t>(o)));
      l.words.push_back(static_cast<std::uint32_t>(static_cast<std::uint64_t>(o) >> 32));
    } else {
      l.words.push_back(static_cast<std::uint32_t>(o));
    }
  }
  /// The number of contributions listed for destination `q`.
  std::size_t size(std::size_t q) const { return to_[q].words.size() >> (wide_ ? 1 : 0); }
  /// True when no list holds a contribution.
  bool empty() const {
    return std::all_of(to_.begin(), to_.end(), [](const list& l) { return l.words.empty(); });
  }
  /// True when the orders take two words each.
  bool wide() const { return wide_; }
  /// True while the values are left out (every contribution of the round is `same()`).
  bool uniform() const { return uniform_; }
  /// The value of every contribution while uniform() (and some was listed).
  T same() const { return std::bit_cast<T>(same_); }
  /// The bytes of same().
  const std::byte* same_bytes() const { return same_.data(); }
  /// The order words of destination `q`'s list.
  const std::vector<std::uint32_t>& words(std::size_t q) const { return to_[q].words; }
  /// The values of destination `q`'s list (empty while uniform()).
  const std::vector<T>& values(std::size_t q) const { return to_[q].values; }
  /// Calls f(order, value) for each contribution to destination `q`, in the order added.
  template <class F>
  void for_each(std::size_t q, F&& f) const {
    const list& l = to_[q];
    const std::size_t n = size(q);
    if (n == 0) return;
    const std::uint32_t* w = l.words.data();
    if (uniform_) {
      const T one = same();
      if (wide_)
        for (std::size_t j = 0; j < n; ++j) f(static_cast<index_t>(w[2 * j] | std::uint64_t{w[2 * j + 1]} << 32), one);
      else
        for (std::size_t j = 0; j < n; ++j) f(static_cast<index_t>(w[j]), one);
    } else {
      const T* v = l.values.data();
      if (wide_)
        for (std::size_t j = 0; j < n; ++j) f(static_cast<index_t>(w[2 * j] | std::uint64_t{w[2 * j + 1]} << 32), v[j]);
      else
        for (std::size_t j = 0; j < n; ++j) f(static_cast<index_t>(w[j]), v[j]);
    }
  }
  /// Empties every list for the next round; keeps their memory unless `release`.
  void clear(bool release) {
    for (list& l : to_) {
      if (release) {
        std::vector<std::uint32_t>().swap(l.words);
        std::vector<T>().swap(l.values);
      } else {
        l.words.clear();
        l.values.clear();
      }
    }
    uniform_ = true;
    any_ = false;
  }

 private:
  struct list {
    std::vector<std::uint32_t> words;  // the orders
    std::vector<T> values;             // one per order, or none while uniform
  };
  // The first value that differs from same(): every list's values written out.
  [[gnu::noinline]] void spell_out() {
    const T x = same();
    for (list& l : to_) l.values.assign(size_of(l), x);
    uniform_ = false;
  }
  std::size_t size_of(const list& l) const { return l.words.size() >> (wide_ ? 1 : 0); }

  std::vector<list> to_;
  bool wide_ = false, uniform_ = true, any_ = false;
  std::array<std::byte, sizeof(T)> same_{};
};

/// Applies `count` contributions to a run of elements, unchecked: the orders at `orders` (32-bit
/// words, two each, the low first, when `wide`), the values at `values` (or `*one` for every
/// contribution when `values` is null), both read as bytes (no alignment needed); the element of
/// order o is `base[(o - first) * step]`. Every order must lie in the run (the caller has made
/// sure): the loops hold nothing but the update, which keeps as many of the random updates in
/// flight as the core allows.
template <class T, class Op>
void apply_to_run(const std::byte* orders, std::size_t count, bool wide, const std::byte* values, const T* one,
                  T* base, index_t first, index_t step, Op& op) {
  const auto each = [&]<bool Wide, bool Unit>(auto&& value_of) {
    T* const b = base;
    const index_t f = first, s = step;
    const std::byte* const w = orders;
    for (std::size_t j = 0; j < count; ++j) {
      index_t o;
      if constexpr (Wide) {
        std::uint32_t x[2];  // the low word first
        std::memcpy(x, w + 8 * j, 8);
        o = static_cast<index_t>(x[0] | std::uint64_t{x[1]} << 32);
      } else {
        std::uint32_t x;
        std::memcpy(&x, w + 4 * j, 4);
        o = static_cast<index_t>(x);
      }
      T& e = b[Unit ? o - f : (o - f) * s];
      e = op(e, value_of(j));
    }
  };
  const auto with_values = [&]<bool Wide, bool Unit>() {
    if (values == nullptr) {
      const T x = *one;
      each.template operator()<Wide, Unit>([x](std::size_t) { return x; });
    } else {
      each.template operator()<Wide, Unit>([values](std::size_t j) {
        std::array<std::byte, sizeof(T)> x;
        std::memcpy(x.data(), values + j * sizeof(T), sizeof(T));
        return std::bit_cast<T>(x);
      });
    }
  };
  if (wide) {
    if (step == 1) with_values.template operator()<true, true>();
    else with_values.template operator()<true, false>();
  } else {
    if (step == 1) with_values.template operator()<false, true>();
    else with_values.template operator()<false, false>();
  }
}

/// The first word of a list message (write_list_message's): never a key of a keyed message (an
/// order or an offset, not negative) nor dense_message_tag.
inline constexpr index_t list_message_tag = -2;

/// A list message read in place: `count` contributions, orders `order(j)` (all in [lo, hi]),
/// values `value(j)`.
template <class T>
struct list_message {
  std::size_t count = 0;        ///< the number of contributions
  index_t lo = 0, hi = -1;      ///< the least and the greatest order (as the sender found them)
  bool wide = false;            ///< orders of two 32-bit words each
  bool uniform = false;         ///< one value for all, `same`
  std::array<std::byte, sizeof(T)> same{};  ///< the bytes of every contribution's value when uniform
  const std::byte* orders = nullptr;  ///< the order words
  const std::byte* values = nullptr;  ///< the values when not uniform
  /// The j-th contribution's order.
  index_t order(std::size_t j) const {
    if (wide) {
      std::uint32_t w[2];  // the low word first
      std::memcpy(w, orders + 8 * j, 8);
      return static_cast<index_t>(w[0] | std::uint64_t{w[1]} << 32);
    }
    std::uint32_t o;
    std::memcpy(&o, orders + 4 * j, 4);
    return static_cast<index_t>(o);
  }
  /// The j-th contribution's value.
  T value(std::size_t j) const {
    if (uniform) return std::bit_cast<T>(same);
    std::array<std::byte, sizeof(T)> x;
    std::memcpy(x.data(), values + j * sizeof(T), sizeof(T));
    return std::bit_cast<T>(x);
  }
};

// The header of a list message: tag, count, flags (1: wide orders, 2: one value for all), the
// least and the greatest order.
inline constexpr std::size_t list_header_bytes = 5 * sizeof(index_t);

/// Reads a list message; throws runtime_error when its size does not match its header.
template <class T>
list_message<T> read_list_message(const std::vector<std::byte>& bytes) {
  list_message<T> m;
  index_t head[5] = {0, 0, 0, 0, 0};
  if (bytes.size() >= list_header_bytes) std::memcpy(head, bytes.data(), list_header_bytes);
  const bool sane = bytes.size() >= list_header_bytes && head[0] == list_message_tag && head[1] >= 0 &&
                    (head[2] & ~index_t{3}) == 0 && head[1] <= static_cast<index_t>(bytes.size()) &&
                    (head[1] == 0 || (head[3] >= 0 && head[3] <= head[4]));
  if (sane) {
    m.count = static_cast<std::size_t>(head[1]);
    m.lo = head[3];
    m.hi = head[4];
    m.wide = (head[2] & 1) != 0;
    m.uniform = (head[2] & 2) != 0;
    const std::size_t expected = list_header_bytes + (m.uniform ? sizeof(T) : m.count * sizeof(T)) +
                                 m.count * (m.wide ? 8 : 4);
    if (expected == bytes.size()) {
      const std::byte* at = bytes.data() + list_header_bytes;
      if (m.uniform) {
        std::memcpy(m.same.data(), at, sizeof(T));
        at += sizeof(T);
      }
      m.orders = at;
      m.values = at + m.count * (m.wide ? 8 : 4);
      return m;
    }
  }
  throw runtime_error("dmap aggregation: locale " + std::to_string(here()) + " received a list message of " +
                      std::to_string(bytes.size()) + " bytes that its header does not describe");
}

/// The message of destination `q` from the lists of every thread (`parts`, taken in turn) into
/// `out` (its capacity reused; empty when no contribution): a header (with the least and the
/// greatest order), then the orders, then the values, or one value when every contribution has
/// the same. When the orders are dense enough
/// (list_fold_ratio) equal orders are folded first: one contribution per distinct order, by
/// increasing order, `op` folded over its contributions in their order. `folded` and `seen`
/// are the fold's scratch, kept by the caller from call to call (`seen` all zero between calls).
/// The orders are copied and their span found in one pass (a chunk copied, then scanned while
/// in the cache); a message that is to be folded is then written again.
template <class T, class Op>
void write_list_message(const std::vector<const order_lists<T>*>& parts, std::size_t q, Op& op,
                        std::vector<std::byte>& out, std::vector<T>& folded, std::vector<unsigned char>& seen) {
  std::size_t count = 0;
  bool wide = false, uniform = true;
  const std::byte* same = nullptr;
  for (const auto* part : parts) {
    const std::size_t n = part->size(q);
    if (n == 0) continue;
    count += n;
    wide = part->wide();
    if (!part->uniform()) uniform = false;
    else if (same == nullptr) same = part->same_bytes();
    else if (std::memcmp(same, part->same_bytes(), sizeof(T)) != 0) uniform = false;
  }
  const auto write_header = [&](std::size_t n, bool one_value) {
    const index_t head[5] = {list_message_tag, static_cast<index_t>(n), (wide ? 1 : 0) | (one_value ? 2 : 0), 0, -1};
    out.resize(list_header_bytes + (one_value ? sizeof(T) : n * sizeof(T)) + n * (wide ? 8 : 4));
    std::memcpy(out.data(), head, list_header_bytes);
    return out.data() + list_header_bytes;
  };
  if (count == 0) {
    out.clear();
    return;
  }
  // The message unfolded: header, [the one value], the orders (copied and spanned), the values.
  std::byte* at = write_header(count, uniform);
  if (uniform) {
    std::memcpy(at, same, sizeof(T));
    at += sizeof(T);
  }
  index_t lo = std::numeric_limits<index_t>::max(), hi = -1;
  constexpr std::size_t chunk = 4096;  // words: 16 KiB, scanned from L1 after their copy
  for (const auto* part : parts) {
    const auto& w = part->words(q);
    for (std::size_t from = 0; from < w.size(); from += chunk) {
      const std::size_t len = std::min(chunk, w.size() - from);
      const std::uint32_t* src = w.data() + from;
      std::memcpy(at, src, len * sizeof(std::uint32_t));
      at += len * sizeof(std::uint32_t);
      if (wide) {
        for (std::size_t j = 0; j + 1 < len; j += 2) {  // (a chunk holds whole orders: it is even)
          const auto o = static_cast<index_t>(src[j] | std::uint64_t{src[j + 1]} << 32);
          lo = std::min(lo, o);
          hi = std::max(hi, o);
        }
      } else {
        std::uint32_t l = std::numeric_limits<std::uint32_t>::max(), h = 0;
        for (std::size_t j = 0; j < len; ++j) {
          l = std::min(l, src[j]);
          h = std::max(h, src[j]);
        }
        lo = std::min<index_t>(lo, l);
        hi = std::max<index_t>(hi, h);
      }
    }
  }
  const index_t bounds[2] = {lo, hi};  // (the header's last two words)
  std::memcpy(out.data() + 3 * sizeof(index_t), bounds, sizeof bounds);
  const bool fold = std::is_default_constructible_v<T> && count >= 2 &&
                    static_cast<std::size_t>(hi - lo + 1) <= count / list_fold_ratio;  // orders >= 0
  if (!fold) {
    if (!uniform)
      for (const auto* part : parts) {
        const std::size_t n = part->size(q);
        if (n == 0) continue;
        if (part->uniform()) {
          for (std::size_t j = 0; j < n; ++j, at += sizeof(T)) std::memcpy(at, part->same_bytes(), sizeof(T));
        } else {
          std::memcpy(at, part->values(q).data(), n * sizeof(T));
          at += n * sizeof(T);
        }
      }
    return;
  }
  if constexpr (std::is_default_constructible_v<T>) {
    const auto span = static_cast<std::size_t>(hi - lo + 1);
    if (folded.size() < span) folded.resize(span);
    if (seen.size() < span) seen.resize(span, 0);
    std::size_t distinct = 0;
    try {
      for (const auto* part : parts)
        part->for_each(q, [&](index_t o, const T& x) {
          const auto k = static_cast<std::size_t>(o - lo);
          if (seen[k]) {
            folded[k] = op(folded[k], x);
          } else {
            folded[k] = x;
            seen[k] = 1;
            ++distinct;
          }
        });
    } catch (...) {
      std::fill(seen.begin(), seen.begin() + static_cast<std::ptrdiff_t>(span), 0);  // (op threw)
      throw;
    }
    std::byte* orders = write_header(distinct, false);
    std::memcpy(out.data() + 3 * sizeof(index_t), bounds, sizeof bounds);  // (the same least and greatest)
    std::byte* values = orders + distinct * (wide ? 8 : 4);
    for (std::size_t k = 0; k < span; ++k)
      if (seen[k]) {
        seen[k] = 0;  // (all zero again for the next call)
        const auto o = static_cast<std::uint64_t>(lo) + k;
        if (wide) {
          const std::uint32_t w[2] = {static_cast<std::uint32_t>(o), static_cast<std::uint32_t>(o >> 32)};
          std::memcpy(orders, w, 8);  // the low word first, as order_lists keeps them
          orders += 8;
        } else {
          const auto o32 = static_cast<std::uint32_t>(o);
          std::memcpy(orders, &o32, 4);
          orders += 4;
        }
        std::memcpy(values, &folded[k], sizeof(T));
        values += sizeof(T);
      }
  }
}

}  // namespace dmap::detail
