// Sparse loops: the active cells of an n x n grid (a random quarter of them, fixed seed) as a
// CSR sparse domain over a row-Block parent, against hand-written oneTBB loops over the same
// cells in the same run:
//   sparse_reduce     reduce(A) (a sum over the values)  vs  a parallel sum over a plain array
//   sparse_zip_dense  forall(zip(A, X)) a += x, X dense over the parent (aligned: in place)
//                     vs  a CSR walk (row starts, column indices) reading X's local block
//   sparse_zip_staged the same with X over a Cyclic map (staged: gathered, no write-back)
//                     vs  the same CSR walk (the baseline needs no communication: its X is
//                     local, so the ratio shows the cost of a misaligned follower)
//   sparse_add        S.add(batch) into an empty CSR domain, every locale passing random cells of
//                     any owner  vs  hand-written MPI: owners by Block's formula, MPI_Alltoall of
//                     counts, MPI_Alltoallv of the cells, sort, unique, row starts
//   mpirun -n P --bind-to none ./bench_sparse_loops [n=4096] [repetitions=9]
#include <dmap/dmap.hpp>
#include <dmap/runtime/detail/thread_pool.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "timing.hpp"

namespace {

template <class F>
void on_threads(std::size_t count, F&& f) {
  dmap::detail::locale_arena().execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<std::size_t>(0, count, std::max<std::size_t>(1, count / dmap::num_threads())),
        [&](const oneapi::tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); },
        oneapi::tbb::static_partitioner{});
  });
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 9;
  const int p = dmap::num_locales();
  const dmap::rect<2> space{{0, n}, {0, n}};
  dmap::domain<2> grid{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, space};
  dmap::sparse_domain<2> cells{grid, dmap::csr_layout<2>{}};
  {
    // Each locale proposes the cells of its own rows (a quarter of them, the same on any P).
    const dmap::rect<2> mine = grid.local_subdomain();
    std::vector<dmap::idx<2>> chosen;
    for (std::int64_t r = mine.dim(0).first(); !mine.empty() && r <= mine.dim(0).last(); ++r) {
      std::mt19937_64 gen(static_cast<std::uint64_t>(r));
      for (std::int64_t c = 0; c < n; ++c)
        if (gen() % 4 == 0) chosen.push_back({r, c});
    }
    cells.add(chosen);
  }
  dmap::sparse_array<double, 2> A{cells, 0.0};
  dmap::forall(dmap::zip(A, cells), [](double& a, dmap::idx<2> i) { a = 1.0 / static_cast<double>(1 + i[0] + i[1]); });
  dmap::array<double, 2> X{grid, 0.5};
  const auto values = A.local_values();

  // sparse_reduce
  double sum_dmap = 0, sum_base = 0;
  auto [t_red, b_red] = bench::median_times(
      reps, [&] { sum_dmap = dmap::reduce(A, 0.0); },
      [&] {
        const double local = dmap::detail::locale_arena().execute([&] {
          return oneapi::tbb::parallel_reduce(
              oneapi::tbb::blocked_range<std::size_t>(0, values.size(),
                                                      std::max<std::size_t>(1, values.size() / dmap::num_threads())),
              0.0,
              [&](const oneapi::tbb::blocked_range<std::size_t>& r, double acc) {
                for (std::size_t k = r.begin(); k != r.end(); ++k) acc += values[k];
                return acc;
              },
              std::plus<>{}, oneapi::tbb::static_partitioner{});
        });
        sum_base = dmap::all_reduce_sum(local);
      });
  bench::print_seconds("sparse_reduce", cells.size(), t_red, b_red, bench::counters_of_repeat([&] { (void)dmap::reduce(A, 0.0); }),
        0);

  // sparse_zip_dense: the hand-written loop walks the CSR structure and X's local block.
  const auto zip_dense = [&] { dmap::forall(dmap::zip(A, std::as_const(X)), [](double& a, const double& x) { a += x; }); };
  const auto csr_walk = [&] {
    if (cells.local_pieces() == 0) return;
    const auto& csr = cells.local_layout<dmap::csr_layout<2>>(0);
    const auto& block = X.local_blocks().front();
    const auto starts = csr.starts();
    const auto minor = csr.minor();
    double* a = A.local_values().data();
    on_threads(starts.size() - 1, [&](std::size_t first, std::size_t last) {
      for (std::size_t r = first; r < last; ++r) {
        const double* xrow = block.data() + static_cast<std::int64_t>(r) * block.strides()[0];
        for (std::int64_t k = starts[r]; k < starts[r + 1]; ++k) a[k] += xrow[minor[static_cast<std::size_t>(k)][0]];
      }
    });
  };
  auto [t_zip, b_zip] = bench::median_times(reps, zip_dense, csr_walk);
  bench::print_seconds("sparse_zip_dense", cells.size(), t_zip, b_zip, bench::counters_of_repeat(zip_dense), 0);

  // sparse_zip_staged: X over another map, gathered before each loop.
  dmap::domain<2> cyclic_grid{dmap::cyclic<2>{}, space};
  dmap::array<double, 2> Y{cyclic_grid, 0.5};
  const auto zip_staged = [&] { dmap::forall(dmap::zip(A, std::as_const(Y)), [](double& a, const double& y) { a += y; }); };
  auto [t_stg, b_stg] = bench::median_times(reps, zip_staged, csr_walk);
  // The least locale 0 must send: the Y elements it owns at the cells of other locales, once.
  std::uint64_t wanted_from_0 = 0;
  for (const auto& i : cells.local_indices()) wanted_from_0 += dmap::here() != 0 && cyclic_grid.locale_of(i) == 0;
  const std::uint64_t remote = dmap::all_reduce_sum(wanted_from_0);
  const auto staged = bench::counters_of_repeat(zip_staged);
  bench::print_seconds("sparse_zip_staged", cells.size(), t_stg, b_stg, staged, remote * sizeof(double));
  // sparse_add: a batch of n * n / (4 * P) random cells per locale, any owners.
  std::vector<dmap::idx<2>> batch;
  {
    std::mt19937_64 gen(static_cast<std::uint64_t>(1000 + dmap::here()));
    const auto count = static_cast<std::size_t>(n * n / (4 * p));
    for (std::size_t k = 0; k < count; ++k)
      batch.push_back({static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(n)),
                       static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(n))});
  }
  std::int64_t added = 0, handmade = 0;
  const auto add_dmap = [&] {
    dmap::sparse_domain<2> fresh{grid, dmap::csr_layout<2>{}};
    fresh.add(batch);
    added = fresh.size();
  };
  const auto add_by_hand = [&] {
    // Block rows: locale k owns rows [ceil(n k / p), ceil(n (k + 1) / p)); owner floor(r p / n).
    std::vector<int> counts(static_cast<std::size_t>(p), 0), offsets(static_cast<std::size_t>(p) + 1, 0);
    for (const auto& i : batch) ++counts[static_cast<std::size_t>(i[0] * p / n)];
    for (int q = 0; q < p; ++q) offsets[static_cast<std::size_t>(q) + 1] = offsets[static_cast<std::size_t>(q)] + counts[static_cast<std::size_t>(q)];
    std::vector<std::int64_t> packed(2 * batch.size());
    std::vector<int> fill(offsets.begin(), offsets.end() - 1);
    for (const auto& i : batch) {
      const auto at = static_cast<std::size_t>(fill[static_cast<std::size_t>(i[0] * p / n)]++);
      packed[2 * at] = i[0], packed[2 * at + 1] = i[1];
    }
    std::vector<int> incoming(static_cast<std::size_t>(p));
    MPI_Alltoall(counts.data(), 1, MPI_INT, incoming.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> scounts(static_cast<std::size_t>(p)), sdispl(static_cast<std::size_t>(p)), rcounts(static_cast<std::size_t>(p)),
        rdispl(static_cast<std::size_t>(p));
    int total = 0;
    for (int q = 0; q < p; ++q) {
      const auto u = static_cast<std::size_t>(q);
      scounts[u] = 2 * counts[u], sdispl[u] = 2 * offsets[u], rcounts[u] = 2 * incoming[u], rdispl[u] = total;
      total += rcounts[u];
    }
    std::vector<std::int64_t> received(static_cast<std::size_t>(total));
    MPI_Alltoallv(packed.data(), scounts.data(), sdispl.data(), MPI_INT64_T, received.data(), rcounts.data(),
                  rdispl.data(), MPI_INT64_T, MPI_COMM_WORLD);
    std::vector<std::pair<std::int64_t, std::int64_t>> cells(received.size() / 2);
    for (std::size_t k = 0; k < cells.size(); ++k) cells[k] = {received[2 * k], received[2 * k + 1]};
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    const std::int64_t first_row = (n * dmap::here() + p - 1) / p, last_row = (n * (dmap::here() + 1) + p - 1) / p;
    std::vector<std::int64_t> starts(static_cast<std::size_t>(last_row - first_row) + 1, 0), columns(cells.size());
    for (std::size_t k = 0; k < cells.size(); ++k) {
      ++starts[static_cast<std::size_t>(cells[k].first - first_row) + 1];
      columns[k] = cells[k].second;
    }
    for (std::size_t r = 1; r < starts.size(); ++r) starts[r] += starts[r - 1];
    handmade = dmap::all_reduce_sum(static_cast<std::int64_t>(cells.size()));
  };
  auto [t_add, b_add] = bench::median_times(reps, add_dmap, add_by_hand);
  std::uint64_t sent_by_0 = 0;  // the cells locale 0 must send: those other locales own
  if (dmap::here() == 0)
    for (const auto& i : batch) sent_by_0 += grid.locale_of(i) != 0;
  bench::print_seconds("sparse_add", static_cast<std::int64_t>(batch.size()) * p, t_add, b_add, bench::counters_of_repeat(add_dmap),
        dmap::all_reduce_sum(sent_by_0) * sizeof(dmap::idx<2>));
  if (added != handmade && dmap::here() == 0) std::printf("# MISMATCH: dmap added %lld cells, by hand %lld\n", static_cast<long long>(added), static_cast<long long>(handmade));
  if (sum_dmap != sum_base && dmap::here() == 0) std::printf("# note: sums differ in grouping: %.17g vs %.17g\n", sum_dmap, sum_base);
  return 0;
}
