// Sparse matrix times vector: dmap::multiply over a row-distributed sparse domain (parent
// Block over a Px1 grid, CSR layout) against a hand-written MPI + oneTBB CSR SpMV over the
// same rows in the same run. Cases: spmv_laplace (the 5-point Laplacian of a g x g grid: g^2
// rows) and spmv_random (16 nonzeros per row at uniformly random columns, fixed seed).
//
// The baseline is bench/csr_baseline.hpp (PETSc's MatMult shape, by hand). dmap's x
// adopts the local part of the baseline's x vector (dmap::foreign_buffer): on this VM where
// memory lands moves random-access speed by 10-15% from run to run (as bench/stream notes for
// bandwidth), and the same x memory keeps that out of the comparison.
//   mpirun -n P --bind-to none ./bench_spmv [g=2048] [repetitions=10] [random_rows=g^2]
//                                           [cases=both|laplace|random] [first=dmap|baseline]
#include <dmap/dmap.hpp>

#include "csr_baseline.hpp"
#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using bench::cut;
using dmap::index_t;

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A matrix given row by row: columns (ascending) and values of any row.
struct matrix_kind {
  std::string name;
  index_t n;  // rows = columns
  index_t grid = 0;  // the Laplacian's grid side; 0: random
  // Appends row r's columns (ascending) to `cols`.
  void row(index_t r, std::vector<index_t>& cols) const {
    if (grid > 0) {
      const index_t i = r / grid, j = r % grid;
      if (i > 0) cols.push_back(r - grid);
      if (j > 0) cols.push_back(r - 1);
      cols.push_back(r);
      if (j + 1 < grid) cols.push_back(r + 1);
      if (i + 1 < grid) cols.push_back(r + grid);
      return;
    }
    std::uint64_t s = 0x5eed0000ULL ^ static_cast<std::uint64_t>(r) * 0x2545f4914f6cdd1dULL;
    const std::size_t first = cols.size();
    while (cols.size() - first < 16) {
      const index_t c = static_cast<index_t>(splitmix(s) % static_cast<std::uint64_t>(n));
      if (std::find(cols.begin() + static_cast<std::ptrdiff_t>(first), cols.end(), c) == cols.end()) cols.push_back(c);
    }
    std::sort(cols.begin() + static_cast<std::ptrdiff_t>(first), cols.end());
  }
  double value(index_t r, index_t c) const {
    if (grid > 0) return r == c ? 4.0 : -1.0;
    return 1.0 / static_cast<double>(1 + (r + 3 * c) % 7);
  }
};

double x_value(index_t c) { return 1.0 + 0.01 * static_cast<double>(c % 17); }

// One case: builds both (the baseline first when `baseline_first`: on this VM the memory
// allocated first can be the slower), checks they agree, prints the bench line.
int run_case(const matrix_kind& m, int repetitions, bool baseline_first) {
  const int p = dmap::num_locales(), me = dmap::here();
  const dmap::rect<2> space{{0, m.n}, {0, m.n}};
  const dmap::domain<2> parent{dmap::block<2>{dmap::target_grid<2>({p, 1})}, space};
  const dmap::rect<1> line{{0, m.n}};
  const dmap::domain<1> vector_domain{dmap::block<1>{}, line};
  std::optional<bench::csr_spmv> early;
  const auto build_baseline = [&] {
    early.emplace(m.n, [&](index_t r, std::vector<index_t>& cols) { m.row(r, cols); }, [&](index_t r, index_t c) { return m.value(r, c); });
  };
  double t_baseline = 0.0;
  if (baseline_first) {
    const auto t = std::chrono::steady_clock::now();
    build_baseline();
    t_baseline = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }
  const auto t_start = std::chrono::steady_clock::now();
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  dmap::sparse_domain<2> s(parent, dmap::csr_layout<2>{});
  {
    const index_t r0 = cut(m.n, p, me), r1 = cut(m.n, p, me + 1);
    std::vector<dmap::idx<2>> mine;
    std::vector<index_t> cols;
    for (index_t r = r0; r < r1; ++r) {
      cols.clear();
      m.row(r, cols);
      for (index_t c : cols) mine.push_back({r, c});
    }
    s.add(std::span<const dmap::idx<2>>(mine));
  }
  dmap::sparse_array<double, 2> a(s);
  {
    const auto indices = s.local_indices();
    auto values = a.local_values();
    for (std::size_t k = 0; k < indices.size(); ++k) values[k] = m.value(indices[k][0], indices[k][1]);
  }
  const double t_domain = seconds_since(t_start);
  auto t = std::chrono::steady_clock::now();
  if (!early) {
    build_baseline();
    t_baseline = seconds_since(t);
  }
  bench::csr_spmv& base = *early;
  // x adopts the baseline's [local x | ghosts] vector (its local part): both read x, the one
  // structure read at random, from the same memory.
  dmap::array<double, 1> x(vector_domain, dmap::foreign_buffer<double, 1>{base.xv.data(), base.nloc, {1}});
  dmap::array<double, 1> y(vector_domain);
  dmap::forall(vector_domain, [&](dmap::idx<1> i) { x.local(i) = x_value(i[0]); });

  const auto product = [&] { dmap::multiply(a, x, y); };
  t = std::chrono::steady_clock::now();
  product();  // builds the plan
  const double t_plan = seconds_since(t);
  const auto per_product = bench::counters_of_repeat(product);
  const auto [td, tb] = bench::median_times(repetitions, product, [&] { base.multiply(); });

  // Both computed the same rows (y's Block cut is the baseline's).
  double worst = 0.0;
  const double* dy = y.local_data();
  for (index_t i = 0; i < base.rows; ++i)
    worst = std::max(worst, std::abs(dy[i] - base.y[static_cast<std::size_t>(i)]) / std::max(1.0, std::abs(base.y[static_cast<std::size_t>(i)])));
  worst = dmap::all_reduce_max(worst);
  const bool same_rows = dmap::all_of_locales(y.local_size() == base.rows);
  if (me == 0) {
    const double flops = 2.0 * static_cast<double>(s.size());
    std::printf("bench %s ranks=%d threads=%d transfers=%s n=%lld dmap=%.3f baseline=%.3f unit=GFlop/s ratio=%.3f msgs=%llu "
                "bytes=%llu min_bytes=%llu nonzeros=%lld dmap_s=%.5f baseline_s=%.5f setup_s=%.1f plan_s=%.2f "
                "baseline_setup_s=%.1f built_first=%s\n",
                m.name.c_str(), p, dmap::num_threads(), bench::transfers_field(), static_cast<long long>(m.n), flops / td / 1e9, flops / tb / 1e9,
                tb / td, static_cast<unsigned long long>(per_product.messages_sent),
                static_cast<unsigned long long>(per_product.bytes_sent),
                static_cast<unsigned long long>(base.sent_values * sizeof(double)), static_cast<long long>(s.size()), td, tb, t_domain,
                t_plan, t_baseline, baseline_first ? "baseline" : "dmap");
    std::fflush(stdout);
  }
  if (!same_rows || worst > 1e-12) {
    if (me == 0) std::fprintf(stderr, "bench_spmv: %s: dmap and the baseline differ (relative %.3g)\n", m.name.c_str(), worst);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const index_t g = argc > 1 ? std::atoll(argv[1]) : 2048;
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 10;
  const index_t random_rows = argc > 3 ? std::atoll(argv[3]) : g * g;
  const std::string cases = argc > 4 ? argv[4] : "both";
  const bool baseline_first = argc > 5 && std::string(argv[5]) == "baseline";
  int status = 0;
  if (cases != "random") status |= run_case({"spmv_laplace", g * g, g}, repetitions, baseline_first);
  if (cases != "laplace") status |= run_case({"spmv_random", random_rows, 0}, repetitions, baseline_first);
  return status;
}
