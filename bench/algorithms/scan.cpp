// Case "scan": dmap::inclusive_scan of a Block 1-D array of 2^k doubles into another, against
// the hand-written scan a user would write over each rank's contiguous chunk: oneTBB pass 1
// (std::reduce per thread chunk), MPI_Exscan of the rank totals, oneTBB pass 2
// (std::inclusive_scan per thread chunk from its offset). Target: ratio >= 0.9.
// Case "scan_block2d": the same over a 2-D Block array on the default grid (2x2 at 4 ranks),
// whose locales own one stretch of positions per row of their block: dmap scans them where
// they are (one all-gather of the stretches' totals); the baseline is the 1-D hand-written
// scan of the same number of elements. Target: ratio >= 0.95.
//   mpirun -n 4 bench_algorithms scan [log2_n=25] [reps=7]
//   mpirun -n 4 bench_algorithms scan_block2d [log2_n=24] [reps=5]
#include <dmap/dmap.hpp>
#include <dmap/runtime/detail/thread_pool.hpp>

#include <mpi.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "../timing.hpp"
#include "cases.hpp"

namespace {

/// Integer-valued doubles: every grouping of their sums is exact.
double value_at(std::int64_t k) { return static_cast<double>(k % 7 - 3); }

/// The hand-written scan of `in` into `out` (this rank's `n` elements, in rank order).
struct baseline_scan {
  std::vector<double> in, out;
  std::vector<double> totals;
  int threads = 1;

  explicit baseline_scan(std::size_t n, std::int64_t first) : in(n), out(n) {
    threads = dmap::num_threads();
    totals.assign(static_cast<std::size_t>(threads), 0.0);
    each([&](int, std::size_t lo, std::size_t hi) {  // first touch by the threads that scan
      for (std::size_t i = lo; i < hi; ++i) in[i] = value_at(first + static_cast<std::int64_t>(i)), out[i] = 0;
    });
  }
  template <class F>
  void each(F&& f) {
    const std::size_t n = in.size();
    dmap::detail::locale_arena().execute([&] {
      oneapi::tbb::parallel_for(
          oneapi::tbb::blocked_range<int>(0, threads, 1),
          [&](const oneapi::tbb::blocked_range<int>& r) {
            for (int t = r.begin(); t != r.end(); ++t)
              f(t, n * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads),
                n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads));
          },
          oneapi::tbb::static_partitioner{});
    });
  }
  double run() {
    const double* __restrict src = in.data();
    double* __restrict dst = out.data();
    each([&](int t, std::size_t lo, std::size_t hi) { totals[static_cast<std::size_t>(t)] = std::reduce(src + lo, src + hi, 0.0); });
    const double mine = std::accumulate(totals.begin(), totals.end(), 0.0);
    double before = 0.0, all = 0.0;
    MPI_Exscan(&mine, &before, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (dmap::here() == 0) before = 0.0;  // MPI_Exscan leaves rank 0's result undefined
    std::vector<double> offsets(totals.size());
    for (std::size_t t = 0; t < totals.size(); ++t) offsets[t] = before, before += totals[t];
    each([&](int t, std::size_t lo, std::size_t hi) {
      std::inclusive_scan(src + lo, src + hi, dst + lo, std::plus<>{}, offsets[static_cast<std::size_t>(t)]);
    });
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all;
  }
};

template <std::size_t N>
int run_case(const char* name, const dmap::domain<N>& D, int reps) {
  const std::int64_t n = D.indices().size();
  const auto& whole = D.indices();
  dmap::array<double, N> A(D), B(D);
  dmap::forall(dmap::zip(D, A), [&](const dmap::idx<N>& i, double& a) { a = value_at(whole.order_of(i)); });
  // The baseline: this rank's equal share of the row-major positions.
  const std::int64_t p = dmap::num_locales(), q = dmap::here();
  const std::int64_t first = n * q / p, last = n * (q + 1) / p;
  baseline_scan base(static_cast<std::size_t>(last - first), first);
  double dmap_total = 0, base_total = 0;
  const auto [dmap_s, base_s] =
      bench::median_times(reps, [&] { dmap_total = dmap::inclusive_scan(A, B); }, [&] { base_total = base.run(); });
  const auto counters = bench::counters_of_repeat([&] { (void)dmap::inclusive_scan(A, B); });
  // Check: the totals, and dmap's output at the baseline's positions (fetched one-sidedly).
  std::vector<double> got(static_cast<std::size_t>(last - first));
  if (!got.empty()) B.fetch(first, last - first, got.data());
  const bool ok = dmap::all_of_locales(got == base.out && dmap_total == base_total);
  bench::print_seconds(name, n, dmap_s, base_s, counters, 0);
  if (!ok && dmap::here() == 0) std::fprintf(stderr, "%s: dmap's scan differs from the baseline's\n", name);
  return ok ? 0 : 1;
}

int arg(const std::vector<std::string>& args, std::size_t k, int fallback) {
  return args.size() > k ? std::stoi(args[k]) : fallback;
}

int run_scan(const std::vector<std::string>& args) {
  const int log2n = arg(args, 0, 25), reps = arg(args, 1, 7);
  const dmap::domain<1> D(dmap::block<1>{}, dmap::rect<1>{dmap::range(0, std::int64_t{1} << log2n)});
  return run_case("scan", D, reps);
}

int run_scan_block2d(const std::vector<std::string>& args) {
  const int log2n = arg(args, 0, 24), reps = arg(args, 1, 5);
  const std::int64_t rows = std::int64_t{1} << (log2n / 2), cols = std::int64_t{1} << (log2n - log2n / 2);
  const dmap::domain<2> D(dmap::block<2>{}, dmap::rect<2>{dmap::range(0, rows), dmap::range(0, cols)});
  return run_case("scan_block2d", D, reps);
}

const bench::algorithms::registrar reg_scan{{"scan", "[log2_n=25] [reps=7]", run_scan}};
const bench::algorithms::registrar reg_scan_2d{{"scan_block2d", "[log2_n=24] [reps=5]", run_scan_block2d}};

}  // namespace
