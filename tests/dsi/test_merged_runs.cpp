// Merged runs (dsi/detail/transfer.hpp): a transfer copies, packs and unpacks a part in as few
// runs as its storage allows (successive rows that continue one another are one run), and
// consecutive parts of blocks adjacent in both storages are one part. Checked through
// plan_summary's local_runs and message_runs, with run counts derived by hand from the chunk
// shapes, and values compared with an oracle (value(i) of the source index) on every locale.
#include "../oracle.hpp"
#include "../support.hpp"

#include "../../algorithms/assignment_plan.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace test_merged_runs {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::storage_order;
using namespace dmap::testing::oracle;  // tests/oracle.hpp
using dmap::testing::mismatches;

constexpr index_t rows = 37, cols = 53;  // uneven on every locale count

double value(const idx<2>& i) { return static_cast<double>(i[0] * 1000 + i[1]) + 0.25; }
double value(const idx<1>& i) { return static_cast<double>(i[0]) + 0.5; }

/// The Block cut [first, second) of part k of p along [0, n).
std::pair<index_t, index_t> cut(index_t n, int p, int k) { return {ceil_div(n * k, p), ceil_div(n * (k + 1), p)}; }

/// Collective: fills the source with value(i) and the destination with -1.
template <std::size_t N>
void prepare(dmap::array<double, N>& dst, dmap::array<double, N>& src) {
  dmap::forall(dmap::zip(src, src.domain()), [](double& v, const idx<N>& i) { v = value(i); });
  dmap::forall(dst, [](double& v) { v = -1; });
}


/// Collective: plans dst = src, checks this locale's run counts, runs it.
template <class Dst, class Src>
void check_runs(Dst&& dst, const Src& src, index_t local_runs, index_t message_runs) {
  auto plan = dmap::plan_assignment(dst, src);
  const dmap::plan_summary s = plan.summary();
  INFO("locale " << dmap::here() << ": local_runs " << s.local_runs << " (expected " << local_runs
                 << "), message_runs " << s.message_runs << " (expected " << message_runs << ")");
  DMAP_CHECK_ALL((s.local_runs == local_runs && s.message_runs == message_runs));
  plan.run();
}

}  // namespace

TEST_CASE("merged runs: arrays that coincide on a locale copy its block in one run", "[transfer][runs]") {
  const int p = dmap::num_locales();
  const rect<2> r{range(0, rows), range(0, cols)};
  const auto grid = dmap::target_grid<2>::balanced(p);
  const auto me = c_order_coords(grid.shape(), dmap::here());
  const auto [r0, r1] = cut(rows, grid.shape()[0], me[0]);
  const auto [c0, c1] = cut(cols, grid.shape()[1], me[1]);
  const auto same = [](const idx<2>& i) { return value(i); };

  dmap::domain<2> rm1{dmap::block<2>{grid}, r}, rm2{dmap::block<2>{grid}, r};
  dmap::domain<2> cm1{dmap::block<2>{grid, storage_order::column_major}, r},
      cm2{dmap::block<2>{grid, storage_order::column_major}, r};
  dmap::array<double, 2> A{rm1}, B{rm2}, C{rm1}, E{cm1}, F{cm2};

  SECTION("Block -> Block over the same rect, two domains and one") {
    prepare(A, B);
    check_runs(A, B, 1, 0);
    DMAP_CHECK_ALL(mismatches(A, same) == 0);
    prepare(C, A);
    check_runs(C, A, 1, 0);
    DMAP_CHECK_ALL(mismatches(C, same) == 0);
  }
  SECTION("column-major -> column-major: one run in storage order") {
    prepare(E, F);
    check_runs(E, F, 1, 0);
    DMAP_CHECK_ALL(mismatches(E, same) == 0);
  }
  SECTION("row-major -> column-major: one strided run per column; the other way, per row") {
    prepare(E, A);
    check_runs(E, A, c1 - c0, 0);  // in the destination's order: a column is one run of it
    DMAP_CHECK_ALL(mismatches(E, same) == 0);
    prepare(A, E);
    check_runs(A, E, r1 - r0, 0);
    DMAP_CHECK_ALL(mismatches(A, same) == 0);
  }
}

TEST_CASE("merged runs: views copy row by row unless their rows continue one another", "[transfer][runs]") {
  // Both sides on locale 0 alone (a 1 x 1 target grid): the others take part with nothing.
  const bool mine = dmap::here() == 0;
  const auto on_zero = [&](index_t n) { return mine ? n : 0; };
  const dmap::target_grid<2> zero({1, 1}, 1);
  const rect<2> r{range(0, rows), range(0, cols)};
  dmap::domain<2> D1{dmap::block<2>{zero}, r}, D2{dmap::block<2>{zero}, r};
  dmap::array<double, 2> A{D1}, B{D2};

  struct view_case {
    const char* what;
    rect<2> to, from;
    index_t runs;
  };
  const view_case cases[] = {
      {"sub-rect: one run per row", rect<2>{range(1, 36), range(2, 50)}, rect<2>{range(1, 36), range(2, 50)}, 35},
      {"full rows: one run", rect<2>{range(3, 20), range(0, cols)}, rect<2>{range(3, 20), range(0, cols)}, 1},
      {"every other row: one run per row", rect<2>{range(0, rows, 2), range(0, cols)},
       rect<2>{range(0, rows, 2), range(0, cols)}, 19},
      {"every other column: one strided run per row", rect<2>{range(0, rows), range(0, cols, 2)},
       rect<2>{range(0, rows), range(0, cols, 2)}, rows},
      {"both reversed: one backward run", rect<2>{range(0, rows, -1), range(0, cols, -1)},
       rect<2>{range(0, rows, -1), range(0, cols, -1)}, 1},
      {"rows shifted by one: one run", rect<2>{range(0, rows - 1), range(0, cols)},
       rect<2>{range(1, rows), range(0, cols)}, 1},
      {"columns shifted by one: one run per row", rect<2>{range(0, rows), range(0, cols - 1)},
       rect<2>{range(0, rows), range(1, cols)}, rows},
      {"transposed direction of rows: one run per row", rect<2>{range(0, rows), range(0, cols)},
       rect<2>{range(0, rows), range(0, cols, -1)}, rows},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    prepare(A, B);
    check_runs(A[c.to], std::as_const(B)[c.from], on_zero(c.runs), 0);
    // The k-th index of `to` in row-major order holds the value of the k-th of `from`.
    DMAP_CHECK_ALL(mismatches(A, [&](const idx<2>& i) {
                     const index_t k = c.to.order_of(i);
                     return k < 0 ? -1.0 : value(c.from.index_at(k));
                   }) == 0);
  }

  SECTION("a column stride whose rows chain: one run of step 2") {
    const rect<2> even{range(0, rows), range(0, 54)};
    dmap::domain<2> E1{dmap::block<2>{zero}, even}, E2{dmap::block<2>{zero}, even};
    dmap::array<double, 2> X{E1}, Y{E2};
    prepare(X, Y);
    const rect<2> v{range(0, rows), range(0, 54, 2)};
    check_runs(X[v], std::as_const(Y)[v], on_zero(1), 0);
    DMAP_CHECK_ALL(mismatches(X, [&](const idx<2>& i) { return v.contains(i) ? value(i) : -1.0; }) == 0);
  }
}

TEST_CASE("merged runs: row slabs to column slabs pack row by row and unpack in one run", "[transfer][runs]") {
  const int p = dmap::num_locales(), me = dmap::here();
  const rect<2> r{range(0, rows), range(0, cols)};
  dmap::domain<2> by_rows{dmap::block<2>{dmap::target_grid<2>({p, 1})}, r};
  dmap::domain<2> by_cols{dmap::block<2>{dmap::target_grid<2>({1, p})}, r};
  dmap::array<double, 2> R{by_rows}, C{by_cols};
  const auto [r0, r1] = cut(rows, p, me);
  const index_t my_rows = r1 - r0;
  const auto same = [](const idx<2>& i) { return value(i); };
  // A row slab's part for one column slab is a run per row of the slab (unless the column
  // slab is the whole width, p == 1); a column slab holds it as one run (it spans the slab's
  // width). Each locale sends p - 1 parts and receives p - 1.
  prepare(C, R);
  check_runs(C, R, p == 1 ? 1 : my_rows, (p - 1) * (my_rows + 1));
  DMAP_CHECK_ALL(mismatches(C, same) == 0);
  prepare(R, C);
  check_runs(R, C, p == 1 ? 1 : my_rows, (p - 1) * (1 + my_rows));
  DMAP_CHECK_ALL(mismatches(R, same) == 0);
}

TEST_CASE("merged runs: consecutive blocks adjacent in both storages are one copy", "[transfer][runs]") {
  const int p = dmap::num_locales(), me = dmap::here();
  const index_t n = 37, b = 4;
  const rect<1> line{range(0, n)};
  dmap::domain<1> D1{dmap::block_cyclic<1>(idx<1>{b}), line}, D2{dmap::block_cyclic<1>(idx<1>{b}), line};
  dmap::array<double, 1> A{D1}, B{D2};
  prepare(A, B);
  auto plan = dmap::plan_assignment(A, B);
  const dmap::plan_summary s = plan.summary();
  // Locale q holds blocks q, q + p, ...; on one locale they follow one another in index
  // space and in storage, so the ten copies are one; on more, each is a run of its own, and
  // the full blocks, alike but for a translation, are one part repeated (the short last
  // block another).
  index_t blocks = 0, full = 0;
  for (index_t k = me; k * b < n; k += p) ++blocks, full += (k + 1) * b <= n;
  const index_t want_runs = p == 1 ? 1 : blocks;
  const std::size_t want_parts = p == 1 ? 1 : (full > 0 ? 1 : 0) + (blocks > full ? 1 : 0);
  INFO("locale " << me << ": parts " << s.parts << ", local_runs " << s.local_runs << ", expected " << want_parts
                 << " and " << want_runs);
  DMAP_CHECK_ALL((s.parts == want_parts && s.local_runs == want_runs && s.message_runs == 0));
  plan.run();
  DMAP_CHECK_ALL(mismatches(A, [](const idx<1>& i) { return value(i); }) == 0);
}

}  // namespace test_merged_runs
