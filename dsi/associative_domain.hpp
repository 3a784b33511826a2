// associative_domain: a distributed set of keys (Chapel's associative domain), each key
// owned by the locale a Hashed-style mapper names, with arrays over it that keep their
// values as the set changes.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
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
#include "detail/associative_state.hpp"
#include "detail/key_table.hpp"
#include "detail/misuse.hpp"
#include "index.hpp"

namespace dmap {

/// The keys this locale owns, in slot order (a forward range over a table; valid until the
/// domain changes).
template <class Key>
class local_key_view {
 public:
  /// Walks the slots, stopping at those holding a key.
  class iterator {
   public:
    using value_type = Key;              ///< a key
    using difference_type = std::ptrdiff_t;  ///< distance between iterators
    iterator() = default;
    /// The key at this slot.
    const Key& operator*() const { return keys_[at_]; }
    /// Steps to the next slot holding a key.
    iterator& operator++() {
      ++at_;
      skip();
      return *this;
    }
    /// Steps to the next slot holding a key (postfix).
    iterator operator++(int) {
      iterator before = *this;
      ++*this;
      return before;
    }
    /// Same slot.
    friend bool operator==(const iterator& a, const iterator& b) { return a.at_ == b.at_; }

   private:
    friend class local_key_view;
    iterator(const Key* keys, const std::uint8_t* states, std::size_t at, std::size_t end)
        : keys_(keys), states_(states), at_(at), end_(end) {
      skip();
    }
    void skip() {
      while (at_ < end_ && states_[at_] != 1) ++at_;
    }
    const Key* keys_ = nullptr;
    const std::uint8_t* states_ = nullptr;
    std::size_t at_ = 0, end_ = 0;
  };
  /// The keys of a table of `capacity` slots: `keys[s]` holds one when `states[s]` is 1.
  local_key_view(const Key* keys, const std::uint8_t* states, std::size_t capacity)
      : keys_(keys), states_(states), capacity_(capacity) {}
  /// The first local key.
  iterator begin() const { return iterator(keys_, states_, 0, capacity_); }
  /// Past the last local key.
  iterator end() const { return iterator(keys_, states_, capacity_, capacity_); }

 private:
  const Key* keys_;
  const std::uint8_t* states_;
  std::size_t capacity_;
};

/// A distributed set of keys: integers, `idx<N>` tuples or any fixed-size trivially
/// copyable key (concept dmap::associative_key) with a hash (`Hash`, a 64-bit mix of the
/// key's bytes by default). `Mapper` names each key's owner (by default the key's hash
/// modulo the number of locales). Each locale keeps its keys in an open-addressing table;
/// arrays over the domain (dmap::associative_array) keep one value per key and keep them
/// as keys come and go. Copies are handles to the same domain. Creating one, adding,
/// removing, clearing and the batch contains_each are collective; every locale passes its
/// own keys (any keys, not only those it owns). Not collective: size, local_size,
/// contains (any key, looked up one-sidedly at its owner), local_contains, locale_of,
/// local_keys and printing. Owners check the mapper: a key that arrives at a locale the
/// mapper does not name there is an argument_error on every locale.
template <associative_key Key, key_hasher<Key> Hash = key_hash<Key>, class Mapper = hash_placement<Hash>>
  requires key_mapper<Mapper, Key>
class associative_domain {
 public:
  /// The key type.
  using key_type = Key;
  /// The hash of keys.
  using hash_type = Hash;
  /// The mapper of keys to locales.
  using mapper_type = Mapper;
  /// Loops over the domain are the ones of iterators/associative_loops.hpp.
  using own_loops = void;

  /// Collective: an empty domain with the default hash and mapper.
  associative_domain()
    requires std::default_initializable<Hash> && std::default_initializable<Mapper>
      : associative_domain(Hash{}, Mapper{}) {}
  /// Collective: an empty domain hashing keys with `hash` and placing them by that hash.
  explicit associative_domain(Hash hash)
    requires std::same_as<Mapper, hash_placement<Hash>>
      : associative_domain(hash, Mapper{hash}) {}
  /// Collective: an empty domain hashing keys with `hash` and placing them with `mapper`
  /// (which must return a locale in [0, num_locales()) for every key it is given).
  associative_domain(Hash hash, Mapper mapper)
      : state_(agreed([&] { return std::make_shared<state_type>(std::move(hash), std::move(mapper)); })) {
    state_->expose();
  }

  /// The number of keys on all locales (as of the last collective change).
  index_t size() const { return live().global_size; }
  /// The number of keys this locale owns.
  index_t local_size() const { return static_cast<index_t>(live().table.size()); }
  /// The locale owning `key` (the mapper's answer; argument_error when it is not a locale).
  /// Not collective.
  int locale_of(const Key& key) const { return live().locale_of(key, "dmap::associative_domain::locale_of"); }
  /// True when `key` is in the domain, wherever it lives (Chapel's dsiMember). Not
  /// collective: a key another locale owns is looked up in its owner's table one-sidedly
  /// (one or two reads), and the answer is the set as of the last collective change. Throws
  /// argument_error when the mapper's answer is not a locale.
  bool contains(const Key& key) const {
    const auto& st = live();
    return st.find_on(st.locale_of(key, "dmap::associative_domain::contains"), key) >= 0;
  }
  /// The batch form is contains_each (collective); this overload only says so.
  template <class R>
    requires std::convertible_to<const R&, std::span<const Key>> && (!std::convertible_to<const R&, const Key&>)
  std::vector<bool> contains(const R&) const {
    static_assert(detail::misuse<R>,
                  "dmap::associative_domain::contains(keys) was renamed contains_each(keys): the batch is collective, "
                  "while contains(key) asks about one key from one locale alone");
    return {};
  }
  /// The batch form of a braced list is contains_each (collective); this overload only says so.
  template <class K = Key>
  std::vector<bool> contains(std::initializer_list<std::type_identity_t<K>>) const {
    static_assert(detail::misuse<K>,
                  "dmap::associative_domain::contains({keys...}) was renamed contains_each({keys...}): the batch is "
                  "collective, while contains(key) asks about one key from one locale alone");
    return {};
  }
  /// True when this locale owns `key` and it is in the domain. No messages, not collective.
  bool local_contains(const Key& key) const { return live().table.find(key) >= 0; }
  /// The keys this locale owns, in slot order (valid until the domain changes).
  local_key_view<Key> local_keys() const {
    const auto& t = live().table;
    return local_key_view<Key>(t.keys().data(), t.states().data(), t.capacity());
  }
  /// The hash of keys.
  const Hash& hash() const { return live().table.hash(); }
  /// The mapper of keys to locales.
  const Mapper& mapper() const { return live().mapper; }

  /// Collective: adds `keys` (this locale's; any locale may pass any keys, duplicates and
  /// keys already present are ignored). Each key travels to its owner: one message per peer
  /// that owns some of them (sizeof(Key) bytes per key passed). Arrays over the domain give
  /// new keys their implicit value and keep every other value. When an owner's table must
  /// grow and some locale cannot allocate (std::bad_alloc), every locale throws and the
  /// domain and its arrays stay as they were; so do they when the mapper throws or returns
  /// a locale outside [0, num_locales()) (argument_error naming the key) on any locale.
  void add(std::span<const Key> keys) {
    const detail::collective_scope scope;
    const char* who = "dmap::associative_domain::add";
    insert_arrived(unpacked(detail::exchange(detail::pack_by_locale(keys, owners_checked(keys, who)))), who);
  }
  /// Collective: adds the keys of `keys` (see add(std::span)).
  void add(std::initializer_list<Key> keys) { add(std::span<const Key>(keys.begin(), keys.size())); }

  /// Collective: removes `keys` (this locale's; absent keys and duplicates are ignored), in
  /// one message per peer that owns some of them. Other keys keep their values in every
  /// array; a key added again later starts from the array's implicit value. A mapper or hash
  /// that throws on any locale throws on every locale, and nothing is removed.
  void remove(std::span<const Key> keys) {
    const detail::collective_scope scope;
    const char* who = "dmap::associative_domain::remove";
    const auto arrived = unpacked(detail::exchange(detail::pack_by_locale(keys, owners_checked(keys, who))));
    auto& st = live_mut();
    std::vector<std::int64_t> slots;  // found before the agreement: the hash may throw
    agreed([&] {
      check_arrivals(st, arrived, who);
      for (const auto& from : arrived)
        for (const Key& k : from) slots.push_back(st.table.find(k));
    });
    for (const std::int64_t s : slots) st.table.erase_at(s);
    st.settle(false, false);
  }
  /// Collective: removes the keys of `keys` (see remove(std::span)).
  void remove(std::initializer_list<Key> keys) { remove(std::span<const Key>(keys.begin(), keys.size())); }

  /// Collective: removes every key (no messages; the tables keep their capacity).
  void clear() {
    const detail::collective_scope scope;
    auto& st = *agreed([&] { return &live_mut(); });
    st.table.clear();
    st.settle(false, false);
  }

  /// Collective: for each of `keys` (this locale's, any keys), whether it is in the domain
  /// (contains(key) for each), in the order given. One message per peer each way (the keys
  /// there, one byte per key back).
  std::vector<bool> contains_each(std::span<const Key> keys) const {
    const char* who = "dmap::associative_domain::contains_each";
    const std::vector<int> owners = owners_checked(keys, who);
    const auto& st = live();
    const detail::byte_buffers incoming = detail::exchange(detail::pack_by_locale(keys, owners));
    const auto arrived = unpacked(incoming);
    detail::byte_buffers answers = agreed([&] {
      check_arrivals(st, arrived, who);
      detail::byte_buffers out(incoming.size());
      for (std::size_t q = 0; q < incoming.size(); ++q) {
        const auto& asked = arrived[q];
        out[q].resize(asked.size());
        for (std::size_t k = 0; k < asked.size(); ++k) out[q][k] = static_cast<std::byte>(st.table.find(asked[k]) >= 0);
      }
      return out;
    });
    std::vector<std::size_t> expected(incoming.size(), 0);  // one byte per key sent there
    for (int q : owners) ++expected[static_cast<std::size_t>(q)];
    const detail::byte_buffers replies = detail::exchange_known_sizes(std::move(answers), expected);
    std::vector<bool> out(keys.size());
    std::vector<std::size_t> next(replies.size(), 0);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const auto q = static_cast<std::size_t>(owners[k]);
      out[k] = replies[q][next[q]++] != std::byte{0};
    }
    return out;
  }
  /// Collective: contains_each of a braced list.
  std::vector<bool> contains_each(std::initializer_list<Key> keys) const {
    return contains_each(std::span<const Key>(keys.begin(), keys.size()));
  }

  /// Writes the keys Chapel's way (`{4, 8, 15}`), locale after locale and in slot order
  /// within a locale, on the calling locale: it reads the other locales' tables one-sidedly
  /// (16,384 slots per read of their states and of their keys). Not collective.
  friend std::ostream& operator<<(std::ostream& os, const associative_domain& d) {
    os << '{';
    bool first = true;
    d.live().for_each_key([&](int, const Key& k, std::int64_t) {
      os << (first ? "" : ", ") << detail::key_text(k);
      first = false;
    });
    return os << '}';
  }

  /// Both handles name the same domain.
  friend bool operator==(const associative_domain& a, const associative_domain& b) noexcept {
    return a.state_ == b.state_;
  }

 private:
  using state_type = detail::associative_state<Key, Hash, Mapper>;
  using table_type = detail::key_table<Key, Hash>;
  friend struct detail::associative_access;

  // Collective: the owner of each of `keys` (the mapper runs here), and the check that this
  // handle was not moved from; a failure on any locale is thrown on every locale.
  std::vector<int> owners_checked(std::span<const Key> keys, const char* who) const {
    return agreed([&] {
      const auto& st = live();
      std::vector<int> owners(keys.size());
      for (std::size_t k = 0; k < keys.size(); ++k) owners[k] = st.locale_of(keys[k], who);
      return owners;
    });
  }
  // The keys of each buffer of a key exchange (from locale q in incoming[q]).
  static std::vector<std::vector<Key>> unpacked(const detail::byte_buffers& incoming) {
    std::vector<std::vector<Key>> arrived(incoming.size());
    for (std::size_t q = 0; q < incoming.size(); ++q) arrived[q] = detail::unpack_keys<Key>(incoming[q]);
    return arrived;
  }
  // Checks that the mapper names this locale for every key that arrived (from locale q in
  // arrived[q]): argument_error otherwise (the callers agree on it).
  static void check_arrivals(const state_type& st, const std::vector<std::vector<Key>>& arrived, const char* who) {
    for (std::size_t q = 0; q < arrived.size(); ++q)
      for (const Key& k : arrived[q]) st.check_routed(k, static_cast<int>(q), who);
  }
  // The distinct keys of `arrived` that `table` lacks, in arrival order.
  static std::vector<Key> new_keys(const table_type& table, const std::vector<std::vector<Key>>& arrived) {
    std::size_t total = 0;
    for (const auto& a : arrived) total += a.size();
    table_type seen(table.hash(), table_type::capacity_for(total));
    std::vector<Key> fresh;
    bool inserted = false;
    for (const auto& keys : arrived)
      for (const Key& k : keys)
        if (table.find(k) < 0 && (seen.insert(k, inserted), inserted)) fresh.push_back(k);
    return fresh;
  }
  // Collective: inserts the keys that arrived here (from locale q in arrived[q]) and are not
  // in the table yet, growing it when needed; every array over the domain gives them its
  // implicit value. add() and associative_array::add_and_accumulate() end here.
  void insert_arrived(const std::vector<std::vector<Key>>& arrived, const char* who) {
    auto& st = live_mut();
    std::vector<Key> fresh;
    std::vector<std::uint64_t> hashes;  // of fresh: every call of the hash happens before the agreement
    std::optional<table_type> grown;
    std::vector<std::int64_t> moved, slots;
    try {
      agreed([&] {
        check_arrivals(st, arrived, who);
        fresh = new_keys(st.table, arrived);
        hashes.reserve(fresh.size());
        for (const Key& k : fresh) hashes.push_back(st.table.hash_of(k));
        slots.reserve(fresh.size());
        if (st.table.has_room(fresh.size())) return;
        grown.emplace(st.table.hash(), table_type::capacity_for(st.table.size() + fresh.size()));
        moved.resize(st.table.capacity());
        st.table.copy_into(*grown, moved);
        for (auto* a : st.arrays) a->prepare(grown->capacity());
      });
    } catch (...) {
      for (auto* a : st.arrays) a->discard();
      throw;
    }
    if (grown) {
      st.table = std::move(*grown);
      for (auto* a : st.arrays) a->commit(moved);
    }
    bool inserted = false;
    for (std::size_t k = 0; k < fresh.size(); ++k) slots.push_back(st.table.insert_hashed(fresh[k], hashes[k], inserted));
    for (auto* a : st.arrays) a->reset(slots);
    st.settle(grown.has_value());
  }
  const state_type& live() const {
    if (!state_)
      throw argument_error("dmap::associative_domain: the domain was moved from; it may only be assigned to or destroyed");
    return *state_;
  }
  state_type& live_mut() { return const_cast<state_type&>(live()); }
  const std::shared_ptr<state_type>& shared() const {
    (void)live();
    return state_;
  }

  std::shared_ptr<state_type> state_;
};

}  // namespace dmap
