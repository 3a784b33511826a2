// The corpus of the group-by example, its test and its benchmark: words drawn from a vocabulary
// with a skewed (Zipf-like) distribution, any word computable by any locale. The group-by itself
// is one call, dmap::associative_array::add_and_accumulate (main.cpp).
#pragma once

#include <dmap/dmap.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
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

}  // namespace groupby
