// The machinery behind associative_array.hpp (not part of the API): associative_values,
// is_associative_array_of.
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

#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../../runtime/detail/messages.hpp"
#include "../../runtime/detail/window.hpp"
#include "../associative_domain.hpp"
#include "misuse.hpp"
#include "same_on_all_locales.hpp"

namespace dmap {

template <transferable T, associative_key Key, key_hasher<Key> Hash, class Mapper>
  requires key_mapper<Mapper, Key>
class associative_array;

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
  void set_initial(const T& value) noexcept { initial_ = value; }
  std::vector<T>& values() noexcept { return values_; }
  const std::vector<T>& values() const noexcept { return values_; }
  const rma_window& window() const noexcept { return window_; }

 private:
  std::shared_ptr<state_type> state_;
  T initial_;
  std::vector<T> values_;
  std::vector<T> next_;
  rma_window window_;
};

/// True for associative arrays of value type T and key type Key (any hash and mapper).
template <class X, class T, class Key>
inline constexpr bool is_associative_array_of = false;
template <class T, class Key, class H, class M>
inline constexpr bool is_associative_array_of<associative_array<T, Key, H, M>, T, Key> = true;

}  // namespace detail
}  // namespace dmap
