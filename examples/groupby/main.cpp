// Word counts as a distributed group-by-sum: each locale takes its part of a generated corpus
// (groupby.hpp: the same text whatever the number of locales) and one call,
// add_and_accumulate, counts every locale's words into an associative array at the words'
// owners (adding the words the domain lacks). The program checks every word's count against a
// serial count of the whole corpus (computed by every locale), then prints the ten most
// frequent words.
//   groupby [words=400000] [vocabulary=5000]
// Run as one locale or under mpirun -n P; exits non-zero on a mismatch.
#include "groupby.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace {

using groupby::word;

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
  const std::int64_t words = argc > 1 ? std::atoll(argv[1]) : 400000, vocabulary = argc > 2 ? std::atoll(argv[2]) : 5000;
  if (words < 0 || words > (std::int64_t{1} << 32) || vocabulary < 1 || vocabulary > 30000000) {
    if (dmap::here() == 0) std::fprintf(stderr, "groupby: words in [0, 2^32], vocabulary in [1, 3e7]\n");
    return 2;
  }
  const std::vector<word> part = groupby::corpus_part(words, vocabulary);
  const std::vector<std::int64_t> ones(part.size(), 1);

  dmap::associative_domain<word> D;
  dmap::associative_array<std::int64_t, word> count(D);
  count.add_and_accumulate(part, ones);  // the group-by: one message per peer

  // The serial count of the whole corpus, on every locale.
  std::unordered_map<word, std::int64_t, groupby::word_hash> serial;
  for (std::int64_t j = 0; j < words; ++j) ++serial[groupby::word_of(groupby::rank_at(j, vocabulary))];
  std::int64_t wrong = 0;
  for (const word& w : D.local_keys()) {
    const auto it = serial.find(w);
    wrong += it == serial.end() || it->second != count.local(w);
  }
  wrong = dmap::all_reduce_sum(wrong);
  const std::int64_t total = dmap::reduce(count, std::int64_t{0});
  const bool ok = wrong == 0 && D.size() == static_cast<dmap::index_t>(serial.size()) && total == words;

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

  if (dmap::here() == 0) {
    std::printf("groupby: %lld words (%lld distinct, serial %zu) on %d locales; %lld counts differ from the serial "
                "count: %s\n  the ten most frequent:",
                static_cast<long long>(total), static_cast<long long>(D.size()), serial.size(), dmap::num_locales(),
                static_cast<long long>(wrong), ok ? "ok" : "MISMATCH");
    for (const entry& e : all) std::printf(" %s %lld", e.w.data(), static_cast<long long>(e.count));
    std::printf("\n");
  }
  return ok ? 0 : 1;
}
