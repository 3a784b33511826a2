// Conjugate gradients on the 2-D Poisson problem (cg.hpp), solved twice over all locales:
// matrix-free over a Stencil map and with a CSR matrix and dmap::multiply; each checked against
// a serial solve of the same problem (plain loops, computed by every locale): the same number
// of iterations, the residual after every iteration and the solution equal to rounding.
// Run as one locale (./cg [n [tol]]) or under mpirun -n P; exits non-zero on a mismatch.
#include "cg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using dmap::index_t;

/// The serial solve: the same algorithm on the (n - 2)^2 interior, row-major.
struct serial_solve {
  std::vector<double> x;
  cg::outcome out;

  serial_solve(index_t n, double tol, int max_iterations) {
    const index_t m = n - 2;
    const auto at = [m](index_t i, index_t j) { return static_cast<std::size_t>(i * m + j); };
    std::vector<double> b(static_cast<std::size_t>(m * m)), q(b.size());
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < m; ++j) b[at(i, j)] = cg::rhs(i + 1, j + 1, n);
    x.assign(b.size(), 0.0);
    std::vector<double> r = b, p = b;
    double bb = 0;
    for (double v : b) bb += v * v;
    double rr = bb;
    while (out.iterations < max_iterations && rr > tol * tol * bb) {
      double pq = 0;
      for (index_t i = 0; i < m; ++i)
        for (index_t j = 0; j < m; ++j) {
          const auto p_at = [&](index_t a, index_t c) { return a < 0 || c < 0 || a >= m || c >= m ? 0.0 : p[at(a, c)]; };
          q[at(i, j)] = 4 * p_at(i, j) - p_at(i - 1, j) - p_at(i + 1, j) - p_at(i, j - 1) - p_at(i, j + 1);
          pq += p[at(i, j)] * q[at(i, j)];
        }
      const double alpha = rr / pq;
      double rr_next = 0;
      for (std::size_t k = 0; k < b.size(); ++k) {
        x[k] += alpha * p[k];
        r[k] -= alpha * q[k];
        rr_next += r[k] * r[k];
      }
      const double beta = rr_next / rr;
      rr = rr_next;
      ++out.iterations;
      out.history.push_back(std::sqrt(rr / bb));
      if (rr <= tol * tol * bb) break;
      for (std::size_t k = 0; k < b.size(); ++k) p[k] = r[k] + beta * p[k];
    }
    out.residual = bb > 0 ? std::sqrt(rr / bb) : 0.0;
  }
};

/// The largest difference between two residual histories relative to the serial one's;
/// residuals below 1e-12 are rounding noise (a solve that has converged exactly) and only need
/// to be below 1e-12 on both sides. Infinity when the lengths differ.
double history_difference(const cg::outcome& a, const cg::outcome& serial) {
  if (a.history.size() != serial.history.size()) return INFINITY;
  constexpr double noise = 1e-12;
  double worst = 0;
  for (std::size_t k = 0; k < a.history.size(); ++k) {
    const double got = a.history[k], want = serial.history[k];
    worst = std::max(worst, want < noise ? (got < noise ? 0.0 : INFINITY) : std::abs(got - want) / want);
  }
  return worst;
}

/// Solves with `a`, compares with the serial solve and prints one line; true when they agree.
template <class Operator, class Point>
bool check(const char* name, const Operator& a, index_t n, double tol, const serial_solve& serial, Point&& point) {
  const auto b = a.right_hand_side(n);
  typename Operator::vector x{a.domain()};
  const cg::outcome out = cg::solver(a).solve(b, x, tol, 10 * static_cast<int>(n * n));
  const double largest = *std::max_element(serial.x.begin(), serial.x.end(), [](double u, double v) { return std::abs(u) < std::abs(v); });
  const double x_error = dmap::reduce(dmap::zip(x, a.domain()), 0.0, [](double u, double v) { return std::max(u, v); },
                                      [&](double v, const auto& i) { return std::abs(v - serial.x[point(i)]); }) /
                         std::abs(largest);
  const double h_error = history_difference(out, serial.out);
  // Only the summation order of the dot products differs from the serial solve.
  const bool ok = out.iterations == serial.out.iterations && h_error <= 1e-9 && x_error <= 1e-12;
  if (dmap::here() == 0)
    std::printf("cg: %s %lld x %lld on %d locales: %d iterations (serial %d), residual %.3e, residuals differ by %.2g, "
                "solution by %.2g: %s\n",
                name, static_cast<long long>(n), static_cast<long long>(n), dmap::num_locales(), out.iterations,
                serial.out.iterations, out.residual, h_error, x_error, ok ? "ok" : "MISMATCH");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const index_t n = argc > 1 ? std::atoll(argv[1]) : 66;
  const double tol = argc > 2 ? std::atof(argv[2]) : 1e-10;
  if (n < 3 || n > 4096 || !(tol >= 0)) {
    if (dmap::here() == 0) std::fprintf(stderr, "cg: n must be in [3, 4096] and tol >= 0\n");
    return 2;
  }
  const serial_solve serial(n, tol, 10 * static_cast<int>(n * n));
  const index_t m = n - 2;
  bool ok = check("stencil", cg::stencil_laplacian(n), n, tol, serial,
                  [m](const dmap::idx<2>& i) { return static_cast<std::size_t>((i[0] - 1) * m + (i[1] - 1)); });
  ok = check("csr", cg::csr_laplacian(n), n, tol, serial, [](const dmap::idx<1>& k) { return static_cast<std::size_t>(k[0]); }) && ok;
  return ok ? 0 : 1;
}
