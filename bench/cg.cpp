// Conjugate gradients on the 2-D Poisson problem (examples/cg/cg.hpp) against hand-written
// MPI + oneTBB solvers in the same run, a fixed number of iterations each (tol 0), the time
// per iteration compared. Two cases:
//   cg_stencil  dmap's matrix-free solver over a Stencil map against a hand-written one on the
//               same 2-D block grid: ghost frame of one cell for p, faces exchanged with
//               Isend/Irecv (MPI_Type_vector for columns), x, r, q compact;
//   cg_csr      dmap's CSR solver (dmap::multiply) against a hand-written one over the CSR SpMV
//               of bench/csr_baseline.hpp (PETSc's MatMult shape).
// Both hand-written solvers fuse what dmap's fuses: the product with p.q (stencil; the CSR
// baseline, as dmap, takes p.q in a second pass), and x += alpha p, r -= alpha q with r.r; the
// dot products are per-thread partial sums in a fixed order, then MPI_Allreduce. The residual
// histories of dmap and the baseline must agree (exit 1 otherwise).
//   mpirun -n P --bind-to none ./bench_cg [n=2048] [iterations=20] [repetitions=5] [cases=both|stencil|csr]
#include "../examples/cg/cg.hpp"
#include "csr_baseline.hpp"
#include "face_halo.hpp"
#include "timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace {

using dmap::index_t;

/// The hand-written matrix-free solver: this rank's block of the interior on the same 2-D grid
/// and cut as dmap's Stencil map.
struct hand_stencil_cg {
  index_t n;
  bench::face_halo block;
  std::vector<double> x, r, q, p;  // p with a ghost frame, the others compact

  hand_stencil_cg(index_t size, const dmap::target_grid<2>& grid) : n(size), block(size, grid) {
    const std::size_t local_size = static_cast<std::size_t>(block.rows * block.cols);
    x.assign(local_size, 0.0), r.assign(local_size, 0.0), q.assign(local_size, 0.0);
    p.assign(static_cast<std::size_t>((block.rows + 2) * block.pitch), 0.0);  // its ghost frame: 0 on the boundary
  }

  /// `iterations` CG iterations from x = 0 (none skipped by a tolerance); the residual history.
  std::vector<double> solve(int iterations) {
    const index_t rows = block.rows, cols = block.cols, pitch = block.pitch;
    std::fill(x.begin(), x.end(), 0.0);
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j)
        r[static_cast<std::size_t>(i * cols + j)] = p[static_cast<std::size_t>((i + 1) * pitch + j + 1)] =
            cg::rhs(block.r0 + i, block.c0 + j, n);
    const index_t w = pitch, c = cols;
    double* __restrict pp = p.data();
    double* __restrict xp = x.data();
    double* __restrict rp = r.data();
    double* __restrict qp = q.data();
    double rr = bench::parallel_sum(rows, [&](index_t first, index_t last) {
      double s = 0;
      for (index_t k = first * c; k < last * c; ++k) s += rp[k] * rp[k];
      return s;
    });
    const double bb = rr;
    std::vector<double> history;
    for (int it = 0; it < iterations; ++it) {
      block.exchange(pp);
      const double pq = bench::parallel_sum(rows, [&](index_t first, index_t last) {
        double s = 0;
        for (index_t i = first; i < last; ++i) {
          const double* above = pp + i * w + 1;
          const double* here = above + w;
          const double* below = here + w;
          double* out = qp + i * c;
          for (index_t j = 0; j < c; ++j) {
            out[j] = 4 * here[j] - above[j] - below[j] - here[j - 1] - here[j + 1];
            s += here[j] * out[j];
          }
        }
        return s;
      });
      const double alpha = rr / pq;
      const double rr_next = bench::parallel_sum(rows, [&](index_t first, index_t last) {
        double s = 0;
        for (index_t i = first; i < last; ++i) {
          const double* pi = pp + (i + 1) * w + 1;
          for (index_t j = 0, k = i * c; j < c; ++j, ++k) {
            xp[k] += alpha * pi[j];
            rp[k] -= alpha * qp[k];
            s += rp[k] * rp[k];
          }
        }
        return s;
      });
      const double beta = rr_next / rr;
      rr = rr_next;
      history.push_back(std::sqrt(rr / bb));
      bench::csr_spmv::parallel_rows(rows, [&](index_t first, index_t last) {
        for (index_t i = first; i < last; ++i) {
          double* pi = pp + (i + 1) * w + 1;
          for (index_t j = 0, k = i * c; j < c; ++j, ++k) pi[j] = rp[k] + beta * pi[j];
        }
      });
    }
    return history;
  }
};

/// The hand-written CSR solver: p is the local part of the SpMV's [local x | ghosts] vector, q
/// its y.
struct hand_csr_cg {
  index_t n, m;
  bench::csr_spmv a;
  std::vector<double> x, r;

  explicit hand_csr_cg(index_t size)
      : n(size), m(size - 2),
        a(m * m,
          [this](index_t k, std::vector<index_t>& cols) {
            const index_t i = k / m, j = k % m;
            if (i > 0) cols.push_back(k - m);
            if (j > 0) cols.push_back(k - 1);
            cols.push_back(k);
            if (j + 1 < m) cols.push_back(k + 1);
            if (i + 1 < m) cols.push_back(k + m);
          },
          [](index_t r, index_t c) { return r == c ? 4.0 : -1.0; }),
        x(static_cast<std::size_t>(a.rows), 0.0), r(x) {}

  /// `iterations` CG iterations from x = 0; the residual history.
  std::vector<double> solve(int iterations) {
    const index_t rows = a.rows;
    std::fill(x.begin(), x.end(), 0.0);
    double* __restrict pp = a.xv.data();
    double* __restrict qp = a.y.data();
    double* __restrict xp = x.data();
    double* __restrict rp = r.data();
    for (index_t k = 0; k < rows; ++k) rp[k] = pp[k] = cg::rhs((a.r0 + k) / m + 1, (a.r0 + k) % m + 1, n);
    double rr = bench::parallel_sum(rows, [&](index_t first, index_t last) {
      double s = 0;
      for (index_t k = first; k < last; ++k) s += rp[k] * rp[k];
      return s;
    });
    const double bb = rr;
    std::vector<double> history;
    for (int it = 0; it < iterations; ++it) {
      a.multiply();
      const double pq = bench::parallel_sum(rows, [&](index_t first, index_t last) {
        double s = 0;
        for (index_t k = first; k < last; ++k) s += pp[k] * qp[k];
        return s;
      });
      const double alpha = rr / pq;
      const double rr_next = bench::parallel_sum(rows, [&](index_t first, index_t last) {
        double s = 0;
        for (index_t k = first; k < last; ++k) {
          xp[k] += alpha * pp[k];
          rp[k] -= alpha * qp[k];
          s += rp[k] * rp[k];
        }
        return s;
      });
      const double beta = rr_next / rr;
      rr = rr_next;
      history.push_back(std::sqrt(rr / bb));
      bench::csr_spmv::parallel_rows(rows, [&](index_t first, index_t last) {
        for (index_t k = first; k < last; ++k) pp[k] = rp[k] + beta * pp[k];
      });
    }
    return history;
  }
};

/// The largest relative difference between two residual histories (infinity when their lengths differ).
double history_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::abs(a[k] - b[k]) / b[k]);
  return worst;
}

/// Times `iterations` iterations of dmap's solver over `op` and of the hand-written `base`,
/// prints the bench line (seconds per iteration; dmap's counters of one iteration: a solve of two
/// iterations less one of one), and checks that both computed the same residuals.
template <class Operator, class Baseline>
int run_case(const char* name, index_t n, const Operator& op, Baseline& base, int iterations, int repetitions,
             std::uint64_t min_bytes) {
  const auto b = op.right_hand_side(n);
  typename Operator::vector x{op.domain()};
  cg::outcome out;
  std::vector<double> history;
  cg::solver solver(op);
  const auto counted = [&](int k) {
    dmap::reset_counters();
    (void)solver.solve(b, x, 0.0, k);
    return dmap::counters();
  };
  (void)counted(1);  // the first loops agree on their neighbourhoods and build plans once
  const dmap::comm_counters one_iteration = counted(1), two_iterations = counted(2);
  const dmap::comm_counters per_iteration = two_iterations - one_iteration;
  const auto [td, tb] = bench::median_times(
      repetitions, [&] { out = solver.solve(b, x, 0.0, iterations); }, [&] { history = base.solve(iterations); });
  const double difference = history_difference(out.history, history);
  if (dmap::here() == 0)
    std::printf("bench %s ranks=%d threads=%d transfers=%s n=%lld dmap=%.6f baseline=%.6f unit=s/iteration ratio=%.3f "
                "msgs=%llu bytes=%llu node_bytes=%llu collectives=%llu min_bytes=%llu iterations=%d residual=%.3e "
                "residuals_differ=%.1e\n",
                name, dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(n * n),
                td / iterations, tb / iterations, tb / td, static_cast<unsigned long long>(per_iteration.messages_sent),
                static_cast<unsigned long long>(per_iteration.bytes_sent),
                static_cast<unsigned long long>(per_iteration.node_bytes),
                static_cast<unsigned long long>(per_iteration.collectives), static_cast<unsigned long long>(min_bytes),
                iterations, out.residual, difference);
  if (!(difference <= 1e-8)) {
    if (dmap::here() == 0) std::fprintf(stderr, "bench_cg: %s: dmap and the baseline differ (%.3g)\n", name, difference);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const index_t n = argc > 1 ? std::atoll(argv[1]) : 2048;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
  const int repetitions = argc > 3 ? std::atoi(argv[3]) : 5;
  const std::string cases = argc > 4 ? argv[4] : "both";
  if (n < 4 || iterations < 1 || repetitions < 1) {
    if (dmap::here() == 0) std::fprintf(stderr, "bench_cg: n >= 4, iterations >= 1, repetitions >= 1\n");
    return 2;
  }
  int status = 0;
  if (cases != "csr") {
    const dmap::target_grid<2> grid{};
    const cg::stencil_laplacian op(n, grid);
    hand_stencil_cg base(n, grid);
    // Locale 0's faces: what its neighbours read of its block (star halo, 8 bytes a value).
    const std::uint64_t faces = static_cast<std::uint64_t>((base.block.down != MPI_PROC_NULL ? base.block.cols : 0) +
                                                           (base.block.right != MPI_PROC_NULL ? base.block.rows : 0)) *
                                sizeof(double);
    status |= run_case("cg_stencil", n, op, base, iterations, repetitions, faces);
  }
  if (cases != "stencil") {
    const cg::csr_laplacian op(n);
    hand_csr_cg base(n);
    status |= run_case("cg_csr", n, op, base, iterations, repetitions, base.a.sent_values * sizeof(double));
  }
  return status;
}
