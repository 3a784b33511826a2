// STREAM-style benchmark: triad `forall(zip(A, B, C), a = b + s*c)` and dot product
// `reduce(zip(A, B))` over Block arrays, each against a hand-written oneTBB loop over plain
// arrays of the same local size (and MPI_Allreduce for the dot product) in the same run.
// The plain arrays are the very memory the dmap arrays store locally (raw pointers): on
// this machine where an array lands in memory moves bandwidth by about 5% (whichever set is
// allocated first is slower), which would otherwise swamp the difference being measured.
//   mpirun -n P --bind-to none ./bench_stream [log2_elements=25] [repetitions=15]
#include <dmap/dmap.hpp>
#include <dmap/runtime/detail/thread_pool.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Times `f` on every locale, synchronised; the slowest locale's time counts.
template <class F>
double timed(F&& f) {
  dmap::barrier();
  const auto t0 = clock_type::now();
  f();
  return dmap::all_reduce_max(seconds_since(t0));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The hand-written baseline: plain arrays of the local size, oneTBB loops split statically
// into one contiguous range per thread, MPI_Allreduce for the global sum.
struct baseline {
  std::size_t n;
  double* a;
  double* b;
  double* c;

  template <class F>
  void run(F&& f) {
    dmap::detail::locale_arena().execute([&] {
      oneapi::tbb::parallel_for(
          oneapi::tbb::blocked_range<std::size_t>(0, n, std::max<std::size_t>(1, n / dmap::num_threads())),
          [&](const oneapi::tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); },
          oneapi::tbb::static_partitioner{});
    });
  }
  void triad(double s) {
    double* __restrict pa = a;
    const double* __restrict pb = b;
    const double* __restrict pc = c;
    run([&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) pa[i] = pb[i] + s * pc[i];
    });
  }
  double dot() {
    std::vector<double> partial(static_cast<std::size_t>(dmap::num_threads()) + 1, 0.0);
    std::vector<char> used(partial.size(), 0);
    const std::size_t grain = std::max<std::size_t>(1, n / dmap::num_threads());
    run([&](std::size_t lo, std::size_t hi) {
      partial[lo / grain] = std::transform_reduce(a + lo, a + hi, b + lo, 0.0);
    });
    double local = std::accumulate(partial.begin(), partial.end(), 0.0);
    double global = 0.0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
  }
};

void report(const char* name, dmap::index_t n, double dmap_rate, double base_rate,
            const dmap::comm_counters& c) {
  if (dmap::here() != 0) return;
  std::printf("bench %s ranks=%d threads=%d n=%lld dmap=%.2f baseline=%.2f unit=GB/s ratio=%.3f "
              "msgs=%llu bytes=%llu min_bytes=0\n",
              name, dmap::num_locales(), dmap::num_threads(), static_cast<long long>(n), dmap_rate,
              base_rate, dmap_rate / base_rate, static_cast<unsigned long long>(c.messages_sent),
              static_cast<unsigned long long>(c.bytes_sent));
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 25;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 15;
  const dmap::index_t n = dmap::index_t{1} << log2n;
  const double s = 3.0;

  dmap::domain D{dmap::block<1>{}, dmap::rect<1>{dmap::range{0, n}}};
  dmap::array<double, 1> A{D, 0.0}, B{D, 1.0}, C{D, 2.0};
  baseline base{static_cast<std::size_t>(A.local_size()), A.local_blocks().front().data(),
                B.local_blocks().front().data(), C.local_blocks().front().data()};

  std::vector<double> t_dmap, t_base;
  dmap::comm_counters triad_counters{};
  for (int r = 0; r <= reps; ++r) {  // repetition 0 warms up
    dmap::reset_counters();
    const double td = timed([&] {
      dmap::forall(dmap::zip(A, std::as_const(B), std::as_const(C)),
                   [s](double& a, const double& b, const double& c) { a = b + s * c; });
    });
    if (r == 1) triad_counters = dmap::counters();
    const double tb = timed([&] { base.triad(s); });
    if (r > 0) t_dmap.push_back(td), t_base.push_back(tb);
  }
  const double triad_bytes = 3.0 * sizeof(double) * static_cast<double>(n);
  report("stream_triad", n, triad_bytes / median(t_dmap) / 1e9, triad_bytes / median(t_base) / 1e9,
         triad_counters);

  t_dmap.clear(), t_base.clear();
  dmap::comm_counters dot_counters{};
  double check_dmap = 0, check_base = 0;
  for (int r = 0; r <= reps; ++r) {
    dmap::reset_counters();
    const double td = timed([&] {
      check_dmap = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{},
                                [](double a, double b) { return a * b; });
    });
    if (r == 1) dot_counters = dmap::counters();
    const double tb = timed([&] { check_base = base.dot(); });
    if (r > 0) t_dmap.push_back(td), t_base.push_back(tb);
  }
  const double dot_bytes = 2.0 * sizeof(double) * static_cast<double>(n);
  report("stream_dot", n, dot_bytes / median(t_dmap) / 1e9, dot_bytes / median(t_base) / 1e9,
         dot_counters);

  const double expected = 7.0 * static_cast<double>(n);  // a = 1 + 3*2 = 7, b = 1
  if (check_dmap != expected || check_base != expected) {
    std::fprintf(stderr, "bench_stream: wrong dot product on locale %d: dmap %.17g baseline %.17g expected %.17g\n",
                 dmap::here(), check_dmap, check_base, expected);
    return 1;
  }
  return 0;
}
