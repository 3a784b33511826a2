// Soak: rounds of creating, filling, redistributing, resizing, reducing and destroying
// domains and arrays of every map, watching this process's resident memory. After warm-up
// rounds (allocator pools, MPI's buffers and windows settle), the memory must not grow
// with more rounds: growth means something is kept per domain, array, plan or window.
//   soak   every round: for each map (block, cyclic, block_cyclic, irregular, hashed,
//          unstructured, replicated, stencil), a domain of n + (round mod 7) indices, two
//          arrays over it, a forall, A = B from a Block array (redistribution), a resize
//          up and down, update_halos (stencil), a reduce; all destroyed at the end.
// The baseline does the same amount of work by hand for Block -> Cyclic (std::vector
// storage, the owner formulas, one MPI_Alltoallv), with its own memory measured the same
// way. rss_growth_kib: the largest growth of VmRSS over all locales between the end of the
// warm-up and the end of the run, after malloc_trim(0); msgs/bytes: what locale 0 sent per
// round (dmap's counters).
//   mpirun -n 4 --bind-to none ./bench_soak [n=20000] [rounds=60] [warmup=15]
#include <dmap/dmap.hpp>

#include "timing.hpp"

#include <malloc.h>
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

/// This process's resident memory in KiB (VmRSS), after returning free heap pages.
long resident_kib() {
  malloc_trim(0);
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

void fail(const std::string& what) {
  std::fprintf(stderr, "bench_soak: %s\n", what.c_str());
  std::exit(1);
}

/// Collective: a 1-D domain of `r` under the k-th map of the soak.
dmap::domain<1> soak_domain(int k, const rect<1>& r) {
  const int p = dmap::num_locales();
  switch (k) {
    case 0: return {dmap::block<1>{}, r};
    case 1: return {dmap::cyclic<1>{}, r};
    case 2: return {dmap::block_cyclic<1>{idx<1>{64}}, r};
    case 3: {
      std::vector<index_t> cuts;
      for (int q = 1; q < p; ++q) cuts.push_back(r.low()[0] + q * q * r.size() / (p * p));
      return {dmap::irregular_block<1>{{cuts}}, r};
    }
    case 4: return {dmap::hashed<1>{}, r};
    case 5: {
      std::vector<idx<1>> mine;
      for (index_t i = r.low()[0]; i < r.high()[0]; ++i)
        if (i / 100 % p == dmap::here()) mine.push_back(idx<1>{i});
      return {dmap::unstructured<1>{mine}, r};
    }
    case 6: return {dmap::replicated<1>{}, r};
    default: return {dmap::stencil<1>{idx<1>{2}}, r};
  }
}
constexpr int soak_maps = 8;

/// One round of the library's soak; returns a checksum.
double dmap_round(index_t n, int round) {
  double check = 0;
  const rect<1> r{range(0, n + round % 7)};
  dmap::domain<1> source(dmap::block<1>{}, r);
  dmap::array<double, 1> S(source);
  dmap::forall(dmap::zip(source, S), [](const idx<1>& i, double& s) { s = static_cast<double>(i[0] % 1000); });
  for (int k = 0; k < soak_maps; ++k) {
    dmap::domain<1> D = soak_domain(k, r);
    dmap::array<double, 1> A(D), B(D, 1.0);
    if (k != 6) A = S;  // a replicated array is written locale by locale, not assigned into
    else dmap::forall(dmap::zip(D, A), [](const idx<1>& i, double& a) { a = static_cast<double>(i[0] % 1000); });
    dmap::forall(dmap::zip(A, B), [](double a, double& b) { b += a; });
    D.set_indices(rect<1>{range(0, n + 50)});
    D.set_indices(r);
    if (k == 7) dmap::update_halos(B);
    check += dmap::reduce(B, 0.0);
  }
  return check;
}

/// The hand-written round: Block storage, filled, redistributed to Cyclic with one
/// MPI_Alltoallv, grown and shrunk, summed; the same number of times as dmap's maps.
double baseline_round(index_t n, int round) {
  const int p = dmap::num_locales(), me = dmap::here();
  const index_t size = n + round % 7;
  const auto block_low = [&](int q) { return size * q / p; };
  double check = 0;
  for (int k = 0; k < soak_maps; ++k) {
    const index_t lo = block_low(me), hi = block_low(me + 1);
    std::vector<double> block(static_cast<std::size_t>(hi - lo));
    for (index_t i = lo; i < hi; ++i) block[static_cast<std::size_t>(i - lo)] = static_cast<double>(i % 1000);
    std::vector<int> send_counts(p, 0), send_displs(p, 0), recv_counts(p, 0), recv_displs(p, 0);
    for (index_t i = lo; i < hi; ++i) ++send_counts[static_cast<std::size_t>(i % p)];
    for (int q = 1; q < p; ++q) send_displs[q] = send_displs[q - 1] + send_counts[q - 1];
    std::vector<double> packed(block.size());
    std::vector<int> at = send_displs;
    for (index_t i = lo; i < hi; ++i) packed[static_cast<std::size_t>(at[static_cast<std::size_t>(i % p)]++)] =
        block[static_cast<std::size_t>(i - lo)];
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (int q = 1; q < p; ++q) recv_displs[q] = recv_displs[q - 1] + recv_counts[q - 1];
    std::vector<double> cyclic(static_cast<std::size_t>(recv_displs[p - 1] + recv_counts[p - 1]));
    MPI_Alltoallv(packed.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE, cyclic.data(),
                  recv_counts.data(), recv_displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    cyclic.resize(cyclic.size() + 50 / static_cast<std::size_t>(p), 0.0);
    cyclic.resize(cyclic.size() - 50 / static_cast<std::size_t>(p));
    cyclic.shrink_to_fit();
    double local = 0;
    for (double v : cyclic) local += v + 1.0;
    double sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    check += sum;
  }
  return check;
}

struct soak_result {
  double seconds_per_round;
  long growth_kib;  // the largest over the locales
};

/// Runs `warmup` rounds, then `rounds` timed ones, measuring resident memory in between.
soak_result soak(int warmup, int rounds, const std::function<void(int)>& one_round) {
  for (int r = 0; r < warmup; ++r) one_round(r);
  const long before = resident_kib();
  const double t = bench::timed([&] {
    for (int r = 0; r < rounds; ++r) one_round(warmup + r);
  });
  const long after = resident_kib();
  return {t / rounds, dmap::all_reduce_max(after - before)};
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env(argc, argv);
  const index_t n = argc > 1 ? std::atoll(argv[1]) : 20000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 60;
  const int warmup = argc > 3 ? std::atoi(argv[3]) : 15;
  if (n < 16 || rounds < 1 || warmup < 1) fail("need n >= 16, rounds >= 1, warmup >= 1");

  // Both rounds must compute the same sums (each map's B = 1 + the source's values).
  const double expected = [&] {
    double one = 0;
    for (index_t i = 0; i < n; ++i) one += static_cast<double>(i % 1000) + 1.0;
    return one;
  }();
  const double got_dmap = dmap_round(n, 0), got_base = baseline_round(n, 0);
  // A replicated array is summed on each locale's copy; every map gives the same sum.
  if (got_dmap != soak_maps * expected || got_base != soak_maps * expected)
    fail("checksums differ: dmap " + std::to_string(got_dmap) + ", baseline " + std::to_string(got_base) +
         ", expected " + std::to_string(soak_maps * expected));

  dmap::reset_counters();
  const soak_result lib = soak(warmup, rounds, [&](int r) { (void)dmap_round(n, r); });
  const dmap::comm_counters c = dmap::counters();
  const soak_result base = soak(warmup, rounds, [&](int r) { (void)baseline_round(n, r); });
  const auto per_round = [&](std::uint64_t v) {
    return static_cast<unsigned long long>(v / static_cast<std::uint64_t>(rounds + warmup));
  };
  if (dmap::here() == 0)
    std::printf("bench soak ranks=%d threads=%d transfers=%s n=%lld rounds=%d warmup=%d dmap=%.3f baseline=%.3f unit=ms/round "
                "ratio=%.3f msgs=%llu bytes=%llu rss_growth_kib=%ld baseline_rss_growth_kib=%ld\n",
                dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(n), rounds, warmup,
                lib.seconds_per_round * 1e3, base.seconds_per_round * 1e3,
                base.seconds_per_round / lib.seconds_per_round, per_round(c.messages_sent),
                per_round(c.bytes_sent), lib.growth_kib, base.growth_kib);
  return 0;
}
