// Counts the words of a generated text in parallel with an associative domain: each locale
// takes its part of the text, counts it locally, adds its distinct words to the domain and
// accumulates its counts into an associative array (one message per peer each), then the
// program prints the ten most frequent words and checks the totals. The text is the same
// whatever the number of locales (word j depends only on j), and so is the output.
// Run it as one locale (./word_count) or under mpirun -n P; exits non-zero on a mismatch.
#include <dmap/dmap.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using word = std::array<char, 16>;  // a fixed-size key: up to 15 letters, NUL-padded

constexpr std::int64_t vocabulary = 5000;  // distinct words the text draws from
constexpr std::int64_t text_words = 400000;

/// The r-th word of the vocabulary: r written in bijective base 12 with one syllable per digit.
word word_of(std::int64_t r) {
  static const char* const syllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "pe", "do", "gu", "ba"};
  std::string text;
  for (std::int64_t n = r + 1; n > 0; n = (n - 1) / 12) text = syllables[(n - 1) % 12] + text;
  word w{};
  std::memcpy(w.data(), text.data(), std::min<std::size_t>(text.size(), w.size() - 1));
  return w;
}
std::size_t length(const word& w) { return std::strlen(w.data()); }

/// Word j of the text: a Zipf-like draw (rank r has probability about 1/(r+1)) from a hash
/// of j, so any locale can generate any part of the text.
std::int64_t rank_at(std::int64_t j) {
  std::uint64_t z = static_cast<std::uint64_t>(j) * 0x9e3779b97f4a7c15ull + 12345;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const double u = static_cast<double>(z >> 11) * 0x1.0p-53;  // in [0, 1)
  return std::min<std::int64_t>(vocabulary - 1, static_cast<std::int64_t>(std::pow(static_cast<double>(vocabulary), u)) - 1);
}

struct word_hash {
  std::size_t operator()(const word& w) const { return dmap::key_hash<word>{}(w); }
};

/// One entry of a top-ten list.
struct entry {
  word w{};
  std::int64_t count = -1;
};
/// More frequent first; equal counts in alphabetical order.
bool before(const entry& a, const entry& b) {
  return a.count != b.count ? a.count > b.count : std::strncmp(a.w.data(), b.w.data(), a.w.size()) < 0;
}
struct top_ten {
  std::array<entry, 10> entries;
};

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const int p = dmap::num_locales(), me = dmap::here();

  // This locale's part of the text, counted locally.
  const std::int64_t first = text_words * me / p, last = text_words * (me + 1) / p;
  std::unordered_map<word, std::int64_t, word_hash> local_counts;
  std::int64_t letters = 0;
  for (std::int64_t j = first; j < last; ++j) {
    const word w = word_of(rank_at(j));
    ++local_counts[w];
    letters += static_cast<std::int64_t>(length(w));
  }
  std::vector<word> words;
  std::vector<std::int64_t> counts;
  for (const auto& [w, c] : local_counts) words.push_back(w), counts.push_back(c);

  // The distributed count: every word goes to the locale its hash names.
  dmap::associative_domain<word> D;
  dmap::associative_array<std::int64_t, word> count(D);
  D.add(words);                     // collective: one message per peer
  count.accumulate(words, counts);  // collective: adds the local counts at the owners

  // Totals: the number of words and of letters, both checked against the text.
  const std::int64_t total = dmap::reduce(count, std::int64_t{0});
  const std::int64_t total_letters = dmap::reduce(dmap::zip(D, count), std::int64_t{0}, std::plus<>{},
                                                  [](const word& w, const std::int64_t& c) {
                                                    return static_cast<std::int64_t>(length(w)) * c;
                                                  });
  const std::int64_t letters_generated = dmap::all_reduce_sum(letters);

  // The ten most frequent: each locale's ten, then the best ten of those.
  top_ten mine;
  for (const word& w : D.local_keys()) {
    const entry e{w, count.local(w)};
    if (before(e, mine.entries.back())) {
      mine.entries.back() = e;
      std::sort(mine.entries.begin(), mine.entries.end(), before);
    }
  }
  std::vector<entry> all;
  for (const top_ten& t : dmap::all_gather(mine))
    for (const entry& e : t.entries)
      if (e.count >= 0) all.push_back(e);
  std::sort(all.begin(), all.end(), before);
  all.resize(std::min<std::size_t>(all.size(), 10));

  // Any locale reads any word's count one-sidedly: the most frequent word, checked here.
  const std::int64_t top_count = all.empty() ? 0 : static_cast<std::int64_t>(count[all.front().w]);
  const std::vector<bool> known = D.contains_each({word_of(0), word_of(vocabulary)});  // collective

  const bool ok = total == text_words && total_letters == letters_generated && D.size() <= vocabulary &&
                  !all.empty() && top_count == all.front().count && known[0] && !known[1];
  if (me == 0) {
    std::cout << "word_count: " << total << " words (" << D.size() << " distinct, " << total_letters
              << " letters) on " << p << " locale(s); the ten most frequent:\n";
    for (const entry& e : all) std::printf("  %-16s %lld\n", e.w.data(), static_cast<long long>(e.count));
    std::cout << (ok ? "word_count: ok" : "word_count: MISMATCH") << "\n";
  }
  return dmap::all_of_locales(ok) ? 0 : 1;
}
