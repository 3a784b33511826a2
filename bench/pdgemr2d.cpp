// Block-cyclic redistribution against ScaLAPACK's own: `A = B` (a kept plan, plan.run())
// beside pdgemr2d, the routine ScaLAPACK users call to change a matrix's blocking, on the
// same matrices (column-major, ScaLAPACK's local layout) in the same BLACS grid:
//   bc<nb1>_to_bc<nb2>  BlockCyclic(nb1 x nb1) -> BlockCyclic(nb2 x nb2)
//   bc<nb>_to_block     BlockCyclic(nb x nb) -> Block (for pdgemr2d: blocks of M/rows x N/cols)
// After the timing, the destination's local matrix from dmap must equal pdgemr2d's, element
// for element (the program fails otherwise).
// Usage: bench_pdgemr2d [n]   (an n x n matrix of doubles, n a multiple of 12; default 2304)
// Lines: bench pdgemr2d_<case> ranks= threads= transfers= n= dmap= baseline= unit=s ratio=
//        msgs= bytes= min_bytes=0   (baseline: pdgemr2d; counters: dmap's, rank 0)
#include <dmap/dmap.hpp>
#include <dmap/algorithms/assignment_plan.hpp>
#include <dmap/interop/scalapack.hpp>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "timing.hpp"

extern "C" void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja, const int* desca,
                          double* b, const int* ib, const int* jb, const int* descb, const int* ictxt);

namespace {

using dmap::idx;
using dmap::index_t;

// Collective: times A = B (its plan) against pdgemr2d from B's local matrix into one of A's
// layout described by `to_desc`, prints the line and checks both results agree.
void compare(const std::string& name, dmap::array<double, 2>& A, const dmap::array<double, 2>& B,
             const std::array<int, 9>& to_desc) {
  const auto from = dmap::scalapack_descriptor(B);
  const int m = from.desc[2], n = from.desc[3], one = 1, context = from.context;
  std::vector<double> theirs(static_cast<std::size_t>(A.local_size()));
  auto plan = dmap::plan_assignment(A, B);
  const auto ours = [&] { plan.run(); };
  const auto pdgemr2d = [&] {
    pdgemr2d_(&m, &n, B.local_data(), &one, &one, from.desc.data(), theirs.data(), &one, &one, to_desc.data(), &context);
  };
  const auto [dmap_s, base_s] = bench::median_times(7, ours, pdgemr2d);
  const auto c = bench::counters_of_repeat(ours);
  bench::print_seconds(("pdgemr2d_" + name).c_str(), static_cast<std::int64_t>(m) * n, dmap_s, base_s, c, 0);
  index_t differ = 0;
  const double* mine = A.local_data();
  for (std::size_t k = 0; k < theirs.size(); ++k) differ += mine[k] != theirs[k];
  if (dmap::all_reduce_sum(differ) != 0) {
    if (dmap::here() == 0) std::fprintf(stderr, "bench_pdgemr2d: %s: dmap and pdgemr2d disagree\n", name.c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env(argc, argv);
  const index_t n = argc > 1 ? std::atoll(argv[1]) : 2304;
  const dmap::target_grid<2> grid = dmap::target_grid<2>::balanced(dmap::num_locales());
  const int rows = grid.extent(0), cols = grid.extent(1);
  if (n <= 0 || n % 12 != 0 || n % rows != 0 || n % cols != 0) {
    if (dmap::here() == 0) std::fprintf(stderr, "bench_pdgemr2d: n must be a positive multiple of 12\n");
    return 2;
  }
  const dmap::rect<2> square{dmap::range(0, n), dmap::range(0, n)};
  const auto column_major = dmap::storage_order::column_major;
  const auto bc = [&](index_t nb) { return dmap::domain<2>(dmap::block_cyclic<2>(idx<2>{nb, nb}, grid, column_major), square); };
  const auto fill = [](dmap::array<double, 2>& a) {
    dmap::forall(dmap::zip(a, a.domain()), [](double& x, const idx<2>& i) { x = static_cast<double>(i[0] * 100003 + i[1]); });
  };
  for (const auto& [nb1, nb2] : {std::pair<index_t, index_t>{64, 32}, {32, 64}, {8, 64}, {48, 64}}) {
    const auto from = bc(nb1), to = bc(nb2);
    dmap::array<double, 2> B{from}, A{to};
    fill(B);
    compare("bc" + std::to_string(nb1) + "_to_bc" + std::to_string(nb2), A, B, dmap::scalapack_descriptor(A).desc);
  }
  for (const index_t nb : {index_t{8}, index_t{64}}) {
    const auto from = bc(nb);
    const dmap::domain<2> to(dmap::block<2>(grid, column_major), square);
    dmap::array<double, 2> B{from}, A{to};
    fill(B);
    // Block with n a multiple of the grid: blocks of n / rows x n / cols, one per locale.
    const std::array<int, 9> block_desc{1, dmap::scalapack_descriptor(B).context, static_cast<int>(n), static_cast<int>(n),
                                        static_cast<int>(n / rows), static_cast<int>(n / cols), 0, 0,
                                        static_cast<int>(n / rows)};
    compare("bc" + std::to_string(nb) + "_to_block", A, B, block_desc);
  }
  return 0;
}
