// The __partitioned__ protocol (interop/partitioned.hpp): the draft's three examples
// reproduced exactly (each on the process count it is written for; on any other count its
// test returns early, passing), scaled variants of each on 1-4 locales, every formula map
// (strided and backwards domains included) checked against a brute-force oracle, get
// checked against values and against the communication counters, the JSON text, and the
// import of descriptions into arrays that adopt the partitions, with every error path.
//
// Oracle: the element at positions p holds value_at(p), written through each locale's local
// blocks. A tile's expected owners are the locales q whose D.local_subdomains(q) contain its
// indices, found element by element; its elements are read through `data` and `strides`.
#include "../support.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../maps_2d.hpp"

namespace test_partitioned {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

template <std::size_t N>
using position = std::array<index_t, N>;

// The value the oracle stores at positions p.
template <std::size_t N>
double value_at(const position<N>& p) {
  double v = 0;
  for (std::size_t d = 0; d < N; ++d) v = v * 1000.0 + static_cast<double>(p[d]);
  return v;
}

// The positions of index i in the domain's whole rect.
template <std::size_t N>
position<N> positions_of(const rect<N>& whole, const idx<N>& i) {
  position<N> p{};
  for (std::size_t d = 0; d < N; ++d) p[d] = whole.dim(d).order_of(i[d]);
  return p;
}

// The index at positions p.
template <std::size_t N>
idx<N> index_at(const rect<N>& whole, const position<N>& p) {
  idx<N> i;
  for (std::size_t d = 0; d < N; ++d) i[d] = whole.dim(d).index_at(p[d]);
  return i;
}

// Collective: writes value_at into every element each locale owns (its copy, for copies).
template <std::size_t N>
void fill(dmap::array<double, N>& A) {
  const auto& whole = A.domain().indices();
  const auto& owned = A.domain().local_subdomains();
  for (std::size_t b = 0; b < owned.size(); ++b)
    for (index_t k = 0; k < owned[b].size(); ++k) {
      const idx<N> i = owned[b].index_at(k);
      A.local_blocks()[b](i) = value_at<N>(positions_of<N>(whole, i));
    }
  dmap::barrier();  // before any locale reads another's elements
}

// Calls f(p) for every position of a box (start, shape), row-major.
template <std::size_t N, class F>
void for_each_position(const position<N>& start, const position<N>& shape, F&& f) {
  index_t count = 1;
  for (std::size_t d = 0; d < N; ++d) count *= shape[d];
  position<N> p = start;
  for (index_t k = 0; k < count; ++k) {
    f(p);
    for (std::size_t d = N; d-- > 0;) {
      if (++p[d] < start[d] + shape[d]) break;
      p[d] = start[d];
    }
  }
}

template <class T>
std::string text_of(const T& values) {
  std::ostringstream s;
  s << '[';
  for (const auto& v : values) s << v << ' ';
  s << ']';
  return s.str();
}

// The failures of `P` against the brute-force oracle for `A` (filled by fill()); "" when none.
// E is double (a writable description) or const double (a const array's).
template <std::size_t N, class E>
std::string check_structure(const dmap::array<double, N>& A, const dmap::partitioned<E, N>& P) {
  std::ostringstream fail;
  const auto& D = A.domain();
  const auto& whole = D.indices();
  if (P.shape != D.shape()) fail << "shape " << text_of(P.shape) << " != " << text_of(D.shape()) << "; ";
  if (P.source != &A) fail << "source is not the array; ";
  std::size_t tiles = 1;
  for (std::size_t d = 0; d < N; ++d) tiles *= static_cast<std::size_t>(P.partition_tiling[d]);
  if (P.partitions.size() != tiles) fail << P.partitions.size() << " partitions for tiling " << text_of(P.partition_tiling) << "; ";
  // Coverage: every position in exactly one tile; the tiles of one grid row/column agree.
  std::vector<int> cover(static_cast<std::size_t>(D.size()), 0);
  std::vector<position<N>> tile_of(cover.size());
  std::vector<position<N>> expected_locals;
  for (const auto& [t, tile] : P.partitions) {
    for (std::size_t d = 0; d < N; ++d) {
      if (t[d] < 0 || t[d] >= P.partition_tiling[d]) fail << "key " << text_of(t) << " outside the tiling; ";
      position<N> edge = t;
      for (std::size_t e = 0; e < N; ++e) if (e != d) edge[e] = 0;
      const auto found = P.partitions.find(edge);
      if (found == P.partitions.end() || found->second.start[d] != tile.start[d] || found->second.shape[d] != tile.shape[d])
        fail << "tile " << text_of(t) << " is off the grid along dimension " << d << "; ";
      if (tile.shape[d] < 1) fail << "tile " << text_of(t) << " is empty; ";
    }
    for_each_position<N>(tile.start, tile.shape, [&](const position<N>& p) {
      const index_t order = whole.order_of(index_at<N>(whole, p));
      if (order < 0 || order >= D.size()) {
        fail << "tile " << text_of(t) << " reaches outside; ";
        return;
      }
      ++cover[static_cast<std::size_t>(order)];
      tile_of[static_cast<std::size_t>(order)] = t;
    });
    const bool mine = std::find(tile.location.begin(), tile.location.end(), dmap::here()) != tile.location.end();
    if (mine) expected_locals.push_back(t);
    if (mine != (tile.data != nullptr)) fail << "tile " << text_of(t) << " data " << (mine ? "null" : "set") << "; ";
    if (!std::is_sorted(tile.location.begin(), tile.location.end())) fail << "location unsorted; ";
    if (tile.data == nullptr) continue;
    for_each_position<N>(tile.start, tile.shape, [&](const position<N>& p) {
      index_t offset = 0;
      for (std::size_t d = 0; d < N; ++d) offset += (p[d] - tile.start[d]) * tile.strides[d];
      if (tile.data[offset] != value_at<N>(p)) fail << "tile " << text_of(t) << " data at " << text_of(p) << " wrong; ";
    });
  }
  if (P.locals != expected_locals) fail << "locals " << P.locals.size() << " != " << expected_locals.size() << "; ";
  // Owners, element by element.
  std::vector<std::vector<rect<N>>> pieces;
  for (int q = 0; q < dmap::num_locales(); ++q) pieces.push_back(D.local_subdomains(q));
  for (index_t k = 0; k < D.size(); ++k) {
    if (cover[static_cast<std::size_t>(k)] != 1) {
      fail << "order " << k << " covered " << cover[static_cast<std::size_t>(k)] << " times; ";
      continue;
    }
    const idx<N> i = whole.index_at(k);
    std::vector<int> owners;
    for (int q = 0; q < dmap::num_locales(); ++q)
      for (const auto& r : pieces[static_cast<std::size_t>(q)])
        if (r.contains(i)) {
          owners.push_back(q);
          break;
        }
    if (P.partitions.at(tile_of[static_cast<std::size_t>(k)]).location != owners)
      fail << "order " << k << ": location " << text_of(P.partitions.at(tile_of[static_cast<std::size_t>(k)]).location)
           << " != owners " << text_of(owners) << "; ";
  }
  // get, every tile at once.
  std::vector<position<N>> all;
  for (const auto& entry : P.partitions) all.push_back(entry.first);
  const auto got = P.get(all);
  for (std::size_t n = 0; n < all.size(); ++n) {
    const auto& tile = P.partitions.at(all[n]);
    std::vector<double> want;
    for_each_position<N>(tile.start, tile.shape, [&](const position<N>& p) { want.push_back(value_at<N>(p)); });
    if (got[n] != want) fail << "get " << text_of(all[n]) << " wrong; ";
  }
  return fail.str();
}

// A pointer as the JSON text gives it.
std::string pointer_text(const double* p) {
  return p == nullptr ? "null" : std::to_string(reinterpret_cast<std::uintptr_t>(p));
}

using dmap::testing::throws_with;

}  // namespace

// ------------------------------------------------------------------ the draft's examples

TEST_CASE("Partitioned example 1: 1-D, 64 elements, 4 partitions on 4 ranks, blocked", "[partitioned]") {
  if (dmap::num_locales() != 4) return;
  const dmap::domain<1> D{dmap::block<1>{}, rect<1>{range{0, 64}}};
  dmap::array<double, 1> A(D);
  fill(A);
  const auto P = dmap::partitioned_export(A);
  DMAP_CHECK_ALL((P.shape == position<1>{64} && P.partition_tiling == position<1>{4}));
  std::string expected_json = "{\"shape\": [64], \"partition_tiling\": [4], \"partitions\": {";
  bool ok = P.partitions.size() == 4;
  for (index_t k = 0; k < 4; ++k) {
    const auto& tile = P.partitions.at({k});
    ok = ok && tile.start == position<1>{16 * k} && tile.shape == position<1>{16} &&
         tile.location == std::vector<int>{static_cast<int>(k)} && (tile.data != nullptr) == (k == dmap::here());
    expected_json += std::string(k ? ", " : "") + "\"(" + std::to_string(k) + ",)\": {\"start\": [" +
                     std::to_string(16 * k) + "], \"shape\": [16], \"data\": " + pointer_text(tile.data) +
                     ", \"strides\": [" + (tile.data ? "1" : "0") + "], \"location\": [" + std::to_string(k) + "]}";
  }
  expected_json += "}, \"locals\": [[" + std::to_string(dmap::here()) + "]]}";
  DMAP_CHECK_ALL(ok);
  DMAP_CHECK_ALL((P.locals == std::vector<position<1>>{{dmap::here()}}));
  INFO(dmap::to_json(P));
  DMAP_CHECK_ALL(dmap::to_json(P) == expected_json);
  // 'get': lambda x: ray.get(x) -- every partition's elements, wherever they live.
  bool values = true;
  for (index_t k = 0; k < 4; ++k) {
    const auto got = P.get(position<1>{k});
    for (index_t j = 0; j < 16; ++j) values = values && got[static_cast<std::size_t>(j)] == static_cast<double>(16 * k + j);
  }
  DMAP_CHECK_ALL(values);
  CHECK_NO_FAILURE(check_structure(A, P));
}

TEST_CASE("Partitioned example 2: 2-D 8x8, 2x2 tiles on 4 workers, block-cyclic", "[partitioned]") {
  if (dmap::num_locales() != 4) return;
  const dmap::domain<2> D{dmap::block_cyclic<2>{{4, 4}, dmap::target_grid<2>{{2, 2}}}, rect<2>{range{0, 8}, range{0, 8}}};
  dmap::array<double, 2> A(D);
  fill(A);
  const auto P = dmap::partitioned_export(A);
  DMAP_CHECK_ALL((P.shape == position<2>{8, 8} && P.partition_tiling == position<2>{2, 2}));
  // The draft's four partitions, each on a worker of its own; dmap's grid is in C order.
  const std::map<position<2>, std::pair<position<2>, int>> draft{
      {{1, 1}, {{4, 4}, 3}}, {{1, 0}, {{4, 0}, 2}}, {{0, 1}, {{0, 4}, 1}}, {{0, 0}, {{0, 0}, 0}}};
  bool ok = P.partitions.size() == draft.size();
  for (const auto& [t, want] : draft) {
    const auto& tile = P.partitions.at(t);
    ok = ok && tile.start == want.first && tile.shape == position<2>{4, 4} && tile.location == std::vector<int>{want.second} &&
         (tile.data != nullptr) == (want.second == dmap::here());
  }
  DMAP_CHECK_ALL(ok);
  const position<2> mine{dmap::here() / 2, dmap::here() % 2};
  DMAP_CHECK_ALL((P.locals == std::vector<position<2>>{mine}));
  // 'get': lambda x: distributed.get_client().gather(x) -- all four at once.
  const auto got = P.get(std::vector<position<2>>{{1, 1}, {1, 0}, {0, 1}, {0, 0}});
  bool values = got.size() == 4;
  for (std::size_t n = 0; n < got.size(); ++n) {
    const position<2> start = draft.at(std::vector<position<2>>{{1, 1}, {1, 0}, {0, 1}, {0, 0}}[n]).first;
    for (index_t r = 0; r < 4; ++r)
      for (index_t c = 0; c < 4; ++c)
        values = values && got[n][static_cast<std::size_t>(4 * r + c)] == value_at<2>({start[0] + r, start[1] + c});
  }
  DMAP_CHECK_ALL(values);
  CHECK_NO_FAILURE(check_structure(A, P));
}

TEST_CASE("Partitioned example 3: 2-D 8x8, 4x1 tiles on 2 ranks, row-block-cyclic", "[partitioned]") {
  if (dmap::num_locales() != 2) return;
  const dmap::domain<2> D{dmap::block_cyclic<2>{{2, 8}, dmap::target_grid<2>{{2, 1}}}, rect<2>{range{0, 8}, range{0, 8}}};
  dmap::array<double, 2> A(D);
  fill(A);
  const auto P = dmap::partitioned_export(A);
  DMAP_CHECK_ALL((P.shape == position<2>{8, 8} && P.partition_tiling == position<2>{4, 1}));
  std::string expected_json = "{\"shape\": [8, 8], \"partition_tiling\": [4, 1], \"partitions\": {";
  bool ok = P.partitions.size() == 4;
  for (index_t k = 0; k < 4; ++k) {
    const auto& tile = P.partitions.at({k, 0});
    const int owner = static_cast<int>(k % 2);
    ok = ok && tile.start == position<2>{2 * k, 0} && tile.shape == position<2>{2, 8} &&
         tile.location == std::vector<int>{owner} && (tile.data != nullptr) == (owner == dmap::here());
    // 'data': ary0 on rank 0 (None on rank 1), ary1 on rank 1, ...: rows of 8 in one local buffer.
    if (tile.data != nullptr) ok = ok && tile.data == A.local_data() + 16 * (k / 2) && tile.strides == position<2>{8, 1};
    expected_json += std::string(k ? ", " : "") + "\"(" + std::to_string(k) + ", 0)\": {\"start\": [" +
                     std::to_string(2 * k) + ", 0], \"shape\": [2, 8], \"data\": " + pointer_text(tile.data) +
                     ", \"strides\": [" + (tile.data ? "8, 1" : "0, 0") + "], \"location\": [" + std::to_string(owner) + "]}";
  }
  DMAP_CHECK_ALL(ok);
  // 'locals': [(0,0), (2,0)] on rank 0, [(1,0), (3,0)] on rank 1.
  const std::vector<position<2>> locals =
      dmap::here() == 0 ? std::vector<position<2>>{{0, 0}, {2, 0}} : std::vector<position<2>>{{1, 0}, {3, 0}};
  DMAP_CHECK_ALL(P.locals == locals);
  expected_json += dmap::here() == 0 ? "}, \"locals\": [[0, 0], [2, 0]]}" : "}, \"locals\": [[1, 0], [3, 0]]}";
  INFO(dmap::to_json(P));
  DMAP_CHECK_ALL(dmap::to_json(P) == expected_json);
  // 'get': lambda x: x -- the local ones are the arrays themselves; get reads any.
  bool values = true;
  for (index_t k = 0; k < 4; ++k) {
    const auto got = P.get({k, 0});
    for (index_t j = 0; j < 16; ++j) values = values && got[static_cast<std::size_t>(j)] == value_at<2>({2 * k + j / 8, j % 8});
  }
  DMAP_CHECK_ALL(values);
  CHECK_NO_FAILURE(check_structure(A, P));
}

// ------------------------------------------------------------------ scaled variants

TEST_CASE("Partitioned example 1 scaled: 16 elements per locale, blocked, on any locale count", "[partitioned]") {
  const int p = dmap::num_locales();
  const dmap::domain<1> D{dmap::block<1>{}, rect<1>{range{0, 16 * p}}};
  dmap::array<double, 1> A(D);
  fill(A);
  const auto P = dmap::partitioned_export(A);
  bool ok = P.partition_tiling == position<1>{p} && P.partitions.size() == static_cast<std::size_t>(p);
  for (index_t k = 0; k < p && ok; ++k) {
    const auto& tile = P.partitions.at({k});
    ok = tile.start == position<1>{16 * k} && tile.shape == position<1>{16} && tile.location == std::vector<int>{static_cast<int>(k)};
  }
  DMAP_CHECK_ALL(ok);
  DMAP_CHECK_ALL((P.locals == std::vector<position<1>>{{dmap::here()}}));
  CHECK_NO_FAILURE(check_structure(A, P));
}

TEST_CASE("Partitioned example 2 scaled: 4x4 blocks dealt twice round a 2-D grid", "[partitioned]") {
  const dmap::target_grid<2> grid{};
  const index_t g0 = grid.extent(0), g1 = grid.extent(1);
  const dmap::domain<2> D{dmap::block_cyclic<2>{{4, 4}, grid}, rect<2>{range{0, 8 * g0}, range{0, 8 * g1}}};
  dmap::array<double, 2> A(D);
  fill(A);
  const auto P = dmap::partitioned_export(A);
  // Along a dimension with one locale, its blocks follow each other: one piece, one tile.
  const position<2> tiling{g0 == 1 ? 1 : 2 * g0, g1 == 1 ? 1 : 2 * g1};
  const position<2> side{8 * g0 / tiling[0], 8 * g1 / tiling[1]};
  bool ok = P.partition_tiling == tiling;
  std::vector<position<2>> locals;
  for (const auto& [t, tile] : P.partitions) {
    const int owner = grid.locale_at({static_cast<int>(t[0] % g0), static_cast<int>(t[1] % g1)});
    ok = ok && tile.start == position<2>{side[0] * t[0], side[1] * t[1]} && tile.shape == side &&
         tile.location == std::vector<int>{owner};
    if (owner == dmap::here()) locals.push_back(t);
  }
  DMAP_CHECK_ALL(ok);
  DMAP_CHECK_ALL(P.locals == locals);
  CHECK_NO_FAILURE(check_structure(A, P));
}

TEST_CASE("Partitioned example 3 scaled: row-block-cyclic, two row blocks per locale", "[partitioned]") {
  const int p = dmap::num_locales();
  const dmap::domain<2> D{dmap::block_cyclic<2>{{2, 8}, dmap::target_grid<2>{{p, 1}}}, rect<2>{range{0, 4 * p}, range{0, 8}}};
  dmap::array<double, 2> A(D);
  fill(A);
  const auto P = dmap::partitioned_export(A);
  // One locale keeps its blocks as one run of rows: a single tile.
  const index_t tiles = p == 1 ? 1 : 2 * p;
  bool ok = P.partition_tiling == position<2>{tiles, 1};
  std::vector<position<2>> locals;
  for (const auto& [t, tile] : P.partitions) {
    const int owner = static_cast<int>(t[0] % p);
    ok = ok && tile.start == position<2>{4 * p / tiles * t[0], 0} && tile.shape == position<2>{4 * p / tiles, 8} &&
         tile.location == std::vector<int>{owner};
    if (owner == dmap::here()) locals.push_back(t);
  }
  DMAP_CHECK_ALL(ok);
  DMAP_CHECK_ALL(P.locals == locals);
  CHECK_NO_FAILURE(check_structure(A, P));
}

// ------------------------------------------------------------------ every map

TEST_CASE("Partitioned export: every formula map, strided and backwards domains, against the oracle", "[partitioned]") {
  const std::vector<rect<2>> rects{rect<2>{range{0, 13}, range{-2, 7}}, rect<2>{range{1, 20, 3}, range{0, 10, -2}},
                                   rect<2>{range{-5, 30}, range{0, 40, -3}}, rect<2>{range{0, 3}, range{0, 0}}};
  for (const auto& m : dmap::testing::maps::makers()) {
    for (const auto& r : rects) {
      INFO(m.name << " over " << r);
      const auto D = m.make(r);
      dmap::array<double, 2> A(D);
      if (m.directory) {
        CHECK_NO_FAILURE(throws_with<dmap::unsupported_error>([&] { (void)dmap::partitioned_export(A); },
                                                                    "through a directory"));
        continue;
      }
      fill(A);
      const auto P = dmap::partitioned_export(A);
      CHECK_NO_FAILURE(check_structure(A, P));
    }
  }
  // Dimensional with a replicated dimension: copies along it, several locations per tile.
  const dmap::domain<2> D{dmap::dimensional<2>({dmap::block_dim{}, dmap::replicated_dim{}}, dmap::target_grid<2>{}),
                          rect<2>{range{0, 9}, range{0, 5}}};
  dmap::array<double, 2> A(D);
  fill(A);
  const auto P = dmap::partitioned_export(A);
  CHECK_NO_FAILURE(check_structure(A, P));
  // 1-D and 3-D.
  const dmap::domain<1> D1{dmap::cyclic<1>{}, rect<1>{range{3, 40, 2}}};
  dmap::array<double, 1> A1(D1);
  fill(A1);
  CHECK_NO_FAILURE(check_structure(A1, dmap::partitioned_export(A1)));
  const dmap::domain<3> D3{dmap::block_cyclic<3>{{2, 3, 1}}, rect<3>{range{0, 5}, range{0, 7}, range{0, 3}}};
  dmap::array<double, 3> A3(D3);
  fill(A3);
  CHECK_NO_FAILURE(check_structure(A3, dmap::partitioned_export(A3)));
}

TEST_CASE("Partitioned get: one message per remote partition, none for a local one", "[partitioned]") {
  const int p = dmap::num_locales();
  const dmap::domain<2> D{dmap::block_cyclic<2>{{2, 8}, dmap::target_grid<2>{{p, 1}}}, rect<2>{range{0, 4 * p}, range{0, 8}}};
  dmap::array<double, 2> A(D);
  fill(A);
  const auto P = dmap::partitioned_export(A);
  dmap::barrier();
  std::string failures;
  for (const auto& [t, tile] : P.partitions) {
    dmap::reset_counters();
    const auto got = P.get(t);
    const auto c = dmap::counters();
    const bool remote = tile.data == nullptr;
    const std::uint64_t bytes = static_cast<std::uint64_t>(got.size() * sizeof(double));
    if (c.messages_received != (remote ? 1u : 0u) || c.bytes_received != (remote ? bytes : 0u) || c.messages_sent != 0)
      failures += "tile " + text_of(t) + ": " + std::to_string(c.messages_received) + " messages received; ";
    for (std::size_t j = 0; j < got.size(); ++j)
      if (got[j] != value_at<2>({tile.start[0] + static_cast<index_t>(j) / 8, static_cast<index_t>(j) % 8}))
        failures += "tile " + text_of(t) + " value; ";
  }
  // Every tile at once: one message per other locale.
  std::vector<position<2>> all;
  for (const auto& entry : P.partitions) all.push_back(entry.first);
  dmap::reset_counters();
  (void)P.get(all);
  if (dmap::counters().messages_received != static_cast<std::uint64_t>(p - 1))
    failures += "all tiles: " + std::to_string(dmap::counters().messages_received) + " messages received; ";
  dmap::barrier();
  CHECK_NO_FAILURE(failures);
}

TEST_CASE("Partitioned export: refusals", "[partitioned]") {
  const rect<2> r{range{0, 6}, range{0, 4}};
  dmap::array<double, 2> H(dmap::domain<2>{dmap::hashed<2>{}, r});
  CHECK_NO_FAILURE(throws_with<dmap::unsupported_error>([&] { (void)dmap::partitioned_export(H); },
                                                              "dmap::partitioned_export: hashed"));
  dmap::array<double, 2> A(dmap::domain<2>{dmap::block<2>{}, r});
  auto P = dmap::partitioned_export(A);
  CHECK_NO_FAILURE(throws_with<dmap::out_of_bounds_error>([&] { (void)P.get({5, 0}); },
                                                                "position (5, 0) is not a partition's"));
  P.source = nullptr;
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { (void)P.get({0, 0}); }, "source is null"));
  dmap::array<double, 2> B(std::move(A));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { (void)dmap::partitioned_export(A); }, "moved from"));
}


// ------------------------------------------------------------------ import

namespace {

// The failures of B, imported from A's description P, against A: adopted without a copy
// (each local tile's first element is B's), no payload sent, the same values.
std::string check_import(const dmap::array<double, 2>& A, const dmap::partitioned<double, 2>& P,
                         const dmap::array<double, 2>& B, const dmap::comm_counters& spent) {
  std::ostringstream fail;
  if (!B.adopted()) fail << "not adopted; ";
  if (B.domain().shape() != A.domain().shape()) fail << "shape; ";
  if (spent.messages_sent != 0 || spent.messages_received != 0) fail << "messages moved; ";
  for (const auto& t : P.locals) {
    const auto& tile = P.partitions.at(t);
    if (&B.local(idx<2>(tile.start)) != tile.data) fail << "tile " << text_of(t) << " copied; ";
  }
  const auto Q = dmap::partitioned_export(B);
  fail << check_structure(B, Q);
  return fail.str();
}

// A 1-D description of 16 positions per locale, blocked (example 1 scaled), by hand:
// this locale's tile in `mine`.
dmap::partitioned<double, 1> by_hand(std::vector<double>& mine) {
  const index_t p = dmap::num_locales();
  mine.assign(16, 0.0);
  for (index_t j = 0; j < 16; ++j) mine[static_cast<std::size_t>(j)] = value_at<1>({16 * dmap::here() + j});
  dmap::partitioned<double, 1> x;
  x.shape = {16 * p};
  x.partition_tiling = {p};
  for (index_t k = 0; k < p; ++k)
    x.partitions[{k}] = {{16 * k}, {16}, k == dmap::here() ? mine.data() : nullptr, {1}, {static_cast<int>(k)}};
  x.locals = {{dmap::here()}};
  return x;
}

}  // namespace

TEST_CASE("Partitioned import: exported arrays come back as adopted arrays, or are refused by name", "[partitioned]") {
  const int p = dmap::num_locales();
  const rect<2> r{range{0, 13}, range{-2, 7}};
  // What each map's description becomes: "" a refusal is not expected.
  const std::map<std::string, std::string> refusal{
      {"replicated", p > 1 ? "copies" : ""}, {"stencil(1)", ".strides[0] is"}};
  for (const auto& m : dmap::testing::maps::makers()) {
    if (m.directory) continue;
    INFO(m.name);
    dmap::array<double, 2> A(m.make(r));
    fill(A);
    const auto P = dmap::partitioned_export(A);
    const auto expected = refusal.count(m.name) ? refusal.at(m.name) : std::string();
    if (!expected.empty()) {
      CHECK_NO_FAILURE(throws_with<dmap::unsupported_error>([&] { (void)dmap::partitioned_import(P); }, expected));
      continue;
    }
    dmap::reset_counters();
    const auto B = dmap::partitioned_import(P);
    const auto spent = dmap::counters();
    CHECK_NO_FAILURE(check_import(A, P, B, spent));
    // Block's cuts come back as Block, other cuts of one tile per locale as Irregular Block.
    if (m.name == "block") DMAP_CHECK_ALL(B.domain().name().rfind("block(grid", 0) == 0);
    if (m.name == "irregular" && p > 1) DMAP_CHECK_ALL(B.domain().name().find("irregular(") != std::string::npos);
  }
}

TEST_CASE("Partitioned import: the maps chosen for the draft's tilings", "[partitioned]") {
  const int p = dmap::num_locales();
  // Example 1 scaled: Block.
  std::vector<double> mine;
  const auto x = by_hand(mine);
  const auto B = dmap::partitioned_import(x);
  DMAP_CHECK_ALL((B.domain().name().rfind("block(grid", 0) == 0 && B.local_data() == mine.data() && B.adopted()));
  // Example 3 scaled: rows of 8 in blocks of 2 dealt round p locales, each locale's two
  // tiles one after the other in one buffer: Block Cyclic (Block on one locale).
  std::vector<double> rows(32);
  dmap::partitioned<double, 2> y;
  y.shape = {4 * p, 8};
  y.partition_tiling = {2 * p, 1};
  for (index_t k = 0; k < y.partition_tiling[0]; ++k) {
    const int owner = static_cast<int>(k % p);
    const index_t height = 2;
    double* data = owner == dmap::here() ? rows.data() + 16 * (k / p) : nullptr;
    y.partitions[{k, 0}] = {{height * k, 0}, {height, 8}, data, {8, 1}, {owner}};
    if (owner == dmap::here()) y.locals.push_back({k, 0});
    for (index_t j = 0; data != nullptr && j < 8 * height; ++j) data[j] = value_at<2>({height * k + j / 8, j % 8});
  }
  const auto C = dmap::partitioned_import(y);
  INFO(C.domain().name());
  DMAP_CHECK_ALL((C.adopted() && C.local_data() == rows.data()));
  if (p > 1) DMAP_CHECK_ALL(C.domain().name().find("block_cyclic") != std::string::npos);
  CHECK_NO_FAILURE(check_structure(C, dmap::partitioned_export(C)));
  // The same tiles in separate buffers (a gap between them): no dmap map keeps them so.
  std::vector<double> apart(48);
  auto z = y;
  for (const auto& t : z.locals) z.partitions.at(t).data = apart.data() + 24 * (t[0] / p);
  CHECK_NO_FAILURE(throws_with<dmap::unsupported_error>([&] { (void)dmap::partitioned_import(z); },
                                                              "the partitions must sit where"));
}

TEST_CASE("Partitioned import: inconsistent descriptions fail on every locale, naming the field", "[partitioned]") {
  const int p = dmap::num_locales();
  const int last = p - 1;
  std::vector<double> mine;
  const auto base = by_hand(mine);
  using edit = std::function<void(dmap::partitioned<double, 1>&)>;
  const auto expect_argument = [&](const edit& change, const std::string& needle) {
    auto x = base;
    change(x);
    return throws_with<dmap::argument_error>([&] { (void)dmap::partitioned_import(x); }, needle);
  };
  CHECK_NO_FAILURE(expect_argument([](auto& x) { x.shape = {-1}; }, "shape[0] is -1; it must be >= 0"));
  CHECK_NO_FAILURE(expect_argument([&](auto& x) { x.partition_tiling = {p + 1}; },
                                   "partitions is " + std::to_string(p) + " entries; it must be one entry per tile"));
  CHECK_NO_FAILURE(expect_argument([](auto& x) { x.partition_tiling = {0}; }, "partition_tiling[0] is 0"));
  CHECK_NO_FAILURE(expect_argument([&](auto& x) { x.partitions.erase({last}); }, "it must be one entry per tile"));
  CHECK_NO_FAILURE(expect_argument(
      [&](auto& x) {
        auto node = x.partitions.extract({last});
        node.key() = {p};
        x.partitions.insert(std::move(node));
      },
      "the key (" + std::to_string(p) + ",) of partitions is outside partition_tiling"));
  if (p > 1)
    CHECK_NO_FAILURE(expect_argument([](auto& x) { x.partitions.at({1}).start = {15}; },
                                     "partitions[(1,)].start[0] is 15; it must be 16"));
  CHECK_NO_FAILURE(expect_argument([&](auto& x) { x.partitions.at({last}).shape = {17}; },
                                   "partitions[(" + std::to_string(last) + ",)].shape[0] is 17"));
  CHECK_NO_FAILURE(expect_argument([&](auto& x) { x.shape = {16 * p + 1}; },
                                   "the tiles cover the array"));
  CHECK_NO_FAILURE(expect_argument([&](auto& x) { x.partitions.at({0}).location = {p}; },
                                   "partitions[(0,)].location[0] is " + std::to_string(p) + "; it must be a locale in [0, "));
  CHECK_NO_FAILURE(expect_argument([](auto& x) { x.partitions.at({0}).location = {}; }, "partitions[(0,)].location is empty"));
  // On one locale only: its locals, its data.
  CHECK_NO_FAILURE(expect_argument([&](auto& x) { if (dmap::here() == last) x.locals.clear(); },
                                   "locals is [] on locale " + std::to_string(last)));
  CHECK_NO_FAILURE(expect_argument([&](auto& x) { if (dmap::here() == last) x.partitions.at({last}).data = nullptr; },
                                   "partitions[(" + std::to_string(last) + ",)].data is null on its location"));
  if (p > 1) {
    // Locale `last` alone says it holds tile 0 too: consistent there, not the same as elsewhere.
    CHECK_NO_FAILURE(expect_argument(
                         [&](auto& x) {
                           if (dmap::here() != last) return;
                           x.partitions.at({0}).location = {last};
                           x.partitions.at({0}).data = mine.data();
                           x.locals = {{0}, {last}};
                         },
                                     "the description on locale " + std::to_string(last) + " is different from locale 0's"));
  }
}

TEST_CASE("Partitioned import: 2-D tiles off the grid, and an empty array", "[partitioned]") {
  const int p = dmap::num_locales();
  // A 4x4 array in 2x2 tiles, all on locale 0, in one row-major buffer there.
  std::vector<double> buffer(16);
  dmap::partitioned<double, 2> x;
  x.shape = {4, 4};
  x.partition_tiling = {2, 2};
  for (index_t a = 0; a < 2; ++a)
    for (index_t b = 0; b < 2; ++b) {
      double* data = dmap::here() == 0 ? buffer.data() + 8 * a + 2 * b : nullptr;
      x.partitions[{a, b}] = {{2 * a, 2 * b}, {2, 2}, data, {4, 1}, {0}};
      if (dmap::here() == 0) x.locals.push_back({a, b});
    }
  const auto off_grid = [&](auto change, const std::string& needle) {
    auto y = x;
    change(y.partitions.at({1, 1}));
    return throws_with<dmap::argument_error>([&] { (void)dmap::partitioned_import(y); }, needle);
  };
  CHECK_NO_FAILURE(off_grid([](auto& tile) { tile.start = {1, 2}; },
                            "partitions[(1, 1)].start[0] is 1; it must be 2 (as every tile at grid coordinate 1"));
  CHECK_NO_FAILURE(off_grid([](auto& tile) { tile.shape = {2, 1}; },
                            "partitions[(1, 1)].shape[1] is 1; it must be 2 (as every tile at grid coordinate 1"));
  if (p == 1) {
    const auto B = dmap::partitioned_import(x);
    DMAP_CHECK_ALL((B.adopted() && B.local_data() == buffer.data()));
  } else {
    CHECK_NO_FAILURE(throws_with<dmap::unsupported_error>([&] { (void)dmap::partitioned_import(x); },
                                                                "no dmap map expresses the tiling (2, 2)"));
  }
  // No positions at all: no tiles, nothing adopted.
  dmap::partitioned<double, 2> none;
  none.shape = {3, 0};
  none.partition_tiling = {1, 0};
  const auto E = dmap::partitioned_import(none);
  DMAP_CHECK_ALL((E.domain().size() == 0 && E.domain().shape() == std::array<index_t, 2>{3, 0}));
}

TEST_CASE("Partitioned import: what no dmap map takes", "[partitioned]") {
  const int p = dmap::num_locales();
  std::vector<double> mine;
  auto x = by_hand(mine);
  // Copies: every tile on two locales.
  auto copies = x;
  for (auto& [t, tile] : copies.partitions) tile.location = {0, p - 1};
  CHECK_NO_FAILURE(throws_with<dmap::unsupported_error>([&] { (void)dmap::partitioned_import(copies); },
                                                              "location lists 2 locales"));
  if (p == 1) return;
  // Tiles dealt to the locales backwards: neither Block, Irregular Block nor Block Cyclic.
  auto backwards = x;
  for (auto& [t, tile] : backwards.partitions) {
    tile.location = {p - 1 - static_cast<int>(t[0])};
    tile.data = tile.location.front() == dmap::here() ? mine.data() : nullptr;
  }
  backwards.locals = {{p - 1 - dmap::here()}};
  CHECK_NO_FAILURE(throws_with<dmap::unsupported_error>([&] { (void)dmap::partitioned_import(backwards); },
                                                              "no dmap map expresses the tiling"));
}

TEST_CASE("Partitioned export: a const array's description is read-only and otherwise the same", "[partitioned]") {
  const rect<2> r{range{0, 9}, range{0, 5}};
  dmap::array<double, 2> A(dmap::domain<2>{dmap::block_cyclic<2>{{2, 2}}, r});
  fill(A);
  const dmap::array<double, 2>& read_only = A;
  const dmap::partitioned<const double, 2> P = dmap::partitioned_export(read_only);
  const dmap::partitioned<double, 2> Q = dmap::partitioned_export(A);
  CHECK_NO_FAILURE(check_structure(A, P));
  bool same = P.shape == Q.shape && P.partition_tiling == Q.partition_tiling && P.locals == Q.locals &&
              P.partitions.size() == Q.partitions.size() && to_json(P) == to_json(Q);
  for (const auto& [t, tile] : P.partitions) same = same && tile.data == Q.partitions.at(t).data;
  DMAP_CHECK_ALL(same);
  const std::vector<double> first = P.get(P.partitions.begin()->first);  // get gives plain elements
  DMAP_CHECK_ALL(first == Q.get(Q.partitions.begin()->first));
}

TEST_CASE("Partitioned locations: the draft's (IP, PID), read in any textual form", "[partitioned]") {
  const auto table = dmap::process_locations();  // collective
  const int p = dmap::num_locales();
  const int k = dmap::here();
  DMAP_REQUIRE_ALL(static_cast<int>(table.size()) == p);
  const dmap::process_location me = dmap::this_process_location();
  DMAP_CHECK_ALL((table[static_cast<std::size_t>(k)] == me && me.pid == static_cast<std::int64_t>(::getpid())));
  // Every address is canonical, the preferred one first (never loopback while another exists).
  bool canonical = true;
  for (const auto& a : me.addresses) canonical = canonical && dmap::canonical_ip_address(a) == a;
  DMAP_CHECK_ALL(canonical);
  const auto loopback = [](const std::string& a) { return a.rfind("127.", 0) == 0 || a == "::1"; };
  DMAP_CHECK_ALL((me.addresses.empty() || !loopback(me.address()) ||
                  std::all_of(me.addresses.begin(), me.addresses.end(), loopback)));
  // Every locale's address, host name and, for each address, other spellings name it. A
  // loopback address names any host's own: on one node the PID picks the process.
  const bool one_node = std::all_of(table.begin(), table.end(), [&](const auto& l) { return l.host == me.host; });
  std::string wrong;
  for (int q = 0; q < p; ++q) {
    const auto& l = table[static_cast<std::size_t>(q)];
    std::vector<std::string> spellings{l.address(), l.host};
    if (one_node) spellings.insert(spellings.end(), {"127.0.0.1", "127.0.1.1", "::1"});
    for (const auto& a : l.addresses) {
      spellings.push_back(a);
      if (a.find(':') != std::string::npos) {
        std::string upper = a;
        std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        spellings.push_back(upper);
        spellings.push_back(a + "%lo");  // a zone: ignored
      } else {
        spellings.push_back("::ffff:" + a);  // IPv4-mapped IPv6
      }
    }
    for (const auto& s : spellings)
      if (dmap::locale_of_location(table, s, l.pid) != q) wrong += s + " -> not locale " + std::to_string(q) + "; ";
  }
  INFO(wrong);
  DMAP_CHECK_ALL(wrong.empty());
  // Canonical forms, and host names (not written as an address) left alone.
  DMAP_CHECK_ALL(dmap::canonical_ip_address("0:0:0:0:0:FFFF:7F00:0001") == std::optional<std::string>("127.0.0.1"));
  DMAP_CHECK_ALL(dmap::canonical_ip_address("2001:DB8:0:0::0001") == std::optional<std::string>("2001:db8::1"));
  DMAP_CHECK_ALL(dmap::canonical_ip_address("FE80::1%eth0") == std::optional<std::string>("fe80::1"));
  DMAP_CHECK_ALL(dmap::canonical_ip_address("192.0.2.1") == std::optional<std::string>("192.0.2.1"));
  DMAP_CHECK_ALL(!dmap::canonical_ip_address("node-7.example").has_value());
  DMAP_CHECK_ALL(!dmap::canonical_ip_address("1234").has_value());
  // JSON with the draft's locations: [IP, PID] of the holding locale.
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, 4 * p)});
  dmap::array<double, 1> A(D, 1.0);
  const auto P = dmap::partitioned_export(A);
  const std::string text = dmap::to_json(P, table);
  const std::string mine = "\"location\": [[\"" + me.address() + "\", " + std::to_string(me.pid) + "]]";
  DMAP_CHECK_ALL(text.find(mine) != std::string::npos);
  DMAP_CHECK_ALL(dmap::to_json(P).find("\"location\": [" + std::to_string(k) + "]") != std::string::npos);
}

}  // namespace test_partitioned
