// associative_array: one value per key of an associative domain, kept as keys come and
// go; remote keys are read and written one-sidedly (A[key]) or in collective batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/messages.hpp"
#include "../runtime/detail/window.hpp"
#include "associative_domain.hpp"

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

namespace detail {

/// One locale's values of an associative array, slot by slot, registered with its domain.
template <class T, class Key, class Hash, class Mapper>
class associative_values final : public associative_hook {
 public:
  using state_type = associative_state<Key, Hash, Mapper>;
  associative_values(std::shared_ptr<state_type> state, const T& initial)
      : state_(std::move(state)), initial_(initial), values_(state_->table.capacity(), initial) {
    state_->arrays.push_back(this);
  }
  associative_values(const associative_values&) = delete;
  associative_values& operator=(const associative_values&) = delete;
  ~associative_values() override { std::erase(state_->arrays, static_cast<associative_hook*>(this)); }

  void prepare(std::size_t capacity) override { next_.assign(capacity, initial_); }
  void discard() noexcept override { std::vector<T>().swap(next_); }
  void commit(const std::vector<std::int64_t>& moved) noexcept override {
    for (std::size_t s = 0; s < moved.size(); ++s)
      if (moved[s] >= 0) next_[static_cast<std::size_t>(moved[s])] = values_[s];
    values_.swap(next_);
    discard();
  }
  void reset(const std::vector<std::int64_t>& slots) noexcept override {
    for (std::int64_t s : slots) values_[static_cast<std::size_t>(s)] = initial_;
  }
  void expose() override {
    window_ = rma_window();
    window_ = rma_window(values_.data(), values_.size() * sizeof(T), sizeof(T));
  }

  const std::shared_ptr<state_type>& state() const noexcept { return state_; }
  const T& initial() const noexcept { return initial_; }
  std::vector<T>& values() noexcept { return values_; }
  const rma_window& window() const noexcept { return window_; }

 private:
  std::shared_ptr<state_type> state_;
  T initial_;
  std::vector<T> values_;
  std::vector<T> next_;
  rma_window window_;
};

}  // namespace detail

/// One value of type T per key of an associative domain (Chapel's associative array). New
/// keys get the initial value given at construction; removing keys, adding others or the
/// domain's table growing keep every other key's value. `A.local(key)` reaches a key this
/// locale owns; `A[key]` reads and writes any key from any locale, one-sidedly (not
/// collective); `get`, `set` and `accumulate` move many values at once (collective, one
/// message per peer each way). Creating, copying and destroying an array are collective.
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

  /// Collective: an array over `d`; every key's value is `initial` until written, and so
  /// is the value of every key added later.
  explicit associative_array(const domain_type& d, const T& initial = T{})
      : dom_(d), st_(agreed([&] { return std::make_unique<storage>(detail::associative_access::shared(d), initial); })) {
    st_->expose();
  }
  /// Collective: a copy over the same domain.
  associative_array(const associative_array& other)
      : associative_array(other.checked("dmap::associative_array (copy)").dom_, other.st_->initial()) {
    st_->values() = other.st_->values();
  }
  /// Takes over `other`'s values (no communication); `other` may then only be assigned to
  /// or destroyed.
  associative_array(associative_array&&) noexcept = default;
  /// Collective: copies the values of `other`, which must be an array over the same domain
  /// (shape_error otherwise). No messages.
  associative_array& operator=(const associative_array& other) {
    if (this == &other) return *this;
    checked("dmap::associative_array::operator=");
    other.checked("dmap::associative_array::operator=");
    if (!(dom_ == other.dom_))
      throw shape_error("dmap::associative_array::operator=: the left-hand array is over a domain of " +
                        std::to_string(dom_.size()) + " keys, the right-hand one over another domain (of " +
                        std::to_string(other.dom_.size()) + " keys); values copy only between arrays of one domain");
    st_->values() = other.st_->values();
    return *this;
  }
  /// Collective: takes over `other`'s values when this array is empty (moved from), else
  /// copies them like the copy assignment.
  associative_array& operator=(associative_array&& other) {
    if (this == &other) return *this;
    if (!st_) {
      dom_ = std::move(other.dom_);
      st_ = std::move(other.st_);
      return *this;
    }
    return *this = static_cast<const associative_array&>(other);
  }
  /// Collective (frees the RMA window of its values).
  ~associative_array() = default;

  /// The domain.
  const domain_type& domain() const { return dom_; }
  /// The value new keys get.
  const T& initial_value() const { return checked("dmap::associative_array::initial_value").st_->initial(); }

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
    const auto& s = state();
    const std::vector<int> owners = s.owners_of(keys, "dmap::associative_array::get");
    const byte_buffers incoming = exchange(detail::pack_by_locale(keys, owners));
    byte_buffers answers = agreed([&] {
      byte_buffers out(incoming.size());
      for (std::size_t q = 0; q < incoming.size(); ++q) {
        const auto asked = detail::unpack_keys<Key>(incoming[q]);
        std::vector<T> values(asked.size());
        for (std::size_t k = 0; k < asked.size(); ++k) values[k] = st_->values()[owned_slot("dmap::associative_array::get", asked[k])];
        out[q] = to_bytes(values);
      }
      return out;
    });
    // The values come back in one message per peer whose size both sides know (the number
    // of keys sent there), so no second size exchange.
    const auto p = static_cast<std::size_t>(num_locales());
    std::vector<std::size_t> sent(p, 0);
    for (int q : owners) ++sent[static_cast<std::size_t>(q)];
    byte_buffers replies(p);
    {
      detail::message_batch batch;
      for (std::size_t q = 0; q < p; ++q) {
        if (q == static_cast<std::size_t>(here())) {
          replies[q] = std::move(answers[q]);
          continue;
        }
        replies[q].resize(sent[q] * sizeof(T));
        batch.receive(static_cast<int>(q), replies[q].data(), replies[q].size());
        batch.send(static_cast<int>(q), answers[q].data(), answers[q].size());
      }
      batch.wait();
    }
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

 private:
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
  // Collective: sends (key, value) pairs to the owners, which check every key first and then
  // apply `combine` in arrival order.
  template <class Combine>
  void update(const char* who, std::span<const Key> keys, std::span<const T> values, Combine&& combine) {
    const auto& s = state();
    const std::vector<int> owners = agreed([&] {
      if (keys.size() != values.size())
        throw argument_error(std::string(who) + ": " + std::to_string(keys.size()) + " keys but " +
                             std::to_string(values.size()) + " values; give one value per key");
      std::vector<int> o(keys.size());
      for (std::size_t k = 0; k < keys.size(); ++k) o[k] = s.locale_of(keys[k], who);
      return o;
    });
    const byte_buffers incoming = exchange(detail::pack_by_locale(keys, values.data(), owners));
    std::vector<std::vector<T>> given(incoming.size());
    std::vector<std::vector<std::size_t>> slots(incoming.size());
    agreed([&] {
      for (std::size_t q = 0; q < incoming.size(); ++q)
        for (const Key& k : detail::unpack_keys<Key>(incoming[q], &given[q])) slots[q].push_back(owned_slot(who, k));
    });
    agreed([&] {
      auto& v = st_->values();
      for (std::size_t q = 0; q < incoming.size(); ++q)
        for (std::size_t k = 0; k < slots[q].size(); ++k) v[slots[q][k]] = combine(v[slots[q][k]], given[q][k]);
    });
  }

  domain_type dom_;
  std::unique_ptr<storage> st_;
};

/// An array over `d` with initial value `initial`.
template <class T, class Key, class Hash, class Mapper>
associative_array(const associative_domain<Key, Hash, Mapper>&, const T&) -> associative_array<T, Key, Hash, Mapper>;

}  // namespace dmap
