// Local layouts (dsi/local_layout.hpp, layouts/): the concept's rules held by every model on
// random pieces, the library's maps placing through the models, and a user map that brings
// its own layout (examples/tiled_block: Block's cut stored as tiles) working with the rest of
// the library and passing the conformance kit.
//
// Oracles: the layout rules are checked by the kit's brute-force layout_rule_violations and
// placement_violations (positions from scanned index lists, offsets recomputed, every element
// collected); the tiled layout's offsets are recomputed from the tile coordinates of every
// index (position / tile extent per dimension), tile by tile in the tile grid's order; values
// are formulas of the index; message counts are derived from the placements by scanning every
// owned index. Random pieces: a random rect (0..12 indices per dimension, strides 1, 2, -1,
// -3) cut along each dimension into 1-3 runs, the product in row-major order.
#include "../support.hpp"

#include "../../conformance/conformance.hpp"
#include "../../examples/tiled_block/tiled_block.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace test_local_layouts {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

namespace kit = dmap::conformance;
using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::storage_order;
using gen = std::mt19937_64;

index_t draw(gen& g, index_t lo, index_t hi) { return lo + static_cast<index_t>(g() % static_cast<std::uint64_t>(hi - lo + 1)); }
storage_order random_order(gen& g) { return g() % 2 ? storage_order::row_major : storage_order::column_major; }

/// A random rect cut into disjoint pieces: 1-3 runs per dimension, their product row-major.
template <std::size_t N>
std::vector<rect<N>> random_pieces(gen& g) {
  static constexpr index_t strides[] = {1, 2, -1, -3};
  std::array<std::vector<range>, N> runs;
  for (std::size_t d = 0; d < N; ++d) {
    const index_t s = strides[g() % 4], n = draw(g, 0, 12), first = draw(g, -6, 6);
    const index_t parts = std::min<index_t>(draw(g, 1, 3), std::max<index_t>(n, 1));
    index_t at = 0;
    for (index_t k = 0; k < parts; ++k) {
      const index_t len = k + 1 == parts ? n - at : draw(g, 0, n - at);
      runs[d].push_back(range::counted(first + at * s, len, s));
      at += len;
    }
  }
  std::vector<rect<N>> out;
  std::array<std::size_t, N> c{};
  while (true) {
    rect<N> r;
    for (std::size_t d = 0; d < N; ++d) r.set_dim(d, runs[d][c[d]]);
    out.push_back(r);
    std::size_t d = N;
    while (d-- > 0) {
      if (++c[d] < runs[d].size()) break;
      c[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return out;
  }
}

/// The violations as one text ("" when none).
std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

/// The offset tiled_layout(tile, order) must give each index of `pieces`, recomputed: tiles of
/// a piece by their tile coordinates (position / tile per dimension) in the tile grid's order,
/// elements of a tile by their positions in the tile in the same order, tiles and pieces
/// following each other without gaps.
template <std::size_t N>
std::map<idx<N>, index_t> tiled_oracle(const std::vector<rect<N>>& pieces, const std::array<index_t, N>& tile,
                                       storage_order order) {
  std::map<idx<N>, index_t> out;
  // Orders positions (row-major: the last dimension first in significance order reversed).
  const auto before = [order](const std::array<index_t, N>& a, const std::array<index_t, N>& b) {
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t d = order == storage_order::row_major ? j : N - 1 - j;
      if (a[d] != b[d]) return a[d] < b[d];
    }
    return false;
  };
  index_t base = 0;
  for (const auto& piece : pieces) {
    const auto all = kit::indices_of(piece);
    std::array<std::vector<index_t>, N> seq;
    for (std::size_t d = 0; d < N; ++d) seq[d] = kit::indices_of(piece.dim(d));
    // tile coordinate -> the positions inside the tile of its indices
    std::map<std::array<index_t, N>, std::vector<std::pair<std::array<index_t, N>, idx<N>>>,
             decltype(before)> tiles(before);
    for (const auto& i : all) {
      std::array<index_t, N> t{}, in{};
      for (std::size_t d = 0; d < N; ++d) {
        const auto p = static_cast<index_t>(std::find(seq[d].begin(), seq[d].end(), i[d]) - seq[d].begin());
        t[d] = p / tile[d];
        in[d] = p % tile[d];
      }
      tiles[t].push_back({in, i});
    }
    for (auto& [t, members] : tiles) {
      std::sort(members.begin(), members.end(), [&](const auto& a, const auto& b) { return before(a.first, b.first); });
      for (const auto& m : members) out[m.second] = base++;
    }
  }
  return out;
}

template <std::size_t N>
void models_keep_the_rules(gen& g) {
  for (int c = 0; c < 60; ++c) {
    const auto pieces = random_pieces<N>(g);
    const storage_order order = random_order(g);
    INFO(N << "-D case " << c << ", " << pieces.size() << " pieces, the first " << pieces.front());

    const dmap::row_padding paddings[] = {dmap::row_padding::none(), dmap::row_padding::fixed(draw(g, 1, 3)),
                                          dmap::row_padding::automatic()};
    for (const auto& padding : paddings) {
      const dmap::dense_order_layout<N> dense(order, padding);
      CHECK(joined(kit::placement_violations<N>(dense, pieces, padding != dmap::row_padding::none())).empty());
    }
    idx<N> fluff;
    for (std::size_t d = 0; d < N; ++d) fluff[d] = draw(g, 0, 2);
    CHECK(joined(kit::placement_violations<N>(dmap::ghost_frame_layout<N>(fluff, order), pieces)).empty());
    CHECK(joined(kit::placement_violations<N>(dmap::product_layout<N>(order), pieces)).empty());

    std::array<index_t, N> tile{};
    for (auto& t : tile) t = draw(g, 1, 5);
    const dmap::tiled_layout<N> tiled(tile, order);
    CHECK(joined(kit::placement_violations<N>(tiled, pieces)).empty());
    // The offsets of every index, recomputed from its tile coordinates.
    const auto want = tiled_oracle<N>(pieces, tile, order);
    const auto parts = tiled.place(pieces);
    std::size_t seen = 0;
    for (const auto& part : parts) {
      CHECK(part.layout.is_exhaustive());  // each tile is one compact block
      for (const auto& i : kit::indices_of(part.owned)) {
        ++seen;
        const auto it = want.find(i);
        REQUIRE(it != want.end());
        CHECK(part.layout.offset_of(i) == it->second);
        for (std::size_t d = 0; d < N; ++d) CHECK(part.owned.dim(d).size() <= tile[d]);
      }
    }
    CHECK(seen == want.size());
  }
}

/// Collective: the layouts `D` (of descriptor type Desc) answers for every locale equal what
/// `layout` places its subdomains' pieces as (`pieces_of(q)`).
template <std::size_t N, class Desc, class Layout, class Pieces>
std::string same_as_model(const Desc& D, const Layout& layout, Pieces&& pieces_of) {
  for (int q = 0; q < dmap::num_locales(); ++q) {
    const auto placed = layout.place(pieces_of(q));
    const auto lays = D.local_layouts(q);
    if (lays.size() != placed.size()) return "locale " + std::to_string(q) + ": layout count differs";
    for (std::size_t k = 0; k < lays.size(); ++k)
      if (!(lays[k].indices == placed[k].layout.indices) || lays[k].strides != placed[k].layout.strides ||
          lays[k].offset != placed[k].layout.offset)
        return "locale " + std::to_string(q) + ": layout " + std::to_string(k) + " differs from " + layout.name();
  }
  return "";
}

/// A value of each index: exact in a double.
template <std::size_t N>
double f(const idx<N>& i) {
  double v = 0;
  for (std::size_t d = 0; d < N; ++d) v = v * 97 + static_cast<double>(i[d]);
  return v;
}

/// Collective: the kit's result must pass every check (each becomes one CHECK).
void require_passed(const kit::result& r) {
  CHECK(r.cases() > 0);
  for (const auto& c : r.checks()) {
    INFO(r.subject() << ": " << c.name << " (" << c.runs << " runs), failed on " << c.failing_locales.size()
                     << " locale(s); the first failure: " << c.first_failure);
    CHECK(c.ok());
  }
}

}  // namespace

TEST_CASE("local layouts: every model keeps the concept's rules on random pieces; tiles sit where they should",
          "[layouts]") {
  gen g(20240715);
  models_keep_the_rules<1>(g);
  models_keep_the_rules<2>(g);
  models_keep_the_rules<3>(g);
}

TEST_CASE("local layouts: a broken model is caught by the rule checks", "[layouts]") {
  // Tiles whose offsets overlap by one element: the first element of every tile after the
  // first is the last of the previous one.
  struct overlapping_tiles {
    dmap::tiled_layout<2> inner{{2, 2}};
    std::string name() const { return "overlapping"; }
    std::vector<dmap::placed_piece<2>> place(const std::vector<rect<2>>& pieces) const {
      auto parts = inner.place(pieces);
      for (std::size_t k = 1; k < parts.size(); ++k) parts[k].layout.offset -= static_cast<index_t>(k);
      return parts;
    }
    bool operator==(const overlapping_tiles&) const = default;
  };
  static_assert(dmap::local_layout<overlapping_tiles, 2>);
  const std::vector<rect<2>> pieces{rect<2>{range(0, 4), range(0, 3)}};
  const auto v = kit::placement_violations<2>(overlapping_tiles{}, pieces);
  INFO(joined(v));
  CHECK(!v.empty());
  CHECK(joined(v).find("share element") != std::string::npos);
  // A model that loses a piece's last tile.
  struct lost_tile {
    std::string name() const { return "lost"; }
    std::vector<dmap::placed_piece<2>> place(const std::vector<rect<2>>& pieces) const {
      auto parts = dmap::tiled_layout<2>({2, 2}).place(pieces);
      if (!parts.empty()) parts.pop_back();
      return parts;
    }
    bool operator==(const lost_tile&) const = default;
  };
  CHECK(joined(kit::placement_violations<2>(lost_tile{}, pieces)).find("the parts own 10 of the 12 indices") !=
        std::string::npos);
}

TEST_CASE("local layouts: Block, Stencil and Dimensional maps place their pieces through the models",
          "[layouts]") {
  const rect<2> r{range(-3, 20), range(4, 41, 2)};
  for (const auto order : {storage_order::row_major, storage_order::column_major}) {
    const dmap::block<2> b(dmap::target_grid<2>{}, order, dmap::row_padding::fixed(2));
    const auto bd = b.new_domain(r);
    CHECK_NO_FAILURE(same_as_model<2>(bd, b.layout(), [&](int q) { return bd.local_subdomains(q); }));
    const dmap::stencil<2> s(idx<2>{1, 2}, {false, true}, {}, order);
    const auto sd = s.new_domain(r);
    CHECK_NO_FAILURE(same_as_model<2>(sd, s.layout(), [&](int q) { return sd.local_subdomains(q); }));
    const dmap::block_cyclic<2> bc(idx<2>{3, 2}, dmap::target_grid<2>{}, order);
    const auto cd = bc.new_domain(r);
    CHECK_NO_FAILURE(
        same_as_model<2>(cd, dmap::product_layout<2>(order), [&](int q) { return cd.local_subdomains(q); }));
    const dmap::cyclic<2> cy(std::nullopt, dmap::target_grid<2>{}, order);
    const auto yd = cy.new_domain(r);
    CHECK_NO_FAILURE(
        same_as_model<2>(yd, dmap::product_layout<2>(order), [&](int q) { return yd.local_subdomains(q); }));
  }
}

TEST_CASE("local layouts: bad model parameters throw argument_error naming them", "[layouts]") {
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [] { dmap::tiled_layout<2> t({4, 0}); }, "dmap::tiled_layout: tile is (4, 0)"));
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [] { dmap::ghost_frame_layout<2> t(idx<2>{-1, 1}); }, "dmap::ghost_frame_layout: fluff is (-1, 1)"));
  CHECK(dmap::tiled_layout<2>({4, 3}).name() == "tiled(4x3, row-major)");
  CHECK(dmap::dense_order_layout<2>(storage_order::column_major, dmap::row_padding::fixed(2)).name() ==
        "dense(column-major, row padding 2 elements)");
  CHECK(dmap::tiled_layout<2>({4, 3}) != dmap::tiled_layout<2>({3, 4}));
}

TEST_CASE("tiled_block: tiles of Block's chunks; zips with Block and Cyclic arrays, A = B, reduce, no halos",
          "[layouts][tiled_block]") {
  const int p = dmap::num_locales(), me = dmap::here();
  const rect<2> r{range(-2, 21), range(3, 20)};  // 23 x 17: uneven chunks at every locale count
  const user_layouts::tiled_block<2> tb(dmap::tiled_layout<2>({4, 3}));
  const dmap::domain<2> T_dom{tb, r}, B_dom{dmap::block<2>{}, r}, C_dom{dmap::cyclic<2>{}, r};

  // Ownership is Block's, storage is tiles: each locale's tiles partition its Block chunk.
  {
    std::string bad;
    for (int q = 0; q < p; ++q) {
      std::set<idx<2>> tiled, chunk;
      for (const auto& t : T_dom.local_subdomains(q)) {
        if (t.dim(0).size() > 4 || t.dim(1).size() > 3) bad += "a tile larger than 4x3; ";
        for (const auto& i : kit::indices_of(t))
          if (!tiled.insert(i).second) bad += "an index in two tiles; ";
      }
      for (const auto& c : B_dom.local_subdomains(q))
        for (const auto& i : kit::indices_of(c)) chunk.insert(i);
      if (tiled != chunk) bad += "locale " + std::to_string(q) + "'s tiles differ from its Block chunk; ";
    }
    CHECK_NO_FAILURE(bad);
  }

  dmap::array<double, 2> T{T_dom}, B{B_dom}, C{C_dom}, T2{T_dom};
  dmap::forall(T_dom, [&](idx<2> i) { T.local(i) = f(i); });
  dmap::forall(C_dom, [&](idx<2> i) { C.local(i) = 0; });
  // Block leading, tiled following (aligned by the cut, stored apart), then tiled leading.
  dmap::forall(dmap::zip(B, std::as_const(T)), [](double& b, const double& t) { b = 2 * t; });
  dmap::forall(dmap::zip(T2, std::as_const(B), dmap::in(C)), [](double& t2, const double& b, const double& c) {
    t2 = b + c;
  });
  {
    bool ok = true;
    for (const auto& s : B_dom.local_subdomains())
      for (const auto& i : kit::indices_of(s)) ok = ok && B.local(i) == 2 * f(i);
    for (const auto& s : T_dom.local_subdomains())
      for (const auto& i : kit::indices_of(s)) ok = ok && T2.local(i) == 2 * f(i);
    DMAP_CHECK_ALL(ok);
  }

  // A = B between the tiled array and a Block array of the same cut: nothing moves.
  dmap::forall(B_dom, [&](idx<2> i) { B.local(i) = 3 * f(i); });
  dmap::barrier();
  dmap::reset_counters();
  T2 = B;
  const auto same_cut = dmap::counters();
  DMAP_CHECK_ALL(same_cut.messages_sent == 0 && same_cut.bytes_sent == 0 && same_cut.messages_received == 0);

  // Cyclic to tiled: one message per peer that owns some of this locale's Cyclic elements,
  // carrying exactly those elements.
  dmap::forall(C_dom, [&](idx<2> i) { C.local(i) = -f(i); });
  std::set<int> peers;
  std::uint64_t elements = 0;
  for (const auto& s : C_dom.local_subdomains())
    for (const auto& i : kit::indices_of(s))
      for (int q = 0; q < p; ++q) {
        const auto tiles = T_dom.local_subdomains(q);
        if (q != me && std::any_of(tiles.begin(), tiles.end(), [&](const rect<2>& t) { return t.contains(i); }))
          peers.insert(q), ++elements;
      }
  dmap::barrier();
  dmap::reset_counters();
  T = C;
  const auto moved = dmap::counters();
  INFO("messages_sent " << moved.messages_sent << " (peers " << peers.size() << "), bytes_sent " << moved.bytes_sent
                        << " (elements " << elements << ")");
  DMAP_CHECK_ALL(moved.messages_sent == peers.size() && moved.bytes_sent == elements * sizeof(double));
  {
    bool ok = true;
    for (const auto& s : T_dom.local_subdomains())
      for (const auto& i : kit::indices_of(s)) ok = ok && T.local(i) == -f(i) && T2.local(i) == 3 * f(i);
    DMAP_CHECK_ALL(ok);
  }

  // Reductions against serial oracles: the same result on every locale.
  double sum = 0, dot = 0, least = 0;
  bool first = true;
  for (const auto& i : kit::indices_of(r)) {
    sum += -f(i);
    dot += -f(i) * 3 * f(i);
    least = first ? -f(i) : std::min(least, -f(i));
    first = false;
  }
  const double got_sum = dmap::reduce(T, 0.0);
  const double got_dot = dmap::reduce(dmap::zip(T, B), 0.0, std::plus<>{}, [](double t, double b) { return t * b; });
  const double got_min = dmap::reduce(T, 1e300, dmap::minimum{});
  DMAP_CHECK_ALL(got_sum == sum && got_dot == dot && got_min == least);

  // Tiles are not ghost frames: a halo update is refused on every locale.
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([&] { dmap::update_halos(T); },
                                                                    "whose layouts hold no ghost cells"));
  // A body that throws on one locale's index fails the loop on every locale.
  const idx<2> last_index{20, 19};
  bool threw = false;
  try {
    dmap::forall(T_dom, [&](idx<2> i) {
      if (i == last_index) throw dmap::argument_error("the body refuses " + std::to_string(i[0]));
    });
  } catch (const dmap::error&) {
    threw = true;
  }
  DMAP_CHECK_ALL(threw);
  // A reduction whose operation throws on one locale's partial result fails on every locale.
  threw = false;
  try {
    (void)dmap::reduce(T, 0.0, [me, p](double a, double b) {
      if (me == p - 1) throw std::runtime_error("the operation refuses");
      return a + b;
    });
  } catch (const std::exception&) {
    threw = true;
  }
  DMAP_CHECK_ALL(threw);
  // A grid that does not hold the locales is refused on every locale (Block's rule).
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>(
      [&] {
        std::array<int, 2> shape{p + 1, 1};
        const dmap::domain<2> bad{user_layouts::tiled_block<2>(dmap::tiled_layout<2>({2, 2}), dmap::target_grid<2>(shape)), r};
      },
      "grid"));
}

TEST_CASE("conformance kit: Block's cut stored as tiles (a user layout) passes on random shapes and grids",
          "[layouts][conformance]") {
  kit::options<1> o1;
  o1.random_cases = 10;
  require_passed(kit::check<1>("tiled_block", [](const rect<1>&, kit::random_engine& g, const dmap::target_grid<1>& grid) {
    return user_layouts::tiled_block<1>(dmap::tiled_layout<1>({draw(g, 8, 40)}, random_order(g)), grid);
  }, o1));
  kit::options<2> o2;
  o2.random_cases = 10;
  require_passed(kit::check<2>("tiled_block", [](const rect<2>&, kit::random_engine& g, const dmap::target_grid<2>& grid) {
    return user_layouts::tiled_block<2>(dmap::tiled_layout<2>({draw(g, 2, 6), draw(g, 2, 6)}, random_order(g)), grid);
  }, o2));
  kit::options<3> o3;
  o3.random_cases = 8;
  require_passed(kit::check<3>("tiled_block", [](const rect<3>&, kit::random_engine& g, const dmap::target_grid<3>& grid) {
    return user_layouts::tiled_block<3>(
        dmap::tiled_layout<3>({draw(g, 2, 4), draw(g, 2, 4), draw(g, 2, 4)}, random_order(g)), grid);
  }, o3));
}

TEST_CASE("conformance kit: padded rows pass with options.gaps_allowed, and only with it", "[layouts][conformance]") {
  kit::options<2> o;
  o.random_cases = 8;
  o.large_case = false;
  o.gaps_allowed = true;
  // A user map storing Block's chunks with rows padded by 1-3 elements, and the library's
  // Block asked for the same.
  const auto padded = [](kit::random_engine& g) {
    return dmap::dense_order_layout<2>(random_order(g), dmap::row_padding::fixed(draw(g, 1, 3)));
  };
  require_passed(kit::check<2>("block_with_layout(dense, padded rows)",
                               [&](const rect<2>&, kit::random_engine& g, const dmap::target_grid<2>& grid) {
                                 return user_layouts::block_with_layout<2, dmap::dense_order_layout<2>>(padded(g), grid);
                               }, o));
  require_passed(kit::check<2>("block(padded rows)", [&](const rect<2>&, kit::random_engine& g,
                                                          const dmap::target_grid<2>& grid) {
    const auto l = padded(g);
    return dmap::block<2>(grid, l.order(), l.padding());
  }, o));
  // Without the option, the same map fails the compactness rule of check 3 (its chunks have
  // more than one row somewhere in these cases), on every locale alike.
  o.gaps_allowed = false;
  const kit::result strict = kit::check<2>("block(padded rows), compact asked", [](const rect<2>&, kit::random_engine&) {
    return dmap::block<2>(dmap::target_grid<2>{}, storage_order::row_major, dmap::row_padding::fixed(2));
  }, o);
  const kit::check_outcome* c = strict.find("3. layouts: offsets distinct, in the buffer, compact");
  DMAP_REQUIRE_ALL(c != nullptr);
  DMAP_CHECK_ALL(!c->ok() && c->first_failure.find("not compact") != std::string::npos);
  // And a map storing its chunks in product_layout passes as it is (one piece per locale).
  o.large_case = true;
  require_passed(kit::check<2>("block_with_layout(product)", [](const rect<2>&, kit::random_engine& g) {
    return user_layouts::block_with_layout<2, dmap::product_layout<2>>(dmap::product_layout<2>(random_order(g)));
  }, o));
}

}  // namespace test_local_layouts
