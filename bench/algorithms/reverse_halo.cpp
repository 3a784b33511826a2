// reverse_halo: dmap::reduce_halos (every ghost cell summed into its owner) on a 2-D Stencil
// array of doubles with ghost width 1, against a hand-written reverse exchange in the same
// run: each rank keeps its block with one ghost layer (unpadded, pitch = columns + 2), sends
// its ghost rows from the array, packs its ghost columns, sends its 4 ghost corners (8
// neighbours, MPI_Isend/Irecv on a Cartesian communicator), then adds what arrives into its
// owned edge rows, columns and corners. Both are timed per reduction (the deposits stay in
// the ghost cells, so every repetition adds them again), then checked on fresh deposits.
//   mpirun -n P bench_algorithms reverse_halo [n=4096] [reps=200] [grid=RxC, R*C = P]
#include <dmap/dmap.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../timing.hpp"
#include "cases.hpp"

namespace {

using dmap::index_t;

// What rank q deposits into cell (i, j): small integers, so every sum is exact in double.
double deposit(index_t i, index_t j, int q) { return static_cast<double>(1 + (i * 7 + j * 3) % 5 + 10 * q); }

// The hand-written reverse halo: this rank's Block chunk of [0, n)^2 (the same cut and grid as
// dmap's) with one ghost layer.
struct baseline {
  index_t n;
  std::array<int, 2> dims{}, coords{};
  index_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;  // owned rows [r0, r1), columns [c0, c1)
  index_t rows = 0, cols = 0, pitch = 0;
  std::vector<double> a;
  MPI_Comm comm = MPI_COMM_NULL;
  // The 8 neighbours by direction (di, dj) in {-1, 0, 1}^2 minus (0, 0); MPI_PROC_NULL at the
  // edges. Index k = (di + 1) * 3 + (dj + 1).
  std::array<int, 9> peer{};
  std::array<std::vector<double>, 9> out, in;

  baseline(index_t size, const std::array<int, 2>& grid) : n(size), dims(grid) {
    int periods[2] = {0, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims.data(), periods, 0, &comm);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Cart_coords(comm, rank, 2, coords.data());
    for (int di = -1; di <= 1; ++di)
      for (int dj = -1; dj <= 1; ++dj) {
        std::array<int, 2> c{coords[0] + di, coords[1] + dj};
        int q = MPI_PROC_NULL;
        if (c[0] >= 0 && c[0] < dims[0] && c[1] >= 0 && c[1] < dims[1]) MPI_Cart_rank(comm, c.data(), &q);
        peer[static_cast<std::size_t>((di + 1) * 3 + dj + 1)] = (di == 0 && dj == 0) ? MPI_PROC_NULL : q;
      }
    const auto cut = [](index_t m, int p, int k) { return std::pair{(m * k + p - 1) / p, (m * (k + 1) + p - 1) / p}; };
    std::tie(r0, r1) = cut(n, dims[0], coords[0]);
    std::tie(c0, c1) = cut(n, dims[1], coords[1]);
    rows = r1 - r0, cols = c1 - c0, pitch = cols + 2;
    a.assign(static_cast<std::size_t>((rows + 2) * pitch), 0.0);
    for (int di = -1; di <= 1; ++di)
      for (int dj = -1; dj <= 1; ++dj) {
        const std::size_t len = static_cast<std::size_t>(di == 0 ? rows : 1) * static_cast<std::size_t>(dj == 0 ? cols : 1);
        out[static_cast<std::size_t>((di + 1) * 3 + dj + 1)].resize(len);
        in[static_cast<std::size_t>((di + 1) * 3 + dj + 1)].resize(len);
      }
  }
  baseline(const baseline&) = delete;
  baseline& operator=(const baseline&) = delete;
  ~baseline() { MPI_Comm_free(&comm); }

  double& at(index_t i, index_t j) { return a[static_cast<std::size_t>((i - r0 + 1) * pitch + (j - c0 + 1))]; }
  void fill(int q) {
    for (index_t i = r0 - 1; i <= r1; ++i)
      for (index_t j = c0 - 1; j <= c1; ++j) at(i, j) = deposit(i, j, q);
  }
  // The first local row and column of the ghost slab in direction (di, dj), and of the
  // owned slab the neighbour there holds as ghosts (its contributions land there).
  index_t ghost_row(int di) const { return di < 0 ? 0 : di > 0 ? rows + 1 : 1; }
  index_t ghost_col(int dj) const { return dj < 0 ? 0 : dj > 0 ? cols + 1 : 1; }
  index_t owned_row(int di) const { return di > 0 ? rows : 1; }
  index_t owned_col(int dj) const { return dj > 0 ? cols : 1; }

  void reduce() {
    std::array<MPI_Request, 16> req{};
    int nreq = 0;
    double* p = a.data();
    for (int di = -1; di <= 1; ++di)
      for (int dj = -1; dj <= 1; ++dj) {
        const auto k = static_cast<std::size_t>((di + 1) * 3 + dj + 1);
        if (peer[k] == MPI_PROC_NULL) continue;
        // What the neighbour in direction (di, dj) sends: its ghost slab in direction (-di, -dj).
        MPI_Irecv(in[k].data(), static_cast<int>(in[k].size()), MPI_DOUBLE, peer[k], 8 - static_cast<int>(k), comm,
                  &req[static_cast<std::size_t>(nreq++)]);
      }
    for (int di = -1; di <= 1; ++di)
      for (int dj = -1; dj <= 1; ++dj) {
        const auto k = static_cast<std::size_t>((di + 1) * 3 + dj + 1);
        if (peer[k] == MPI_PROC_NULL) continue;
        const index_t gi = ghost_row(di), gj = ghost_col(dj);
        const double* from = p + gi * pitch + gj;
        if (dj != 0 || di == 0) {  // a column or a corner: packed (a corner is one element)
          if (dj != 0 && di == 0)
            for (index_t r = 0; r < rows; ++r) out[k][static_cast<std::size_t>(r)] = from[r * pitch];
          else
            out[k][0] = *from;
          from = out[k].data();
        }
        MPI_Isend(from, static_cast<int>(out[k].size()), MPI_DOUBLE, peer[k], static_cast<int>(k), comm,
                  &req[static_cast<std::size_t>(nreq++)]);
      }
    MPI_Waitall(nreq, req.data(), MPI_STATUSES_IGNORE);
    for (int di = -1; di <= 1; ++di)
      for (int dj = -1; dj <= 1; ++dj) {
        const auto k = static_cast<std::size_t>((di + 1) * 3 + dj + 1);
        if (peer[k] == MPI_PROC_NULL) continue;
        double* to = p + owned_row(di) * pitch + owned_col(dj);
        const double* v = in[k].data();
        if (di == 0)
          for (index_t r = 0; r < rows; ++r) to[r * pitch] += v[r];
        else if (dj == 0)
          for (index_t c = 0; c < cols; ++c) to[c] += v[c];
        else
          *to += v[0];
      }
  }
};

int run(const std::vector<std::string>& args) {
  const index_t n = args.size() > 0 ? std::atoll(args[0].c_str()) : 4096;
  const int reps = args.size() > 1 ? std::atoi(args[1].c_str()) : 200;
  std::array<int, 2> shape = dmap::target_grid<2>::balanced(dmap::num_locales()).shape();
  if (args.size() > 2) {
    const auto x = args[2].find('x');
    const int r = x == std::string::npos ? 0 : std::atoi(args[2].substr(0, x).c_str());
    const int c = x == std::string::npos ? 0 : std::atoi(args[2].substr(x + 1).c_str());
    if (r <= 0 || c <= 0 || r * c != dmap::num_locales()) {
      if (dmap::here() == 0)
        std::fprintf(stderr, "reverse_halo: grid '%s' must be RxC with R * C = %d ranks (exit 77: skipped)\n",
                     args[2].c_str(), dmap::num_locales());
      return 77;
    }
    shape = {r, c};
  }
  const dmap::rect<2> whole{dmap::range(0, n), dmap::range(0, n)};
  dmap::domain<2> D{dmap::stencil<2>{{1, 1}, {false, false}, dmap::target_grid<2>{shape}}, whole};
  dmap::array<double, 2> A{D};
  baseline base(n, shape);
  const int me = dmap::here();
  const auto fill_dmap = [&] {
    for (const auto& b : A.local_blocks()) {
      const auto& f = b.layout.indices;
      for (index_t i = f.dim(0).lo(); i < f.dim(0).hi(); ++i)
        for (index_t j = f.dim(1).lo(); j < f.dim(1).hi(); ++j) b({i, j}) = deposit(i, j, me);
    }
  };

  fill_dmap();
  base.fill(me);
  const auto [t_dmap, t_base] = bench::median_times(reps, [&] { dmap::reduce_halos(A); }, [&] { base.reduce(); });
  const dmap::comm_counters c = bench::counters_of_repeat([&] { dmap::reduce_halos(A); });

  // The result: one reduction of fresh deposits on each side, compared element by element.
  fill_dmap();
  base.fill(me);
  dmap::reduce_halos(A);
  base.reduce();
  index_t wrong = 0;
  for (index_t i = base.r0; i < base.r1; ++i)
    for (index_t j = base.c0; j < base.c1; ++j) wrong += A.local({i, j}) != base.at(i, j);
  wrong = dmap::all_reduce_sum(wrong);

  // The least a correct program sends from locale 0: its ghost cells inside the domain.
  std::uint64_t min_bytes = 0;
  if (!D.local_layouts(0).empty()) {
    const auto frame = D.local_layouts(0).front().indices.intersect(whole);
    min_bytes = sizeof(double) * static_cast<std::uint64_t>(frame.size() - D.local_subdomains(0).front().size());
  }
  bench::print_seconds("reverse_halo", n * n, t_dmap, t_base, c, min_bytes);
  if (wrong != 0) {
    if (me == 0) std::fprintf(stderr, "reverse_halo: %lld elements differ from the baseline\n", static_cast<long long>(wrong));
    return 1;
  }
  return 0;
}

const bench::algorithms::registrar reg{{"reverse_halo", "[n=4096] [reps=200] [grid=RxC]", run}};

}  // namespace
