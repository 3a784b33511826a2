// Records packed per destination locale for dmap::exchange: keys (associative keys, sparse
// indices), each optionally followed by one payload value, in the order given.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"

namespace dmap::detail {

/// Keys and, optionally, one payload value per key, packed per destination locale: the
/// keys, then the payloads, in the order given.
template <class Key, class T = std::byte>
byte_buffers pack_by_locale(std::span<const Key> keys, const T* payload, const std::vector<int>& owners) {
  const auto p = static_cast<std::size_t>(num_locales());
  std::vector<std::size_t> count(p, 0);
  for (int q : owners) ++count[static_cast<std::size_t>(q)];
  const std::size_t record = sizeof(Key) + (payload ? sizeof(T) : 0);
  byte_buffers out(p);
  for (std::size_t q = 0; q < p; ++q) out[q].resize(count[q] * record);
  std::vector<std::size_t> filled(p, 0);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const auto q = static_cast<std::size_t>(owners[k]);
    std::byte* at = out[q].data();
    std::memcpy(at + filled[q] * sizeof(Key), &keys[k], sizeof(Key));
    if (payload) std::memcpy(at + count[q] * sizeof(Key) + filled[q] * sizeof(T), payload + k, sizeof(T));
    ++filled[q];
  }
  return out;
}

/// Keys packed per destination locale (`owners[k]` receives `keys[k]`), in the order given.
template <class Key>
byte_buffers pack_by_locale(std::span<const Key> keys, const std::vector<int>& owners) {
  return pack_by_locale<Key, std::byte>(keys, nullptr, owners);
}

/// The keys (and payloads, when `payload` is given) of one buffer pack_by_locale made.
template <class Key, class T = std::byte>
std::vector<Key> unpack_keys(const std::vector<std::byte>& buffer, std::vector<T>* payload) {
  const std::size_t record = sizeof(Key) + (payload ? sizeof(T) : 0);
  const std::size_t n = buffer.size() / record;
  std::vector<Key> keys(n);
  if (n) std::memcpy(keys.data(), buffer.data(), n * sizeof(Key));
  if (payload) {
    payload->resize(n);
    if (n) std::memcpy(payload->data(), buffer.data() + n * sizeof(Key), n * sizeof(T));
  }
  return keys;
}
/// The keys of one buffer pack_by_locale made without payloads.
template <class Key>
std::vector<Key> unpack_keys(const std::vector<std::byte>& buffer) {
  return unpack_keys<Key, std::byte>(buffer, nullptr);
}

}  // namespace dmap::detail
