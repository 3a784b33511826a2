// The reference translation unit of bench_compile_quickstart: what a program that uses MPI,
// oneTBB and range-v3 directly costs the compiler (a parallel fill, a zip, a reduction and an
// all-reduce over a vector). Compiled by the benchmark with the same command as the README's
// quickstart; never built into a program (hence .cc: the benchmark glob takes *.cpp).
#include <mpi.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <range/v3/all.hpp>

#include <functional>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long n = 48;
  std::vector<double> a(n), b(n);
  tbb::parallel_for(tbb::blocked_range<long>(0, n), [&](const tbb::blocked_range<long>& r) {
    for (long i = r.begin(); i < r.end(); ++i) a[i] = static_cast<double>(i + rank);
  });
  auto twice = ranges::views::zip(a, b) | ranges::views::transform([](auto p) { return 2 * std::get<0>(p); });
  const double sum = tbb::parallel_reduce(
      tbb::blocked_range<long>(0, n), 0.0,
      [&](const tbb::blocked_range<long>& r, double v) {
        for (long i = r.begin(); i < r.end(); ++i) v += a[i];
        return v;
      },
      std::plus<>{});
  const double local = sum + ranges::accumulate(twice, 0.0);
  double total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::cout << total << "\n";
  MPI_Finalize();
}
