// A distributed group-by-sum on dmap's associative domains and arrays: each locale holds some
// (key, value) records; the result holds, for every distinct key, the sum of its values, on the
// locale that owns the key. Word counts are the case value = 1. Also the generated corpus of the
// example, its test and its benchmark: words drawn from a vocabulary with a skewed (Zipf-like)
// distribution, any record computable by any locale.
#pragma once

#include <dmap/dmap.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace groupby {

/// A word: up to 15 letters, NUL-padded (a fixed-size key, hashed by its bytes).
using word = std::array<char, 16>;

/// The hash of dmap's associative domains for words, for std::unordered_map.
struct word_hash {
  std::size_t operator()(const word& w) const { return dmap::key_hash<word>{}(w); }
};

/// The r-th word of the vocabulary: r written in bijective base 12, one syllable per digit
/// (distinct words for distinct r < 12^7).
inline word word_of(std::int64_t r) {
  static const char* const syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "pe", "do", "gu", "ba"};
  std::string text;
  for (std::int64_t n = r + 1; n > 0; n = (n - 1) / 12) text = syllables[(n - 1) % 12] + text;
  word w{};
  std::memcpy(w.data(), text.data(), std::min<std::size_t>(text.size(), w.size() - 1));
  return w;
}

/// The vocabulary rank of word j of the corpus: a Zipf-like draw (rank r with probability about
/// 1/(r + 1)) from a hash of j, out of `vocabulary` words.
inline std::int64_t rank_at(std::int64_t j, std::int64_t vocabulary) {
  std::uint64_t z = static_cast<std::uint64_t>(j) * 0x9e3779b97f4a7c15ULL + 12345;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  const double u = static_cast<double>(z >> 11) * 0x1.0p-53;  // in [0, 1)
  return std::min<std::int64_t>(vocabulary - 1, static_cast<std::int64_t>(std::pow(static_cast<double>(vocabulary), u)) - 1);
}

/// This locale's part of a corpus of `words` words: words [words * here / P, words * (here + 1) / P).
inline std::vector<word> corpus_part(std::int64_t words, std::int64_t vocabulary) {
  const std::int64_t p = dmap::num_locales(), me = dmap::here();
  std::vector<word> part;
  for (std::int64_t j = words * me / p; j < words * (me + 1) / p; ++j) part.push_back(word_of(rank_at(j, vocabulary)));
  return part;
}

/// Collective: groups this locale's records (keys[k], values[k]) with every other locale's by
/// key and sums each group's values into `sums` (over `keys_domain`, which gains the keys it
/// lacks): each locale sums its own records per key first, then sends each distinct key and its
/// sum to the key's owner (two rounds of one message per peer: the keys, then the sums).
template <class Key, class V, class Hash, class Mapper>
void group_sum(std::span<const Key> keys, std::span<const V> values, dmap::associative_domain<Key, Hash, Mapper>& keys_domain,
               dmap::associative_array<V, Key, Hash, Mapper>& sums) {
  if (keys.size() != values.size())
    throw dmap::argument_error("groupby::group_sum: " + std::to_string(keys.size()) + " keys but " +
                               std::to_string(values.size()) + " values; one value per key");
  std::unordered_map<Key, V, Hash> local;
  for (std::size_t k = 0; k < keys.size(); ++k) local[keys[k]] += values[k];
  std::vector<Key> distinct;
  std::vector<V> local_sums;
  distinct.reserve(local.size()), local_sums.reserve(local.size());
  for (const auto& [key, sum] : local) distinct.push_back(key), local_sums.push_back(sum);
  keys_domain.add(distinct);
  sums.accumulate(distinct, local_sums);
}

}  // namespace groupby
