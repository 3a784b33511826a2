// The Stencil distribution (dists/stencil.hpp): ghost cells, halo updates, neighbours.
//
// Oracle, written without the code under test: a domain dimension's indices come from
// scanning every integer of [lo, hi) for (i - alignment) mod |stride| == 0; the cut is
// Chapel's Block cut written out again (bounds [L, H) = smallest .. largest index + 1,
// n = H - L, part k of p owns [L + ceil(n*k/p), L + ceil(n*(k+1)/p)), the edge parts
// extending to infinity; grid coordinates in C order). A locale's frame along dimension d
// is its owned sequence extended by fluff[d] positions (steps of the stride) on each side.
// A ghost cell g (frame minus owned) holds the value of source(g): g itself when g is an
// index of the domain, else its periodic image (g moved by extent * |stride| along each
// periodic dimension where it lies outside) when that is an index; otherwise (boundary
// padding of a non-periodic dimension) nothing writes it.
//
// Values: f(i) is an injective formula of the index; every stored cell is first set to a
// sentinel through local_blocks(), then the owned ones to f(i) by forall(zip(A, D)).
#include "../oracle.hpp"
#include "../stencil_config.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace test_stencil {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

static_assert(dmap::distribution<dmap::stencil<1>, 1>);
static_assert(dmap::distribution<dmap::stencil<2>, 2>);
static_assert(dmap::distribution<dmap::stencil<3>, 3>);

// ------------------------------------------------------------------------------- oracle

using namespace dmap::testing::oracle;  // tests/oracle.hpp
using namespace dmap::testing::stencil_config;  // tests/stencil_config.hpp

/// The stencil layout of a domain as the oracle sees it.
template <std::size_t N>
struct oracle {
  rect<N> whole;
  idx<N> fluff;
  std::array<bool, N> periodic;
  std::array<int, N> grid;
  int locales = 1;
  std::array<seq, N> dom;                       // domain indices per dimension, iteration order
  std::array<std::map<index_t, int>, N> part;   // index -> grid coordinate along d

  oracle(const rect<N>& r, const idx<N>& f, const std::array<bool, N>& per, const std::array<int, N>& g)
      : whole(r), fluff(f), periodic(per), grid(g) {
    for (std::size_t d = 0; d < N; ++d) locales *= grid[d];
    for (std::size_t d = 0; d < N; ++d) {
      dom[d] = seq_of(r.dim(d));
      if (dom[d].empty()) continue;
      const index_t L = *std::min_element(dom[d].begin(), dom[d].end());
      const index_t H = *std::max_element(dom[d].begin(), dom[d].end()) + 1;
      for (index_t i : dom[d]) part[d][i] = cut_part(L, H, grid[d], i);
    }
  }

  std::array<int, N> coords(int q) const { return c_order_coords(grid, q); }
  bool in_dom(std::size_t d, index_t i) const { return part[d].count(i) != 0; }
  bool contains(const idx<N>& i) const {
    for (std::size_t d = 0; d < N; ++d)
      if (!in_dom(d, i[d])) return false;
    return true;
  }
  /// The owner of an index of the domain.
  int owner(const idx<N>& i) const {
    std::array<int, N> c{};
    for (std::size_t d = 0; d < N; ++d) c[d] = part[d].at(i[d]);
    return c_order_locale(grid, c);
  }
  /// Locale q's owned indices per dimension (all empty when it owns nothing).
  std::array<seq, N> owned(int q) const {
    const auto c = coords(q);
    std::array<seq, N> o;
    bool none = false;
    for (std::size_t d = 0; d < N; ++d) {
      for (index_t i : dom[d])
        if (part[d].at(i) == c[d]) o[d].push_back(i);
      none = none || o[d].empty();
    }
    if (none)
      for (auto& s : o) s.clear();
    return o;
  }
  /// Locale q's stored indices per dimension: owned widened by fluff positions.
  std::array<seq, N> frame(int q) const {
    auto o = owned(q);
    if (o[0].empty()) return o;
    std::array<seq, N> fr;
    for (std::size_t d = 0; d < N; ++d) {
      const index_t s = whole.dim(d).stride();
      for (index_t k = fluff[d]; k >= 1; --k) fr[d].push_back(o[d].front() - k * s);
      fr[d].insert(fr[d].end(), o[d].begin(), o[d].end());
      for (index_t k = 1; k <= fluff[d]; ++k) fr[d].push_back(o[d].back() + k * s);
    }
    return fr;
  }
  bool owns(int q, const idx<N>& i) const { return contains(i) && owner(i) == q; }
  /// Locale q's ghost cells (stored, not owned).
  std::vector<idx<N>> ghosts(int q) const {
    std::vector<idx<N>> out;
    for (const auto& g : product(frame(q)))
      if (!owns(q, g)) out.push_back(g);
    return out;
  }
  /// The index whose value the stored cell g holds after a halo update, if any.
  std::optional<idx<N>> source(idx<N> g) const {
    for (std::size_t d = 0; d < N; ++d) {
      if (in_dom(d, g[d])) continue;
      if (!periodic[d]) return std::nullopt;
      const index_t period = static_cast<index_t>(dom[d].size()) * iabs(whole.dim(d).stride());
      if (in_dom(d, g[d] + period)) g[d] += period;
      else if (in_dom(d, g[d] - period)) g[d] -= period;
      else return std::nullopt;
    }
    return g;
  }
};

/// What a halo update moves for locale `me`, from the oracle.
struct traffic {
  std::uint64_t messages_sent = 0, elements_sent = 0, messages_received = 0, elements_received = 0;
  std::uint64_t remote_ghosts_total = 0;  // over all locales: ghost cells filled from another locale
  std::uint64_t directions = 0;           // distinct directions of my ghost cells that have a source
};

template <std::size_t N>
traffic expected_traffic(const oracle<N>& o, int me) {
  traffic t;
  std::set<int> to, from;
  std::set<std::array<int, N>> dirs;
  for (int q = 0; q < o.locales; ++q) {
    const auto own = o.owned(q);
    for (const auto& g : o.ghosts(q)) {
      const auto s = o.source(g);
      if (!s) continue;
      const int w = o.owner(*s);
      if (q == me) {
        std::array<int, N> dir{};
        for (std::size_t d = 0; d < N; ++d) {
          const bool low = o.whole.dim(d).stride() > 0 ? g[d] < own[d].front() : g[d] > own[d].front();
          const bool high = o.whole.dim(d).stride() > 0 ? g[d] > own[d].back() : g[d] < own[d].back();
          dir[d] = low ? -1 : high ? 1 : 0;
        }
        dirs.insert(dir);
      }
      if (w == q) continue;
      ++t.remote_ghosts_total;
      if (w == me) ++t.elements_sent, to.insert(q);
      if (q == me) ++t.elements_received, from.insert(w);
    }
  }
  t.messages_sent = to.size();
  t.messages_received = from.size();
  t.directions = dirs.size();
  return t;
}

// ------------------------------------------------------------------------------- values

template <std::size_t N>
std::int64_t f_of(const idx<N>& i, std::int64_t salt) {
  std::int64_t v = salt;
  for (std::size_t d = 0; d < N; ++d) v = v * 10000 + (i[d] + 2000);
  return v;
}

/// A 24-byte element, so byte counts are not element counts.
struct wide {
  std::int64_t a = 0;
  double b = 0;
  std::int32_t c = 0;
  friend bool operator==(const wide&, const wide&) = default;
  friend std::ostream& operator<<(std::ostream& os, const wide& w) {
    return os << "{" << w.a << ", " << w.b << ", " << w.c << "}";
  }
};
static_assert(sizeof(wide) == 24);

template <class T>
T make(std::int64_t v) {
  if constexpr (std::is_same_v<T, wide>) return wide{v, static_cast<double>(v) * 0.5, static_cast<std::int32_t>(v % 1000)};
  else return static_cast<T>(v);
}

constexpr std::int64_t sentinel_value = -777;

template <std::size_t N>
std::array<int, N> balanced_grid() {
  return dmap::target_grid<N>::balanced(dmap::num_locales()).shape();
}

template <std::size_t N>
oracle<N> make_oracle(const config<N>& c) {
  return oracle<N>(c.r, c.fluff, c.periodic, c.grid);
}

/// Every grid (of this locale count) on which each chunk is at least the ghost width along
/// every exchanging dimension.
template <std::size_t N>
bool fits(const config<N>& c) {
  const auto o = make_oracle(c);
  for (int q = 0; q < o.locales; ++q) {
    const auto own = o.owned(q);
    for (std::size_t d = 0; d < N; ++d) {
      const bool exchanges = c.grid[d] > 1 || c.periodic[d];
      if (exchanges && c.fluff[d] > 0 && static_cast<index_t>(own[d].size()) < c.fluff[d]) return false;
    }
  }
  return true;
}

/// Sets every cell this locale stores to the sentinel, then every owned element to f(i).
template <class T, std::size_t N>
void fill(dmap::array<T, N>& A, const dmap::domain<N>& D, std::int64_t salt) {
  for (const auto& b : A.local_blocks())
    std::fill(b.data(), b.data() + b.layout.size(), make<T>(sentinel_value));
  dmap::forall(dmap::zip(A, D), [salt](T& a, const idx<N>& i) { a = make<T>(f_of(i, salt)); });
}

/// Collective: the storage of this locale covers exactly the oracle's frame.
template <class T, std::size_t N>
bool layout_matches(const dmap::array<T, N>& A, const oracle<N>& o) {
  const auto fr = o.frame(dmap::here());
  const auto& blocks = A.local_blocks();
  if (fr[0].empty()) return blocks.empty();
  if (blocks.size() != 1) return false;
  for (std::size_t d = 0; d < N; ++d)
    if (seq_of(blocks.front().layout.indices.dim(d)) != fr[d]) return false;
  return true;
}

/// Compares every stored cell of this locale with `expect(g)`; counts mismatches.
template <class T, std::size_t N, class Expect>
std::pair<index_t, std::string> compare_stored(const dmap::array<T, N>& A, const oracle<N>& o, Expect&& expect) {
  index_t bad = 0;
  std::string first;
  const auto fr = o.frame(dmap::here());
  if (A.local_blocks().empty()) return {0, first};
  const auto& b = A.local_blocks().front();
  for (const auto& g : product(fr)) {
    const T want = expect(g);
    if (!(b(g) == want) && bad++ == 0) {
      std::ostringstream s;
      s << "locale " << dmap::here() << " cell " << g << " holds " << b(g) << ", expected " << want;
      first = s.str();
    }
  }
  return {bad, first};
}

/// The value every stored cell must hold after a halo update: f(source) or the sentinel.
template <class T, std::size_t N>
auto after_update(const oracle<N>& o, std::int64_t salt) {
  return [&o, salt](const idx<N>& g) {
    const auto s = o.source(g);
    return s ? make<T>(f_of(*s, salt)) : make<T>(sentinel_value);
  };
}

/// Collective: checks the counters of one halo update against the oracle.
template <class T, std::size_t N>
void check_traffic(const dmap::comm_counters& c, const oracle<N>& o) {
  const auto t = expected_traffic(o, dmap::here());
  INFO("counters: sent " << c.messages_sent << " msgs / " << c.bytes_sent << " B, received "
                         << c.messages_received << " msgs / " << c.bytes_received << " B, "
                         << c.collectives << " collectives; expected sent " << t.messages_sent << " / "
                         << t.elements_sent * sizeof(T) << " B, received " << t.messages_received << " / "
                         << t.elements_received * sizeof(T) << " B");
  DMAP_CHECK_ALL(c.messages_sent == t.messages_sent);
  DMAP_CHECK_ALL(c.messages_received == t.messages_received);
  DMAP_CHECK_ALL(c.bytes_sent == t.elements_sent * sizeof(T));
  DMAP_CHECK_ALL(c.bytes_received == t.elements_received * sizeof(T));
  DMAP_CHECK_ALL(c.collectives == 0);
  // Halo bytes per iteration equal the ghost-region volume (those ghosts filled remotely).
  const auto total = dmap::all_reduce_sum(static_cast<unsigned long long>(c.bytes_sent));
  DMAP_CHECK_ALL(total == t.remote_ghosts_total * sizeof(T));
}

/// One whole case: fill, update, compare every stored cell and the counters.
template <class T, std::size_t N>
void halo_case(const config<N>& c, bool full_directions = false) {
  INFO(describe(c));
  REQUIRE(c.r.size() > 0);  // the same on every locale
  const auto o = make_oracle(c);
  auto D = make_domain(c);
  dmap::array<T, N> A{D};
  DMAP_REQUIRE_ALL(layout_matches(A, o));
  const std::int64_t salt = 3;
  fill(A, D, salt);
  dmap::reset_counters();
  dmap::update_halos(A);
  const auto counts = dmap::counters();
  check_traffic<T>(counts, o);
  const auto [bad, first] = compare_stored(A, o, after_update<T>(o, salt));
  INFO(bad << " wrong cell(s); first: " << first);
  DMAP_CHECK_ALL(bad == 0);
  if (full_directions) {
    // Every locale receives faces, edges and corners: 3^N - 1 directions.
    index_t all = 1;
    for (std::size_t d = 0; d < N; ++d) all *= 3;
    DMAP_CHECK_ALL(expected_traffic(o, dmap::here()).directions == static_cast<std::uint64_t>(all - 1));
  }
  // A second update moves the same again and changes nothing.
  dmap::reset_counters();
  dmap::update_halos(A);
  DMAP_CHECK_ALL(dmap::counters().bytes_sent == counts.bytes_sent);
  DMAP_CHECK_ALL(compare_stored(A, o, after_update<T>(o, salt)).first == 0);
}

/// Runs halo_case over every periodic combination and every grid that fits.
template <class T, std::size_t N>
int sweep(const rect<N>& r, const std::vector<idx<N>>& fluffs, bool all_grids,
          dmap::storage_order order = dmap::storage_order::row_major) {
  std::vector<std::array<int, N>> grids =
      all_grids ? factorisations<N>(dmap::num_locales()) : std::vector<std::array<int, N>>{balanced_grid<N>()};
  int ran = 0;
  for (const auto& g : grids)
    for (const auto& f : fluffs)
      for (unsigned mask = 0; mask < (1u << N); ++mask) {
        config<N> c{r, f, {}, g, order};
        for (std::size_t d = 0; d < N; ++d) c.periodic[d] = (mask >> d) & 1u;
        if (!fits(c)) continue;
        halo_case<T>(c);
        ++ran;
      }
  return ran;
}

using dmap::testing::throws_as;

}  // namespace

// ------------------------------------------------------------------------------- 1. contents

TEST_CASE("stencil: 1-D halos after update_halos match the oracle (widths 1..3, periodic or not, strided)", "[stencil]") {
  int ran = 0;
  ran += sweep<std::int64_t, 1>(rect<1>{range(0, 23)}, {idx<1>{1}, idx<1>{2}, idx<1>{3}}, true);
  ran += sweep<std::int64_t, 1>(rect<1>{range(-4, 1)}, {idx<1>{1}, idx<1>{0}}, true);  // 5 indices
  ran += sweep<std::int64_t, 1>(rect<1>{range(-7, 30, 2)}, {idx<1>{1}, idx<1>{2}}, true);
  ran += sweep<std::int64_t, 1>(rect<1>{range(3, 40, -3)}, {idx<1>{2}, idx<1>{3}}, true);
  ran += sweep<std::int64_t, 1>(rect<1>{range(1, 40, 4, 2)}, {idx<1>{2}}, true);  // stride 4 align 2
  CHECK(ran >= 12);
}

TEST_CASE("stencil: 2-D halos match the oracle on every grid (uneven blocks, per-dimension widths, 0 widths)", "[stencil]") {
  const rect<2> r{range(-3, 14), range(2, 21)};  // 17 x 19
  const int ran = sweep<std::int64_t, 2>(r, {idx<2>{1, 1}, idx<2>{2, 3}, idx<2>{0, 2}, idx<2>{3, 0}}, true);
  CHECK(ran >= 16);
  // Column-major storage, on the balanced grid.
  CHECK(sweep<std::int64_t, 2>(r, {idx<2>{2, 1}}, false, dmap::storage_order::column_major) == 4);
}

TEST_CASE("stencil: 2-D strided halos (stride 2, negative stride) match the oracle on every grid", "[stencil]") {
  const rect<2> r{range(0, 30, 2), range(-5, 40, -3)};  // 15 x 15
  const int ran = sweep<std::int64_t, 2>(r, {idx<2>{1, 3}, idx<2>{2, 1}}, true);
  CHECK(ran >= 8);
  CHECK(sweep<std::int64_t, 2>(rect<2>{range(-10, 10, -1), range(1, 30, 2)}, {idx<2>{2, 2}}, false,
                               dmap::storage_order::column_major) == 4);
}

TEST_CASE("stencil: 3-D halos match the oracle on every grid, all 26 directions", "[stencil]") {
  const rect<3> r{range(0, 12), range(-2, 8), range(1, 14)};  // 12 x 10 x 13
  int ran = 0;
  for (const auto& g : factorisations<3>(dmap::num_locales())) {
    for (const auto& f : {idx<3>{1, 1, 1}, idx<3>{3, 2, 3}, idx<3>{2, 0, 1}}) {
      for (const auto& per : {std::array<bool, 3>{false, false, false}, std::array<bool, 3>{true, true, true},
                              std::array<bool, 3>{true, false, true}, std::array<bool, 3>{false, true, false}}) {
        config<3> c{r, f, per, g};
        if (!fits(c)) continue;
        const bool all_periodic = per[0] && per[1] && per[2] && f[0] > 0 && f[1] > 0 && f[2] > 0;
        halo_case<std::int64_t, 3>(c, all_periodic);
        ++ran;
      }
    }
  }
  CHECK(ran >= 12);
  // Strided, negative stride, column-major.
  config<3> c{rect<3>{range(0, 24, 2), range(-1, 9, -1), range(-9, 30, 3)}, idx<3>{1, 2, 1},
              {true, false, true}, balanced_grid<3>(), dmap::storage_order::column_major};
  REQUIRE(fits(c));
  halo_case<std::int64_t, 3>(c);
}

TEST_CASE("stencil: a ghost width equal to the extent, and wider than it in a non-periodic undistributed dimension", "[stencil]") {
  const int p = dmap::num_locales();
  // Dimension 1 is undistributed: width 5 == extent 5 (periodic: the whole row wraps), and
  // width 7 > extent 5 (non-periodic: boundary padding only, no check needed).
  halo_case<std::int64_t, 2>(config<2>{rect<2>{range(0, 4 * p), range(0, 5)}, idx<2>{1, 5}, {false, true}, {p, 1}});
  halo_case<std::int64_t, 2>(config<2>{rect<2>{range(0, 4 * p), range(0, 5)}, idx<2>{2, 7}, {true, false}, {p, 1}});
}

// ------------------------------------------------------------------------------- 2. counters

TEST_CASE("stencil: update_halos sends one message per neighbour and exactly the ghost volume, no collectives", "[stencil]") {
  const int p = dmap::num_locales();
  // 24-byte elements, so that element counts cannot pass for byte counts.
  halo_case<wide, 1>(config<1>{rect<1>{range(0, 19)}, idx<1>{2}, {true}, {p}});
  halo_case<wide, 2>(config<2>{rect<2>{range(0, 13), range(0, 11)}, idx<2>{2, 1}, {true, false}, balanced_grid<2>()});
  halo_case<wide, 2>(config<2>{rect<2>{range(0, 13), range(0, 11)}, idx<2>{1, 1}, {true, true}, {1, p}});
  halo_case<wide, 3>(config<3>{rect<3>{range(0, 9), range(0, 8), range(0, 10)}, idx<3>{1, 1, 1},
                               {true, true, true}, balanced_grid<3>()},
                     true);
  halo_case<double, 2>(config<2>{rect<2>{range(0, 26, 2), range(0, 30, -2)}, idx<2>{2, 2}, {false, true},
                                 balanced_grid<2>()});
  // Hand-checked: 1-D periodic {0..<4p}, width 1 on p locales: two neighbours each (one
  // when p == 2: both sides of the same locale, aggregated), one element per side.
  dmap::domain<1> D{dmap::stencil<1>{idx<1>{1}, {true}}, rect<1>{range(0, 4 * p)}};
  dmap::array<double, 1> A{D};
  dmap::update_halos(A);  // builds the plan
  dmap::reset_counters();
  dmap::update_halos(A);
  const auto c = dmap::counters();
  const std::uint64_t peers = p == 1 ? 0 : p == 2 ? 1 : 2;
  DMAP_CHECK_ALL(c.messages_sent == peers && c.messages_received == peers);
  DMAP_CHECK_ALL(c.bytes_sent == (p == 1 ? 0 : 2 * sizeof(double)));
  DMAP_CHECK_ALL(c.bytes_received == (p == 1 ? 0 : 2 * sizeof(double)));
  DMAP_CHECK_ALL(c.collectives == 0);
}

// ------------------------------------------------------------------------------- 3. split form

TEST_CASE("stencil: start_halo_update / finish with computation in between, and interleaved updates", "[stencil]") {
  const config<2> c{rect<2>{range(0, 14), range(-3, 12)}, idx<2>{2, 1}, {true, false}, balanced_grid<2>()};
  INFO(describe(c));
  const auto o = make_oracle(c);
  auto D = make_domain(c);
  dmap::array<std::int64_t, 2> A{D}, B{D}, C{D};

  SECTION("compute on another array while the update is in flight") {
    fill(A, D, 1);
    auto h = dmap::start_halo_update(A);
    dmap::forall(dmap::zip(C, D), [](std::int64_t& x, const idx<2>& i) { x = f_of(i, 9) * 2; });
    const auto sum = dmap::reduce(C, std::int64_t{0}, std::plus<>{});  // a collective meanwhile
    h.finish();
    DMAP_CHECK_ALL(compare_stored(A, o, after_update<std::int64_t>(o, 1)).first == 0);
    std::int64_t want = 0;
    for (const auto& i : product(o.dom)) want += f_of(i, 9) * 2;
    DMAP_CHECK_ALL(sum == want);
  }
  SECTION("owned elements written between start and finish: ghosts get the values at start") {
    fill(A, D, 1);
    auto h = dmap::start_halo_update(A);
    dmap::forall(dmap::zip(A, D), [](std::int64_t& x, const idx<2>& i) { x = f_of(i, 5); });
    h.finish();
    const auto [bad, first] = compare_stored(A, o, [&](const idx<2>& g) {
      if (o.owns(dmap::here(), g)) return f_of(g, 5);
      const auto s = o.source(g);
      return s ? f_of(*s, 1) : sentinel_value;
    });
    INFO(first);
    DMAP_CHECK_ALL(bad == 0);
  }
  SECTION("start A, start B, finish B, finish A") {
    fill(A, D, 1);
    fill(B, D, 2);
    dmap::reset_counters();
    auto ha = dmap::start_halo_update(A);
    auto hb = dmap::start_halo_update(B);
    hb.finish();
    ha.finish();
    const auto cnt = dmap::counters();
    DMAP_CHECK_ALL(compare_stored(A, o, after_update<std::int64_t>(o, 1)).first == 0);
    DMAP_CHECK_ALL(compare_stored(B, o, after_update<std::int64_t>(o, 2)).first == 0);
    const auto t = expected_traffic(o, dmap::here());
    DMAP_CHECK_ALL(cnt.messages_sent == 2 * t.messages_sent && cnt.collectives == 0);
  }
  SECTION("arrays of different element types interleaved, and the split form equals update_halos") {
    dmap::array<wide, 2> W{D};
    fill(A, D, 1);
    fill(W, D, 4);
    auto hw = dmap::start_halo_update(W);
    auto ha = dmap::start_halo_update(A);
    hw.finish();
    ha.finish();
    DMAP_CHECK_ALL(compare_stored(A, o, after_update<std::int64_t>(o, 1)).first == 0);
    DMAP_CHECK_ALL(compare_stored(W, o, after_update<wide>(o, 4)).first == 0);
    fill(B, D, 1);
    dmap::update_halos(B);
    bool same = true;
    if (!A.local_blocks().empty())
      for (index_t k = 0; k < A.local_size(); ++k)
        same = same && A.local_blocks().front().data()[k] == B.local_blocks().front().data()[k];
    DMAP_CHECK_ALL(same);
  }
}

// ------------------------------------------------------------------------------- 4. one locale

TEST_CASE("stencil: periodic wrap onto the same locale", "[stencil]") {
  const int p = dmap::num_locales();
  // Undistributed periodic dimension: every locale wraps onto itself, no messages at all.
  {
    const config<2> c{rect<2>{range(0, 3 * p), range(0, 7)}, idx<2>{0, 2}, {false, true}, {p, 1}};
    halo_case<std::int64_t, 2>(c);
    auto D = make_domain(c);
    dmap::array<std::int64_t, 2> A{D};
    fill(A, D, 1);
    dmap::reset_counters();
    dmap::update_halos(A);
    const auto cnt = dmap::counters();
    DMAP_CHECK_ALL(cnt.messages_sent == 0 && cnt.messages_received == 0 && cnt.collectives == 0);
    // Hand-written: row i holds f(i,5) f(i,6) | f(i,0) .. f(i,6) | f(i,0) f(i,1).
    bool ok = true;
    const auto& b = A.local_blocks().front();
    const auto own = D.local_subdomain();
    for (index_t i : seq_of(own.dim(0))) {
      ok = ok && b(idx<2>{i, -2}) == f_of(idx<2>{i, 5}, 1) && b(idx<2>{i, -1}) == f_of(idx<2>{i, 6}, 1);
      ok = ok && b(idx<2>{i, 7}) == f_of(idx<2>{i, 0}, 1) && b(idx<2>{i, 8}) == f_of(idx<2>{i, 1}, 1);
    }
    DMAP_CHECK_ALL(ok);
  }
  if (p != 1) return;
  // One locale, everything periodic.
  {
    dmap::domain<1> D{dmap::stencil<1>{idx<1>{2}, {true}}, rect<1>{range(0, 5)}};
    dmap::array<int, 1> A{D};
    dmap::forall(dmap::zip(A, D), [](int& a, const idx<1>& i) { a = static_cast<int>(10 + i[0]); });
    dmap::update_halos(A);
    const auto& b = A.local_blocks().front();
    std::vector<int> got;
    for (index_t i = -2; i < 7; ++i) got.push_back(b(idx<1>{i}));
    CHECK(got == std::vector<int>{13, 14, 10, 11, 12, 13, 14, 10, 11});
    // Reads through A[] of the wrapped cells are local.
    CHECK(std::as_const(A)[idx<1>{-1}] == 14);
    CHECK(std::as_const(A)[idx<1>{6}] == 11);
  }
  halo_case<std::int64_t, 3>(config<3>{rect<3>{range(0, 4), range(0, 3), range(0, 5)}, idx<3>{2, 3, 1},
                                       {true, true, true}, {1, 1, 1}},
                             true);
  halo_case<std::int64_t, 2>(config<2>{rect<2>{range(0, 12, 3), range(-5, 5, -2)}, idx<2>{4, 2}, {true, true}, {1, 1}});
}

// ------------------------------------------------------------------------------- 5. neighbors

namespace {
template <std::size_t N>
void laplacian_case(const config<N>& c) {
  INFO(describe(c));
  const auto o = make_oracle(c);
  auto D = make_domain(c);
  dmap::array<std::int64_t, N> A{D}, B{D};
  const std::int64_t salt = 1;
  fill(A, D, salt);
  dmap::update_halos(A);
  dmap::forall(dmap::zip(B, dmap::neighbors(std::as_const(A), 1)), [](std::int64_t& b, const auto& a) {
    if constexpr (N == 2) b = a(-1, 0) + a(1, 0) + a(0, -1) + a(0, 1) - 4 * a();
    else b = a(-1, 0, 0) + a(1, 0, 0) + a(0, -1, 0) + a(0, 1, 0) + a(0, 0, -1) + a(0, 0, 1) - 6 * a(0, 0, 0);
  });
  // Oracle: positions step by the stride; outside the domain, the periodic image or the
  // sentinel (boundary cells).
  const auto value = after_update<std::int64_t>(o, salt);
  index_t bad = 0;
  std::string first;
  for (const auto& i : product(o.owned(dmap::here()))) {
    std::int64_t want = -2 * static_cast<std::int64_t>(N) * value(i);
    for (std::size_t d = 0; d < N; ++d)
      for (index_t k : {-1, 1}) {
        idx<N> j = i;
        j[d] += k * c.r.dim(d).stride();
        want += value(j);
      }
    if (B.local(i) != want && bad++ == 0) {
      std::ostringstream s;
      s << "at " << i << ": " << B.local(i) << " expected " << want;
      first = s.str();
    }
  }
  INFO(first);
  DMAP_CHECK_ALL(bad == 0);
}
}  // namespace

TEST_CASE("stencil: neighbors(A, 1) computes the 5-point and 7-point Laplacian of the oracle", "[stencil]") {
  for (const auto& g : factorisations<2>(dmap::num_locales())) {
    laplacian_case<2>(config<2>{rect<2>{range(0, 16), range(-4, 9)}, idx<2>{1, 1}, {true, true}, g});
    laplacian_case<2>(config<2>{rect<2>{range(0, 16), range(-4, 9)}, idx<2>{2, 3}, {true, true}, g,
                                dmap::storage_order::column_major});
  }
  // Non-periodic: the boundary cells (sentinel) take part, as for boundary conditions.
  laplacian_case<2>(config<2>{rect<2>{range(0, 11), range(0, 9)}, idx<2>{1, 1}, {false, true}, balanced_grid<2>()});
  // Strided and negative strides: offsets count positions.
  laplacian_case<2>(config<2>{rect<2>{range(0, 30, 2), range(-5, 40, -3)}, idx<2>{1, 1}, {true, true}, balanced_grid<2>()});
  for (const auto& g : factorisations<3>(dmap::num_locales()))
    laplacian_case<3>(config<3>{rect<3>{range(0, 8), range(0, 9), range(-3, 7)}, idx<3>{1, 1, 1}, {true, true, true}, g});
  // Large enough for several chunks per locale (chunk edges inside a locale).
  laplacian_case<2>(config<2>{rect<2>{range(0, 256), range(0, 160)}, idx<2>{1, 1}, {true, true}, balanced_grid<2>()});
}

TEST_CASE("stencil: neighbors with a radius per dimension reads as far as the fluff", "[stencil]") {
  const config<2> c{rect<2>{range(0, 12), range(0, 10)}, idx<2>{2, 1}, {true, false}, balanced_grid<2>()};
  INFO(describe(c));
  const auto o = make_oracle(c);
  auto D = make_domain(c);
  dmap::array<std::int64_t, 2> A{D}, B{D};
  fill(A, D, 1);
  dmap::update_halos(A);
  dmap::forall(dmap::zip(B, dmap::neighbors(std::as_const(A), idx<2>{2, 1})),
               [](std::int64_t& b, const auto& a) { b = a(-2, 0) + 3 * a(2, 0) + 5 * a.at(idx<2>{0, -1}) + 7 * a(0, 1); });
  const auto value = after_update<std::int64_t>(o, 1);
  bool ok = true;
  for (const auto& i : product(o.owned(dmap::here())))
    ok = ok && B.local(i) == value(i + idx<2>{-2, 0}) + 3 * value(i + idx<2>{2, 0}) +
                                 5 * value(i + idx<2>{0, -1}) + 7 * value(i + idx<2>{0, 1});
  DMAP_CHECK_ALL(ok);
}

TEST_CASE("stencil: neighbors throws unsupported_error on Block arrays and beyond the fluff", "[stencil]") {
  const rect<2> r{range(0, 12), range(0, 10)};
  const auto run = [](const dmap::array<double, 2>& A, dmap::array<double, 2>& B, const idx<2>& radius) {
    dmap::forall(dmap::zip(B, dmap::neighbors(A, radius)), [](double& b, const auto& a) { b = a(); });
  };
  {
    dmap::domain<2> D{dmap::block<2>{}, r};
    dmap::array<double, 2> A{D}, B{D};
    const auto [ok, msg] = throws_as<dmap::unsupported_error>([&] { run(A, B, idx<2>{1, 1}); });
    INFO(msg);
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(has(msg, "stencil"));
    // Radius 0 needs no ghost cells: fine even on Block.
    DMAP_CHECK_ALL(throws_as<dmap::error>([&] { run(A, B, idx<2>{0, 0}); }).second == "no exception");
  }
  {
    dmap::domain<2> D{dmap::stencil<2>{idx<2>{1, 0}, {true, true}}, r};
    dmap::array<double, 2> A{D}, B{D};
    dmap::update_halos(A);
    for (const auto& radius : {idx<2>{2, 0}, idx<2>{1, 1}, idx<2>{0, 1}}) {
      INFO("radius " << radius);
      const auto [ok, msg] = throws_as<dmap::unsupported_error>([&] { run(A, B, radius); });
      INFO(msg);
      DMAP_CHECK_ALL(ok);
      DMAP_CHECK_ALL(has(msg, "stencil"));
    }
    DMAP_CHECK_ALL(throws_as<dmap::error>([&] { run(A, B, idx<2>{1, 0}); }).second == "no exception");
  }
}

TEST_CASE("stencil: a stencil loop agrees on alignment once per index set and neighbourhood, then only closes",
          "[stencil]") {
  const int p = dmap::num_locales();
  dmap::domain<2> D{dmap::stencil<2>{idx<2>{1, 1}}, rect<2>{range(0, 13), range(0, 11)}};
  dmap::array<double, 2> A{D}, B{D};
  dmap::update_halos(A);
  // The collectives of one loop over zip(B, neighbours of A within `radius`).
  const auto loop_collectives = [&](const idx<2>& radius) {
    dmap::reset_counters();
    dmap::forall(dmap::zip(B, dmap::neighbors(std::as_const(A), radius)), [](double& b, const auto& a) { b = a(); });
    return dmap::counters().collectives;
  };
  // One agreement on alignment, one closing the loop; on one locale none at all.
  const std::uint64_t first = p > 1 ? 2 : 0, again = p > 1 ? 1 : 0;
  DMAP_CHECK_ALL(loop_collectives(idx<2>{1, 1}) == first);
  DMAP_CHECK_ALL(loop_collectives(idx<2>{1, 1}) == again);
  DMAP_CHECK_ALL(loop_collectives(idx<2>{1, 0}) == first);  // another neighbourhood: checked once
  DMAP_CHECK_ALL(loop_collectives(idx<2>{1, 0}) == again);
  DMAP_CHECK_ALL(loop_collectives(idx<2>{1, 1}) == again);
  // Beyond the fluff: refused on every locale, however often the loop ran before.
  const auto [refused, msg] = throws_as<dmap::unsupported_error>([&] { (void)loop_collectives(idx<2>{2, 1}); });
  INFO(msg);
  DMAP_CHECK_ALL(refused);
  // A new index set: checked again.
  D.set_indices(rect<2>{range(-3, 17), range(0, 9)});
  dmap::update_halos(A);
  DMAP_CHECK_ALL(loop_collectives(idx<2>{1, 1}) == first);
  DMAP_CHECK_ALL(loop_collectives(idx<2>{1, 1}) == again);
  // The loop still computes, over the new indices (inside the grid's edge, where no boundary
  // cell is read).
  const auto value = [](index_t i, index_t j) { return static_cast<double>(i * 100 + j); };
  dmap::forall(dmap::zip(A, D), [&](double& a, const idx<2>& i) { a = value(i[0], i[1]); });
  dmap::update_halos(A);
  dmap::forall(dmap::zip(B, dmap::neighbors(std::as_const(A), idx<2>{1, 1})),
               [](double& b, const auto& a) { b = a(1, 0) + a(0, -1); });
  DMAP_CHECK_ALL(dmap::reduce(dmap::zip(B, D), 0, std::plus<>{}, [&](double b, const idx<2>& i) {
                   const bool inside = i[0] + 1 < 17 && i[1] - 1 >= 0;
                   return int{inside && b != value(i[0] + 1, i[1]) + value(i[0], i[1] - 1)};
                 }) == 0);
}

TEST_CASE("stencil: neighbors over views of a whole-grid array: interior, strided, reversed and rank-changed",
          "[stencil][array_view]") {
  // The natural stencil idiom: distribute the whole grid, loop over the interior. The views'
  // neighbourhoods read the array's storage (owned cells and ghost cells) in place.
  const index_t n = 24, m = 17;
  const rect<2> grid{range(0, n), range(0, m)};
  dmap::domain<2> D{dmap::stencil<2>{idx<2>{2, 1}}, grid};
  dmap::array<double, 2> A(D), B(D, -1.0);
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = fval(i); });
  dmap::update_halos(A);
  const auto check = [&](const rect<2>& part, const auto& want, const char* what) {
    std::string fail;
    for (const auto& s : D.local_subdomains())
      for (const auto& i : points_of(s.intersect(part)))
        if (B.local(i) != want(i)) fail = std::string(what) + " at " + text(i) + ": " + text(B.local(i));
    CHECK_NO_FAILURE(fail);
  };
  const auto e0 = idx<2>{1, 0}, e1 = idx<2>{0, 1};
  {
    const rect<2> inner = grid.expanded(-1);  // the grid less its boundary
    REQUIRE(inner == (rect<2>{range(1, n - 1), range(1, m - 1)}));
    dmap::reset_counters();
    dmap::reset_plan_statistics();
    dmap::forall(dmap::zip(B[inner], dmap::neighbors(A[inner], 1)), [](double& b, const auto& a) {
      b = a(-1, 0) + a(1, 0) + 2 * a(0, -1) + 3 * a(0, 1) - a();
    });
    const auto c = dmap::counters();
    DMAP_CHECK_ALL(c.messages_sent == 0 && c.messages_received == 0);
    DMAP_CHECK_ALL(dmap::plan_statistics().built == 0);  // aligned: nothing staged
    check(inner, [&](const idx<2>& i) {
      return fval(i - e0) + fval(i + e0) + 2 * fval(i - e1) + 3 * fval(i + e1) - fval(i);
    }, "interior");
  }
  {
    // Every other row: one position along dimension 0 is two indices (the fluff is 2).
    const rect<2> rows{range(2, n - 2, 2), range(1, m - 1)};
    dmap::forall(dmap::zip(B[rows], dmap::neighbors(std::as_const(A)[rows], idx<2>{1, 1})),
                 [](double& b, const auto& a) { b = a(-1, 0) - a(1, 0) + a(0, 1); });
    check(rows, [&](const idx<2>& i) { return fval(i - e0 - e0) - fval(i + e0 + e0) + fval(i + e1); }, "strided");
  }
  {
    // Rows in reverse: the previous position along dimension 0 is the next row.
    const rect<2> reversed{range(1, n - 1, -1), range(1, m - 1)};
    dmap::forall(dmap::zip(B[reversed], dmap::neighbors(A[reversed], 1)),
                 [](double& b, const auto& a) { b = a(-1, 0) - 2 * a(1, 0); });
    check(reversed, [&](const idx<2>& i) { return fval(i + e0) - 2 * fval(i - e0); }, "reversed");
  }
  {
    // One row as a 1-D view, its neighbours along the row.
    const index_t row = n / 2;
    dmap::forall(dmap::zip(dmap::rank_change(B, row, range(1, m - 1)),
                           dmap::neighbors(dmap::rank_change(A, row, range(1, m - 1)), 1)),
                 [](double& b, const auto& a) { b = a(-1) + 10 * a(1); });
    check(rect<2>{range(row, row + 1), range(1, m - 1)},
          [&](const idx<2>& i) { return fval(i - e1) + 10 * fval(i + e1); }, "row");
  }
  // Views of a Block array have no ghost cells: the interior's neighbours across a cut are
  // on another locale (one locale holds everything).
  dmap::domain<2> E{dmap::block<2>{}, grid};
  dmap::array<double, 2> F(E), G(E);
  const rect<2> inner{range(1, n - 1), range(1, m - 1)};
  const auto run = [&] {
    dmap::forall(dmap::zip(G[inner], dmap::neighbors(F[inner], 1)), [](double& g, const auto& f) { g = f(1, 1); });
  };
  if (dmap::num_locales() > 1) {
    const auto [ok, msg] = throws_as<dmap::unsupported_error>(run);
    INFO(msg);
    DMAP_CHECK_ALL(ok && has(msg, "stencil"));
  } else {
    DMAP_CHECK_ALL(throws_as<dmap::error>(run).second == "no exception");
  }  // A negative radius is refused where the operand is made, naming the dimension.
  const auto [refused, why] = throws_as<dmap::argument_error>([&] { (void)dmap::neighbors(A[inner], idx<2>{1, -1}); });
  INFO(why);
  DMAP_CHECK_ALL(refused && has(why, "radius[1]") && has(why, "-1"));
  DMAP_CHECK_ALL(throws_as<dmap::argument_error>([&] { (void)dmap::neighbors(A, -2); }).first);
}

// ------------------------------------------------------------------------------- 6. A[i + off]

TEST_CASE("stencil: A[i + offset] within the fluff is served locally; writes to ghosts go to the owner", "[stencil]") {
  const config<2> c{rect<2>{range(0, 10), range(0, 9)}, idx<2>{2, 1}, {false, true}, balanced_grid<2>()};
  INFO(describe(c));
  const auto o = make_oracle(c);
  auto D = make_domain(c);
  dmap::array<std::int64_t, 2> A{D}, B{D};
  fill(A, D, 1);
  dmap::update_halos(A);
  const auto value = after_update<std::int64_t>(o, 1);
  const int me = dmap::here();
  const auto own = product(o.owned(me));

  for (const auto& off : {idx<2>{-2, -1}, idx<2>{2, 1}, idx<2>{1, 0}, idx<2>{0, -1}, idx<2>{-1, 1}}) {
    INFO("offset " << off);
    dmap::reset_counters();
    dmap::forall(dmap::zip(B, D), [&](std::int64_t& b, const idx<2>& i) { b = std::as_const(A)[i + off]; });
    const auto cnt = dmap::counters();
    DMAP_CHECK_ALL(cnt.messages_received == 0 && cnt.messages_sent == 0);
    bool ok = true;
    for (const auto& i : own) ok = ok && B.local(i) == value(i + off);
    DMAP_CHECK_ALL(ok);
  }
  {
    // Beyond the fluff: in-domain indices outside the frame are fetched from their owner.
    const idx<2> off{3, 0};
    std::uint64_t remote = 0;
    const auto fr = o.frame(me);
    for (const auto& i : own) {
      const idx<2> j = i + off;
      if (o.contains(j) && std::find(fr[0].begin(), fr[0].end(), j[0]) == fr[0].end()) ++remote;
    }
    dmap::reset_counters();
    dmap::forall(dmap::zip(B, D), [&](std::int64_t& b, const idx<2>& i) {
      b = D.contains(i + off) ? static_cast<std::int64_t>(std::as_const(A)[i + off]) : -1;
    });
    const auto cnt = dmap::counters();
    DMAP_CHECK_ALL(cnt.messages_received == remote);
    bool ok = true;
    for (const auto& i : own) ok = ok && B.local(i) == (o.contains(i + off) ? f_of(i + off, 1) : -1);
    DMAP_CHECK_ALL(ok);
  }

  // Ghost reads return the copy as of the last update, even after the owner changed.
  dmap::forall(A, [](std::int64_t& a) { a += 1000000; });
  dmap::barrier();
  {
    bool ok = true;
    for (const auto& g : o.ghosts(me)) ok = ok && std::as_const(A)[g] == value(g);
    DMAP_CHECK_ALL(ok);
  }
  dmap::update_halos(A);
  fill(A, D, 1);
  dmap::update_halos(A);

  // Writes to in-domain ghost cells go to the owner; the local copy is unchanged. Every
  // writer of an index writes the same value, so concurrent writes agree.
  std::uint64_t puts = 0;
  dmap::reset_counters();
  for (const auto& g : o.ghosts(me))
    if (o.contains(g)) {
      A[g] = f_of(g, 1) + 5000000;
      ++puts;
    }
  const auto cnt = dmap::counters();
  DMAP_CHECK_ALL(cnt.messages_sent == puts && cnt.bytes_sent == puts * sizeof(std::int64_t));
  {
    // (Owned cells are being written by the other locales meanwhile: look at ghosts only.)
    bool ghosts_ok = true;
    const auto& b = A.local_blocks().front();
    for (const auto& g : o.ghosts(me)) ghosts_ok = ghosts_ok && b(g) == value(g) && std::as_const(A)[g] == value(g);
    DMAP_CHECK_ALL(ghosts_ok);
  }
  dmap::barrier();
  std::set<idx<2>> written;
  for (int q = 0; q < o.locales; ++q)
    for (const auto& g : o.ghosts(q))
      if (o.contains(g)) written.insert(g);
  const auto now = [&](const idx<2>& i) { return f_of(i, 1) + (written.count(i) ? 5000000 : 0); };
  {
    bool owned_ok = true;
    for (const auto& i : own) owned_ok = owned_ok && A.local(i) == now(i);
    DMAP_CHECK_ALL(owned_ok);
    // Ghost copies are still the old values until the next update.
    DMAP_CHECK_ALL(compare_stored(A, o, [&](const idx<2>& g) {
                     return o.owns(me, g) ? now(g) : value(g);
                   }).first == 0);
  }
  dmap::update_halos(A);
  DMAP_CHECK_ALL(compare_stored(A, o, [&](const idx<2>& g) {
                   const auto s = o.source(g);
                   return s ? now(*s) : sentinel_value;
                 }).first == 0);

  // Cells outside the domain are read and written locally: a boundary cell (non-periodic
  // dimension 0) keeps its value across updates; a periodic image is refreshed by the next.
  {
    std::optional<idx<2>> boundary, image;
    for (const auto& g : o.ghosts(me)) {
      if (o.contains(g)) continue;
      if (!o.source(g)) boundary = boundary ? boundary : g;
      else image = image ? image : g;
    }
    dmap::reset_counters();
    if (boundary) A[*boundary] = 42;
    if (image) A[*image] = 43;
    const auto c2 = dmap::counters();
    DMAP_CHECK_ALL(c2.messages_sent == 0 && c2.messages_received == 0);
    const auto& b = A.local_blocks().front();
    DMAP_CHECK_ALL((!boundary || b(*boundary) == 42) && (!image || b(*image) == 43));
    DMAP_CHECK_ALL((!boundary || std::as_const(A)[*boundary] == 42));
    dmap::update_halos(A);
    DMAP_CHECK_ALL((!boundary || b(*boundary) == 42) && (!image || b(*image) == now(*o.source(*image))));
  }
}

// ------------------------------------------------------------------------------- 7. errors

TEST_CASE("stencil: chunks thinner than the ghost width, negative widths, halo updates on Block", "[stencil]") {
  const int p = dmap::num_locales();
  if (p > 1) {
    // 2 indices per locale, width 3.
    const auto [ok, msg] = throws_as<dmap::argument_error>([&] {
      dmap::domain<1> D{dmap::stencil<1>{idx<1>{3}}, rect<1>{range(0, 2 * p)}};
    });
    INFO(msg);
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(has(msg, "locale 0") && has(msg, "dimension 0") && has(msg, "ghost width 3"));
  }
  {
    // Uneven: only the last locale along dimension 1 is thinner than 3 (3p - 1 indices).
    // With one locale, dimension 1 exchanges only when periodic: 2 indices, width 3.
    const index_t n = p > 1 ? 3 * p - 1 : 2;
    const auto [ok, msg] = throws_as<dmap::argument_error>([&] {
      dmap::domain<2> D{dmap::stencil<2>{idx<2>{1, 3}, {false, p == 1}, dmap::target_grid<2>{{1, p}}},
                        rect<2>{range(0, 4), range(0, n)}};
    });
    INFO(msg);
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(has(msg, "locale " + std::to_string(p - 1)) && has(msg, "dimension 1") &&
                   has(msg, "ghost width 3"));
  }
  {
    // An undistributed periodic dimension narrower than the width (also on one locale).
    const auto [ok, msg] = throws_as<dmap::argument_error>([&] {
      dmap::domain<2> D{dmap::stencil<2>{idx<2>{1, 6}, {false, true}, dmap::target_grid<2>{{p, 1}}},
                        rect<2>{range(0, 4 * p), range(0, 5)}};
    });
    INFO(msg);
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(has(msg, "dimension 1") && has(msg, "ghost width 6"));
  }
  {
    const auto [ok, msg] = throws_as<dmap::argument_error>([&] { (void)dmap::stencil<3>{idx<3>{1, -1, 0}}; });
    INFO(msg);
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(has(msg, "fluff[1]") && has(msg, "-1"));
  }
  {
    dmap::domain<2> D{dmap::block<2>{}, rect<2>{range(0, 8), range(0, 8)}};
    dmap::array<float, 2> A{D};
    const auto [ok, msg] = throws_as<dmap::argument_error>([&] { dmap::update_halos(A); });
    INFO(msg);
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(has(msg, "stencil"));
    DMAP_CHECK_ALL(throws_as<dmap::argument_error>([&] { (void)dmap::start_halo_update(A); }).first);
  }
}

// ------------------------------------------------------------------------------- 8. resize

TEST_CASE("stencil: set_indices keeps owned values and the next update fills the new ghost cells", "[stencil]") {
  const std::array<int, 2> g = balanced_grid<2>();
  const config<2> c0{rect<2>{range(0, 12), range(0, 10)}, idx<2>{1, 2}, {true, false}, g};
  auto D = make_domain(c0);
  dmap::array<std::int64_t, 2> A{D};
  fill(A, D, 1);
  dmap::update_halos(A);  // caches the plan of the first index set
  const auto o0 = make_oracle(c0);
  DMAP_CHECK_ALL(compare_stored(A, o0, after_update<std::int64_t>(o0, 1)).first == 0);

  const auto resize_and_check = [&](const rect<2>& before, const rect<2>& after) {
    config<2> c1 = c0;
    c1.r = after;
    INFO("resize " << before << " -> " << describe(c1));
    D.set_indices(after);
    const auto o1 = make_oracle(c1);
    DMAP_REQUIRE_ALL(layout_matches(A, o1));
    const auto old = make_oracle(config<2>{before, c0.fluff, c0.periodic, g});
    const auto kept = [&](const idx<2>& i) { return old.contains(i) ? f_of(i, 1) : std::int64_t{0}; };
    bool ok = true;
    for (const auto& i : product(o1.owned(dmap::here()))) ok = ok && A.local(i) == kept(i);
    DMAP_CHECK_ALL(ok);
    // Sentinel in every ghost cell, then one update.
    if (!A.local_blocks().empty())
      for (const auto& gh : o1.ghosts(dmap::here())) A.local_blocks().front()(gh) = sentinel_value;
    dmap::reset_counters();
    dmap::update_halos(A);
    check_traffic<std::int64_t>(dmap::counters(), o1);
    const auto [bad, first] = compare_stored(A, o1, [&](const idx<2>& gh) {
      const auto s = o1.source(gh);
      return s ? kept(*s) : sentinel_value;
    });
    INFO(first);
    DMAP_CHECK_ALL(bad == 0);
    // A fresh fill on the new indices, for the next step.
    fill(A, D, 1);
    dmap::update_halos(A);
    DMAP_CHECK_ALL(compare_stored(A, o1, after_update<std::int64_t>(o1, 1)).first == 0);
  };
  resize_and_check(c0.r, rect<2>{range(-2, 15), range(3, 14)});
  resize_and_check(rect<2>{range(-2, 15), range(3, 14)}, rect<2>{range(0, 24, 2), range(0, 20, -1)});
  // Empty and back.
  D.set_indices(rect<2>{range(0, 0), range(0, 0)});
  dmap::reset_counters();
  dmap::update_halos(A);
  DMAP_CHECK_ALL(dmap::counters() == dmap::comm_counters{});
  D.set_indices(rect<2>{range(5, 19), range(-1, 12)});
  config<2> c3 = c0;
  c3.r = rect<2>{range(5, 19), range(-1, 12)};
  const auto o3 = make_oracle(c3);
  fill(A, D, 2);
  dmap::update_halos(A);
  DMAP_CHECK_ALL(compare_stored(A, o3, after_update<std::int64_t>(o3, 2)).first == 0);
}

TEST_CASE("stencil: a set_indices that makes a chunk thinner than the ghost width throws and changes nothing", "[stencil]") {
  const int p = dmap::num_locales();
  const config<1> c{rect<1>{range(0, 6 * p)}, idx<1>{3}, {true}, {p}};
  auto D = make_domain(c);
  dmap::array<std::int64_t, 1> A{D};
  fill(A, D, 1);
  dmap::update_halos(A);
  const auto o = make_oracle(c);
  const auto [ok, msg] = throws_as<dmap::argument_error>([&] { D.set_indices(rect<1>{range(0, 2 * p)}); });
  INFO(msg);
  DMAP_CHECK_ALL(ok);
  // The domain still describes the old index set everywhere, consistently.
  DMAP_CHECK_ALL(D.indices() == c.r);
  bool owners = true;
  for (index_t i = 0; i < 6 * p; ++i) owners = owners && D.locale_of(idx<1>{i}) == o.owner(idx<1>{i});
  DMAP_CHECK_ALL(owners);
  // Halo updates and remote reads still work on the old index set.
  fill(A, D, 2);
  dmap::update_halos(A);
  DMAP_CHECK_ALL(compare_stored(A, o, after_update<std::int64_t>(o, 2)).first == 0);
  const auto [rok, rmsg] = throws_as<dmap::error>([&] {
    for (index_t i = 0; i < 6 * p; ++i)
      if (std::as_const(A)[idx<1>{i}] != f_of(idx<1>{i}, 2)) throw dmap::runtime_error("wrong value");
  });
  INFO(rmsg);
  DMAP_CHECK_ALL(rmsg == "no exception");
  // The same failure before any halo update: the plan built afterwards must still describe
  // the domain's actual (old) index set (a descriptor left holding the rejected index set
  // computes the periodic wrap from it, wrong even on one locale).
  auto E = make_domain(c);
  dmap::array<std::int64_t, 1> B{E};
  DMAP_CHECK_ALL(throws_as<dmap::argument_error>([&] { E.set_indices(rect<1>{range(0, 2 * p)}); }).first);
  fill(B, E, 3);
  dmap::update_halos(B);
  const auto [bad, first] = compare_stored(B, o, after_update<std::int64_t>(o, 3));
  INFO(first);
  DMAP_CHECK_ALL(bad == 0);
}

// ------------------------------------------------------------------------------- empty locales

TEST_CASE("stencil: locales that own nothing store nothing and take no part in halo updates", "[stencil]") {
  const int p = dmap::num_locales();
  // One row over p locales along dimension 0 (no ghosts there): locales 1.. own nothing.
  halo_case<std::int64_t, 2>(config<2>{rect<2>{range(0, 1), range(0, 10)}, idx<2>{0, 2}, {false, false}, {p, 1}});
  // And 1-D {0..<2} with width 0 (nothing exchanges) and 1 (owners hold 1 index each).
  halo_case<std::int64_t, 1>(config<1>{rect<1>{range(0, 2)}, idx<1>{0}, {true}, {p}});
  if (p <= 2) halo_case<std::int64_t, 1>(config<1>{rect<1>{range(0, 2)}, idx<1>{1}, {false}, {p}});
}

TEST_CASE("stencil: an empty chunk does not count as thinner than the ghost width", "[stencil]") {
  const int p = dmap::num_locales();
  // Locales 1.. own nothing; locale 0 wraps onto itself along dimension 1. A locale that
  // stores nothing must not be reported as "owns 0 indices along dimension 1".
  const config<2> c{rect<2>{range(0, 1), range(0, 10)}, idx<2>{0, 2}, {false, true}, {p, 1}};
  const std::string msg = throws_as<dmap::error>([&] { halo_case<std::int64_t, 2>(c); }).second;
  INFO(msg);
  DMAP_CHECK_ALL(msg == "no exception");
  // 1-D {0..<2}: with 3 or 4 locales some own nothing; the owners each hold 1 >= 1 index.
  const config<1> c1{rect<1>{range(0, 2)}, idx<1>{1}, {false}, {p}};
  const std::string msg1 = throws_as<dmap::error>([&] { halo_case<std::int64_t, 1>(c1); }).second;
  INFO(msg1);
  DMAP_CHECK_ALL(msg1 == "no exception");
}

// ------------------------------------------------------------------------------- 9. assignment

TEST_CASE("stencil: assignment between Stencil and Block arrays copies owned values, not ghosts", "[stencil]") {
  const int p = dmap::num_locales();
  const config<2> c{rect<2>{range(0, 11), range(-2, 9)}, idx<2>{2, 1}, {true, false}, balanced_grid<2>()};
  INFO(describe(c));
  const auto o = make_oracle(c);
  auto S = make_domain(c);
  dmap::array<std::int64_t, 2> A{S}, A2{S};
  fill(A, S, 1);
  dmap::update_halos(A);
  for (const auto& bg : {c.grid, std::array<int, 2>{1, p}}) {
    INFO("block grid " << bg[0] << "x" << bg[1]);
    dmap::domain<2> Bd{dmap::block<2>{dmap::target_grid<2>{bg}}, c.r};
    dmap::array<std::int64_t, 2> B{Bd, -5};
    dmap::reset_counters();
    B = A;
    const auto cnt = dmap::counters();
    if (bg == c.grid) DMAP_CHECK_ALL(cnt.messages_sent == 0 && cnt.messages_received == 0);  // same cut
    bool ok = true;
    for (const auto& i : product(o.dom))
      if (Bd.locale_of(i) == dmap::here()) ok = ok && B.local(i) == f_of(i, 1);
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(B.gather() == A.gather());
    // Back into a Stencil array whose every cell holds the sentinel: owned cells change,
    // ghost cells keep the sentinel.
    for (const auto& b : A2.local_blocks()) std::fill(b.data(), b.data() + b.layout.size(), sentinel_value);
    dmap::forall(B, [](std::int64_t& x) { x += 7; });
    A2 = B;
    DMAP_CHECK_ALL(compare_stored(A2, o, [&](const idx<2>& g) {
                     return o.owns(dmap::here(), g) ? f_of(g, 1) + 7 : sentinel_value;
                   }).first == 0);
  }
  // Stencil = Stencil (copy construction too) moves owned values only.
  dmap::array<std::int64_t, 2> C{A};
  DMAP_CHECK_ALL(compare_stored(C, o, [&](const idx<2>& g) {
                   return o.owns(dmap::here(), g) ? f_of(g, 1) : std::int64_t{0};
                 }).first == 0);
}

}  // namespace test_stencil
