// Reverse halos (algorithms/reverse_halos.hpp): every ghost cell's value combined into its
// owner's element.
//
// Oracle, a serial simulation written without the code under test: locale q's chunk along
// dimension d of a unit-stride domain [L, L + n) on g grid positions is [L + ceil(n*k/g),
// L + ceil(n*(k+1)/g)) (Chapel's Block cut), its frame the chunk widened by the fluff on both
// sides (no frame when the chunk is empty). Every locale q deposits dep(x, q) into every cell
// x of its frame, owned or ghost. A ghost cell g contributes (box: all; star: those beyond the
// chunk along exactly one dimension) to source(g): g itself, or its periodic image (moved by n
// along each periodic dimension where it lies outside the domain); a ghost cell with no source
// contributes nothing. After the reduction, owned element x on its owner o is
// op(...op(op(dep(x, o), c_1), c_2)..., c_k), the contributions of locales 0, 1, ... in turn.
// Messages: a locale sends one message to each other locale owning a source of one of its
// contributing ghost cells, with one element per such ghost cell, and receives symmetrically.
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
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace test_reverse_halos {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::halo_shape;
using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using namespace dmap::testing::oracle;          // tests/oracle.hpp
using namespace dmap::testing::stencil_config;  // tests/stencil_config.hpp

using value_t = std::int64_t;

/// Locale q's chunk, [first, second) per dimension, by the Block cut.
template <std::size_t N>
std::array<std::pair<index_t, index_t>, N> chunk_of(const config<N>& c, int q) {
  const auto k = c_order_coords(c.grid, q);
  std::array<std::pair<index_t, index_t>, N> out{};
  for (std::size_t d = 0; d < N; ++d) {
    const index_t lo = c.r.dim(d).lo(), n = c.r.dim(d).size(), g = c.grid[d];
    out[d] = {lo + ceil_div(n * k[d], g), lo + ceil_div(n * (k[d] + 1), g)};
  }
  return out;
}

template <std::size_t N>
bool chunk_empty(const std::array<std::pair<index_t, index_t>, N>& ch) {
  for (const auto& [a, b] : ch)
    if (a >= b) return true;
  return false;
}

template <std::size_t N>
bool in_chunk(const std::array<std::pair<index_t, index_t>, N>& ch, const idx<N>& x) {
  for (std::size_t d = 0; d < N; ++d)
    if (x[d] < ch[d].first || x[d] >= ch[d].second) return false;
  return true;
}

/// The cells of locale q's frame (empty when its chunk is).
template <std::size_t N>
std::vector<idx<N>> frame_of(const config<N>& c, int q) {
  const auto ch = chunk_of(c, q);
  if (chunk_empty(ch)) return {};
  std::array<seq, N> f;
  for (std::size_t d = 0; d < N; ++d)
    for (index_t i = ch[d].first - c.fluff[d]; i < ch[d].second + c.fluff[d]; ++i) f[d].push_back(i);
  return product(f);
}

/// What locale q deposits into its cell x.
template <std::size_t N>
value_t dep(const idx<N>& x, int q) {
  value_t h = 0;
  for (std::size_t d = 0; d < N; ++d) h = h * 31 + x[d];
  return 1 + pmod(h, 5) + 7 * q;
}

/// The element whose owner ghost cell g contributes to, if any.
template <std::size_t N>
std::optional<idx<N>> source(const config<N>& c, idx<N> g) {
  for (std::size_t d = 0; d < N; ++d) {
    const index_t lo = c.r.dim(d).lo(), hi = c.r.dim(d).hi(), n = hi - lo;
    if (g[d] >= lo && g[d] < hi) continue;
    if (!c.periodic[d]) return std::nullopt;
    g[d] += g[d] < lo ? n : -n;
    if (g[d] < lo || g[d] >= hi) return std::nullopt;
  }
  return g;
}

/// Whether ghost cell g of the chunk `ch` contributes under `shape`.
template <std::size_t N>
bool contributes(const std::array<std::pair<index_t, index_t>, N>& ch, const idx<N>& g, halo_shape shape) {
  int beyond = 0;
  for (std::size_t d = 0; d < N; ++d) beyond += g[d] < ch[d].first || g[d] >= ch[d].second;
  return beyond > 0 && (shape == halo_shape::box || beyond == 1);
}

/// Every contribution of the machine: (source element, contributing locale, value), in
/// locale order then frame order, and the owner of each element.
template <std::size_t N>
struct simulation {
  std::map<idx<N>, std::vector<std::pair<int, value_t>>> into;  // element -> (locale, value)
  std::map<idx<N>, int> owner;
  std::uint64_t messages_sent = 0, messages_received = 0, elements_sent = 0, elements_received = 0;

  simulation(const config<N>& c, halo_shape shape) {
    const int p = dmap::num_locales(), me = dmap::here();
    for (int q = 0; q < p; ++q)
      for (const auto& x : frame_of(c, q))
        if (in_chunk(chunk_of(c, q), x)) owner[x] = q;
    std::set<int> to, from;
    for (int q = 0; q < p; ++q) {
      const auto ch = chunk_of(c, q);
      for (const auto& g : frame_of(c, q)) {
        if (!contributes(ch, g, shape)) continue;
        const auto s = source(c, g);
        if (!s) continue;
        into[*s].push_back({q, dep(g, q)});
        const int o = owner.at(*s);
        if (q == me && o != me) to.insert(o), ++elements_sent;
        if (o == me && q != me) from.insert(q), ++elements_received;
      }
    }
    messages_sent = to.size();
    messages_received = from.size();
  }
  /// The value element x should hold after the reduction with `op`.
  template <class Op>
  value_t expected(const idx<N>& x, Op op) const {
    value_t v = dep(x, owner.at(x));
    if (auto it = into.find(x); it != into.end())
      for (const auto& [q, contribution] : it->second) v = op(v, contribution);
    return v;
  }
};

/// Every cell this locale stores set to dep(cell, here()); "" or what is off in the storage.
template <std::size_t N>
std::string deposit(dmap::array<value_t, N>& A, const config<N>& c) {
  const auto frame = frame_of(c, dmap::here());
  const auto& blocks = A.local_blocks();
  index_t cells = 0;
  for (const auto& b : blocks) cells += b.layout.size();
  if (frame.empty()) return cells == 0 ? "" : "locale " + std::to_string(dmap::here()) + " owns nothing but stores cells";
  if (blocks.size() != 1 || cells != static_cast<index_t>(frame.size()))
    return "locale " + std::to_string(dmap::here()) + " does not store one block of the oracle's frame";
  for (const auto& x : frame) blocks.front()(x) = dep(x, dmap::here());
  return "";
}

/// Checks this locale's cells after a reduction with `op`: owned as the simulation says,
/// ghost cells as deposited or `reset`. "" when all match.
template <std::size_t N, class Op>
std::string check(const dmap::array<value_t, N>& A, const config<N>& c, const simulation<N>& sim, Op op,
                  std::optional<value_t> reset = std::nullopt) {
  const int me = dmap::here();
  const auto ch = chunk_of(c, me);
  index_t bad = 0;
  std::ostringstream first;
  for (const auto& x : frame_of(c, me)) {
    const bool owned = in_chunk(ch, x);
    const value_t want = owned ? sim.expected(x, op) : reset.value_or(dep(x, me));
    const value_t got = A.local_blocks().front()(x);
    if (got != want && bad++ == 0)
      first << "locale " << me << (owned ? " element " : " ghost cell ") << x << " holds " << got << ", expected "
            << want;
  }
  if (bad) first << " (" << bad << " cells wrong)";
  return first.str();
}

/// A non-commutative combination: the order of the contributions shows in the result.
struct ordered_fold {
  value_t operator()(value_t a, value_t b) const { return a * 3 + b; }
};

/// One configuration: sum (box and star, start/finish and reduce_halos), max, reset, and a
/// non-commutative op where each element gets at most one contribution per locale.
template <std::size_t N>
void reverse_case(const config<N>& c) {
  INFO(describe(c));
  auto D = make_domain(c);
  dmap::array<value_t, N> A{D};
  for (const halo_shape shape : {halo_shape::box, halo_shape::star}) {
    INFO((shape == halo_shape::box ? "box" : "star"));
    const simulation<N> sim(c, shape);
    CHECK_NO_FAILURE(deposit(A, c));
    dmap::reduce_halos(A, std::plus<>{}, shape);
    CHECK_NO_FAILURE(check(A, c, sim, std::plus<>{}));

    CHECK_NO_FAILURE(deposit(A, c));
    auto pending = dmap::start_halo_reduction(A, dmap::maximum{}, shape);
    pending.finish();
    CHECK_NO_FAILURE(check(A, c, sim, dmap::maximum{}));

    CHECK_NO_FAILURE(deposit(A, c));
    dmap::reduce_halos(A, std::plus<>{}, shape, value_t{-5});
    CHECK_NO_FAILURE(check(A, c, sim, std::plus<>{}, value_t{-5}));

    bool once_per_locale = true;  // no periodic image held twice by one locale
    for (const auto& [x, list] : sim.into)
      for (std::size_t k = 1; k < list.size(); ++k) once_per_locale = once_per_locale && list[k].first != list[k - 1].first;
    if (once_per_locale) {
      CHECK_NO_FAILURE(deposit(A, c));
      dmap::reduce_halos(A, ordered_fold{}, shape);
      CHECK_NO_FAILURE(check(A, c, sim, ordered_fold{}));
    }
  }
  if (c.r.dim(0).size() > 0) {  // the default: the sum over every ghost cell
    const simulation<N> sim(c, halo_shape::box);
    CHECK_NO_FAILURE(deposit(A, c));
    auto pending = dmap::start_halo_reduction(A);
    pending.finish();
    CHECK_NO_FAILURE(check(A, c, sim, std::plus<>{}));
  }
}

/// Whether Stencil accepts c: along a dimension that exchanges ghosts, no nonempty chunk is
/// thinner than the ghost width.
template <std::size_t N>
bool accepted(const config<N>& c) {
  for (std::size_t d = 0; d < N; ++d) {
    if ((c.grid[d] == 1 && !c.periodic[d]) || c.fluff[d] == 0) continue;
    for (int q = 0; q < dmap::num_locales(); ++q) {
      const auto [a, b] = chunk_of(c, q)[d];
      if (a < b && b - a < c.fluff[d]) return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("reverse halos: 1-D, uneven sizes, widths 1..3, periodic or not, more locales than elements",
          "[reverse_halo]") {
  const int p = dmap::num_locales();
  for (const index_t n : {index_t{0}, index_t{1}, index_t{2}, index_t{7}, index_t{37}})
    for (const index_t w : {index_t{1}, index_t{2}, index_t{3}})
      for (const bool per : {false, true}) {
        const config<1> c{rect<1>{range(-3, -3 + n)}, idx<1>{w}, {per}, {p}};
        if (accepted(c)) reverse_case<1>(c);
      }
}

TEST_CASE("reverse halos: 2-D on every grid, box and star, periodic per dimension, column-major", "[reverse_halo]") {
  const int p = dmap::num_locales();
  for (const auto& g : factorisations<2>(p)) {
    for (const std::array<bool, 2> per : {std::array<bool, 2>{false, false}, {true, false}, {false, true}, {true, true}})
      reverse_case<2>(config<2>{rect<2>{range(-3, 8), range(2, 15)}, idx<2>{1, 2}, per, g});
    const config<2> column_major{rect<2>{range(0, 7), range(0, 5)}, idx<2>{2, 1}, {true, true}, g,
                                 dmap::storage_order::column_major};
    if (accepted(column_major)) reverse_case<2>(column_major);
    const config<2> thin{rect<2>{range(0, 2), range(0, 3)}, idx<2>{1, 1}, {false, true}, g};  // more locales than rows
    if (accepted(thin)) reverse_case<2>(thin);
  }
}

TEST_CASE("reverse halos: 3-D, all 26 directions, periodic and not", "[reverse_halo]") {
  const int p = dmap::num_locales();
  const auto g = mpi_dims<3>(p);
  reverse_case<3>(config<3>{rect<3>{range(0, 5), range(-2, 4), range(0, 4)}, idx<3>{1, 2, 1}, {true, false, true}, g});
  reverse_case<3>(config<3>{rect<3>{range(0, 5), range(-2, 4), range(0, 4)}, idx<3>{1, 1, 1}, {false, false, false}, g});
}

TEST_CASE("reverse halos: one message per neighbouring locale, exactly the ghost cells, no collectives",
          "[reverse_halo]") {
  const int p = dmap::num_locales();
  const auto g = dmap::target_grid<2>::balanced(p).shape();
  for (const std::array<bool, 2> per : {std::array<bool, 2>{false, false}, {true, true}})
    for (const halo_shape shape : {halo_shape::box, halo_shape::star}) {
      const config<2> c{rect<2>{range(0, 11), range(0, 13)}, idx<2>{1, 2}, per, g};
      INFO(describe(c) << (shape == halo_shape::box ? " box" : " star"));
      const simulation<2> sim(c, shape);
      auto D = make_domain(c);
      dmap::array<value_t, 2> A{D};
      dmap::reduce_halos(A, std::plus<>{}, shape);  // the plan, built once
      CHECK_NO_FAILURE(deposit(A, c));
      dmap::reset_counters();
      auto pending = dmap::start_halo_reduction(A, std::plus<>{}, shape);
      const auto posted = dmap::counters();
      pending.finish();
      const auto n = dmap::counters();
      CHECK_NO_FAILURE(check(A, c, sim, std::plus<>{}));
      INFO("sent " << n.messages_sent << " msgs / " << n.bytes_sent << " B, received " << n.messages_received << " / "
                   << n.bytes_received << " B, " << n.collectives << " collectives; expected " << sim.messages_sent
                   << " / " << sim.elements_sent * sizeof(value_t) << " B and " << sim.messages_received << " / "
                   << sim.elements_received * sizeof(value_t) << " B");
      DMAP_CHECK_ALL((n.messages_sent == sim.messages_sent && n.messages_received == sim.messages_received));
      DMAP_CHECK_ALL((n.bytes_sent == sim.elements_sent * sizeof(value_t) &&
                      n.bytes_received == sim.elements_received * sizeof(value_t)));
      DMAP_CHECK_ALL(n.collectives == 0);
      DMAP_CHECK_ALL(posted == n);  // every message left at start
      // The reverse of the forward update: the same peers and volumes, the directions swapped.
      dmap::reset_counters();
      dmap::update_halos(A, shape);
      const auto f = dmap::counters();
      DMAP_CHECK_ALL((f.messages_sent == n.messages_received && f.messages_received == n.messages_sent &&
                      f.bytes_sent + f.node_bytes >= n.bytes_received));
    }
}

TEST_CASE("reverse halos: owned elements computed on between start and finish; finish twice is an error",
          "[reverse_halo]") {
  const int p = dmap::num_locales();
  const config<2> c{rect<2>{range(0, 9), range(0, 10)}, idx<2>{1, 1}, {true, false},
                    dmap::target_grid<2>::balanced(p).shape()};
  const simulation<2> sim(c, halo_shape::box);
  auto D = make_domain(c);
  dmap::array<value_t, 2> A{D};
  // Deposit into the ghost cells only, start, then the owned elements: finish combines into
  // what they hold then.
  CHECK_NO_FAILURE(deposit(A, c));
  dmap::forall(dmap::zip(A, D), [](value_t& a, const idx<2>&) { a = 0; });
  auto pending = dmap::start_halo_reduction(A);
  dmap::forall(dmap::zip(A, D), [](value_t& a, const idx<2>& i) { a = dep(i, dmap::here()); });
  pending.finish();
  CHECK_NO_FAILURE(check(A, c, sim, std::plus<>{}));
  CHECK_THROWS_AS(pending.finish(), dmap::argument_error);
  auto moved = dmap::start_halo_reduction(A, dmap::maximum{});
  auto taker = std::move(moved);
  taker.finish();
  CHECK_THROWS_AS(moved.finish(), dmap::argument_error);  // NOLINT(bugprone-use-after-move): the point

  // Two reductions and a halo update of another array in flight at once, finished in another
  // order than started.
  dmap::array<value_t, 2> B{D}, C{D};
  CHECK_NO_FAILURE(deposit(A, c));
  CHECK_NO_FAILURE(deposit(B, c));
  dmap::forall(dmap::zip(C, D), [](value_t& x, const idx<2>& i) { x = i[0] * 100 + i[1]; });
  auto ra = dmap::start_halo_reduction(A, dmap::maximum{});
  auto uc = dmap::start_halo_update(C);
  auto rb = dmap::start_halo_reduction(B, std::plus<>{}, halo_shape::star);
  rb.finish();
  uc.finish();
  ra.finish();
  CHECK_NO_FAILURE(check(A, c, sim, dmap::maximum{}));
  CHECK_NO_FAILURE(check(B, c, simulation<2>(c, halo_shape::star), std::plus<>{}));
  bool fresh = true;  // C's ghost cells hold their sources' values
  for (const auto& x : frame_of(c, dmap::here()))
    if (const auto src = source(c, x)) fresh = fresh && C.local_blocks().front()(x) == (*src)[0] * 100 + (*src)[1];
  DMAP_CHECK_ALL(fresh);
}

TEST_CASE("reverse halos: arrays in node-shared storage reduce alike, by messages", "[reverse_halo][node]") {
  const int p = dmap::num_locales();
  const dmap::node_transfer_settings saved = dmap::node_transfers();
  dmap::set_node_transfers({true, 0});  // every array node-shared where the node allows it
  const config<2> c{rect<2>{range(0, 13), range(-2, 9)}, idx<2>{1, 2}, {true, false},
                    dmap::target_grid<2>::balanced(p).shape()};
  INFO(describe(c));
  const simulation<2> sim(c, halo_shape::box);
  auto D = make_domain(c);
  dmap::array<value_t, 2> A{D};
  dmap::set_node_transfers(saved);
  INFO("node-shared: " << A.node_shared());
  CHECK_NO_FAILURE(deposit(A, c));
  dmap::reset_counters();
  dmap::reduce_halos(A);
  const auto n = dmap::counters();
  CHECK_NO_FAILURE(check(A, c, sim, std::plus<>{}));
  DMAP_CHECK_ALL((n.messages_sent == sim.messages_sent && n.bytes_sent == sim.elements_sent * sizeof(value_t)));
  DMAP_CHECK_ALL((n.node_copies == 0 && n.collectives == 0));
}

namespace {

/// The element ghost cell g of `whole` stands for along lattices with strides: g itself when
/// it is an index, else its image moved by one period (extent x |stride|) along each periodic
/// dimension where it lies outside; none when that is no index.
template <std::size_t N>
std::optional<idx<N>> lattice_source(const rect<N>& whole, const std::array<bool, N>& periodic, idx<N> g) {
  for (std::size_t d = 0; d < N; ++d) {
    const range& r = whole.dim(d);
    if (r.contains(g[d])) continue;
    if (!periodic[d]) return std::nullopt;
    const index_t period = r.size() * iabs(r.stride());
    g[d] += g[d] < std::min(r.first(), r.last()) ? period : -period;
    if (!r.contains(g[d])) return std::nullopt;
  }
  return g;
}

/// A box sum checked against an oracle that reads every locale's pieces and frames from the
/// domain (its local_subdomains and local_layouts, no messages): each owned element ends as
/// the sum of dep over every stored cell of every locale that stands for it.
template <std::size_t N>
void layout_oracle_case(const dmap::domain<N>& D, const std::array<bool, N>& periodic) {
  INFO(D.name() << " " << D.indices() << " on " << dmap::num_locales() << " locale(s)");
  std::map<idx<N>, value_t> want;
  for (int q = 0; q < dmap::num_locales(); ++q) {
    const auto owned = D.local_subdomains(q);
    const auto layouts = D.local_layouts(q);
    for (std::size_t k = 0; k < owned.size(); ++k)
      for (const auto& g : points_of(layouts[k].indices))
        if (owned[k].contains(g)) want[g] += dep(g, q);
        else if (const auto s = lattice_source(D.indices(), periodic, g)) want[*s] += dep(g, q);
  }
  dmap::array<value_t, N> A{D};
  for (const auto& b : A.local_blocks())
    for (const auto& g : points_of(b.layout.indices)) b(g) = dep(g, dmap::here());
  dmap::reduce_halos(A);
  const int wrong = dmap::reduce(dmap::zip(A, D), 0, std::plus<>{}, [&](value_t a, const idx<N>& i) {
    const auto it = want.find(i);
    return it != want.end() && it->second == a ? 0 : 1;
  });
  DMAP_CHECK_ALL(wrong == 0);
}

}  // namespace

TEST_CASE("reverse halos: strided and reversed Stencil domains, Padded with unequal widths", "[reverse_halo]") {
  const int p = dmap::num_locales();
  const auto g2 = dmap::target_grid<2>::balanced(p);
  layout_oracle_case<2>(dmap::domain<2>{dmap::stencil<2>{idx<2>{2, 2}, {false, true}, g2},
                                        rect<2>{range(0, 26, 2), range(0, 30, -2)}},
                        {false, true});
  layout_oracle_case<1>(dmap::domain<1>{dmap::stencil<1>{idx<1>{1}, {true}}, rect<1>{range(-5, 40, 3)}}, {true});
  std::vector<index_t> cuts;
  for (int k = 1; k < p; ++k) cuts.push_back(23 * k / p);
  const std::vector<dmap::padding_widths> widths(static_cast<std::size_t>(p), dmap::padding_widths{1, 2});
  for (const bool per : {false, true})
    layout_oracle_case<1>(dmap::domain<1>{dmap::padded<1>{{cuts}, {widths}, {per}}, rect<1>{range(0, 23)}}, {per});
}

TEST_CASE("reverse halos: a new array's ghost cells hold its initial value", "[reverse_halo]") {
  const config<2> c{rect<2>{range(0, 9), range(0, 10)}, idx<2>{1, 2}, {true, false},
                    dmap::target_grid<2>::balanced(dmap::num_locales()).shape()};
  auto D = make_domain(c);
  dmap::array<value_t, 2> A{D}, B{D, value_t{3}};
  bool ok = true;
  for (const auto& b : A.local_blocks())
    for (const auto& g : points_of(b.layout.indices)) ok = ok && b(g) == 0;
  for (const auto& b : B.local_blocks())
    for (const auto& g : points_of(b.layout.indices)) ok = ok && b(g) == 3;
  DMAP_CHECK_ALL(ok);  // so reduce_halos right after deposits into a new array adds only those
}

}  // namespace test_reverse_halos
