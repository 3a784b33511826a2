// The C++ side of bench/python/bench_python.py: the dmap calls that script times from Python,
// made here from C++ with the same arguments, on the same arrays, in the same order:
//   redistribute   C = B with B over Block and C over Cyclic, n doubles (Python: C[...] = B)
//   reduce         dmap::reduce(B, 0.0, std::plus<>{}, identity), n doubles (Python: B.sum(), which
//                  the module runs as exactly this call)
//   triad          A = B + 0.5 * T over one Block domain, one forall over zip(A, B, T) (Python:
//                  A[...] = B + 0.5 * T, dmap's element-wise operations, NumPy's loops per block)
//   sum_axis0      dmap::partial_reduce<0>(M, S, 0.0): the column sums of an R x K Block array
//                  (R = 2^ceil(log2_n/2), K = n/R) into a Block array of K (Python: M.sum(axis=0))
//   transpose      MT = dmap::transpose(M): the transposed copy into a K x R Block array
//                  (Python: MT[...] = M.T)
//   stencil        one 5-point Jacobi sweep of an R x K Stencil grid and its halo update
//                  (Python: NumPy on the local frames, dmap.update_halos)
// Each is timed `repetitions` times after a warm-up, synchronised, by the slowest locale
// (bench::timed). Prints, on locale 0, one machine-readable line per case for the driver,
//   time <case> ranks=<P> threads=<T> n=<n> msgs=<sent by locale 0> bytes=<...> node_bytes=<...>
//        min_bytes=<...> check=<a checksum> seconds=<t1,t2,...>
// (msgs/bytes: dmap's counters of one run after a first one, node_bytes: what locale 0 copied
// straight into node peers' memory instead of sending it; min_bytes: what locale 0 must send).
// bench_python.py runs this program and the Python calls alternately and prints the
// `bench ...` lines (docs/design.md section 10).
//   mpirun -n P --bind-to none ./bench_python_baseline [log2_n=24] [repetitions=9]
#include <dmap/dmap.hpp>

#include "timing.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

using dmap::idx;
using dmap::index_t;

/// The values both sides fill B with: 0.25 + i mod 1000003 (exact in double, so every sum
/// order gives the same checksum to a few ulps).
double value(index_t i) { return 0.25 + static_cast<double>(i % 1000003); }

void report(const char* name, index_t n, const std::vector<double>& t, const dmap::comm_counters& c,
            unsigned long long min_bytes, double check) {
  if (dmap::here() != 0) return;
  std::string list;
  for (double s : t) {
    if (!list.empty()) list += ',';
    list += std::to_string(s);
  }
  std::printf("time %s ranks=%d threads=%d n=%lld msgs=%llu bytes=%llu node_bytes=%llu min_bytes=%llu check=%.17g "
              "seconds=%s\n",
              name, dmap::num_locales(), dmap::num_threads(), static_cast<long long>(n),
              static_cast<unsigned long long>(c.messages_sent), static_cast<unsigned long long>(c.bytes_sent),
              static_cast<unsigned long long>(c.node_bytes), min_bytes, check, list.c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 9;
  if (log2n < 1 || log2n > 34 || reps < 1) {
    if (dmap::here() == 0) std::fprintf(stderr, "usage: bench_python_baseline [log2_n=24] [repetitions=9]\n");
    return 2;
  }
  const index_t n = index_t{1} << log2n;
  const dmap::rect<1> space{dmap::range(0, n)};
  dmap::domain<1> DB{dmap::block<1>{}, space}, DC{dmap::cyclic<1>{}, space};
  dmap::array<double, 1> B(DB), C(DC);
  dmap::forall(dmap::zip(B, DB), [](double& b, const idx<1>& i) { b = value(i[0]); });

  const int p = dmap::num_locales();
  // Locale 0 holds Block's first n/p-ish indices; Cyclic keeps those = 0 mod p there.
  unsigned long long min_redistribute = 0;
  for (const auto& r : DB.local_subdomains())
    for (index_t i = r.dim(0).first(); i <= r.dim(0).last(); ++i) min_redistribute += DC.locale_of(idx<1>{i}) != 0;
  min_redistribute *= sizeof(double);

  const auto times = [reps](auto&& f) {
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) {
      const double s = bench::timed(f);
      if (r > 0) t.push_back(s);
    }
    return t;
  };

  // What the module's C[...] = B runs (typed_array::assign: x = y on the two arrays).
  const auto redistribute = [&] { C = B; };
  const auto c1 = bench::counters_of_repeat(redistribute);
  const auto t1 = times(redistribute);
  // The checksum of the redistributed array: sum of C (Cyclic), the same call as below.
  const auto widen = [](const double& v) { return static_cast<double>(v); };  // the module's widen for float64
  const double check1 = dmap::reduce(C, 0.0, std::plus<>{}, widen);
  report("redistribute", n, t1, c1, dmap::here() == 0 ? min_redistribute : 0, check1);

  // What the module's B.sum() runs (typed_array::reduce, reduction::sum).
  double sum = 0;
  const auto reduce = [&] { sum = dmap::reduce(B, 0.0, std::plus<>{}, widen); };
  const auto c2 = bench::counters_of_repeat(reduce);
  const auto t2 = times(reduce);
  // A reduction's result must leave locale 0 once at least (8 bytes) when there are others.
  report("reduce", n, t2, c2, p > 1 ? sizeof(double) : 0, sum);

  // What a C++ user writes for the triad A = B + alpha * T over one Block domain (T[i] = i mod 7),
  // against the module's element-wise operations on the same arrays: one loop, no temporary.
  dmap::array<double, 1> A(DB), T(DB);
  dmap::forall(dmap::zip(T, DB), [](double& t, const idx<1>& i) { t = static_cast<double>(i[0] % 7); });
  constexpr double alpha = 0.5;
  const auto triad = [&] { dmap::forall(dmap::zip(A, B, T), [](double& a, const double& b, const double& t) { a = b + alpha * t; }); };
  const auto c3 = bench::counters_of_repeat(triad);
  const auto t3 = times(triad);
  report("triad", n, t3, c3, 0, dmap::reduce(A, 0.0, std::plus<>{}, widen));

  // Column sums of an R x K array over Block (R = 2^ceil(log2n/2), K = n / R, M[i, j] = value(i*K + j)):
  // what a C++ user writes (dmap::partial_reduce into a Block array of K), against Python's
  // M.sum(axis=0) (NumPy per block, the partial results sent to the owners).
  const index_t rows = index_t{1} << ((log2n + 1) / 2), cols = n / rows;
  dmap::domain<2> DM{dmap::block<2>{}, dmap::rect<2>{dmap::range(0, rows), dmap::range(0, cols)}};
  dmap::domain<1> DS{dmap::block<1>{}, dmap::rect<1>{dmap::range(0, cols)}};
  dmap::array<double, 2> M(DM);
  dmap::array<double, 1> S(DS);
  dmap::forall(dmap::zip(M, DM), [cols](double& m, const idx<2>& i) { m = value(i[0] * cols + i[1]); });
  const auto column_sums = [&] { dmap::partial_reduce<0>(M, S, 0.0); };
  const auto c4 = bench::counters_of_repeat(column_sums);
  const auto t4 = times(column_sums);
  report("sum_axis0", n, t4, c4, 0, dmap::reduce(S, 0.0, std::plus<>{}, widen));

  // The transposed copy B = M^T between two Block arrays (K x R from R x K): Python's
  // B[...] = M.T. The checksum weights each element by its row (mod 7) + 1, so that a copy
  // that is not transposed does not pass.
  dmap::domain<2> DT{dmap::block<2>{}, dmap::rect<2>{dmap::range(0, cols), dmap::range(0, rows)}};
  dmap::array<double, 2> MT(DT);
  const auto transposed_copy = [&] { MT = dmap::transpose(M); };
  const auto c5 = bench::counters_of_repeat(transposed_copy);
  const auto t5 = times(transposed_copy);
  const double check5 = dmap::reduce(dmap::zip(MT, DT), 0.0, std::plus<>{}, [](const double& b, const idx<2>& i) {
    return b * static_cast<double>(i[0] % 7 + 1);
  });
  report("transpose", n, t5, c5, 0, check5);

  // One 5-point sweep of an R x K grid over Stencil (one ghost layer, zero outside the grid):
  // W = 0.25 * (U(-1,0) + U(1,0) + U(0,-1) + U(0,1)), W's ghost cells refreshed, U and W swapped,
  // as the heat example does. U starts at 0.25 + (i*K + j) mod 7. Python runs the same sweeps
  // with NumPy on the local frames (examples/python/heat.py's form).
  dmap::domain<2> DG{dmap::stencil<2>{idx<2>{1, 1}}, dmap::rect<2>{dmap::range(0, rows), dmap::range(0, cols)}};
  dmap::array<double, 2> U(DG), W(DG);
  dmap::forall(dmap::zip(U, DG), [cols](double& u, const idx<2>& i) {
    u = 0.25 + static_cast<double>((i[0] * cols + i[1]) % 7);
  });
  dmap::update_halos(U);
  const auto sweep = [&] {
    dmap::forall(dmap::zip(W, dmap::neighbors(std::as_const(U), 1)), [](double& w, const auto& u) {
      w = 0.25 * (u(-1, 0) + u(1, 0) + u(0, -1) + u(0, 1));
    });
    dmap::update_halos(W);
    std::swap(U, W);
  };
  const auto c6 = bench::counters_of_repeat(sweep);  // two sweeps: the counters' first run and the measured one
  const auto t6 = times(sweep);
  report("stencil", n, t6, c6, 0, dmap::reduce(U, 0.0, std::plus<>{}, widen));
  return 0;
}
