// Scale: plans as objects (plan_assignment, start/finish, summaries that match
// the counters), the scale model (one locale's plan for any locale count, checked against
// the real plans at the rank counts the suite runs and for consistency between all locales
// of simulated machines), and the per-dimension searches behind them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <numeric>
#include <vector>

#include "../../algorithms/assignment_plan.hpp"
#include "../../algorithms/detail/plan_model.hpp"
#include "../../algorithms/plan_model.hpp"
#include "../../dmap.hpp"
#include "../support.hpp"

namespace test_scale {

using namespace dmap;

namespace {

double value_at(index_t i) { return 0.5 * static_cast<double>(i) + 3.0; }
double value_at(const idx<2>& i) { return static_cast<double>(i[0] * 1000 + i[1]); }

// Every locale of a simulated machine: what each sends to each other locale must be what
// that locale expects to receive, element for element.
template <class Model>
void check_model_consistent(int locales, Model&& model) {
  std::vector<plan_summary> all;
  for (int q = 0; q < locales; ++q) all.push_back(model(q));
  index_t sent = 0, received = 0;
  for (int q = 0; q < locales; ++q) {
    sent += all[static_cast<std::size_t>(q)].elements_sent;
    received += all[static_cast<std::size_t>(q)].elements_received;
    for (int peer : all[static_cast<std::size_t>(q)].send_peers) {
      const auto& r = all[static_cast<std::size_t>(peer)].receive_peers;
      INFO("locale " << q << " sends to " << peer);
      CHECK(std::binary_search(r.begin(), r.end(), q));
    }
    for (int peer : all[static_cast<std::size_t>(q)].receive_peers) {
      const auto& s = all[static_cast<std::size_t>(peer)].send_peers;
      INFO("locale " << q << " receives from " << peer);
      CHECK(std::binary_search(s.begin(), s.end(), q));
    }
  }
  CHECK(sent == received);
}

}  // namespace

TEST_CASE("plan_assignment: built once, run many times, start and finish", "[scale]") {
  const index_t n = 1000 + 7 * num_locales();
  domain<1> blocks(block<1>{}, rect<1>{range(0, n)});
  domain<1> dealt(cyclic<1>{}, rect<1>{range(0, n)});
  array<double, 1> a(blocks, 0.0);
  array<double, 1> b(dealt, 0.0);
  forall(b.domain(), [&](const idx<1>& i) { b.local(i) = value_at(i[0]); });

  auto plan = plan_assignment(a, b);
  const plan_summary s = plan.summary();
  reset_counters();
  plan.run();
  const comm_counters c = counters();
  CHECK(c.messages_sent == s.messages_sent());
  CHECK(c.messages_received == s.messages_received());
  CHECK(c.bytes_sent == plan.bytes_sent());
  CHECK(c.bytes_received == plan.bytes_received());
  CHECK(c.collectives <= 2);  // the agreement that both sides are the planned ones
  DMAP_CHECK_ALL(reduce(zip(a, blocks), 0, std::plus<>{}, [](double v, const idx<1>& i) {
                   return v == value_at(i[0]) ? 0 : 1;
                 }) == 0);

  // Overlap: start, compute on other data, finish; new values arrive.
  forall(b.domain(), [&](const idx<1>& i) { b.local(i) = -value_at(i[0]); });
  plan.start();
  CHECK(plan.in_flight());
  CHECK_THROWS_AS(plan.start(), argument_error);
  plan.finish();
  CHECK_FALSE(plan.in_flight());
  CHECK_THROWS_AS(plan.finish(), argument_error);
  DMAP_CHECK_ALL(reduce(zip(a, blocks), 0, std::plus<>{}, [](double v, const idx<1>& i) {
                   return v == -value_at(i[0]) ? 0 : 1;
                 }) == 0);

  // The plan is the one `a = b` uses (the destination domain's cache).
  reset_plan_statistics();
  a = b;
  CHECK(plan_statistics().built == 0);

  // A side whose domain changes its indices makes the plan stale, on every locale.
  dealt.set_indices(rect<1>{range(0, n + 1)});
  dmap::testing::throws_with<argument_error>([&] { plan.run(); }, "changed its indices");
}

TEST_CASE("plan_assignment between views and arrays of different index sets", "[scale]") {
  const index_t n = 64 + 5 * num_locales();
  domain<2> rows(block<2>(target_grid<2>({num_locales(), 1})), rect<2>{range(0, n), range(0, n)});
  domain<2> cols(block<2>(target_grid<2>({1, num_locales()})), rect<2>{range(10, 10 + n), range(-3, n - 3)});
  array<double, 2> a(rows, 0.0), b(cols, 0.0);
  forall(b.domain(), [&](const idx<2>& i) { b.local(i) = value_at(i); });
  auto plan = plan_assignment(a, b);
  plan.run();
  DMAP_CHECK_ALL(reduce(zip(a, rows), 0, std::plus<>{}, [](double v, const idx<2>& i) {
                   return v == value_at(idx<2>{i[0] + 10, i[1] - 3}) ? 0 : 1;
                 }) == 0);
  // A view as destination: the inner square of a.
  const rect<2> inner{range(1, n - 1), range(1, n - 1)};
  auto va = dmap::slice(a, inner);
  forall(a.domain(), [&](const idx<2>& i) { a.local(i) = 0; });
  auto vb = dmap::slice(b, rect<2>{range(11, 9 + n), range(-2, n - 4)});
  auto view_plan = plan_assignment(va, vb);
  view_plan.run();
  DMAP_CHECK_ALL(reduce(zip(a, rows), 0, std::plus<>{}, [&](double v, const idx<2>& i) {
                   const double want = inner.contains(i) ? value_at(idx<2>{i[0] + 10, i[1] - 3}) : 0.0;
                   return v == want ? 0 : 1;
                 }) == 0);
  CHECK_THROWS_AS(plan_assignment(a, vb), shape_error);
}

// A real plan as the model sees it: a simulated machine has no node peers to copy into.
plan_summary simulated_view(plan_summary s) {
  s.plan_bytes -= s.node_copy_bytes;
  s.node_copy_bytes = 0;
  return s;
}

TEST_CASE("the scale model gives the real plans", "[scale]") {
  const int p = num_locales(), me = here();
  const index_t per = 1000 + 13 * p;
  const index_t n = per * p + 3;  // uneven
  const rect<1> line{range(0, n)};

  SECTION("BlockCyclic(8) -> Block, 1-D") {
    domain<1> from(block_cyclic<1>(idx<1>{8}), line), to(block<1>{}, line);
    array<double, 1> a(to, 0.0), b(from, 1.0);
    const plan_summary real = simulated_view(plan_assignment(a, b).summary());
    CHECK(real == model_assignment(block<1>{}, line, block_cyclic<1>(idx<1>{8}), line, me, p));
  }
  SECTION("Block -> Cyclic, 1-D, shifted index sets") {
    const rect<1> shifted{range(-5, n - 5)};
    domain<1> from(block<1>{}, shifted), to(cyclic<1>{}, line);
    array<double, 1> a(to, 0.0), b(from, 1.0);
    const plan_summary real = simulated_view(plan_assignment(a, b).summary());
    CHECK(real == model_assignment(cyclic<1>{}, line, block<1>{}, shifted, me, p));
  }
  SECTION("row blocks -> column blocks, 2-D") {
    const rect<2> square{range(0, 37 + p), range(0, 41)};
    const block<2> by_rows(target_grid<2>({p, 1})), by_cols(target_grid<2>({1, p}));
    domain<2> from(by_rows, square), to(by_cols, square);
    array<double, 2> a(to, 0.0), b(from, 1.0);
    const plan_summary real = simulated_view(plan_assignment(a, b).summary());
    CHECK(real == model_assignment(by_cols, square, by_rows, square, me, p));
  }
  SECTION("3-D periodic stencil halo update") {
    const rect<3> cube{range(0, 12), range(0, 10), range(0, 9)};
    const stencil<3> map(idx<3>{1, 2, 1}, {true, false, true});
    domain<3> d(map, cube);
    array<double, 3> a(d, 1.0);
    update_halos(a);  // the plan is built
    reset_counters();
    update_halos(a);
    const comm_counters c = counters();
    const plan_summary model = model_halo_update(map, cube, me, p);
    CHECK(c.messages_sent == model.messages_sent());
    CHECK(c.messages_received == model.messages_received());
    CHECK(c.bytes_sent == static_cast<std::uint64_t>(model.elements_sent) * sizeof(double));
    CHECK(c.bytes_received == static_cast<std::uint64_t>(model.elements_received) * sizeof(double));
  }
}

TEST_CASE("simulated machines: every locale's plan agrees with its peers'", "[scale]") {
  if (here() != 0) return;  // serial, no messages: one locale checks
  for (int p : {1, 3, 8, 37}) {
    INFO("locales " << p);
    const rect<1> line{range(0, 101 * p + 5)};
    check_model_consistent(p, [&](int q) {
      return model_assignment(block<1>(target_grid<1>({p}, p)), line,
                              block_cyclic<1>(idx<1>{8}, target_grid<1>({p}, p)), line, q, p);
    });
    check_model_consistent(p, [&](int q) {
      return model_assignment(cyclic<1>(std::nullopt, target_grid<1>({p}, p)), line, block<1>(target_grid<1>({p}, p)),
                              line, q, p);
    });
    const rect<3> cube{range(0, 2 * p + 3), range(0, 7), range(0, 6)};
    const auto grid = target_grid<3>(target_grid<3>::balanced(p).shape(), p);
    check_model_consistent(p, [&](int q) {
      return model_halo_update(stencil<3>(idx<3>{1, 1, 1}, {true, true, false}, grid), cube, q, p);
    });
  }
}

TEST_CASE("simulated plans at scale hold only their peers", "[scale]") {
  if (here() != 0) return;
  const int p = 4096;
  const index_t per = 64;
  const rect<1> line{range(0, per * p)};
  const target_grid<1> grid({p}, p);
  // Block -> Cyclic: locale 100's block [6400, 6464) goes to the 64 cyclic locales 2304..2367;
  // it receives its 64 cyclic indices 100 + 4096 k from Block locales 64 k + 1.
  const plan_summary s = model_assignment(cyclic<1>(std::nullopt, grid), line, block<1>(grid), line, 100, p);
  CHECK(s.elements_sent == per);
  CHECK(s.elements_copied == 0);
  REQUIRE(s.send_peers.size() == static_cast<std::size_t>(per));
  CHECK(s.send_peers.front() == 2304);
  CHECK(s.send_peers.back() == 2367);
  CHECK(s.elements_received == per);
  REQUIRE(s.receive_peers.size() == static_cast<std::size_t>(per));
  CHECK(s.receive_peers[1] == 65);
  // BlockCyclic(8) -> Block: locale 7's Block part [448, 512) is blocks 56..63, one per
  // locale; its 8 own blocks 7 + 4096 k (k < 8) start at 56 + 32768 k, in Block locale 512 k.
  const plan_summary t = model_assignment(block<1>(grid), line, block_cyclic<1>(idx<1>{8}, grid), line, 7, p);
  CHECK(t.receive_peers == std::vector<int>{56, 57, 58, 59, 60, 61, 62, 63});
  CHECK(t.elements_received == per);
  REQUIRE(t.send_peers.size() == 8);
  CHECK(t.send_peers[1] == 512);
  CHECK(t.send_peers[7] == 3584);
  CHECK(t.elements_sent == per);
  // Bad arguments.
  CHECK_THROWS_AS(model_assignment(block<1>(grid), line, cyclic<1>(std::nullopt, grid), line, p, p), argument_error);
  CHECK_THROWS_AS(model_assignment(block<1>(grid), line, cyclic<1>(std::nullopt, grid), line, -1, p), argument_error);
  CHECK_THROWS_AS(model_assignment(block<1>(grid), line, cyclic<1>(std::nullopt, grid), rect<1>{range(0, 5)}, 0, p), shape_error);
  CHECK_THROWS_AS(model_halo_update(block<1>(grid), line, 0, p), argument_error);
}

TEST_CASE("simulated all-to-all plans keep one message per run of peers", "[scale]") {
  if (here() != 0) return;
  {
    const int p = 4096, me = 1000;
    const rect<1> line{range(0, 3 * index_t{p} * p + 5)};  // uneven: Block chunks of two lengths
    const target_grid<1> grid({p}, p);
    const plan_summary s = model_assignment(cyclic<1>(std::nullopt, grid), line, block<1>(grid), line, me, p);
    CHECK(s.messages_sent() == static_cast<std::size_t>(p - 1));
    CHECK(s.messages_received() == static_cast<std::size_t>(p - 1));
    CHECK(s.elements_sent + s.elements_copied == block<1>::chunk_indices(line.dim(0), 0, line.dim(0).hi(), p, me).size());
    // Without runs of peers: 8,190 parts. Runs break at this locale and where the counts
    // change (Block chunks of two lengths).
    INFO("parts " << s.parts << ", plan bytes " << s.plan_bytes);
    CHECK(s.parts <= 16);
    CHECK(s.plan_bytes < 4096);
    const rect<2> square{range(0, 2 * index_t{p} + 3), range(0, 3 * index_t{p} + 1)};
    const plan_summary t = model_assignment(block<2>(target_grid<2>({1, p}, p)), square,
                                            block<2>(target_grid<2>({p, 1}, p)), square, me, p);
    INFO("parts " << t.parts << ", plan bytes " << t.plan_bytes);
    CHECK(t.messages_sent() == static_cast<std::size_t>(p - 1));
    CHECK(t.parts <= 16);
    CHECK(t.plan_bytes < 8192);
  }
}

namespace {

// Each peer's storage offsets in `messages` (a plan's sends or receives), every run of peers
// and every repeated part expanded, sorted.
template <class Messages>
std::map<int, std::vector<index_t>> offsets_by_peer(const Messages& messages) {
  std::map<int, std::vector<index_t>> out;
  for (const auto& m : messages)
    detail::for_each_peer_of(m, [&](int peer, index_t moved) {
      for (const auto& pc : m.parts)
        detail::for_each_part_run(pc, m.order, [&](index_t offset, index_t step, index_t count) {
          for (index_t k = 0; k < count; ++k) out[peer].push_back(offset + moved + k * step);
        });
    });
  for (auto& entry : out) std::sort(entry.second.begin(), entry.second.end());
  return out;
}

// The same by brute force: for every pair of this locale's blocks `mine` and peer q's blocks
// (`blocks_of(q)`), the storage offsets in `mine` of their common indices.
template <std::size_t N, class BlocksOf>
std::map<int, std::vector<index_t>> expected_offsets(const std::vector<detail::placed_block<N>>& mine, int me, int p,
                                                     BlocksOf&& blocks_of) {
  std::map<int, std::vector<index_t>> out;
  for (int q = 0; q < p; ++q) {
    if (q == me) continue;
    for (const auto& b : mine)
      for (const auto& c : blocks_of(q)) {
        const rect<N> common = b.owned.intersect(c.owned);
        if (common.empty()) continue;
        std::array<std::size_t, N> counts{};
        for (std::size_t d = 0; d < N; ++d) counts[d] = static_cast<std::size_t>(common.dim(d).size());
        detail::for_each_combination<N>(counts, [&](const std::array<std::size_t, N>& k) {
          idx<N> i;
          for (std::size_t d = 0; d < N; ++d) i[d] = common.dim(d).first() + static_cast<index_t>(k[d]) * common.dim(d).stride();
          out[q].push_back(b.layout.offset_of(i));
        });
      }
  }
  for (auto& entry : out) std::sort(entry.second.begin(), entry.second.end());
  return out;
}

// Locale `me`'s plan of `to = from` on a simulated machine of p locales, through the maps'
// own answers (as model_assignment plans), against every pair of blocks intersected.
template <std::size_t N, class ToDist, class FromDist>
void check_plan_offsets(const ToDist& to, const FromDist& from, const rect<N>& indices, int me, int p) {
  const detail::simulating as({me, p});
  const auto [to_model, to_where] = detail::modelled(to, indices, "test");
  const auto [from_model, from_where] = detail::modelled(from, indices, "test");
  const detail::transfer_plan<N> plan(me, from_where.mine, *from_where.peers, to_where.mine, *to_where.peers);
  const auto blocks = [](const auto& query) { return [&query](int q) { return query.blocks(q); }; };
  INFO("locale " << me << " of " << p);
  CHECK(offsets_by_peer(plan.sends()) == expected_offsets<N>(from_where.mine, me, p, blocks(*to_where.peers)));
  CHECK(offsets_by_peer(plan.receives()) == expected_offsets<N>(to_where.mine, me, p, blocks(*from_where.peers)));
}

}  // namespace

TEST_CASE("plans found in runs of peers give each peer exactly its elements", "[scale]") {
  if (here() != 0) return;  // serial: simulated locales
  for (int p : {3, 5, 37}) {
    const target_grid<1> grid({p}, p);
    for (index_t n : {index_t{3} * p + 2, index_t{101} * p + 5, index_t{8} * p * p + 9}) {
      const rect<1> line{range(-3, n - 3)};
      INFO("n " << n);
      for (int me : {0, 1, p / 2, p - 1}) {
        check_plan_offsets<1>(cyclic<1>(std::nullopt, grid), block<1>(grid), line, me, p);
        check_plan_offsets<1>(block<1>(grid), cyclic<1>(std::nullopt, grid), line, me, p);
        check_plan_offsets<1>(block<1>(grid), block_cyclic<1>(idx<1>{3}, grid), line, me, p);
        check_plan_offsets<1>(block_cyclic<1>(idx<1>{8}, grid), cyclic<1>(std::nullopt, grid), line, me, p);
      }
    }
    // Index sets at both ends of int64: parts' bounds reach past their indices there, so a
    // run's members are moved by index, never by bound.
    const index_t lowest = std::numeric_limits<index_t>::min(), highest = std::numeric_limits<index_t>::max();
    for (const rect<1>& edge : {rect<1>{range(highest - 3 * p - 2, highest)}, rect<1>{range(lowest, lowest + 3 * p + 2)}})
      for (int me : {0, 1, p - 1}) {
        INFO("edge " << edge);
        check_plan_offsets<1>(cyclic<1>(std::nullopt, grid), block<1>(grid), edge, me, p);
        check_plan_offsets<1>(block<1>(grid), cyclic<1>(std::nullopt, grid), edge, me, p);
        check_plan_offsets<1>(block<1>(grid), block_cyclic<1>(idx<1>{2}, grid), edge, me, p);
        check_plan_offsets<1>(block_cyclic<1>(idx<1>{2}, grid), block<1>(grid), edge, me, p);
      }
    const rect<2> square{range(0, 2 * index_t{p} + 3), range(1, 3 * index_t{p} + 2)};
    const block<2> by_rows(target_grid<2>({p, 1}, p)), by_cols(target_grid<2>({1, p}, p));
    for (int me : {0, 2, p - 1}) {
      check_plan_offsets<2>(by_cols, by_rows, square, me, p);
      check_plan_offsets<2>(dimensional<2>({block_dim{}, cyclic_dim{}}, target_grid<2>({1, p}, p)), by_rows, square, me, p);
    }
  }
}

TEST_CASE("all-to-all transfers in runs of peers deliver every element, both paths", "[scale]") {
  {
    const int p = num_locales();
    for (bool node : {true, false}) {
      const testing::node_settings settings(node);
      for (index_t n : {index_t{0}, index_t{5}, 7 * index_t{p} + 3, 1000 * index_t{p} + 1}) {
        const rect<1> line{range(-2, n - 2)};
        domain<1> blocks(block<1>{}, line), dealt(cyclic<1>{}, line);
        array<double, 1> a(blocks, 0.0), b(dealt, 0.0);
        forall(zip(a, blocks), [](double& v, const idx<1>& i) { v = value_at(i[0]); });
        b = a;
        CHECK(testing::mismatches(b, [](const idx<1>& i) { return value_at(i[0]); }) == 0);
        forall(b, [](double& v) { v = -v; });
        a = b;
        CHECK(testing::mismatches(a, [](const idx<1>& i) { return -value_at(i[0]); }) == 0);
        const rect<2> square{range(0, 3 * index_t{p} + 2), range(1, n / 50 + 4)};
        domain<2> rows(block<2>(target_grid<2>({p, 1})), square), cols(block<2>(target_grid<2>({1, p})), square);
        array<double, 2> r(rows, 0.0), c(cols, 0.0);
        forall(zip(r, rows), [](double& v, const idx<2>& i) { v = value_at(i); });
        c = r;
        CHECK(testing::mismatches(c, [](const idx<2>& i) { return value_at(i); }) == 0);
      }
    }
  }
}

TEST_CASE("dimension_cut: pieces meeting a range are exactly the pieces there", "[scale]") {
  for (index_t stride : {1, -1, 3, -2})
    for (int parts : {1, 2, 5})
      for (index_t b : {1, 3, 8}) {
        const range whole = range(-17, 90, stride);
        const dimension_cut cut(block_cyclic_dim{b, index_t{-20}}, whole, parts);
        for (int k = 0; k < parts; ++k)
          for (const range& r : {range(-30, -10), range(0, 1), range(5, 40), range(-100, 100), range(88, 95)}) {
            std::vector<range> want;
            for (const auto& piece : cut.pieces(k))
              if (!piece.intersect(r).empty()) want.push_back(piece);
            INFO("stride " << stride << " parts " << parts << " block " << b << " k " << k << " r " << r);
            CHECK(cut.pieces_meeting(k, r) == want);
            const auto coords = cut.coordinates_meeting(r);
            if (!want.empty()) CHECK(std::binary_search(coords.begin(), coords.end(), k));
          }
      }
}

TEST_CASE("dimension_cut: every coordinate's pieces meeting a range, asked at once", "[scale]") {
  const std::vector<dim_spec> specs = {block_dim{},         cyclic_dim{},          cyclic_dim{index_t{-20}},
                                       cyclic_dim{index_t{7}}, block_cyclic_dim{1, index_t{3}}, block_cyclic_dim{3, index_t{-20}},
                                       block_cyclic_dim{8, std::nullopt}};
  for (const auto& spec : specs)
    for (index_t stride : {1, -1, 3})
      for (int parts : {1, 2, 5, 7}) {
        const dimension_cut cut(spec, range(-17, 90, stride), parts);
        for (const range& r : {range(-30, -10), range(0, 1), range(5, 40), range(-100, 100), range(86, 95), range(0, 60, 4),
                               range(-5, 2), range(10, 10)}) {
          std::vector<std::pair<int, range>> want;
          for (int k : cut.coordinates_meeting(r))
            for (const range& piece : cut.pieces_meeting(k, r)) want.emplace_back(k, piece);
          INFO("spec " << spec.index() << " stride " << stride << " parts " << parts << " r " << r);
          CHECK(cut.pieces_meeting(r) == want);
        }
      }
}

TEST_CASE("domains: every locale's rects meeting a rect, asked at once, are the per-locale answers", "[scale]") {
  const detail::simulating as({0, 12});
  // A grid listing its locales out of order: the answer is still sorted by locale.
  const std::vector<target_grid<2>> grids = {target_grid<2>({3, 4}, 12), target_grid<2>({12, 1}, 12),
                                             target_grid<2>({3, 4}, std::vector<int>{5, 2, 11, 0, 7, 1, 9, 3, 10, 4, 8, 6})};
  const rect<2> whole{range(-5, 37), range(3, 50, 2)};
  const std::vector<rect<2>> asked = {whole, rect<2>{range(0, 1), range(0, 100)}, rect<2>{range(10, 20), range(9, 30)},
                                      rect<2>{range(-100, 100, 3), range(20, 21)}, rect<2>{range(40, 50), range(0, 10)}};
  const auto per_locale = [](const auto& domain, const rect<2>& r) {
    std::vector<std::pair<int, rect<2>>> out;
    for (int q : domain.locales_meeting(r)) {
      std::vector<rect<2>> rects;
      if constexpr (requires { domain.local_subdomains(q, r); }) rects = domain.local_subdomains(q, r);
      else rects = domain.local_subdomains(q);
      for (const auto& s : rects) out.emplace_back(q, s);
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
  };
  // The same pairs handed over one by one (for_each_subdomain_meeting: listed only when the
  // grid's order or a first dimension with several pieces per coordinate needs a sort).
  const auto streamed = [](const auto& domain, const rect<2>& r) {
    std::vector<std::pair<int, rect<2>>> out;
    domain.for_each_subdomain_meeting(r, [&](int q, const rect<2>& s) { out.emplace_back(q, s); });
    return out;
  };
  for (const auto& grid : grids)
    for (const auto& r : asked) {
      INFO("grid " << grid << " r " << r);
      const block_domain<2> blocks(block<2>(grid), whole);
      const auto want = per_locale(blocks, r);
      CHECK(blocks.subdomains_meeting(r) == want);
      CHECK(streamed(blocks, r) == want);
      for (const auto& specs : {std::array<dim_spec, 2>{cyclic_dim{}, block_cyclic_dim{4, index_t{1}}},
                                std::array<dim_spec, 2>{block_dim{}, cyclic_dim{index_t{-3}}},
                                std::array<dim_spec, 2>{block_cyclic_dim{1}, block_dim{}},
                                std::array<dim_spec, 2>{block_cyclic_dim{3, index_t{0}}, cyclic_dim{}}}) {
        const dimensional_domain<2> dealt(dimensional<2>(specs, grid), whole);
        const auto dealt_want = per_locale(dealt, r);
        CHECK(dealt.subdomains_meeting(r) == dealt_want);
        CHECK(streamed(dealt, r) == dealt_want);
      }
    }
}

}  // namespace test_scale
