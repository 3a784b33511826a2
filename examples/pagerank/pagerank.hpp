// PageRank over a directed graph given as an edge list (an E x 2 int64 .npy file: source,
// target), on dmap: the links are the nonzeros (target, source) of a sparse domain whose rows are
// cut into blocks over the locales (CSR), the out-degrees are counted into a Block array by
// aggregation (one message per peer), and each iteration is one dmap::multiply between two
// reductions. Also an R-MAT generator for the example's, the test's and the benchmark's graphs.
#pragma once

#include <dmap/dmap.hpp>

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace pagerank {

using dmap::idx;
using dmap::index_t;

/// Edge k of the R-MAT graph with 2^scale vertices (Graph500's probabilities a = 0.57,
/// b = c = 0.19): each bit of (source, target) picks a quadrant from a hash of (k, bit), then
/// the vertex numbers are scrambled (a bijection of [0, 2^scale)) so that high degrees do not
/// gather at low numbers. Any locale computes any edge.
inline std::pair<std::int64_t, std::int64_t> rmat_edge(std::int64_t k, int scale) {
  const auto mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::uint64_t src = 0, dst = 0;
  for (int bit = 0; bit < scale; ++bit) {
    const double u = static_cast<double>(mix(static_cast<std::uint64_t>(k) * 64 + static_cast<std::uint64_t>(bit) + 0x5eed) >> 11) * 0x1.0p-53;
    const int quadrant = u < 0.57 ? 0 : u < 0.76 ? 1 : u < 0.95 ? 2 : 3;
    src = src << 1 | static_cast<std::uint64_t>(quadrant >> 1);
    dst = dst << 1 | static_cast<std::uint64_t>(quadrant & 1);
  }
  const std::uint64_t mask = scale >= 64 ? ~0ULL : (std::uint64_t{1} << scale) - 1;
  const auto scramble = [&](std::uint64_t v) {
    for (int round = 0; round < 2; ++round) {
      v = (v * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL) & mask;  // odd multiplier: a bijection mod 2^scale
      v ^= v >> (scale / 2 + 1);
    }
    return static_cast<std::int64_t>(v);
  };
  return {scramble(src), scramble(dst)};
}

/// Collective: the R-MAT graph of 2^scale vertices and `edges` edges as an edges x 2 array of
/// (source, target), rows in blocks over the locales (the layout of an edge-list .npy file).
inline dmap::array<std::int64_t, 2> rmat_edges(int scale, index_t edges) {
  const dmap::domain<2> rows{dmap::block<2>{dmap::target_grid<2>({dmap::num_locales(), 1})}, dmap::rect<2>{{0, edges}, {0, 2}}};
  dmap::array<std::int64_t, 2> e{rows};
  dmap::forall(dmap::zip(e, rows), [scale](std::int64_t& v, const idx<2>& i) {
    const auto [s, t] = rmat_edge(i[0], scale);
    v = i[1] == 0 ? s : t;
  });
  return e;
}

/// Collective: reads an edge list (an E x 2 int64 .npy file) into an E x 2 array, rows in
/// blocks over the locales.
inline dmap::array<std::int64_t, 2> read_edges(const std::string& path) {
  const auto header = dmap::read_npy_header(path);
  if (header.shape.size() != 2 || header.shape[1] != 2)
    throw dmap::shape_error("pagerank: " + path + " must hold an E x 2 array of (source, target) pairs");
  const dmap::domain<2> rows{dmap::block<2>{dmap::target_grid<2>({dmap::num_locales(), 1})},
                             dmap::rect<2>{{0, header.shape[0]}, {0, 2}}};
  dmap::array<std::int64_t, 2> e{rows};
  dmap::read_npy(path, e);
  return e;
}

/// A graph distributed for PageRank: the links as a sparse matrix A with A(t, s) = 1 for each
/// distinct edge s -> t (rows, the targets, in blocks over the locales), and the inverse of each
/// vertex's out-degree (0 for a vertex without out-links) in a Block array.
class graph {
 public:
  /// Collective: the graph of the edges of `edges` (E x 2: source, target) over `vertices`
  /// vertices (ids in [0, vertices): out_of_bounds_error on every locale otherwise). Repeated
  /// edges count once.
  graph(const dmap::array<std::int64_t, 2>& edges, index_t vertices)
      : parent_{dmap::block<2>{dmap::target_grid<2>({dmap::num_locales(), 1})}, dmap::rect<2>{{0, vertices}, {0, vertices}}},
        vertices_{dmap::block<1>{}, dmap::rect<1>{{0, vertices}}},
        links_(parent_, dmap::csr_layout<2>{}),
        matrix_(links_),
        inverse_degree_(vertices_) {
    const std::int64_t* e = edges.local_data();
    std::vector<idx<2>> mine(static_cast<std::size_t>(edges.local_size() / 2));
    for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = {e[2 * k + 1], e[2 * k]};  // (target, source)
    links_.add(std::span<const idx<2>>(mine));
    dmap::forall(matrix_, [](double& a) { a = 1; });
    // Out-degrees: each locale counts the sources of its links into the Block array.
    dmap::array<std::int64_t, 1> degree(vertices_);
    auto counts = dmap::accumulate(degree);
    dmap::forall(links_, [&](const idx<2>& link) { counts.add(link[1], 1); });
    counts.finish();
    dmap::forall(dmap::zip(inverse_degree_, degree),
                 [](double& inv, std::int64_t d) { inv = d > 0 ? 1.0 / static_cast<double>(d) : 0.0; });
  }

  /// The vertices' index set, [0, vertices).
  const dmap::domain<1>& vertices() const noexcept { return vertices_; }
  /// The links: (target, source) for each distinct edge.
  const dmap::sparse_domain<2>& links() const noexcept { return links_; }
  /// A(t, s) = 1 for each link.
  const dmap::sparse_array<double, 2>& matrix() const noexcept { return matrix_; }
  /// 1 / out-degree, 0 for a vertex without out-links.
  const dmap::array<double, 1>& inverse_degree() const noexcept { return inverse_degree_; }

 private:
  dmap::domain<2> parent_;
  dmap::domain<1> vertices_;
  dmap::sparse_domain<2> links_;
  dmap::sparse_array<double, 2> matrix_;
  dmap::array<double, 1> inverse_degree_;
};

/// What a PageRank run reports.
struct outcome {
  int iterations = 0;   ///< iterations done
  double change = 0;    ///< sum |r' - r| of the last iteration
};

/// Collective: PageRank with damping `d` from r = 1/N, until sum |r' - r| <= tol or
/// `max_iterations` iterations: r' = (1 - d)/N + d (A x + dangling/N), with x = r / out-degree
/// and dangling the rank of the vertices without out-links. The ranks sum to 1.
inline outcome run(const graph& g, dmap::array<double, 1>& rank, double d, double tol, int max_iterations) {
  const double n = static_cast<double>(g.vertices().size());
  dmap::array<double, 1> x(g.vertices()), y(g.vertices());
  dmap::forall(rank, [n](double& r) { r = 1.0 / n; });
  outcome out;
  while (out.iterations < max_iterations) {
    // x = r / out-degree; the dangling vertices' rank, summed.
    const double dangling = dmap::reduce(dmap::zip(x, rank, g.inverse_degree()), 0.0, std::plus<>{},
                                         [](double& xi, double r, double inv) {
                                           xi = r * inv;
                                           return inv == 0 ? r : 0.0;
                                         });
    dmap::multiply(g.matrix(), x, y);
    const double base = (1 - d) / n + d * dangling / n;
    out.change = dmap::reduce(dmap::zip(rank, y), 0.0, std::plus<>{}, [base, d](double& r, double yi) {
      const double next = base + d * yi;
      const double change = std::abs(next - r);
      r = next;
      return change;
    });
    ++out.iterations;
    if (out.change <= tol) break;
  }
  return out;
}

}  // namespace pagerank
