// The memory model's cost (docs/guide/memory-model.md): a collective write followed at once by
// one-sided reads of other locales' elements, against hand-written MPI that must synchronise
// before reading (MPI_Alltoallv, then MPI_Barrier, then MPI_Get), in the same run:
//   write_then_read_<n>   each locale sets its own elements of B (a plain loop), A = B (Block
//                         from Cyclic, n doubles), then every locale reads `reads` elements of
//                         the next locale with A[i]
//   fill_then_read        A[whole] = k, then the same reads (dmap: one agreement and the
//                         progress checks; the baseline: a local fill, a barrier, the gets)
// dmap needs no barrier: each locale checks once per operation that the peer it reads has
// completed the operation (progress_checks: 8-byte reads when the peer is off node or node
// transfers are off, none otherwise). Printed: the median time per round (write + reads),
// ratio = baseline / dmap, locale 0's counters of one round (msgs, bytes, collectives,
// progress_checks, node_bytes).
//   mpirun -n P --bind-to none ./bench_memory_model [rounds=200] [reads=8]
#include <dmap/dmap.hpp>

#include "timing.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using dmap::idx;
using dmap::index_t;

void fail(const std::string& what) {
  std::fprintf(stderr, "bench_memory_model: %s\n", what.c_str());
  std::exit(1);
}

void line(const std::string& name, index_t n, double td, double tb, const dmap::comm_counters& c) {
  if (dmap::here() != 0) return;
  std::printf("bench %s ranks=%d threads=%d transfers=%s n=%lld dmap=%.3e baseline=%.3e unit=s ratio=%.3f msgs=%llu bytes=%llu "
              "collectives=%llu progress_checks=%llu node_bytes=%llu min_bytes=0\n",
              name.c_str(), dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(n), td, tb, tb / td,
              static_cast<unsigned long long>(c.messages_sent), static_cast<unsigned long long>(c.bytes_sent),
              static_cast<unsigned long long>(c.collectives), static_cast<unsigned long long>(c.progress_checks),
              static_cast<unsigned long long>(c.node_bytes));
}

// The hand-written side: Block and Cyclic arrays of n doubles as plain vectors, a window over
// the Block part, and the redistribution with one MPI_Alltoallv (owner formulas written out).
struct hand_written {
  index_t n;
  int p, me;
  index_t lo, hi;  // this rank's Block part
  std::vector<double> block, cyclic;
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  std::vector<double> send, recv;
  MPI_Win win = MPI_WIN_NULL;

  static index_t block_lo(index_t n, int p, int q) { return n * q / p; }

  explicit hand_written(index_t n_) : n(n_), p(dmap::num_locales()), me(dmap::here()) {
    lo = block_lo(n, p, me);
    hi = block_lo(n, p, me + 1);
    block.assign(static_cast<std::size_t>(hi - lo), 0.0);
    cyclic.assign(static_cast<std::size_t>((n - me + p - 1) / p), 0.0);
    send_counts.assign(static_cast<std::size_t>(p), 0);
    recv_counts.assign(static_cast<std::size_t>(p), 0);
    for (index_t k = 0; k < static_cast<index_t>(cyclic.size()); ++k) {
      const index_t g = me + k * p;
      int q = 0;
      while (block_lo(n, p, q + 1) <= g) ++q;
      ++send_counts[static_cast<std::size_t>(q)];
    }
    for (index_t g = lo; g < hi; ++g) ++recv_counts[static_cast<std::size_t>(g % p)];
    send_displs.assign(static_cast<std::size_t>(p), 0);
    recv_displs.assign(static_cast<std::size_t>(p), 0);
    for (int q = 1; q < p; ++q) {
      send_displs[q] = send_displs[q - 1] + send_counts[q - 1];
      recv_displs[q] = recv_displs[q - 1] + recv_counts[q - 1];
    }
    send.resize(cyclic.size());
    recv.resize(block.size());
    MPI_Win_create(block.data(), static_cast<MPI_Aint>(block.size() * sizeof(double)), sizeof(double), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  }
  ~hand_written() {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
  // Cyclic -> Block: pack by destination (cyclic order is increasing g, so each
  // destination's elements are consecutive), exchange, unpack by source.
  void redistribute() {
    std::vector<int> at(send_displs);
    for (index_t k = 0; k < static_cast<index_t>(cyclic.size()); ++k) {
      const index_t g = me + k * p;
      int q = 0;
      while (block_lo(n, p, q + 1) <= g) ++q;
      send[static_cast<std::size_t>(at[static_cast<std::size_t>(q)]++)] = cyclic[static_cast<std::size_t>(k)];
    }
    MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE, recv.data(), recv_counts.data(),
                  recv_displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    std::vector<int> from(recv_displs);
    for (index_t g = lo; g < hi; ++g)
      block[static_cast<std::size_t>(g - lo)] = recv[static_cast<std::size_t>(from[static_cast<std::size_t>(g % p)]++)];
  }
  // Reads `count` elements of the next rank's Block part, after the barrier that makes them safe.
  double read_next(int count) {
    MPI_Barrier(MPI_COMM_WORLD);
    const int q = (me + 1) % p;
    const index_t qlo = block_lo(n, p, q), qn = block_lo(n, p, q + 1) - qlo;
    double sum = 0;
    for (int k = 0; k < count && qn > 0; ++k) {
      double v = 0;
      MPI_Get(&v, 1, MPI_DOUBLE, q, static_cast<MPI_Aint>(k * qn / count), 1, MPI_DOUBLE, win);
      MPI_Win_flush(q, win);
      sum += v;
    }
    return sum;
  }
};

// The indices dmap reads: `count` of the next locale's Block part.
std::vector<idx<1>> next_locale_indices(index_t n, int count) {
  const int p = dmap::num_locales(), q = (dmap::here() + 1) % p;
  const index_t qlo = hand_written::block_lo(n, p, q), qn = hand_written::block_lo(n, p, q + 1) - qlo;
  std::vector<idx<1>> out;
  for (int k = 0; k < count && qn > 0; ++k) out.push_back(idx<1>{qlo + k * qn / count});
  return out;
}

void write_then_read(index_t n, int rounds, int reads) {
  const dmap::rect<1> r{dmap::range{0, n}};
  dmap::domain Db{dmap::block<1>{}, r};
  dmap::domain Dc{dmap::cyclic<1>{}, r};
  dmap::array<double, 1> A{Db}, B{Dc};
  hand_written h(n);
  const auto probes = next_locale_indices(n, reads);
  int k = 0;
  double sink = 0;
  const auto dmap_round = [&] {
    ++k;
    std::fill(B.local_data(), B.local_data() + B.local_size(), k);  // the source's own elements, as the baseline
    A = B;
    for (const auto& i : probes) sink += A[i];
  };
  const auto base_round = [&] {
    ++k;
    for (auto& c : h.cyclic) c = k;
    h.redistribute();
    sink += h.read_next(reads);
  };
  // Correctness: the reads see the round's value on both sides.
  dmap_round();
  for (const auto& i : probes)
    if (A[i] != k) fail("dmap read a stale element");
  base_round();
  if (reads > 0 && h.read_next(1) != k && n / dmap::num_locales() > 0) fail("the baseline read a stale element");
  const auto c = bench::counters_of_repeat(dmap_round);
  const auto [td, tb] = bench::median_times(rounds, dmap_round, base_round);
  line("write_then_read_" + std::to_string(n), n, td, tb, c);
  if (sink == -1) std::printf("%f\n", sink);
}

void fill_then_read(index_t n, int rounds, int reads) {
  const dmap::rect<1> r{dmap::range{0, n}};
  dmap::domain Db{dmap::block<1>{}, r};
  dmap::array<double, 1> A{Db};
  hand_written h(n);
  const auto probes = next_locale_indices(n, reads);
  int k = 0;
  double sink = 0;
  const auto dmap_round = [&] {
    A[r] = ++k;
    for (const auto& i : probes) sink += A[i];
  };
  const auto base_round = [&] {
    ++k;
    for (auto& b : h.block) b = k;
    sink += h.read_next(reads);
  };
  const auto c = bench::counters_of_repeat(dmap_round);
  const auto [td, tb] = bench::median_times(rounds, dmap_round, base_round);
  line("fill_then_read", n, td, tb, c);
  if (sink == -1) std::printf("%f\n", sink);
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  const int reads = argc > 2 ? std::atoi(argv[2]) : 8;
  if (rounds < 1 || reads < 0) fail("usage: bench_memory_model [rounds >= 1] [reads >= 0]");
  write_then_read(1000, rounds, reads);
  write_then_read(1 << 20, std::max(5, rounds / 20), reads);
  fill_then_read(1000, rounds, reads);
  return 0;
}
