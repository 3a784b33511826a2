// A 2-D complex FFT of an n0 x n1 matrix over all locales (fft2d.hpp: FFTW's 1-D transforms on
// each locale's rows, dmap::transpose between them), checked against FFTW's serial 2-D
// transform of the same matrix, then transformed back and checked against the start.
// Run as one locale (./fft2d [n0 n1]) or under mpirun -n P; exits non-zero on a mismatch.
#include "fft2d.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using dmap::idx;
using dmap::index_t;
using fft2d::complex;

complex start_value(const idx<2>& i) { return fft2d::sample_value(i[0], i[1]); }

/// The largest |x(i) - want(i)| over the elements of x (collective).
template <class F>
double largest_error(const fft2d::matrix& x, F&& want) {
  return dmap::reduce(dmap::zip(x, x.domain()), 0.0, [](double a, double b) { return std::max(a, b); },
                      [&](const complex& v, const idx<2>& i) { return std::abs(v - want(i)); });
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const index_t n0 = argc > 2 ? std::atoll(argv[1]) : 256, n1 = argc > 2 ? std::atoll(argv[2]) : 200;
  if (n0 < 1 || n1 < 1) {
    if (dmap::here() == 0) std::fprintf(stderr, "fft2d: n0 and n1 must be at least 1\n");
    return 2;
  }
  auto rows = fft2d::rows_domain(n0, n1), columns = fft2d::rows_domain(n1, n0);
  fft2d::matrix a(rows), at(columns);
  fft2d::transform fft(a, at, FFTW_ESTIMATE);  // plans before the values: stronger flags overwrite
  dmap::forall(dmap::zip(a, rows), [](complex& v, const idx<2>& i) { v = start_value(i); });

  fft.forward();

  // The serial reference, computed by every locale: FFTW's 2-D transform of the whole matrix.
  std::vector<complex> serial(static_cast<std::size_t>(n0 * n1));
  for (index_t r = 0; r < n0; ++r)
    for (index_t c = 0; c < n1; ++c) serial[static_cast<std::size_t>(r * n1 + c)] = start_value({r, c});
  auto* s = reinterpret_cast<fftw_complex*>(serial.data());
  fftw_plan plan = fftw_plan_dft_2d(static_cast<int>(n0), static_cast<int>(n1), s, s, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(plan);
  fftw_destroy_plan(plan);
  double scale = 0;  // the reference's largest magnitude: errors are relative to it
  for (const complex& v : serial) scale = std::max(scale, std::abs(v));
  const double forward_error =
      largest_error(at, [&](const idx<2>& i) { return serial[static_cast<std::size_t>(i[1] * n1 + i[0])]; }) / scale;

  fft.backward();
  const double n = static_cast<double>(n0 * n1);
  const double backward_error = largest_error(a, [&](const idx<2>& i) { return n * start_value(i); }) / n;

  const double tolerance = 1e-12 * std::log2(n + 1.0);
  const bool ok = forward_error <= tolerance && backward_error <= tolerance;
  if (dmap::here() == 0)
    std::printf("fft2d: %lld x %lld on %d locales: forward error %.3g, round trip error %.3g (tolerance %.3g): %s\n",
                static_cast<long long>(n0), static_cast<long long>(n1), dmap::num_locales(), forward_error,
                backward_error, tolerance, ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
