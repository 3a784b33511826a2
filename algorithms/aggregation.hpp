// Aggregated scatter, accumulate and gather: writes to (and reads of) elements anywhere,
// issued one element at a time from loop bodies, buffered per destination locale and moved
// in one message per peer instead of one remote access per element.
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

#include "../dsi/array.hpp"
#include "../iterators/concepts.hpp"
#include "../iterators/detail/body_traits.hpp"
#include "../iterators/detail/engine.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"
#include "detail/aggregation.hpp"

namespace dmap {

/// The operation of a scatter: the contribution replaces the element (`op(old, x) == x`).
struct replace {
  /// Returns `x`.
  template <class T>
  constexpr T operator()(const T&, const T& x) const {
    return x;
  }
};

/// How an aggregator buffers contributions on each thread (see dmap::aggregator).
///
/// The rule of `automatic`, for an index set of n elements of type T:
/// - When dmap knows the identity of `op` on T (`std::plus` and `std::multiplies`, with or
///   without the type, on integers, float and double: a histogram) and the map is a formula
///   map (not Hashed or Unstructured): each thread starts on lists and moves to a table of
///   the whole index set at its (n / r)-th contribution of the round. On one locale r is 8
///   while the table (n * sizeof(T) bytes) fits in 1 MiB and 4 beyond; on several locales,
///   where every locale sends its whole table, r is 2 and 5/4. Beyond 256 MiB a thread stays on
///   lists. A table costs a few passes over n per round (filled with the identity, summed
///   with the other threads', sent, applied); a listed contribution costs its owner's lookup,
///   4 bytes buffered and sent (8 and more when the values differ) and an update at random on
///   the owner: the ratios are where the two cost the same (docs/performance.md,
///   "Histogram", measured at 2^14 to 2^24 bins). `add_each`, which knows how many
///   contributions it brings, moves a thread to its table at its first contribution when its
///   share of the loop (the iterand's size over locales and threads) reaches n / r. The bound
///   keeps a table per thread within memory (2^25 int64 elements: 256 MiB per thread and as
///   much again at finish()).
/// - Otherwise: `table` (with a flag per index) when n * (sizeof(T) + 1) <= 2 MiB, `lists`
///   beyond.
enum class aggregation {
  automatic,  ///< by the number of contributions and the size of the index set (the rule above)
  table,      ///< one table of the whole index set per thread, from the first contribution
  lists       ///< one list of orders (and values, unless all are equal) per destination locale per thread
};

/// A handle that buffers contributions `A[i] = op(A[i], x)` to the elements of an array,
/// from any thread of any locale, and delivers them in one collective `finish()`: one
/// message per peer that has contributions for it. Made by `dmap::accumulate(A, op)` or
/// `dmap::scatter(A)`.
///
/// - `add(i, x)` (alias `put`) may be called from `forall` bodies on any thread, without
///   locks: each thread buffers on its own. In a table (`aggregation::table`, or automatic
///   as dmap::aggregation says) a thread folds each contribution into its own table of the
///   whole index set at once. When dmap knows `op`'s identity (sums and products of numbers)
///   the table starts filled with it and the add is `t[o] = op(t[o], x)` after a bounds
///   check; the threads' tables are summed at `finish()` and each owner receives the values
///   of all its elements in one message without keys (for a Block map one contiguous range),
///   or nothing when they are all the identity. Other ops keep a flag per index, and a locale
///   sends (order, value) for each element it touched. With `aggregation::lists` a thread
///   appends the element's row-major order to a list per owner (found by the map's
///   `locale_of`), 4 bytes while the index set has at most 2^32 elements, and the value only
///   once some value of the round differs from the others (a count travels as one value per
///   message); a list holding at least 4 contributions per order of its span is folded before
///   it is sent. A locale applies its lists for itself where they are (no copy, no fold). With
///   a directory map a thread lists (order, value) pairs and the owners are looked up at
///   `finish()`, one one-sided read per directory home.
/// - A bad index (outside the domain), a failed allocation or an exception of `op` is not
///   thrown by add(): it is kept, and `finish()` throws it on every locale, so a locale that
///   fails never leaves its peers waiting.
/// - `finish()` is collective: every locale calls it, in the same order as its other
///   collective calls, whether or not it added anything. Owners apply what they receive with
///   `op`, source locales in increasing order, each source's contributions in its order (in
///   table mode one per element, by increasing row-major order, or with a known identity in
///   the order the owner lists its pieces).
/// - `op` must be associative (one locale's contributions to one element are folded before
///   they are applied) and may run on several threads at once. With integers and
///   `std::plus` the result is exact. The order in which the contributions of different
///   threads of one locale are folded is not fixed, so a floating-point sum (or a `replace`
///   from two threads to one element) may differ from run to run unless
///   `DMAP_NUM_THREADS=1`; contributions of different locales are always applied in locale
///   order. When `op` throws while the owners apply, some contributions may have been applied.
/// - After `finish()` (returned or thrown) the buffers are empty and the handle takes the
///   next round; they keep their memory until the handle is destroyed, so a handle reused
///   for every round of a loop allocates only in its first. Dropping a handle with
///   contributions not finished discards them (a destructor cannot run a collective);
///   `pending()` tells whether any are buffered.
/// - The array must outlive the handle, keep its index set until `finish()`, and must not
///   keep copies (Replicated, replicated dimensions: unsupported_error at `finish()`).
template <class T, std::size_t N, class Op>
class aggregator {
  struct thread_buffers {
    std::vector<std::vector<detail::keyed_value<T>>> to;  // directory maps: to[0], owners found at finish()
    detail::order_lists<T> lists;                         // formula maps: per destination
    std::vector<T> table;                                 // dense mode: the folded value of each order
    std::vector<unsigned char> seen;                      // dense mode: whether table[o] holds one
    std::vector<index_t> touched;                         // dense mode: the orders seen, first touch first
    std::exception_ptr failure;                           // the first add() that failed here
    // Counting mode (an op identity, a formula map): `table` holds this round's contributions
    // (identity elsewhere) when `live`; `fast` is its data for add()'s hot path (unit strides
    // only), else null; `listed` counts the contributions listed before the table went live.
    T* fast = nullptr;
    bool live = false;
    index_t listed = 0;
  };
  using buffers_type = detail::per_thread<thread_buffers>;

 public:
  /// A handle on `a` applying `op`, buffering as `how` says (see dmap::accumulate). Not
  /// collective.
  aggregator(array<T, N>& a, Op op, aggregation how = aggregation::automatic) : a_(&a), op_(std::move(op)) {
    const auto& st = detail::state_of(a.domain());
    if (!st) {
      failure_ = std::make_exception_ptr(argument_error(
          "dmap::accumulate: the array was moved from; aggregated writes need an array with a domain"));
    } else {
      state_ = st;
      whole_ = st->whole;
      generation_ = st->generation;
      directory_ = st->dir != nullptr;
      unit_ = true;
      for (std::size_t d = 0; d < N; ++d) {
        unit_ = unit_ && whole_.dim(d).stride() == 1;
        lo_[d] = whole_.dim(d).first();
        extent_[d] = whole_.dim(d).size();
      }
      if constexpr (has_identity) {
        // Counting tables: explicit `table` from the first add; `automatic` as
        // detail::table_switch_at says.
        if (!directory_ && whole_.size() > 0 && how != aggregation::lists) {
          if (how == aggregation::table) {
            counting_ = true;
            switch_at_ = 0;
          } else if (const index_t at = detail::table_switch_at(whole_.size(), static_cast<index_t>(sizeof(T)), num_locales()); at > 0) {
            counting_ = true;
            switch_at_ = at;
          }
        }
      }
      if constexpr (std::is_default_constructible_v<T>)
        dense_ = !counting_ && whole_.size() > 0 &&
                 (how == aggregation::table ||
                  (how == aggregation::automatic &&
                   whole_.size() <= detail::dense_table_bytes / static_cast<index_t>(sizeof(T) + 1)));
      if constexpr (N == 1)
        if (!directory_ && !st->layers && whole_.size() > 0) owners_ = detail::one_run_owners(*st->model, whole_);
      list_rows_ = !directory_ && !dense_ && unit_;
      if (st->layers)
        failure_ = std::make_exception_ptr(unsupported_error(
            "dmap::accumulate: the map " + st->model->name() +
            " keeps copies of elements on several locales; aggregated writes need every element stored once"));
    }
    const bool directory = directory_, wide = whole_.size() > index_t{1} << 32;  // orders of one word up to 2^32
    const auto locales = static_cast<std::size_t>(num_locales());
    buffers_ = std::make_unique<buffers_type>([directory, wide, locales] {
      thread_buffers b;
      if (directory) b.to.resize(1);
      else b.lists.reset(locales, wide);
      return b;
    });
  }

  /// Buffers `A[i] = op(A[i], x)`. Any thread, not collective. An index outside the domain
  /// is reported by finish() (out_of_bounds_error on every locale), not here.
  [[gnu::always_inline]] void add(const idx<N>& i, const T& x) {
    thread_cache& c = my_cache();
    if constexpr (has_identity) {  // (no flagged table then but with directory maps: add_slowly's)
      // The hot path of counting mode: a live table, an index inside; then the add is
      // `t[o] = op(t[o], x)`. Everything else (lists, the first add, strides, bad indices)
      // is add_slowly's. After a failure the table may take more: finish() throws anyway.
      if (T* const t = c.fast) {
        index_t o = 0;
        if (unit_order(i, o)) [[likely]] {
          t[o] = op_(t[o], x);
          return;
        }
      }
    }
    // The hot path of a flagged table, small enough to inline into the loop body: a table
    // already made, unit strides, an index inside, an order seen before on this thread.
    // Everything else (first touch, lists, strides, bad indices, failures) is add_slowly's.
    else if (thread_buffers& b = *c.buffers; dense_ && unit_ && !b.seen.empty() && !b.failure) {
      index_t o = 0;
      if (unit_order(i, o) && b.seen[static_cast<std::size_t>(o)]) {
        T& slot = b.table[static_cast<std::size_t>(o)];
        if constexpr (std::is_nothrow_invocable_v<Op&, const T&, const T&>) {
          slot = op_(slot, x);
        } else {
          try {
            slot = op_(slot, x);
          } catch (...) {
            b.failure = std::current_exception();
          }
        }
        return;
      }
    }
    add_slowly(*c.buffers, i, x);
  }
  /// Buffers `A[i] = op(A[i], x)` for the 1-D index `i`.
  [[gnu::always_inline]] void add(index_t i, const T& x)
    requires(N == 1)
  {
    add(idx<1>{i}, x);
  }
  /// The same as add() (the name a scatter reads best with).
  [[gnu::always_inline]] void put(const idx<N>& i, const T& x) { add(i, x); }
  /// The same as add() for the 1-D index `i`.
  [[gnu::always_inline]] void put(index_t i, const T& x)
    requires(N == 1)
  {
    add(idx<1>{i}, x);
  }

  /// Collective (a loop over `iterand`, as dmap::forall): buffers one contribution per
  /// element of `iterand` (a domain, array, view or zip): `f(elements...)` returns a pair
  /// (index, value), an `idx<N>` (or for 1-D an integer) and a T, and `A[index] = op(A[index],
  /// value)` is buffered as add() buffers it. The same as
  ///   forall(iterand, [&](auto&&... e) { auto [i, x] = f(e...); add(i, x); })
  /// but each thread finds its buffers once per row of the loop, not once per element: with
  /// a live counting table (see dmap::aggregation) the loop over a row is a plain loop that
  /// counts into the table while the indices are inside. A histogram of `values` is
  ///   acc.add_each(std::as_const(values), [](std::int64_t v) { return std::pair{v, std::int64_t{1}}; });
  /// An exception of `f` is rethrown on every locale, as from a forall body; contributions
  /// buffered before it stay buffered until finish() or the handle's end.
  template <loop_iterand Iterand, class F>
    requires loop_body<F, Iterand>
  void add_each(Iterand&& iterand, F&& f) {
    const auto ops = detail::operands_of(iterand, "dmap::aggregator::add_each");
    if constexpr (has_identity) {
      // This call brings one contribution per element: when a thread's share of them reaches
      // the point where it would move to its table anyway, it moves at its first. (A refused
      // loop, a moved-from iterand say, fails in run_loop's agreement.)
      const index_t share = ops.refused ? 0 : std::get<0>(ops.ops).whole().size() / (index_t{num_locales()} * num_threads());
      eager_ = counting_ && share >= switch_at_;
    }
    constexpr std::size_t count = std::tuple_size_v<loop_args_t<Iterand>>;
    constexpr std::uint64_t written = detail::parameters_written<F>(std::make_index_sequence<count>{});
    detail::run_loop(
        ops, [](std::size_t) {},
        [&](std::size_t, auto&& each_row) {
          each_row([&](index_t length, const auto&... rows) {
            // (The rows by value: the row loop keeps their pointers in registers.)
            if ((rows.contiguous() && ...))
              add_row(length, [&f, rows...](index_t k) -> decltype(auto) { return f(rows.unit(k)...); });
            else
              add_row(length, [&f, rows...](index_t k) -> decltype(auto) { return f(rows.at(k)...); });
          });
        },
        written);
  }

  /// True when this locale holds contributions (or a failure) not yet finished.
  bool pending() const {
    for (const auto& b : *buffers_) {
      if (b.failure || b.live || !b.touched.empty() || !b.lists.empty()) return true;
      for (const auto& v : b.to)
        if (!v.empty()) return true;
    }
    return failure_ != nullptr;
  }

  /// Collective: delivers every locale's contributions (one message per peer that has some
  /// for it) and applies them on the owners; then the buffers are empty. Throws on every
  /// locale when some locale added an index outside the domain (out_of_bounds_error), could
  /// not buffer a contribution or a message (the allocation's error), when `op` threw on
  /// some locale, the array was moved from (argument_error), the domain changed its index
  /// set since the handle was made (argument_error) or the map keeps copies
  /// (unsupported_error).
  void finish() {
    const detail::collective_scope scope;
    struct clear_at_exit {
      aggregator* self;
      ~clear_at_exit() { self->clear(); }
    } guard{this};
    // A locale that fails to pack sends nothing, and the exchange's own agreement on its
    // receive buffers throws the failure on every locale (no agreement of its own first).
    std::exception_ptr failure;
    try {
      pack();
    } catch (...) {
      failure = std::current_exception();
    }
    detail::exchange_into(out_, in_, failure);
    agreed([&] { apply(in_); });
  }

 private:
  // For a unit-stride index set: whether `i` is inside, and then `o` = its row-major order
  // (unsigned arithmetic: the differences catch the int64 extremes, and an index outside
  // cannot overflow a signed product; no division).
  [[gnu::always_inline]] bool unit_order(const idx<N>& i, index_t& o) const { return unit_order(lo_, extent_, i, o); }
  [[gnu::always_inline]] static bool unit_order(const std::array<index_t, N>& lo, const std::array<index_t, N>& extent,
                                                const idx<N>& i, index_t& o) {
    bool inside = true;
    std::uint64_t order = 0;
    for (std::size_t d = 0; d < N; ++d) {
      const std::uint64_t k = static_cast<std::uint64_t>(i[d]) - static_cast<std::uint64_t>(lo[d]);
      inside = inside && k < static_cast<std::uint64_t>(extent[d]);
      order = order * static_cast<std::uint64_t>(extent[d]) + k;
    }
    o = static_cast<index_t>(order);
    return inside;
  }
  // The index of a contribution returned by add_each's function: an idx<N>, or for 1-D an
  // integer.
  template <class I>
  static idx<N> index_of(const I& i) {
    if constexpr (std::is_convertible_v<const I&, idx<N>>) {
      return i;
    } else {
      static_assert(N == 1 && std::is_integral_v<I>,
                    "dmap::aggregator::add_each: the function must return a pair (index, value) whose index is an "
                    "idx<N> or, for a 1-D array, an integer");
      return idx<1>{static_cast<index_t>(i)};
    }
  }
  // add_each's loop over one row: `element(k)` is f's pair for the row's k-th element. A thread
  // that is to go live at once (eager_) does so first. With a
  // live counting table (unit strides) a plain loop counts into it while the indices are
  // inside; with lists (formula maps, unit strides) a plain loop appends to them, up to the
  // contribution at which a counting table goes live. Their bounds stay in registers and the
  // only call, add_slowly's, is on the way out (a bad index, a failure). Everything else goes
  // through add().
  template <class Element>
  [[gnu::noinline]] void add_row(index_t length, Element element) {
    thread_cache& c = my_cache();
    thread_buffers& b = *c.buffers;
    const std::array<index_t, N> lo = lo_, extent = extent_;
    if constexpr (has_identity)
      if (eager_ && !b.live && !b.failure) {
        try {
          go_live(b);
        } catch (...) {
          b.failure = std::current_exception();  // (kept for finish(), as add_slowly keeps it)
        }
      }
    index_t k = 0;
    while (k < length) {
      if constexpr (has_identity) {
        if (T* const t = c.fast) {  // live from the first add that makes the table live
          for (; k < length; ++k) {
            auto&& [i, x] = element(k);
            const idx<N> at = index_of(i);
            index_t o = 0;
            if (!unit_order(lo, extent, at, o)) [[unlikely]] {
              add_slowly(b, at, static_cast<T>(x));  // (a bad index: kept for finish())
              ++k;
              break;
            }
            t[o] = op_(t[o], static_cast<T>(x));
          }
          continue;
        }
      }
      // Lists: as many as this thread lists before its counting table goes live (all, when
      // there is none).
      index_t room = list_rows_ && !b.failure && !b.live ? length - k : 0;
      if constexpr (has_identity)
        if (counting_) room = std::min(room, switch_at_ - 1 - b.listed);
      if (room > 0) {
        const index_t end = k + room, from = k;
        bool out = false;  // left at element k, which is done with (a bad index, a failure)
        for (; k < end; ++k) {
          auto&& [i, x] = element(k);
          const idx<N> at = index_of(i);
          index_t o = 0;
          if (!unit_order(lo, extent, at, o)) [[unlikely]] {
            add_slowly(b, at, static_cast<T>(x));  // (a bad index: kept for finish())
            out = true;
            break;
          }
          try {
            b.lists.push(static_cast<std::size_t>(owner_of(at, o)), o, static_cast<T>(x));
          } catch (...) {
            b.failure = std::current_exception();  // (kept for finish(), as add_slowly keeps it)
            out = true;
            break;
          }
        }
        if constexpr (has_identity) b.listed += k - from;
        k += out ? 1 : 0;
        continue;
      }
      auto&& [i, x] = element(k);
      add(index_of(i), static_cast<T>(x));
      ++k;
    }
  }
  // add() off its hot path: first touches, lists, strided index sets, bad indices.
  // (By value: the hot path then keeps the index and the value in registers.)
  [[gnu::noinline]] void add_slowly(thread_buffers& b, idx<N> i, T x) {
    if (b.failure) return;
    try {
      index_t o = 0;
      if (unit_) {
        if (!unit_order(i, o)) throw bad_index(i);
      } else {
        if (!state_ || !whole_.contains(i)) throw bad_index(i);
        o = whole_.order_of(i);
      }
      if constexpr (has_identity) {
        if (counting_) {
          if (!b.live) {
            if (b.listed + 1 < switch_at_) {  // the switch_at_-th contribution goes to the table
              ++b.listed;
              b.lists.push(static_cast<std::size_t>(owner_of(i, o)), o, x);
              return;
            }
            go_live(b);
          }
          T& slot = b.table[static_cast<std::size_t>(o)];
          slot = op_(slot, x);
          return;
        }
      }
      if (dense_) {
        if (b.seen.empty()) {
          b.table.resize(static_cast<std::size_t>(whole_.size()));
          b.seen.assign(static_cast<std::size_t>(whole_.size()), 0);
        }
        const auto k = static_cast<std::size_t>(o);
        if (b.seen[k]) {
          b.table[k] = op_(b.table[k], x);
        } else {
          b.table[k] = x;
          b.seen[k] = 1;
          b.touched.push_back(o);
        }
        return;
      }
      if (directory_) b.to[0].push_back({o, x});
      else b.lists.push(static_cast<std::size_t>(owner_of(i, o)), o, x);
    } catch (...) {
      b.failure = std::current_exception();
    }
  }
  // Counting mode: this thread's table, filled with the identity, takes its listed
  // contributions and goes live.
  void go_live(thread_buffers& b) {
    const auto n = static_cast<std::size_t>(whole_.size());
    const T id = detail::op_identity<Op, T>::value();
    if (b.table.size() != n) {
      std::vector<T>().swap(b.table);  // let the old one go first
      b.table.assign(n, id);
    } else {
      std::fill(b.table.begin(), b.table.end(), id);
    }
    T* const t = b.table.data();
    fold_lists(b, t);
    b.live = true;
    b.fast = unit_ ? t : nullptr;
    cache().fast = b.fast;  // b is this thread's: add() found it through cache()
  }
  // Counting mode: folds the lists of `b` into the table `t` (of the whole index set) and
  // empties them.
  void fold_lists(thread_buffers& b, T* t) {
    for (std::size_t q = 0; q < static_cast<std::size_t>(num_locales()); ++q)
      b.lists.for_each(q, [&](index_t o, const T& x) { t[o] = op_(t[o], x); });
    b.lists.clear(false);
  }
  // Counting mode: whether `v` is the identity, bit for bit (then it need not travel).
  static bool is_identity(const T& v) {
    const T id = detail::op_identity<Op, T>::value();
    return std::memcmp(&v, &id, sizeof(T)) == 0;
  }
  // Counting mode, local: when a thread's table is live, the messages: the threads' tables
  // and lists folded into one table, and to each locale whose elements are not all the
  // identity there, a tag and then their values in its route's sequence (no keys). False
  // when no table is live (then lists travel as in lists mode).
  bool pack_table(detail::byte_buffers& out) {
    thread_buffers* sum = nullptr;
    const auto n = static_cast<std::size_t>(whole_.size());
    for (auto& b : *buffers_) {
      if (!b.live) continue;
      if (sum == nullptr) {
        sum = &b;
        continue;
      }
      T* const s = sum->table.data();
      const T* const t = b.table.data();
      for (std::size_t k = 0; k < n; ++k) s[k] = op_(s[k], t[k]);
    }
    if (sum == nullptr) return false;
    T* const s = sum->table.data();
    for (auto& b : *buffers_) fold_lists(b, s);
    const detail::dense_routes& r = routes();
    for (std::size_t q = 0; q < out.size(); ++q) {
      const auto& runs = r.to[q];
      bool any = false;
      index_t count = 0;
      for (const auto& run : runs) {
        for (index_t j = 0; j < run.count && !any; ++j) any = !is_identity(s[run.first + j]);
        count += run.count;
      }
      if (!any) {
        out[q].clear();
        continue;
      }
      out[q].resize(sizeof(index_t) + static_cast<std::size_t>(count) * sizeof(T));  // its capacity is kept
      std::memcpy(out[q].data(), &detail::dense_message_tag, sizeof(index_t));
      std::size_t at = sizeof(index_t);
      for (const auto& run : runs) {
        std::memcpy(out[q].data() + at, s + run.first, static_cast<std::size_t>(run.count) * sizeof(T));
        at += static_cast<std::size_t>(run.count) * sizeof(T);
      }
    }
    return true;
  }
  // Counting mode, local: applies one locale's dense message (pack_table's) to this locale's
  // elements.
  void apply_table(const std::vector<std::byte>& bytes) {
    const detail::dense_routes& r = routes();
    if (bytes.size() != sizeof(index_t) + static_cast<std::size_t>(r.here_count) * sizeof(T))
      throw runtime_error("dmap aggregation: locale " + std::to_string(here()) + " received " +
                          std::to_string(bytes.size()) + " bytes of dense values for its " +
                          std::to_string(r.here_count) + " elements");
    T* const data = a_->local_data();
    const std::byte* v = bytes.data() + sizeof(index_t);
    for (const auto& run : r.here) {
      T* const e = data + run.first;
      for (index_t j = 0; j < run.count; ++j) {
        T x;
        std::memcpy(&x, v + static_cast<std::size_t>(j) * sizeof(T), sizeof(T));
        e[j] = op_(e[j], x);
      }
      v += static_cast<std::size_t>(run.count) * sizeof(T);
    }
  }
  // The dense routes of the index set, made on first use (formula maps).
  const detail::dense_routes& routes() {
    if (!routes_) routes_ = std::make_unique<detail::dense_routes>(detail::make_dense_routes(*state_->model, whole_, *a_));
    return *routes_;
  }
  // The owner of index i (at order o) of a formula map: by the runs of orders when each
  // locale owns one (a search among P numbers), else the map's locale_of.
  [[gnu::always_inline]] int owner_of(const idx<N>& i, index_t o) const {
    if (!owners_.first.empty()) return owners_.owner(o);
    return state_->model->locale_of(i);
  }
  out_of_bounds_error bad_index(const idx<N>& i) const {
    std::ostringstream s;
    s << "dmap::aggregator::add: index " << i << " is not in the domain " << whole_
      << "; contributions must go to indices of the array's domain";
    return out_of_bounds_error(s.str());
  }
  void clear() {
    id_ = next_id();  // the threads' caches of fast tables are stale: make them look again
    for (auto& b : *buffers_) {
      for (auto& v : b.to) {
        if (b.failure) std::vector<detail::keyed_value<T>>().swap(v);  // perhaps out of memory: let go
        else v.clear();  // the capacity stays for the next round, like the table
      }
      b.lists.clear(b.failure != nullptr);
      b.failure = nullptr;
      b.live = false;
      b.fast = nullptr;
      b.listed = 0;
      for (const index_t o : b.touched) b.seen[static_cast<std::size_t>(o)] = 0;  // the table stays for the next round
      b.touched.clear();
    }
  }
  // Local: the messages to every locale into out_ (each buffer rewritten), or the first
  // failure of this locale.
  void pack() {
    if (failure_) std::rethrow_exception(failure_);
    for (const auto& b : *buffers_)
      if (b.failure) std::rethrow_exception(b.failure);
    const auto& st = detail::state_of(a_->domain());
    if (!st)
      throw argument_error("dmap::aggregator::finish: the array was moved from after the handle was made");
    if (st != state_ || st->generation != generation_)
      throw argument_error("dmap::aggregator::finish: the array's domain changed its index set since the handle "
                           "was made; finish contributions before changing the domain");
    const auto p = static_cast<std::size_t>(num_locales());
    detail::byte_buffers& out = out_;
    out.resize(p);
    own_in_lists_ = false;
    if constexpr (has_identity)
      if (counting_ && pack_table(out)) return;
    if (dense_ || directory_) {
      std::vector<std::vector<detail::keyed_value<T>>> to(p);
      // Contributions not yet routed, keyed by order: one per order seen in dense mode.
      std::vector<detail::keyed_value<T>> all;
      if (dense_) {
        const auto n = static_cast<std::size_t>(std::max<index_t>(whole_.size(), 0));  // GCC -O3 warns on a bare cast
        std::vector<T> folded;
        std::vector<unsigned char> seen;
        for (const auto& b : *buffers_)
          for (const index_t o : b.touched) {
            if (seen.empty()) {
              folded.resize(n);
              seen.assign(n, 0);
            }
            const auto k = static_cast<std::size_t>(o);
            folded[k] = seen[k] ? op_(folded[k], b.table[k]) : b.table[k];
            seen[k] = 1;
          }
        for (std::size_t k = 0; k < seen.size(); ++k)
          if (seen[k]) all.push_back({static_cast<index_t>(k), folded[k]});
      } else {
        std::size_t total = 0;
        for (const auto& b : *buffers_) total += b.to[0].size();
        all.reserve(total);
        for (auto& b : *buffers_) {
          all.insert(all.end(), b.to[0].begin(), b.to[0].end());
          b.to[0].clear();
        }
      }
      if (directory_) {
        std::vector<index_t> orders(all.size());
        for (std::size_t k = 0; k < all.size(); ++k) orders[k] = all[k].key;
        const std::vector<detail::location> where = st->dir->lookup(orders);
        for (std::size_t k = 0; k < all.size(); ++k)
          to[static_cast<std::size_t>(where[k].locale)].push_back({where[k].offset, all[k].value});
      } else {
        for (const auto& e : all)
          to[static_cast<std::size_t>(st->model->locale_of(whole_.index_at(e.key)))].push_back(e);
      }
      for (std::size_t q = 0; q < p; ++q) {
        if (dense_) out[q] = detail::to_bytes(to[q]);
        else detail::combined_bytes<T>({&to[q]}, op_, out[q]);
        std::vector<detail::keyed_value<T>>().swap(to[q]);
      }
    } else {
      // Each other destination's lists are folded or copied straight from the threads'
      // buffers; this locale's own stay in them, and apply() takes them from there (no copy,
      // no fold: a fold saves bytes on the wire only). finish() empties the lists after.
      std::vector<const detail::order_lists<T>*> parts;
      for (const auto& b : *buffers_) parts.push_back(&b.lists);
      const auto me = static_cast<std::size_t>(here());
      for (std::size_t q = 0; q < p; ++q)
        if (q == me) out[q].clear();
        else detail::write_list_message<T>(parts, q, op_, out[q], folded_, seen_);
      own_in_lists_ = true;
    }
  }
  // Local: applies what every locale sent, source locales in order (this locale's own
  // contributions from its threads' lists when pack() left them there).
  void apply(const detail::byte_buffers& incoming) {
    T* data = a_->local_data();
    const auto me = static_cast<std::size_t>(here());
    for (std::size_t source = 0; source < incoming.size(); ++source) {
      const auto& bytes = incoming[source];
      if (source == me && own_in_lists_) {
        apply_own_lists();
        continue;
      }
      if (!directory_ && bytes.size() >= sizeof(index_t)) {
        index_t tag = 0;
        std::memcpy(&tag, bytes.data(), sizeof tag);
        if (tag == detail::list_message_tag) {
          apply_list(detail::read_list_message<T>(bytes));
          continue;
        }
        if constexpr (has_identity)
          if (tag == detail::dense_message_tag) {
            apply_table(bytes);
            continue;
          }
      }
      if constexpr (N == 1)
        if (!directory_ && unit_ && apply_to_one_run(bytes)) continue;
      const auto entries = detail::from_bytes<detail::keyed_value<T>>(bytes);
      for (const auto& e : entries) {
        T* element = directory_ ? data + e.key : detail::owned_element(*a_, whole_, e.key);
        *element = op_(*element, e.value);
      }
    }
  }
  // Local: applies one list message (formula maps). With a 1-D unit-stride index set of which
  // this locale owns one unit-stride range (Block), an element is one subtraction away from
  // its order, unchecked when the message's span lies in the range; otherwise it is found
  // among the pieces, every order checked.
  void apply_list(const detail::list_message<T>& m) {
    if constexpr (N == 1) {
      // Orders all inside this locale's one run (the header's least and greatest say so): the
      // plain loop of apply_to_run, reading the message in place.
      const owned_run r = one_owned_run();
      if (r.count > 0 && m.count > 0 && m.lo >= r.first && m.hi - r.first < r.count) {
        const T one = m.value(0);  // (used when uniform)
        detail::apply_to_run<T>(m.orders, m.count, m.wide, m.uniform ? nullptr : m.values, &one, r.base, r.first, r.step,
                                op_);
        return;
      }
    }
    const auto each = [&]<bool Wide, bool Uniform>(auto&& element_of) {
      detail::list_message<T> in = m;  // (a local copy: its fields stay in registers)
      in.wide = Wide;
      in.uniform = Uniform;
      for (std::size_t j = 0; j < in.count; ++j) {
        T& e = element_of(in.order(j));
        e = op_(e, in.value(j));
      }
    };
    with_owned_elements([&](auto&& element_of) {
      if (m.wide) {
        if (m.uniform) each.template operator()<true, true>(element_of);
        else each.template operator()<true, false>(element_of);
      } else {
        if (m.uniform) each.template operator()<false, true>(element_of);
        else each.template operator()<false, false>(element_of);
      }
    });
  }
  // Local: applies this locale's contributions to itself straight from the threads' lists,
  // thread after thread, each in the order added (as a message of them would hold them).
  void apply_own_lists() {
    const auto me = static_cast<std::size_t>(here());
    if constexpr (N == 1) {
      // Listed by the runs of owners_, which give this locale the run it owns: no order to
      // check (a map whose pieces disagree with its runs takes the checked way below).
      if (const owned_run r = one_owned_run(); r.count > 0 && owners_gives_me(r)) {
        for (const auto& b : *buffers_) {
          const auto& l = b.lists;
          if (l.size(me) == 0) continue;
          const T one = l.same();  // (used while uniform)
          detail::apply_to_run<T>(reinterpret_cast<const std::byte*>(l.words(me).data()), l.size(me), l.wide(),
                                  l.uniform() ? nullptr : reinterpret_cast<const std::byte*>(l.values(me).data()), &one,
                                  r.base, r.first, r.step, op_);
        }
        return;
      }
    }
    with_owned_elements([&](auto&& element_of) {
      for (const auto& b : *buffers_)
        b.lists.for_each(me, [&](index_t o, const T& x) {
          T& e = element_of(o);
          e = op_(e, x);
        });
    });
  }
  // Calls `apply_each(element_of)` with the function from an order to its element in this
  // locale's storage: with a 1-D unit-stride index set of which this locale owns one
  // unit-stride range (Block) one subtraction away, otherwise found among the pieces; an
  // order this locale does not own throws runtime_error.
  template <class Apply>
  void with_owned_elements(Apply&& apply_each) {
    if constexpr (N == 1) {
      if (const owned_run r = one_owned_run(); r.count > 0) {
        apply_each([&](index_t o) -> T& {
          const std::uint64_t k = static_cast<std::uint64_t>(o) - static_cast<std::uint64_t>(r.first);
          if (k >= static_cast<std::uint64_t>(r.count)) [[unlikely]]
            return element_at_order(o);  // throws: not this locale's
          return r.base[static_cast<index_t>(k) * r.step];
        });
        return;
      }
    }
    apply_each([&](index_t o) -> T& { return element_at_order(o); });
  }
  // 1-D, unit strides: the orders [first, first + count) this locale owns as one unit-stride
  // range (Block), order o's element at base[(o - first) * step]; count 0 when it owns its
  // elements otherwise (then they are found among the pieces).
  struct owned_run {
    index_t first = 0, count = 0;
    T* base = nullptr;
    index_t step = 0;
  };
  owned_run one_owned_run() const
    requires(N == 1)
  {
    const auto& owned = a_->domain().local_subdomains();
    if (!unit_ || owned.size() != 1 || owned[0].dim(0).stride() != 1 || owned[0].empty()) return {};
    const auto& block = a_->local_blocks()[0];
    return {owned[0].dim(0).first() - lo_[0], owned[0].size(), &block(idx<1>{owned[0].dim(0).first()}),
            block.layout.strides[0]};
  }
  // 1-D: whether owners_ holds the run `r` (this locale's, as its pieces say) for this locale.
  bool owners_gives_me(const owned_run& r) const {
    const int me = here();
    for (std::size_t k = 0; k < owners_.first.size(); ++k)
      if (owners_.locale[k] == me) {
        const index_t end = k + 1 < owners_.first.size() ? owners_.first[k + 1] : whole_.size();
        return owners_.first[k] == r.first && end - owners_.first[k] == r.count;
      }
    return false;
  }
  // The element of order `o` in this locale's storage; runtime_error when `o` is past the index
  // set or its index is not this locale's (a message that disagrees with the map).
  T& element_at_order(index_t o) {
    if (o < 0 || o >= whole_.size())
      throw runtime_error("dmap aggregation: locale " + std::to_string(here()) + " received order " +
                          std::to_string(o) + ", outside the index set's " + std::to_string(whole_.size()) +
                          " elements");
    return *detail::owned_element(*a_, whole_, o);
  }
  // Local, 1-D unit-stride index sets: applies one keyed message when this locale owns one
  // unit-stride range (Block): the element of a key is then one subtraction away, read
  // straight from the message (no copy, no search of the pieces). False otherwise.
  bool apply_to_one_run(const std::vector<std::byte>& bytes) {
    const owned_run r = one_owned_run();
    if (r.count == 0) return false;
    const std::size_t entries = bytes.size() / sizeof(detail::keyed_value<T>);
    for (std::size_t j = 0; j < entries; ++j) {
      detail::keyed_value<T> e;
      std::memcpy(&e, bytes.data() + j * sizeof e, sizeof e);
      const std::uint64_t k = static_cast<std::uint64_t>(e.key) - static_cast<std::uint64_t>(r.first);
      if (k >= static_cast<std::uint64_t>(r.count)) (void)detail::owned_element(*a_, whole_, e.key);  // throws
      T& element = r.base[static_cast<index_t>(k) * r.step];
      element = op_(element, e.value);
    }
    return true;
  }

  array<T, N>* a_;
  Op op_;
  std::shared_ptr<detail::domain_state<N>> state_;
  rect<N> whole_{};
  std::uint64_t generation_ = 0;
  static constexpr bool has_identity = detail::op_identity<Op, T>::known;
  bool directory_ = false;
  bool dense_ = false;                 // a table with a flag per index (no op identity known)
  bool counting_ = false;              // tables filled with the op identity (see go_live)
  index_t switch_at_ = 0;              // counting: contributions a thread lists before its table goes live
  bool eager_ = false;                 // counting: this add_each's threads go live at once
  std::unique_ptr<detail::dense_routes> routes_;  // counting: made on first use
  detail::order_runs owners_;          // 1-D formula maps owned in one run per locale: the runs
  detail::byte_buffers out_, in_;      // the messages of the last finish(), kept for their capacity
  std::vector<T> folded_;              // lists folded before they leave: the fold's table, kept
  std::vector<unsigned char> seen_;    // and its flags (all zero between folds)
  bool own_in_lists_ = false;          // pack() left this locale's own contributions in the lists
  bool unit_ = false;                  // every dimension of the index set has stride 1
  bool list_rows_ = false;             // add_each appends to lists itself (formula maps, unit strides, lists)
  std::array<index_t, N> lo_{}, extent_{};  // then its first index and extent per dimension
  std::exception_ptr failure_;
  std::unique_ptr<buffers_type> buffers_;
  std::uint64_t id_ = next_id();  // names this handle in the threads' caches of their buffers

  // A number no other handle of this process had.
  static std::uint64_t next_id() {
    static std::atomic<std::uint64_t> count{0};
    return ++count;
  }
  // What a thread remembers of the last handle (of this type) it added to: its id, the
  // thread's buffers and their live table for add()'s hot path (counting mode).
  struct thread_cache {
    std::uint64_t id;
    thread_buffers* buffers;
    T* fast;
  };
  static thread_cache& cache() {
    static thread_local thread_cache c{0, nullptr, nullptr};
    return c;
  }
  // This thread's cache for this handle: a TLS load and a compare, so that the
  // enumerable_thread_specific lookup (a call into the threads library) runs only when a
  // thread switches handles or a round ends (finish() gives the handle a new id). Keyed by
  // id, not address: a new handle may reuse a destroyed one's address.
  [[gnu::always_inline]] thread_cache& my_cache() {
    thread_cache& c = cache();
    if (c.id != id_) [[unlikely]]
      look_up(c);
    return c;
  }
  [[gnu::noinline]] void look_up(thread_cache& c) {
    thread_buffers& b = buffers_->local();
    c = {id_, &b, b.fast};
  }
};

/// A handle buffering `A[i] = op(A[i], x)` from loop bodies (see dmap::aggregator): add
/// contributions with `add(i, x)` on any thread of any locale, then call `finish()` on every
/// locale. Not collective. `op` must be associative; `std::plus` by default. `how` chooses
/// the buffers (a table of the index set per thread, or lists per destination).
template <class T, std::size_t N, class Op = std::plus<>>
[[nodiscard]] aggregator<T, N, Op> accumulate(array<T, N>& a, Op op = {}, aggregation how = aggregation::automatic) {
  return aggregator<T, N, Op>(a, std::move(op), how);
}

/// A handle buffering plain writes `A[i] = x` from loop bodies (an aggregator with op
/// `replace`): `put(i, x)`, then `finish()` on every locale. When several writes reach one
/// element, the one from the highest locale wins; of one locale's writes, the last one one
/// thread made (writes of different threads of a locale to one element: one of them).
template <class T, std::size_t N>
[[nodiscard]] aggregator<T, N, replace> scatter(array<T, N>& a, aggregation how = aggregation::automatic) {
  return aggregator<T, N, replace>(a, replace{}, how);
}

/// Collective: the values of the elements of `indices` (any indices of the domain, any
/// order, repeated or not; each locale its own list, empty or not), in the same order. One
/// message per peer each way: the requests travel to the owners, which answer. With a
/// directory map (Hashed, Unstructured) the owners are first looked up in the directory (one
/// one-sided read per directory home). Throws on every locale when some locale asks for an
/// index outside the domain (out_of_bounds_error naming it), the array was moved from
/// (argument_error) or some locale cannot allocate (its allocation error).
template <class T, std::size_t N>
[[nodiscard]] std::vector<T> gather(const array<T, N>& a, const std::vector<idx<N>>& indices) {
  const detail::collective_scope scope;
  const auto p = static_cast<std::size_t>(num_locales());
  std::vector<T> result;
  std::vector<std::vector<std::size_t>> slots(p);
  std::shared_ptr<detail::domain_state<N>> st;
  detail::byte_buffers requests = agreed([&] {
    st = detail::state_of(a.domain());
    if (!st) throw argument_error("dmap::gather: the array was moved from; it has no elements to read");
    const rect<N>& whole = st->whole;
    std::vector<index_t> orders(indices.size());
    for (std::size_t k = 0; k < indices.size(); ++k) {
      if (!whole.contains(indices[k])) {
        std::ostringstream s;
        s << "dmap::gather: index " << indices[k] << " (entry " << k << " of " << indices.size()
          << ") is not in the domain " << whole;
        throw out_of_bounds_error(s.str());
      }
      orders[k] = whole.order_of(indices[k]);
    }
    result.resize(indices.size());
    std::vector<std::vector<index_t>> keys(p);
    if (st->dir) {
      const std::vector<detail::location> where = st->dir->lookup(orders);
      for (std::size_t k = 0; k < orders.size(); ++k) {
        keys[static_cast<std::size_t>(where[k].locale)].push_back(where[k].offset);
        slots[static_cast<std::size_t>(where[k].locale)].push_back(k);
      }
    } else {
      for (std::size_t k = 0; k < orders.size(); ++k) {
        const auto q = static_cast<std::size_t>(st->model->locale_of(indices[k]));
        keys[q].push_back(orders[k]);
        slots[q].push_back(k);
      }
    }
    detail::byte_buffers out(p);
    for (std::size_t q = 0; q < p; ++q) out[q] = detail::to_bytes(keys[q]);
    return out;
  });
  const detail::byte_buffers asked = detail::exchange(std::move(requests));
  detail::byte_buffers answers = agreed([&] {
    detail::byte_buffers out(p);
    const T* data = a.local_data();
    for (std::size_t q = 0; q < p; ++q) {
      const auto keys = detail::from_bytes<index_t>(asked[q]);
      std::vector<T> values(keys.size());
      for (std::size_t j = 0; j < keys.size(); ++j)
        values[j] = st->dir ? data[keys[j]] : *detail::owned_element(a, st->whole, keys[j]);
      out[q] = detail::to_bytes(values);
    }
    return out;
  });
  const detail::byte_buffers answered = detail::exchange(std::move(answers));
  agreed([&] {
    for (std::size_t q = 0; q < p; ++q) {
      const auto values = detail::from_bytes<T>(answered[q]);
      if (values.size() != slots[q].size())
        throw runtime_error("dmap::gather: locale " + std::to_string(q) + " answered " +
                            std::to_string(values.size()) + " values for " + std::to_string(slots[q].size()) +
                            " requests");
      for (std::size_t j = 0; j < values.size(); ++j) result[slots[q][j]] = values[j];
    }
  });
  return result;
}

/// Collective: the values of the elements of the 1-D `indices` (see the N-D gather).
template <class T>
[[nodiscard]] std::vector<T> gather(const array<T, 1>& a, const std::vector<index_t>& indices) {
  std::vector<idx<1>> as_indices(indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k) as_indices[k] = idx<1>{indices[k]};
  return gather(a, as_indices);
}

}  // namespace dmap
