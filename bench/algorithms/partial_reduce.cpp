// bench_algorithms partial_reduce [n] [reps] [rows|cols|both]: row sums and column sums of an
// n x n Block array (the default 2-D grid) into a 1-D Block array, dmap::partial_reduce against
// a hand-written MPI + oneTBB version: each rank sums its block's rows (or columns) in
// parallel, then MPI_Alltoallv sends each partial sum to the rank owning that index of the
// output, which adds the contributions in rank order.
#include <dmap/dmap.hpp>
#include <dmap/runtime/detail/thread_pool.hpp>

#include <mpi.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../timing.hpp"
#include "cases.hpp"

namespace {

/// Block's cut: part k of p of [0, n).
std::int64_t cut(std::int64_t n, int k, int p) { return (n * k + p - 1) / p; }

double value_at(std::int64_t i, std::int64_t j) { return static_cast<double>((i * 7 + j * 3) % 11); }

/// One case: row sums (dimension 1 reduced) or column sums (dimension 0 reduced).
int run_one(std::int64_t n, int reps, bool by_rows) {
  const int p = dmap::num_locales(), me = dmap::here();

  // dmap.
  const dmap::rect<2> space{dmap::range(0, n), dmap::range(0, n)};
  dmap::domain<2> D{dmap::block<2>{}, space};
  dmap::array<double, 2> A{D};
  dmap::forall(dmap::zip(D, A), [](const dmap::idx<2>& i, double& a) { a = value_at(i[0], i[1]); });
  dmap::domain<1> R{dmap::block<1>{}, dmap::rect<1>{dmap::range(0, n)}};
  dmap::array<double, 1> sums{R};
  const auto with_dmap = [&] {
    if (by_rows) dmap::partial_reduce<1>(A, sums, 0.0);
    else dmap::partial_reduce<0>(A, sums, 0.0);
  };

  // Hand-written: the same 2-D block decomposition (MPI_Dims_create, C order), its own buffer.
  int dims[2] = {0, 0};
  MPI_Dims_create(p, 2, dims);
  const int pr = dims[0], pc = dims[1], gr = me / pc, gc = me % pc;
  const std::int64_t r0 = cut(n, gr, pr), r1 = cut(n, gr + 1, pr), c0 = cut(n, gc, pc), c1 = cut(n, gc + 1, pc);
  const std::int64_t rows = r1 - r0, cols = c1 - c0;
  std::vector<double> local(static_cast<std::size_t>(rows * cols));
  oneapi::tbb::parallel_for(std::int64_t{0}, rows, [&](std::int64_t i) {
    for (std::int64_t j = 0; j < cols; ++j) local[static_cast<std::size_t>(i * cols + j)] = value_at(r0 + i, c0 + j);
  });
  // The kept indices of locale q's block: its rows or its columns.
  const auto kept_of = [&](int q) {
    return by_rows ? std::pair{cut(n, q / pc, pr), cut(n, q / pc + 1, pr)}
                   : std::pair{cut(n, q % pc, pc), cut(n, q % pc + 1, pc)};
  };
  const auto [k0, k1] = kept_of(me);
  const std::int64_t o0 = cut(n, me, p), o1 = cut(n, me + 1, p);
  std::vector<double> partial(static_cast<std::size_t>(k1 - k0)), result(static_cast<std::size_t>(o1 - o0));
  std::vector<int> send_counts(p), send_displs(p), recv_counts(p), recv_displs(p);
  for (int q = 0; q < p; ++q) {
    send_counts[q] = static_cast<int>(std::max<std::int64_t>(0, std::min(k1, cut(n, q + 1, p)) - std::max(k0, cut(n, q, p))));
    send_displs[q] = static_cast<int>(std::max<std::int64_t>(0, std::max(k0, cut(n, q, p)) - k0));
    const auto [s0, s1] = kept_of(q);
    recv_counts[q] = static_cast<int>(std::max<std::int64_t>(0, std::min(s1, o1) - std::max(s0, o0)));
  }
  for (int q = 1; q < p; ++q) recv_displs[q] = recv_displs[q - 1] + recv_counts[q - 1];
  std::vector<double> received(static_cast<std::size_t>(recv_displs[p - 1] + recv_counts[p - 1]));
  const auto by_hand = [&] {
    // In this locale's arena, so the baseline has dmap's thread count.
    dmap::detail::locale_arena().execute([&] {
      if (by_rows) {
        oneapi::tbb::parallel_for(oneapi::tbb::blocked_range<std::int64_t>(0, rows), [&](const auto& b) {
          for (std::int64_t i = b.begin(); i < b.end(); ++i) {
            const double* row = local.data() + i * cols;
            // Four independent sums, so the compiler vectorises the row (as dmap's reduce does).
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            std::int64_t j = 0;
            for (; j + 4 <= cols; j += 4) s0 += row[j], s1 += row[j + 1], s2 += row[j + 2], s3 += row[j + 3];
            for (; j < cols; ++j) s0 += row[j];
            partial[static_cast<std::size_t>(i)] = (s0 + s1) + (s2 + s3);
          }
        });
      } else {
        // One band of columns per thread, each summed down all rows (unit-stride, vectorised).
        const std::int64_t grain = std::max<std::int64_t>(1, cols / dmap::num_threads());
        oneapi::tbb::parallel_for(
            oneapi::tbb::blocked_range<std::int64_t>(0, cols, grain),
            [&](const auto& b) {
              double* acc = partial.data();
              for (std::int64_t j = b.begin(); j < b.end(); ++j) acc[j] = 0;
              for (std::int64_t i = 0; i < rows; ++i) {
                const double* row = local.data() + i * cols;
                for (std::int64_t j = b.begin(); j < b.end(); ++j) acc[j] += row[j];
              }
            },
            oneapi::tbb::static_partitioner{});
      }
    });
    MPI_Alltoallv(partial.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE, received.data(),
                  recv_counts.data(), recv_displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
    std::fill(result.begin(), result.end(), 0.0);
    for (int q = 0; q < p; ++q) {
      const std::int64_t first = std::max(kept_of(q).first, o0);
      for (int k = 0; k < recv_counts[q]; ++k)
        result[static_cast<std::size_t>(first - o0 + k)] += received[static_cast<std::size_t>(recv_displs[q] + k)];
    }
  };

  const auto counters = bench::counters_of_repeat(with_dmap);
  by_hand();
  const auto [t_dmap, t_base] = bench::median_times(reps, with_dmap, by_hand);
  // Check: dmap's sums equal the baseline's (integer-valued, exact), on every locale.
  bool ok = true;
  for (std::int64_t i = o0; i < o1; ++i) ok = ok && sums.local(dmap::idx<1>{i}) == result[static_cast<std::size_t>(i - o0)];
  ok = dmap::all_of_locales(ok);
  // The least rank 0 must send: one partial sum for each of its kept indices owned elsewhere.
  const auto min_bytes = static_cast<std::uint64_t>((k1 - k0 - send_counts[me]) * 8);
  bench::print_seconds(by_rows ? "partial_reduce_rows" : "partial_reduce_cols", n * n, t_dmap, t_base, counters,
                       min_bytes);
  if (!ok && me == 0) std::fprintf(stderr, "partial_reduce: dmap's sums differ from the baseline's\n");
  return ok ? 0 : 1;
}

int run(const std::vector<std::string>& args) {
  const std::int64_t n = args.size() > 0 ? std::stoll(args[0]) : 4096;
  const int reps = args.size() > 1 ? std::stoi(args[1]) : 5;
  const std::string which = args.size() > 2 ? args[2] : "both";
  int status = 0;
  if (which != "cols") status |= run_one(n, reps, true);
  if (which != "rows") status |= run_one(n, reps, false);
  return status;
}

const bench::algorithms::registrar reg{{"partial_reduce", "[n=4096] [reps=5] [rows|cols|both]", run}};

}  // namespace
