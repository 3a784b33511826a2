// The Block distribution (dists/block.hpp) and basic arrays over it.
//
// Oracle: a domain's indices are enumerated by nested loops over each dimension's sequence,
// and each sequence is found by scanning every integer of [lo, hi) for (i - a) mod |s| == 0;
// the owner of each index comes from Chapel's cut, written out again here: along a
// dimension with bounds [L, H) (the box's, or the dimension's aligned low .. aligned high + 1)
// and n = H - L, part k of p owns [L + ceil(n*k/p), L + ceil(n*(k+1)/p)), the first and last
// parts extending to minus and plus infinity; a locale's grid coordinates follow C order.
// Nothing of the code under test is used to build the expectations.
//
// The random cases come from a std::mt19937_64 with a fixed seed, so every locale builds the
// same cases and calls the collective constructors in the same order.
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace test_block {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

static_assert(dmap::distribution<dmap::block<1>, 1>);
static_assert(dmap::distribution<dmap::block<2>, 2>);
static_assert(dmap::distribution<dmap::block<3>, 3>);
static_assert(dmap::domain_descriptor<dmap::block_domain<2>, 2>);
static_assert(dmap::local_domain_descriptor<dmap::block_local_domain<3>, 3>);

// ------------------------------------------------------------------------------- oracle

using namespace dmap::testing::oracle;  // tests/oracle.hpp

__extension__ typedef __int128 i128;  // for the oracle of cuts near the 64-bit limits

/// One Block test case: the index set, the grid and an optional bounding box.
template <std::size_t N>
struct block_case {
  std::array<dim_spec, N> spec{};
  bool default_grid = false;
  std::array<int, N> grid{};  // the grid shape (for the default grid: MPI_Dims_create's)
  std::optional<std::array<std::pair<index_t, index_t>, N>> box;
  dmap::storage_order order = dmap::storage_order::row_major;

  rect<N> indices() const {
    rect<N> r;
    for (std::size_t d = 0; d < N; ++d)
      r.set_dim(d, range(spec[d].lo, spec[d].hi, spec[d].stride, spec[d].align));
    return r;
  }
  rect<N> box_rect() const {
    rect<N> r;
    for (std::size_t d = 0; d < N; ++d) r.set_dim(d, range((*box)[d].first, (*box)[d].second));
    return r;
  }
  dmap::block<N> distribution() const {
    if (box) {
      if (default_grid) return dmap::block<N>{box_rect()};
      return dmap::block<N>{box_rect(), dmap::target_grid<N>{grid}, order};
    }
    if (default_grid) return dmap::block<N>{};
    return dmap::block<N>{dmap::target_grid<N>{grid}, order};
  }
  std::string describe() const {
    std::ostringstream s;
    s << "indices " << indices() << " (specs";
    for (const auto& d : spec)
      s << " [" << d.lo << ", " << d.hi << ") by " << d.stride << " align " << d.align << ";";
    s << "), grid " << shape_text(grid);
    if (default_grid) s << " (default)";
    if (box) s << ", bounding box " << box_rect();
    s << (order == dmap::storage_order::row_major ? ", row-major" : ", column-major");
    return s.str();
  }
};

/// What the oracle expects of a Block case: each locale's indices (row-major, in the
/// domain's directions) and the owner of every index.
template <std::size_t N>
struct block_oracle {
  std::array<seq, N> dims;
  std::vector<idx<N>> points;                   // row-major
  std::vector<std::vector<idx<N>>> owned;       // per locale
  std::map<idx<N>, int> owner;

  explicit block_oracle(const block_case<N>& c) {
    const int p = dmap::num_locales();
    for (std::size_t d = 0; d < N; ++d)
      dims[d] = brute(c.spec[d].lo, c.spec[d].hi, c.spec[d].stride, c.spec[d].align);
    points = product(dims);
    // Cut bounds per dimension.
    std::array<std::pair<index_t, index_t>, N> bounds{};
    for (std::size_t d = 0; d < N; ++d) {
      if (c.box) {
        bounds[d] = (*c.box)[d];
      } else if (!dims[d].empty()) {
        const auto [mn, mx] = std::minmax_element(dims[d].begin(), dims[d].end());
        bounds[d] = {*mn, *mx + 1};
      }
    }
    owned.resize(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) {
      const auto coords = c_order_coords<N>(c.grid, q);
      std::array<seq, N> mine;
      for (std::size_t d = 0; d < N; ++d)
        for (index_t x : dims[d])
          if (part_owns(bounds[d].first, bounds[d].second, c.grid[d], coords[d], x))
            mine[d].push_back(x);
      owned[static_cast<std::size_t>(q)] = product(mine);
    }
    for (const auto& pt : points) {
      std::array<int, N> coords{};
      for (std::size_t d = 0; d < N; ++d) {
        int found = -1;
        for (int k = 0; k < c.grid[d]; ++k)
          if (part_owns(bounds[d].first, bounds[d].second, c.grid[d], k, pt[d])) {
            found = found == -1 ? k : -2;  // -2: owned twice (the oracle itself is broken)
          }
        coords[d] = found;
      }
      owner[pt] = c_order_locale<N>(c.grid, coords);
    }
  }
};

/// Checks one Block case against the oracle; returns "" or the first mismatch. Collective
/// (builds the domain).
template <std::size_t N>
std::string check_block_case(const block_case<N>& c) {
  const int p = dmap::num_locales();
  const rect<N> r = c.indices();
  const dmap::domain<N> D{c.distribution(), r};
  const block_oracle<N> o(c);

  if (!(D.indices() == r)) return "indices() differ from the rect passed";
  if (D.size() != static_cast<index_t>(o.points.size()))
    return "size() is " + std::to_string(D.size()) + ", oracle " + std::to_string(o.points.size());

  // Each locale's subdomains against the oracle's cut, and the exact cover.
  std::map<idx<N>, int> cover;
  for (int q = 0; q < p; ++q) {
    const auto subs = D.local_subdomains(q);
    const auto& expected = o.owned[static_cast<std::size_t>(q)];
    if (subs.size() != (expected.empty() ? 0u : 1u))
      return "locale " + std::to_string(q) + " has " + std::to_string(subs.size()) +
             " subdomains, oracle owns " + std::to_string(expected.size()) + " indices";
    std::vector<idx<N>> got;
    for (const auto& s : subs) {
      const auto pts = points_of(s);
      got.insert(got.end(), pts.begin(), pts.end());
      for (std::size_t d = 0; d < N; ++d)
        if (s.dim(d).size() > 1 && s.dim(d).stride() != r.dim(d).stride())
          return "locale " + std::to_string(q) + ": subdomain dimension " + std::to_string(d) +
                 " has stride " + std::to_string(s.dim(d).stride());
    }
    if (got != expected) {
      std::ostringstream s;
      s << "locale " << q << " owns " << got.size() << " indices ";
      if (!subs.empty()) s << subs.front();
      s << ", the Chapel cut gives " << expected.size();
      if (!expected.empty()) s << " from " << expected.front() << " to " << expected.back();
      return s.str();
    }
    for (const auto& pt : got) ++cover[pt];
    // local_layouts agree with the subdomains.
    const auto layouts = D.local_layouts(q);
    if (layouts.size() != subs.size() || (!subs.empty() && !(layouts[0].indices == subs[0])))
      return "locale " + std::to_string(q) + ": local_layouts do not match local_subdomains";
  }
  if (cover.size() != o.points.size())
    return "the subdomains hold " + std::to_string(cover.size()) + " distinct indices, the domain " +
           std::to_string(o.points.size());
  for (const auto& pt : o.points) {
    const auto it = cover.find(pt);
    if (it == cover.end() || it->second != 1)
      return "index " + text(pt) + " is in " + std::to_string(it == cover.end() ? 0 : it->second) +
             " subdomains";
    const int expected = o.owner.at(pt);
    const int got = D.locale_of(pt);
    if (got != expected)
      return "locale_of" + text(pt) + " = " + std::to_string(got) + ", oracle " +
             std::to_string(expected);
  }

  // This locale's view.
  if (!(D.local_subdomains() == D.local_subdomains(dmap::here())))
    return "local_subdomains() differs from local_subdomains(here())";
  if (D.local_size() != static_cast<index_t>(o.owned[static_cast<std::size_t>(dmap::here())].size()))
    return "local_size() is " + std::to_string(D.local_size());

  // An index outside the domain.
  idx<N> outside{};
  if (!o.points.empty()) {
    outside = o.points.front();
    outside[0] = *std::max_element(o.dims[0].begin(), o.dims[0].end()) + 1;
  }
  try {
    (void)D.locale_of(outside);
    return "locale_of" + text(outside) + " (outside the domain) did not throw";
  } catch (const dmap::out_of_bounds_error&) {
  }
  return "";
}

/// A random dimension: strides in {1, 2, 3, -1, -2}, random alignment, about 0..13 indices
/// (some empty, some with hi < lo), bounds not necessarily on indices.
dim_spec random_dim(gen& rng) {
  static constexpr std::array<index_t, 8> strides{1, 1, 1, 2, 3, -1, -2, 2};
  const index_t s = strides[static_cast<std::size_t>(rng.uniform(0, 7))];
  const index_t lo = rng.uniform(-7, 7);
  const index_t count = rng.uniform(0, 10) < 3 ? rng.uniform(0, 3) : rng.uniform(0, 13);
  index_t hi = lo + count * iabs(s) - rng.uniform(0, iabs(s) - 1);  // count or count - 1 indices
  if (rng.uniform(0, 25) == 0) hi = lo - rng.uniform(1, 3);          // hi < lo: empty
  const index_t align = rng.uniform(-9, 9);
  return {lo, hi, s, align};
}

template <std::size_t N>
std::vector<block_case<N>> random_cases(gen& rng, int count) {
  const int p = dmap::num_locales();
  const auto grids = factorisations<N>(p);
  std::vector<block_case<N>> out;
  for (int k = 0; k < count; ++k) {
    block_case<N> c;
    for (std::size_t d = 0; d < N; ++d) c.spec[d] = random_dim(rng);
    const auto g = rng.uniform(0, static_cast<index_t>(grids.size()));  // == size: the default grid
    c.default_grid = g == static_cast<index_t>(grids.size());
    c.grid = c.default_grid ? mpi_dims<N>(p) : grids[static_cast<std::size_t>(g)];
    if (rng.uniform(0, 3) == 0) {
      std::array<std::pair<index_t, index_t>, N> box{};
      for (std::size_t d = 0; d < N; ++d) {
        const index_t lo = rng.uniform(-9, 8);
        box[d] = {lo, lo + rng.uniform(1, 24)};
      }
      c.box = box;
    }
    c.order = rng.uniform(0, 1) ? dmap::storage_order::row_major : dmap::storage_order::column_major;
    out.push_back(c);
  }
  return out;
}

/// Runs `count` random cases of dimension N; returns how many had fewer indices than locales
/// along some dimension, how many were empty, strided, boxed (smaller / larger).
template <std::size_t N>
std::array<int, 6> run_random_cases(gen& rng, int count) {
  std::array<int, 6> seen{};
  for (const auto& c : random_cases<N>(rng, count)) {
    const std::string mismatch = check_block_case(c);
    INFO("case: " << c.describe());
    INFO("mismatch: " << mismatch);
    DMAP_CHECK_ALL(mismatch.empty());
    const rect<N> r = c.indices();
    for (std::size_t d = 0; d < N; ++d)
      if (r.dim(d).size() < c.grid[d]) {
        ++seen[0];
        break;
      }
    if (r.empty()) ++seen[1];
    for (std::size_t d = 0; d < N; ++d)
      if (r.dim(d).stride() != 1 && r.dim(d).size() > 1) {
        ++seen[2];
        break;
      }
    if (c.box && !r.empty()) {
      bool inside = true, covers = true;
      for (std::size_t d = 0; d < N; ++d) {
        const range n = r.dim(d).normalized();
        inside = inside && (*c.box)[d].first > n.lo() && (*c.box)[d].second < n.hi();
        covers = covers && (*c.box)[d].first <= n.lo() && (*c.box)[d].second >= n.hi();
      }
      seen[3] += inside;
      seen[4] += covers;
    }
    seen[5] += c.default_grid;
  }
  return seen;
}

/// The expected value of element i in the array tests.
template <std::size_t N>
double value_of(const idx<N>& i) {
  double v = 0.25;
  for (std::size_t d = 0; d < N; ++d) v = v * 16 + static_cast<double>(i[d]);
  return v;
}

/// Array basics over `D` (whose indices the oracle enumerates as `points`). Collective.
template <std::size_t N>
void check_array_over(const dmap::domain<N>& D) {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  const auto points = points_of(D.indices());
  dmap::array<double, N> A{D};
  DMAP_CHECK_ALL(A.local_size() == D.local_size());

  // Value-initialised, then written through local().
  std::vector<idx<N>> mine;
  for (const auto& s : D.local_subdomains())
    for (const auto& pt : points_of(s)) mine.push_back(pt);
  bool zeros = true;
  for (const auto& pt : mine) {
    zeros = zeros && A.local(pt) == 0.0;
    A.local(pt) = value_of(pt);
  }
  DMAP_CHECK_ALL(zeros);
  dmap::barrier();

  // Every locale reads every element (remote ones through RMA).
  std::string bad;
  for (const auto& pt : points) {
    const double v = A[pt];
    if (v != value_of(pt) && bad.empty())
      bad = "A" + text(pt) + " = " + std::to_string(v) + ", expected " + std::to_string(value_of(pt));
  }
  INFO("reading every element: " << bad);
  DMAP_CHECK_ALL(bad.empty());

  // gather: row-major on locale 0, nothing elsewhere.
  const auto all = A.gather();
  bool gathered = true;
  if (me == 0) {
    gathered = all.size() == points.size();
    for (std::size_t k = 0; gathered && k < points.size(); ++k) gathered = all[k] == value_of(points[k]);
  } else {
    gathered = all.empty();
  }
  DMAP_CHECK_ALL(gathered);

  // Remote writes: locale w writes the first index of locale (w + 1) % P, if it owns any.
  std::vector<std::pair<idx<N>, int>> written;  // (index, writer), the same on every locale
  for (int w = 0; w < p; ++w) {
    const int target = (w + 1) % p;
    for (const auto& pt : points)
      if (D.locale_of(pt) == target) {
        bool taken = false;
        for (const auto& [i, x] : written) taken = taken || i == pt;
        if (!taken) written.emplace_back(pt, w);
        break;
      }
  }
  for (const auto& [pt, w] : written)
    if (w == me) A[pt] = -1000.0 - w;
  dmap::barrier();
  bool remote_written = true;
  for (const auto& [pt, w] : written) {
    remote_written = remote_written && static_cast<double>(A[pt]) == -1000.0 - w;
    if (D.locale_of(pt) == me) remote_written = remote_written && A.local(pt) == -1000.0 - w;
  }
  DMAP_CHECK_ALL(remote_written);
  dmap::barrier();  // nobody may still read while the window goes away

  // local() of an index owned elsewhere names the owner; [] outside the domain throws.
  std::string not_local_msg = "none";
  for (const auto& pt : points)
    if (D.locale_of(pt) != me) {
      try {
        (void)A.local(pt);
        not_local_msg = "no exception";
      } catch (const dmap::not_local_error& e) {
        const std::string w = e.what();
        const std::string owner = "its owner is locale " + std::to_string(D.locale_of(pt));
        not_local_msg = w.find(owner) != std::string::npos ? "none" : "message: " + w;
      }
      break;
    }
  INFO("local() of a remote index: " << not_local_msg);
  DMAP_CHECK_ALL(not_local_msg == "none");
  idx<N> outside{};
  if (!points.empty()) {
    outside = points.front();
    outside[N - 1] = D.indices().dim(N - 1).normalized().hi() + 5;
  }
  CHECK_THROWS_AS(static_cast<double>(A[outside]), dmap::out_of_bounds_error);
  CHECK_THROWS_AS(A.local(outside), dmap::not_local_error);
  CHECK_THROWS_WITH(A.local(outside), Catch::Contains("not in the domain"));
}

/// The mdspan-style offset of pt in a layout: sum over d of its position in the dimension's
/// sequence times the stride, where layout_right's strides are products of the later extents
/// and layout_left's of the earlier ones.
template <std::size_t N>
std::string check_layout(const rect<N>& sub, const dmap::dense_layout<N>& l, bool row_major) {
  std::array<seq, N> dims;
  std::array<index_t, N> ext{};
  for (std::size_t d = 0; d < N; ++d) dims[d] = seq_of(sub.dim(d)), ext[d] = static_cast<index_t>(dims[d].size());
  std::array<index_t, N> strides{};
  for (std::size_t d = 0; d < N; ++d) {
    strides[d] = 1;
    for (std::size_t e = 0; e < N; ++e)
      if (row_major ? e > d : e < d) strides[d] *= ext[e];
  }
  if (l.offset != 0) return "offset " + std::to_string(l.offset);
  if (l.strides != strides) {
    std::ostringstream s;
    s << "strides (";
    for (auto x : l.strides) s << x << " ";
    s << ") expected (";
    for (auto x : strides) s << x << " ";
    s << ")";
    return s.str();
  }
  if (l.extents() != ext) return "extents differ";
  std::vector<int> hit(static_cast<std::size_t>(l.size()), 0);
  for (const auto& pt : product(dims)) {
    index_t expected = 0;
    for (std::size_t d = 0; d < N; ++d) {
      const auto pos = std::find(dims[d].begin(), dims[d].end(), pt[d]) - dims[d].begin();
      expected += pos * strides[d];
    }
    if (l.offset_of(pt) != expected)
      return "offset_of" + text(pt) + " = " + std::to_string(l.offset_of(pt)) + ", expected " +
             std::to_string(expected);
    ++hit[static_cast<std::size_t>(expected)];
  }
  for (int h : hit)
    if (h != 1) return "offsets do not cover [0, size) exactly once";
  return "";
}

/// Layouts of every locale under both storage orders; then an array's memory read through
/// the expected strides. Collective.
template <std::size_t N>
void check_layouts(const rect<N>& r) {
  for (const bool row_major : {true, false}) {
    const auto order = row_major ? dmap::storage_order::row_major : dmap::storage_order::column_major;
    const dmap::domain<N> D{dmap::block<N>{dmap::target_grid<N>{}, order}, r};
    std::string bad;
    for (int q = 0; q < dmap::num_locales() && bad.empty(); ++q) {
      const auto subs = D.local_subdomains(q);
      const auto layouts = D.local_layouts(q);
      if (subs.size() != layouts.size()) bad = "locale " + std::to_string(q) + ": counts differ";
      for (std::size_t b = 0; b < subs.size() && bad.empty(); ++b) {
        if (!(layouts[b].indices == subs[b])) bad = "layout indices differ";
        else if (auto m = check_layout(subs[b], layouts[b], row_major); !m.empty())
          bad = "locale " + std::to_string(q) + ": " + m;
      }
    }
    INFO((row_major ? "row-major " : "column-major ") << r << ": " << bad);
    DMAP_CHECK_ALL(bad.empty());

    // The array's storage follows the layout: element of pt at base[offset by the strides].
    dmap::array<double, N> A{D};
    bool memory = A.local_blocks().size() == D.local_subdomains().size();
    for (const auto& b : A.local_blocks()) {
      std::array<seq, N> dims;
      for (std::size_t d = 0; d < N; ++d) dims[d] = seq_of(b.layout.indices.dim(d));
      for (const auto& pt : product(dims)) A.local(pt) = value_of(pt);
      for (const auto& pt : product(dims)) {
        index_t off = 0;
        for (std::size_t d = 0; d < N; ++d) {
          index_t stride = 1;
          for (std::size_t e = 0; e < N; ++e)
            if (row_major ? e > d : e < d) stride *= static_cast<index_t>(dims[e].size());
          off += (std::find(dims[d].begin(), dims[d].end(), pt[d]) - dims[d].begin()) * stride;
        }
        memory = memory && b.data()[off] == value_of(pt);
      }
    }
    DMAP_CHECK_ALL(memory);
  }
}

}  // namespace

TEST_CASE("Block cut: chunk and owner formulas", "[block][serial]") {
  using B = dmap::block<1>;
  constexpr index_t lowest = std::numeric_limits<index_t>::min();
  constexpr index_t highest = std::numeric_limits<index_t>::max();
  // 10 indices from 0 over 4 parts: cuts at ceil(10k/4) = 0, 3, 5, 8, 10.
  CHECK(B::chunk(0, 10, 4, 0) == std::pair<index_t, index_t>{lowest, 3});
  CHECK(B::chunk(0, 10, 4, 1) == std::pair<index_t, index_t>{3, 5});
  CHECK(B::chunk(0, 10, 4, 2) == std::pair<index_t, index_t>{5, 8});
  CHECK(B::chunk(0, 10, 4, 3) == std::pair<index_t, index_t>{8, highest});
  CHECK(B::chunk(5, 6, 1, 0) == std::pair<index_t, index_t>{lowest, highest});
  // Exhaustively against the oracle on small bounds, inside and outside them.
  for (index_t lo = -3; lo <= 3; ++lo)
    for (index_t n = 1; n <= 13; ++n)
      for (int p = 1; p <= 7; ++p)
        for (index_t i = lo - 3; i < lo + n + 3; ++i) {
          int owners = 0, oracle = -1;
          for (int k = 0; k < p; ++k)
            if (part_owns(lo, lo + n, p, k, i)) ++owners, oracle = k;
          REQUIRE(owners == 1);
          INFO("lo " << lo << " n " << n << " p " << p << " i " << i);
          CHECK(B::owner(lo, lo + n, p, i) == oracle);
          const auto [first, last] = B::chunk(lo, lo + n, p, oracle);
          CHECK(first <= i);
          CHECK(i < last);
        }
  // Spans next to the largest whose cuts take a 64-bit division (n * p + p fits): both sides
  // of that limit against a 128-bit oracle.
  for (int p : {2, 3, 7, 1000, 65536}) {
    const index_t limit = (highest - p) / p;
    for (const index_t n : {limit - 1, limit, limit + 1, limit + p}) {
      INFO("n " << n << " p " << p);
      for (int k : {1, p / 2, p - 1}) {
        if (k < 1) continue;
        const auto cut = static_cast<index_t>(-7 + (static_cast<i128>(n) * k + p - 1) / p);
        CHECK(B::chunk(-7, -7 + n, p, k).first == cut);
      }
      // A part past the last (k = p) is computed in 128 bits, as before (no 64-bit overflow).
      const i128 beyond = -7 + (static_cast<i128>(n) * (p + 1) + p - 1) / p;
      CHECK(B::chunk(-7, -7 + n, p, p).second == static_cast<index_t>(beyond));
    }
  }
  // Every chunk in one pass, each cut computed once, equals the chunks one by one.
  for (const range& whole : {range(-3, 40), range(-3, 40, 3), range(5, 5)})
    for (int p : {1, 4, 7})
      for (int k0 = 0; k0 < p; ++k0)
        for (int k1 = k0; k1 < p; ++k1) {
          std::vector<range> one_by_one, at_once;
          for (int k = k0; k <= k1; ++k) one_by_one.push_back(B::chunk_indices(whole, -1, 37, p, k));
          B::for_each_chunk_indices(whole, -1, 37, p, k0, k1, [&](int k, const range& r) {
            CHECK(k == k0 + static_cast<int>(at_once.size()));
            at_once.push_back(r);
          });
          CHECK(at_once == one_by_one);
        }
  // Overflow-safe: spans of about 3 * 2^61 indices (n * k overflows 64 bits), anywhere in
  // the 64-bit range, including next to its ends.
  const index_t span = index_t{3} << 61;
  for (const index_t big_lo : {index_t{-1} << 61, lowest + 5, highest - 3 - span}) {
    const index_t big_hi = big_lo + span;
    for (int p : {1, 2, 3, 7, 64}) {
      INFO("bounds [" << big_lo << ", " << big_hi << "), p = " << p);
      for (int k = 1; k < p; ++k) {
        const auto cut = static_cast<index_t>(big_lo + (static_cast<i128>(span) * k + p - 1) / p);
        CHECK(B::chunk(big_lo, big_hi, p, k).first == cut);
        CHECK(B::chunk(big_lo, big_hi, p, k - 1).second == cut);
        CHECK(B::owner(big_lo, big_hi, p, cut) == k);
        CHECK(B::owner(big_lo, big_hi, p, cut - 1) == k - 1);
      }
      CHECK(B::owner(big_lo, big_hi, p, big_lo) == 0);
      CHECK(B::owner(big_lo, big_hi, p, big_hi - 1) == p - 1);
      CHECK(B::owner(big_lo, big_hi, p, highest) == p - 1);
      CHECK(B::owner(big_lo, big_hi, p, lowest) == 0);
    }
  }
}

TEST_CASE("Block exact cover over random shapes and grids", "[block]") {
  gen rng(0x5eed'b10c'2024ULL);  // fixed: every locale builds the same cases
  const auto s1 = run_random_cases<1>(rng, 60);
  const auto s2 = run_random_cases<2>(rng, 60);
  const auto s3 = run_random_cases<3>(rng, 40);
  std::array<int, 6> seen{};
  for (std::size_t k = 0; k < seen.size(); ++k) seen[k] = s1[k] + s2[k] + s3[k];
  INFO("fewer indices than locales " << seen[0] << ", empty " << seen[1] << ", strided "
                                     << seen[2] << ", box inside " << seen[3]
                                     << ", box covering " << seen[4] << ", default grid "
                                     << seen[5]);
  // The generator reaches every kind of case (the same on every locale).
  if (dmap::num_locales() > 1) CHECK(seen[0] > 5);
  CHECK(seen[1] > 5);
  CHECK(seen[2] > 20);
  CHECK(seen[3] > 0);
  CHECK(seen[4] > 0);
  CHECK(seen[5] > 5);
}

TEST_CASE("Block exact cover over every grid of the locales", "[block]") {
  // Every factorisation of the locale count, on fixed shapes: strided, descending, short.
  const int p = dmap::num_locales();
  const auto run = [](const auto& c) {
    const std::string mismatch = check_block_case(c);
    INFO("case: " << c.describe());
    INFO("mismatch: " << mismatch);
    DMAP_CHECK_ALL(mismatch.empty());
  };
  for (const auto& g : factorisations<2>(p)) {
    block_case<2> c;
    c.grid = g;
    c.spec = {dim_spec{-3, 11, 1, 0}, dim_spec{1, 17, -3, 2}};
    run(c);
    c.spec = {dim_spec{0, 2, 1, 0}, dim_spec{0, 1, 1, 0}};  // fewer indices than locales
    run(c);
    c.box = std::array<std::pair<index_t, index_t>, 2>{{{2, 4}, {-1, 30}}};
    c.spec = {dim_spec{-3, 11, 2, 1}, dim_spec{0, 13, 1, 0}};
    run(c);
    c.order = dmap::storage_order::column_major;
    c.box = std::array<std::pair<index_t, index_t>, 2>{{{-20, -10}, {50, 60}}};  // disjoint
    run(c);
  }
  for (const auto& g : factorisations<3>(p)) {
    block_case<3> c;
    c.grid = g;
    c.spec = {dim_spec{0, 5, 1, 0}, dim_spec{-4, 4, 2, 0}, dim_spec{0, 7, -1, 0}};
    run(c);
  }
}

// A bounding box with an empty dimension cannot place any index (Block's cut would give
// every index to an edge locale), so it is rejected, as Chapel does.
TEST_CASE("Block: a bounding box with an empty dimension is rejected", "[block]") {
  for (const auto& [lo, hi] : std::vector<std::pair<index_t, index_t>>{{5, 5}, {5, 3}}) {
    const rect<2> box{range(lo, hi), range(0, 4)};
    CHECK_THROWS_AS((dmap::block<2>{box}), dmap::argument_error);
    CHECK_THROWS_WITH((dmap::block<2>{box}), Catch::Contains("bounding_box dimension 0 is empty") &&
                                                 Catch::Contains("at least one index"));
  }
}

TEST_CASE("Block domains: argument errors", "[block]") {
  const int p = dmap::num_locales();
  // A bounding box must have stride 1.
  CHECK_THROWS_AS((dmap::block<2>{rect<2>{{0, 8}, {0, 8, 2}}}), dmap::argument_error);
  CHECK_THROWS_WITH((dmap::block<2>{rect<2>{{0, 8}, {0, 8, 2}}}),
                    Catch::Contains("bounding_box") && Catch::Contains("stride 2") &&
                        Catch::Contains("stride 1"));
  CHECK_THROWS_AS((dmap::block<1>{rect<1>{range{0, 8, -1}}}), dmap::argument_error);
  // A grid that does not hold the locale count, or has an extent below 1.
  CHECK_THROWS_AS((dmap::block<2>{dmap::target_grid<2>{std::array<int, 2>{p + 1, 1}}}),
                  dmap::argument_error);
  CHECK_THROWS_AS((dmap::block<2>{rect<2>{{0, 8}, {0, 8}},
                                  dmap::target_grid<2>{std::array<int, 2>{p, 2}}}),
                  dmap::argument_error);
  CHECK_THROWS_AS((dmap::block<3>{dmap::target_grid<3>{std::array<int, 3>{p, 1, 0}}}),
                  dmap::argument_error);

  // The name says the grid.
  const dmap::domain<2> D{dmap::block<2>{}, rect<2>{{0, 4}, {0, 4}}};
  const auto g = mpi_dims<2>(p);
  DMAP_CHECK_ALL(D.name() == "block(grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]) + ")");
  CHECK_THROWS_AS(D.locale_of(idx<2>{4, 0}), dmap::out_of_bounds_error);
  CHECK_THROWS_AS(D.locale_of(idx<2>{0, -1}), dmap::out_of_bounds_error);
  CHECK_THROWS_WITH(D.locale_of(idx<2>{0, -1}), Catch::Contains("(0, -1)"));
  CHECK_THROWS_AS(D.local_subdomains(p), dmap::argument_error);
  CHECK_THROWS_AS(D.local_subdomains(-1), dmap::argument_error);
}

TEST_CASE("Block domains: different arguments on different locales fail everywhere", "[block]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  if (p > 1) {
    // Different index sets.
    CHECK_THROWS_AS((dmap::domain<1>{dmap::block<1>{}, rect<1>{{0, 10 + me}}}),
                    dmap::argument_error);
    // Only the last locale differs.
    CHECK_THROWS_WITH((dmap::domain<2>{dmap::block<2>{},
                                       rect<2>{{0, 4}, {0, me == p - 1 ? 5 : 4}}}),
                      Catch::Contains("different index sets"));
    // Same indices, different target grids.
    const std::array<int, 2> shape = me % 2 ? std::array<int, 2>{p, 1} : std::array<int, 2>{1, p};
    CHECK_THROWS_AS((dmap::domain<2>{dmap::block<2>{dmap::target_grid<2>{shape}},
                                     rect<2>{{0, 4}, {0, 4}}}),
                    dmap::argument_error);
    // Same indices, a bounding box on some locales only.
    CHECK_THROWS_AS((me == 0 ? dmap::domain<1>{dmap::block<1>{rect<1>{{0, 4}}}, rect<1>{{0, 8}}}
                             : dmap::domain<1>{dmap::block<1>{}, rect<1>{{0, 8}}}),
                    dmap::argument_error);
  }
  // Nobody is left waiting: the next collective works.
  DMAP_CHECK_ALL(dmap::all_reduce_sum(1) == p);
  const dmap::domain<1> ok{dmap::block<1>{}, rect<1>{{0, 10}}};
  DMAP_CHECK_ALL(dmap::all_reduce_sum(ok.local_size()) == 10);
}

TEST_CASE("Block layouts: row-major and column-major strides", "[block]") {
  check_layouts<2>(rect<2>{{0, 7}, {0, 9, 2}});
  check_layouts<2>(rect<2>{{-2, 3}, {5, 11}});
  check_layouts<3>(rect<3>{{-3, 2}, {0, 10, 3}, {2, 9, -1}});
  check_layouts<3>(rect<3>{{0, 2}, {0, 3}, {0, 4}});
}

TEST_CASE("arrays over Block: local writes, remote reads and writes, gather", "[block]") {
  check_array_over<2>(dmap::domain<2>{dmap::block<2>{}, rect<2>{{1, 8}, {-2, 10, 2}}});
  check_array_over<3>(dmap::domain<3>{dmap::block<3>{}, rect<3>{{0, 3}, {0, 4}, {0, 5, -2}}});
  // An empty domain.
  check_array_over<2>(dmap::domain<2>{dmap::block<2>{}, rect<2>{{0, 0}, {0, 3}}});
  // Some locales own nothing.
  check_array_over<1>(dmap::domain<1>{dmap::block<1>{}, rect<1>{{3, 5}}});
  // Column-major storage and a bounding box.
  const int p = dmap::num_locales();
  check_array_over<2>(dmap::domain<2>{
      dmap::block<2>{rect<2>{{0, 4}, {0, 4}}, dmap::target_grid<2>{std::array<int, 2>{1, p}},
                     dmap::storage_order::column_major},
      rect<2>{{-2, 6}, {1, 9, 3}}});
}

TEST_CASE("arrays over Block: printing on every locale, and on one locale alone", "[block]") {
  const int me = dmap::here();
  const dmap::domain<2> D2{dmap::block<2>{}, rect<2>{{0, 2}, {0, 3}}};
  dmap::array<double, 2> A2{D2};
  for (const auto& s : D2.local_subdomains())
    for (const auto& pt : points_of(s)) A2.local(pt) = static_cast<double>(pt[0] * 3 + pt[1]) + 0.5;
  dmap::barrier();  // other locales read these elements one-sidedly
  std::ostringstream o2;
  o2 << A2;
  INFO("printed: '" << o2.str() << "'");
  DMAP_CHECK_ALL(o2.str() == "0.5 1.5 2.5\n3.5 4.5 5.5");

  const dmap::domain<3> D3{dmap::block<3>{}, rect<3>{{0, 2}, {0, 2}, {0, 3}}};
  dmap::array<int, 3> A3{D3};
  for (const auto& s : D3.local_subdomains())
    for (const auto& pt : points_of(s))
      A3.local(pt) = static_cast<int>(pt[0] * 100 + pt[1] * 10 + pt[2]);
  dmap::barrier();
  std::ostringstream o3;
  o3 << A3;
  INFO("printed: '" << o3.str() << "'");
  DMAP_CHECK_ALL(o3.str() == "0 1 2\n10 11 12\n\n100 101 102\n110 111 112");
  // `if (dmap::here() == 0) std::cout << A;` prints once and does not wait for the others.
  std::ostringstream only;
  if (me == 0) only << A3;
  dmap::barrier();
  DMAP_CHECK_ALL(only.str() == (me == 0 ? o3.str() : ""));

  const dmap::domain<2> D{dmap::block<2>{}, rect<2>{{0, 4}, {0, 6, 2}}};
  std::ostringstream od;
  od << D;
  INFO("printed: '" << od.str() << "'");
  DMAP_CHECK_ALL(od.str() == "{0..<4, 0..<6 by 2}");
}

TEST_CASE("arrays over Block: a remote read is one message of 8 bytes", "[block]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  const dmap::domain<2> D{dmap::block<2>{}, rect<2>{{0, 8}, {0, 8}}};
  DMAP_REQUIRE_ALL(D.local_size() > 0);
  dmap::array<double, 2> A{D};
  const idx<2> own = D.local_subdomain().first();
  A.local(own) = 1.0 + me;
  dmap::barrier();

  // The first index of the next locale.
  const int next = (me + 1) % p;
  idx<2> theirs = own;
  for (const auto& pt : points_of(D.indices()))
    if (D.locale_of(pt) == next) {
      theirs = pt;
      break;
    }

  dmap::reset_counters();
  const double local_value = A[own];
  const auto after_local = dmap::counters();
  const double remote_value = A[theirs];
  const auto c = dmap::counters() - after_local;
  DMAP_CHECK_ALL(local_value == 1.0 + me && after_local == dmap::comm_counters{});
  INFO("after one read of " << theirs << " from locale " << next << ": messages_received "
                            << c.messages_received << ", bytes_received " << c.bytes_received
                            << ", messages_sent " << c.messages_sent << ", collectives "
                            << c.collectives);
  DMAP_CHECK_ALL(remote_value == 1.0 + next);
  if (p > 1) {
    DMAP_CHECK_ALL(c.messages_received == 1 && c.bytes_received == sizeof(double) &&
                   c.messages_sent == 0 && c.bytes_sent == 0 && c.collectives == 0);
  } else {
    DMAP_CHECK_ALL(c == dmap::comm_counters{});
  }
  dmap::barrier();

  // A remote write is one message of 8 bytes sent; a local write changes nothing.
  const auto before_write = dmap::counters();
  A[own] = 2.0 + me;
  const auto after_local_write = dmap::counters() - before_write;
  dmap::barrier();  // every local write lands before the remote ones
  const auto before_remote_write = dmap::counters();
  A[theirs] = 3.0;  // with one locale: the same index, written locally
  const auto w = dmap::counters() - before_remote_write;
  INFO("after one write to " << theirs << ": messages_sent " << w.messages_sent << ", bytes_sent "
                             << w.bytes_sent << ", messages_received " << w.messages_received);
  DMAP_CHECK_ALL(after_local_write == dmap::comm_counters{});
  DMAP_CHECK_ALL(p > 1 ? w.messages_sent == 1 && w.bytes_sent == sizeof(double) &&
                             w.messages_received == 0 && w.bytes_received == 0
                       : w == dmap::comm_counters{});
  dmap::barrier();
  // Locale q's first index was written (3.0) by locale q - 1 (or by itself when P == 1).
  DMAP_CHECK_ALL(A.local(own) == 3.0);
}

}  // namespace test_block
