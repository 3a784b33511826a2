// DAP import (interop/dap_import.hpp, interop/dap_json.hpp): descriptions made here, by the
// protocol's definitions, become arrays adopting the buffers. Oracle: every buffer slot holds
// a formula of the global positions the description says it holds, so reading every index
// through the imported array checks the placement; exporting again must give back the same
// dictionaries. Then DAP 0.9's examples from their JSON, unequal and periodic padding with
// halo updates, descriptions that disagree across locales, and randomised descriptions
// (valid ones round-trip; mutated ones fail on every locale with a named error).
#include "../../examples/custom_dist/weighted_block.hpp"
#include "../../interop/dap_json.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace test_dap_import {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;

double value_at(index_t p0, index_t p1) { return 1000.0 * static_cast<double>(p0) + static_cast<double>(p1); }

// Collective: runs `f` on every locale; "" when it threw an exception of the dmap family
// whose message starts with "dmap::" everywhere, a description of what happened otherwise.
template <class F>
std::string fails_everywhere_named(F&& f) {
  try {
    f();
  } catch (const dmap::error& e) {
    const std::string what = e.what();
    return what.rfind("dmap::", 0) == 0 ? "" : "an unnamed message: " + what;
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
  return "no exception";
}

// One dimension of a 2-D test description, known to every locale: per grid coordinate, the
// positions it holds in buffer order, and the dictionary it gives.
struct axis {
  std::vector<std::vector<index_t>> held;
  std::vector<dmap::dap_dimension> dims;
};

axis block_axis(index_t n, const std::vector<index_t>& cuts) {  // cuts: G + 1 points, 0 ... n
  axis a;
  const int g = static_cast<int>(cuts.size()) - 1;
  for (int k = 0; k < g; ++k) {
    dmap::dap_dimension d;
    d.dist_type = 'b';
    d.size = n;
    d.proc_grid_size = g;
    d.proc_grid_rank = k;
    d.start = cuts[static_cast<std::size_t>(k)];
    d.stop = cuts[static_cast<std::size_t>(k) + 1];
    std::vector<index_t> h(static_cast<std::size_t>(d.stop - d.start));
    std::iota(h.begin(), h.end(), d.start);
    a.held.push_back(h);
    a.dims.push_back(d);
  }
  return a;
}

axis cyclic_axis(index_t n, int g, index_t block) {
  axis a;
  for (int k = 0; k < g; ++k) {
    dmap::dap_dimension d;
    d.dist_type = 'c';
    d.size = n;
    d.proc_grid_size = g;
    d.proc_grid_rank = k;
    d.block_size = block;
    d.start = k * block;
    std::vector<index_t> h;
    for (index_t p = 0; p < n; ++p)
      if ((p / block) % g == k) h.push_back(p);
    a.held.push_back(h);
    a.dims.push_back(d);
  }
  return a;
}

axis unstructured_axis(index_t n, int g, std::mt19937_64& rng) {
  std::vector<index_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::size_t> cuts{0, static_cast<std::size_t>(n)};
  for (int k = 1; k < g; ++k) cuts.push_back(static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(n + 1)));
  std::sort(cuts.begin(), cuts.end());
  axis a;
  for (int k = 0; k < g; ++k) {
    dmap::dap_dimension d;
    d.dist_type = 'u';
    d.size = n;
    d.proc_grid_size = g;
    d.proc_grid_rank = k;
    d.indices.assign(order.begin() + static_cast<std::ptrdiff_t>(cuts[static_cast<std::size_t>(k)]),
                     order.begin() + static_cast<std::ptrdiff_t>(cuts[static_cast<std::size_t>(k) + 1]));
    d.one_to_one = true;
    a.held.push_back(d.indices);
    a.dims.push_back(d);
  }
  return a;
}

// This locale's description of a 2-D array over axes `a` (grid a.size() x b.size(), C
// order), its buffer filled by value_at of the positions each slot holds (row-major).
dmap::dap_description<double, 2> describe(const std::array<axis, 2>& a, std::vector<double>& buffer) {
  const int g1 = static_cast<int>(a[1].dims.size());
  const std::array<std::size_t, 2> k{static_cast<std::size_t>(dmap::here() / g1), static_cast<std::size_t>(dmap::here() % g1)};
  dmap::dap_description<double, 2> x;
  const auto& rows = a[0].held[k[0]];
  const auto& cols = a[1].held[k[1]];
  buffer.clear();
  for (const index_t r : rows)
    for (const index_t c : cols) buffer.push_back(value_at(r, c));
  x.buffer = buffer.empty() ? nullptr : buffer.data();
  x.shape = {static_cast<index_t>(rows.size()), static_cast<index_t>(cols.size())};
  x.strides = {std::max<index_t>(x.shape[1], 1), 1};
  x.dim_data = {a[0].dims[k[0]], a[1].dims[k[1]]};
  return x;
}

// Collective: imports `x` and checks the adoption, every element, and the export's dictionaries.
std::string check_import(const dmap::dap_description<double, 2>& x, const std::vector<double>& buffer,
                         bool same_export = true) {
  dmap::array<double, 2> A = dmap::dap_import(x);
  std::string why;
  if (!A.adopted()) why += "not adopted; ";
  if (!buffer.empty() && A.local_data() != x.buffer) why += "local_data is not the buffer; ";
  const auto& whole = A.domain().indices();
  const auto at = [&](std::size_t d, index_t i) { return x.dim_data[d].dist_type == 'b' ? i : whole.dim(d).order_of(i); };
  for (index_t r = 0; r < whole.dim(0).size(); ++r)
    for (index_t c = 0; c < whole.dim(1).size(); ++c) {
      const idx<2> i(whole.dim(0).index_at(r), whole.dim(1).index_at(c));
      if (A[i] != value_at(at(0, i[0]), at(1, i[1]))) {
        why += "element " + std::to_string(i[0]) + ", " + std::to_string(i[1]) + " is wrong; ";
        r = whole.dim(0).size();
        break;
      }
    }
  if (same_export) {
    const auto y = dmap::dap_export(A, x.version);
    for (std::size_t d = 0; d < 2; ++d)
      if (!(y.dim_data[d] == x.dim_data[d]))
        why += "dimension " + std::to_string(d) + " exports as " + dmap::to_json(y.dim_data[d]) + ", imported " +
               dmap::to_json(x.dim_data[d]) + "; ";
    if (y.shape != x.shape) why += "the shape changed; ";
  }
  return why + " (" + A.domain().name() + ")";
}

std::vector<index_t> random_cuts(index_t n, int g, std::mt19937_64& rng) {
  std::vector<index_t> cuts{0, n};
  for (int k = 1; k < g; ++k) cuts.push_back(static_cast<index_t>(rng() % static_cast<std::uint64_t>(n + 1)));
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

// The grid shapes of p locales tried: p x 1, 1 x p, and a balanced one.
std::vector<std::array<int, 2>> grids(int p) {
  std::vector<std::array<int, 2>> out{{p, 1}, {1, p}};
  if (p == 4) out.push_back({2, 2});
  return out;
}

}  // namespace

TEST_CASE("DAP import: random valid descriptions adopt their buffers and export unchanged", "[dap][import]") {
  const int p = dmap::num_locales();
  std::mt19937_64 rng(20261124);  // the same draws on every locale
  int cases = 0;
  for (int round = 0; round < 24; ++round)
    for (const auto& g : grids(p)) {
      std::array<axis, 2> axes;
      // Every description exports again as it came in: kinds, block sizes, one_to_one, the
      // cut of an empty array's other dimension, whatever the shape. The one exception: an
      // empty array with an empty 'u' dimension (its map places no stand-in index there, so
      // the export cannot tell the other dimension's cut; docs/guide/interop.md).
      index_t elements = 1;
      bool empty_listed = false;
      for (std::size_t d = 0; d < 2; ++d) {
        const auto n = static_cast<index_t>(rng() % 9);
        elements *= n;
        const auto kind = rng() % 3;
        if (kind == 0 || g[d] == 1) {
          axes[d] = block_axis(n, random_cuts(n, g[d], rng));
        } else if (kind == 1) {
          axes[d] = cyclic_axis(n, g[d], static_cast<index_t>(1 + rng() % 3));
        } else {
          axes[d] = unstructured_axis(n, g[d], rng);
          if (rng() % 2 == 0)  // without the promise (DAP's default): kept as it came in
            for (auto& dim : axes[d].dims) dim.one_to_one = false;
          empty_listed = empty_listed || n == 0;
        }
      }
      const bool exports_same = !(elements == 0 && empty_listed);
      std::vector<double> buffer;
      const auto x = describe(axes, buffer);
      INFO("round " << round << ", grid " << g[0] << "x" << g[1] << ", " << dmap::to_json(x.dim_data[0]) << " x "
                    << dmap::to_json(x.dim_data[1]));
      const std::string why = check_import(x, buffer, exports_same);
      INFO(why);
      DMAP_CHECK_ALL(why.rfind(" (", 0) == 0);
      ++cases;
    }
  CHECK(cases > 0);
}

TEST_CASE("DAP import: mutated descriptions fail on every locale with a named error", "[dap][import]") {
  const int p = dmap::num_locales();
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const auto g = grids(p)[static_cast<std::size_t>(round) % grids(p).size()];
    std::array<axis, 2> axes;
    for (std::size_t d = 0; d < 2; ++d) {
      const auto n = static_cast<index_t>(2 + rng() % 8);
      const auto kind = rng() % 3;
      if (kind == 0 || g[d] == 1) axes[d] = block_axis(n, random_cuts(n, g[d], rng));
      else if (kind == 1) axes[d] = cyclic_axis(n, g[d], static_cast<index_t>(1 + rng() % 3));
      else axes[d] = unstructured_axis(n, g[d], rng);
    }
    std::vector<double> buffer;
    auto x = describe(axes, buffer);
    const int victim = static_cast<int>(rng() % static_cast<std::uint64_t>(p));
    const auto d = static_cast<std::size_t>(rng() % 2);
    const auto how = rng() % 8;
    if (dmap::here() == victim) {
      auto& dim = x.dim_data[d];
      switch (how) {
        case 0: dim.size += 1; break;                                     // another size
        case 1: dim.proc_grid_rank = (dim.proc_grid_rank + 1) % std::max(dim.proc_grid_size, 2); break;  // a grid position twice
        case 2: x.shape[d] += 1; break;                                   // the buffer disagrees
        case 3: x.version = "1.0.0"; break;                               // a version dmap does not read
        case 4: dim.size = std::numeric_limits<index_t>::max(); break;    // int64 extremes
        case 5: dim.proc_grid_size = std::numeric_limits<int>::max(); break;
        case 6: dim.dist_type = 'x'; break;                               // an unknown kind
        default:                                                          // a position outside
          if (dim.dist_type == 'u') dim.indices.push_back(-1);
          else dim.start = std::numeric_limits<index_t>::min();
          break;
      }
    }
    INFO("round " << round << ": mutation " << how << " of dimension " << d << " on locale " << victim);
    CHECK_NO_FAILURE(fails_everywhere_named([&] { (void)dmap::dap_import(x); }));
  }
}

TEST_CASE("DAP import: descriptions that disagree across locales are refused everywhere", "[dap][import]") {
  const int p = dmap::num_locales();
  std::vector<double> buffer;
  // A grid not in C order: locales swap their positions (dmap numbers grids in C order).
  if (p >= 2) {
    std::vector<index_t> cuts;
    for (int k = 0; k <= p; ++k) cuts.push_back(k * 2);
    auto x = describe({block_axis(2 * p, cuts), block_axis(3, {0, 3})}, buffer);
    const int swapped = dmap::here() < 2 ? 1 - dmap::here() : dmap::here();
    x.dim_data[0] = block_axis(2 * p, cuts).dims[static_cast<std::size_t>(swapped)];
    const auto [thrown, what] = dmap::testing::throws_as<dmap::unsupported_error>([&] { (void)dmap::dap_import(x); });
    INFO(what);
    DMAP_CHECK_ALL((thrown && what.find("C order") != std::string::npos));
  }
  // Blocks that overlap: one locale's block reaches into its neighbour's.
  if (p >= 2) {
    std::vector<index_t> cuts;
    for (int k = 0; k <= p; ++k) cuts.push_back(k * 3);
    axis a = block_axis(3 * p, cuts);
    a.dims[0].stop += 1;
    a.held[0].push_back(a.held[0].back() + 1);
    auto x = describe({a, block_axis(2, {0, 2})}, buffer);
    const auto [thrown, what] = dmap::testing::throws_as<dmap::argument_error>([&] { (void)dmap::dap_import(x); });
    INFO(what);
    DMAP_CHECK_ALL((thrown && what.find("cover the dimension exactly") != std::string::npos));
  }
  // A typestr of another element type on the last locale.
  {
    auto x = describe({block_axis(4, {0, 4}), cyclic_axis(3 * p, p, 1)}, buffer);
    if (dmap::here() == p - 1) x.typestr = "<i4";
    const auto [thrown, what] = dmap::testing::throws_as<dmap::argument_error>([&] { (void)dmap::dap_import(x); });
    INFO(what);
    DMAP_CHECK_ALL((thrown && what.find("typestr") != std::string::npos));
  }
  // A buffer with padded rows under a map whose rows dmap does not pad (block x cyclic).
  {
    auto x = describe({block_axis(3, {0, 3}), cyclic_axis(4 * p, p, 1)}, buffer);
    std::vector<double> wide(static_cast<std::size_t>(x.shape[0] * (x.shape[1] + 1)));
    x.buffer = wide.data();
    x.strides = {x.shape[1] + 1, 1};
    const auto [thrown, what] = dmap::testing::throws_as<dmap::unsupported_error>([&] { (void)dmap::dap_import(x); });
    INFO(what);
    DMAP_CHECK_ALL((thrown && what.find("pads the rows of Block, Stencil and Padded maps only") != std::string::npos));
  }
  // A buffer that is not a row- or column-major array at all (every other element along a row).
  {
    auto x = describe({block_axis(3, {0, 3}), cyclic_axis(4 * p, p, 1)}, buffer);
    std::vector<double> wide(static_cast<std::size_t>(x.shape[0] * x.shape[1] * 2));
    x.buffer = wide.data();
    x.strides = {2 * x.shape[1], 2};
    const auto [thrown, what] = dmap::testing::throws_as<dmap::unsupported_error>([&] { (void)dmap::dap_import(x); });
    INFO(what);
    DMAP_CHECK_ALL((thrown && what.find("not those of a row- or column-major array") != std::string::npos));
  }
  // 'u' lists that claim one_to_one but share a position.
  if (p >= 2) {
    std::mt19937_64 rng(3);
    axis a = unstructured_axis(2 * p, p, rng);
    for (int k = 0; k < p; ++k) {  // coordinate k lists 2k and 2k + 1; coordinate 1 lists 0 instead of 2
      a.dims[static_cast<std::size_t>(k)].indices = {2 * k, 2 * k + 1};
      a.held[static_cast<std::size_t>(k)] = a.dims[static_cast<std::size_t>(k)].indices;
    }
    a.dims[1].indices[0] = 0;
    a.held[1] = a.dims[1].indices;
    auto x = describe({a, block_axis(2, {0, 2})}, buffer);
    const auto [thrown, what] = dmap::testing::throws_as<dmap::argument_error>([&] { (void)dmap::dap_import(x); });
    INFO(what);
    DMAP_CHECK_ALL((thrown && what.find("one_to_one") != std::string::npos));
  }
}

TEST_CASE("DAP import: DAP 0.9's examples from their JSON round-trip", "[dap][import]") {
  const int p = dmap::num_locales();
  if (p == 2) {
    // "Block, No-distribution": a 2x10 array over 2 processes, dimension 1 'n'.
    const std::vector<std::vector<double>> rows = {{0.2, 0.6, 0.9, 0.6, 0.8, 0.4, 0.2, 0.2, 0.3, 0.5},
                                                   {0.9, 0.2, 1., 0.4, 0.5, 0., 0.6, 0.8, 0.6, 1.}};
    std::vector<double> mine = rows[static_cast<std::size_t>(dmap::here())];
    const std::string text = "{\"__version__\": \"0.9.0\", \"buffer\": {\"shape\": [1, 10], \"itemsize\": 8}, "
                             "\"dim_data\": [{\"size\": 2, \"dist_type\": \"b\", \"proc_grid_rank\": " +
                             std::to_string(dmap::here()) + ", \"proc_grid_size\": 2, \"start\": " +
                             std::to_string(dmap::here()) + ", \"stop\": " + std::to_string(dmap::here() + 1) +
                             "}, {\"size\": 10, \"dist_type\": \"n\"}]}";
    const auto x = dmap::dap_from_json<double, 2>(text, mine.data());
    auto A = dmap::dap_import_json<double, 2>(text, mine.data());
    DMAP_CHECK_ALL((A.adopted() && A.local_data() == mine.data()));
    bool values = true;
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 10; ++c) values = values && A[idx<2>{r, c}] == rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
    DMAP_CHECK_ALL(values);
    const auto y = dmap::dap_export(A, "0.9.0");
    DMAP_CHECK_ALL((y.dim_data[0] == x.dim_data[0] && y.dim_data[1] == x.dim_data[1] && y.shape == x.shape));
    DMAP_CHECK_ALL(dmap::to_json(y.dim_data[1], 9) == "{\"dist_type\": \"n\", \"size\": 10}");
  }
  if (p == 2) {
    // "Block with padding": 18 positions, padding (1, 1); in 0.9 start/stop leave out the
    // communication padding: [0, 9) and [9, 18), buffers of 10.
    const std::vector<std::vector<double>> buffers = {{0.2, 0.6, 0.9, 0.6, 0.8, 0.4, 0.2, 0.2, 0.3, 0.9},
                                                      {0.3, 0.9, 0.2, 1., 0.4, 0.5, 0., 0.6, 0.8, 0.6}};
    std::vector<double> mine = buffers[static_cast<std::size_t>(dmap::here())];
    const int r = dmap::here();
    const std::string text = "{\"__version__\": \"0.9.0\", \"buffer\": {\"shape\": [10], \"strides\": [8], "
                             "\"itemsize\": 8, \"typestr\": \"<f8\"}, \"dim_data\": [{\"size\": 18, \"dist_type\": \"b\", "
                             "\"proc_grid_rank\": " + std::to_string(r) + ", \"proc_grid_size\": 2, \"start\": " +
                             std::to_string(r * 9) + ", \"stop\": " + std::to_string(r * 9 + 9) +
                             ", \"padding\": [1, 1]}]}";
    const auto x = dmap::dap_from_json<double, 1>(text, mine.data());
    auto A = dmap::dap_import(x);
    INFO(A.domain().name() << " over " << A.domain().indices());
    DMAP_CHECK_ALL((A.adopted() && A.domain().indices() == dmap::rect<1>{{1, 17}}));
    // Positions 1..8 are process 0's slots 1..8, positions 9..16 process 1's slots 1..8.
    bool values = true;
    for (index_t i = 1; i <= 16; ++i)
      values = values && A[idx<1>{i}] == buffers[i <= 8 ? 0 : 1][static_cast<std::size_t>(i <= 8 ? i : i - 8)];
    DMAP_CHECK_ALL(values);
    const auto y = dmap::dap_export(A, "0.9.0");
    DMAP_CHECK_ALL((y.dim_data[0] == x.dim_data[0] && y.shape == x.shape));
  }
  if (p == 3) {
    // "Unstructured": 30 positions over 3 processes, one_to_one absent (false).
    const std::vector<std::vector<index_t>> lists = {
        {19, 1, 0, 12, 2, 15, 4}, {6, 13, 3}, {10, 25, 5, 21, 7, 18, 11, 26, 29, 24, 23, 28, 14, 20, 9, 16, 27, 8, 17, 22}};
    const auto& list = lists[static_cast<std::size_t>(dmap::here())];
    std::vector<double> mine;
    std::string indices;
    for (const index_t i : list) {
      mine.push_back(0.5 * static_cast<double>(i));
      indices += (indices.empty() ? "" : ", ") + std::to_string(i);
    }
    const std::string text = "{\"__version__\": \"0.9.0\", \"buffer\": {\"shape\": [" + std::to_string(list.size()) +
                             "], \"itemsize\": 8}, \"dim_data\": [{\"size\": 30, \"dist_type\": \"u\", "
                             "\"proc_grid_rank\": " + std::to_string(dmap::here()) +
                             ", \"proc_grid_size\": 3, \"indices\": [" + indices + "]}]}";
    const auto x = dmap::dap_from_json<double, 1>(text, mine.data());
    auto A = dmap::dap_import(x);
    bool values = true;
    for (index_t i = 0; i < 30; ++i) values = values && A[idx<1>{i}] == 0.5 * static_cast<double>(i);
    DMAP_CHECK_ALL((values && A.local_data() == mine.data()));
    const auto y = dmap::dap_export(A, "0.9.0");
    DMAP_CHECK_ALL((y.dim_data[0] == x.dim_data[0] && !y.dim_data[0].one_to_one));
    DMAP_CHECK_ALL(dmap::to_json(y.dim_data[0], 9).find("one_to_one") == std::string::npos);
  }
}

TEST_CASE("DAP import: unequal and periodic padding, filled by halo updates", "[dap][import]") {
  const int p = dmap::num_locales();
  // 1-D over p locales: 4 + k indices on locale k; boundary padding 2 before, 0 after;
  // communication padding of width 1 + (k % 2) between k and k + 1.
  std::vector<index_t> owned_lo{2};
  for (int k = 0; k < p; ++k) owned_lo.push_back(owned_lo.back() + 4 + k);
  const index_t size = owned_lo.back();
  const auto comm = [](int k) { return index_t{1} + k % 2; };  // between k and k + 1
  const int k = dmap::here();
  dmap::dap_description<double, 1> x;
  dmap::dap_dimension& d = x.dim_data[0];
  d.dist_type = 'b';
  d.size = size;
  d.proc_grid_size = p;
  d.proc_grid_rank = k;
  d.padding = {k == 0 ? 2 : comm(k - 1), k == p - 1 ? 0 : comm(k)};
  d.start = owned_lo[static_cast<std::size_t>(k)] - d.padding[0];
  d.stop = owned_lo[static_cast<std::size_t>(k) + 1] + d.padding[1];
  std::vector<double> buffer(static_cast<std::size_t>(d.stop - d.start));
  for (index_t j = 0; j < static_cast<index_t>(buffer.size()); ++j) {
    const index_t pos = d.start + j;
    const bool owned = pos >= owned_lo[static_cast<std::size_t>(k)] && pos < owned_lo[static_cast<std::size_t>(k) + 1];
    const bool boundary = pos < 2;
    buffer[static_cast<std::size_t>(j)] = owned || boundary ? 10.0 * static_cast<double>(pos) : -1.0;  // ghosts stale
  }
  x.buffer = buffer.data();
  x.shape = {static_cast<index_t>(buffer.size())};
  x.strides = {1};
  x.typestr = "<f8";
  auto A = dmap::dap_import(x);
  INFO(A.domain().name());
  DMAP_CHECK_ALL((A.adopted() && (p == 1 || A.domain().name().find("padded") != std::string::npos)));
  dmap::update_halos(A);
  bool ghosts = true;
  for (index_t j = 0; j < static_cast<index_t>(buffer.size()); ++j)
    ghosts = ghosts && buffer[static_cast<std::size_t>(j)] == 10.0 * static_cast<double>(d.start + j);
  DMAP_CHECK_ALL(ghosts);
  const auto y = dmap::dap_export(A);
  DMAP_CHECK_ALL((y.dim_data[0] == x.dim_data[0] && y.shape == x.shape && y.buffer == buffer.data()));
  DMAP_CHECK_ALL(dmap::to_json(y).find("\"typestr\": \"<f8\"") != std::string::npos);

  // Periodic: 3 indices per locale, padding 1 everywhere. DAP 0.10 counts the edge padding
  // in size (boundary padding, here holding the wrapped values): size 3p + 2, grid rank 0
  // starts at 0 (its first slot holds the wrapped end), every start and stop in [0, size].
  dmap::dap_description<double, 1> w;
  dmap::dap_dimension& e = w.dim_data[0];
  e.dist_type = 'b';
  e.size = 3 * p + 2;
  e.proc_grid_size = p;
  e.proc_grid_rank = k;
  e.periodic = true;
  e.padding = {1, 1};
  e.start = 3 * k;
  e.stop = 3 * k + 5;
  std::vector<double> ring(5, -1.0);
  for (index_t j = 1; j <= 3; ++j) ring[static_cast<std::size_t>(j)] = static_cast<double>(3 * k + j - 1);
  w.buffer = ring.data();
  w.shape = {5};
  w.strides = {1};
  auto R = dmap::dap_import(w);
  INFO(R.domain().name());
  dmap::update_halos(R);
  const double n = 3.0 * p;
  DMAP_CHECK_ALL((ring[0] == std::fmod(3.0 * k - 1 + n, n) && ring[4] == std::fmod(3.0 * k + 3, n)));
  const auto z = dmap::dap_export(R);
  DMAP_CHECK_ALL((z.dim_data[0] == w.dim_data[0] && z.dim_data[0].size == 3 * p + 2));
  DMAP_CHECK_ALL(R.domain().indices() == (dmap::rect<1>{dmap::range{1, 3 * p + 1}}));
  // DAP 0.9's form of the same array (on request): the edge padding is communication
  // padding, size 3p; it imports as the same map and values.
  const auto nine = dmap::dap_export(R, "0.9.0");
  DMAP_CHECK_ALL((nine.dim_data[0].size == 3 * p && nine.dim_data[0].start == 3 * k && nine.dim_data[0].stop == 3 * k + 3 &&
                  nine.shape[0] == 5));
  auto S = dmap::dap_import(nine);
  DMAP_CHECK_ALL((S.adopted() && S.local_data() == ring.data() && S.domain().indices() == (dmap::rect<1>{dmap::range{0, 3 * p}})));
  DMAP_CHECK_ALL(dmap::dap_export(S, "0.9.0").dim_data[0] == nine.dim_data[0]);
}

TEST_CASE("DAP import: bad JSON on one locale is an argument_error on every locale", "[dap][import]") {
  std::vector<double> buffer(4, 1.0);
  const std::string good = "{\"__version__\": \"0.10.0\", \"buffer\": {\"shape\": [4], \"itemsize\": 8}, \"dim_data\": "
                           "[{\"dist_type\": \"b\", \"size\": " + std::to_string(4 * dmap::num_locales()) +
                           ", \"proc_grid_size\": " + std::to_string(dmap::num_locales()) +
                           ", \"proc_grid_rank\": " + std::to_string(dmap::here()) +
                           ", \"start\": " + std::to_string(4 * dmap::here()) +
                           ", \"stop\": " + std::to_string(4 * dmap::here() + 4) + "}]}";
  const auto import_good = [&]() -> std::string {
    auto A = dmap::dap_import_json<double, 1>(good, buffer.data());
    return A.adopted() ? "" : "not adopted";
  };
  CHECK_NO_FAILURE(import_good());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {good.substr(0, good.size() / 2), "not valid JSON"},
      {"[1, 2]", "a JSON object"},
      {std::string(100000, '[') , "nested deeper than 64"},
      {"{\"__version__\": 10, \"buffer\": {}, \"dim_data\": []}", "'__version__'"},
      {"{\"__version__\": \"0.10.0\", \"buffer\": {\"shape\": [4], \"itemsize\": 4}, \"dim_data\": [{}]}", "itemsize"},
      {"{\"__version__\": \"0.10.0\", \"buffer\": {\"shape\": [4], \"itemsize\": 8, \"strides\": [12]}, \"dim_data\": [{}]}",
       "multiple of the item size"},
      {"{\"__version__\": \"0.10.0\", \"buffer\": {\"shape\": [4], \"itemsize\": 8}, \"dim_data\": [{\"dist_type\": "
       "\"b\", \"size\": 18446744073709551615, \"proc_grid_size\": 1, \"proc_grid_rank\": 0, \"start\": 0, \"stop\": 4}]}",
       "'size'"},
      {"{\"__version__\": \"0.10.0\", \"buffer\": {\"shape\": [4], \"itemsize\": 8}, \"dim_data\": [{\"dist_type\": "
       "\"b\", \"size\": 4.5, \"proc_grid_size\": 1, \"proc_grid_rank\": 0, \"start\": 0, \"stop\": 4}]}",
       "'size'"},
      {"{\"__version__\": \"0.10.0\", \"buffer\": {\"shape\": [4], \"itemsize\": 8}, \"dim_data\": [{\"dist_type\": "
       "\"u\", \"size\": 4, \"proc_grid_size\": 1, \"proc_grid_rank\": 0, \"indices\": \"0 1 2 3\"}]}",
       "'indices'"},
  };
  for (const auto& [text, needle] : bad) {
    const bool mine = dmap::here() == dmap::num_locales() - 1;
    INFO(text.substr(0, 120));
    const auto [thrown, what] = dmap::testing::throws_as<dmap::argument_error>(
        [&] { (void)dmap::dap_import_json<double, 1>(mine ? text : good, buffer.data()); });
    INFO(what);
    DMAP_CHECK_ALL((thrown && what.find(needle) != std::string::npos));
  }
}

TEST_CASE("DAP export: a user-defined map (weighted_block) exports from its pieces", "[dap]") {
  // examples/custom_dist's map is unknown to interop/: the export sees only its DSI. Its
  // rows are cut by weight ('b', irregular), its columns not at all.
  const int p = dmap::num_locales();
  const dmap::domain<2> D(custom_dist::weighted_block<2>::increasing(), dmap::rect<2>{{0, 23}, {0, 4}});
  dmap::array<double, 2> A(D, 1.0);
  const auto x = dmap::dap_export(A);
  const auto owned = D.local_subdomain();
  bool right = x.dim_data[0].dist_type == 'b' && x.dim_data[0].proc_grid_size == p && x.dim_data[1].proc_grid_size == 1 &&
               x.dim_data[0].proc_grid_rank == dmap::here();
  if (!owned.empty()) right = right && x.dim_data[0].start == owned.dim(0).lo() && x.dim_data[0].stop == owned.dim(0).hi();
  DMAP_CHECK_ALL(right);
  // And it round-trips: imported as an irregular block (or Block) with the same dictionaries.
  std::vector<double> copy(static_cast<std::size_t>(A.local_size()), 2.0);
  auto y = x;
  y.buffer = copy.empty() ? nullptr : copy.data();
  auto B = dmap::dap_import(y);
  const auto z = dmap::dap_export(B);
  DMAP_CHECK_ALL((z.dim_data[0] == x.dim_data[0] && z.dim_data[1] == x.dim_data[1]));
}

TEST_CASE("DAP import: 'u' without one_to_one comes back without it", "[dap][import]") {
  // DAP's default (one_to_one absent: false) promises nothing; the lists still hold every
  // position once, so dmap takes them, and says again what came in.
  const int p = dmap::num_locales();
  std::mt19937_64 rng(28);
  for (const int promise : {0, 1}) {
    auto rows = unstructured_axis(3 * p + 2, p, rng);
    for (auto& d : rows.dims) d.one_to_one = promise == 1;
    std::vector<double> buffer;
    const auto x = describe({rows, block_axis(3, {0, 3})}, buffer);
    const std::string why = check_import(x, buffer);
    INFO(why);
    DMAP_CHECK_ALL(why.rfind(" (", 0) == 0);
    auto A = dmap::dap_import(x);
    const auto y = dmap::dap_export(A);
    DMAP_CHECK_ALL((y.dim_data[0].dist_type == 'u' && y.dim_data[0].one_to_one == (promise == 1)));
    DMAP_CHECK_ALL(dmap::to_json(y.dim_data[0]).find(promise ? "\"one_to_one\": true" : "\"one_to_one\": false") !=
                   std::string::npos);
    // DAP 0.9 leaves a false one_to_one out.
    const auto nine = dmap::dap_export(A, "0.9.0");
    DMAP_CHECK_ALL((dmap::to_json(nine.dim_data[0], 9).find("one_to_one") == std::string::npos) == (promise == 0));
  }
}

TEST_CASE("DAP import: empty buffers that say start == size", "[dap][import]") {
  // DAP 0.9 and 0.10 ("Empty local buffers"): start == size marks an empty buffer, for 'b'
  // and 'c'. 'c': 3 positions in blocks of 2: grid ranks from 2 on are dealt nothing.
  const int p = dmap::num_locales();
  const int k = dmap::here();
  {
    axis a = cyclic_axis(3, p, 2);
    for (auto& d : a.dims)
      if (d.proc_grid_rank * 2 >= 3) d.start = 3;  // the empty-buffer form
    std::vector<double> buffer;
    const auto x = describe({a, block_axis(2, {0, 2})}, buffer);
    const std::string why = check_import(x, buffer, false);
    INFO(why);
    DMAP_CHECK_ALL(why.rfind(" (", 0) == 0);
    // The export names the block's place, proc_grid_rank * block_size (also valid).
    auto A = dmap::dap_import(x);
    const auto y = dmap::dap_export(A);
    DMAP_CHECK_ALL((y.dim_data[0].dist_type == 'c' && y.dim_data[0].block_size == 2 && y.dim_data[0].start == 2 * k));
  }
  // 'b': grid rank 0 holds nothing and says so with start == stop == size; the others hold
  // the 4 positions from grid rank 1 on (the last ones empty too, some saying start == size).
  if (p >= 2) {
    std::vector<index_t> cuts{0, 0, 4};
    for (int j = 2; j < p; ++j) cuts.push_back(4);
    axis a = block_axis(4, cuts);
    a.dims[0].start = a.dims[0].stop = 4;
    std::vector<double> buffer;
    const auto x = describe({a, block_axis(3, {0, 3})}, buffer);
    const std::string why = check_import(x, buffer, false);
    INFO(why);
    DMAP_CHECK_ALL(why.rfind(" (", 0) == 0);
    auto A = dmap::dap_import(x);
    const auto y = dmap::dap_export(A);
    // Exported at its place in the grid: [0, 0) on grid rank 0.
    DMAP_CHECK_ALL((k != 0 || (y.dim_data[0].start == 0 && y.dim_data[0].stop == 0)));
    DMAP_CHECK_ALL((k == 0 || y.dim_data[0] == x.dim_data[0]));
  }
  // Two locales at one grid coordinate, one naming the empty buffer by start == size, the
  // other by its place: the same buffer.
  if (p >= 2 && p % 2 == 0) {
    const axis rows = block_axis(3, {0, 0, 3});  // grid 2 x p/2; grid rank 0 along rows holds nothing
    std::vector<index_t> col_cuts;
    for (int j = 0; j <= p / 2; ++j) col_cuts.push_back(j);
    const axis cols = block_axis(p / 2, col_cuts);
    std::vector<double> buffer;
    auto x = describe({rows, cols}, buffer);
    if (x.dim_data[0].proc_grid_rank == 0 && x.dim_data[1].proc_grid_rank % 2 == 0) x.dim_data[0].start = x.dim_data[0].stop = 3;
    const std::string why = check_import(x, buffer, false);
    INFO(why);
    DMAP_CHECK_ALL(why.rfind(" (", 0) == 0);
  }
}

}  // namespace test_dap_import
