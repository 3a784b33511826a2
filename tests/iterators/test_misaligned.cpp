// Zips and assignments across different distributions and index sets of one shape.
//
// For every ordered pair of maps (Block on three grids, Cyclic, BlockCyclic, Irregular Block, a
// column-major Dimensional mix, Replicated, Stencil, the user-defined weighted_block, Hashed and
// Unstructured) and several relations of
// the two index sets (equal, shifted, strided against unit stride, reversed), a zip pairs the
// k-th index (row-major) of the leader with the k-th of the follower. Oracle: the follower's
// element k holds g(k); the loop must read g(k) at the leader's index k, write back to the
// follower when the body writes it, and reduce to the closed-form sum. The same pairs check
// A = B between the index sets. Plan statistics show that a repeated loop builds nothing; the
// communication of a row-block / column-block zip is asserted exactly. Leaders kept in a
// directory (Hashed, Unstructured) stage their followers like the others.
#include "../maps_2d.hpp"
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace test_misaligned {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using namespace dmap::testing::oracle;
using dmap::testing::maps::maker;
using dmap::testing::maps::makers;


/// The index set pairs: (leader's, follower's), one shape.
std::vector<std::pair<rect<2>, rect<2>>> relations() {
  return {{rect<2>{range(0, 7), range(0, 9)}, rect<2>{range(0, 7), range(0, 9)}},
          {rect<2>{range(0, 7), range(0, 9)}, rect<2>{range(3, 10), range(-4, 5)}},
          {rect<2>{range(0, 7), range(0, 9)}, rect<2>{range(0, 14, 2), range(1, 28, 3)}},
          {rect<2>{range(0, 7, 1), range(-9, 0)}, rect<2>{range(0, 7, -1), range(0, 9, -1)}}};
}

double g(index_t k) { return 0.5 + static_cast<double>(k); }

/// Collective: the loops and assignments of the file header for one pair over one relation.
std::string check_pair(const maker& lead, const maker& follow, const rect<2>& rl, const rect<2>& rf) {
  std::string fail;
  const auto L = lead.make(rl);
  const auto F = follow.make(rf);
  dmap::array<double, 2> A(L), B(F);
  dmap::forall(dmap::zip(B, F), [&](double& b, const idx<2>& i) { b = g(rf.order_of(i)); });
  const index_t n = rl.size();
  const auto err = [&](const std::string& what, const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      if (fail.empty()) fail = what + " threw: " + e.what();
    }
  };
  {
    // Read the follower at the leader's indices.
    err("forall read", [&] {
      dmap::forall(dmap::zip(A, std::as_const(B)), [](double& a, const double& b) { a = b; });
    });
    for (index_t k = 0; k < n; ++k)
      if (L.locale_of(rl.index_at(k)) == dmap::here() && A.local(rl.index_at(k)) != g(k))
        fail = "forall read at order " + std::to_string(k);
    // Write the follower from the leader's loop.
    err("forall write", [&] {
      dmap::forall(dmap::zip(L, B), [&](const idx<2>& i, double& b) { b = -g(rl.order_of(i)); });
    });
    // (A replicated follower is written in each locale's own copy, where the leader runs.)
    const bool copies = follow.name == "replicated";
    for (index_t k = 0; k < n; ++k)
      if (F.locale_of(rf.index_at(k)) == dmap::here() && (!copies || L.locale_of(rl.index_at(k)) == dmap::here()) &&
          B.local(rf.index_at(k)) != -g(k))
        fail = "forall write-back at order " + std::to_string(k);
    if (copies) dmap::forall(dmap::zip(B, F), [&](double& b, const idx<2>& i) { b = -g(rf.order_of(i)); });
    // Reduce over the zip.
    double sum = 0;
    for (index_t k = 0; k < n; ++k) sum += g(k) * -g(k);
    double got = 0;
    err("reduce", [&] {
      got = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{}, [](double a, double b) { return a * b; });
    });
    if (got != sum) fail = "reduce " + std::to_string(got) + " != " + std::to_string(sum);
    // Again: no new plan.
    const auto before = dmap::plan_statistics();
    err("forall again", [&] {
      dmap::forall(dmap::zip(A, std::as_const(B)), [](double& a, const double& b) { a = b; });
    });
    const auto after = dmap::plan_statistics();
    if (after.built != before.built) fail = "the repeated loop built a plan";
  }
  // A = B between the index sets, and back.
  dmap::forall(dmap::zip(B, F), [&](double& b, const idx<2>& i) { b = g(rf.order_of(i)); });
  err("A = B", [&] { A = B; });
  for (index_t k = 0; k < n; ++k)
    if (L.locale_of(rl.index_at(k)) == dmap::here() && A.local(rl.index_at(k)) != g(k))
      fail = "A = B at order " + std::to_string(k);
  dmap::forall(dmap::zip(A, L), [&](double& a, const idx<2>& i) { a = 3 * g(rl.order_of(i)); });
  err("B = A", [&] { B = A; });
  for (index_t k = 0; k < n; ++k)
    if (F.locale_of(rf.index_at(k)) == dmap::here() && B.local(rf.index_at(k)) != 3 * g(k))
      fail = "B = A at order " + std::to_string(k);
  return fail;
}

}  // namespace

TEST_CASE("misaligned zip and assignment: every ordered pair of maps, several index-set relations",
          "[misaligned]") {
  const auto all = makers();
  const auto rels = relations();
  for (const auto& lead : all)
    for (const auto& follow : all)
      for (std::size_t k = 0; k < rels.size(); ++k) {
        INFO(lead.name << " leading " << follow.name << ", relation " << k << ": " << rels[k].first << " / "
                       << rels[k].second);
        CHECK_NO_FAILURE(check_pair(lead, follow, rels[k].first, rels[k].second));
      }
}

TEST_CASE("misaligned zip: row blocks against column blocks move exactly the elements needed, once",
          "[misaligned]") {
  const int p = dmap::num_locales();
  const index_t n = 12 * p;
  const rect<2> r{range(0, n), range(0, n)};
  dmap::domain<2> Rows{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, r};
  dmap::domain<2> Cols{dmap::block<2>{dmap::target_grid<2>{{1, p}}}, r};
  dmap::array<double, 2> A(Rows), B(Cols, 1.0);
  dmap::reset_plan_statistics();
  dmap::forall(dmap::zip(A, std::as_const(B)), [](double& a, const double& b) { a = b; });
  DMAP_CHECK_ALL(dmap::plan_statistics().built == (p > 1 ? 1u : 0u));
  dmap::reset_counters();
  dmap::forall(dmap::zip(A, std::as_const(B)), [](double& a, const double& b) { a = 2 * b; });
  const auto c = dmap::counters();
  // Locale q needs its n/p rows from every other locale's n/p columns: (p - 1) messages of
  // (n/p)^2 elements each way; a const follower is not copied back.
  const auto block = static_cast<std::uint64_t>((n / p) * (n / p)) * sizeof(double);
  DMAP_CHECK_ALL(c.messages_sent == static_cast<std::uint64_t>(p - 1) && c.messages_received == static_cast<std::uint64_t>(p - 1));
  DMAP_CHECK_ALL(c.bytes_sent == static_cast<std::uint64_t>(p - 1) * block && c.bytes_received == c.bytes_sent);
  DMAP_CHECK_ALL(dmap::plan_statistics().built == (p > 1 ? 1u : 0u));
  DMAP_CHECK_ALL(dmap::plan_statistics().reused == (p > 1 ? 1u : 0u));
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0, std::plus<>{}) == 2.0 * static_cast<double>(n * n));
  // Writing the follower sends the same volume back.
  dmap::reset_counters();
  dmap::forall(dmap::zip(A, B), [](const double& a, double& b) { b = a + 1; });
  const auto w = dmap::counters();
  DMAP_CHECK_ALL(w.messages_sent == 2 * static_cast<std::uint64_t>(p - 1) && w.bytes_sent == 2 * c.bytes_sent);
  DMAP_CHECK_ALL(dmap::reduce(B, 0.0, std::plus<>{}) == 3.0 * static_cast<double>(n * n));
}

TEST_CASE("misaligned zip: shapes must match; neighbourhoods cannot be staged", "[misaligned]") {
  dmap::domain<2> D{dmap::block<2>{}, rect<2>{range(0, 4), range(0, 6)}};
  dmap::domain<2> E{dmap::block<2>{}, rect<2>{range(0, 6), range(0, 4)}};
  dmap::array<double, 2> A(D), B(E);
  CHECK_THROWS_AS(dmap::forall(dmap::zip(A, B), [](double&, double&) {}), dmap::shape_error);
  CHECK_THROWS_WITH(dmap::forall(dmap::zip(A, B), [](double&, double&) {}),
                    Catch::Contains("{0..<6, 0..<4}") && Catch::Contains("{0..<4, 0..<6}"));
  CHECK_THROWS_AS(A = B, dmap::shape_error);
  const int p = dmap::num_locales();
  dmap::domain<2> S{dmap::stencil<2>{{1, 1}, {}, dmap::target_grid<2>{{1, p}}}, rect<2>{range(0, 4), range(0, 6)}};
  dmap::domain<2> R{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, rect<2>{range(0, 4), range(0, 6)}};
  dmap::array<double, 2> H(S), G(R);
  const auto run = [&] {
    dmap::forall(dmap::zip(G, dmap::neighbors(std::as_const(H), 1)), [](double& g, const auto& h) { g = h(0, 0); });
  };
  if (p > 1) CHECK_THROWS_AS(run(), dmap::unsupported_error);
  else CHECK_NOTHROW(run());
}

TEST_CASE("redistribution between block-cyclic maps with many small blocks (indexed block pairing)",
          "[misaligned]") {
  // Enough blocks per locale that pairing goes through the band index of dsi/transfer.hpp.
  const rect<1> line{range(-17, 4983)};
  dmap::domain<1> B3{dmap::block_cyclic<1>{idx<1>{3}}, line}, B7{dmap::block_cyclic<1>{idx<1>{7}}, line};
  dmap::array<double, 1> X(B3), Y(B7);
  dmap::forall(dmap::zip(X, B3), [](double& x, const idx<1>& i) { x = fval(i); });
  Y = X;
  std::string fail;
  for (const auto& r : B7.local_subdomains())
    for (const auto& i : points_of(r))
      if (Y.local(i) != fval(i)) fail = "Y = X at " + text(i);
  CHECK_NO_FAILURE(fail);
  const rect<2> square{range(0, 61), range(-5, 55, 1)};
  dmap::domain<2> S23{dmap::block_cyclic<2>{idx<2>{2, 3}}, square};
  dmap::domain<2> S32{dmap::block_cyclic<2>{idx<2>{3, 2}, dmap::target_grid<2>{}, dmap::storage_order::column_major}, square};
  dmap::array<double, 2> U(S23), V(S32);
  dmap::forall(dmap::zip(U, S23), [](double& u, const idx<2>& i) { u = fval(i); });
  V = U;
  // And a zip of the two: V staged onto U's blocks.
  dmap::forall(dmap::zip(U, std::as_const(V)), [](double& u, const double& v) { u = 2 * v; });
  for (const auto& r : S23.local_subdomains())
    for (const auto& i : points_of(r))
      if (U.local(i) != 2 * fval(i)) fail = "zip(U, V) at " + text(i);
  CHECK_NO_FAILURE(fail);
}

}  // namespace test_misaligned
