// PageRank (pagerank.hpp) over an edge list read from a .npy file, checked against a serial
// computation of the same file's graph (plain loops, on every locale): the same number of
// iterations, every vertex's rank within 1e-10 of the largest.
//   pagerank [scale=10] [edge_factor=8]   writes the R-MAT graph of 2^scale vertices and
//                                         edge_factor * 2^scale edges to pagerank-rmat-<scale>-<edges>-np<P>.npy
//                                         in the working directory (every locale at once), then reads it
//   pagerank FILE.npy                     reads an E x 2 int64 edge list (source, target); the
//                                         vertices are 0 .. the largest id
// Run as one locale or under mpirun -n P; prints the five highest ranks; exits 1 on a mismatch, 2 when the
// file is not an edge list (its dtype, shape or ids: the reason on stderr).
#include "pagerank.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using dmap::index_t;

constexpr double damping = 0.85, tolerance = 1e-10;
constexpr int most_iterations = 200;

/// The serial computation: the distinct edges sorted by (target, source), the same iteration.
struct serial_pagerank {
  std::vector<double> rank;
  pagerank::outcome out;

  serial_pagerank(std::vector<std::pair<std::int64_t, std::int64_t>> links, index_t n) {  // (target, source)
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    std::vector<double> inverse(static_cast<std::size_t>(n), 0.0), x(inverse.size()), y(inverse.size());
    for (const auto& [t, s] : links) inverse[static_cast<std::size_t>(s)] += 1;
    for (double& v : inverse) v = v > 0 ? 1 / v : 0.0;
    rank.assign(inverse.size(), 1.0 / static_cast<double>(n));
    while (out.iterations < most_iterations) {
      double dangling = 0;
      for (std::size_t v = 0; v < rank.size(); ++v) {
        x[v] = rank[v] * inverse[v];
        if (inverse[v] == 0) dangling += rank[v];
      }
      std::fill(y.begin(), y.end(), 0.0);
      for (const auto& [t, s] : links) y[static_cast<std::size_t>(t)] += x[static_cast<std::size_t>(s)];
      const double base = (1 - damping) / static_cast<double>(n) + damping * dangling / static_cast<double>(n);
      out.change = 0;
      for (std::size_t v = 0; v < rank.size(); ++v) {
        const double next = base + damping * y[v];
        out.change += std::abs(next - rank[v]);
        rank[v] = next;
      }
      ++out.iterations;
      if (out.change <= tolerance) break;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  std::string path;
  if (argc > 1 && std::string(argv[1]).ends_with(".npy")) {
    path = argv[1];
  } else {
    const int scale = argc > 1 ? std::atoi(argv[1]) : 10;
    const index_t factor = argc > 2 ? std::atoll(argv[2]) : 8;
    if (scale < 1 || scale > 30 || factor < 1 || factor > 64) {
      if (dmap::here() == 0) std::fprintf(stderr, "pagerank: scale in [1, 30], edge_factor in [1, 64]\n");
      return 2;
    }
    const index_t edges = factor << scale;
    // Named by the locale count too: ctest runs the example at several counts at once.
    path = "pagerank-rmat-" + std::to_string(scale) + "-" + std::to_string(edges) + "-np" + std::to_string(dmap::num_locales()) + ".npy";
    dmap::write_npy(path, pagerank::rmat_edges(scale, edges));
  }

  // A file that is not an edge list fails on every locale alike (dmap agrees its errors).
  std::optional<dmap::array<std::int64_t, 2>> read;
  std::optional<pagerank::graph> built;
  index_t n = 0;
  try {
    read.emplace(pagerank::read_edges(path));
    n = 1 + dmap::reduce(*read, std::int64_t{0}, dmap::maximum{});
    built.emplace(*read, n);
  } catch (const dmap::error& e) {
    if (dmap::here() == 0) std::fprintf(stderr, "pagerank: %s\n", e.what());
    return 2;
  }
  const auto& edges = *read;
  const pagerank::graph& g = *built;
  dmap::array<double, 1> rank(g.vertices());
  const pagerank::outcome out = pagerank::run(g, rank, damping, tolerance, most_iterations);

  // The serial computation of the file's graph: every locale reads every edge (a serial view).
  std::vector<std::pair<std::int64_t, std::int64_t>> links;
  const auto all = dmap::view(edges);
  for (auto it = all.begin(); it != all.end(); it += 2) links.emplace_back(it[1], it[0]);
  const serial_pagerank serial(std::move(links), n);
  const double largest = *std::max_element(serial.rank.begin(), serial.rank.end());
  const double error = dmap::reduce(dmap::zip(rank, g.vertices()), 0.0, dmap::maximum{}, [&](double r, const dmap::idx<1>& v) {
                         return std::abs(r - serial.rank[static_cast<std::size_t>(v[0])]);
                       }) / largest;
  const double total = dmap::reduce(rank, 0.0);
  const bool ok = out.iterations == serial.out.iterations && error <= 1e-10 && std::abs(total - 1) <= 1e-12;

  if (dmap::here() == 0) {
    std::vector<std::pair<double, index_t>> top;
    for (std::size_t v = 0; v < serial.rank.size(); ++v) top.emplace_back(-serial.rank[v], static_cast<index_t>(v));
    std::partial_sort(top.begin(), top.begin() + std::min<std::ptrdiff_t>(5, std::ssize(top)), top.end());
    std::printf("pagerank: %s: %lld vertices, %lld links on %d locales: %d iterations (serial %d), ranks sum to %.15f, "
                "differ from the serial ones by %.2g of the largest: %s\n  highest:",
                path.c_str(), static_cast<long long>(n), static_cast<long long>(g.links().size()), dmap::num_locales(),
                out.iterations, serial.out.iterations, total, error, ok ? "ok" : "MISMATCH");
    for (std::size_t k = 0; k < std::min<std::size_t>(5, top.size()); ++k)
      std::printf(" %lld (%.3g)", static_cast<long long>(top[k].second), -top[k].first);
    std::printf("\n");
  }
  return ok ? 0 : 1;
}
