// A 2-D complex FFT, forward and back, as examples/fft2d computes it (FFTW's 1-D transforms on
// each locale's rows, dmap::transpose between them) against FFTW's own MPI transform in the same
// run: fftw_mpi_plan_dft_2d with FFTW_MPI_TRANSPOSED_OUT forward and FFTW_MPI_TRANSPOSED_IN back,
// the same layouts as the example's. Both sides plan with FFTW_MEASURE. Also the out-of-place
// transpose alone: `at = dmap::transpose(a)` against fftw_mpi_plan_many_transpose (two doubles
// per element). Each side's forward result is checked against the other's.
//   mpirun -n P --bind-to none ./bench_fft2d [n=4096] [reps=7]
// Built only with Open MPI: Debian's libfftw3-mpi is built for it.
#include "../examples/fft2d/fft2d.hpp"
#include "timing.hpp"

#include <fftw3-mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

using dmap::idx;
using dmap::index_t;
using fft2d::complex;

/// An order-sensitive checksum of element (r, c) = v, summed over all locales by the caller.
double weight(const complex& v, index_t r, index_t c) {
  return (v.real() + 2 * v.imag()) * static_cast<double>((r * 7 + c) % 13 + 1);
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  fftw_mpi_init();
  const index_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 7;
  if (n < 2 || reps < 1) {
    if (dmap::here() == 0) std::fprintf(stderr, "bench_fft2d: n must be at least 2, reps at least 1\n");
    return 2;
  }

  // dmap: the example's transform over two row-distributed n x n matrices.
  auto rows = fft2d::rows_domain(n, n), columns = fft2d::rows_domain(n, n);
  fft2d::matrix a(rows), at(columns);
  fft2d::transform fft(a, at, FFTW_MEASURE);
  const auto fill = [&] { dmap::forall(dmap::zip(a, rows), [](complex& v, const idx<2>& i) { v = fft2d::sample_value(i[0], i[1]); }); };
  fill();

  // FFTW's MPI transform: its own row blocks, in place, transposed out and in.
  ptrdiff_t local_n0 = 0, local_0_start = 0, local_n1 = 0, local_1_start = 0;
  const ptrdiff_t count = fftw_mpi_local_size_2d_transposed(n, n, MPI_COMM_WORLD, &local_n0, &local_0_start,
                                                             &local_n1, &local_1_start);
  fftw_complex* data = fftw_alloc_complex(static_cast<std::size_t>(std::max<ptrdiff_t>(count, 1)));
  fftw_plan forward = fftw_mpi_plan_dft_2d(n, n, data, data, MPI_COMM_WORLD, FFTW_FORWARD,
                                           FFTW_MEASURE | FFTW_MPI_TRANSPOSED_OUT);
  fftw_plan backward = fftw_mpi_plan_dft_2d(n, n, data, data, MPI_COMM_WORLD, FFTW_BACKWARD,
                                            FFTW_MEASURE | FFTW_MPI_TRANSPOSED_IN);
  auto* values = reinterpret_cast<complex*>(data);
  for (ptrdiff_t r = 0; r < local_n0; ++r)
    for (index_t c = 0; c < n; ++c) values[r * n + c] = fft2d::sample_value(local_0_start + r, c);

  // The forward results must agree: both are the transposed transform.
  fft.forward();
  fftw_execute(forward);
  const double dmap_check = dmap::reduce(dmap::zip(at, columns), 0.0, std::plus<>{},
                                         [](const complex& v, const idx<2>& i) { return weight(v, i[0], i[1]); });
  double local = 0;
  for (ptrdiff_t r = 0; r < local_n1; ++r)
    for (index_t c = 0; c < n; ++c) local += weight(values[r * n + c], local_1_start + r, c);
  const double fftw_check = dmap::all_reduce_sum(local);
  if (std::abs(dmap_check - fftw_check) > 1e-9 * std::abs(fftw_check) + 1e-6) {
    if (dmap::here() == 0) std::fprintf(stderr, "bench_fft2d: checksums differ: dmap %.17g, FFTW %.17g\n", dmap_check, fftw_check);
    return 1;
  }
  fft.backward();
  fftw_execute(backward);

  // A round trip (forward, back) per timing; the values grow by n^2 per trip, which does not
  // change the time of a transform.
  const auto dmap_round_trip = [&] {
    fft.forward();
    fft.backward();
  };
  const auto fftw_round_trip = [&] {
    fftw_execute(forward);
    fftw_execute(backward);
  };
  fill();
  const auto c1 = bench::counters_of_repeat(dmap_round_trip);
  fill();
  const auto [t_dmap, t_fftw] = bench::median_times(reps, dmap_round_trip, fftw_round_trip);
  // What this locale must send per transpose (printed for locale 0, the bench lines'
  // convention): its rows of a but the columns it keeps as its rows of at.
  const auto local_rows = [](const fft2d::matrix& x) { return x.local_blocks().empty() ? index_t{0} : x.local_blocks()[0].span().extent(0); };
  const auto moved = static_cast<std::uint64_t>(local_rows(a) * (n - local_rows(at)) * static_cast<index_t>(sizeof(complex)));
  bench::print_seconds("fft2d_round_trip_vs_fftw_mpi", n * n, t_dmap, t_fftw, c1, 2 * moved);

  // The transpose alone, out of place: dmap's assignment against FFTW's transpose plan.
  double* from = fftw_alloc_real(static_cast<std::size_t>(std::max<ptrdiff_t>(2 * count, 1)));
  double* to = fftw_alloc_real(static_cast<std::size_t>(std::max<ptrdiff_t>(2 * count, 1)));
  fftw_plan transpose = fftw_mpi_plan_many_transpose(n, n, 2, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, from, to,
                                                     MPI_COMM_WORLD, FFTW_MEASURE);
  for (ptrdiff_t k = 0; k < 2 * local_n0 * n; ++k) from[k] = static_cast<double>(k % 101);
  fill();
  const auto dmap_transpose = [&] { at = dmap::transpose(a); };
  const auto fftw_transpose = [&] { fftw_execute(transpose); };
  const auto c2 = bench::counters_of_repeat(dmap_transpose);
  const auto [t2_dmap, t2_fftw] = bench::median_times(reps, dmap_transpose, fftw_transpose);
  bench::print_seconds("fft2d_transpose_vs_fftw_mpi", n * n, t2_dmap, t2_fftw, c2, moved);

  fftw_destroy_plan(transpose);
  fftw_destroy_plan(backward);
  fftw_destroy_plan(forward);
  fftw_free(to);
  fftw_free(from);
  fftw_free(data);
  fftw_mpi_cleanup();
  return 0;
}
