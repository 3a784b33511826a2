// Conformance suite: every distribution passes the same checks against brute-force oracles.
//
// The checks are dmap's conformance kit (conformance/, installed with the package, so a user's
// map passes the same ones: examples/check_custom_dist); this file is its Catch2 driver. It runs
// the kit over "factories", each making a distribution for a target grid and an index set, with
// the distribution's documented rules (who owns an index, which index sets it refuses) written
// out here as oracles: Block, Stencil (fluff 1 and 2, periodic or not), Cyclic (default and
// explicit start), BlockCyclic (several block sizes, row- and column-major storage), Irregular
// Block (cut points drawn inside the index set's bounds, so valid for any locale count), four
// Dimensional mixes (block x cyclic, block_cyclic x irregular, cyclic x block_cyclic x block in
// 3-D, unstructured x none) and the user-defined custom_dist::weighted_block
// (examples/custom_dist), and the maps kept in a directory: Hashed (the default hash or a
// random affine mapper) and Unstructured (random per-locale lists). The placement checks work
// from each locale's own report of its pieces, so they hold for maps where only a locale
// itself knows its pieces; the others must answer local_subdomains(q) for any q exactly as q
// reports. Maps whose locales hold copies (Replicated, replicated dimensions) break the exact
// cover by design (each copy layer covers the index set) and have their own suite with the
// same oracle style (tests/dists/test_copies.cpp).
//
// Random cases come from the kit's std::mt19937_64, seeded alike on every locale (no draw ever
// depends on the locale): 1-3 dimensions (10 cases each; maps of one dimension count get 30),
// extents 0..25 (empty in three forms, fewer indices than locales), strides 1, 2 and -1 with
// loose or tight bounds, every factorisation of the locale count as an explicit grid or the
// default grid, row- or column-major storage; plus one large unit-stride case per dimension
// count so that pieces are cut into several chunks. Index sets a distribution documents as
// refused (stencil chunks thinner than the ghost width, irregular cut points outside the
// bounds, values outside an unstructured dimension's lists) are predicted by an oracle and
// must be refused with an argument_error on every locale; everything else must be accepted.
//
// The oracles read a range only through lo, hi, stride and alignment, and list its indices by
// scanning every integer of [lo, hi) for (i - alignment) mod |stride| == 0 (descending for a
// negative stride); a rect is the row-major product of its dimensions. Element values are
// formulas of the index. For every case the kit checks (numbered as in its results):
//   0. an index set the map documents as refused throws argument_error on every locale, any
//      other is accepted; a map equals its copy;
//   1. exact cover: each index is in exactly one locale's local_subdomains(q); nothing else is;
//   2. locale_of agrees with local_subdomains, and with the distribution's documented owner rule
//      written out independently (Block's cut, (i - start) mod p, block j -> j mod p, cut points,
//      weighted row shares, the mapper, the lists);
//   3. storage: local_layouts(q)[k] holds local_subdomains(q)[k]; offset_of(i) is the offset plus
//      the positions (in each dimension's iteration order) times the strides, lies in
//      [0, buffer size), no two stored indices share an element, storage is compact; writing f(i)
//      through A.local(i) and reading local_blocks()[k] at that offset gives f(i); arrays start
//      value-initialised; the DSI local descriptor (local()) agrees;
//   4. chunks: the local pieces densified against the whole, cut for 1, 2, 3 and 7 threads and
//      undensified, cover the local part exactly once, each inside its piece;
//   5. follower order: forall(zip(T, C, D)) hands each element with its own index, visits each
//      owned index once, and within every chunk in row-major order (each element records a
//      per-thread tick, which must increase along each chunk's row-major order);
//   6. forall, zip and reduce against serial oracles (sum, min, max, zip transform-reduce, a
//      domain reduce), the same result on every locale; dmap::view of the array and of the
//      domain and gather() equal the row-major oracle; A[i] reads any element, and ghost copies
//      (Stencil's) hold the owner's values after update_halos;
//   7. resize: set_indices (grow, shrink, shift, or an unrelated rect) keeps surviving values
//      and value-initialises new ones, and 1-3 hold for the new index set (a refused resize
//      leaves domain and arrays untouched); B = A to a Block array over the same indices and
//      back gives the same values;
// and, outside the kit:
//   8. Private: private_space() has index q on locale q; its arrays reduce correctly; any other
//      index set is refused with an argument_error on every locale;
//   error paths per distribution: block size 0, cut points out of order, outside the bounds or
//   too many / too few, grids that do not multiply to the locale count, bad fluff, bad weights:
//   each an argument_error on every locale.
// tests/conformance/test_conformance_broken_maps.cpp checks that the kit fails maps that break the rules.
//
// The kit agrees on every check collectively (every locale gets the same result, naming the
// locales where a check failed); local checks collect their failures (and any exception), so an
// unexpected throw on one locale never leaves the others waiting in a collective. Each check of
// a result becomes one CHECK here.
#include "../support.hpp"

#include "../../conformance/conformance.hpp"
#include "../../examples/custom_dist/weighted_block.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace test_conformance {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

namespace kit = dmap::conformance;
using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using gen = kit::random_engine;
using kit::detail::str;

// ------------------------------------------------------------------------------- arithmetic

index_t pmod(index_t a, index_t m) { return ((a % m) + m) % m; }
/// floor(a / b) for b > 0.
index_t fdiv(index_t a, index_t b) { return (a - pmod(a, b)) / b; }
/// ceil(a / b) for a >= 0, b > 0.
index_t cdiv(index_t a, index_t b) { return (a + b - 1) / b; }
/// A uniform draw from [lo, hi].
index_t draw(gen& g, index_t lo, index_t hi) {
  return lo + static_cast<index_t>(g() % static_cast<std::uint64_t>(hi - lo + 1));
}

// ------------------------------------------------------------------------------- the kit's results

/// One CHECK per check of `r` (the kit agreed on it, so every locale checks the same).
void require_passed(const kit::result& r) {
  for (const auto& c : r.checks()) {
    std::string locales;
    for (int q : c.failing_locales) locales += (locales.empty() ? "" : ", ") + std::to_string(q);
    INFO(r.subject() << ": " << c.name << " (" << c.runs << " runs)");
    INFO("failed in " << c.failed_runs << " runs, " << c.failures << " failures, on locale(s) " << locales
                      << "; the first: " << c.first_failure);
    CHECK(c.ok());
  }
}

/// Collective: `value` is the same on every locale and equals `want`.
template <class T>
void check_everywhere(const T& value, const T& want, const std::string& what) {
  const auto all = dmap::all_gather(value);
  bool same = true;
  for (const auto& v : all) same = same && v == all.front();
  INFO(what << ": here " << value << ", expected " << want);
  DMAP_CHECK_ALL(same && value == want);
}

// ------------------------------------------------------------------------------- index sets

/// The indices of each dimension of a rect (brute force), with their bounds.
template <std::size_t N>
struct dims_of {
  std::array<std::vector<index_t>, N> seq{};
  explicit dims_of(const rect<N>& r) {
    for (std::size_t d = 0; d < N; ++d) seq[d] = kit::indices_of(r.dim(d));
  }
  /// The smallest index of dimension d, and one past the largest (dimension not empty).
  index_t low(std::size_t d) const { return std::min(seq[d].front(), seq[d].back()); }
  index_t high(std::size_t d) const { return std::max(seq[d].front(), seq[d].back()) + 1; }
};

/// Locale id of grid coordinates c, in C order.
template <std::size_t N>
int locale_id(const std::array<int, N>& shape, const std::array<int, N>& c) {
  int q = 0;
  for (std::size_t d = 0; d < N; ++d) q = q * shape[d] + c[d];
  return q;
}
template <std::size_t N>
std::array<int, N> coords_of(const std::array<int, N>& shape, int q) {
  std::array<int, N> c{};
  for (std::size_t d = N; d-- > 0;) {
    c[d] = q % shape[d];
    q /= shape[d];
  }
  return c;
}

// ------------------------------------------------------------------------------- owner oracles

/// Block's documented cut: along a dimension whose indices span [lo, hi), part
/// floor((i - lo) * p / (hi - lo)) owns i.
int block_part(index_t lo, index_t hi, int p, index_t i) {
  return static_cast<int>((i - lo) * p / (hi - lo));
}

/// The grid coordinate owning index i along one dimension, by each specifier's documented rule.
int spec_part(const dmap::dim_spec& spec, index_t lo, index_t hi, int p, index_t i) {
  if (const auto* c = std::get_if<dmap::cyclic_dim>(&spec))
    return static_cast<int>(pmod(i - c->start.value_or(lo), p));
  if (const auto* b = std::get_if<dmap::block_cyclic_dim>(&spec))
    return static_cast<int>(pmod(fdiv(i - b->start.value_or(lo), b->block_size), p));
  if (const auto* r = std::get_if<dmap::irregular_dim>(&spec)) {
    int k = 0;
    for (index_t c : r->cuts) k += c <= i ? 1 : 0;
    return k;
  }
  return block_part(lo, hi, p, i);
}

/// The owner of each index of one index set.
template <std::size_t N>
using owner_fn = std::function<int(const idx<N>&)>;

/// A distribution made by a factory, with its documented rules as oracles.
template <std::size_t N, class Dist>
using made = kit::map_with_rules<Dist, N>;

/// The documented owner rule of a dimensional map: a specifier per dimension, C-order grid.
template <std::size_t N>
kit::owner_rule<N> dimensional_owner(const std::array<dmap::dim_spec, N>& specs, const std::array<int, N>& shape) {
  return [specs, shape](const rect<N>& whole) -> owner_fn<N> {
    const dims_of<N> w(whole);
    std::array<index_t, N> lo{}, hi{};
    for (std::size_t d = 0; d < N; ++d)
      if (!w.seq[d].empty()) lo[d] = w.low(d), hi[d] = w.high(d);
    return [specs, shape, lo, hi](const idx<N>& i) {
      std::array<int, N> c{};
      for (std::size_t d = 0; d < N; ++d) c[d] = spec_part(specs[d], lo[d], hi[d], shape[d], i[d]);
      return locale_id(shape, c);
    };
  };
}
/// Irregular cut points must lie within [lowest index, highest index + 1] of each nonempty dimension.
template <std::size_t N>
kit::refusal_rule<N> dimensional_rejects(const std::array<dmap::dim_spec, N>& specs) {
  return [specs](const rect<N>& whole) {
    const dims_of<N> w(whole);
    for (std::size_t d = 0; d < N; ++d) {
      const auto* ir = std::get_if<dmap::irregular_dim>(&specs[d]);
      if (ir == nullptr || w.seq[d].empty()) continue;
      for (index_t c : ir->cuts)
        if (c < w.low(d) || c > w.high(d)) return true;
    }
    return false;
  };
}

template <std::size_t N, class Dist>
made<N, Dist> dimensional_made(Dist dist, const std::array<dmap::dim_spec, N>& specs,
                               const std::array<int, N>& shape) {
  return {std::move(dist), dimensional_owner<N>(specs, shape), dimensional_rejects<N>(specs)};
}

// ------------------------------------------------------------------------------- random parameters

dmap::storage_order random_order(gen& g) {
  return g() % 2 ? dmap::storage_order::column_major : dmap::storage_order::row_major;
}
std::optional<index_t> random_start(gen& g) {
  if (g() % 2) return std::nullopt;
  return draw(g, -20, 20);
}
index_t random_block_size(gen& g) {
  static constexpr index_t sizes[] = {1, 2, 3, 5};
  return sizes[g() % 4];
}
/// p - 1 nondecreasing cut points inside the bounds of dimension d (anywhere near 0 when empty).
template <std::size_t N>
std::vector<index_t> random_cuts(gen& g, const rect<N>& whole, std::size_t d, int p) {
  const dims_of<N> w(whole);
  std::vector<index_t> cuts;
  for (int k = 0; k + 1 < p; ++k)
    cuts.push_back(w.seq[d].empty() ? draw(g, -5, 5) : draw(g, w.low(d), w.high(d)));
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

// ------------------------------------------------------------------------------- factories
//
// A factory: `label()`, `supports<N>`, `explicit_grids` (false: the map fixes its own grid and
// ignores the one it is given), `make<N>(g, grid, whole)` -> made<N, Dist> (draws its parameters
// from g, identically on every locale), and `bad_arguments()`: constructions that must throw
// argument_error on every locale.

using bad_list = std::vector<std::pair<std::string, std::function<void()>>>;

/// A domain of `dist` over `r` (collective), for the error paths.
template <std::size_t N, class Dist>
void build_domain(const Dist& dist, const rect<N>& r) {
  dmap::domain<N> D{dist, r};
  (void)D;
}

struct block_f {
  static std::string label() { return "block"; }
  template <std::size_t N>
  static constexpr bool supports = true;
  static constexpr bool explicit_grids = true;
  template <std::size_t N>
  static made<N, dmap::block<N>> make(gen& g, const dmap::target_grid<N>& grid, const rect<N>&) {
    const auto order = random_order(g);
    std::array<dmap::dim_spec, N> specs;
    for (auto& s : specs) s = dmap::block_dim{};
    return dimensional_made<N>(dmap::block<N>(grid, order), specs, grid.shape());
  }
  static bad_list bad_arguments() {
    return {{"block: a bounding box with stride 2",
             [] { dmap::block<1> b(rect<1>{range(0, 10, 2)}); }},
            {"block: an empty bounding box", [] { dmap::block<2> b(rect<2>{range(0, 4), range(3, 3)}); }}};
  }
};

/// The ghost-width rule: a locale owning indices holds at least fluff[d] of them along every
/// dimension that exchanges ghosts (more than one locale along it, or periodic).
template <std::size_t N>
kit::refusal_rule<N> stencil_rejects(const std::array<int, N>& shape, const idx<N>& fluff,
                                     const std::array<bool, N>& periodic) {
  return [shape, fluff, periodic](const rect<N>& whole) {
    const dims_of<N> w(whole);
    std::array<std::vector<index_t>, N> counts;
    for (std::size_t d = 0; d < N; ++d) {
      counts[d].assign(static_cast<std::size_t>(shape[d]), 0);
      for (index_t i : w.seq[d]) ++counts[d][static_cast<std::size_t>(block_part(w.low(d), w.high(d), shape[d], i))];
    }
    int p = 1;
    for (int e : shape) p *= e;
    for (int q = 0; q < p; ++q) {
      const auto c = coords_of(shape, q);
      bool owns = true;
      for (std::size_t d = 0; d < N; ++d) owns = owns && counts[d][static_cast<std::size_t>(c[d])] > 0;
      if (!owns) continue;
      for (std::size_t d = 0; d < N; ++d) {
        const bool exchanges = shape[d] > 1 || periodic[d];
        if (exchanges && fluff[d] > 0 && counts[d][static_cast<std::size_t>(c[d])] < fluff[d]) return true;
      }
    }
    return false;
  };
}

template <int Fluff, bool Periodic>
struct stencil_f {
  static std::string label() { return str("stencil(fluff ", Fluff, Periodic ? ", periodic)" : ")"); }
  template <std::size_t N>
  static constexpr bool supports = true;
  static constexpr bool explicit_grids = true;
  template <std::size_t N>
  static made<N, dmap::stencil<N>> make(gen& g, const dmap::target_grid<N>& grid, const rect<N>&) {
    const auto order = random_order(g);
    idx<N> fluff{};
    fluff.fill(Fluff);
    std::array<bool, N> periodic{};
    periodic.fill(Periodic);
    std::array<dmap::dim_spec, N> specs;
    for (auto& s : specs) s = dmap::block_dim{};
    auto m = dimensional_made<N>(dmap::stencil<N>(fluff, periodic, grid, order), specs, grid.shape());
    m.refuses = stencil_rejects<N>(grid.shape(), fluff, periodic);
    return m;
  }
  static bad_list bad_arguments() {
    const int p = dmap::num_locales();
    bad_list out{{"stencil: fluff -1", [] { dmap::stencil<2> s(idx<2>{1, -1}); }},
                 {"stencil: periodic, one index, fluff 2 (chunk thinner than the ghost width)",
                  [] { build_domain<1>(dmap::stencil<1>(idx<1>{2}, {true}), rect<1>{range(0, 1)}); }},
                 {"stencil: set_indices to chunks thinner than the ghost width", [] {
                    dmap::domain<1> D{dmap::stencil<1>(idx<1>{2}, {true}), rect<1>{range(0, 10)}};
                    D.set_indices(rect<1>{range(0, 1)});
                  }}};
    if (p > 1)
      out.push_back({"stencil: one index per locale, fluff 2, not periodic", [p] {
                       build_domain<1>(dmap::stencil<1>(idx<1>{2}), rect<1>{range(0, p)});
                     }});
    return out;
  }
};

template <bool ExplicitStart>
struct cyclic_f {
  static std::string label() { return ExplicitStart ? "cyclic(explicit start)" : "cyclic"; }
  template <std::size_t N>
  static constexpr bool supports = true;
  static constexpr bool explicit_grids = true;
  template <std::size_t N>
  static made<N, dmap::cyclic<N>> make(gen& g, const dmap::target_grid<N>& grid, const rect<N>&) {
    const auto order = random_order(g);
    std::optional<idx<N>> start;
    if (ExplicitStart) {
      idx<N> s{};
      for (auto& v : s) v = draw(g, -20, 20);
      start = s;
    }
    std::array<dmap::dim_spec, N> specs;
    for (std::size_t d = 0; d < N; ++d)
      specs[d] = dmap::cyclic_dim{start ? std::optional<index_t>((*start)[d]) : std::nullopt};
    return dimensional_made<N>(dmap::cyclic<N>(start, grid, order), specs, grid.shape());
  }
  static bad_list bad_arguments() { return {}; }
};

template <dmap::storage_order Order>
struct block_cyclic_f {
  static std::string label() {
    return Order == dmap::storage_order::row_major ? "block_cyclic(row-major)" : "block_cyclic(column-major)";
  }
  template <std::size_t N>
  static constexpr bool supports = true;
  static constexpr bool explicit_grids = true;
  template <std::size_t N>
  static made<N, dmap::block_cyclic<N>> make(gen& g, const dmap::target_grid<N>& grid, const rect<N>&) {
    idx<N> bs{};
    for (auto& b : bs) b = random_block_size(g);
    std::optional<idx<N>> start;
    if (g() % 2) {
      idx<N> s{};
      for (auto& v : s) v = draw(g, -20, 20);
      start = s;
    }
    std::array<dmap::dim_spec, N> specs;
    for (std::size_t d = 0; d < N; ++d)
      specs[d] = dmap::block_cyclic_dim{bs[d], start ? std::optional<index_t>((*start)[d]) : std::nullopt};
    return dimensional_made<N>(dmap::block_cyclic<N>(bs, start, grid, Order), specs, grid.shape());
  }
  static bad_list bad_arguments() {
    return {{"block_cyclic: block size 0", [] { dmap::block_cyclic<1> b(idx<1>{0}); }},
            {"block_cyclic: block size 0 in dimension 1", [] { dmap::block_cyclic<2> b(idx<2>{3, 0}); }},
            {"block_cyclic: block size -2", [] { dmap::block_cyclic<2> b(idx<2>{-2, 4}); }},
            {"block_cyclic: block size 0 with a start",
             [] { dmap::block_cyclic<3> b(idx<3>{1, 2, 0}, idx<3>{0, 0, 0}); }}};
  }
};

/// Error paths shared by every map with irregular cut points along dimension 0 (1-D grid of P).
bad_list irregular_bad_arguments(const std::string& who,
                                 const std::function<void(std::vector<index_t>, const rect<1>&)>& build) {
  const int p = dmap::num_locales();
  bad_list out;
  out.push_back({who + ": one cut point too many", [build, p] {
                   std::vector<index_t> cuts;
                   for (int k = 0; k < p; ++k) cuts.push_back(k);
                   build(cuts, rect<1>{range(0, 10)});
                 }});
  if (p > 1)
    out.push_back({who + ": one cut point too few", [build, p] {
                     std::vector<index_t> cuts;
                     for (int k = 0; k + 2 < p; ++k) cuts.push_back(k);
                     build(cuts, rect<1>{range(0, 10)});
                   }});
  if (p > 2)
    out.push_back({who + ": cut points out of order", [build, p] {
                     std::vector<index_t> cuts;
                     for (int k = 0; k + 1 < p; ++k) cuts.push_back(8 - 2 * k);
                     build(cuts, rect<1>{range(0, 10)});
                   }});
  if (p > 1) {
    out.push_back({who + ": a cut point below the bounds", [build, p] {
                     std::vector<index_t> cuts(static_cast<std::size_t>(p - 1), 5);
                     cuts.front() = -1;
                     build(cuts, rect<1>{range(0, 10)});
                   }});
    out.push_back({who + ": a cut point above the bounds", [build, p] {
                     std::vector<index_t> cuts(static_cast<std::size_t>(p - 1), 5);
                     cuts.back() = 11;
                     build(cuts, rect<1>{range(0, 10)});
                   }});
    out.push_back({who + ": a cut point above the bounds of a strided domain {0..<10 by 2}", [build, p] {
                     std::vector<index_t> cuts(static_cast<std::size_t>(p - 1), 4);
                     cuts.back() = 10;
                     build(cuts, rect<1>{range(0, 10, 2)});
                   }});
  }
  return out;
}

struct irregular_f {
  static std::string label() { return "irregular_block"; }
  template <std::size_t N>
  static constexpr bool supports = true;
  static constexpr bool explicit_grids = true;
  template <std::size_t N>
  static made<N, dmap::irregular_block<N>> make(gen& g, const dmap::target_grid<N>& grid, const rect<N>& whole) {
    const auto order = random_order(g);
    std::array<std::vector<index_t>, N> cuts;
    std::array<dmap::dim_spec, N> specs;
    for (std::size_t d = 0; d < N; ++d) {
      cuts[d] = random_cuts<N>(g, whole, d, grid.extent(d));
      specs[d] = dmap::irregular_dim{cuts[d]};
    }
    return dimensional_made<N>(dmap::irregular_block<N>(cuts, grid, order), specs, grid.shape());
  }
  static bad_list bad_arguments() {
    auto out = irregular_bad_arguments("irregular_block", [](std::vector<index_t> cuts, const rect<1>& r) {
      build_domain<1>(dmap::irregular_block<1>({cuts}), r);
    });
    // Out of order needs three locales along a dimension; a grid for index math alone (no
    // domain) shows the rule at construction whatever the locale count.
    out.push_back({"irregular_block: cut points 5, 2 over a grid of 3 (construction)",
                   [] { dmap::irregular_block<1> b({std::vector<index_t>{5, 2}}, dmap::target_grid<1>({3}, 3)); }});
    out.push_back({"irregular_block: 1 cut point for a grid of 3 (construction)",
                   [] { dmap::irregular_block<1> b({std::vector<index_t>{5}}, dmap::target_grid<1>({3}, 3)); }});
    out.push_back({"irregular_block: a cut point along a dimension of one locale", [] {
                     const int p = dmap::num_locales();
                     std::vector<index_t> cuts;
                     for (int k = 0; k + 1 < p; ++k) cuts.push_back(k);
                     dmap::irregular_block<2> b({cuts, std::vector<index_t>{3}}, dmap::target_grid<2>({p, 1}));
                   }});
    return out;
  }
};

/// Block x cyclic (2-D).
struct mix_block_cyclic_f {
  static std::string label() { return "dimensional(block, cyclic)"; }
  template <std::size_t N>
  static constexpr bool supports = N == 2;
  static constexpr bool explicit_grids = true;
  template <std::size_t N>
  static made<N, dmap::dimensional<N>> make(gen& g, const dmap::target_grid<N>& grid, const rect<N>&) {
    const auto order = random_order(g);
    std::array<dmap::dim_spec, N> specs{dmap::block_dim{}, dmap::cyclic_dim{random_start(g)}};
    return dimensional_made<N>(dmap::dimensional<N>(specs, grid, order), specs, grid.shape());
  }
  static bad_list bad_arguments() { return {}; }
};

/// Block-cyclic x irregular (2-D).
struct mix_bc_irregular_f {
  static std::string label() { return "dimensional(block_cyclic, irregular)"; }
  template <std::size_t N>
  static constexpr bool supports = N == 2;
  static constexpr bool explicit_grids = true;
  template <std::size_t N>
  static made<N, dmap::dimensional<N>> make(gen& g, const dmap::target_grid<N>& grid, const rect<N>& whole) {
    const auto order = random_order(g);
    const index_t b = random_block_size(g);
    const auto start = random_start(g);
    std::array<dmap::dim_spec, N> specs{dmap::block_cyclic_dim{b, start},
                                        dmap::irregular_dim{random_cuts<N>(g, whole, 1, grid.extent(1))}};
    return dimensional_made<N>(dmap::dimensional<N>(specs, grid, order), specs, grid.shape());
  }
  static bad_list bad_arguments() {
    auto out = irregular_bad_arguments("dimensional(irregular, block_cyclic)",
                                       [](std::vector<index_t> cuts, const rect<1>& r) {
                                         const int p = dmap::num_locales();
                                         dmap::dimensional<2> m({dmap::irregular_dim{cuts}, dmap::block_cyclic_dim{2}},
                                                                dmap::target_grid<2>({p, 1}));
                                         build_domain<2>(m, rect<2>{r.dim(0), range(0, 4)});
                                       });
    out.push_back({"dimensional(block_cyclic, irregular): block size 0", [] {
                     const int p = dmap::num_locales();
                     dmap::dimensional<2> m({dmap::block_cyclic_dim{0}, dmap::irregular_dim{}},
                                            dmap::target_grid<2>({p, 1}));
                   }});
    return out;
  }
};

/// Cyclic x block-cyclic x block (3-D).
struct mix3_f {
  static std::string label() { return "dimensional(cyclic, block_cyclic, block)"; }
  template <std::size_t N>
  static constexpr bool supports = N == 3;
  static constexpr bool explicit_grids = true;
  template <std::size_t N>
  static made<N, dmap::dimensional<N>> make(gen& g, const dmap::target_grid<N>& grid, const rect<N>&) {
    const auto order = random_order(g);
    const auto s0 = random_start(g);
    const index_t b = random_block_size(g);
    const auto s1 = random_start(g);
    std::array<dmap::dim_spec, N> specs{dmap::cyclic_dim{s0}, dmap::block_cyclic_dim{b, s1}, dmap::block_dim{}};
    return dimensional_made<N>(dmap::dimensional<N>(specs, grid, order), specs, grid.shape());
  }
  static bad_list bad_arguments() {
    return {{"dimensional(cyclic, block_cyclic, block): block size 0",
             [] { dmap::dimensional<3> m({dmap::cyclic_dim{}, dmap::block_cyclic_dim{0}, dmap::block_dim{}}); }},
            {"dimensional(cyclic, block_cyclic, block): block size -1", [] {
               dmap::dimensional<3> m({dmap::cyclic_dim{}, dmap::block_cyclic_dim{-1, 3}, dmap::block_dim{}});
             }}};
  }
};

/// Unstructured x none (2-D) over a P x 1 grid: every integer within 6 of dimension 0's
/// indices dealt to a random coordinate, each list shuffled; index sets reaching a value
/// outside the lists are refused.
struct mix_unstructured_none_f {
  static std::string label() { return "dimensional(unstructured, none)"; }
  template <std::size_t N>
  static constexpr bool supports = N == 2;
  static constexpr bool explicit_grids = false;
  template <std::size_t N>
  static made<N, dmap::dimensional<N>> make(gen& g, const dmap::target_grid<N>&, const rect<N>& whole) {
    const int p = dmap::num_locales();
    const dims_of<N> w(whole);
    const index_t lo = w.seq[0].empty() ? -6 : w.low(0) - 6, hi = w.seq[0].empty() ? 6 : w.high(0) + 6;
    std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
    std::unordered_map<index_t, int> owner;
    for (index_t v = lo; v < hi; ++v) {
      const int k = static_cast<int>(draw(g, 0, p - 1));
      lists[static_cast<std::size_t>(k)].push_back(v);
      owner[v] = k;
    }
    for (auto& l : lists) std::shuffle(l.begin(), l.end(), g);
    std::array<dmap::dim_spec, N> specs{dmap::unstructured_dim{lists}, dmap::none_dim{}};
    made<N, dmap::dimensional<N>> m{dmap::dimensional<N>(specs, dmap::target_grid<N>({p, 1}), random_order(g))};
    m.owner = [owner](const idx<N>& i, const rect<N>&) { return owner.at(i[0]); };
    m.refuses = [lo, hi](const rect<N>& x) {
      const auto rows = kit::indices_of(x.dim(0));
      return std::any_of(rows.begin(), rows.end(), [&](index_t v) { return v < lo || v >= hi; });
    };
    return m;
  }
  static bad_list bad_arguments() {
    const int p = dmap::num_locales();
    bad_list out = {{"dimensional(unstructured, none): one list too many",
                     [p] {
                       dmap::dimensional<2> m({dmap::unstructured_dim{std::vector<std::vector<index_t>>(
                                                   static_cast<std::size_t>(p + 1))},
                                               dmap::none_dim{}},
                                              dmap::target_grid<2>({p, 1}));
                     }},
                    {"dimensional(unstructured, none): an index listed twice", [p] {
                       std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
                       lists[0] = {0, 1, 0};
                       build_domain<2>(dmap::dimensional<2>({dmap::unstructured_dim{lists}, dmap::none_dim{}},
                                                            dmap::target_grid<2>({p, 1})),
                                       rect<2>{range(0, 2), range(0, 3)});
                     }}};
    if (p > 1)
      out.push_back({"dimensional(none, block): a 'none' dimension split over locales", [p] {
                       dmap::dimensional<2> m({dmap::none_dim{}, dmap::block_dim{}}, dmap::target_grid<2>({p, 1}));
                     }});
    return out;
  }
};

/// A mapper with parameters: (c . i + shift) mod p, or the default hash when `hash`.
struct affine_mapper {
  std::array<index_t, 3> c{};
  index_t shift = 0;
  bool hash = false;
  template <std::size_t N>
  int operator()(const idx<N>& i, int p) const {
    if (hash) return dmap::hash_mapper{}(i, p);
    index_t v = shift;
    for (std::size_t d = 0; d < N; ++d) v += c[d] * i[d];
    return static_cast<int>(pmod(v, p));
  }
  bool operator==(const affine_mapper&) const = default;
};

/// Hashed with the default hash or a random affine mapper (kept in a directory).
struct hashed_f {
  static std::string label() { return "hashed"; }
  template <std::size_t N>
  static constexpr bool supports = true;
  static constexpr bool explicit_grids = false;
  template <std::size_t N>
  static made<N, dmap::hashed<N, affine_mapper>> make(gen& g, const dmap::target_grid<N>&, const rect<N>&) {
    affine_mapper mapper{{draw(g, -3, 3), draw(g, -3, 3), draw(g, -3, 3)}, draw(g, 0, 5), g() % 3 == 0};
    const std::string label = mapper.hash ? std::string("hash")
                                          : str("affine ", mapper.c[0], " ", mapper.c[1], " ", mapper.c[2], " + ",
                                                mapper.shift);
    made<N, dmap::hashed<N, affine_mapper>> m{dmap::hashed<N, affine_mapper>{mapper, label}};
    const int p = dmap::num_locales();
    // The documented rule is the mapper itself; the oracle evaluates the formula on its own.
    m.owner = [mapper, p](const idx<N>& i, const rect<N>&) {
      if (mapper.hash) return dmap::hash_mapper{}(i, p);
      index_t v = mapper.shift;
      for (std::size_t d = 0; d < N; ++d) v += mapper.c[d] * i[d];
      return static_cast<int>(pmod(v, p));
    };
    return m;
  }
  static bad_list bad_arguments() {
    const int p = dmap::num_locales();
    return {{"hashed: a mapper naming locale P", [p] {
               const auto bad = [p](const idx<2>& i, int) { return i[0] == 1 ? p : 0; };
               build_domain<2>(dmap::hashed<2, decltype(bad)>{bad, "bad"}, rect<2>{range(0, 3), range(0, 2)});
             }},
            {"hashed: a mapper naming locale -1", [] {
               const auto bad = [](const idx<1>& i, int) { return i[0] == 4 ? -1 : 0; };
               build_domain<1>(dmap::hashed<1, decltype(bad)>{bad, "bad"}, rect<1>{range(0, 9)});
             }}};
  }
};

/// Unstructured: every index dealt to a random locale, each list shuffled (each locale passes
/// its own). After a resize survivors stay and new indices go to their directory home
/// (locale h takes orders [h n / P, (h + 1) n / P) of the new index set), which the oracle
/// follows from one resize to the next.
struct unstructured_f {
  static std::string label() { return "unstructured"; }
  template <std::size_t N>
  static constexpr bool supports = true;
  static constexpr bool explicit_grids = false;
  template <std::size_t N>
  static made<N, dmap::unstructured<N>> make(gen& g, const dmap::target_grid<N>&, const rect<N>& whole) {
    const int p = dmap::num_locales();
    std::vector<std::vector<idx<N>>> lists(static_cast<std::size_t>(p));
    auto owners = std::make_shared<std::map<idx<N>, int>>();
    for (const auto& i : kit::indices_of(whole)) {
      const int q = static_cast<int>(draw(g, 0, p - 1));
      lists[static_cast<std::size_t>(q)].push_back(i);
      (*owners)[i] = q;
    }
    for (auto& l : lists) std::shuffle(l.begin(), l.end(), g);
    made<N, dmap::unstructured<N>> m{dmap::unstructured<N>{lists[static_cast<std::size_t>(dmap::here())]}};
    auto first = std::make_shared<bool>(true);
    // Derived once per index set the domain takes, in order (the kit's promise).
    m.owner = [owners, first, p](const rect<N>& whole_now) -> owner_fn<N> {
      if (!*first) {
        const auto x = kit::indices_of(whole_now);
        const auto size = static_cast<index_t>(x.size());
        std::map<idx<N>, int> next;
        for (index_t k = 0; k < size; ++k) {
          const auto i = x[static_cast<std::size_t>(k)];
          const auto it = owners->find(i);
          int home = 0;
          while (home + 1 < p && (home + 1) * size / p <= k) ++home;
          next[i] = it != owners->end() ? it->second : home;
        }
        *owners = std::move(next);
      }
      *first = false;
      const auto now = *owners;
      return [now](const idx<N>& i) {
        const auto it = now.find(i);
        return it == now.end() ? -1 : it->second;
      };
    };
    return m;
  }
  static bad_list bad_arguments() {
    const int p = dmap::num_locales(), me = dmap::here();
    std::vector<index_t> cover;
    for (index_t i = me; i < 8; i += p) cover.push_back(i);
    auto twice = cover, missing = cover, shared = cover;
    if (me == p - 1) twice.push_back(p - 1);
    missing.erase(std::remove(missing.begin(), missing.end(), index_t{7}), missing.end());
    if (me == p - 1) shared.push_back(0);
    bad_list out = {{"unstructured: an index listed twice by one locale",
                     [twice] { build_domain<1>(dmap::unstructured<1>{twice}, rect<1>{range(0, 8)}); }},
                    {"unstructured: an index listed by no locale",
                     [missing] { build_domain<1>(dmap::unstructured<1>{missing}, rect<1>{range(0, 8)}); }},
                    {"unstructured: a listed index outside the domain",
                     [cover] { build_domain<1>(dmap::unstructured<1>{cover}, rect<1>{range(0, 7)}); }}};
    if (p > 1)
      out.push_back({"unstructured: an index listed by two locales under one_to_one",
                     [shared] { build_domain<1>(dmap::unstructured<1>{shared}, rect<1>{range(0, 8)}); }});
    return out;
  }
};

/// The user-defined distribution of examples/custom_dist: row shares along dimension 0
/// proportional to per-locale weights, grid P x 1 x ... x 1.
struct weighted_f {
  static std::string label() { return "custom_dist::weighted_block"; }
  template <std::size_t N>
  static constexpr bool supports = true;
  static constexpr bool explicit_grids = false;
  template <std::size_t N>
  static made<N, custom_dist::weighted_block<N>> make(gen& g, const dmap::target_grid<N>&, const rect<N>&) {
    const int p = dmap::num_locales();
    const auto order = random_order(g);
    // Weights in halves (exact in binary); the oracle works with twice the weights.
    std::vector<index_t> twice(static_cast<std::size_t>(p));
    const auto kind = g() % 3;
    for (int k = 0; k < p; ++k)
      twice[static_cast<std::size_t>(k)] = kind == 0 ? 2 * (k + 1) : kind == 1 ? 2 : draw(g, 1, 8);
    std::vector<double> weights;
    for (index_t t : twice) weights.push_back(static_cast<double>(t) / 2);
    custom_dist::weighted_block<N> dist = kind == 0   ? custom_dist::weighted_block<N>::increasing(order)
                                          : kind == 1 ? custom_dist::weighted_block<N>::uniform(order)
                                                      : custom_dist::weighted_block<N>(weights, order);
    made<N, custom_dist::weighted_block<N>> m{std::move(dist)};
    // Rows in ascending order; locale k owns positions [ceil(R S_k / W), ceil(R S_{k+1} / W)).
    m.owner = [twice, p](const rect<N>& whole) -> owner_fn<N> {
      std::vector<index_t> rows = kit::indices_of(whole.dim(0));
      std::sort(rows.begin(), rows.end());
      const auto count = static_cast<index_t>(rows.size());
      index_t total = 0;
      for (index_t t : twice) total += t;
      std::unordered_map<index_t, int> owner;
      index_t prefix = 0;
      for (int k = 0; k < p; ++k) {
        const index_t first = cdiv(count * prefix, total);
        prefix += twice[static_cast<std::size_t>(k)];
        const index_t last = cdiv(count * prefix, total);
        for (index_t j = first; j < last; ++j) owner[rows[static_cast<std::size_t>(j)]] = k;
      }
      return [owner](const idx<N>& i) {
        const auto it = owner.find(i[0]);
        return it == owner.end() ? -1 : it->second;
      };
    };
    return m;
  }
  static bad_list bad_arguments() {
    const int p = dmap::num_locales();
    return {{"weighted_block: one weight too many",
             [p] { custom_dist::weighted_block<2> b(std::vector<double>(static_cast<std::size_t>(p + 1), 1.0)); }},
            {"weighted_block: one weight too few",
             [p] { custom_dist::weighted_block<1> b(std::vector<double>(static_cast<std::size_t>(p - 1), 1.0)); }},
            {"weighted_block: a zero weight",
             [p] {
               std::vector<double> w(static_cast<std::size_t>(p), 1.0);
               w.back() = 0;
               custom_dist::weighted_block<2> b(w);
             }},
            {"weighted_block: a negative weight",
             [p] {
               std::vector<double> w(static_cast<std::size_t>(p), 1.0);
               w.front() = -2;
               custom_dist::weighted_block<3> b(w);
             }},
            {"weighted_block: a NaN weight", [p] {
               std::vector<double> w(static_cast<std::size_t>(p), 1.0);
               w.front() = std::numeric_limits<double>::quiet_NaN();
               custom_dist::weighted_block<1> b(w);
             }},
            {"weighted_block: an infinite weight", [p] {
               std::vector<double> w(static_cast<std::size_t>(p), 1.0);
               w.back() = std::numeric_limits<double>::infinity();
               custom_dist::weighted_block<1> b(w);
             }}};
  }
};

using stencil_1 = stencil_f<1, false>;
using stencil_1p = stencil_f<1, true>;
using stencil_2 = stencil_f<2, false>;
using stencil_2p = stencil_f<2, true>;
using cyclic_default = cyclic_f<false>;
using cyclic_start = cyclic_f<true>;
using block_cyclic_row = block_cyclic_f<dmap::storage_order::row_major>;
using block_cyclic_col = block_cyclic_f<dmap::storage_order::column_major>;

// ------------------------------------------------------------------------------- running the kit

/// Collective: the kit's `cases` random cases of N dimensions (and one large case) for factory F.
template <class F, std::size_t N>
void random_cases(int cases) {
  kit::options<N> options;
  options.random_cases = cases;
  kit::result r(F::label());
  if constexpr (F::explicit_grids)
    r = kit::check<N>(
        F::label(),
        [](const rect<N>& whole, gen& g, const dmap::target_grid<N>& grid) {
          return F::template make<N>(g, grid, whole);
        },
        options);
  else
    r = kit::check<N>(
        F::label(), [](const rect<N>& whole, gen& g) { return F::template make<N>(g, dmap::target_grid<N>{}, whole); },
        options);
  INFO(F::label() << ", " << N << "-D: " << r.cases() << " index sets");
  require_passed(r);
}

constexpr int cases_per_dimension = 10;

template <class F>
void all_dimensions() {
  int dims = 0;
  if constexpr (F::template supports<1>) dims += 1;
  if constexpr (F::template supports<2>) dims += 1;
  if constexpr (F::template supports<3>) dims += 1;
  // Maps of one dimension count get the cases of all three.
  const int cases = cases_per_dimension * 3 / dims;
  if constexpr (F::template supports<1>) random_cases<F, 1>(cases);
  if constexpr (F::template supports<2>) random_cases<F, 2>(cases);
  if constexpr (F::template supports<3>) random_cases<F, 3>(cases);
}

/// Collective: a grid that does not hold the locale count must be refused.
template <class F, std::size_t N>
void bad_grids(kit::result& r) {
  const int p = dmap::num_locales();
  std::vector<std::array<int, N>> shapes;
  std::array<int, N> s{};
  s.fill(1);
  s[0] = p + 1;
  shapes.push_back(s);
  s[0] = 0;
  s[N - 1] = p;
  if (N > 1) shapes.push_back(s);
  s.fill(1);
  s[N - 1] = -p;
  shapes.push_back(s);
  s.fill(1);
  s[0] = 2 * p;
  shapes.push_back(s);
  if (N > 1) {
    s.fill(1);
    s[0] = p;
    s[1] = 2;
    shapes.push_back(s);
  }
  for (const auto& shape : shapes) {
    gen g(kit::default_seed);
    kit::expect_argument_error(r, str(F::label(), ": grid ", kit::detail::shape_text<N>(shape), " for ", p, " locales"),
                               [&] {
                                 auto m = F::template make<N>(g, dmap::target_grid<N>(shape), rect<N>{});
                                 build_domain<N>(m.map, rect<N>{});
                               });
  }
}

}  // namespace

TEMPLATE_TEST_CASE("conformance: every distribution against brute-force oracles on random shapes and grids",
                   "[conformance]", block_f, stencil_1, stencil_1p, stencil_2, stencil_2p, cyclic_default,
                   cyclic_start, block_cyclic_row, block_cyclic_col, irregular_f, mix_block_cyclic_f,
                   mix_bc_irregular_f, mix3_f, mix_unstructured_none_f, hashed_f, unstructured_f, weighted_f) {
  all_dimensions<TestType>();
}

TEMPLATE_TEST_CASE("conformance: invalid arguments throw argument_error on every locale", "[conformance]", block_f,
                   stencil_1, stencil_1p, stencil_2, stencil_2p, cyclic_default, cyclic_start, block_cyclic_row,
                   block_cyclic_col, irregular_f, mix_block_cyclic_f, mix_bc_irregular_f, mix3_f,
                   mix_unstructured_none_f, hashed_f, unstructured_f, weighted_f) {
  kit::result r(TestType::label() + ": error paths");
  for (const auto& [what, thunk] : TestType::bad_arguments()) kit::expect_argument_error(r, what, thunk);
  if constexpr (TestType::explicit_grids) {
    if constexpr (TestType::template supports<1>) bad_grids<TestType, 1>(r);
    if constexpr (TestType::template supports<2>) bad_grids<TestType, 2>(r);
    if constexpr (TestType::template supports<3>) bad_grids<TestType, 3>(r);
  }
  require_passed(r);
}

TEST_CASE("conformance: private_space has index q on locale q, reduces, and refuses other index sets",
          "[conformance]") {
  namespace detail = kit::detail;
  const int p = dmap::num_locales(), me = dmap::here();
  dmap::domain<1> S = dmap::private_space();
  kit::result r("private_space");
  detail::recorder b(r);
  detail::local_report place;
  detail::guarded(place, [&] {
    if (kit::indices_of(S.indices().dim(0)) != [&] {
          std::vector<index_t> v;
          for (int q = 0; q < p; ++q) v.push_back(q);
          return v;
        }())
      place.fail(str("indices are ", S.indices()));
    for (int q = 0; q < p; ++q) {
      const auto subs = S.local_subdomains(q);
      std::vector<idx<1>> owned;
      for (const auto& s : subs)
        for (const auto& i : kit::indices_of(s)) owned.push_back(i);
      if (owned.size() != 1 || owned.front()[0] != q) place.fail(str("locale ", q, " does not own exactly {", q, "}"));
      if (S.locale_of(idx<1>{q}) != q) place.fail(str("locale_of(", q, ") is ", S.locale_of(idx<1>{q})));
    }
  });
  b.add("8. private_space: index q on locale q", place);

  dmap::array<std::int64_t, 1> A(S);
  const auto val = [](index_t q) { return static_cast<std::int64_t>(10 + q * q); };
  std::atomic<long> wrong{0};
  dmap::forall(dmap::zip(A, S), [&](std::int64_t& a, idx<1> i) {
    if (i[0] != dmap::here()) ++wrong;
    a = val(i[0]);
  });
  detail::local_report filled;
  if (wrong.load() != 0) filled.fail(str(wrong.load(), " indices of forall(zip(A, S)) ran off their locale"));
  detail::guarded(filled, [&] {
    if (A.local(idx<1>{me}) != val(me)) filled.fail(str("A.local(", me, ") is ", A.local(idx<1>{me})));
  });
  b.add("8. private: forall(zip(A, S)) runs index q on locale q", filled);
  detail::check_global_values(b, A, detail::ordered_rect<1>(rect<1>{range(0, p)}),
                              [&](const idx<1>& i) { return val(i[0]); }, "8. private: ");
  b.flush();
  std::int64_t sum = 0, lo = std::numeric_limits<std::int64_t>::max(), hi = 0;
  for (int q = 0; q < p; ++q) sum += val(q), lo = std::min(lo, val(q)), hi = std::max(hi, val(q));
  check_everywhere(dmap::reduce(A, std::int64_t{0}, std::plus<>{}), sum, "private: reduce(A, 0, +)");
  check_everywhere(dmap::reduce(A, std::numeric_limits<std::int64_t>::max(), dmap::minimum{}), lo,
                   "private: reduce(A, max, minimum)");
  check_everywhere(dmap::reduce(A, std::int64_t{0}, dmap::maximum{}), hi, "private: reduce(A, 0, maximum)");
  check_everywhere(dmap::reduce(S, std::int64_t{0}, std::plus<>{}, [](idx<1> i) { return i[0]; }),
                   static_cast<std::int64_t>(p * (p - 1) / 2), "private: reduce(S, 0, +, i)");

  std::vector<std::pair<std::string, rect<1>>> others{{"{0..<P+1}", rect<1>{range(0, p + 1)}},
                                                      {"{1..<P+1}", rect<1>{range(1, p + 1)}},
                                                      {"{-1..<P-1}", rect<1>{range(-1, p - 1)}},
                                                      {"{} (empty)", rect<1>{range(0, 0)}}};
  if (p > 1) {
    others.push_back({"{0..<2P by 2}", rect<1>{range(0, 2 * p, 2)}});
    others.push_back({"{0..<P by -1}", rect<1>{range(0, p, -1)}});
    others.push_back({"{0..<P-1}", rect<1>{range(0, p - 1)}});
  }
  for (const auto& entry : others) {
    const std::string& name = entry.first;
    const rect<1>& other = entry.second;
    kit::expect_argument_error(r, str("8. a private domain over ", name),
                               [&] { dmap::domain<1> D{dmap::private_dist{}, other}; });
    kit::expect_argument_error(r, str("8. private_space().with_indices(", name, ")"),
                               [&] { (void)S.with_indices(other); });
  }
  require_passed(r);
}

// The rule belongs to the map: a private domain's index set cannot be changed by set_indices
// either (private_domain checks it there too).
TEST_CASE("conformance: private_space().set_indices to another index set throws argument_error on every locale",
          "[conformance]") {
  const int p = dmap::num_locales();
  dmap::domain<1> S = dmap::private_space();
  dmap::array<std::int64_t, 1> A(S, 7);
  kit::result r("private_space().set_indices");
  kit::expect_argument_error(r, "private_space().set_indices({0..<P+1})",
                             [&] { S.set_indices(rect<1>{range(0, p + 1)}); });
  kit::expect_argument_error(r, "private_space().set_indices({1..<P+1})",
                             [&] { S.set_indices(rect<1>{range(1, p + 1)}); });
  require_passed(r);
  DMAP_CHECK_ALL(S.indices() == (rect<1>{range(0, p)}));
}

}  // namespace test_conformance
