// The vocabulary of associative keys: what a key is, how it is hashed and how a mapper
// places it on a locale (Hashed-style: any function of the key).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>

#include "detail/associative_key.hpp"

namespace dmap {

/// A key of an associative domain: fixed-size, trivially copyable (keys travel between
/// locales as bytes), default-constructible and equality comparable.
template <class K>
concept associative_key =
    std::is_trivially_copyable_v<K> && std::default_initializable<K> && std::equality_comparable<K>;

/// A hash of keys of type K: `h(key)` returns a 64-bit value (it must give the same value
/// on every locale for equal keys).
template <class H, class K>
concept key_hasher = std::copy_constructible<H> && std::is_invocable_v<const H&, const K&> &&
                     std::convertible_to<std::invoke_result_t<const H&, const K&>, std::uint64_t>;

/// The default hash of associative keys: a 64-bit mix of the key's bytes (splitmix64 over
/// 8-byte words). Defined for keys whose bytes say everything about their value (integers,
/// `idx<N>`, arrays of characters, structs without padding); other keys need a hash of
/// their own.
template <class K>
struct key_hash {
  /// The hash of `key`.
  std::uint64_t operator()(const K& key) const noexcept
    requires std::has_unique_object_representations_v<K>
  {
    return detail::hash_bytes(key);
  }
  /// All default hashes of one key type are equal.
  friend bool operator==(const key_hash&, const key_hash&) = default;
};

/// A mapper of keys to locales: called as `m(key, locales)` or `m(key)`, it returns an
/// integer, the owning locale in [0, locales). It must give the same answer on every locale.
template <class M, class K>
concept key_mapper = std::copy_constructible<M> &&
    ((std::is_invocable_v<const M&, const K&, int> && std::is_integral_v<std::invoke_result_t<const M&, const K&, int>>) ||
     (std::is_invocable_v<const M&, const K&> && std::is_integral_v<std::invoke_result_t<const M&, const K&>>));

/// The default placement of keys (Hashed-style): the key's hash, mixed once more, modulo the
/// number of locales.
template <class Hash>
struct hash_placement {
  Hash hash;  ///< the hash of the keys
  /// The locale, in [0, locales), that owns `key`.
  template <class K>
  int operator()(const K& key, int locales) const {
    const auto h = static_cast<std::uint64_t>(hash(key));
    return static_cast<int>(detail::mix64(h ^ 0x5851f42d4c957f2dull) % static_cast<std::uint64_t>(locales));
  }
};

}  // namespace dmap
