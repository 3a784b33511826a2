// Star halo updates (algorithms/halos.hpp, halo_shape::star): only the ghost cells beyond the
// owned chunk along exactly one dimension are refreshed; corners and edges keep what they held.
//
// Oracle, written without the code under test: a locale's chunk along dimension d of a
// unit-stride domain [L, L + n) on g grid positions is [L + ceil(n*k/g), L + ceil(n*(k+1)/g))
// (Chapel's Block cut), its frame the chunk widened by the fluff on both sides; a ghost cell g
// lies "beyond" the chunk along d when g[d] is outside the chunk, and holds the value of g
// itself or of its periodic image (moved by n along each periodic dimension where it lies
// outside the domain). Message and byte counts are derived by hand from the chunk sizes.
#include "../oracle.hpp"
#include "../stencil_config.hpp"
#include "../support.hpp"

#include "../../algorithms/plan_model.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace test_star_halos {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::halo_shape;
using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using namespace dmap::testing::oracle;  // tests/oracle.hpp
using namespace dmap::testing::stencil_config;  // tests/stencil_config.hpp

constexpr double sentinel = -1.0;

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
double value(const idx<N>& i) {
  double v = 1;
  for (std::size_t d = 0; d < N; ++d) v = v * 1000 + static_cast<double>(i[d] + 100);
  return v;
}

/// The index whose value ghost cell g holds after an update, if any.
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

/// Sets every stored cell to the sentinel, then every owned element to value(i).
template <std::size_t N>
void fill(dmap::array<double, N>& A, const dmap::domain<N>& D) {
  for (const auto& b : A.local_blocks()) std::fill(b.data(), b.data() + b.layout.size(), sentinel);
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<N>& i) { a = value(i); });
}

/// Compares every stored cell of this locale after an update of `shape`; "" when all match.
template <std::size_t N>
std::string check_cells(const dmap::array<double, N>& A, const config<N>& c, halo_shape shape) {
  const auto own = chunk_of(c, dmap::here());
  std::array<seq, N> frame;
  for (std::size_t d = 0; d < N; ++d)
    for (index_t i = own[d].first - c.fluff[d]; i < own[d].second + c.fluff[d]; ++i) frame[d].push_back(i);
  const auto& blocks = A.local_blocks();
  if (blocks.size() != 1) return "locale " + std::to_string(dmap::here()) + " has no single block";
  const auto& b = blocks.front();
  for (std::size_t d = 0; d < N; ++d)
    if (seq_of(b.layout.indices.dim(d)) != frame[d]) return "the frame is not the oracle's";
  index_t bad = 0;
  std::ostringstream first;
  for (const auto& g : product(frame)) {
    int beyond = 0;
    for (std::size_t d = 0; d < N; ++d) beyond += g[d] < own[d].first || g[d] >= own[d].second;
    double want = sentinel;
    if (beyond == 0) want = value(g);
    else if (beyond == 1 || shape == halo_shape::box)
      if (const auto s = source(c, g)) want = value(*s);
    if (b(g) != want && bad++ == 0)
      first << "locale " << dmap::here() << " cell " << g << " holds " << b(g) << ", expected " << want;
  }
  if (bad) first << " (" << bad << " cells wrong)";
  return first.str();
}

/// Fill, star update (faces right, the rest untouched), then box update (all right).
template <std::size_t N>
void star_case(const config<N>& c) {
  INFO(describe(c));
  auto D = make_domain(c);
  dmap::array<double, N> A{D};
  fill(A, D);
  dmap::update_halos(A, halo_shape::star);
  CHECK_NO_FAILURE(check_cells(A, c, halo_shape::star));
  fill(A, D);
  dmap::update_halos(A, halo_shape::star);  // the cached star plan
  CHECK_NO_FAILURE(check_cells(A, c, halo_shape::star));
  dmap::update_halos(A);
  CHECK_NO_FAILURE(check_cells(A, c, halo_shape::box));
  fill(A, D);
  auto h = dmap::start_halo_update(A, halo_shape::star);
  h.finish();
  CHECK_NO_FAILURE(check_cells(A, c, halo_shape::star));
}

/// Collective: the counters of one update of `shape` (its plan built beforehand).
template <std::size_t N>
dmap::comm_counters one_update(dmap::array<double, N>& A, halo_shape shape) {
  dmap::update_halos(A, shape);
  dmap::reset_counters();
  dmap::update_halos(A, shape);
  return dmap::counters();
}

struct expected {
  std::uint64_t messages = 0, elements = 0;  // sent, and as many received
};

/// Collective: checks one update's counters; sends and receives are symmetric here.
void check_counts(const dmap::comm_counters& c, const expected& e) {
  INFO("sent " << c.messages_sent << " msgs / " << c.bytes_sent << " B, received " << c.messages_received << " / "
               << c.bytes_received << " B, " << c.collectives << " collectives; expected " << e.messages << " msgs / "
               << e.elements * sizeof(double) << " B each way");
  DMAP_CHECK_ALL((c.messages_sent == e.messages && c.messages_received == e.messages));
  DMAP_CHECK_ALL((c.bytes_sent == e.elements * sizeof(double) && c.bytes_received == e.elements * sizeof(double)));
  DMAP_CHECK_ALL(c.collectives == 0);
}

}  // namespace

TEST_CASE("star halos: faces are refreshed from their owners, corners and edges keep their values", "[stencil][halo_shape]") {
  const int p = dmap::num_locales();
  for (const auto& g : factorisations<2>(p)) {
    for (const std::array<bool, 2> per : {std::array<bool, 2>{false, false}, {true, false}, {false, true}, {true, true}})
      star_case<2>(config<2>{rect<2>{range(-3, 34), range(2, 55)}, idx<2>{1, 2}, per, g});
    star_case<2>(config<2>{rect<2>{range(0, 10), range(0, 12)}, idx<2>{2, 1}, {true, true}, g,
                           dmap::storage_order::column_major});
  }
  for (const auto& g : factorisations<3>(p)) {
    star_case<3>(config<3>{rect<3>{range(0, 9), range(-2, 8), range(0, 7)}, idx<3>{1, 2, 1}, {true, false, true}, g});
    star_case<3>(config<3>{rect<3>{range(0, 9), range(-2, 8), range(0, 7)}, idx<3>{1, 1, 1}, {false, false, false}, g});
  }
}

TEST_CASE("star halos: one update sends exactly the faces, box the faces and corners, no collectives", "[stencil][halo_shape]") {
  const int p = dmap::num_locales(), me = dmap::here();

  SECTION("row slabs of 37 x 53 on a p x 1 grid, fluff {1, 2}, periodic along the rows") {
    // Each locale exchanges with its row neighbours (none across the non-periodic ends); the
    // wrap along dimension 1 stays on the locale. A face is 1 row deep and 53 wide; a box
    // update also sends the 2 + 2 wrapped corner cells on each side of it.
    const config<2> c{rect<2>{range(0, 37), range(0, 53)}, idx<2>{1, 2}, {false, true}, {p, 1}};
    INFO(describe(c));
    auto D = make_domain(c);
    dmap::array<double, 2> A{D};
    fill(A, D);
    const std::uint64_t neighbours = (me > 0 ? 1 : 0) + (me < p - 1 ? 1 : 0);
    check_counts(one_update(A, halo_shape::box), {neighbours, neighbours * (53 + 4)});
    check_counts(one_update(A, halo_shape::star), {neighbours, neighbours * 53});
    CHECK_NO_FAILURE(check_cells(A, c, halo_shape::box));  // the box update before filled the corners
  }

  SECTION("10 x 12 on a 2 x 2 grid, fluff 1") {
    if (p != 4) return;  // the grid needs four locales
    // Chunks are 5 x 6. Each locale has one neighbour across a row face (6 cells), one across
    // a column face (5 cells) and one across the corner (1 cell).
    const config<2> closed{rect<2>{range(0, 10), range(0, 12)}, idx<2>{1, 1}, {false, false}, {2, 2}};
    auto D = make_domain(closed);
    dmap::array<double, 2> A{D};
    fill(A, D);
    check_counts(one_update(A, halo_shape::box), {3, 6 + 5 + 1});
    check_counts(one_update(A, halo_shape::star), {2, 6 + 5});
    // Periodic both ways: the neighbour across a face is the same locale on both sides (two
    // faces in one message), and the diagonal neighbour holds all four corners.
    const config<2> torus{rect<2>{range(0, 10), range(0, 12)}, idx<2>{1, 1}, {true, true}, {2, 2}};
    auto T = make_domain(torus);
    dmap::array<double, 2> B{T};
    fill(B, T);
    check_counts(one_update(B, halo_shape::box), {3, 2 * 6 + 2 * 5 + 4});
    fill(B, T);
    check_counts(one_update(B, halo_shape::star), {2, 2 * 6 + 2 * 5});
    CHECK_NO_FAILURE(check_cells(B, torus, halo_shape::star));
  }

  SECTION("10 x 12 x 7 on a 2 x 2 x 1 grid, fluff 1") {
    if (p != 4) return;
    // Chunks are 5 x 6 x 7: faces of 6 x 7 and 5 x 7 cells, and a 7-cell edge to the diagonal
    // neighbour; the undistributed, non-periodic dimension 2 exchanges nothing.
    const config<3> c{rect<3>{range(0, 10), range(0, 12), range(0, 7)}, idx<3>{1, 1, 1}, {false, false, false}, {2, 2, 1}};
    auto D = make_domain(c);
    dmap::array<double, 3> A{D};
    fill(A, D);
    check_counts(one_update(A, halo_shape::box), {3, 42 + 35 + 7});
    check_counts(one_update(A, halo_shape::star), {2, 42 + 35});
  }
}

TEST_CASE("star halos: the model gives the real star plan", "[stencil][halo_shape]") {
  const int p = dmap::num_locales();
  const rect<3> cube{range(0, 12), range(0, 10), range(0, 9)};
  const dmap::stencil<3> map(idx<3>{1, 2, 1}, {true, false, true});
  dmap::domain<3> D(map, cube);
  dmap::array<double, 3> A(D, 1.0);
  for (const halo_shape shape : {halo_shape::box, halo_shape::star}) {
    const auto c = one_update(A, shape);
    const dmap::plan_summary model = dmap::model_halo_update(map, cube, dmap::here(), p, shape);
    DMAP_CHECK_ALL((c.messages_sent == model.messages_sent() && c.messages_received == model.messages_received()));
    DMAP_CHECK_ALL(c.bytes_sent == static_cast<std::uint64_t>(model.elements_sent) * sizeof(double));
  }
}

TEST_CASE("star halos: a 5-point Jacobi over star updates equals one over box updates", "[stencil][halo_shape]") {
  const int p = dmap::num_locales();
  for (const std::array<bool, 2> per : {std::array<bool, 2>{false, false}, {true, true}}) {
    const config<2> c{rect<2>{range(0, 37), range(0, 53)}, idx<2>{1, 1}, per,
                      dmap::target_grid<2>::balanced(p).shape()};
    INFO(describe(c));
    auto D = make_domain(c);
    dmap::array<double, 2> box{D}, star{D}, next{D};
    fill(box, D);
    fill(star, D);
    const auto step = [&](dmap::array<double, 2>& a, const auto& nb) {
      dmap::forall(dmap::zip(next, nb), [](double& b, const auto& x) {
        b = 0.25 * (x(-1, 0) + x(1, 0) + x(0, -1) + x(0, 1));
      });
      a = next;
    };
    for (int it = 0; it < 6; ++it) {
      const auto nb_box = dmap::neighbors(std::as_const(box), 1);
      dmap::update_halos(box, nb_box);
      step(box, nb_box);
      const auto nb_star = dmap::neighbors(std::as_const(star), 1, halo_shape::star);
      auto h = dmap::start_halo_update(star, nb_star);  // the loop's shape picks the update
      h.finish();
      step(star, nb_star);
    }
    const int differ = dmap::reduce(dmap::zip(box, star), 0, std::plus<>{},
                                    [](double a, double b) { return a == b ? 0 : 1; });
    DMAP_CHECK_ALL(differ == 0);
  }
  // A neighbourhood of another array is refused on every locale.
  const config<2> c{rect<2>{range(0, 8), range(0, 8)}, idx<2>{1, 1}, {true, true}, dmap::target_grid<2>::balanced(p).shape()};
  auto D = make_domain(c);
  dmap::array<double, 2> A{D}, B{D};
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [&] { dmap::update_halos(A, dmap::neighbors(std::as_const(B), 1, halo_shape::star)); }, "another array"));
}

}  // namespace test_star_halos
