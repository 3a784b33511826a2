// Transfer plans between periodic maps (Cyclic, BlockCyclic) and others: the pieces one peer
// meets, alike but for a translation by the period, are one part repeated (start, count,
// stride per level), so a plan holds a few parts per peer, not one per piece. Checked: every
// element lands where the destination's map puts it (values computed from the index), over
// uneven sizes, block sizes that divide each other or not, 1-D and 2-D grids, column-major
// storage (ScaLAPACK's layout), views, and both transfer paths (node copies and messages);
// and the plan's size: parts per peer bounded independently of the size, plan memory at
// most 1/8 of the local data at block size 8; messages between column-major maps packed in
// columns.
#include "../oracle.hpp"
#include "../support.hpp"
#include "../../algorithms/assignment_plan.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace test_periodic_plans {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::oracle::fval;

using dmap::testing::mismatches;
using dmap::testing::node_settings;

// Collective: B over `from` filled with fval, copied into A over `to` twice (the second time
// through the kept plan); true when A holds fval everywhere.
template <std::size_t N>
bool copies_exactly(const dmap::domain<N>& from, const dmap::domain<N>& to) {
  dmap::array<double, N> B{from}, A{to};
  dmap::forall(dmap::zip(B, from), [](double& b, const idx<N>& i) { b = fval(i); });
  A = B;
  index_t bad = mismatches(A, [](const idx<N>& i) { return fval(i); });
  dmap::forall(A, [](double& a) { a = -1; });
  A = B;
  bad += mismatches(A, [](const idx<N>& i) { return fval(i); });
  return bad == 0;
}

// Collective: on both transfer paths, a plan of X = Y each way between `a` and `b` (Y filled
// with fval); `check(summary)` looks at the plan, then the plan runs and X must hold fval.
template <std::size_t N, class Check>
void plan_each_way(const dmap::domain<N>& a, const dmap::domain<N>& b, Check&& check) {
  for (const bool node : {true, false}) {
    const node_settings settings(node);
    for (const bool forward : {true, false}) {
      INFO("node " << node << ", forward " << forward);
      dmap::array<double, N> X{forward ? a : b}, Y{forward ? b : a};
      dmap::forall(dmap::zip(Y, Y.domain()), [](double& y, const idx<N>& i) { y = fval(i); });
      auto plan = dmap::plan_assignment(X, Y);
      check(plan.summary());
      plan.run();
      DMAP_CHECK_ALL(mismatches(X, [](const idx<N>& i) { return fval(i); }) == 0);
    }
  }
}

}  // namespace

TEST_CASE("periodic plans: 1-D BlockCyclic, Cyclic and Block in every pairing, uneven sizes, both paths", "[transfer][periodic]") {
  for (const bool node : {true, false}) {
    const node_settings settings(node);
    for (const index_t n : {1, 7, 97, 1000, 4099}) {
      const rect<1> line{range(0, n)};
      std::vector<dmap::domain<1>> maps;
      maps.emplace_back(dmap::block<1>{}, line);
      maps.emplace_back(dmap::cyclic<1>{}, line);
      for (const index_t b : {3, 8, 16, 24, 64}) maps.emplace_back(dmap::block_cyclic<1>(idx<1>{b}), line);
      maps.emplace_back(dmap::block_cyclic<1>(idx<1>{5}, idx<1>{-2}), line);  // blocks not from the low bound
      for (const auto& from : maps)
        for (const auto& to : maps) {
          INFO("node " << node << ", n " << n << ": " << from.name() << " -> " << to.name());
          DMAP_CHECK_ALL(copies_exactly(from, to));
        }
    }
  }
}

TEST_CASE("periodic plans: 2-D BlockCyclic on row, column and square grids, column-major storage", "[transfer][periodic]") {
  const int p = dmap::num_locales();
  const rect<2> space{range(-3, 70), range(5, 58)};  // uneven on every locale count
  std::vector<dmap::target_grid<2>> grids{dmap::target_grid<2>({p, 1}), dmap::target_grid<2>({1, p})};
  if (p == 4) grids.push_back(dmap::target_grid<2>({2, 2}));
  for (const bool node : {true, false}) {
    const node_settings settings(node);
    std::vector<dmap::domain<2>> maps;
    maps.emplace_back(dmap::block<2>{}, space);
    maps.emplace_back(dmap::cyclic<2>{}, space);
    for (const auto& g : grids) {
      maps.emplace_back(dmap::block<2>{g}, space);
      maps.emplace_back(dmap::block_cyclic<2>(idx<2>{4, 6}, g), space);
      maps.emplace_back(dmap::block_cyclic<2>(idx<2>{8, 3}, g, dmap::storage_order::column_major), space);
      maps.emplace_back(dmap::block_cyclic<2>(idx<2>{16, 12}, g, dmap::storage_order::column_major), space);
    }
    for (const auto& from : maps)
      for (const auto& to : maps) {
        INFO("node " << node << ": " << from.name() << " -> " << to.name());
        DMAP_CHECK_ALL(copies_exactly(from, to));
      }
  }
}

TEST_CASE("periodic plans: views of BlockCyclic arrays (sections, shifted and strided slices)", "[transfer][periodic]") {
  const rect<2> space{range(0, 61), range(0, 45)};
  dmap::domain<2> bc{dmap::block_cyclic<2>(idx<2>{8, 4}), space}, blk{dmap::block<2>{}, space};
  dmap::array<double, 2> B{bc}, A{blk};
  dmap::forall(dmap::zip(B, bc), [](double& b, const idx<2>& i) { b = fval(i); });
  dmap::forall(A, [](double& a) { a = -1; });
  const rect<2> dst{range(0, 40), range(10, 30)}, src{range(13, 53), range(2, 22)};
  A[dst] = B[src];  // shifted
  const rect<2> strided_dst{range(0, 60, 2), range(0, 45)}, strided_src{range(0, 30), range(0, 45)};
  dmap::array<double, 2> C{blk};
  dmap::forall(C, [](double& c) { c = -1; });
  C[strided_dst] = B[strided_src];  // every other row of C from the first 30 rows of B
  index_t bad = mismatches(A, [&](const idx<2>& i) {
    return dst.contains(i) ? fval(idx<2>{i[0] + 13, i[1] - 8}) : -1.0;
  });
  bad += mismatches(C, [&](const idx<2>& i) { return i[0] % 2 == 0 && i[0] < 60 ? fval(idx<2>{i[0] / 2, i[1]}) : -1.0; });
  DMAP_CHECK_ALL(bad == 0);
}

TEST_CASE("periodic plans: one part per peer and family, plan memory at most 1/8 of the local data", "[transfer][periodic]") {
  const int p = dmap::num_locales();
  const index_t per_locale = 65536, n = per_locale * p;
  const rect<1> line{range(0, n)};
  dmap::domain<1> bc{dmap::block_cyclic<1>(idx<1>{8}), line}, blk{dmap::block<1>{}, line};
  plan_each_way(blk, bc, [&](const dmap::plan_summary& s) {
    // Each peer's pieces (8 elements, every 8p indices) are one part; so are the copies
    // this locale makes within itself. Block boundaries are multiples of 8 here.
    INFO("parts " << s.parts << ", plan bytes " << s.plan_bytes);
    DMAP_CHECK_ALL(s.parts <= s.messages_sent() + s.messages_received() + 1);
    DMAP_CHECK_ALL(s.plan_bytes * 8 <= static_cast<std::size_t>(per_locale) * sizeof(double));
    // The runs still count every piece: 8 elements each.
    if (p > 1)  // (on one locale the pieces follow one another: one copy of everything)
      DMAP_CHECK_ALL(s.message_runs + s.local_runs ==
                     (s.elements_sent + s.elements_received + s.elements_copied) / 8);
  });
}

TEST_CASE("periodic plans: messages between column-major maps are packed column by column", "[transfer][periodic]") {
  // Two columns, pieces of 16 rows: a column of a piece is 16 elements in a row of
  // column-major storage, on both sides; a row of it is at most 2 elements a whole column
  // apart. The messages follow the destination's storage order, so each run has 16 elements
  // at least (in row-major order there would be one run per row).
  const int p = dmap::num_locales();
  const rect<2> space{range(0, 64 * p), range(3, 5)};
  const auto column_major = dmap::storage_order::column_major;
  for (const auto& grid : {dmap::target_grid<2>({p, 1}), dmap::target_grid<2>::balanced(p)}) {
    dmap::domain<2> bc{dmap::block_cyclic<2>(idx<2>{16, 1}, grid, column_major), space};
    dmap::domain<2> blk{dmap::block<2>(dmap::target_grid<2>({p, 1}), column_major), space};
    INFO("grid " << grid);
    plan_each_way(blk, bc, [](const dmap::plan_summary& s) {
      INFO("runs " << s.message_runs << ", elements " << s.elements_sent + s.elements_received);
      DMAP_CHECK_ALL(s.message_runs * 16 <= s.elements_sent + s.elements_received);
    });
  }
}

}  // namespace test_periodic_plans
