// Oracles and random-case generators shared by the test files.
//
// The oracles compute their answers by brute force or by their own formulas: dmap::range,
// rect and idx serve only as containers (a range is read back through lo, hi, stride and
// alignment), and no oracle calls the library functions that the tests check. The random
// generators only build the tests' inputs (through the library's constructors, as any user
// would) and decide no expected answer; they draw from a std::mt19937_64 with the caller's
// fixed seed, so every locale builds the same cases in the same order.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "../dmap.hpp"

namespace dmap::testing::oracle {

// ------------------------------------------------------------------------------- arithmetic

/// The mathematical modulus, in [0, m) for m > 0.
inline index_t pmod(index_t a, index_t m) { return ((a % m) + m) % m; }
/// The absolute value of an index.
inline index_t iabs(index_t a) { return a < 0 ? -a : a; }
/// ceil(a / b) for a >= 0, b > 0.
inline index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }

// ------------------------------------------------------------------------------- index sets

/// The index list of one dimension, in iteration order.
using seq = std::vector<index_t>;

/// The indices of [lo, hi) by s aligned to a, in iteration order, by scanning every integer of
/// [lo, hi) for (i - a) mod |s| == 0 (Seq: any list with push_back and mutable begin/end).
template <class Seq = seq>
Seq brute(index_t lo, index_t hi, index_t s, index_t a) {
  Seq out;
  for (index_t i = lo; i < hi; ++i)
    if (pmod(i - a, iabs(s)) == 0) out.push_back(i);
  if (s < 0) std::reverse(out.begin(), out.end());
  return out;
}

/// The indices a range object represents, read through its four accessors.
template <class Seq = seq>
Seq seq_of(const range& r) {
  return brute<Seq>(r.lo(), r.hi(), r.stride(), r.alignment());
}

/// Steps the counters c (c[d] in [0, extent(d))) to the next combination in row-major order
/// (last counter fastest); false, with every counter back at 0, after the last combination.
template <class Counters, class Extent>
bool next_row_major(Counters& c, Extent&& extent) {
  for (std::size_t d = c.size(); d-- > 0;) {
    if (++c[d] < extent(d)) return true;
    c[d] = 0;
  }
  return false;
}

/// The row-major list of the indices of the product of `dims` (last dimension fastest).
template <std::size_t N>
std::vector<idx<N>> product(const std::array<seq, N>& dims) {
  std::vector<idx<N>> out;
  for (const auto& d : dims)
    if (d.empty()) return out;
  std::array<std::size_t, N> c{};
  do {
    idx<N> p{};
    for (std::size_t d = 0; d < N; ++d) p[d] = dims[d][c[d]];
    out.push_back(p);
  } while (next_row_major(c, [&](std::size_t d) { return dims[d].size(); }));
  return out;
}

/// A rect's indices in row-major order, read through its dims' accessors.
template <std::size_t N>
std::vector<idx<N>> points_of(const rect<N>& r) {
  std::array<seq, N> dims;
  for (std::size_t d = 0; d < N; ++d) dims[d] = seq_of(r.dim(d));
  return product(dims);
}

/// The arguments of one dimension's range{lo, hi, stride, align}.
struct dim_spec {
  index_t lo, hi, stride, align;
  /// The range these arguments build.
  range make() const { return range{lo, hi, stride, align}; }
  /// The oracle's indices for these arguments.
  seq indices() const { return brute(lo, hi, stride, align); }
};

// ------------------------------------------------------------------------------- grids and the Block cut

/// MPI's own factorisation of `locales` into N extents (the default target grid).
template <std::size_t N>
std::array<int, N> mpi_dims(int locales) {
  std::array<int, N> dims{};
  dims.fill(0);
  MPI_Dims_create(locales, static_cast<int>(N), dims.data());
  return dims;
}

/// Every ordered factorisation of `locales` into N factors >= 1 (all target grids).
template <std::size_t N>
std::vector<std::array<int, N>> factorisations(int locales) {
  std::vector<std::array<int, N>> out;
  std::array<int, N> shape{};
  const std::function<void(std::size_t, int)> rec = [&](std::size_t d, int rest) {
    if (d + 1 == N) {
      shape[d] = rest;
      out.push_back(shape);
      return;
    }
    for (int f = 1; f <= rest; ++f)
      if (rest % f == 0) {
        shape[d] = f;
        rec(d + 1, rest / f);
      }
  };
  rec(0, locales);
  return out;
}

/// Every coordinate tuple of a grid, in C order (last coordinate fastest), by an odometer.
template <std::size_t N>
std::vector<std::array<int, N>> c_order_coords(const std::array<int, N>& shape) {
  std::vector<std::array<int, N>> out;
  std::array<int, N> c{};
  do out.push_back(c);
  while (next_row_major(c, [&](std::size_t d) { return shape[d]; }));
  return out;
}

/// The grid coordinates of locale `locale`, by counting through C order.
template <std::size_t N>
std::array<int, N> c_order_coords(const std::array<int, N>& shape, int locale) {
  std::array<int, N> c{};
  for (int k = 0; k < locale; ++k) next_row_major(c, [&](std::size_t d) { return shape[d]; });
  return c;
}

/// The locale id of grid coordinates c in C order.
template <std::size_t N>
int c_order_locale(const std::array<int, N>& shape, const std::array<int, N>& c) {
  int r = 0;
  for (std::size_t d = 0; d < N; ++d) r = r * shape[d] + c[d];
  return r;
}

/// Whether part k of p owns x along a dimension with cut bounds [lo, hi) (Chapel's Block cut:
/// part k owns [lo + ceil(n*k/p), lo + ceil(n*(k+1)/p)), n = hi - lo, the first and last parts
/// extending to minus and plus infinity).
inline bool part_owns(index_t lo, index_t hi, int p, int k, index_t x) {
  const index_t n = hi - lo;
  const index_t first = lo + ceil_div(n * k, p), last = lo + ceil_div(n * (k + 1), p);
  return (k == 0 || x >= first) && (k == p - 1 || x < last);
}

/// The part of p that owns x under Chapel's Block cut of [lo, hi) (the first k that part_owns).
inline int cut_part(index_t lo, index_t hi, int p, index_t x) {
  for (int k = 0; k < p; ++k)
    if (part_owns(lo, hi, p, k, x)) return k;
  return -1;
}

// ------------------------------------------------------------------------------- element values

/// A double per index, unique for |i[d]| < 500 and exact in a double.
template <std::size_t N>
double fval(const idx<N>& i) {
  double v = 0.5;
  for (std::size_t d = 0; d < N; ++d) v = v * 1000 + static_cast<double>(i[d]);
  return v;
}

/// An int per index, unique for |i[d]| < 500.
template <std::size_t N>
int ival(const idx<N>& i) {
  index_t v = 7;
  for (std::size_t d = 0; d < N; ++d) v = v * 1000 + i[d];
  return static_cast<int>(pmod(v, 1000000007));
}

// ------------------------------------------------------------------------------- text

/// x as operator<< prints it.
template <class T>
std::string text(const T& x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

/// A grid shape as "2x3" (written here rather than through target_grid's operator<<, which
/// runtime/test_grid.cpp checks once).
template <std::size_t N>
std::string shape_text(const std::array<int, N>& shape) {
  std::ostringstream s;
  for (std::size_t d = 0; d < N; ++d) s << (d ? "x" : "") << shape[d];
  return s.str();
}

/// Row-major `values` of an array of `shape` as dmap prints them, written out again: rows of
/// values separated by one space, rows by a newline, planes by an empty line.
template <class T, std::size_t N>
std::string printed_oracle(const std::vector<T>& values, const std::array<index_t, N>& shape) {
  std::ostringstream s;
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (k > 0) {
      int ends = 0;  // how many dimensions (from the last) start over at k
      index_t block = 1;
      for (std::size_t d = N; d-- > 0;) {
        block *= shape[d];
        if (static_cast<index_t>(k) % block != 0) break;
        ++ends;
      }
      s << (ends == 0 ? " " : ends == 1 ? "\n" : "\n\n");
    }
    s << values[k];
  }
  return s.str();
}

/// Whether `s` contains `part`.
inline bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ------------------------------------------------------------------------------- random cases

/// The random source of a test case list: a std::mt19937_64 with a fixed seed.
struct gen {
  std::mt19937_64 g;
  explicit gen(std::uint64_t seed) : g(seed) {}
  /// Uniform in [lo, hi].
  index_t uniform(index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(g); }
  /// True with probability num / den.
  bool chance(int num, int den) { return uniform(0, den - 1) < num; }
};

/// Runs `count` random cases: case c draws its dimension N in 1..3 from g, then calls
/// run(std::integral_constant<std::size_t, N>{}, c).
template <class Run>
void random_dimension_cases(gen& g, int count, Run&& run) {
  for (int c = 0; c < count; ++c) {
    switch (g.uniform(1, 3)) {
      case 1: run(std::integral_constant<std::size_t, 1>{}, c); break;
      case 2: run(std::integral_constant<std::size_t, 2>{}, c); break;
      default: run(std::integral_constant<std::size_t, 3>{}, c); break;
    }
  }
}

/// The strides random ranges are drawn from.
inline constexpr index_t random_strides[] = {1, 2, 3, -1, -2};

/// What random_rect draws: extents up to max_extent with a product up to max_size; an empty
/// dimension is one of empty_kinds forms (2: counted or hi < lo; 3: also bounds that hold no
/// aligned index).
struct rect_spec {
  index_t max_extent = 40;
  index_t max_size = 6000;
  int empty_kinds = 2;
};

/// An extent: often tiny (0..3, fewer than the locales), else 0..max.
inline index_t random_extent(gen& g, index_t max) {
  return g.chance(1, 4) ? g.uniform(0, 3) : g.uniform(0, max);
}

/// A range of exactly n indices, stride from random_strides, with tight or loose bounds; for
/// n == 0 one of `empty_kinds` (2 or 3) forms of an empty range.
inline range random_range(gen& g, index_t n, int empty_kinds) {
  const index_t s = random_strides[g.uniform(0, 4)];
  const index_t first = g.uniform(-10, 10);
  if (n == 0) {
    switch (g.uniform(0, empty_kinds - 1)) {
      case 0: return range::counted(first, 0, s);
      case 1: return range(first, first - g.uniform(0, 3), s);
      default: return range(first, first + 1, 2, first + 1);  // bounds hold no aligned index
    }
  }
  const range tight = range::counted(first, n, s);
  const index_t as = iabs(s);
  return range(tight.lo() - g.uniform(0, as - 1), tight.hi() + g.uniform(0, as - 1), s, first);
}

/// A rect with the given extents, each dimension a random_range.
template <std::size_t N>
rect<N> shaped_rect(gen& g, const std::array<index_t, N>& extents, const rect_spec& spec = {}) {
  rect<N> r;
  for (std::size_t d = 0; d < N; ++d) r.set_dim(d, random_range(g, extents[d], spec.empty_kinds));
  return r;
}

/// A random rect: extents drawn until their product is at most spec.max_size, then shaped_rect.
template <std::size_t N>
rect<N> random_rect(gen& g, const rect_spec& spec = {}) {
  std::array<index_t, N> n{};
  index_t size = 0;
  do {
    size = 1;
    for (std::size_t d = 0; d < N; ++d) size *= (n[d] = random_extent(g, spec.max_extent));
  } while (size > spec.max_size);
  return shaped_rect<N>(g, n, spec);
}

/// A random factorisation of the locale count into N extents.
template <std::size_t N>
dmap::target_grid<N> random_grid(gen& g) {
  std::array<int, N> shape{};
  shape.fill(1);
  int p = dmap::num_locales();
  for (int f = 2; p > 1;) {
    if (p % f == 0) {
      shape[static_cast<std::size_t>(g.uniform(0, static_cast<index_t>(N) - 1))] *= f;
      p /= f;
    } else {
      ++f;
    }
  }
  return dmap::target_grid<N>{shape};
}

/// A random Block distribution: the default, the default grid or a random grid, either storage order.
template <std::size_t N>
dmap::block<N> random_block(gen& g) {
  const auto order = g.chance(1, 2) ? dmap::storage_order::row_major : dmap::storage_order::column_major;
  switch (g.uniform(0, 2)) {
    case 0: return dmap::block<N>{};
    case 1: return dmap::block<N>{dmap::target_grid<N>{}, order};
    default: return dmap::block<N>{random_grid<N>(g), order};
  }
}

/// A Block distribution for failure messages: its name and storage order.
template <std::size_t N>
std::string describe(const dmap::block<N>& b) {
  return b.name() + (b.order() == dmap::storage_order::column_major ? " column-major" : " row-major");
}

// ------------------------------------------------------------------------------- counted comparisons

/// The comparisons ORACLE_CHECK made in one test case, and how many failed.
struct tally {
  long checks = 0;
  long failures = 0;
};

}  // namespace dmap::testing::oracle

/// Counts one oracle comparison; only a failure reaches Catch (the first 8 per test case).
#define ORACLE_CHECK(t, cond, what)                                                  \
  do {                                                                               \
    ++(t).checks;                                                                    \
    if (!(cond)) {                                                                   \
      if (++(t).failures <= 8) FAIL_CHECK("oracle mismatch: " #cond " -- " << what); \
    }                                                                                \
  } while (false)

/// Closes a test case's tally: one visible assertion carrying the number of comparisons.
#define ORACLE_DONE(t)                                                        \
  do {                                                                        \
    INFO((t).checks << " oracle comparisons, " << (t).failures << " failed"); \
    CHECK((t).checks > 0);                                                    \
    CHECK((t).failures == 0);                                                 \
  } while (false)
