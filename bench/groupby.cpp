// A group-by-sum (word counts over a generated corpus with a skewed key distribution:
// examples/groupby) on dmap's associative domains and arrays, against a hand-written
// MPI_Alltoallv + hash-map implementation in the same run. dmap: one call,
// add_and_accumulate(words, ones), which sums the locale's words per key in its own hash
// table, sends each distinct key and its sum to the owner (one message per peer), and adds the
// keys the domain lacks there. The baseline sums per key in a std::unordered_map (dmap's key
// hash), routes (key, sum) records to the key's owner (hash modulo the rank count) with
// MPI_Alltoall of sizes and MPI_Alltoallv, and adds them into the owner's hash map. Timed: the
// whole group-by, from this locale's words to the sums at the owners (a new domain each time).
// Both results must hold the same keys and sums.
//   mpirun -n P --bind-to none ./bench_groupby [words=2^23] [vocabulary=2^20] [repetitions=5]
#include "../examples/groupby/groupby.hpp"
#include "timing.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace {

using groupby::word;
using word_counts = std::unordered_map<word, std::int64_t, groupby::word_hash>;

/// The hand-written group-by: the sums of this rank's keys (those whose hash modulo P is this
/// rank) over every rank's words; `sent_bytes` receives what this rank sent to others.
word_counts hand_group_sum(const std::vector<word>& part, std::uint64_t& sent_bytes) {
  const int p = dmap::num_locales(), me = dmap::here();
  word_counts local;
  for (const word& w : part) ++local[w];
  struct record {
    word key;
    std::int64_t sum;
  };
  const auto owner = [p](const word& w) { return static_cast<int>(groupby::word_hash{}(w) % static_cast<std::size_t>(p)); };
  std::vector<int> counts(static_cast<std::size_t>(p), 0), incoming(static_cast<std::size_t>(p));
  for (const auto& entry : local) counts[static_cast<std::size_t>(owner(entry.first))] += static_cast<int>(sizeof(record));
  std::vector<int> sdispl(static_cast<std::size_t>(p), 0), rdispl(static_cast<std::size_t>(p), 0);
  for (int q = 1; q < p; ++q) sdispl[static_cast<std::size_t>(q)] = sdispl[static_cast<std::size_t>(q - 1)] + counts[static_cast<std::size_t>(q - 1)];
  std::vector<record> packed(local.size());
  std::vector<int> fill = sdispl;
  for (const auto& [w, c] : local) {
    const int q = owner(w);
    packed[static_cast<std::size_t>(fill[static_cast<std::size_t>(q)]) / sizeof(record)] = {w, c};
    fill[static_cast<std::size_t>(q)] += static_cast<int>(sizeof(record));
  }
  MPI_Alltoall(counts.data(), 1, MPI_INT, incoming.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int q = 1; q < p; ++q) rdispl[static_cast<std::size_t>(q)] = rdispl[static_cast<std::size_t>(q - 1)] + incoming[static_cast<std::size_t>(q - 1)];
  std::vector<record> received(static_cast<std::size_t>(rdispl.back() + incoming.back()) / sizeof(record));
  MPI_Alltoallv(packed.data(), counts.data(), sdispl.data(), MPI_BYTE, received.data(), incoming.data(), rdispl.data(),
                MPI_BYTE, MPI_COMM_WORLD);
  word_counts mine;
  for (const record& r : received) mine[r.key] += r.sum;
  sent_bytes = 0;
  for (int q = 0; q < p; ++q)
    if (q != me) sent_bytes += static_cast<std::uint64_t>(counts[static_cast<std::size_t>(q)]);
  return mine;
}

/// A sum over keys of count x (the key's hash modulo 2^16): the same for equal results.
std::int64_t checksum(const word& w, std::int64_t count) {
  return count * static_cast<std::int64_t>(groupby::word_hash{}(w) & 0xffff);
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const std::int64_t words = argc > 1 ? std::atoll(argv[1]) : std::int64_t{1} << 23;
  const std::int64_t vocabulary = argc > 2 ? std::atoll(argv[2]) : std::int64_t{1} << 20;
  const int repetitions = argc > 3 ? std::atoi(argv[3]) : 5;
  if (words < 1 || vocabulary < 1 || vocabulary > 30000000 || repetitions < 1) {
    if (dmap::here() == 0) std::fprintf(stderr, "bench_groupby: words >= 1, vocabulary in [1, 3e7], repetitions >= 1\n");
    return 2;
  }
  const std::vector<word> part = groupby::corpus_part(words, vocabulary);
  const std::vector<std::int64_t> ones(part.size(), 1);

  dmap::index_t distinct = 0;
  std::int64_t sum_dmap = 0;
  const auto with_dmap = [&] {
    dmap::associative_domain<word> D;
    dmap::associative_array<std::int64_t, word> count(D);
    count.add_and_accumulate(part, ones);
    distinct = D.size();
    sum_dmap = dmap::reduce(dmap::zip(count, D), std::int64_t{0}, std::plus<>{},
                            [](std::int64_t c, const word& w) { return checksum(w, c); });
  };
  word_counts base;
  std::uint64_t base_bytes = 0;
  const auto by_hand = [&] { base = hand_group_sum(part, base_bytes); };
  const dmap::comm_counters c = bench::counters_of_repeat(with_dmap);
  const auto [td, tb] = bench::median_times(repetitions, with_dmap, by_hand);

  std::int64_t sum_base = 0;
  for (const auto& [w, n] : base) sum_base += checksum(w, n);
  sum_base = dmap::all_reduce_sum(sum_base);
  const auto base_distinct = static_cast<dmap::index_t>(dmap::all_reduce_sum(static_cast<std::int64_t>(base.size())));
  const std::int64_t local_distinct = dmap::all_reduce_sum(static_cast<std::int64_t>([&] {
    word_counts seen;
    for (const word& w : part) ++seen[w];
    return seen.size();
  }()));
  if (dmap::here() == 0)
    std::printf("bench groupby ranks=%d threads=%d transfers=%s n=%lld dmap=%.6f baseline=%.6f unit=s ratio=%.3f msgs=%llu "
                "bytes=%llu min_bytes=%llu vocabulary=%lld distinct=%lld local_distinct=%lld\n",
                dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(words), td, tb,
                tb / td, static_cast<unsigned long long>(c.messages_sent), static_cast<unsigned long long>(c.bytes_sent),
                static_cast<unsigned long long>(base_bytes), static_cast<long long>(vocabulary),
                static_cast<long long>(distinct), static_cast<long long>(local_distinct));
  if (distinct != base_distinct || sum_dmap != sum_base) {
    if (dmap::here() == 0)
      std::fprintf(stderr, "bench_groupby: dmap and the baseline differ (%lld / %lld keys, checksums %lld / %lld)\n",
                   static_cast<long long>(distinct), static_cast<long long>(base_distinct), static_cast<long long>(sum_dmap),
                   static_cast<long long>(sum_base));
    return 1;
  }
  return 0;
}
