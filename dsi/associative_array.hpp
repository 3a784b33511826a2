// associative_array: one value per key of an associative domain, kept as keys come and
// go; remote keys are read and written one-sidedly (A[key]) or in collective batches.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"
#include "../runtime/detail/messages.hpp"
#include "../runtime/detail/window.hpp"
#include "associative_domain.hpp"
#include "detail/associative_array.hpp"
#include "detail/misuse.hpp"
#include "detail/same_on_all_locales.hpp"

namespace dmap {

/// What `A[key]` gives on an associative array: a reference to the value of a key that may
/// live on another locale. Reads come from this locale's storage when it owns the key, else
/// from the owner (one message); writes go to the owner (one message).
template <class T>
class associative_ref {
 public:
  /// The value.
  operator T() const {
    if (local_) return *local_;
    T value;
    window_->get(owner_, slot_, &value);
    return value;
  }
  /// Stores `value`.
  associative_ref& operator=(const T& value) {
    if (local_) *local_ = value;
    else window_->put(owner_, slot_, &value);
    return *this;
  }
  /// Copies another value.
  associative_ref& operator=(const associative_ref& other) { return *this = static_cast<T>(other); }
  /// Read-modify-write (a read and a write, two messages when remote; not atomic).
  associative_ref& operator+=(const T& v) { return *this = static_cast<T>(*this) + v; }
  /// A reference to the value at `slot` of locale `owner`: `local` when it is here, else
  /// through `window`.
  associative_ref(T* local, const detail::rma_window* window, int owner, std::int64_t slot) noexcept
      : local_(local), window_(window), owner_(owner), slot_(slot) {}

 private:
  T* local_;
  const detail::rma_window* window_;
  int owner_;
  std::int64_t slot_;
};

template <transferable T, associative_key Key, key_hasher<Key> Hash, class Mapper>
  requires key_mapper<Mapper, Key>
class associative_array;

/// One value of type T per key of an associative domain (Chapel's associative array). New
/// keys get the implicit value (given at construction); removing keys, adding others or the
/// domain's table growing keep every other key's value. `A.local(key)` reaches a key this
/// locale owns; `A[key]` reads and writes any key from any locale, one-sidedly (not
/// collective); `get`, `set` and `accumulate` move many values at once (collective, one
/// message per peer each way). A value type like dmap::array: creating, copying, assigning
/// and destroying are collective, assignment copies values (between arrays over different
/// domains that hold the same keys too: by key, one message per peer) and never rebinds;
/// `swap` rebinds.
template <transferable T, associative_key Key, key_hasher<Key> Hash = key_hash<Key>, class Mapper = hash_placement<Hash>>
  requires key_mapper<Mapper, Key>
class associative_array {
 public:
  /// The value type.
  using value_type = T;
  /// The key type.
  using key_type = Key;
  /// The domain type.
  using domain_type = associative_domain<Key, Hash, Mapper>;
  /// Loops over the array are the ones of iterators/associative_loops.hpp.
  using own_loops = void;

  /// Collective: an array over `d`; every key's value is `implicit` until written, and so
  /// is the value of every key added later (the implicit value).
  explicit associative_array(const domain_type& d, const T& implicit = T{})
      : dom_(d), st_(agreed([&] { return std::make_unique<storage>(detail::associative_access::shared(d), implicit); })) {
    const detail::collective_scope scope;
    st_->expose();
  }
  /// Collective: a copy (values and implicit value) over the same domain.
  associative_array(const associative_array& other)
      : dom_(other.dom_), st_(agreed([&] {
          const storage& o = *other.checked("dmap::associative_array (copy)").st_;
          auto st = std::make_unique<storage>(o.state(), o.initial());
          st->values() = o.values();
          return st;
        })) {
    const detail::collective_scope scope;
    st_->expose();
  }
  /// Takes over `other`'s values (no communication); `other` may then only be assigned to
  /// or destroyed.
  associative_array(associative_array&&) noexcept = default;
  /// Collective: copies the values of `other` (the implicit value stays this array's). Over
  /// the same domain, locally after one agreement; over another domain holding the same keys
  /// (any hash, any mapper), each value travels to its key's owner here, one message per
  /// peer. Domains holding different keys are a shape_error on every locale (as dense arrays
  /// of different shapes are), and then nothing changes; a moved-from operand on any locale
  /// is an argument_error on every locale.
  associative_array& operator=(const associative_array& other) {
    if (this != &other) assign_by_key(other);
    return *this;
  }
  /// Collective: copies the values of an array over a domain of another hash or mapper that
  /// holds the same keys, by key (see the copy assignment).
  template <class H2, class M2>
    requires(!std::is_same_v<associative_array<T, Key, H2, M2>, associative_array>)
  associative_array& operator=(const associative_array<T, Key, H2, M2>& other) {
    assign_by_key(other);
    return *this;
  }
  /// Assignment from a dense or sparse array does not compile: it says which rule the call
  /// breaks.
  template <class Other>
    requires(!detail::is_associative_array_of<std::remove_cvref_t<Other>, T, Key> &&
             requires { typename std::remove_cvref_t<Other>::value_type; })
  associative_array& operator=(const Other&) {
    static_assert(detail::misuse<Other>,
                  "dmap::associative_array::operator=: assignment copies values between arrays of one kind (dense to "
                  "dense, sparse to sparse, associative to associative of the same key and value types)");
    return *this;
  }
  /// Collective: takes over `other`'s domain and values when this array is empty (moved
  /// from), else copies the values like the copy assignment (the array keeps its domain).
  associative_array& operator=(associative_array&& other) {
    if (this == &other) return *this;
    if (!st_) {
      other.checked("dmap::associative_array::operator= (right-hand side)");
      dom_ = std::move(other.dom_);
      st_ = std::move(other.st_);
      return *this;
    }
    return *this = static_cast<const associative_array&>(other);
  }
  /// Exchanges the domains and values of two arrays (no communication): the explicit way to
  /// rebind an array to another domain.
  void swap(associative_array& other) noexcept {
    std::swap(dom_, other.dom_);
    std::swap(st_, other.st_);
  }
  /// See swap().
  friend void swap(associative_array& a, associative_array& b) noexcept { a.swap(b); }
  /// Collective (frees the RMA window of its values).
  ~associative_array() = default;

  /// The domain.
  const domain_type& domain() const { return dom_; }
  /// The implicit value: what every key added to the domain starts with.
  const T& implicit_value() const { return checked("dmap::associative_array::implicit_value").st_->initial(); }
  /// Collective: changes the implicit value (values of keys present keep theirs). Every
  /// locale must pass the same value: argument_error on every locale otherwise (values with
  /// padding bytes, which cannot be compared, take locale 0's).
  void set_implicit_value(const T& value) {
    const detail::collective_scope scope;
    agreed([&] { checked("dmap::associative_array::set_implicit_value"); });
    st_->set_initial(detail::same_value_on_all_locales("dmap::associative_array::set_implicit_value", value));
  }
  /// The implicit value (the name before implicit_value).
  [[deprecated("dmap::associative_array::initial_value() is now implicit_value()")]] const T& initial_value() const {
    return implicit_value();
  }

  /// The value of `key`, which this locale must own: not_local_error when another locale
  /// owns it, out_of_bounds_error when it is not in the domain. Not collective.
  T& local(const Key& key) { return st_->values()[local_slot(key)]; }
  /// The value of `key`, which this locale must own (see local(const Key&)).
  const T& local(const Key& key) const { return st_->values()[local_slot(key)]; }

  /// A reference to the value of any key, wherever it lives (Chapel's dsiAccess). Not
  /// collective: a key on another locale is looked up in its owner's table one-sidedly
  /// (one or two reads), then read or written (one message each). It sees what the owner
  /// wrote before the last synchronisation. Throws out_of_bounds_error naming the key when
  /// it is not in the domain (Chapel halts), argument_error when the mapper's answer is not
  /// a locale.
  associative_ref<T> operator[](const Key& key) {
    const auto [owner, slot] = find("dmap::associative_array::operator[]", key);
    if (owner == here()) return {&st_->values()[static_cast<std::size_t>(slot)], nullptr, owner, slot};
    return {nullptr, &st_->window(), owner, slot};
  }
  /// The value of any key (see operator[]).
  T operator[](const Key& key) const {
    const auto [owner, slot] = find("dmap::associative_array::operator[]", key);
    if (owner == here()) return st_->values()[static_cast<std::size_t>(slot)];
    T value;
    st_->window().get(owner, slot, &value);
    return value;
  }

  /// Collective: the values of `keys` (this locale's, any keys of the domain), in the order
  /// given. One message per peer each way (the keys there, the values back). A key not in
  /// the domain is an out_of_bounds_error naming it, on every locale.
  std::vector<T> get(std::span<const Key> keys) const {
    const char* who = "dmap::associative_array::get";
    const std::vector<int> owners = agreed([&] {
      const auto& st = state();
      std::vector<int> o(keys.size());
      for (std::size_t k = 0; k < keys.size(); ++k) o[k] = st.locale_of(keys[k], who);
      return o;
    });
    const auto& s = state();
    const detail::byte_buffers incoming = detail::exchange(detail::pack_by_locale(keys, owners));
    detail::byte_buffers answers = agreed([&] {
      detail::byte_buffers out(incoming.size());
      for (std::size_t q = 0; q < incoming.size(); ++q) {
        const auto asked = detail::unpack_keys<Key>(incoming[q]);
        std::vector<T> values(asked.size());
        for (std::size_t k = 0; k < asked.size(); ++k) {
          s.check_routed(asked[k], static_cast<int>(q), who);
          values[k] = st_->values()[owned_slot(who, asked[k])];
        }
        out[q] = detail::to_bytes(values);
      }
      return out;
    });
    // The values come back in one message per peer whose size both sides know (the number
    // of keys sent there), so no second size exchange.
    std::vector<std::size_t> expected(incoming.size(), 0);
    for (int q : owners) expected[static_cast<std::size_t>(q)] += sizeof(T);
    const detail::byte_buffers replies = detail::exchange_known_sizes(std::move(answers), expected);
    std::vector<T> out(keys.size());
    std::vector<std::size_t> next(replies.size(), 0);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const auto q = static_cast<std::size_t>(owners[k]);
      std::memcpy(&out[k], replies[q].data() + next[q]++ * sizeof(T), sizeof(T));
    }
    return out;
  }
  /// Collective: sets the value of `keys[k]` to `values[k]` for each k (this locale's keys
  /// and values), in one message per peer. When several locales set one key, the value from
  /// the highest locale wins (within a locale, the last one given). A key not in the domain
  /// (out_of_bounds_error) or a size mismatch (argument_error) fails on every locale, and
  /// then no value changes anywhere.
  void set(std::span<const Key> keys, std::span<const T> values) {
    update("dmap::associative_array::set", keys, values, [](T&, const T& v) { return v; });
  }
  /// Collective: combines each of `values` into the value of its key, `value = op(value,
  /// v)` (a sum by default), in one message per peer: the word-count idiom. Contributions
  /// reach a key in locale order, then in the order given. Errors as for set(); an exception
  /// from `op` on any locale is thrown on every locale (values already combined on that
  /// locale stay).
  template <class Op = std::plus<>>
  void accumulate(std::span<const Key> keys, std::span<const T> values, Op op = {}) {
    update("dmap::associative_array::accumulate", keys, values, [&](T& value, const T& v) { return static_cast<T>(op(value, v)); });
  }

  /// Collective: accumulate() for keys the domain may lack, in one exchange (a group-by):
  /// each locale first combines its own values of one key with `op`, in the order given, then
  /// sends each distinct key and its combined value to the key's owner (one message per peer),
  /// which adds the keys the domain lacks (with the implicit value, here and in the domain's
  /// other arrays, as the domain's add() does) and combines the values in locale order.
  /// `op` must be associative. A size mismatch (argument_error) or a hash, mapper or `op`
  /// that throws while this locale combines its own values fails on every locale, and nothing
  /// changes; an `op` that throws at the owners fails every locale after the keys were added
  /// (values already combined stay).
  ///   sums.add_and_accumulate(words, ones);    // word counts, whatever keys D holds
  template <class Op = std::plus<>>
  void add_and_accumulate(std::span<const Key> keys, std::span<const T> values, Op op = {}) {
    const detail::collective_scope scope;
    const char* who = "dmap::associative_array::add_and_accumulate";
    std::vector<Key> distinct;
    std::vector<T> combined;
    std::vector<int> owners;
    agreed([&] {
      const auto& s = state();
      if (keys.size() != values.size())
        throw argument_error(std::string(who) + ": " + std::to_string(keys.size()) + " keys but " +
                             std::to_string(values.size()) + " values; give one value per key");
      detail::key_table<Key, Hash> seen(s.table.hash(), detail::key_table<Key, Hash>::capacity_for(keys.size()));
      std::vector<std::size_t> position(seen.capacity());  // of each key of `seen` in `distinct`
      bool inserted = false;
      for (std::size_t k = 0; k < keys.size(); ++k) {
        const auto slot = static_cast<std::size_t>(seen.insert(keys[k], inserted));
        if (inserted) {
          position[slot] = distinct.size();
          distinct.push_back(keys[k]);
          combined.push_back(values[k]);
        } else {
          T& c = combined[position[slot]];
          c = static_cast<T>(op(c, values[k]));
        }
      }
      owners.resize(distinct.size());
      for (std::size_t k = 0; k < distinct.size(); ++k) owners[k] = s.locale_of(distinct[k], who);
    });
    const detail::byte_buffers incoming =
        detail::exchange(detail::pack_by_locale(std::span<const Key>(distinct), combined.data(), owners));
    std::vector<std::vector<Key>> arrived(incoming.size());
    std::vector<std::vector<T>> given(incoming.size());
    for (std::size_t q = 0; q < incoming.size(); ++q) arrived[q] = detail::unpack_keys<Key>(incoming[q], &given[q]);
    detail::associative_access::insert_arrived(dom_, arrived, who);  // checks where each key arrived
    agreed([&] {
      const auto& s = state();
      auto& v = st_->values();
      for (std::size_t q = 0; q < arrived.size(); ++q)
        for (std::size_t k = 0; k < arrived[q].size(); ++k) {
          const std::int64_t slot = s.table.find(arrived[q][k]);
          if (slot < 0)  // added a moment ago: only a hash that changes its answers loses it
            throw argument_error(std::string(who) + ": key " + detail::key_text(arrived[q][k]) +
                                 " is not found right after it was added; the key hash must give one key one value");
          auto& value = v[static_cast<std::size_t>(slot)];
          value = static_cast<T>(op(value, given[q][k]));
        }
    });
  }

  /// Writes the values Chapel's way (separated by spaces) in the order the domain prints its
  /// keys (locale after locale, slot order within one), on the calling locale: it reads the
  /// other locales' tables and values one-sidedly (16,384 slots per read). Not collective.
  friend std::ostream& operator<<(std::ostream& os, const associative_array& a) {
    const auto& s = a.state();
    bool first = true;
    int owner = -1;
    std::vector<std::int64_t> slots;
    std::vector<T> got;
    const auto flush = [&] {
      if (slots.empty()) return;
      got.resize(slots.size());
      if (owner == here()) {
        for (std::size_t k = 0; k < slots.size(); ++k) got[k] = a.st_->values()[static_cast<std::size_t>(slots[k])];
      } else {
        std::vector<detail::element_run> runs;
        for (std::int64_t slot : slots) {
          if (!runs.empty() && runs.back().first + runs.back().count == slot) ++runs.back().count;
          else runs.push_back({slot, 1});
        }
        a.st_->window().get(owner, runs, got.data());
      }
      for (const T& v : got) {
        os << (first ? "" : " ") << v;
        first = false;
      }
      slots.clear();
    };
    s.for_each_key([&](int q, const Key&, std::int64_t slot) {
      if (q != owner || slots.size() == 16384) {
        flush();
        owner = q;
      }
      slots.push_back(slot);
    });
    flush();
    return os;
  }

 private:
  template <transferable T2, associative_key K2, key_hasher<K2> H2, class M2>
    requires key_mapper<M2, K2>
  friend class associative_array;
  using storage = detail::associative_values<T, Key, Hash, Mapper>;
  using state_type = detail::associative_state<Key, Hash, Mapper>;
  friend struct detail::associative_access;

  const associative_array& checked(const char* who) const {
    if (!st_) throw argument_error(std::string(who) + ": the array was moved from; it may only be assigned to or destroyed");
    return *this;
  }
  const state_type& live() const { return *checked("dmap::associative_array").st_->state(); }
  const state_type& state() const { return live(); }
  std::vector<T>& slot_values() const { return checked("dmap::associative_array").st_->values(); }

  // (owner, slot) of `key`; out_of_bounds_error when absent.
  std::pair<int, std::int64_t> find(const char* who, const Key& key) const {
    const auto& s = state();
    const int owner = s.locale_of(key, who);
    const std::int64_t slot = s.find_on(owner, key);
    if (slot < 0)
      throw out_of_bounds_error(std::string(who) + ": key " + detail::key_text(key) +
                                " is not in the domain (its owner, locale " + std::to_string(owner) +
                                ", does not hold it); add it to the domain first");
    return {owner, slot};
  }
  // The slot of `key` here, which this locale owns.
  std::size_t owned_slot(const char* who, const Key& key) const {
    const std::int64_t slot = state().table.find(key);
    if (slot < 0)
      throw out_of_bounds_error(std::string(who) + ": key " + detail::key_text(key) + " is not in the domain");
    return static_cast<std::size_t>(slot);
  }
  std::size_t local_slot(const Key& key) const {
    const auto& s = state();
    const std::int64_t slot = s.table.find(key);
    if (slot >= 0) return static_cast<std::size_t>(slot);
    const int owner = s.locale_of(key, "dmap::associative_array::local");
    if (owner != here())
      throw not_local_error("dmap::associative_array::local: key " + detail::key_text(key) + " is owned by locale " +
                            std::to_string(owner) + ", not by this locale (" + std::to_string(here()) +
                            "); use A[key] for keys elsewhere");
    throw out_of_bounds_error("dmap::associative_array::local: key " + detail::key_text(key) + " is not in the domain");
  }
  // Collective: operator=. Over the same domain the values are copied locally; over another
  // domain every value travels to its key's owner here, and the key sets must be equal
  // (shape_error otherwise). The first agreement checks both operands on every locale.
  template <class Other>
  void assign_by_key(const Other& other) {
    const detail::collective_scope scope;
    const char* who = "dmap::associative_array::operator=";
    std::vector<Key> keys;
    std::vector<T> values;
    bool same = false;
    // Whether both sides share a domain (a local copy, no message) is agreed with the checks:
    // a locale that copies locally must not leave the others in the exchange.
    detail::call_arguments args{who, 0, [&same] {
                                  return same ? std::string("both sides over one associative domain")
                                              : std::string("sides over two associative domains");
                                }};
    const std::vector<int> owners = agreed(args, [&] {
      checked("dmap::associative_array::operator= (left-hand side)");
      other.checked("dmap::associative_array::operator= (right-hand side)");
      if constexpr (std::is_same_v<Other, associative_array>) same = dom_ == other.dom_;
      args.fingerprint = same ? 1 : 2;
      if (same) return std::vector<int>{};
      const auto& a = state();
      const auto& b = other.state();
      if (a.global_size != b.global_size)
        throw shape_error(std::string(who) + ": the left-hand domain holds " + std::to_string(a.global_size) +
                          " keys, the right-hand one " + std::to_string(b.global_size) +
                          "; arrays over different domains copy only when both hold the same keys");
      const auto& table = b.table;
      for (std::size_t slot = 0; slot < table.capacity(); ++slot)
        if (table.states()[slot] == 1) {
          keys.push_back(table.keys()[slot]);
          values.push_back(other.st_->values()[slot]);
        }
      std::vector<int> o(keys.size());
      for (std::size_t k = 0; k < keys.size(); ++k) o[k] = a.locale_of(keys[k], who);
      return o;
    });
    if (same) {  // copied in place: the window exposes this storage
      std::copy(other.st_->values().begin(), other.st_->values().end(), st_->values().begin());
      return;
    }
    const auto [given, slots] = received(
        detail::exchange(detail::pack_by_locale(std::span<const Key>(keys), values.data(), owners)), who,
        [&](const Key& k) {
          const std::int64_t slot = state().table.find(k);
          if (slot < 0)
            throw shape_error(std::string(who) + ": key " + detail::key_text(k) + " of the right-hand array is not "
                              "in the left-hand domain; arrays over different domains copy only when both hold the "
                              "same keys");
          return static_cast<std::size_t>(slot);
        });
    auto& v = st_->values();
    for (std::size_t q = 0; q < slots.size(); ++q)
      for (std::size_t k = 0; k < slots[q].size(); ++k) v[slots[q][k]] = given[q][k];
  }
  // Collective: the (key, value) pairs of `incoming` (one buffer per source locale) as values
  // and slots, per source; every key is checked at its owner (routed here by the mapper,
  // `slot_of` finds it) inside one agreement, so a bad key on any locale fails every locale
  // before anything is written.
  template <class SlotOf>
  std::pair<std::vector<std::vector<T>>, std::vector<std::vector<std::size_t>>> received(const detail::byte_buffers& incoming,
                                                                                        const char* who,
                                                                                        SlotOf&& slot_of) const {
    const auto& s = state();
    std::vector<std::vector<T>> given(incoming.size());
    std::vector<std::vector<std::size_t>> slots(incoming.size());
    agreed([&] {
      for (std::size_t q = 0; q < incoming.size(); ++q)
        for (const Key& k : detail::unpack_keys<Key>(incoming[q], &given[q])) {
          s.check_routed(k, static_cast<int>(q), who);
          slots[q].push_back(slot_of(k));
        }
    });
    return {std::move(given), std::move(slots)};
  }
  // Collective: sends (key, value) pairs to the owners, which check every key first and then
  // apply `combine` in arrival order.
  template <class Combine>
  void update(const char* who, std::span<const Key> keys, std::span<const T> values, Combine&& combine) {
    const detail::collective_scope scope;
    const std::vector<int> owners = agreed([&] {
      const auto& s = state();
      if (keys.size() != values.size())
        throw argument_error(std::string(who) + ": " + std::to_string(keys.size()) + " keys but " +
                             std::to_string(values.size()) + " values; give one value per key");
      std::vector<int> o(keys.size());
      for (std::size_t k = 0; k < keys.size(); ++k) o[k] = s.locale_of(keys[k], who);
      return o;
    });
    // Not a structured binding: clang < 16 cannot capture one in the lambda below.
    const auto pairs = received(detail::exchange(detail::pack_by_locale(keys, values.data(), owners)), who,
                                [&](const Key& k) { return owned_slot(who, k); });
    const auto& given = pairs.first;
    const auto& slots = pairs.second;
    agreed([&] {
      auto& v = st_->values();
      for (std::size_t q = 0; q < slots.size(); ++q)
        for (std::size_t k = 0; k < slots[q].size(); ++k) v[slots[q][k]] = combine(v[slots[q][k]], given[q][k]);
    });
  }

  domain_type dom_;
  std::unique_ptr<storage> st_;
};

/// An array over `d` with implicit value `implicit`.
template <class T, class Key, class Hash, class Mapper>
associative_array(const associative_domain<Key, Hash, Mapper>&, const T&) -> associative_array<T, Key, Hash, Mapper>;

}  // namespace dmap
