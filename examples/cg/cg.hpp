// Conjugate gradients for the 2-D Poisson problem -laplace(u) = f on an n x n grid with u = 0 on
// the boundary ring: the 5-point Laplacian on the (n - 2)^2 interior points, in two forms that
// one solver template runs:
//   stencil_laplacian  matrix-free over a dmap::stencil domain: A p is a halo update and a loop
//                      over each point's neighbourhood;
//   csr_laplacian      the same matrix stored as a sparse CSR array (row k is interior point
//                      (i, j) with k = (i - 1) (n - 2) + (j - 1)), A p by dmap::multiply.
// The vectors are dmap arrays; each dot product is a dmap::reduce, the same value on every
// locale (cg::solver). The updates that a hand-written solver fuses are fused here too: the product with the
// dot product p.q, and x += alpha p, r -= alpha q with r.r (a reduce whose transform writes).
#pragma once

#include <dmap/dmap.hpp>

#include <cmath>
#include <functional>
#include <utility>
#include <vector>

namespace cg {

using dmap::idx;
using dmap::index_t;

/// f at point (i, j) of the n x n grid (the example's, the test's and the benchmark's).
inline double rhs(index_t i, index_t j, index_t n) {
  const double x = static_cast<double>(i) / static_cast<double>(n - 1), y = static_cast<double>(j) / static_cast<double>(n - 1);
  return 1.0 + std::sin(6.0 * x) * std::cos(4.0 * y) + static_cast<double>((i * 7 + j * 3) % 5) * 0.1;
}

/// What a solve reports.
struct outcome {
  int iterations = 0;            ///< iterations done
  double residual = 0;           ///< |r| / |b| at the end (0 when b = 0)
  std::vector<double> history;   ///< |r| / |b| after each iteration
};

/// The 5-point Laplacian, matrix-free, on the interior of an n x n grid distributed by Stencil
/// (ghost width 1, non-periodic: the ghost cells along the grid's edge stay 0, the boundary).
class stencil_laplacian {
 public:
  using vector = dmap::array<double, 2>;

  /// The operator of the n x n grid (n >= 3) over the locales of `grid`.
  explicit stencil_laplacian(index_t n, const dmap::target_grid<2>& grid = {})
      : domain_{dmap::stencil<2>{{1, 1}, {false, false}, grid}, dmap::rect<2>{{1, n - 1}, {1, n - 1}}} {}

  /// The index set of the vectors: the interior points (i, j), 1 <= i, j < n - 1.
  const dmap::domain<2>& domain() const noexcept { return domain_; }
  /// b(i, j) = rhs(i, j, n).
  vector right_hand_side(index_t n) const {
    vector b{domain_};
    dmap::forall(dmap::zip(b, domain_), [n](double& v, const idx<2>& i) { v = rhs(i[0], i[1], n); });
    return b;
  }
  /// Collective: q = A p; returns p.q. Refreshes p's ghost cells first.
  double apply(vector& p, vector& q) const {
    const auto nb = dmap::neighbors(std::as_const(p), 1, dmap::halo_shape::star);
    dmap::update_halos(p, nb);
    return dmap::reduce(dmap::zip(q, nb), 0.0, std::plus<>{}, [](double& qi, const auto& pi) {
      qi = 4 * pi(0, 0) - pi(-1, 0) - pi(1, 0) - pi(0, -1) - pi(0, 1);
      return pi(0, 0) * qi;
    });
  }

 private:
  dmap::domain<2> domain_;
};

/// The same operator as a sparse matrix of (n - 2)^2 rows in CSR, rows in blocks over the
/// locales, the vectors Block-distributed alike.
class csr_laplacian {
 public:
  using vector = dmap::array<double, 1>;

  /// The matrix of the n x n grid (n >= 3): each locale adds the nonzeros of its own rows.
  explicit csr_laplacian(index_t n)
      : m_(n - 2),
        rows_{dmap::block<2>{dmap::target_grid<2>({dmap::num_locales(), 1})}, dmap::rect<2>{{0, m_ * m_}, {0, m_ * m_}}},
        vectors_{dmap::block<1>{}, dmap::rect<1>{{0, m_ * m_}}},
        nonzeros_(rows_, dmap::csr_layout<2>{}),
        matrix_(nonzeros_) {
    std::vector<idx<2>> mine;
    for (const auto& owned : rows_.local_subdomains(dmap::here()))
      for (index_t k = owned.dim(0).lo(); k < owned.dim(0).hi(); ++k) {
        const index_t i = k / m_, j = k % m_;
        if (i > 0) mine.push_back({k, k - m_});
        if (j > 0) mine.push_back({k, k - 1});
        mine.push_back({k, k});
        if (j + 1 < m_) mine.push_back({k, k + 1});
        if (i + 1 < m_) mine.push_back({k, k + m_});
      }
    nonzeros_.add(std::span<const idx<2>>(mine));
    dmap::forall(dmap::zip(matrix_, nonzeros_), [](double& a, const idx<2>& rc) { a = rc[0] == rc[1] ? 4.0 : -1.0; });
  }

  /// The index set of the vectors: [0, (n - 2)^2), point (i, j) at (i - 1) (n - 2) + (j - 1).
  const dmap::domain<1>& domain() const noexcept { return vectors_; }
  /// b(k) = rhs(i, j, n) for the point (i, j) of row k.
  vector right_hand_side(index_t n) const {
    vector b{vectors_};
    const index_t m = m_;
    dmap::forall(dmap::zip(b, vectors_), [n, m](double& v, const idx<1>& k) { v = rhs(k[0] / m + 1, k[0] % m + 1, n); });
    return b;
  }
  /// Collective: q = A p; returns p.q.
  double apply(vector& p, vector& q) const {
    dmap::multiply(matrix_, p, q);
    return dmap::reduce(dmap::zip(p, q), 0.0, std::plus<>{}, [](double a, double b) { return a * b; });
  }
  /// The matrix's nonzeros (for the benchmark's counts).
  const dmap::sparse_domain<2>& nonzeros() const noexcept { return nonzeros_; }

 private:
  index_t m_;
  dmap::domain<2> rows_;
  dmap::domain<1> vectors_;
  dmap::sparse_domain<2> nonzeros_;
  dmap::sparse_array<double, 2> matrix_;
};

/// Conjugate gradients with operator `a`: either operator above (any type with `vector`,
/// `domain()` and `apply(p, q)`: q = A p, returning p.q). Holds the work vectors r, p and q, so
/// that repeated solves allocate nothing.
template <class Operator>
class solver {
 public:
  using vector = typename Operator::vector;

  /// Collective: the solver of `a` (kept by reference) with its work vectors.
  explicit solver(const Operator& a) : a_(a), r_{a.domain()}, p_{a.domain()}, q_{a.domain()} {}

  /// Collective: solves A x = b from x = 0, until |r| <= tol |b| or `max_iterations` iterations.
  outcome solve(const vector& b, vector& x, double tol, int max_iterations) {
    dmap::forall(x, [](double& v) { v = 0; });
    r_ = b;
    p_ = b;
    const double bb = dmap::reduce(dmap::zip(b, b), 0.0, std::plus<>{}, [](double u, double v) { return u * v; });
    double rr = bb;
    outcome out;
    while (out.iterations < max_iterations && rr > tol * tol * bb) {
      const double alpha = rr / a_.apply(p_, q_);
      const double rr_next = dmap::reduce(dmap::zip(x, r_, p_, q_), 0.0, std::plus<>{},
                                          [alpha](double& xi, double& ri, double pi, double qi) {
                                            xi += alpha * pi;
                                            ri -= alpha * qi;
                                            return ri * ri;
                                          });
      const double beta = rr_next / rr;
      rr = rr_next;
      ++out.iterations;
      out.history.push_back(std::sqrt(rr / bb));
      if (rr <= tol * tol * bb) break;
      dmap::forall(dmap::zip(p_, r_), [beta](double& pi, double ri) { pi = ri + beta * pi; });
    }
    out.residual = bb > 0 ? std::sqrt(rr / bb) : 0.0;
    return out;
  }

 private:
  const Operator& a_;
  vector r_, p_, q_;
};

}  // namespace cg
