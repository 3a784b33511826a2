// A distributed 2-D complex FFT with FFTW doing the 1-D transforms and dmap moving the data:
// each locale transforms its rows, dmap::transpose redistributes rows into columns (one
// assignment between two row-distributed arrays, whatever the number of locales), and each
// locale transforms its rows of the transposed array, which are the columns of the first. The
// forward result is left transposed, as FFTW_MPI_TRANSPOSED_OUT leaves it; the backward
// transform takes that layout and returns the original one.
#pragma once

#include <dmap/dmap.hpp>

#include <fftw3.h>

#include <cmath>
#include <complex>
#include <stdexcept>

namespace fft2d {

using complex = std::complex<double>;
using matrix = dmap::array<complex, 2>;

/// The domain of an n0 x n1 matrix whose rows are cut into one block per locale.
inline dmap::domain<2> rows_domain(dmap::index_t n0, dmap::index_t n1) {
  return dmap::domain<2>{dmap::block<2>{dmap::target_grid<2>({dmap::num_locales(), 1})},
                         dmap::rect<2>{dmap::range(0, n0), dmap::range(0, n1)}};
}

/// Element (r, c) of the matrix the example and its benchmark transform: any locale can compute
/// any element.
inline complex sample_value(dmap::index_t r, dmap::index_t c) {
  return {std::sin(0.37 * static_cast<double>(r) + 0.11 * static_cast<double>(c)),
          std::cos(0.05 * static_cast<double>(r * c % 97))};
}

/// In-place 1-D transforms of every local row of one row-distributed matrix, planned once.
class row_transforms {
 public:
  /// Plans the transforms of `a`'s local rows in direction `sign` (FFTW_FORWARD or
  /// FFTW_BACKWARD) with FFTW's `flags`; FFTW_MEASURE and stronger overwrite a's elements.
  row_transforms(matrix& a, int sign, unsigned flags) {
    const auto blocks = a.local_blocks();
    if (blocks.empty()) return;  // a locale without rows (more locales than rows)
    if (blocks.size() != 1) throw std::invalid_argument("fft2d: a locale holds more than one block of rows");
    const auto span = blocks[0].span();
    const int rows = static_cast<int>(span.extent(0)), n = static_cast<int>(span.extent(1));
    if (rows == 0) return;
    if (span.stride(1) != 1 || span.stride(0) != n) throw std::invalid_argument("fft2d: local rows are not contiguous");
    auto* data = reinterpret_cast<fftw_complex*>(blocks[0].data());
    plan_ = fftw_plan_many_dft(1, &n, rows, data, nullptr, 1, n, data, nullptr, 1, n, sign, flags);
    if (!plan_) throw std::runtime_error("fft2d: FFTW made no plan");
  }
  row_transforms(const row_transforms&) = delete;
  row_transforms& operator=(const row_transforms&) = delete;
  ~row_transforms() {
    if (plan_) fftw_destroy_plan(plan_);
  }
  /// Transforms the rows (not collective).
  void run() const {
    if (plan_) fftw_execute(plan_);
  }

 private:
  fftw_plan plan_ = nullptr;
};

/// The 2-D transform of an n0 x n1 matrix `a` into its n1 x n0 transpose `at`, both
/// row-distributed (rows_domain), and back. Planned once for these two arrays.
class transform {
 public:
  /// Plans on `a` and `at` with FFTW's `flags` (FFTW_MEASURE and stronger overwrite both).
  transform(matrix& a, matrix& at, unsigned flags)
      : a_(a), at_(at), a_forward_(a, FFTW_FORWARD, flags), at_forward_(at, FFTW_FORWARD, flags),
        at_backward_(at, FFTW_BACKWARD, flags), a_backward_(a, FFTW_BACKWARD, flags) {}

  /// Collective: at = the 2-D DFT of a, transposed (a is overwritten by its row transforms).
  void forward() {
    a_forward_.run();
    at_ = dmap::transpose(a_);
    at_forward_.run();
  }
  /// Collective: a = the unnormalised inverse 2-D DFT of at (transposed as forward leaves it):
  /// n0 * n1 times the matrix forward started from (at is overwritten).
  void backward() {
    at_backward_.run();
    a_ = dmap::transpose(at_);
    a_backward_.run();
  }

 private:
  matrix& a_;
  matrix& at_;
  row_transforms a_forward_, at_forward_, at_backward_, a_backward_;
};

}  // namespace fft2d
