// Jacobi sweep (5-point stencil, fixed boundary) on a dmap::stencil domain against a
// hand-written MPI halo exchange (faces, Isend/Irecv, MPI_Type_vector for columns) plus a
// oneTBB loop over the same local rows, in the same run. The baseline stores its rows as a
// user would, unpadded (pitch = local columns + 2); dmap uses the Stencil's default layout
// and a star halo update (faces only, like the baseline). Between ranks of one node dmap's
// halos are direct copies into node-shared memory (node_bytes), the baseline's are messages.
//   mpirun -n P --bind-to none ./bench_stencil [n=4096] [iterations=40] [grid=RxC, R*C = P]
//                                              [rows=auto|none|<k>: dmap's row padding]
#include <dmap/dmap.hpp>
#include <dmap/runtime/detail/thread_pool.hpp>

#include "face_halo.hpp"
#include "timing.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

// The grid "RxC" (rows x columns of locales); the default factorisation when absent; none
// when R * C is not the number of locales.
std::optional<dmap::target_grid<2>> grid_argument(int argc, char** argv) {
  if (argc <= 3) return dmap::target_grid<2>{};
  const std::string text = argv[3];
  const auto x = text.find('x');
  const int rows = x == std::string::npos ? 0 : std::atoi(text.substr(0, x).c_str());
  const int cols = x == std::string::npos ? 0 : std::atoi(text.substr(x + 1).c_str());
  if (rows <= 0 || cols <= 0 || rows * cols != dmap::num_locales()) {
    if (dmap::here() == 0)
      std::fprintf(stderr, "bench_stencil: grid '%s' must be RxC with R * C = %d ranks (exit 77: skipped)\n", text.c_str(),
                   dmap::num_locales());
    return std::nullopt;
  }
  return dmap::target_grid<2>({rows, cols});
}

// dmap's row padding: "auto" (the Stencil's default), "none" or a number of elements.
dmap::row_padding padding_argument(int argc, char** argv) {
  const std::string text = argc > 4 ? argv[4] : "auto";
  if (text == "auto") return dmap::row_padding::automatic();
  if (text == "none") return dmap::row_padding::none();
  return dmap::row_padding::fixed(std::atoll(text.c_str()));
}

double boundary_value(dmap::index_t i, dmap::index_t j, dmap::index_t n) {
  return i == 0 ? 1.0 : (j == n - 1 ? 0.5 * std::sin(3.14159265358979 * static_cast<double>(i) / static_cast<double>(n)) : 0.0);
}

// The baseline: this rank's block of the interior (same Block cut and grid as dmap) with
// one ghost layer, faces exchanged by hand.
struct baseline {
  dmap::index_t n;
  bench::face_halo block;
  std::vector<double> a, b;

  baseline(dmap::index_t size, const dmap::target_grid<2>& grid) : n(size), block(size, grid) {
    a.assign(static_cast<std::size_t>((block.rows + 2) * block.pitch), 0.0);
    for (dmap::index_t i = block.r0 - 1; i <= block.r1; ++i)
      for (dmap::index_t j = block.c0 - 1; j <= block.c1; ++j)
        if (i == 0 || j == 0 || i == n - 1 || j == n - 1) at(a, i, j) = boundary_value(i, j, n);
    b = a;
  }
  double& at(std::vector<double>& v, dmap::index_t i, dmap::index_t j) {
    return v[static_cast<std::size_t>((i - block.r0 + 1) * block.pitch + (j - block.c0 + 1))];
  }
  void sweep() {
    block.exchange(a.data());
    const double* __restrict src = a.data();
    double* __restrict dst = b.data();
    const dmap::index_t w = block.pitch;
    dmap::detail::locale_arena().execute([&] {
      oneapi::tbb::parallel_for(
          oneapi::tbb::blocked_range<dmap::index_t>(1, block.rows + 1,
                                                    std::max<dmap::index_t>(1, block.rows / dmap::num_threads())),
          [&](const oneapi::tbb::blocked_range<dmap::index_t>& r) {
            for (dmap::index_t i = r.begin(); i < r.end(); ++i)
              for (dmap::index_t j = 1; j <= block.cols; ++j)
                dst[i * w + j] = 0.25 * (src[(i - 1) * w + j] + src[(i + 1) * w + j] +
                                         src[i * w + j - 1] + src[i * w + j + 1]);
          },
          oneapi::tbb::static_partitioner{});
    });
    std::swap(a, b);
  }
  double checksum() {
    double s = 0;
    for (dmap::index_t i = block.r0; i < block.r1; ++i)
      for (dmap::index_t j = block.c0; j < block.c1; ++j) s += at(a, i, j) * static_cast<double>((i * 7 + j * 3) % 11);
    double t = 0;
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return t;
  }
};

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const dmap::index_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 40;
  const auto grid_given = grid_argument(argc, argv);
  if (!grid_given) return 77;  // scripts/bench.sh: this argument set does not fit the rank count
  const dmap::target_grid<2> grid = *grid_given;

  // dmap: the interior is the domain; the outer ring lives in the boundary cells.
  dmap::domain D{dmap::stencil<2>{{1, 1}, {false, false}, grid, dmap::storage_order::row_major, padding_argument(argc, argv)},
                 dmap::rect<2>{{1, n - 1}, {1, n - 1}}};
  dmap::array<double, 2> A{D}, B{D};
  for (auto* X : {&A, &B})
    for (const auto& blk : X->local_blocks()) {
      const auto& f = blk.layout.indices;
      for (dmap::index_t i = f.dim(0).lo(); i < f.dim(0).hi(); ++i)
        for (dmap::index_t j = f.dim(1).lo(); j < f.dim(1).hi(); ++j)
          if (!D.contains({i, j})) blk({i, j}) = boundary_value(i, j, n);
    }
  baseline base(n, grid);

  const auto jacobi = [&] {
    const auto nb = dmap::neighbors(std::as_const(A), 1, dmap::halo_shape::star);  // 5 points: faces only
    dmap::update_halos(A, nb);
    dmap::forall(dmap::zip(B, nb), [](double& b, const auto& a) {
      b = 0.25 * (a(-1, 0) + a(1, 0) + a(0, -1) + a(0, 1));
    });
    std::swap(A, B);
  };
  jacobi(), base.sweep();  // warm-up
  std::vector<double> t_dmap, t_base;
  dmap::comm_counters per_iteration{};
  for (int it = 1; it < iterations; ++it) {
    dmap::barrier();
    dmap::reset_counters();
    auto t0 = clock_type::now();
    jacobi();
    const double td = std::chrono::duration<double>(clock_type::now() - t0).count();
    if (it == 1) per_iteration = dmap::counters();
    dmap::barrier();
    t0 = clock_type::now();
    base.sweep();
    const double tb = std::chrono::duration<double>(clock_type::now() - t0).count();
    t_dmap.push_back(dmap::all_reduce_max(td));
    t_base.push_back(dmap::all_reduce_max(tb));
  }
  std::sort(t_dmap.begin(), t_dmap.end());
  std::sort(t_base.begin(), t_base.end());
  const double md = t_dmap[t_dmap.size() / 2], mb = t_base[t_base.size() / 2];

  // The ghost-region volume locale 0 must send: cells of its chunk inside other locales'
  // frames (faces, edges and corners: a box update's volume; the star update sends less).
  std::uint64_t ghost_bytes = 0;
  const auto mine = D.local_subdomains(0);
  for (int q = 1; q < dmap::num_locales(); ++q)
    for (const auto& l : D.local_layouts(q))
      for (const auto& r : mine) ghost_bytes += sizeof(double) * static_cast<std::uint64_t>(l.indices.intersect(r).size());

  double sum_dmap = dmap::reduce(dmap::zip(A, D), 0.0, std::plus<>{}, [](double a, dmap::idx<2> i) {
    return a * static_cast<double>((i[0] * 7 + i[1] * 3) % 11);
  });
  const double sum_base = base.checksum();
  // Locale 0's row stride in dmap's storage (the baseline's pitch is its columns + 2).
  const auto layouts0 = D.local_layouts(0);
  const long long row_stride = layouts0.empty() ? 0 : static_cast<long long>(layouts0.front().strides[0]);
  if (dmap::here() == 0) {
    const double cells = static_cast<double>((n - 2) * (n - 2));
    std::printf("bench stencil_jacobi ranks=%d threads=%d transfers=%s n=%lld dmap=%.1f baseline=%.1f unit=Mcells/s "
                "ratio=%.3f msgs=%llu bytes=%llu node_bytes=%llu min_bytes=%llu grid=%dx%d padded=%lld baseline_pitch=%lld\n",
                dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(n * n), cells / md / 1e6,
                cells / mb / 1e6, mb / md, static_cast<unsigned long long>(per_iteration.messages_sent),
                static_cast<unsigned long long>(per_iteration.bytes_sent),
                static_cast<unsigned long long>(per_iteration.node_bytes), static_cast<unsigned long long>(ghost_bytes), grid.shape()[0], grid.shape()[1], row_stride,
                static_cast<long long>(base.block.pitch));
  }
  if (std::abs(sum_dmap - sum_base) > 1e-9 * std::max(1.0, std::abs(sum_base))) {
    std::fprintf(stderr, "bench_stencil: results differ on locale %d: dmap %.17g baseline %.17g\n", dmap::here(),
                 sum_dmap, sum_base);
    return 1;
  }
  return 0;
}
