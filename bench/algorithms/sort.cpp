// Case "sort": dmap::sort of 2^k random doubles on a Block 1-D array against a hand-written
// sample sort on raw per-rank std::vectors (oneTBB parallel_sort, regular sampling,
// MPI_Alltoall of counts + MPI_Alltoallv of the data, a local merge of the received runs)
// that leaves its buckets where they land. The hand-written sort keeps its buffers from call to
// call on huge pages (one madvise), as dmap's pooled buffers are: the comparison is of the
// algorithms, not of page faults (fresh 4 KiB pages made either side 1.5-2x slower on the
// 2-core VM). Also dmap::stable_sort and dmap::sort_by_key
// (key: random double, value: int64) against the same hand-written sort of the same
// elements (doubles; key-value pairs by key).
//   mpirun -n 4 bench_algorithms sort [log2 n = 24] [reps = 5]
#include <dmap/dmap.hpp>

#include <mpi.h>
#include <sys/mman.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "../timing.hpp"
#include "cases.hpp"

namespace {

/// An allocator of 2 MiB-aligned storage that asks for transparent huge pages from 4 MiB up
/// (what NumPy and dmap's buffers do), elements default-initialised: the hand-written side's
/// buffers.
template <class T>
struct huge_page_allocator {
  using value_type = T;
  huge_page_allocator() = default;
  template <class U>
  huge_page_allocator(const huge_page_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    constexpr std::size_t huge = std::size_t{1} << 21;
    if (n > (std::size_t{1} << 50) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = (n * sizeof(T) + huge - 1) / huge * huge;
    void* p = std::aligned_alloc(huge, bytes);
    if (!p) throw std::bad_alloc();
    if (bytes >= 2 * huge) madvise(p, bytes, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) ::new (static_cast<void*>(p)) U;
    else ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const huge_page_allocator&, const huge_page_allocator&) noexcept { return true; }
};
template <class T>
using huge_vector = std::vector<T, huge_page_allocator<T>>;

/// The hand-written sort's buffers, kept from call to call: the elements it sorts, what it
/// receives and where it merges (the result is one of the last two).
template <class E>
struct hand_buffers {
  huge_vector<E> v, got, other;
};

/// A key-value pair of the by-key runs (hand-written side).
struct pair_kv {
  double key;
  std::int64_t value;
};

/// The hand-written sample sort of `b.v` (this rank's elements) with `less`: returns this
/// rank's bucket, sorted (b.v itself, or b.got); bucket r holds the elements between
/// splitters r - 1 and r.
template <class E, class Less>
const huge_vector<E>& hand_sample_sort(hand_buffers<E>& b, Less less, tbb::task_arena& arena) {
  huge_vector<E>& v = b.v;
  int p = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  arena.execute([&] { tbb::parallel_sort(v.begin(), v.end(), less); });
  if (p == 1) return v;
  // Regular sampling: P - 1 samples per rank, P - 1 splitters from the P (P - 1) samples.
  std::vector<E> samples(static_cast<std::size_t>(p - 1)), all(static_cast<std::size_t>(p) * (p - 1));
  for (int j = 0; j < p - 1; ++j)
    samples[static_cast<std::size_t>(j)] = v.empty() ? E{} : v[v.size() * static_cast<std::size_t>(j + 1) / static_cast<std::size_t>(p)];
  MPI_Allgather(samples.data(), static_cast<int>(samples.size() * sizeof(E)), MPI_BYTE, all.data(),
                static_cast<int>(samples.size() * sizeof(E)), MPI_BYTE, MPI_COMM_WORLD);
  std::sort(all.begin(), all.end(), less);
  std::vector<int> send_counts(static_cast<std::size_t>(p)), recv_counts(static_cast<std::size_t>(p)),
      send_displs(static_cast<std::size_t>(p)), recv_displs(static_cast<std::size_t>(p));
  std::size_t previous = 0;
  for (int r = 0; r < p; ++r) {
    const std::size_t end =
        r + 1 == p ? v.size()
                   : static_cast<std::size_t>(
                         std::upper_bound(v.begin(), v.end(),
                                          all[static_cast<std::size_t>((r + 1) * (p - 1) + p / 2 - 1)], less) -
                         v.begin());
    const std::size_t cut = std::max(previous, end);
    send_counts[static_cast<std::size_t>(r)] = static_cast<int>((cut - previous) * sizeof(E));
    send_displs[static_cast<std::size_t>(r)] = static_cast<int>(previous * sizeof(E));
    previous = cut;
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < p; ++r) {
    recv_displs[static_cast<std::size_t>(r)] = total;
    total += recv_counts[static_cast<std::size_t>(r)];
  }
  huge_vector<E>& got = b.got;
  huge_vector<E>& other = b.other;
  got.resize(static_cast<std::size_t>(total) / sizeof(E));
  other.resize(got.size());
  MPI_Alltoallv(v.data(), send_counts.data(), send_displs.data(), MPI_BYTE, got.data(), recv_counts.data(),
                recv_displs.data(), MPI_BYTE, MPI_COMM_WORLD);
  // Merge the P received runs pairwise, the pairs of a round in parallel.
  std::vector<std::size_t> bounds;
  for (int r = 0; r < p; ++r) bounds.push_back(static_cast<std::size_t>(recv_displs[static_cast<std::size_t>(r)]) / sizeof(E));
  bounds.push_back(got.size());
  while (bounds.size() > 2) {
    std::vector<std::size_t> next;
    const std::size_t pairs = (bounds.size() - 1 + 1) / 2;
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, pairs, [&](std::size_t t) {
        const std::size_t a = bounds[2 * t], m = bounds[std::min(2 * t + 1, bounds.size() - 1)],
                          e = bounds[std::min(2 * t + 2, bounds.size() - 1)];
        std::merge(got.begin() + static_cast<std::ptrdiff_t>(a), got.begin() + static_cast<std::ptrdiff_t>(m),
                   got.begin() + static_cast<std::ptrdiff_t>(m), got.begin() + static_cast<std::ptrdiff_t>(e),
                   other.begin() + static_cast<std::ptrdiff_t>(a), less);
      });
    });
    for (std::size_t t = 0; t < pairs; ++t) next.push_back(bounds[2 * t]);
    next.push_back(got.size());
    got.swap(other);
    bounds.swap(next);
  }
  return got;
}

/// A fingerprint of a distributed sequence: the sum over positions k of a hash of (k, the
/// element's bytes), all-reduced; equal for equal sequences, different (almost surely) if
/// any element sits at another position.
template <class E>
std::uint64_t fingerprint(const E* data, std::size_t count, std::int64_t first) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t h = static_cast<std::uint64_t>(first + static_cast<std::int64_t>(i)) * 0x9E3779B97F4A7C15ull;
    unsigned char bytes[sizeof(E)];
    std::memcpy(bytes, data + i, sizeof(E));
    for (unsigned char b : bytes) h = (h ^ b) * 0x100000001B3ull;
    sum += h ^ (h >> 29);
  }
  return dmap::all_reduce_sum(sum);
}

/// The global fingerprint of the hand-written result (each rank's bucket at its exclusive
/// scan of bucket sizes).
template <class E>
std::uint64_t fingerprint_of_buckets(const huge_vector<E>& bucket) {
  const auto sizes = dmap::all_gather(static_cast<std::int64_t>(bucket.size()));
  std::int64_t first = 0;
  for (int q = 0; q < dmap::here(); ++q) first += sizes[static_cast<std::size_t>(q)];
  return fingerprint(bucket.data(), bucket.size(), first);
}

int run(const std::vector<std::string>& args) {
  const int log2n = args.size() > 0 ? std::stoi(args[0]) : 24;
  const int reps = args.size() > 1 ? std::stoi(args[1]) : 5;
  const std::int64_t n = std::int64_t{1} << log2n;
  tbb::task_arena arena(dmap::num_threads());
  dmap::domain<1> D(dmap::block<1>{}, dmap::rect<1>{dmap::range(0, n)});
  const auto mine = D.local_subdomain();
  const std::int64_t first = mine.size() > 0 ? mine.dim(0).first() : 0;
  // The same random doubles for both sides: element k is the k-th draw of a generator seeded
  // by rank (only the multiset matters).
  std::vector<double> input(static_cast<std::size_t>(mine.size()));
  std::mt19937_64 rng(12345 + static_cast<unsigned>(dmap::here()));
  std::uniform_real_distribution<double> uniform(-1e6, 1e6);
  for (auto& x : input) x = uniform(rng);
  dmap::array<double, 1> A(D);
  const auto load = [&] { std::copy(input.begin(), input.end(), A.local_data()); };
  hand_buffers<double> base;
  const huge_vector<double>* base_result = nullptr;
  int status = 0;

  // ---- the unstable and the stable sort, each against the same unstable hand-written sort
  // (random doubles: no ties, so both results equal the baseline's)
  const auto sort_case = [&](const char* name, auto&& sort_A) {
    std::vector<double> td, tb;
    for (int r = 0; r <= reps; ++r) {
      load();
      const double x = bench::timed(sort_A);
      base.v.assign(input.begin(), input.end());
      const double y = bench::timed([&] { base_result = &hand_sample_sort(base, std::less<>{}, arena); });
      if (r > 0) td.push_back(x), tb.push_back(y);
    }
    std::sort(td.begin(), td.end());
    std::sort(tb.begin(), tb.end());
    load();
    dmap::reset_counters();
    sort_A();
    const auto c = dmap::counters();
    const bool ok = fingerprint(A.local_data(), input.size(), first) == fingerprint_of_buckets(*base_result);
    if (!ok) status = 1;
    bench::print_seconds(name, n, td[td.size() / 2], tb[tb.size() / 2], c, 0);
    if (!ok && dmap::here() == 0) std::printf("bench %s: WRONG RESULT\n", name);
  };
  sort_case("sort", [&] { dmap::sort(A); });
  sort_case("stable_sort", [&] { dmap::stable_sort(A); });
  // ---- sort_by_key: keys the doubles, values their int64 positions
  {
    dmap::array<std::int64_t, 1> V(D);
    const auto load_kv = [&] {
      load();
      for (std::size_t i = 0; i < input.size(); ++i) V.local_data()[i] = first + static_cast<std::int64_t>(i);
    };
    std::vector<pair_kv> pairs(input.size());
    for (std::size_t i = 0; i < input.size(); ++i) pairs[i] = {input[i], first + static_cast<std::int64_t>(i)};
    const auto by_key = [](const pair_kv& a, const pair_kv& b) { return a.key < b.key; };
    hand_buffers<pair_kv> base_kv;
    const huge_vector<pair_kv>* base_kv_result = nullptr;
    std::vector<double> td, tb;
    for (int r = 0; r <= reps; ++r) {
      load_kv();
      const double x = bench::timed([&] { dmap::sort_by_key(A, V); });
      base_kv.v.assign(pairs.begin(), pairs.end());
      const double y = bench::timed([&] { base_kv_result = &hand_sample_sort(base_kv, by_key, arena); });
      if (r > 0) td.push_back(x), tb.push_back(y);
    }
    std::sort(td.begin(), td.end());
    std::sort(tb.begin(), tb.end());
    load_kv();
    dmap::reset_counters();
    dmap::sort_by_key(A, V);
    const auto c = dmap::counters();
    std::vector<pair_kv> got(input.size());
    for (std::size_t i = 0; i < input.size(); ++i) got[i] = {A.local_data()[i], V.local_data()[i]};
    const bool ok = fingerprint(got.data(), got.size(), first) == fingerprint_of_buckets(*base_kv_result);
    if (!ok) status = 1;
    bench::print_seconds("sort_by_key", n, td[td.size() / 2], tb[tb.size() / 2], c, 0);
    if (!ok && dmap::here() == 0) std::printf("bench sort_by_key: WRONG RESULT\n");
  }
  return dmap::all_reduce_max(status);
}

const bench::algorithms::registrar reg{{"sort", "[log2 n = 24] [reps = 5]", run}};

}  // namespace
