// What all handles of one associative domain share: this locale's key table, the mapper,
// the arrays declared over the domain, and the RMA windows through which other locales
// look keys up one-sidedly. Also the routing of keys to their owners (one message per peer).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/window.hpp"
#include "../range.hpp"
#include "key_table.hpp"
#include "pack_by_locale.hpp"

namespace dmap {

namespace detail {

/// Implemented by the storage of every array over an associative domain, so the domain can
/// move the arrays' values when its table grows: first every array allocates (may fail),
/// then, once every locale succeeded, each moves its values.
class associative_hook {
 public:
  virtual ~associative_hook() = default;
  /// Allocates value storage for a table of `capacity` slots, beside the current one; may
  /// throw (std::bad_alloc).
  virtual void prepare(std::size_t capacity) = 0;
  /// Frees what prepare() allocated (the change was abandoned).
  virtual void discard() noexcept = 0;
  /// Moves to the prepared storage: the value of old slot s goes to slot moved[s] (when >= 0).
  virtual void commit(const std::vector<std::int64_t>& moved) noexcept = 0;
  /// Sets the values of `slots` (keys just added) to the array's initial value.
  virtual void reset(const std::vector<std::int64_t>& slots) noexcept = 0;
  /// Collective: exposes the values to one-sided access again (after the storage moved).
  virtual void expose() = 0;
};

/// The state every handle of one associative domain shares.
template <class Key, class Hash, class Mapper>
struct associative_state {
  key_table<Key, Hash> table;              // this locale's keys
  Mapper mapper;                           // key -> locale
  index_t global_size = 0;                 // keys on all locales, as of the last change
  std::vector<std::uint64_t> capacities;   // every locale's table capacity, as exposed
  rma_window key_window;                   // this locale's keys, to other locales
  rma_window state_window;                 // and their slot states
  std::vector<associative_hook*> arrays;   // arrays declared over the domain

  associative_state(Hash hash, Mapper m) : table(std::move(hash)), mapper(std::move(m)) {}

  /// The owner of `key`; argument_error naming the key when the mapper's answer is not a
  /// locale. `who` starts the message.
  int locale_of(const Key& key, const char* who) const {
    const int p = num_locales();
    const auto answer = [&] {
      if constexpr (std::is_invocable_v<const Mapper&, const Key&, int>) return mapper(key, p);
      else return mapper(key);
    }();
    if (std::cmp_less(answer, 0) || std::cmp_greater_equal(answer, p))
      throw argument_error(std::string(who) + ": the mapper sends key " + key_text(key) + " to locale " +
                           std::to_string(answer) + "; a mapper must return a locale in [0, " + std::to_string(p) +
                           ")");
    return static_cast<int>(answer);
  }
  /// Throws argument_error unless the mapper names this locale as the owner of `key`, which
  /// locale `from` sent here because its mapper did: a mapper answering differently on
  /// different locales. The callers fold the verdict into an agreement they make anyway.
  void check_routed(const Key& key, int from, const char* who) const {
    const int owner = locale_of(key, who);
    if (owner != here())
      throw argument_error(std::string(who) + ": locale " + std::to_string(from) + " sent key " + key_text(key) +
                           " to locale " + std::to_string(here()) + " as its owner, but the mapper here sends it to "
                           "locale " + std::to_string(owner) + "; a mapper must give the same answer on every locale");
  }
  /// The slot of `key` on locale `owner` (its owner), or -1 when absent. On another locale
  /// the table is probed one-sidedly, eight slots per read: a read of their states, and of
  /// their keys when one of them may be the key. Not collective.
  std::int64_t find_on(int owner, const Key& key) const {
    if (owner == here()) return table.find(key);
    const std::size_t capacity = capacities[static_cast<std::size_t>(owner)];
    constexpr std::size_t group = 8;  // at most half full: the key is nearly always in the first group
    const std::size_t n = std::min(group, capacity), mask = capacity - 1;
    std::uint8_t states[group];
    Key keys[group];
    std::size_t s = key_table<Key, Hash>::home(static_cast<std::uint64_t>(table.hash()(key)), capacity);
    for (std::size_t seen = 0; seen < capacity; seen += n, s = (s + n) & mask) {
      std::vector<element_run> runs{{static_cast<std::int64_t>(s), static_cast<std::int64_t>(std::min(n, capacity - s))}};
      if (static_cast<std::size_t>(runs[0].count) < n) runs.push_back({0, static_cast<std::int64_t>(n) - runs[0].count});
      state_window.get(owner, runs, states);
      std::size_t end = 0;
      bool some_full = false;
      for (; end < n && states[end] != key_table<Key, Hash>::empty; ++end)
        some_full = some_full || states[end] == key_table<Key, Hash>::full;
      if (some_full) {
        key_window.get(owner, runs, keys);
        for (std::size_t j = 0; j < end; ++j)
          if (states[j] == key_table<Key, Hash>::full && keys[j] == key) return static_cast<std::int64_t>((s + j) & mask);
      }
      if (end < n) return -1;
    }
    return -1;
  }

  /// Collective: exposes the table to one-sided lookups (again) and learns every locale's
  /// capacity.
  void expose() {
    key_window = rma_window();
    state_window = rma_window();
    const std::size_t capacity = table.capacity();
    key_window = rma_window(table.key_data(), capacity * sizeof(Key), sizeof(Key));
    state_window = rma_window(table.state_data(), capacity, 1);
    capacities = all_gather(static_cast<std::uint64_t>(capacity));
  }
  /// Collective: after a change, counts the keys and, when some locale's table moved,
  /// exposes the table and every array again. `may_move` is false for changes that never
  /// move a table (remove, clear: no locale asks the others).
  void settle(bool moved, bool may_move = true) {
    global_size = all_reduce_sum(static_cast<index_t>(table.size()));
    if (!may_move || !any_of_locales(moved)) return;
    expose();
    for (auto* a : arrays) a->expose();
  }
  /// Calls `f(owner, key, slot)` for every key of every locale's table, locale after locale
  /// and in slot order: this locale's table directly, the others' one-sidedly, 16,384 slots
  /// per read of their states and of their keys. Not collective.
  template <class F>
  void for_each_key(F&& f) const {
    constexpr std::size_t batch = 16384;
    std::vector<std::uint8_t> states;
    std::vector<Key> keys;
    for (int q = 0; q < num_locales(); ++q) {
      if (q == here()) {
        for (std::size_t s = 0; s < table.capacity(); ++s)
          if (table.states()[s] == key_table<Key, Hash>::full) f(q, table.keys()[s], static_cast<std::int64_t>(s));
        continue;
      }
      const std::size_t capacity = capacities[static_cast<std::size_t>(q)];
      for (std::size_t first = 0; first < capacity; first += batch) {
        const std::size_t n = std::min(batch, capacity - first);
        const std::vector<element_run> runs{{static_cast<std::int64_t>(first), static_cast<std::int64_t>(n)}};
        states.resize(n);
        keys.resize(n);
        state_window.get(q, runs, states.data());
        if (std::none_of(states.begin(), states.end(), [](std::uint8_t s) { return s == key_table<Key, Hash>::full; }))
          continue;
        key_window.get(q, runs, keys.data());
        for (std::size_t s = 0; s < n; ++s)
          if (states[s] == key_table<Key, Hash>::full) f(q, keys[s], static_cast<std::int64_t>(first + s));
      }
    }
  }
};

/// Reaches the private parts of associative domains and arrays that dmap's loops use.
struct associative_access {
  /// The shared state of an associative domain or array.
  template <class X>
  static const auto& state(const X& x) {
    return x.live();
  }
  /// The shared state of an associative domain, as a shared pointer (arrays keep it).
  template <class D>
  static const auto& shared(const D& d) {
    return d.shared();
  }
  /// The values of an associative array, slot by slot.
  template <class A>
  static auto& values(A& a) {
    return a.slot_values();
  }
  /// Collective: inserts into domain `d` the keys that arrived at this locale (from locale q in
  /// arrived[q]) and that it lacks (associative_domain::insert_arrived).
  template <class D, class Key>
  static void insert_arrived(D& d, const std::vector<std::vector<Key>>& arrived, const char* who) {
    d.insert_arrived(arrived, who);
  }
};

}  // namespace detail
}  // namespace dmap
