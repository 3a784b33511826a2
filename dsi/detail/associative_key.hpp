// The machinery behind associative_key.hpp (not part of the API): mix64, hash_bytes,
// char_array, key_text.
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

namespace dmap::detail {

/// splitmix64's finaliser: every input bit reaches every output bit.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// The mix of the bytes of `key`, eight at a time.
template <class K>
std::uint64_t hash_bytes(const K& key) noexcept {
  unsigned char bytes[sizeof(K)];
  std::memcpy(bytes, &key, sizeof(K));
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ sizeof(K);
  for (std::size_t at = 0; at < sizeof(K); at += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes + at, std::min<std::size_t>(8, sizeof(K) - at));
    h = mix64(h ^ word);
  }
  return h;
}

/// A fixed-size array of characters (such as std::array of char), printed as text.
template <class K>
concept char_array = requires(const K& k) {
  typename std::tuple_size<K>::type;
  requires std::is_same_v<std::remove_cvref_t<decltype(*std::begin(k))>, char>;
};

/// A key as text for error messages: what `operator<<` writes when the key has one, a
/// character array as a quoted string (up to its first NUL), else its bytes in hexadecimal.
template <class K>
std::string key_text(const K& key) {
  std::ostringstream s;
  if constexpr (requires(std::ostream& os, const K& k) { os << k; }) {
    if constexpr (std::is_same_v<K, char> || std::is_same_v<K, signed char> || std::is_same_v<K, unsigned char>)
      s << +key;
    else
      s << key;
  } else if constexpr (char_array<K>) {
    s << '"';
    for (char c : key) {
      if (c == '\0') break;
      s << c;
    }
    s << '"';
  } else {
    unsigned char bytes[sizeof(K)];
    std::memcpy(bytes, &key, sizeof(K));
    s << "bytes 0x";
    for (unsigned char b : bytes) s << std::hex << std::setw(2) << std::setfill('0') << +b;
  }
  return s.str();
}

}  // namespace dmap::detail
