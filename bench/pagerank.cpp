// PageRank over an R-MAT graph (examples/pagerank/pagerank.hpp) against a hand-written MPI +
// oneTBB implementation in the same run, a fixed number of iterations each (tol 0), the time per
// iteration compared; the graph's construction is timed once on each side and reported.
//
// The baseline is what an MPI programmer writes for the same layout: each rank generates its
// block of the edges, routes each (target, source) pair to the target's owner (Block cut of the
// vertices) with MPI_Alltoall of counts and MPI_Alltoallv, sorts and deduplicates its rows,
// counts out-degrees into a vector of all vertices and sums them to their owners with
// MPI_Reduce_scatter, multiplies with the CSR SpMV of bench/csr_baseline.hpp, and runs the same
// two fused loops per iteration, each ending in MPI_Allreduce. The ranks of both must agree.
//   mpirun -n P --bind-to none ./bench_pagerank [scale=18] [edge_factor=16] [iterations=20] [repetitions=5]
#include "../examples/pagerank/pagerank.hpp"
#include "csr_baseline.hpp"
#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

namespace {

using dmap::index_t;

constexpr double damping = 0.85;

/// The hand-written PageRank: this rank's rows (targets) [r0, r1) of the link matrix.
struct hand_pagerank {
  index_t n;
  std::vector<std::vector<index_t>> sources;  // per local target: its distinct sources, ascending
  std::vector<double> inverse, rank;          // per local vertex
  std::optional<bench::csr_spmv> a;

  hand_pagerank(int scale, index_t edges) : n(index_t{1} << scale) {
    const int p = dmap::num_locales(), me = dmap::here();
    const index_t r0 = bench::cut(n, p, me), r1 = bench::cut(n, p, me + 1);
    const auto owner = [&](index_t v) {
      int lo = 0, hi = p;  // the q with cut(q) <= v < cut(q + 1)
      while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        (bench::cut(n, p, mid) <= v ? lo : hi) = mid;
      }
      return lo;
    };
    // This rank's edges, routed to the targets' owners.
    const index_t e0 = bench::cut(edges, p, me), e1 = bench::cut(edges, p, me + 1);
    std::vector<int> counts(static_cast<std::size_t>(p), 0), incoming(static_cast<std::size_t>(p));
    std::vector<std::pair<std::int64_t, std::int64_t>> mine;
    for (index_t k = e0; k < e1; ++k) {
      const auto [s, t] = pagerank::rmat_edge(k, scale);
      mine.emplace_back(t, s);
    }
    std::sort(mine.begin(), mine.end(), [&](const auto& x, const auto& y) { return owner(x.first) < owner(y.first); });
    for (const auto& l : mine) counts[static_cast<std::size_t>(owner(l.first))] += 2;
    MPI_Alltoall(counts.data(), 1, MPI_INT, incoming.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> sdispl(static_cast<std::size_t>(p), 0), rdispl(static_cast<std::size_t>(p), 0);
    for (int q = 1; q < p; ++q) {
      sdispl[static_cast<std::size_t>(q)] = sdispl[static_cast<std::size_t>(q - 1)] + counts[static_cast<std::size_t>(q - 1)];
      rdispl[static_cast<std::size_t>(q)] = rdispl[static_cast<std::size_t>(q - 1)] + incoming[static_cast<std::size_t>(q - 1)];
    }
    std::vector<std::int64_t> received(static_cast<std::size_t>(rdispl.back() + incoming.back()));
    MPI_Alltoallv(mine.data(), counts.data(), sdispl.data(), MPI_INT64_T, received.data(), incoming.data(), rdispl.data(),
                  MPI_INT64_T, MPI_COMM_WORLD);
    // Rows: distinct sources per target; out-degrees of all vertices, summed at their owners.
    sources.resize(static_cast<std::size_t>(r1 - r0));
    for (std::size_t k = 0; k < received.size(); k += 2)
      sources[static_cast<std::size_t>(received[k] - r0)].push_back(received[k + 1]);
    std::vector<std::int64_t> degree(static_cast<std::size_t>(n), 0), my_degree(static_cast<std::size_t>(r1 - r0));
    for (auto& row : sources) {
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end()), row.end());
      for (const index_t s : row) ++degree[static_cast<std::size_t>(s)];
    }
    std::vector<int> block(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) block[static_cast<std::size_t>(q)] = static_cast<int>(bench::cut(n, p, q + 1) - bench::cut(n, p, q));
    MPI_Reduce_scatter(degree.data(), my_degree.data(), block.data(), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    inverse.resize(my_degree.size());
    for (std::size_t v = 0; v < inverse.size(); ++v) inverse[v] = my_degree[v] > 0 ? 1.0 / static_cast<double>(my_degree[v]) : 0.0;
    rank.resize(inverse.size());
    a.emplace(n, [&](index_t r, std::vector<index_t>& cols) {
      const auto& row = sources[static_cast<std::size_t>(r - r0)];
      cols.insert(cols.end(), row.begin(), row.end());
    }, [](index_t, index_t) { return 1.0; });
  }

  /// `iterations` iterations from r = 1/N; the last sum |r' - r|.
  double run(int iterations) {
    const index_t rows = static_cast<index_t>(rank.size());
    double* __restrict r = rank.data();
    double* __restrict x = a->xv.data();
    const double* __restrict y = a->y.data();
    const double* __restrict inv = inverse.data();
    const double nn = static_cast<double>(n);
    std::fill(rank.begin(), rank.end(), 1.0 / nn);
    double change = 0;
    for (int it = 0; it < iterations; ++it) {
      const double dangling = bench::parallel_sum(rows, [&](index_t first, index_t last) {
        double s = 0;
        for (index_t v = first; v < last; ++v) {
          x[v] = r[v] * inv[v];
          s += inv[v] == 0 ? r[v] : 0.0;
        }
        return s;
      });
      a->multiply();
      const double base = (1 - damping) / nn + damping * dangling / nn;
      change = bench::parallel_sum(rows, [&](index_t first, index_t last) {
        double s = 0;
        for (index_t v = first; v < last; ++v) {
          const double next = base + damping * y[v];
          s += std::abs(next - r[v]);
          r[v] = next;
        }
        return s;
      });
    }
    return change;
  }
};

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const int scale = argc > 1 ? std::atoi(argv[1]) : 18;
  const index_t factor = argc > 2 ? std::atoll(argv[2]) : 16;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 20;
  const int repetitions = argc > 4 ? std::atoi(argv[4]) : 5;
  if (scale < 1 || scale > 30 || factor < 1 || iterations < 1 || repetitions < 1) {
    if (dmap::here() == 0) std::fprintf(stderr, "bench_pagerank: scale in [1, 30], edge_factor, iterations, repetitions >= 1\n");
    return 2;
  }
  const index_t edges = factor << scale;
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return dmap::all_reduce_max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  };

  dmap::barrier();
  auto t = std::chrono::steady_clock::now();
  const pagerank::graph g(pagerank::rmat_edges(scale, edges), index_t{1} << scale);
  const double build_dmap = seconds_since(t);
  dmap::barrier();
  t = std::chrono::steady_clock::now();
  hand_pagerank base(scale, edges);
  const double build_base = seconds_since(t);

  dmap::array<double, 1> rank(g.vertices());
  pagerank::outcome out;
  double base_change = 0;
  const auto counted = [&](int k) {
    dmap::reset_counters();
    (void)pagerank::run(g, rank, damping, 0.0, k);
    return dmap::counters();
  };
  (void)counted(1);  // builds the product's plan
  const dmap::comm_counters one_iteration = counted(1), two_iterations = counted(2);
  const dmap::comm_counters per_iteration = two_iterations - one_iteration;
  const auto [td, tb] = bench::median_times(
      repetitions, [&] { out = pagerank::run(g, rank, damping, 0.0, iterations); }, [&] { base_change = base.run(iterations); });

  // Both computed the same ranks (the same rows: the vertices' Block cut).
  double worst = 0, largest = 0;
  const double* mine = rank.local_data();
  for (std::size_t v = 0; v < base.rank.size(); ++v)
    worst = std::max(worst, std::abs(mine[v] - base.rank[v])), largest = std::max(largest, base.rank[v]);
  worst = dmap::all_reduce_max(worst) / dmap::all_reduce_max(largest);  // relative to the largest rank
  const bool same_rows = dmap::all_of_locales(rank.local_size() == static_cast<index_t>(base.rank.size()));
  if (dmap::here() == 0)
    std::printf("bench pagerank ranks=%d threads=%d transfers=%s n=%lld dmap=%.6f baseline=%.6f unit=s/iteration ratio=%.3f "
                "msgs=%llu bytes=%llu node_bytes=%llu collectives=%llu min_bytes=%llu links=%lld edges=%lld iterations=%d "
                "build_dmap_s=%.2f build_baseline_s=%.2f change=%.3e ranks_differ=%.1e\n",
                dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(index_t{1} << scale),
                td / iterations, tb / iterations, tb / td, static_cast<unsigned long long>(per_iteration.messages_sent),
                static_cast<unsigned long long>(per_iteration.bytes_sent),
                static_cast<unsigned long long>(per_iteration.node_bytes),
                static_cast<unsigned long long>(per_iteration.collectives),
                static_cast<unsigned long long>(base.a->sent_values * sizeof(double)), static_cast<long long>(g.links().size()),
                static_cast<long long>(edges), iterations, build_dmap, build_base, out.change, worst);
  if (!same_rows || !(worst <= 1e-10)) {
    if (dmap::here() == 0)
      std::fprintf(stderr, "bench_pagerank: dmap and the baseline differ (ranks by %.3g of the largest; last changes %.17g / %.17g)\n",
                   worst, out.change, base_change);
    return 1;
  }
  return 0;
}
