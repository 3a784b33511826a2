// key_table: one locale's part of an associative domain, an open-addressing hash set of
// fixed-size keys in flat arrays (keys, and one state byte per slot). A key keeps its slot
// until the table is rebuilt, so arrays over the domain keep their values in slot order.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iterator>
#include <tuple>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../associative_key.hpp"

namespace dmap {

namespace detail {

/// One locale's keys: an open-addressing (linear probing) hash set with a power-of-two
/// number of slots, at most half of them used (live or removed), so probes stay short.
/// A key's home slot is the top bits of its hash times the golden ratio, which differ from
/// the bits that chose its locale.
template <class Key, class Hash>
class key_table {
 public:
  /// What a slot holds.
  enum slot_state : std::uint8_t { empty = 0, full = 1, removed = 2 };
  /// The fewest slots a table has.
  static constexpr std::size_t min_capacity = 16;

  /// An empty table of `capacity` slots (a power of two, at least min_capacity).
  explicit key_table(Hash hash = {}, std::size_t capacity = min_capacity)
      : hash_(std::move(hash)), keys_(capacity), states_(capacity, empty) {}

  /// The number of slots.
  std::size_t capacity() const noexcept { return keys_.size(); }
  /// The number of keys held.
  std::size_t size() const noexcept { return live_; }
  /// The hash function.
  const Hash& hash() const noexcept { return hash_; }
  /// The keys, slot by slot (only slots whose state is `full` hold one).
  const std::vector<Key>& keys() const noexcept { return keys_; }
  /// The state of every slot.
  const std::vector<std::uint8_t>& states() const noexcept { return states_; }
  /// The keys' storage, to expose to other locales.
  Key* key_data() noexcept { return keys_.data(); }
  /// The slot states' storage, to expose to other locales.
  std::uint8_t* state_data() noexcept { return states_.data(); }

  /// The home slot of a key of hash `h` in a table of `capacity` slots.
  static std::size_t home(std::uint64_t h, std::size_t capacity) noexcept {
    const int bits = std::countr_zero(capacity);
    return bits == 0 ? 0 : static_cast<std::size_t>((h * 0x9e3779b97f4a7c15ull) >> (64 - bits));
  }
  /// The hash of `key` (the user's Hash: it may throw).
  std::uint64_t hash_of(const Key& key) const { return static_cast<std::uint64_t>(hash_(key)); }
  /// The slot holding `key`, or -1.
  std::int64_t find(const Key& key) const { return find_hashed(key, hash_of(key)); }
  /// The slot holding `key`, whose hash is `h`, or -1 (no call of the hash).
  std::int64_t find_hashed(const Key& key, std::uint64_t h) const noexcept {
    const std::size_t mask = capacity() - 1;
    for (std::size_t s = home(h, capacity()), n = 0; n < capacity(); s = (s + 1) & mask, ++n) {
      if (states_[s] == empty) return -1;
      if (states_[s] == full && keys_[s] == key) return static_cast<std::int64_t>(s);
    }
    return -1;
  }
  /// True when `extra` more keys fit without breaking the half-full rule.
  bool has_room(std::size_t extra) const noexcept { return 2 * (used_ + extra) <= capacity(); }
  /// The capacity a table rebuilt for `count` keys gets.
  static std::size_t capacity_for(std::size_t count) noexcept {
    return std::max(min_capacity, std::bit_ceil(2 * std::max<std::size_t>(count, 1)));
  }
  /// Inserts `key` (there must be room) and returns its slot; `inserted` is false when it
  /// was already present.
  std::int64_t insert(const Key& key, bool& inserted) { return insert_hashed(key, hash_of(key), inserted); }
  /// insert(key, inserted) for a key whose hash is `h` (no call of the hash). The probe ends
  /// at an empty slot, which the half-full rule guarantees, whatever `h` is.
  std::int64_t insert_hashed(const Key& key, std::uint64_t h, bool& inserted) noexcept {
    const std::size_t mask = capacity() - 1;
    std::size_t reuse = capacity();
    std::size_t s = home(h, capacity());
    for (;; s = (s + 1) & mask) {
      if (states_[s] == empty) break;
      if (states_[s] == removed) {
        if (reuse == capacity()) reuse = s;
      } else if (keys_[s] == key) {
        inserted = false;
        return static_cast<std::int64_t>(s);
      }
    }
    if (reuse != capacity()) s = reuse;
    else ++used_;
    keys_[s] = key;
    states_[s] = full;
    ++live_;
    inserted = true;
    return static_cast<std::int64_t>(s);
  }
  /// Removes `key`; false when it was absent. Other keys keep their slots.
  bool erase(const Key& key) {
    const std::int64_t s = find(key);
    return s >= 0 && erase_at(s);
  }
  /// Removes the key in `slot` (from find); false when the slot holds none. Other keys keep
  /// their slots.
  bool erase_at(std::int64_t slot) noexcept {
    const auto s = static_cast<std::size_t>(slot);
    if (slot < 0 || s >= capacity() || states_[s] != full) return false;
    states_[s] = removed;
    --live_;
    return true;
  }
  /// Removes every key (the capacity stays).
  void clear() noexcept {
    std::fill(states_.begin(), states_.end(), std::uint8_t{empty});
    live_ = used_ = 0;
  }
  /// Inserts every key into `bigger` (an empty table with room for them) and writes, for
  /// each slot of this table, the key's slot there (-1 for slots without a key) into
  /// `moved`, which has one entry per slot. This table is unchanged, so a hash that throws
  /// leaves it intact.
  void copy_into(key_table& bigger, std::vector<std::int64_t>& moved) const {
    bool inserted = false;
    for (std::size_t s = 0; s < capacity(); ++s)
      moved[s] = states_[s] == full ? bigger.insert(keys_[s], inserted) : -1;
  }

 private:
  Hash hash_;
  std::vector<Key> keys_;
  std::vector<std::uint8_t> states_;
  std::size_t live_ = 0;  // slots holding a key
  std::size_t used_ = 0;  // slots holding a key or a removed mark
};

}  // namespace detail
}  // namespace dmap
