// Redistribution and misaligned zips against hand-written MPI_Alltoallv code, in the same run:
//   redistribute_block_to_cyclic_1d   A = B, Block -> Cyclic, n doubles
//   redistribute_block_to_cyclic_2d   A = B, Block -> Cyclic on the default grid, m x m doubles
//   redistribute_rows_to_cols         A = B, Block over P x 1 -> Block over 1 x P, m x m doubles
//   ..._vs_shm                        the last two against hand-written copies straight into the
//                                     other ranks' MPI-3 shared-memory arrays (one node)
//   misaligned_triad                  forall(zip(A_block, B_cyclic, C_block), a = b + s*c), n doubles
//   slice_shift_1d                    A[{s..n}] = B[{0..n-s}], both Block, s = n / (2P) + 1, n doubles
//   view_forall_interior              forall(zip(A[inner], B[inner]), a = 2b + 1) over m x m Block,
//                                     inner = {1..m-1}^2 (aligned views: no messages)
//   block_to_block_2d / _thin         A = B, two Block domains of one rect (m x m; n/8 x 8), against
//                                     a std::copy of the local block (merged runs: one copy each)
// The baselines pack with the owner formulas written out (no index lists), copy their own
// part straight to its place, exchange the rest with one MPI_Alltoallv and unpack the same
// way; the triad baseline then runs its loop locally. Both
// results are compared. msgs/bytes: what locale 0 sent during one dmap operation (dmap's
// counters), node_bytes: what it copied straight into node peers' memory; min_bytes: the elements locale 0 must send (those it holds and another locale
// needs), times 8.
//   mpirun -n P --bind-to none ./bench_redistribute [log2_n=24] [repetitions=9]
#include <dmap/dmap.hpp>
#include <dmap/runtime/detail/thread_pool.hpp>

#include "timing.hpp"

#include <mpi.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

using bench::counters_of_repeat;
using bench::median_times;

void fail(const std::string& what) {
  std::fprintf(stderr, "bench_redistribute: %s\n", what.c_str());
  std::exit(1);
}

void line(const std::string& name, index_t n, double td, double tb, const dmap::comm_counters& c,
          std::uint64_t min_bytes) {
  if (dmap::here() != 0) return;
  const double bytes = static_cast<double>(n) * sizeof(double);
  std::printf("bench %s ranks=%d threads=%d transfers=%s n=%lld dmap=%.1f baseline=%.1f unit=MB/s ratio=%.3f msgs=%llu "
              "bytes=%llu node_bytes=%llu min_bytes=%llu\n",
              name.c_str(), dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(n), bytes / td / 1e6,
              bytes / tb / 1e6, tb / td, static_cast<unsigned long long>(c.messages_sent),
              static_cast<unsigned long long>(c.bytes_sent), static_cast<unsigned long long>(c.node_bytes),
              static_cast<unsigned long long>(min_bytes));
}

/// The best hand-written code on one node: every rank's destination array in an MPI-3
/// shared-memory window; each rank copies its elements straight into the owners' arrays
/// between two barriers of the node (the first: every destination is free to be written;
/// the second: every copy is done).
struct shared_destination {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Win win = MPI_WIN_NULL;
  std::vector<double*> of;  // each rank's destination array, by rank (one node)
  explicit shared_destination(index_t elements) {
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int size = 0, world = 0;
    MPI_Comm_size(node, &size);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    if (size != world) fail("the shared-memory baseline needs every rank on one node");
    void* base = nullptr;
    MPI_Win_allocate_shared(static_cast<MPI_Aint>(elements * static_cast<index_t>(sizeof(double))), sizeof(double),
                            MPI_INFO_NULL, node, &base, &win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int q = 0; q < size; ++q) {
      MPI_Aint bytes = 0;
      int unit = 0;
      void* at = nullptr;
      MPI_Win_shared_query(win, q, &bytes, &unit, &at);
      of.push_back(static_cast<double*>(at));
    }
  }
  ~shared_destination() {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
  }
  double* mine() const { return of[static_cast<std::size_t>(dmap::here())]; }
  /// Runs `copy` (which writes into of[q]) between the two synchronisations.
  template <class Copy>
  void run(Copy&& copy) {
    MPI_Win_sync(win);
    MPI_Barrier(node);
    copy();
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
  }
};

/// One MPI_Alltoallv of doubles: send[q] to locale q, returns what each locale sent here.
struct alltoallv {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  std::vector<double> send, recv;
  alltoallv(std::vector<int> sc, std::vector<int> rc) : send_counts(std::move(sc)), recv_counts(std::move(rc)) {
    const int p = dmap::num_locales();
    send_displs.assign(static_cast<std::size_t>(p), 0);
    recv_displs.assign(static_cast<std::size_t>(p), 0);
    for (int q = 1; q < p; ++q) {
      send_displs[static_cast<std::size_t>(q)] = send_displs[static_cast<std::size_t>(q - 1)] + send_counts[static_cast<std::size_t>(q - 1)];
      recv_displs[static_cast<std::size_t>(q)] = recv_displs[static_cast<std::size_t>(q - 1)] + recv_counts[static_cast<std::size_t>(q - 1)];
    }
    send.resize(static_cast<std::size_t>(send_displs.back() + send_counts.back()));
    recv.resize(static_cast<std::size_t>(recv_displs.back() + recv_counts.back()));
  }
  void run() {
    MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE, recv.data(), recv_counts.data(),
                  recv_displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  }
};

/// Block's cut of [0, n) over p parts: part k owns [first(k), first(k + 1)).
index_t cut(index_t n, int p, int k) { return (n * k + p - 1) / p; }

/// The elements locale 0 holds under `from` that `to` places elsewhere, times 8.
template <std::size_t N>
std::uint64_t min_bytes(const dmap::domain<N>& from, const dmap::domain<N>& to) {
  std::uint64_t n = 0;
  if (dmap::here() != 0) return 0;
  for (const auto& r : from.local_subdomains()) {
    if constexpr (N == 1) {
      for (index_t i = r.dim(0).first(); i <= r.dim(0).last(); i += r.dim(0).stride()) n += to.locale_of(idx<1>{i}) != 0;
    } else {
      for (index_t i = r.dim(0).first(); i <= r.dim(0).last(); i += r.dim(0).stride())
        for (index_t j = r.dim(1).first(); j <= r.dim(1).last(); j += r.dim(1).stride()) n += to.locale_of(idx<2>{i, j}) != 0;
    }
  }
  return n * sizeof(double);
}

double value(index_t k) { return 0.25 + static_cast<double>(k % 1000003); }

// ----------------------------------------------------------------------------------- 1-D

void block_to_cyclic_1d(index_t n, int reps) {
  const int p = dmap::num_locales(), me = dmap::here();
  const rect<1> space{range(0, n)};
  dmap::domain<1> DB{dmap::block<1>{}, space}, DC{dmap::cyclic<1>{}, space};
  dmap::array<double, 1> B(DB), A(DC);
  dmap::forall(dmap::zip(B, DB), [](double& b, const idx<1>& i) { b = value(i[0]); });
  const index_t lo = cut(n, p, me), hi = cut(n, p, me + 1);
  if (DB.local_subdomain().dim(0).first() != lo && hi > lo) fail("the block cut differs from the baseline's");
  // Baseline: my block [lo, hi) goes to i % p at local i / p.
  std::vector<int> sc(static_cast<std::size_t>(p)), rc(static_cast<std::size_t>(p));
  for (index_t i = lo; i < hi; ++i) ++sc[static_cast<std::size_t>(i % p)];
  for (int q = 0; q < p; ++q)
    for (index_t i = cut(n, p, q); i < cut(n, p, q + 1); ++i) rc[static_cast<std::size_t>(q)] += i % p == me;
  sc[static_cast<std::size_t>(me)] = rc[static_cast<std::size_t>(me)] = 0;  // copied locally
  alltoallv x(sc, rc);
  std::vector<double> mine((n - me + p - 1) / p);
  const double* b = B.local_data();
  const auto baseline = [&] {
    // Per destination q, the strided run of my block congruent to q (no modulo per element);
    // my own part goes straight to its place.
    for (int q = 0; q < p; ++q) {
      if (q == me) {
        for (index_t i = lo + ((q - lo) % p + p) % p; i < hi; i += p) mine[static_cast<std::size_t>(i / p)] = b[i - lo];
        continue;
      }
      double* out = x.send.data() + x.send_displs[static_cast<std::size_t>(q)];
      for (index_t i = lo + ((q - lo) % p + p) % p; i < hi; i += p) *out++ = b[i - lo];
    }
    x.run();
    for (int q = 0; q < p; ++q) {
      if (q == me) continue;
      index_t k = x.recv_displs[static_cast<std::size_t>(q)];
      const index_t first = cut(n, p, q);
      for (index_t i = first + ((me - first) % p + p) % p; i < cut(n, p, q + 1); i += p)
        mine[static_cast<std::size_t>(i / p)] = x.recv[static_cast<std::size_t>(k++)];
    }
  };
  const auto assign = [&] { A = B; };
  const auto c = counters_of_repeat(assign);
  const auto [td, tb] = median_times(reps, assign, baseline);
  if (!std::equal(mine.begin(), mine.end(), A.local_data())) fail("block_to_cyclic_1d: results differ");
  line("redistribute_block_to_cyclic_1d", n, td, tb, c, min_bytes(DB, DC));
}

void misaligned_triad(index_t n, int reps) {
  const int p = dmap::num_locales(), me = dmap::here();
  const rect<1> space{range(0, n)};
  dmap::domain<1> DB{dmap::block<1>{}, space}, DC{dmap::cyclic<1>{}, space};
  dmap::array<double, 1> A(DB), C(DB), B(DC);
  dmap::forall(dmap::zip(B, DC), [](double& b, const idx<1>& i) { b = value(i[0]); });
  dmap::forall(dmap::zip(C, DB), [](double& c, const idx<1>& i) { c = value(i[0] + 7); });
  const double s = 3.0;
  const index_t lo = cut(n, p, me), hi = cut(n, p, me + 1);
  // Baseline: the cyclic B to my block (element i at i % p, local i / p), then the triad.
  std::vector<int> sc(static_cast<std::size_t>(p)), rc(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q)
    for (index_t i = cut(n, p, q); i < cut(n, p, q + 1); ++i) sc[static_cast<std::size_t>(q)] += i % p == me;
  for (index_t i = lo; i < hi; ++i) ++rc[static_cast<std::size_t>(i % p)];
  sc[static_cast<std::size_t>(me)] = rc[static_cast<std::size_t>(me)] = 0;  // copied locally
  alltoallv x(sc, rc);
  std::vector<double> a(static_cast<std::size_t>(hi - lo)), staged(static_cast<std::size_t>(hi - lo));
  const double* b = B.local_data();
  const double* c = C.local_data();
  const auto baseline = [&] {
    index_t k = 0;
    for (int q = 0; q < p; ++q) {
      const index_t first = cut(n, p, q);
      if (q == me) {
        for (index_t i = first + ((me - first) % p + p) % p; i < cut(n, p, q + 1); i += p)
          staged[static_cast<std::size_t>(i - lo)] = b[i / p];
        continue;
      }
      for (index_t i = first + ((me - first) % p + p) % p; i < cut(n, p, q + 1); i += p)
        x.send[static_cast<std::size_t>(k++)] = b[i / p];
    }
    x.run();
    for (int q = 0; q < p; ++q) {
      if (q == me) continue;
      const double* in = x.recv.data() + x.recv_displs[static_cast<std::size_t>(q)];
      for (index_t i = lo + ((q - lo) % p + p) % p; i < hi; i += p) staged[static_cast<std::size_t>(i - lo)] = *in++;
    }
    const double* __restrict sb = staged.data();
    double* __restrict pa = a.data();
    for (std::size_t i = 0; i < a.size(); ++i) pa[i] = sb[i] + s * c[i];
  };
  const auto triad = [&] {
    dmap::forall(dmap::zip(A, std::as_const(B), std::as_const(C)), [s](double& y, const double& u, const double& v) {
      y = u + s * v;
    });
  };
  const auto counts = counters_of_repeat(triad);
  const auto [td, tb] = median_times(reps, triad, baseline);
  if (!std::equal(a.begin(), a.end(), A.local_data())) fail("misaligned_triad: results differ");
  line("misaligned_triad", n, td, tb, counts, min_bytes(DC, DB));
}

void slice_shift_1d(index_t n, int reps) {
  const int p = dmap::num_locales(), me = dmap::here();
  const index_t shift = n / (2 * p) + 1;
  const rect<1> space{range(0, n)};
  dmap::domain<1> D{dmap::block<1>{}, space};
  dmap::array<double, 1> A(D), B(D);
  dmap::forall(dmap::zip(B, D), [](double& b, const idx<1>& i) { b = value(i[0]); });
  const index_t lo = cut(n, p, me), hi = cut(n, p, me + 1);
  if (D.local_subdomain().dim(0).first() != lo && hi > lo) fail("the block cut differs from the baseline's");
  // Baseline: B[i] (i < n - shift) goes to A[i + shift], owned by the q whose block holds it:
  // one contiguous run per peer, sent straight from B's buffer into A's (MPI_Alltoallv
  // displacements, no packing); my own run is one copy.
  std::vector<int> sc(static_cast<std::size_t>(p)), sd(sc), rc(sc), rd(sc);
  index_t own_from = 0, own_to = 0, own_count = 0;
  std::uint64_t min = 0;
  for (int q = 0; q < p; ++q) {
    const index_t send_lo = std::max(lo, cut(n, p, q) - shift), send_hi = std::min({hi, cut(n, p, q + 1) - shift, n - shift});
    const index_t recv_lo = std::max(cut(n, p, q) + shift, lo), recv_hi = std::min(cut(n, p, q + 1) + shift, hi);
    const auto k = static_cast<std::size_t>(q);
    if (q == me) {
      own_count = std::max<index_t>(0, send_hi - send_lo);
      own_from = send_lo - lo, own_to = send_lo + shift - lo;
      continue;
    }
    if (send_hi > send_lo) {
      sc[k] = static_cast<int>(send_hi - send_lo), sd[k] = static_cast<int>(send_lo - lo);
      min += static_cast<std::uint64_t>(send_hi - send_lo) * sizeof(double);
    }
    if (recv_hi > recv_lo) rc[k] = static_cast<int>(recv_hi - recv_lo), rd[k] = static_cast<int>(recv_lo - lo);
  }
  std::vector<double> a(static_cast<std::size_t>(hi - lo));
  const double* b = B.local_data();
  const auto baseline = [&] {
    if (own_count > 0) std::copy(b + own_from, b + own_from + own_count, a.data() + own_to);
    MPI_Alltoallv(b, sc.data(), sd.data(), MPI_DOUBLE, a.data(), rc.data(), rd.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  };
  const rect<1> to{range(shift, n)}, from{range(0, n - shift)};
  const auto assign = [&] { A[to] = B[from]; };
  const auto counts = counters_of_repeat(assign);
  const auto [td, tb] = median_times(reps, assign, baseline);
  // Compare the elements A received (its first `shift` indices keep their old value).
  const index_t skip = std::clamp<index_t>(shift - lo, 0, hi - lo);
  if (!std::equal(a.begin() + skip, a.end(), A.local_data() + skip)) fail("slice_shift_1d: results differ");
  line("slice_shift_1d", n - shift, td, tb, counts, me == 0 ? min : 0);
}

// ----------------------------------------------------------------------------------- 2-D

void view_forall_interior(index_t m, int reps) {
  const rect<2> space{range(0, m), range(0, m)}, inner{range(1, m - 1), range(1, m - 1)};
  dmap::domain<2> D{dmap::block<2>{}, space};
  dmap::array<double, 2> A(D), B(D);
  dmap::forall(dmap::zip(B, D), [m](double& b, const idx<2>& i) { b = value(i[0] * m + i[1]); });
  // Baseline: the same loop over this locale's part of the interior, by hand on the block.
  const auto& block = A.local_blocks().front();
  const rect<2> mine = D.local_subdomain().intersect(inner);
  std::vector<double> a(static_cast<std::size_t>(D.local_subdomain().size()));
  const double* b = B.local_data();
  const index_t row_length = block.layout.strides[0];
  const auto baseline = [&] {
    if (mine.empty()) return;
    // One band of rows per thread.
    const index_t first = block.layout.offset_of(mine.first()), rows = mine.dim(0).size();
    const auto bands = static_cast<index_t>(dmap::num_threads());
    dmap::detail::locale_arena().execute([&] {
      oneapi::tbb::parallel_for(
          oneapi::tbb::blocked_range<index_t>(0, bands, 1),
          [&](const oneapi::tbb::blocked_range<index_t>& band) {
            for (index_t k = band.begin(); k != band.end(); ++k)
              for (index_t r = rows * k / bands; r < rows * (k + 1) / bands; ++r) {
                const index_t at = first + r * row_length;
                const double* __restrict from = b + at;
                double* __restrict to = a.data() + at;
                for (index_t j = 0; j < mine.dim(1).size(); ++j) to[j] = 2 * from[j] + 1;
              }
          },
          oneapi::tbb::static_partitioner{});
    });
  };
  const auto loop = [&] {
    dmap::forall(dmap::zip(A[inner], dmap::slice(std::as_const(B), inner)),
                 [](double& x, const double& y) { x = 2 * y + 1; });
  };
  const auto counts = counters_of_repeat(loop);
  const auto [td, tb] = median_times(reps, loop, baseline);
  if (!mine.empty()) {
    const index_t first = block.layout.offset_of(mine.first());
    for (index_t r = 0; r < mine.dim(0).size(); ++r)
      if (!std::equal(a.begin() + first + r * row_length, a.begin() + first + r * row_length + mine.dim(1).size(),
                      A.local_data() + first + r * row_length))
        fail("view_forall_interior: results differ");
  }
  line("view_forall_interior", inner.size(), td, tb, counts, 0);
}


void block_to_cyclic_2d(index_t m, int reps) {
  const int me = dmap::here();
  const rect<2> space{range(0, m), range(0, m)};
  const dmap::target_grid<2> grid;
  const int p0 = grid.extent(0), p1 = grid.extent(1);
  const auto c0 = grid.coords_of(me)[0], c1 = grid.coords_of(me)[1];
  dmap::domain<2> DB{dmap::block<2>{grid}, space}, DC{dmap::cyclic<2>{std::nullopt, grid}, space};
  dmap::array<double, 2> B(DB), A(DC);
  dmap::forall(dmap::zip(B, DB), [m](double& b, const idx<2>& i) { b = value(i[0] * m + i[1]); });
  const index_t r0 = cut(m, p0, c0), r1 = cut(m, p0, c0 + 1), k0 = cut(m, p1, c1), k1 = cut(m, p1, c1 + 1);
  const auto count = [m](int parts, int c) { return (m - c + parts - 1) / parts; };
  const index_t my_cols = count(p1, c1);
  std::vector<int> sc(static_cast<std::size_t>(p0 * p1)), rc(static_cast<std::size_t>(p0 * p1));
  for (index_t i = r0; i < r1; ++i)
    for (index_t j = k0; j < k1; ++j) ++sc[static_cast<std::size_t>((i % p0) * p1 + j % p1)];
  for (int q0 = 0; q0 < p0; ++q0)
    for (int q1 = 0; q1 < p1; ++q1) {
      int cnt = 0;
      for (index_t i = cut(m, p0, q0); i < cut(m, p0, q0 + 1); ++i)
        for (index_t j = cut(m, p1, q1); j < cut(m, p1, q1 + 1); ++j) cnt += i % p0 == c0 && j % p1 == c1;
      rc[static_cast<std::size_t>(q0 * p1 + q1)] = cnt;
    }
  sc[static_cast<std::size_t>(me)] = rc[static_cast<std::size_t>(me)] = 0;  // copied locally
  alltoallv x(sc, rc);
  std::vector<double> mine(static_cast<std::size_t>(count(p0, c0) * my_cols));
  const double* b = B.local_data();
  const auto baseline = [&] {
    // Per destination (q0, q1), the strided sub-block of my block congruent to it.
    for (int q0 = 0; q0 < p0; ++q0)
      for (int q1 = 0; q1 < p1; ++q1) {
        const bool self = q0 == c0 && q1 == c1;
        double* out = x.send.data() + x.send_displs[static_cast<std::size_t>(q0 * p1 + q1)];
        const index_t j_first = k0 + ((q1 - k0) % p1 + p1) % p1;
        for (index_t i = r0 + ((q0 - r0) % p0 + p0) % p0; i < r1; i += p0) {
          const double* row = b + (i - r0) * (k1 - k0) - k0;
          if (self) {
            double* dst = mine.data() + (i / p0) * my_cols;
            for (index_t j = j_first; j < k1; j += p1) dst[j / p1] = row[j];
          } else {
            for (index_t j = j_first; j < k1; j += p1) *out++ = row[j];
          }
        }
      }
    x.run();
    for (int q0 = 0; q0 < p0; ++q0)
      for (int q1 = 0; q1 < p1; ++q1) {
        if (q0 == c0 && q1 == c1) continue;
        index_t k = x.recv_displs[static_cast<std::size_t>(q0 * p1 + q1)];
        const index_t a0 = cut(m, p0, q0), a1 = cut(m, p1, q1);
        const index_t i_first = a0 + ((c0 - a0) % p0 + p0) % p0, j_first = a1 + ((c1 - a1) % p1 + p1) % p1;
        for (index_t i = i_first; i < cut(m, p0, q0 + 1); i += p0)
          for (index_t j = j_first; j < cut(m, p1, q1 + 1); j += p1)
            mine[static_cast<std::size_t>((i / p0) * my_cols + j / p1)] = x.recv[static_cast<std::size_t>(k++)];
      }
  };
  const auto assign = [&] { A = B; };
  const auto c = counters_of_repeat(assign);
  const auto [td, tb] = median_times(reps, assign, baseline);
  if (!std::equal(mine.begin(), mine.end(), A.local_data())) fail("block_to_cyclic_2d: results differ");
  line("redistribute_block_to_cyclic_2d", m * m, td, tb, c, min_bytes(DB, DC));

  // Against copies straight into the other ranks' shared-memory arrays.
  shared_destination shm(count(p0, c0) * my_cols);
  const auto direct = [&] {
    shm.run([&] {
      for (int q0 = 0; q0 < p0; ++q0)
        for (int q1 = 0; q1 < p1; ++q1) {
          double* dst = shm.of[static_cast<std::size_t>(q0 * p1 + q1)];
          const index_t cols = count(p1, q1);
          const index_t j_first = k0 + ((q1 - k0) % p1 + p1) % p1;
          for (index_t i = r0 + ((q0 - r0) % p0 + p0) % p0; i < r1; i += p0) {
            const double* row = b + (i - r0) * (k1 - k0) - k0;
            double* out = dst + (i / p0) * cols;
            for (index_t j = j_first; j < k1; j += p1) out[j / p1] = row[j];
          }
        }
    });
  };
  const auto [td2, ts] = median_times(reps, assign, direct);
  if (!std::equal(mine.begin(), mine.end(), shm.mine())) fail("block_to_cyclic_2d: shared-memory baseline differs");
  line("redistribute_block_to_cyclic_2d_vs_shm", m * m, td2, ts, c, min_bytes(DB, DC));
}

void rows_to_cols(index_t m, int reps) {
  const int p = dmap::num_locales(), me = dmap::here();
  const rect<2> space{range(0, m), range(0, m)};
  dmap::domain<2> DR{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, space};
  dmap::domain<2> DK{dmap::block<2>{dmap::target_grid<2>{{1, p}}}, space};
  dmap::array<double, 2> B(DR), A(DK);
  dmap::forall(dmap::zip(B, DR), [m](double& b, const idx<2>& i) { b = value(i[0] * m + i[1]); });
  const index_t r0 = cut(m, p, me), r1 = cut(m, p, me + 1);
  std::vector<int> sc(static_cast<std::size_t>(p)), rc(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) {
    sc[static_cast<std::size_t>(q)] = static_cast<int>((r1 - r0) * (cut(m, p, q + 1) - cut(m, p, q)));
    rc[static_cast<std::size_t>(q)] = static_cast<int>((cut(m, p, q + 1) - cut(m, p, q)) * (r1 - r0));
  }
  sc[static_cast<std::size_t>(me)] = rc[static_cast<std::size_t>(me)] = 0;  // copied locally
  alltoallv x(sc, rc);
  const index_t my_cols = r1 - r0;  // the same cut along both dimensions
  std::vector<double> mine(static_cast<std::size_t>(m * my_cols));
  const double* b = B.local_data();
  const auto baseline = [&] {
    index_t k = 0;
    for (int q = 0; q < p; ++q)
      for (index_t i = r0; i < r1; ++i) {
        const double* row = b + (i - r0) * m;
        if (q == me) {
          std::copy(row + r0, row + r1, mine.data() + i * my_cols);
          continue;
        }
        for (index_t j = cut(m, p, q); j < cut(m, p, q + 1); ++j) x.send[static_cast<std::size_t>(k++)] = row[j];
      }
    x.run();
    k = 0;
    for (int q = 0; q < p; ++q)
      for (index_t i = cut(m, p, q); i < cut(m, p, q + 1) && q != me; ++i) {
        double* row = mine.data() + i * my_cols;
        for (index_t j = 0; j < my_cols; ++j) row[j] = x.recv[static_cast<std::size_t>(k++)];
      }
  };
  const auto assign = [&] { A = B; };
  const auto c = counters_of_repeat(assign);
  const auto [td, tb] = median_times(reps, assign, baseline);
  if (!std::equal(mine.begin(), mine.end(), A.local_data())) fail("rows_to_cols: results differ");
  line("redistribute_rows_to_cols", m * m, td, tb, c, min_bytes(DR, DK));

  // Against copies straight into the other ranks' shared-memory arrays: my rows, cut by
  // their columns.
  shared_destination shm(m * my_cols);
  const auto direct = [&] {
    shm.run([&] {
      for (int q = 0; q < p; ++q) {
        double* dst = shm.of[static_cast<std::size_t>(q)];
        const index_t j0 = cut(m, p, q), j1 = cut(m, p, q + 1);
        for (index_t i = r0; i < r1; ++i) std::memcpy(dst + i * (j1 - j0), b + (i - r0) * m + j0, static_cast<std::size_t>(j1 - j0) * sizeof(double));
      }
    });
  };
  const auto [td2, ts] = median_times(reps, assign, direct);
  if (!std::equal(mine.begin(), mine.end(), shm.mine())) fail("rows_to_cols: shared-memory baseline differs");
  line("redistribute_rows_to_cols_vs_shm", m * m, td2, ts, c, min_bytes(DR, DK));
}

/// A = B between two Block domains of one rect (the maps coincide on every locale): one run
/// per locale, against a std::copy of the local block. Thin rows show the cost per row.
void block_to_block_2d(index_t rows, index_t cols, const std::string& name, int reps) {
  const rect<2> space{range(0, rows), range(0, cols)};
  dmap::domain<2> D1{dmap::block<2>{}, space}, D2{dmap::block<2>{}, space};
  dmap::array<double, 2> A(D1), B(D2);
  dmap::forall(dmap::zip(B, D2), [cols](double& b, const idx<2>& i) { b = value(i[0] * cols + i[1]); });
  const auto local = static_cast<std::size_t>(D2.local_subdomain().size());
  std::vector<double> a(local);
  const double* b = B.local_data();
  const auto baseline = [&] { std::copy(b, b + local, a.data()); };
  const auto assign = [&] { A = B; };
  const auto counts = counters_of_repeat(assign);
  const auto [td, tb] = median_times(reps, assign, baseline);
  if (!std::equal(a.begin(), a.end(), A.local_data())) fail(name + ": results differ");
  line(name, rows * cols, td, tb, counts, 0);
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 9;
  const index_t n = index_t{1} << log2n;
  const index_t m = index_t{1} << (log2n / 2);
  block_to_cyclic_1d(n, reps);
  block_to_cyclic_2d(m, reps);
  rows_to_cols(m, reps);
  misaligned_triad(n, reps);
  slice_shift_1d(n, reps);
  view_forall_interior(m, reps);
  block_to_block_2d(m, m, "block_to_block_2d", reps);
  block_to_block_2d(n / 8, 8, "block_to_block_thin", reps);
  return 0;
}
