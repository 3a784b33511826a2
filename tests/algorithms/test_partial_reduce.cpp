// dmap::partial_reduce against serial folds: row sums and column maxima of 2-D arrays of
// every map into 1-D arrays of every map, strided views, 3-D arrays reduced along two
// dimensions, zips with a transform, empty index sets, exact message counts and
// bit-identical repetition.
//
// The oracle walks the input's index set by its own scan (tests/oracle.hpp seq_of) and folds
// each kept position's values in a plain loop; values are integer formulas of the index, so
// sums are exact. Results are checked on every locale through a reduction over the output's
// own domain (each locale checks the elements it holds).
#include "../maps_1d.hpp"
#include "../maps_2d.hpp"
#include "../oracle.hpp"
#include "../support.hpp"

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

namespace test_partial_reduce {

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using namespace dmap::testing::oracle;
namespace maps = dmap::testing::maps;

template <std::size_t N>
std::int64_t value_of(const idx<N>& i) {
  std::int64_t v = 7;
  for (std::size_t d = 0; d < N; ++d) v = v * 31 + i[d] * (d == 0 ? 13 : -5);
  return pmod(v, 1001) - 500;
}

/// The indices of `r`, dimension by dimension, by the oracle's own scan.
template <std::size_t N>
std::array<seq, N> seqs_of(const rect<N>& r) {
  std::array<seq, N> s;
  for (std::size_t d = 0; d < N; ++d) s[d] = seq_of(r.dim(d));
  return s;
}

/// Collective: the number of elements of `out` (checked where they are held) that differ
/// from `expected` (by position in out's index set).
template <class T>
std::int64_t mismatches(dmap::array<T, 1>& out, const std::vector<T>& expected) {
  const auto& whole = out.domain().indices();
  return dmap::reduce(dmap::zip(out.domain(), out), std::int64_t{0}, std::plus<>{},
                      [&](const idx<1>& i, const T& v) {
                        const index_t k = whole.order_of(i);
                        return std::int64_t{std::memcmp(&v, &expected[static_cast<std::size_t>(k)], sizeof(T)) != 0};
                      });
}

/// Fills A with value_of over its domain.
template <std::size_t N>
void fill(dmap::array<std::int64_t, N>& A) {
  dmap::forall(dmap::zip(A.domain(), A), [](const idx<N>& i, std::int64_t& a) { a = value_of(i); });
}

/// Row sums (dimension 1 reduced) and column maxima (dimension 0 reduced) of the 2-D index
/// set `r`, by the oracle.
std::vector<std::int64_t> row_sums(const rect<2>& r, std::int64_t init) {
  const auto s = seqs_of(r);
  std::vector<std::int64_t> out;
  for (index_t i : s[0]) {
    std::int64_t acc = init;
    for (index_t j : s[1]) acc += value_of(idx<2>{i, j});
    out.push_back(acc);
  }
  return out;
}
std::vector<std::int64_t> column_maxima(const rect<2>& r, std::int64_t init) {
  const auto s = seqs_of(r);
  std::vector<std::int64_t> out;
  for (index_t j : s[1]) {
    std::int64_t acc = init;
    for (index_t i : s[0]) acc = std::max(acc, value_of(idx<2>{i, j}));
    out.push_back(acc);
  }
  return out;
}

}  // namespace

TEST_CASE("partial_reduce: row sums and column maxima of every 2-D map into every 1-D map", "[partial_reduce]") {
  const int p = dmap::num_locales();
  const std::vector<rect<2>> rects{
      {range(0, 5), range(0, 7)},          // uneven both ways
      {range(-3, 4), range(2, 3)},         // 7 x 1: one column
      {range(10, 11), range(-6, 7)},       // 1 x 13: one row, fewer rows than locales
      {range(0, 0), range(0, 4)},          // no rows
      {range(0, 3), range(5, 5)},          // rows without columns: every sum is the init
      {range(0, 11, 2), range(0, 9, 3)},   // strided domain
  };
  const maps::map_kind row_outputs[] = {maps::map_kind::block, maps::map_kind::cyclic, maps::map_kind::replicated,
                                        maps::map_kind::unstructured};
  const maps::map_kind col_outputs[] = {maps::map_kind::block_cyclic, maps::map_kind::hashed,
                                        maps::map_kind::irregular, maps::map_kind::stencil};
  // Each map meets two of the rects (a third of the pairs: the whole file must stay fast), and
  // the output maps rotate.
  std::size_t round = 0;
  const auto makers = maps::makers();
  for (std::size_t ri = 0; ri < rects.size(); ++ri) {
    const auto& r = rects[ri];
    for (std::size_t mi = 0; mi < makers.size(); ++mi) {
      if ((mi + ri) % 3 != 0) continue;
      const auto& m = makers[mi];
      INFO("input map " << m.name << " over " << r << " at " << p << " locales");
      dmap::domain<2> D = m.make(r);
      dmap::array<std::int64_t, 2> A(D);
      fill(A);
      // Rows: the output's index set is the projection itself.
      {
        const auto kind = row_outputs[round % 4];
        INFO("row sums into " << maps::name_of(kind));
        dmap::domain<1> O = maps::domain_of(kind, rect<1>{r.dim(0)});
        dmap::array<std::int64_t, 1> out(O, -77);
        dmap::partial_reduce<1>(A, out, std::int64_t{3});
        DMAP_CHECK_ALL(mismatches(out, row_sums(r, 3)) == 0);
      }
      // Columns: an output of the projection's shape elsewhere (pairs by position).
      {
        const auto kind = col_outputs[round % 4];
        INFO("column maxima into " << maps::name_of(kind));
        dmap::domain<1> O = maps::domain_of(kind, rect<1>{range::counted(100, r.dim(1).size(), 1)});
        dmap::array<std::int64_t, 1> out(O, -77);
        dmap::partial_reduce<0>(A, out, std::int64_t{-400}, dmap::maximum{});
        DMAP_CHECK_ALL(mismatches(out, column_maxima(r, -400)) == 0);
      }
      ++round;
    }
  }
}

TEST_CASE("partial_reduce: strided and reversed views, a zip with a transform", "[partial_reduce]") {
  const rect<2> space{range(-2, 19), range(0, 16)};
  for (const auto& m : maps::makers()) {
    if (m.directory) continue;  // views of directory maps: covered by the zip below
    INFO("map " << m.name);
    dmap::domain<2> D = m.make(space);
    dmap::array<std::int64_t, 2> A(D);
    fill(A);
    const rect<2> part{range(1, 19, 3), range(0, 15, -2)};  // rows 1, 4, ..., 16; columns 14, 12, ..., 0
    auto v = A[part];
    const rect<2>& vi = v.indices();
    dmap::domain<1> rows(dmap::cyclic<1>{}, rect<1>{range(0, vi.dim(0).size())});
    dmap::array<std::int64_t, 1> out(rows);
    dmap::partial_reduce<1>(v, out, std::int64_t{0});
    DMAP_CHECK_ALL(mismatches(out, row_sums(vi, 0)) == 0);
    dmap::domain<1> cols(dmap::block<1>{}, rect<1>{range(0, vi.dim(1).size())});
    dmap::array<std::int64_t, 1> cmax(cols);
    dmap::partial_reduce<0>(std::as_const(A)[part], cmax, std::int64_t{-1000}, dmap::maximum{});
    DMAP_CHECK_ALL(mismatches(cmax, column_maxima(vi, -1000)) == 0);
  }
  // A zip of two maps (the follower is staged), with a transform: sums of products per row.
  const rect<2> r{range(0, 7), range(3, 40)};
  dmap::domain<2> B(dmap::block<2>{}, r);
  dmap::domain<2> H(dmap::hashed<2>{}, r);
  dmap::array<std::int64_t, 2> X(B), Y(H);
  fill(X);
  dmap::forall(dmap::zip(H, Y), [](const idx<2>& i, std::int64_t& y) { y = value_of(i) % 7; });
  dmap::domain<1> O(dmap::block<1>{}, rect<1>{r.dim(0)});
  dmap::array<std::int64_t, 1> out(O);
  dmap::partial_reduce<1>(dmap::zip(X, Y), out, std::int64_t{0}, std::plus<>{},
                          [](std::int64_t x, std::int64_t y) { return x * y; });
  std::vector<std::int64_t> expected;
  for (index_t i : seq_of(r.dim(0))) {
    std::int64_t acc = 0;
    for (index_t j : seq_of(r.dim(1))) acc += value_of(idx<2>{i, j}) * (value_of(idx<2>{i, j}) % 7);
    expected.push_back(acc);
  }
  DMAP_CHECK_ALL(mismatches(out, expected) == 0);
}

TEST_CASE("partial_reduce: 3-D arrays reduced along two dimensions", "[partial_reduce]") {
  const rect<3> r{range(0, 5), range(-2, 2), range(1, 8)};
  const auto s = seqs_of(r);
  for (int grid = 0; grid < 2; ++grid) {
    dmap::domain<3> D = grid == 0 ? dmap::domain<3>{dmap::block<3>{}, r}
                                  : dmap::domain<3>{dmap::block_cyclic<3>{{2, 1, 3}}, r};
    dmap::array<std::int64_t, 3> A(D);
    fill(A);
    const auto oracle = [&](std::size_t kept) {
      std::vector<std::int64_t> out(s[kept].size(), 0);
      for (std::size_t a = 0; a < s[0].size(); ++a)
        for (std::size_t b = 0; b < s[1].size(); ++b)
          for (std::size_t c = 0; c < s[2].size(); ++c) {
            const std::size_t k = kept == 0 ? a : kept == 1 ? b : c;
            out[k] += value_of(idx<3>{s[0][a], s[1][b], s[2][c]});
          }
      return out;
    };
    for (std::size_t kept = 0; kept < 3; ++kept) {
      INFO("grid " << grid << ", kept dimension " << kept);
      dmap::domain<1> O(dmap::cyclic<1>{}, rect<1>{r.dim(kept)});
      dmap::array<std::int64_t, 1> out(O);
      if (kept == 0) dmap::partial_reduce<1, 2>(A, out, std::int64_t{0});
      if (kept == 1) dmap::partial_reduce<2, 0>(A, out, std::int64_t{0});  // any order of dimensions
      if (kept == 2) dmap::partial_reduce<0, 1>(A, out, std::int64_t{0});
      DMAP_CHECK_ALL(mismatches(out, oracle(kept)) == 0);
    }
    // One dimension reduced: a 2-D output of another map.
    dmap::domain<2> O2(dmap::cyclic<2>{}, rect<2>{r.dim(0), r.dim(2)});
    dmap::array<std::int64_t, 2> out2(O2);
    dmap::partial_reduce<1>(A, out2, std::int64_t{0});
    const std::int64_t bad = dmap::reduce(dmap::zip(O2, out2), std::int64_t{0}, std::plus<>{},
                                          [&](const idx<2>& i, std::int64_t v) {
                                            std::int64_t e = 0;
                                            for (index_t j : s[1]) e += value_of(idx<3>{i[0], j, i[1]});
                                            return std::int64_t{v != e};
                                          });
    DMAP_CHECK_ALL(bad == 0);
  }
}

TEST_CASE("partial_reduce: one message per peer, four collectives", "[partial_reduce]") {
  const int p = dmap::num_locales();
  const index_t n = 4 * p + 3, m = 5 * p + 1;
  const rect<2> r{range(0, n), range(0, m)};
  dmap::domain<2> D(dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, r);  // whole rows per locale
  dmap::array<std::int64_t, 2> A(D);
  fill(A);
  // Row sums into Block: each locale's rows are its output block: nothing moves.
  dmap::domain<1> rows(dmap::block<1>{}, rect<1>{r.dim(0)});
  dmap::array<std::int64_t, 1> rs(rows);
  dmap::reset_counters();
  dmap::partial_reduce<1>(A, rs, std::int64_t{0});
  auto spent = dmap::counters();
  DMAP_CHECK_ALL(spent.messages_sent == 0 && spent.messages_received == 0);
  DMAP_CHECK_ALL(spent.collectives == (p == 1 ? 0u : 4u));  // the operands' agreement, the exchange (2), the closing agreement
  DMAP_CHECK_ALL(mismatches(rs, row_sums(r, 0)) == 0);
  // Column sums into Block: each locale sends every other locale one message holding one
  // segment (3 words of header) and that locale's columns.
  dmap::domain<1> cols(dmap::block<1>{}, rect<1>{r.dim(1)});
  dmap::array<std::int64_t, 1> cs(cols);
  dmap::reset_counters();
  dmap::partial_reduce<0>(A, cs, std::int64_t{0});
  spent = dmap::counters();
  const auto mine = static_cast<std::uint64_t>(cols.local_subdomains().front().size());
  const auto others = static_cast<std::uint64_t>(m) - mine;
  DMAP_CHECK_ALL(spent.messages_sent == static_cast<std::uint64_t>(p - 1));
  DMAP_CHECK_ALL(spent.messages_received == static_cast<std::uint64_t>(p - 1));
  DMAP_CHECK_ALL(spent.bytes_sent == static_cast<std::uint64_t>(p - 1) * 3 * 8 + others * 8);
  DMAP_CHECK_ALL(spent.collectives == (p == 1 ? 0u : 4u));  // the operands' agreement, the exchange (2), the closing agreement
  std::vector<std::int64_t> expected;
  for (index_t j = 0; j < m; ++j) {
    std::int64_t acc = 0;
    for (index_t i = 0; i < n; ++i) acc += value_of(idx<2>{i, j});
    expected.push_back(acc);
  }
  DMAP_CHECK_ALL(mismatches(cs, expected) == 0);
}

TEST_CASE("partial_reduce: an input in copy layers counts each element once", "[partial_reduce]") {
  const int p = dmap::num_locales();
  const int layers = p % 2 == 0 ? 2 : 1;
  const rect<2> r{range(0, 9), range(-3, 8)};
  // Block along dimension 0, replicated along 1: each copy layer holds every index.
  dmap::domain<2> D{dmap::dimensional<2>({dmap::block_dim{}, dmap::replicated_dim{}},
                                         dmap::target_grid<2>({p / layers, layers})),
                    r};
  dmap::array<std::int64_t, 2> A(D);
  fill(A);
  dmap::domain<1> rows(dmap::cyclic<1>{}, rect<1>{r.dim(0)});
  dmap::domain<1> cols(dmap::replicated<1>{}, rect<1>{r.dim(1)});
  dmap::array<std::int64_t, 1> rs(rows), cm(cols);
  dmap::partial_reduce<1>(A, rs, std::int64_t{0});
  dmap::partial_reduce<0>(A, cm, std::int64_t{-600}, dmap::maximum{});
  DMAP_CHECK_ALL(mismatches(rs, row_sums(r, 0)) == 0);
  DMAP_CHECK_ALL(mismatches(cm, column_maxima(r, -600)) == 0);
}

TEST_CASE("partial_reduce: non-integer sums are bit-identical from run to run", "[partial_reduce]") {
  const rect<2> r{range(0, 37), range(0, 101)};
  dmap::domain<2> D(dmap::block_cyclic<2>{{3, 7}}, r);
  dmap::array<double, 2> A(D);
  dmap::forall(dmap::zip(D, A), [](const idx<2>& i, double& a) { a = std::sin(0.37 * i[0] + 1.1 * i[1]) / 3; });
  dmap::domain<1> O(dmap::cyclic<1>{}, rect<1>{r.dim(1)});
  dmap::array<double, 1> first(O), again(O);
  dmap::partial_reduce<0>(A, first, 0.25);
  dmap::partial_reduce<0>(A, again, 0.25);
  std::vector<double> expected;
  for (index_t j = 0; j < 101; ++j) {
    double acc = 0.25;
    for (index_t i = 0; i < 37; ++i) acc += std::sin(0.37 * i + 1.1 * j) / 3;
    expected.push_back(acc);
  }
  const double off = dmap::reduce(dmap::zip(O, first, again), 0.0, dmap::maximum{},
                                  [&](const idx<1>& i, double a, double b) {
                                    return a != b ? 1.0 : std::abs(a - expected[static_cast<std::size_t>(i[0])]);
                                  });
  DMAP_CHECK_ALL(off < 1e-9);
}

}  // namespace test_partial_reduce
