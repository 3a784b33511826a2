// Conformance suite: every distribution passes the same checks against brute-force oracles.
//
// One templated test runs over "factories", each making a distribution for a target grid and
// an index set: Block, Stencil (fluff 1 and 2, periodic or not), Cyclic (default and explicit
// start), BlockCyclic (several block sizes, row- and column-major storage), Irregular Block
// (cut points drawn inside the index set's bounds, so valid for any locale count), four
// Dimensional mixes (block x cyclic, block_cyclic x irregular, cyclic x block_cyclic x block in
// 3-D, unstructured x none) and the user-defined custom_dist::weighted_block
// (examples/custom_dist), and the maps kept in a directory: Hashed (the default hash or a
// random affine mapper) and Unstructured (random per-locale lists). The placement checks work
// from each locale's own report of its pieces, so they hold for maps where only a locale
// itself knows its pieces; the others must answer local_subdomains(q) for any q exactly as q
// reports. Maps whose locales hold copies (Replicated, replicated dimensions) break the exact
// cover by design (each copy layer covers the index set) and have their own suite with the
// same oracle style (tests/test_copies.cpp).
//
// Random cases come from a std::mt19937_64 with a fixed seed, identical on every locale (no draw
// ever depends on the locale): 1-3 dimensions, extents 0..25 (empty in three forms, fewer
// indices than locales), strides 1, 2 and -1 with loose or tight bounds, every factorisation of
// the locale count as an explicit grid or the default grid, row- or column-major storage; plus
// one large unit-stride case per dimension count so that pieces are cut into several chunks.
// Index sets a distribution documents as refused (stencil chunks thinner than the ghost width,
// irregular cut points outside the bounds) are predicted by an oracle and must be refused with
// an argument_error on every locale; everything else must be accepted.
//
// The oracles read a range only through lo, hi, stride and alignment, and list its indices by
// scanning every integer of [lo, hi) for (i - alignment) mod |stride| == 0 (descending for a
// negative stride); a rect is the row-major product of its dimensions. Element values are
// formulas of the index. For every case:
//   1. exact cover: each index is in exactly one locale's local_subdomains(q); nothing else is;
//   2. locale_of agrees with local_subdomains, and with the distribution's documented owner rule
//      written out independently (Block's cut, (i - start) mod p, block j -> j mod p, cut points,
//      weighted row shares);
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
//      domain and gather() equal the row-major oracle;
//   7. resize: set_indices (grow, shrink, shift, or an unrelated rect) keeps surviving values
//      and value-initialises new ones (a refused resize leaves domain and arrays untouched);
//      B = A to a Block array over the same indices and back gives the same values;
// and, outside the templated test:
//   8. Private: private_space() has index q on locale q; its arrays reduce correctly; any other
//      index set is refused with an argument_error on every locale;
//   error paths per distribution: block size 0, cut points out of order, outside the bounds or
//   too many / too few, grids that do not multiply to the locale count, bad fluff, bad weights:
//   each an argument_error on every locale.
//
// Every check that may differ between locales is collective (DMAP_CHECK_ALL). Local checks
// collect their failures (and any exception) into a report, so an unexpected throw on one
// locale never leaves the others waiting in a collective.
#include "support.hpp"

#include "../examples/custom_dist/weighted_block.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using gen = std::mt19937_64;
using dmap::testing::everyones;

constexpr std::uint64_t base_seed = 0x0c0f0'2a11'5eedULL;

// ------------------------------------------------------------------------------- arithmetic

index_t pmod(index_t a, index_t m) { return ((a % m) + m) % m; }
index_t iabs(index_t a) { return a < 0 ? -a : a; }
/// floor(a / b) for b > 0.
index_t fdiv(index_t a, index_t b) { return (a - pmod(a, b)) / b; }
/// ceil(a / b) for a >= 0, b > 0.
index_t cdiv(index_t a, index_t b) { return (a + b - 1) / b; }
/// A uniform draw from [lo, hi].
index_t draw(gen& g, index_t lo, index_t hi) {
  return lo + static_cast<index_t>(g() % static_cast<std::uint64_t>(hi - lo + 1));
}

template <class... Args>
std::string str(const Args&... args) {
  std::ostringstream s;
  (s << ... << args);
  return s.str();
}
template <std::size_t N>
std::string shape_text(const std::array<int, N>& s) {
  std::string t;
  for (std::size_t d = 0; d < N; ++d) {
    if (d > 0) t += 'x';
    t += std::to_string(s[d]);
  }
  return t;
}

// ------------------------------------------------------------------------------- reports


/// The failures of one local check: the first message and how many there were.
struct report {
  std::string first;
  long count = 0;
  void fail(const std::string& message) {
    if (count++ == 0) first = message;
  }
  bool ok() const { return count == 0; }
  std::string text() const {
    if (ok()) return "ok";
    return first + (count > 1 ? " (and " + std::to_string(count - 1) + " more)" : "");
  }
};

/// Runs the local (non-communicating) check `f`, turning any exception into a failure.
template <class F>
void guarded(report& rep, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    rep.fail(std::string("unexpected exception: ") + e.what());
  } catch (...) {
    rep.fail("unexpected exception of unknown type");
  }
}

/// Collective: fails on every locale when `rep` failed on any; shows this locale's first failure.
#define CONF_CHECK(what, rep)                                    \
  do {                                                           \
    INFO(what << " (here: " << (rep).text() << ")");             \
    DMAP_CHECK_ALL((rep).ok());                                  \
  } while (0)

/// Named local reports, checked together in one collective: every locale adds the same items
/// in the same order; flush() turns each into one CHECK that fails on every locale when the
/// item failed on any (and names those locales).
class batch {
 public:
  static constexpr std::size_t capacity = 256;
  void add(std::string what, report rep) {
    items_.emplace_back(std::move(what), std::move(rep));
    if (items_.size() == capacity) flush();
  }
  /// Collective. True when every item passed on every locale.
  bool flush() {
    std::array<std::uint64_t, capacity / 64> mine{};
    for (std::size_t k = 0; k < items_.size(); ++k)
      if (!items_[k].second.ok()) mine[k / 64] |= std::uint64_t{1} << (k % 64);
    const auto all = dmap::all_gather(mine);
    bool passed = true;
    for (std::size_t k = 0; k < items_.size(); ++k) {
      std::string failed;
      for (std::size_t q = 0; q < all.size(); ++q)
        if (((all[q][k / 64] >> (k % 64)) & 1u) != 0) {
          if (!failed.empty()) failed += ", ";
          failed += std::to_string(q);
        }
      INFO(items_[k].first << " (here: " << items_[k].second.text() << ")");
      INFO("check failed on locale(s): " << failed << " (this is locale " << dmap::here() << ")");
      CHECK(failed.empty());
      passed = passed && failed.empty();
    }
    items_.clear();
    return passed;
  }

 private:
  std::vector<std::pair<std::string, report>> items_;
};

/// Runs `f` and describes what it threw: "" for nothing, "argument_error: ..." and so on.
template <class F>
std::string thrown_by(F&& f) {
  try {
    f();
  } catch (const dmap::argument_error& e) {
    return std::string("argument_error: ") + e.what();
  } catch (const dmap::unsupported_error& e) {
    return std::string("unsupported_error: ") + e.what();
  } catch (const dmap::error& e) {
    return std::string("another dmap::error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("std::exception: ") + e.what();
  } catch (...) {
    return "an exception of unknown type";
  }
  return {};
}
bool is_argument_error(const std::string& s) { return s.rfind("argument_error: ", 0) == 0; }

/// Collective: `f` must throw a dmap::argument_error on every locale.
template <class F>
void require_argument_error(const std::string& what, F&& f) {
  const std::string got = thrown_by(std::forward<F>(f));
  INFO(what << ": here it threw " << (got.empty() ? std::string("nothing") : got));
  DMAP_CHECK_ALL(is_argument_error(got));
}

// ------------------------------------------------------------------------------- oracle of index sets

/// The indices of `r` in iteration order: every integer of [lo, hi) congruent to the
/// alignment mod |stride|, descending for a negative stride.
std::vector<index_t> seq_of(const range& r) {
  std::vector<index_t> out;
  if (r.hi() <= r.lo()) return out;
  if (r.lo() < -(index_t{1} << 40) || r.hi() > (index_t{1} << 40) || r.hi() - r.lo() > 10'000'000)
    throw std::length_error(str("oracle: the range ", r, " is too long to enumerate"));
  const index_t s = iabs(r.stride());
  for (index_t i = r.lo(); i < r.hi(); ++i)
    if (pmod(i - r.alignment(), s) == 0) out.push_back(i);
  if (r.stride() < 0) std::reverse(out.begin(), out.end());
  return out;
}

/// The row-major list of the indices of `r`.
template <std::size_t N>
std::vector<idx<N>> points_of(const rect<N>& r) {
  std::array<std::vector<index_t>, N> s;
  for (std::size_t d = 0; d < N; ++d) {
    s[d] = seq_of(r.dim(d));
    if (s[d].empty()) return {};
  }
  std::vector<idx<N>> out;
  std::array<std::size_t, N> c{};
  while (true) {
    idx<N> i{};
    for (std::size_t d = 0; d < N; ++d) i[d] = s[d][c[d]];
    out.push_back(i);
    std::size_t d = N;
    while (d-- > 0) {
      if (++c[d] < s[d].size()) break;
      c[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return out;
  }
}

/// A rect with its per-dimension index lists and positions: order of an index, index at an order.
template <std::size_t N>
struct orect {
  rect<N> r;
  std::array<std::vector<index_t>, N> seq{};
  std::array<std::unordered_map<index_t, index_t>, N> pos{};
  index_t size = 1;

  explicit orect(const rect<N>& rr) : r(rr) {
    for (std::size_t d = 0; d < N; ++d) {
      seq[d] = seq_of(rr.dim(d));
      for (std::size_t k = 0; k < seq[d].size(); ++k) pos[d][seq[d][k]] = static_cast<index_t>(k);
      size *= static_cast<index_t>(seq[d].size());
    }
  }
  /// The position of i[d] in dimension d's iteration order, or -1.
  index_t position(std::size_t d, index_t v) const {
    const auto it = pos[d].find(v);
    return it == pos[d].end() ? -1 : it->second;
  }
  /// The row-major order of `i`, or -1 when it is not an index.
  index_t order(const idx<N>& i) const {
    index_t k = 0;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t p = position(d, i[d]);
      if (p < 0) return -1;
      k = k * static_cast<index_t>(seq[d].size()) + p;
    }
    return k;
  }
  /// The index at row-major order k.
  idx<N> at(index_t k) const {
    idx<N> i{};
    for (std::size_t d = N; d-- > 0;) {
      const auto n = static_cast<index_t>(seq[d].size());
      i[d] = seq[d][static_cast<std::size_t>(k % n)];
      k /= n;
    }
    return i;
  }
  /// The smallest index of dimension d, and one past the largest (dimension not empty).
  index_t low(std::size_t d) const { return std::min(seq[d].front(), seq[d].back()); }
  index_t high(std::size_t d) const { return std::max(seq[d].front(), seq[d].back()) + 1; }
};

// ------------------------------------------------------------------------------- values

/// A distinct value >= 1 per index (for indices in (-500, 500)).
template <std::size_t N>
std::int64_t fval(const idx<N>& i) {
  std::int64_t v = 0;
  for (std::size_t d = 0; d < N; ++d) v = v * 1000 + (i[d] + 500);
  return v + 1;
}
/// A double computed from an element, exact in binary.
double gval(std::int64_t a) { return static_cast<double>(a % 1000) - 0.5; }
/// A value per index for domain reductions.
template <std::size_t N>
std::int64_t hval(const idx<N>& i) {
  std::int64_t v = 7;
  for (std::size_t d = 0; d < N; ++d) v += static_cast<std::int64_t>(d + 1) * i[d] * i[d] - 3 * i[d];
  return v;
}

// ------------------------------------------------------------------------------- grids

template <std::size_t N>
using grid_arg = std::optional<std::array<int, N>>;  // nullopt: the default grid

/// Every ordered factorisation of p into N extents.
template <std::size_t N>
std::vector<std::array<int, N>> factorisations(int p) {
  std::vector<std::array<int, N>> out;
  std::array<int, N> s{};
  const std::function<void(std::size_t, int)> rec = [&](std::size_t d, int rest) {
    if (d == N - 1) {
      s[d] = rest;
      out.push_back(s);
      return;
    }
    for (int f = 1; f <= rest; ++f)
      if (rest % f == 0) {
        s[d] = f;
        rec(d + 1, rest / f);
      }
  };
  rec(0, p);
  return out;
}
template <std::size_t N>
dmap::target_grid<N> grid_for(const grid_arg<N>& a) {
  return a ? dmap::target_grid<N>(*a) : dmap::target_grid<N>{};
}
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

template <std::size_t N>
using owner_fn = std::function<int(const idx<N>&)>;

/// A distribution made by a factory, with its oracles.
template <std::size_t N, class Dist>
struct made {
  Dist dist;
  /// True when the distribution documents that it refuses the index set (empty: never).
  std::function<bool(const orect<N>&)> rejects{};
  /// The owner of each index of an index set (empty: no independent oracle).
  std::function<owner_fn<N>(const orect<N>&)> owner_for{};
};

/// The documented owner rule of a dimensional map: a specifier per dimension, C-order grid.
template <std::size_t N>
std::function<owner_fn<N>(const orect<N>&)> dimensional_owner(const std::array<dmap::dim_spec, N>& specs,
                                                               const std::array<int, N>& shape) {
  return [specs, shape](const orect<N>& w) -> owner_fn<N> {
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
std::function<bool(const orect<N>&)> dimensional_rejects(const std::array<dmap::dim_spec, N>& specs) {
  return [specs](const orect<N>& w) {
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
  made<N, Dist> m{std::move(dist)};
  m.owner_for = dimensional_owner<N>(specs, shape);
  m.rejects = dimensional_rejects<N>(specs);
  return m;
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
std::vector<index_t> random_cuts(gen& g, const orect<N>& w, std::size_t d, int p) {
  std::vector<index_t> cuts;
  for (int k = 0; k + 1 < p; ++k)
    cuts.push_back(w.seq[d].empty() ? draw(g, -5, 5) : draw(g, w.low(d), w.high(d)));
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

/// A range of `count` indices with stride s from `lo`, bounds loose or tight; count 0 gives
/// one of three empty forms.
range random_range(gen& g, index_t count, index_t s, index_t lo) {
  if (count == 0) {
    switch (g() % 3) {
      case 0: return range(lo, lo, s);
      case 1: return range(lo, lo - draw(g, 1, 3), s);
      default: return range(lo, lo + 1, 2, lo + 1);  // bounds hold an integer, but no index
    }
  }
  if (s < 0) return range(lo, lo + (count - 1) * -s + 1, s);
  const index_t last = lo + (count - 1) * s;
  const index_t slack_low = draw(g, 0, s - 1), slack_high = draw(g, 0, s - 1);
  return range(lo - slack_low, last + 1 + slack_high, s, lo);
}

/// A random rect: extents 0..25 (often 0 or at most the locale count), strides 1, 2, -1; 3-D
/// rects hold at most 4000 indices.
template <std::size_t N>
rect<N> random_rect(gen& g, int p) {
  std::array<index_t, N> count{};
  for (std::size_t d = 0; d < N; ++d) {
    const auto roll = g() % 8;
    count[d] = roll == 0 ? 0 : roll <= 2 ? draw(g, 1, p) : draw(g, 0, 25);
  }
  while (true) {
    index_t total = 1;
    for (auto c : count) total *= c;
    if (total <= 4000) break;
    *std::max_element(count.begin(), count.end()) /= 2;
  }
  rect<N> r;
  for (std::size_t d = 0; d < N; ++d) {
    static constexpr index_t strides[] = {1, 1, 2, -1};
    const index_t s = strides[g() % 4];
    r.set_dim(d, random_range(g, count[d], s, draw(g, -12, 12)));
  }
  return r;
}

/// A new index set for a resize: 0 grow, 1 shrink, 2 shift, 3 unrelated.
template <std::size_t N>
rect<N> resized(gen& g, const rect<N>& r, int kind, int p) {
  if (kind == 3) return random_rect<N>(g, p);
  rect<N> out = r;
  for (std::size_t d = 0; d < N; ++d) {
    const range& x = r.dim(d);
    const index_t s = iabs(x.stride());
    const index_t a = draw(g, 0, 3), b = draw(g, 0, 3);
    if (kind == 0) {
      if (x.empty()) out.set_dim(d, range(x.lo(), x.lo() + draw(g, 1, 5), x.stride()));
      else out.set_dim(d, range(x.lo() - a * s, x.hi() + b * s, x.stride(), x.alignment()));
    } else if (kind == 1) {
      out.set_dim(d, range(x.lo() + a * s, x.hi() - b * s, x.stride(), x.alignment()));
    } else {
      const index_t t = draw(g, -4, 4) * s + (g() % 4 == 0 ? 1 : 0);  // sometimes off the lattice
      out.set_dim(d, x.translated(t));
    }
  }
  return out;
}

// ------------------------------------------------------------------------------- factories
//
// A factory: `label()`, `supports<N>`, `explicit_grids` (false: the map fixes its own grid),
// `make<N>(g, grid, whole)` -> made<N, Dist> (draws its parameters from g, identically on every
// locale; throws for a bad grid), and `bad_arguments()`: constructions that must throw
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
  static made<N, dmap::block<N>> make(gen& g, const grid_arg<N>& ga, const orect<N>&) {
    const auto order = random_order(g);
    const auto grid = grid_for<N>(ga);
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
std::function<bool(const orect<N>&)> stencil_rejects(const std::array<int, N>& shape, const idx<N>& fluff,
                                                     const std::array<bool, N>& periodic) {
  return [shape, fluff, periodic](const orect<N>& w) {
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
  static made<N, dmap::stencil<N>> make(gen& g, const grid_arg<N>& ga, const orect<N>&) {
    const auto order = random_order(g);
    const auto grid = grid_for<N>(ga);
    idx<N> fluff{};
    fluff.fill(Fluff);
    std::array<bool, N> periodic{};
    periodic.fill(Periodic);
    std::array<dmap::dim_spec, N> specs;
    for (auto& s : specs) s = dmap::block_dim{};
    auto m = dimensional_made<N>(dmap::stencil<N>(fluff, periodic, grid, order), specs, grid.shape());
    m.rejects = stencil_rejects<N>(grid.shape(), fluff, periodic);
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
  static made<N, dmap::cyclic<N>> make(gen& g, const grid_arg<N>& ga, const orect<N>&) {
    const auto order = random_order(g);
    std::optional<idx<N>> start;
    if (ExplicitStart) {
      idx<N> s{};
      for (auto& v : s) v = draw(g, -20, 20);
      start = s;
    }
    const auto grid = grid_for<N>(ga);
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
  static made<N, dmap::block_cyclic<N>> make(gen& g, const grid_arg<N>& ga, const orect<N>&) {
    idx<N> bs{};
    for (auto& b : bs) b = random_block_size(g);
    std::optional<idx<N>> start;
    if (g() % 2) {
      idx<N> s{};
      for (auto& v : s) v = draw(g, -20, 20);
      start = s;
    }
    const auto grid = grid_for<N>(ga);
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
  static made<N, dmap::irregular_block<N>> make(gen& g, const grid_arg<N>& ga, const orect<N>& w) {
    const auto order = random_order(g);
    const auto grid = grid_for<N>(ga);
    std::array<std::vector<index_t>, N> cuts;
    std::array<dmap::dim_spec, N> specs;
    for (std::size_t d = 0; d < N; ++d) {
      cuts[d] = random_cuts<N>(g, w, d, grid.extent(d));
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
  static made<N, dmap::dimensional<N>> make(gen& g, const grid_arg<N>& ga, const orect<N>&) {
    const auto order = random_order(g);
    const auto grid = grid_for<N>(ga);
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
  static made<N, dmap::dimensional<N>> make(gen& g, const grid_arg<N>& ga, const orect<N>& w) {
    const auto order = random_order(g);
    const auto grid = grid_for<N>(ga);
    const index_t b = random_block_size(g);
    const auto start = random_start(g);
    std::array<dmap::dim_spec, N> specs{dmap::block_cyclic_dim{b, start},
                                        dmap::irregular_dim{random_cuts<N>(g, w, 1, grid.extent(1))}};
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
  static made<N, dmap::dimensional<N>> make(gen& g, const grid_arg<N>& ga, const orect<N>&) {
    const auto order = random_order(g);
    const auto grid = grid_for<N>(ga);
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
  static made<N, dmap::dimensional<N>> make(gen& g, const grid_arg<N>&, const orect<N>& w) {
    const int p = dmap::num_locales();
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
    m.owner_for = [owner](const orect<N>&) -> owner_fn<N> {
      return [owner](const idx<N>& i) { return owner.at(i[0]); };
    };
    m.rejects = [lo, hi](const orect<N>& x) {
      return std::any_of(x.seq[0].begin(), x.seq[0].end(), [&](index_t v) { return v < lo || v >= hi; });
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
  static made<N, dmap::hashed<N, affine_mapper>> make(gen& g, const grid_arg<N>&, const orect<N>&) {
    affine_mapper mapper{{draw(g, -3, 3), draw(g, -3, 3), draw(g, -3, 3)}, draw(g, 0, 5), g() % 3 == 0};
    const std::string label = mapper.hash ? std::string("hash")
                                          : str("affine ", mapper.c[0], " ", mapper.c[1], " ", mapper.c[2], " + ",
                                                mapper.shift);
    made<N, dmap::hashed<N, affine_mapper>> m{dmap::hashed<N, affine_mapper>{mapper, label}};
    const int p = dmap::num_locales();
    // The documented rule is the mapper itself; the oracle evaluates the formula on its own.
    m.owner_for = [mapper, p](const orect<N>&) -> owner_fn<N> {
      return [mapper, p](const idx<N>& i) {
        if (mapper.hash) return dmap::hash_mapper{}(i, p);
        index_t v = mapper.shift;
        for (std::size_t d = 0; d < N; ++d) v += mapper.c[d] * i[d];
        return static_cast<int>(pmod(v, p));
      };
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
  static made<N, dmap::unstructured<N>> make(gen& g, const grid_arg<N>&, const orect<N>& w) {
    const int p = dmap::num_locales();
    std::vector<std::vector<idx<N>>> lists(static_cast<std::size_t>(p));
    auto owners = std::make_shared<std::map<idx<N>, int>>();
    for (index_t k = 0; k < w.size; ++k) {
      const int q = static_cast<int>(draw(g, 0, p - 1));
      lists[static_cast<std::size_t>(q)].push_back(w.at(k));
      (*owners)[w.at(k)] = q;
    }
    for (auto& l : lists) std::shuffle(l.begin(), l.end(), g);
    made<N, dmap::unstructured<N>> m{dmap::unstructured<N>{lists[static_cast<std::size_t>(dmap::here())]}};
    auto first = std::make_shared<bool>(true);
    m.owner_for = [owners, first, p](const orect<N>& x) -> owner_fn<N> {
      if (!*first) {
        std::map<idx<N>, int> next;
        for (index_t k = 0; k < x.size; ++k) {
          const auto i = x.at(k);
          const auto it = owners->find(i);
          int home = 0;
          while (home + 1 < p && (home + 1) * x.size / p <= k) ++home;
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
  static made<N, custom_dist::weighted_block<N>> make(gen& g, const grid_arg<N>&, const orect<N>&) {
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
    m.owner_for = [twice, p](const orect<N>& w) -> owner_fn<N> {
      std::vector<index_t> rows = w.seq[0];
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

// ------------------------------------------------------------------------------- placement checks

/// Collective. Points 1-3 for the domain alone: exact cover, locale_of, owner oracle, layouts
/// and offsets of every locale, the local descriptor of this one.
template <class Desc, std::size_t N>
void check_placement(batch& b, const dmap::domain<N>& D, const orect<N>& w, const owner_fn<N>& owner) {
  const int p = dmap::num_locales(), me = dmap::here();
  report cover, locate, rule, layouts, any_locale, local_desc;
  std::vector<int> count(static_cast<std::size_t>(w.size), 0), who(static_cast<std::size_t>(w.size), -1);
  // Every locale's own report of its pieces and their storage (collective): the checks below
  // work from these, so they hold for maps kept in a directory too, where only a locale itself
  // knows its pieces.
  const auto reported_subs = everyones(D.local_subdomains());
  const auto reported_lays = everyones(D.local_layouts(me));
  constexpr bool in_directory = requires(const Desc& d) { d.directory(); };

  guarded(cover, [&] {
    if (!(D.indices() == w.r)) cover.fail(str("indices() is ", D.indices(), ", expected ", w.r));
    if (D.size() != w.size) cover.fail(str("size() is ", D.size(), ", expected ", w.size));
    for (int q = 0; q < p; ++q) {
      index_t owned = 0;
      for (const auto& sub : reported_subs[static_cast<std::size_t>(q)])
        for (const auto& i : points_of(sub)) {
          ++owned;
          const index_t k = w.order(i);
          if (k < 0) {
            cover.fail(str("locale ", q, " owns ", i, " (subdomain ", sub, "), which is not an index of ", w.r));
            continue;
          }
          ++count[static_cast<std::size_t>(k)];
          who[static_cast<std::size_t>(k)] = q;
        }
      if (q == me && owned != D.local_size())
        cover.fail(str("local_size() is ", D.local_size(), " but the local subdomains hold ", owned));
    }
    for (index_t k = 0; k < w.size; ++k)
      if (count[static_cast<std::size_t>(k)] != 1)
        cover.fail(str("index ", w.at(k), " is in ", count[static_cast<std::size_t>(k)], " locales' subdomains"));
  });

  guarded(locate, [&] {
    for (index_t k = 0; k < w.size; ++k) {
      const auto i = w.at(k);
      const int q = D.locale_of(i);
      if (count[static_cast<std::size_t>(k)] == 1 && q != who[static_cast<std::size_t>(k)])
        locate.fail(str("locale_of(", i, ") is ", q, " but locale ", who[static_cast<std::size_t>(k)], " owns it"));
    }
    idx<N> outside{};
    for (std::size_t d = 0; d < N; ++d) outside[d] = w.r.dim(d).hi() + 1000;
    const std::string got = thrown_by([&] { (void)D.locale_of(outside); });
    if (got.rfind("another dmap::error", 0) != 0 && !got.empty())
      locate.fail("locale_of(outside) threw " + got);
    if (got.empty()) locate.fail(str("locale_of(", outside, ") (not an index) did not throw"));
    if (!is_argument_error(thrown_by([&] { (void)D.local_subdomains(p); })))
      locate.fail(str("local_subdomains(", p, ") did not throw argument_error"));
  });

  if (owner)
    guarded(rule, [&] {
      for (index_t k = 0; k < w.size; ++k) {
        const auto i = w.at(k);
        const int q = owner(i);
        if (q != who[static_cast<std::size_t>(k)])
          rule.fail(str("the documented rule gives locale ", q, " for ", i, " but locale ",
                        who[static_cast<std::size_t>(k)], " owns it"));
      }
    });

  guarded(any_locale, [&] {
    // Maps given by formulas answer for any locale exactly what it reports; maps kept in a
    // directory refuse to answer for another locale (unsupported_error).
    for (int q = 0; q < p; ++q) {
      const auto& subs = reported_subs[static_cast<std::size_t>(q)];
      const auto& lays = reported_lays[static_cast<std::size_t>(q)];
      if (in_directory && q != me) {
        const std::string got = thrown_by([&] { (void)D.local_subdomains(q); });
        if (got.rfind("unsupported_error: ", 0) != 0)
          any_locale.fail(str("local_subdomains(", q, ") of a map kept in a directory threw ",
                              got.empty() ? std::string("nothing") : got));
        continue;
      }
      const auto answered = D.local_subdomains(q);
      const auto answered_layouts = D.local_layouts(q);
      if (answered != subs) any_locale.fail(str("local_subdomains(", q, ") differs from what locale ", q, " reports"));
      bool same = answered_layouts.size() == lays.size();
      for (std::size_t k = 0; same && k < lays.size(); ++k)
        same = answered_layouts[k].indices == lays[k].indices && answered_layouts[k].strides == lays[k].strides &&
               answered_layouts[k].offset == lays[k].offset;
      if (!same) any_locale.fail(str("local_layouts(", q, ") differs from what locale ", q, " reports"));
    }
  });

  guarded(layouts, [&] {
    for (int q = 0; q < p; ++q) {
      const auto& subs = reported_subs[static_cast<std::size_t>(q)];
      const auto& lays = reported_lays[static_cast<std::size_t>(q)];
      if (subs.size() != lays.size()) {
        layouts.fail(str("locale ", q, " has ", subs.size(), " subdomains but ", lays.size(), " layouts"));
        continue;
      }
      // The buffer: one past the largest element any layout uses, by the layout's own numbers.
      index_t span = 0;
      std::vector<orect<N>> frames;
      for (const auto& l : lays) {
        frames.emplace_back(l.indices);
        const auto& f = frames.back();
        index_t end = l.offset;
        if (f.size > 0) {
          end = l.offset + 1;
          for (std::size_t d = 0; d < N; ++d) end += (static_cast<index_t>(f.seq[d].size()) - 1) * l.strides[d];
        }
        span = std::max(span, end);
      }
      std::unordered_map<index_t, std::pair<std::size_t, idx<N>>> used;
      index_t stored = 0;
      for (std::size_t k = 0; k < lays.size(); ++k) {
        const auto& l = lays[k];
        const auto& f = frames[k];
        for (index_t o = 0; o < f.size; ++o) {
          const auto i = f.at(o);
          ++stored;
          index_t want = l.offset;
          for (std::size_t d = 0; d < N; ++d) want += f.position(d, i[d]) * l.strides[d];
          const index_t got = l.offset_of(i);
          if (got != want)
            layouts.fail(str("locale ", q, " layout ", k, ": offset_of(", i, ") is ", got, ", expected ", want));
          if (got < 0 || got >= span)
            layouts.fail(str("locale ", q, " layout ", k, ": offset_of(", i, ") = ", got, " is outside [0, ", span, ")"));
          const auto [it, fresh] = used.emplace(got, std::pair{k, i});
          if (!fresh)
            layouts.fail(str("locale ", q, ": ", i, " (layout ", k, ") and ", it->second.second, " (layout ",
                             it->second.first, ") share element ", got));
        }
        for (const auto& i : points_of(subs[k]))
          if (f.order(i) < 0)
            layouts.fail(str("locale ", q, ": layout ", k, " (", l.indices, ") does not hold owned index ", i));
      }
      if (stored != span)
        layouts.fail(str("locale ", q, ": storage is not compact: ", stored, " stored indices in a buffer of ", span));
    }
  });

  guarded(local_desc, [&] {
    const Desc* desc = D.template descriptor<Desc>();
    if (desc == nullptr) {
      local_desc.fail("descriptor<Desc>() is null");
      return;
    }
    const std::vector<rect<N>> subs = desc->local().subdomains();
    const std::vector<dmap::dense_layout<N>> lays = desc->local().layouts();
    const auto mine = D.local_subdomains(me);
    const auto my_layouts = D.local_layouts(me);
    if (subs.size() != mine.size() || lays.size() != my_layouts.size()) {
      local_desc.fail(str("local() has ", subs.size(), " subdomains and ", lays.size(), " layouts; the domain says ",
                          mine.size(), " and ", my_layouts.size()));
      return;
    }
    for (std::size_t k = 0; k < subs.size(); ++k) {
      if (!(subs[k] == mine[k])) local_desc.fail(str("local().subdomains()[", k, "] is ", subs[k], ", expected ", mine[k]));
      if (!(lays[k].indices == my_layouts[k].indices) || lays[k].strides != my_layouts[k].strides ||
          lays[k].offset != my_layouts[k].offset)
        local_desc.fail(str("local().layouts()[", k, "] differs from local_layouts(here)[", k, "]"));
    }
    if (desc->local().size() != D.local_size())
      local_desc.fail(str("local().size() is ", desc->local().size(), ", expected ", D.local_size()));
    for (index_t k = 0; k < w.size; ++k) {
      const auto i = w.at(k);
      const bool mine_i = who[static_cast<std::size_t>(k)] == me;
      if (static_cast<bool>(desc->local().contains(i)) != mine_i)
        local_desc.fail(str("local().contains(", i, ") is ", !mine_i, " on locale ", me));
    }
  });

  b.add("1. exact cover by local_subdomains", cover);
  b.add("2. locale_of agrees with local_subdomains", locate);
  b.add("2. ownership follows the documented rule", rule);
  b.add("3. layouts: offsets distinct, in the buffer, compact", layouts);
  b.add("1. local_subdomains(q) / local_layouts(q) answer what locale q reports", any_locale);
  b.add("3. local descriptor agrees with the domain", local_desc);
}

/// Every owned element of `A` (through local_blocks and the layouts) against `want(i)`, and
/// every stored non-owned element (ghost) against `ghost` when given.
template <class T, std::size_t N, class Want>
void check_local_values(report& rep, const dmap::array<T, N>& A, Want want, const char* what) {
  guarded(rep, [&] {
    const auto& D = A.domain();
    const auto subs = D.local_subdomains(dmap::here());
    const auto& blocks = A.local_blocks();
    if (blocks.size() != subs.size()) {
      rep.fail(str(what, ": ", blocks.size(), " local blocks for ", subs.size(), " subdomains"));
      return;
    }
    for (std::size_t k = 0; k < subs.size(); ++k)
      for (const auto& i : points_of(subs[k])) {
        const T got = blocks[k].base[blocks[k].layout.offset_of(i)];
        const T expected = want(i);
        if (!(got == expected)) rep.fail(str(what, ": element ", i, " is ", got, ", expected ", expected));
      }
  });
}

/// Collective: the serial view of `A` and gather() against want(w.at(k)); the view of the domain.
template <class T, std::size_t N, class Want>
void check_global_values(batch& b, const dmap::array<T, N>& A, const orect<N>& w, Want want,
                         const std::string& what) {
  report view, gathered, dview;
  guarded(view, [&] {
    std::vector<T> got;
    for (T v : dmap::view(A)) got.push_back(v);
    if (static_cast<index_t>(got.size()) != w.size) view.fail(str("view has ", got.size(), " elements, expected ", w.size));
    for (index_t k = 0; k < std::min(w.size, static_cast<index_t>(got.size())); ++k)
      if (!(got[static_cast<std::size_t>(k)] == want(w.at(k))))
        view.fail(str("view element ", k, " (", w.at(k), ") is ", got[static_cast<std::size_t>(k)], ", expected ",
                      want(w.at(k))));
  });
  guarded(dview, [&] {
    index_t k = 0;
    for (const auto& i : dmap::view(A.domain())) {
      if (k >= w.size || !(i == w.at(k))) {
        dview.fail(str("view(D) element ", k, " is ", i));
        break;
      }
      ++k;
    }
    if (k != w.size) dview.fail(str("view(D) has ", k, " indices, expected ", w.size));
  });
  std::vector<T> all;
  std::string err = thrown_by([&] { all = A.gather(); });
  if (!err.empty()) gathered.fail("gather threw " + err);
  if (dmap::here() == 0 && err.empty())
    guarded(gathered, [&] {
      if (static_cast<index_t>(all.size()) != w.size) gathered.fail(str("gather has ", all.size(), " elements"));
      else
        for (index_t k = 0; k < w.size; ++k)
          if (!(all[static_cast<std::size_t>(k)] == want(w.at(k))))
            gathered.fail(str("gathered element ", k, " is ", all[static_cast<std::size_t>(k)]));
    });
  b.add(what + ": dmap::view(A) equals the row-major oracle", view);
  b.add(what + ": dmap::view(D) equals the row-major oracle", dview);
  b.add(what + ": gather() on locale 0 equals the row-major oracle", gathered);
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

thread_local std::int64_t visit_tick = 0;

/// The results of the reductions of one case (gathered from every locale at once).
struct reductions {
  std::int64_t sum = 0, lo = 0, hi = 0, dsum = 0;
  double dot = 0, bsum = 0;
  friend bool operator==(const reductions&, const reductions&) = default;
};
std::ostream& operator<<(std::ostream& os, const reductions& r) {
  return os << "sum " << r.sum << ", min " << r.lo << ", max " << r.hi << ", domain sum " << r.dsum << ", zip dot "
            << r.dot << ", double sum " << r.bsum;
}

/// A report holding one failure when `err` (what a collective call threw) is not empty.
report threw(const std::string& call, const std::string& err) {
  report r;
  if (!err.empty()) r.fail(call + " threw " + err);
  return r;
}

// ------------------------------------------------------------------------------- one case

/// Collective. All checks for one distribution over one index set, then the resizes.
template <std::size_t N, class Dist>
void check_case(const made<N, Dist>& m, const orect<N>& w, const std::vector<rect<N>>& resizes, bool large) {
  using desc_t = std::remove_cvref_t<decltype(m.dist.new_domain(w.r))>;
  static_assert(dmap::distribution<Dist, N>);
  const int me = dmap::here();
  batch b;

  // Creation: refused exactly when the oracle says so, then with argument_error everywhere.
  const bool refuse = m.rejects && m.rejects(w);
  std::optional<dmap::domain<N>> made_domain;
  const std::string err = thrown_by([&] { made_domain.emplace(m.dist, w.r); });
  if (refuse) {
    report r;
    if (!is_argument_error(err)) r.fail(err.empty() ? std::string("creation threw nothing") : err);
    b.add("the distribution documents that it refuses this index set: argument_error everywhere", r);
    b.flush();
    return;
  }
  b.add("creating the domain", threw("the domain's constructor", err));
  if (!b.flush()) return;
  dmap::domain<N>& D = *made_domain;
  {
    report r;
    guarded(r, [&] {
      if (!D.same_map(D) || !(m.dist == Dist(m.dist))) r.fail("a map is not equal to its copy");
    });
    b.add("same_map / operator== of copies", r);
  }

  const owner_fn<N> owner = m.owner_for ? m.owner_for(w) : owner_fn<N>{};
  check_placement<desc_t>(b, D, w, owner);

  // 4. Chunks of the local pieces for several thread counts.
  {
    report chunks;
    guarded(chunks, [&] {
      const auto& whole = D.indices();
      const auto& subs = D.local_subdomains();
      std::vector<dmap::dense_rect<N>> pieces;
      for (const auto& s : subs) pieces.push_back(dmap::densify(whole, s));
      for (std::size_t k = 0; k < subs.size(); ++k) {
        const auto back = points_of(dmap::undensify(whole, pieces[k]));
        if (back != points_of(subs[k])) chunks.fail(str("undensify(densify(", subs[k], ")) differs from it"));
      }
      for (int threads : {1, 2, 3, 7}) {
        std::unordered_map<index_t, int> seen;
        for (const auto& c : dmap::detail::cut_into_chunks(pieces, threads)) {
          if (c.piece >= subs.size()) {
            chunks.fail(str(threads, " threads: a chunk names piece ", c.piece, " of ", subs.size()));
            continue;
          }
          const orect<N> piece(subs[c.piece]);
          for (const auto& i : points_of(dmap::undensify(whole, c.orders))) {
            if (piece.order(i) < 0)
              chunks.fail(str(threads, " threads: chunk index ", i, " is outside its piece ", subs[c.piece]));
            ++seen[w.order(i)];
          }
        }
        index_t owned = 0;
        for (const auto& s : subs)
          for (const auto& i : points_of(s)) {
            ++owned;
            const auto it = seen.find(w.order(i));
            if (it == seen.end() || it->second != 1)
              chunks.fail(str(threads, " threads: owned index ", i, " is in ", it == seen.end() ? 0 : it->second,
                              " chunks"));
          }
        if (static_cast<index_t>(seen.size()) != owned)
          chunks.fail(str(threads, " threads: the chunks hold ", seen.size(), " indices, the locale owns ", owned));
      }
    });
    b.add("4. chunks cover the local part exactly once", chunks);
  }
  // The per-element checks below search the pieces linearly: too slow for many large pieces.
  if (large && dmap::all_reduce_max(static_cast<int>(D.local_subdomains().size())) > 64) {
    b.flush();
    return;
  }

  // 3. Storage through the array: value-initialised; A.local(i) lands at offset_of(i).
  dmap::array<std::int64_t, N> A(D);
  {
    report init, rw;
    guarded(init, [&] {
      const auto lays = D.local_layouts(me);
      const auto& blocks = A.local_blocks();
      if (blocks.size() != lays.size()) init.fail(str(blocks.size(), " local blocks, ", lays.size(), " layouts"));
      index_t span = 0;
      for (const auto& l : lays) span = std::max(span, l.end());
      if (A.local_size() != span) init.fail(str("local_size() is ", A.local_size(), ", the layouts need ", span));
      for (std::size_t k = 0; k < std::min(blocks.size(), lays.size()); ++k) {
        const auto& l = blocks[k].layout;
        if (!(l.indices == lays[k].indices) || l.strides != lays[k].strides || l.offset != lays[k].offset)
          init.fail(str("local_blocks()[", k, "].layout differs from local_layouts(here)[", k, "]"));
        for (const auto& i : points_of(l.indices))
          if (blocks[k](i) != 0) init.fail(str("stored element ", i, " is ", blocks[k](i), ", not value-initialised"));
      }
    });
    guarded(rw, [&] {
      const auto subs = D.local_subdomains(me);
      const auto lays = D.local_layouts(me);
      for (const auto& s : subs)
        for (const auto& i : points_of(s)) A.local(i) = fval(i);
      for (std::size_t k = 0; k < subs.size(); ++k)
        for (const auto& i : points_of(subs[k])) {
          const std::int64_t got = A.local_blocks()[k].base[lays[k].offset_of(i)];
          if (got != fval(i))
            rw.fail(str("after A.local(", i, ") = ", fval(i), ", local_blocks()[", k, "] at offset ",
                        lays[k].offset_of(i), " holds ", got));
        }
      // An index of the domain owned elsewhere is not local.
      for (index_t k = 0; k < w.size; ++k) {
        const auto i = w.at(k);
        if (D.locale_of(i) == me) continue;
        std::string got;
        try {
          (void)A.local(i);
        } catch (const dmap::not_local_error&) {
          got = "not_local_error";
        }
        if (got.empty()) rw.fail(str("A.local(", i, ") of another locale's index did not throw not_local_error"));
        break;
      }
    });
    b.add("3. arrays start value-initialised; blocks match the layouts", init);
    b.add("3. A.local(i) writes the element at local_layouts()[k].offset_of(i)", rw);
  }

  // 5. Follower order and the index handed with each element.
  {
    dmap::array<std::int64_t, N> T(D), C(D);
    std::atomic<long> wrong_index{0};
    const std::string err5 = thrown_by([&] {
      dmap::forall(dmap::zip(T, C, D), [&](std::int64_t& t, std::int64_t& c, idx<N> i) {
        t = ++visit_tick;
        c += 1;
        if (&t != &T.local(i)) ++wrong_index;
      });
    });
    report order = threw("forall(zip(T, C, D))", err5), once;
    if (wrong_index.load() != 0) order.fail(str(wrong_index.load(), " elements came with another index"));
    check_local_values(once, C, [](const idx<N>&) { return std::int64_t{1}; }, "visits per owned index");
    guarded(order, [&] {
      std::vector<dmap::dense_rect<N>> pieces;
      for (const auto& s : D.local_subdomains()) pieces.push_back(dmap::densify(D.indices(), s));
      for (const auto& c : dmap::detail::cut_into_chunks(pieces, dmap::num_threads())) {
        std::int64_t previous = 0;
        idx<N> previous_index{};
        bool first = true;
        for (const auto& i : points_of(dmap::undensify(D.indices(), c.orders))) {
          const std::int64_t t = T.local(i);
          if (!first && t <= previous) {
            order.fail(str("within a chunk, ", i, " was visited (tick ", t, ") before ", previous_index, " (tick ",
                           previous, "), which precedes it in row-major order"));
            break;
          }
          first = false;
          previous = t;
          previous_index = i;
        }
      }
    });
    b.add("5. forall(zip(T, C, D)): each element with its own index, row-major within each chunk", order);
    b.add("5. forall(zip(T, C, D)) visits each owned index once", once);

    // The domain leads; a domain alone; an array alone.
    std::atomic<long> wrong{0}, off_owner{0};
    const std::string err5b = thrown_by([&] {
      dmap::forall(dmap::zip(D, std::as_const(A)), [&](idx<N> i, const std::int64_t& a) {
        if (a != fval(i)) ++wrong;
      });
      dmap::forall(D, [&](idx<N> i) {
        C.local(i) += 1;
        if (D.locale_of(i) != dmap::here()) ++off_owner;
      });
      dmap::forall(C, [](std::int64_t& v) { v = 3 * v + 1; });
    });
    report lead = threw("a loop", err5b);
    if (wrong.load() != 0) lead.fail(str("forall(zip(D, A)): ", wrong.load(), " elements differ from f(i)"));
    if (off_owner.load() != 0) lead.fail(str("forall(D): ", off_owner.load(), " indices ran off their owner"));
    check_local_values(lead, C, [](const idx<N>&) { return std::int64_t{7}; }, "forall(D) then forall(C)");
    b.add("5. a domain leading, a domain alone, an array alone", lead);
  }

  // 6. forall / zip / reduce against serial oracles; views.
  dmap::array<double, N> B(D);
  {
    const std::string err6 = thrown_by([&] {
      dmap::forall(A, [](std::int64_t& a) { a = 0; });
      dmap::forall(dmap::zip(A, D), [](std::int64_t& a, idx<N> i) { a = fval(i); });
      dmap::forall(dmap::zip(B, std::as_const(A)), [](double& b, const std::int64_t& a) { b = gval(a); });
    });
    report filled = threw("the fill loops", err6);
    check_local_values(filled, A, [](const idx<N>& i) { return fval(i); }, "A after forall(zip(A, D))");
    check_local_values(filled, B, [](const idx<N>& i) { return gval(fval(i)); }, "B after forall(zip(B, A))");
    b.add("6. forall(zip(A, D)) and forall(zip(B, A)) fill the owned elements", filled);

    reductions want{0, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(), 0, 0, 0};
    for (index_t k = 0; k < w.size; ++k) {
      const auto i = w.at(k);
      want.sum += fval(i);
      want.lo = std::min(want.lo, fval(i));
      want.hi = std::max(want.hi, fval(i));
      want.dsum += hval(i);
      want.dot += static_cast<double>(fval(i) % 7) * gval(fval(i));
      want.bsum += gval(fval(i));
    }
    reductions got{-1, -1, -1, -1, -1, -1};
    const std::string errr = thrown_by([&] {
      got.sum = dmap::reduce(A, std::int64_t{0}, std::plus<>{});
      got.lo = dmap::reduce(A, std::numeric_limits<std::int64_t>::max(), dmap::minimum{});
      got.hi = dmap::reduce(std::as_const(A), std::numeric_limits<std::int64_t>::min(), dmap::maximum{});
      got.dsum = dmap::reduce(D, std::int64_t{0}, std::plus<>{}, [](idx<N> i) { return hval(i); });
      got.dot = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{},
                             [](std::int64_t a, double x) { return static_cast<double>(a % 7) * x; });
      got.bsum = dmap::reduce(B, 0.0, std::plus<>{});
    });
    report reduced = threw("a reduction", errr);
    const auto everywhere = dmap::all_gather(got);
    for (std::size_t q = 0; q < everywhere.size(); ++q)
      if (!(everywhere[q] == got)) reduced.fail(str("locale ", q, " reduced to ", everywhere[q], ", here ", got));
    if (!(got == want)) reduced.fail(str("reduced to ", got, ", expected ", want));
    b.add("6. reduce sum/min/max over A, over D, over zip(A, B), over B: the oracle's result, on every locale",
          reduced);
    check_global_values(b, A, w, [](const idx<N>& i) { return fval(i); }, "6. A");

    // A[i] (local, ghost copy or remote element) at a few indices; ghost copies are as fresh as
    // the last halo update.
    report access;
    const std::string errh = thrown_by([&] {
      if constexpr (std::is_same_v<desc_t, dmap::stencil_domain<N>>) dmap::update_halos(A);
    });
    if (!errh.empty()) access.fail("update_halos threw " + errh);
    guarded(access, [&] {
      for (index_t k = 0; k < w.size; k += std::max<index_t>(1, w.size / 5)) {
        const auto i = w.at(k);
        const std::int64_t value = A[i];
        if (value != fval(i)) access.fail(str("A[", i, "] is ", value, ", expected ", fval(i)));
      }
      // Stored copies of other locales' indices (ghost cells) hold the owner's value.
      const auto subs = D.local_subdomains(me);
      const auto& blocks = A.local_blocks();
      for (std::size_t k = 0; k < blocks.size(); ++k) {
        const orect<N> own(subs[k]);
        for (const auto& i : points_of(blocks[k].layout.indices))
          if (own.order(i) < 0 && w.order(i) >= 0 && blocks[k](i) != fval(i))
            access.fail(str("the stored copy of ", i, " holds ", blocks[k](i), ", expected ", fval(i)));
      }
    });
    b.add("6. A[i] reads any element; ghost copies hold the owner's values after update_halos", access);
  }
  if (!b.flush() || large) return;

  // 7. Resizes: surviving values kept, new ones value-initialised; assignment to Block and back.
  std::vector<orect<N>> history{w};
  for (const auto& r2 : resizes) {
    const orect<N> w2(r2);
    const auto alive = [&](const idx<N>& i) {
      for (const auto& h : history)
        if (h.order(i) < 0) return false;
      return true;
    };
    const auto want_a = [&](const idx<N>& i) { return alive(i) ? fval(i) : std::int64_t{0}; };
    const auto want_b = [&](const idx<N>& i) { return alive(i) ? gval(fval(i)) : 0.0; };
    const std::string step = str("7. resize from ", D.indices(), " to ", r2, ": ");
    const bool refuse2 = m.rejects && m.rejects(w2);
    const std::string err7 = thrown_by([&] { D.set_indices(r2); });
    if (refuse2) {
      report r;
      if (!is_argument_error(err7)) r.fail(err7.empty() ? std::string("set_indices threw nothing") : err7);
      b.add(step + "the distribution documents that it refuses the index set: argument_error everywhere", r);
      if (!b.flush()) return;
      // Nothing changed.
      report unchanged;
      if (!(D.indices() == history.back().r)) unchanged.fail(str("the domain is now ", D.indices()));
      check_local_values(unchanged, A, want_a, "A after a refused resize");
      b.add(step + "a refused resize leaves the domain and its arrays as they were", unchanged);
      continue;
    }
    b.add(step + "set_indices", threw("set_indices", err7));
    if (!b.flush()) return;
    history.push_back(w2);
    check_placement<desc_t>(b, D, w2, m.owner_for ? m.owner_for(w2) : owner_fn<N>{});
    report kept;
    check_local_values(kept, A, want_a, "A after resize");
    check_local_values(kept, B, want_b, "B after resize");
    b.add(step + "surviving values kept, new ones value-initialised", kept);
    check_global_values(b, A, w2, want_a, step + "A");

    // Assignment to a Block array over the same indices, and back.
    dmap::domain<N> DB{dmap::block<N>{}, r2};
    dmap::array<std::int64_t, N> X(DB);
    std::string erra = thrown_by([&] { X = A; });
    report copied = threw("assignment to Block", erra);
    check_local_values(copied, X, want_a, "X = A");
    b.add(step + "X = A to a Block array over the same indices", copied);
    // Zipping with an array of another distribution: it runs (the follower is staged when it
    // is not aligned), except under a leader kept in a directory, which cannot stage followers:
    // then it runs only when aligned and is refused with unsupported_error everywhere otherwise.
    std::atomic<long> differ{0};
    const std::string errz = thrown_by([&] {
      dmap::forall(dmap::zip(A, std::as_const(X)), [&](const std::int64_t& a, const std::int64_t& x) {
        if (a != x) ++differ;
      });
    });
    report zipped;
    constexpr bool leader_in_directory = requires(const desc_t& d) { d.directory(); };
    if (!errz.empty() && (!leader_in_directory || errz.rfind("unsupported_error: ", 0) != 0))
      zipped.fail("forall(zip(A, X)) threw " + errz);
    if (differ.load() != 0) zipped.fail(str("forall(zip(A, X)): ", differ.load(), " elements differ"));
    const auto refused = dmap::all_gather(static_cast<int>(!errz.empty()));
    if (std::count(refused.begin(), refused.end(), refused.front()) != static_cast<std::ptrdiff_t>(refused.size()))
      zipped.fail("forall(zip(A, X)) was refused on some locales only");
    b.add(step + "forall(zip(A, X)) with X over Block: runs with equal elements (a directory leader: or is refused everywhere)",
          zipped);
    erra = thrown_by([&] {
      dmap::forall(A, [](std::int64_t& a) { a = -5; });
      A = X;
    });
    report back = threw("assignment from Block", erra);
    check_local_values(back, A, want_a, "A = X");
    b.add(step + "and back (A = X) gives the same values", back);
  }
  b.flush();
}

/// Collective. `cases` random cases of N dimensions for factory F, then one large case.
template <class F, std::size_t N>
void random_cases(int cases) {
  const int p = dmap::num_locales();
  const auto grids = factorisations<N>(p);
  std::uint64_t salt = 0;
  for (char c : F::label()) salt = salt * 131 + static_cast<unsigned char>(c);
  gen g(base_seed ^ (salt * 0x9E3779B97F4A7C15ULL) ^ (N * 0x2545F4914F6CDD1DULL));
  for (int c = 0; c <= cases; ++c) {
    const bool large = c == cases;
    rect<N> r;
    if (large) {
      // Unit stride, big enough for several chunks per piece: 36000 indices.
      static constexpr index_t extents[3][3] = {{36000, 1, 1}, {200, 180, 1}, {40, 30, 30}};
      for (std::size_t d = 0; d < N; ++d) r.set_dim(d, range(-3, -3 + extents[N - 1][d]));
    } else {
      r = random_rect<N>(g, p);
    }
    grid_arg<N> ga;
    if (F::explicit_grids && !large) {
      const auto k = static_cast<std::size_t>(g() % (grids.size() + 1));
      if (k < grids.size()) ga = grids[k];
    }
    const orect<N> w(r);
    auto m = F::template make<N>(g, ga, w);
    std::vector<rect<N>> resizes;
    if (!large) {
      // Grow, shrink, shift and unrelated in turn; every third case resizes twice.
      resizes.push_back(resized<N>(g, r, c % 4, p));
      if (c % 3 == 0) resizes.push_back(resized<N>(g, resizes.back(), (c + 1) % 4, p));
    }
    INFO(F::label() << ": case " << c << (large ? " (large)" : "") << ", " << N << "-D " << r << " over "
                    << m.dist.name() << (ga ? " (explicit grid " + shape_text<N>(*ga) + ")" : std::string(" (default grid)")));
    std::string err = thrown_by([&] { check_case<N>(m, w, resizes, large); });
    INFO("the case threw here: " << err);
    DMAP_CHECK_ALL(err.empty());
  }
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
void bad_grids() {
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
  const orect<N> w(rect<N>{});
  for (const auto& shape : shapes) {
    gen g(base_seed);
    require_argument_error(str(F::label(), ": grid ", shape_text<N>(shape), " for ", p, " locales"), [&] {
      auto m = F::template make<N>(g, grid_arg<N>(shape), w);
      build_domain<N>(m.dist, rect<N>{});
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
  for (const auto& [what, thunk] : TestType::bad_arguments()) require_argument_error(what, thunk);
  if constexpr (TestType::explicit_grids) {
    if constexpr (TestType::template supports<1>) bad_grids<TestType, 1>();
    if constexpr (TestType::template supports<2>) bad_grids<TestType, 2>();
    if constexpr (TestType::template supports<3>) bad_grids<TestType, 3>();
  }
}

TEST_CASE("conformance: private_space has index q on locale q, reduces, and refuses other index sets",
          "[conformance]") {
  const int p = dmap::num_locales(), me = dmap::here();
  dmap::domain<1> S = dmap::private_space();
  report place;
  guarded(place, [&] {
    if (seq_of(S.indices().dim(0)) != [&] {
          std::vector<index_t> v;
          for (int q = 0; q < p; ++q) v.push_back(q);
          return v;
        }())
      place.fail(str("indices are ", S.indices()));
    for (int q = 0; q < p; ++q) {
      const auto subs = S.local_subdomains(q);
      std::vector<idx<1>> owned;
      for (const auto& s : subs)
        for (const auto& i : points_of(s)) owned.push_back(i);
      if (owned.size() != 1 || owned.front()[0] != q) place.fail(str("locale ", q, " does not own exactly {", q, "}"));
      if (S.locale_of(idx<1>{q}) != q) place.fail(str("locale_of(", q, ") is ", S.locale_of(idx<1>{q})));
    }
  });
  CONF_CHECK("private_space: index q on locale q", place);

  dmap::array<std::int64_t, 1> A(S);
  const auto val = [](index_t q) { return static_cast<std::int64_t>(10 + q * q); };
  std::atomic<long> wrong{0};
  dmap::forall(dmap::zip(A, S), [&](std::int64_t& a, idx<1> i) {
    if (i[0] != dmap::here()) ++wrong;
    a = val(i[0]);
  });
  report filled;
  if (wrong.load() != 0) filled.fail(str(wrong.load(), " indices of forall(zip(A, S)) ran off their locale"));
  guarded(filled, [&] {
    if (A.local(idx<1>{me}) != val(me)) filled.fail(str("A.local(", me, ") is ", A.local(idx<1>{me})));
  });
  CONF_CHECK("private: forall(zip(A, S)) runs index q on locale q", filled);
  std::int64_t sum = 0, lo = std::numeric_limits<std::int64_t>::max(), hi = 0;
  for (int q = 0; q < p; ++q) sum += val(q), lo = std::min(lo, val(q)), hi = std::max(hi, val(q));
  check_everywhere(dmap::reduce(A, std::int64_t{0}, std::plus<>{}), sum, "private: reduce(A, 0, +)");
  check_everywhere(dmap::reduce(A, std::numeric_limits<std::int64_t>::max(), dmap::minimum{}), lo,
                   "private: reduce(A, max, minimum)");
  check_everywhere(dmap::reduce(A, std::int64_t{0}, dmap::maximum{}), hi, "private: reduce(A, 0, maximum)");
  check_everywhere(dmap::reduce(S, std::int64_t{0}, std::plus<>{}, [](idx<1> i) { return i[0]; }),
                   static_cast<std::int64_t>(p * (p - 1) / 2), "private: reduce(S, 0, +, i)");
  batch b;
  check_global_values(b, A, orect<1>(rect<1>{range(0, p)}), [&](const idx<1>& i) { return val(i[0]); }, "private");
  b.flush();

  std::vector<std::pair<std::string, rect<1>>> others{{"{0..<P+1}", rect<1>{range(0, p + 1)}},
                                                      {"{1..<P+1}", rect<1>{range(1, p + 1)}},
                                                      {"{-1..<P-1}", rect<1>{range(-1, p - 1)}},
                                                      {"{} (empty)", rect<1>{range(0, 0)}}};
  if (p > 1) {
    others.push_back({"{0..<2P by 2}", rect<1>{range(0, 2 * p, 2)}});
    others.push_back({"{0..<P by -1}", rect<1>{range(0, p, -1)}});
    others.push_back({"{0..<P-1}", rect<1>{range(0, p - 1)}});
  }
  for (const auto& other : others) {
    const std::string& name = other.first;
    const rect<1>& r = other.second;
    require_argument_error(str("a private domain over ", name),
                           [&] { dmap::domain<1> D{dmap::private_dist{}, r}; });
    require_argument_error(str("private_space().with_indices(", name, ")"), [&] { (void)S.with_indices(r); });
  }
}

// The rule belongs to the map: a private domain's index set cannot be changed by set_indices
// either (private_domain checks it there too).
TEST_CASE("conformance: private_space().set_indices to another index set throws argument_error on every locale",
          "[conformance]") {
  const int p = dmap::num_locales();
  dmap::domain<1> S = dmap::private_space();
  dmap::array<std::int64_t, 1> A(S, 7);
  require_argument_error("private_space().set_indices({0..<P+1})", [&] { S.set_indices(rect<1>{range(0, p + 1)}); });
  require_argument_error("private_space().set_indices({1..<P+1})", [&] { S.set_indices(rect<1>{range(1, p + 1)}); });
  DMAP_CHECK_ALL(S.indices() == (rect<1>{range(0, p)}));
}
