// Node-aware transfers: arrays in node-shared memory, copied between the locales of one node
// without messages, with exact counters. On one machine every locale shares one node unless
// DMAP_NODE_SIZE cuts them into several (the ctest run unit_np4_nodes2): then peers on this
// node get direct copies and the others messages, and the counters say exactly which.
#include "../support.hpp"
#include "../oracle.hpp"
#include "../../algorithms/assignment_plan.hpp"
#include "../../runtime/detail/huge_pages.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace test_node_transfers {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::oracle::points_of;

using dmap::testing::node_settings;

double value_of(const idx<2>& i) { return static_cast<double>(i[0] * 1000 + i[1]) + 0.25; }

// True when every element of `a` holds f(its index), ghost cells aside.
template <class F>
bool holds(const dmap::array<double, 2>& a, F&& f) {
  bool ok = true;
  const auto& owned = a.domain().local_subdomains();
  const auto& blocks = a.local_blocks();
  for (std::size_t b = 0; b < blocks.size(); ++b)
    for (const auto& i : points_of(owned[b])) ok = ok && blocks[b](i) == f(i);
  return ok;
}

bool on_my_node(int locale) {
  const auto& mine = dmap::node_locales();
  return std::binary_search(mine.begin(), mine.end(), locale);
}

// Elements and distinct peers, split by where the peers live.
struct traffic {
  std::uint64_t node_elements = 0, node_peers = 0;  // peers on this locale's node
  std::uint64_t far_elements = 0, far_peers = 0;    // peers on other nodes
};

// What this locale sends to other locales when an array over `from` is copied into one over
// `to` (same indices): its elements that `to` places elsewhere, and the distinct peers.
traffic sent_elsewhere(dmap::domain<2>& from, dmap::domain<2>& to) {
  traffic t;
  std::set<int> node_peers, far_peers;
  for (const auto& piece : from.local_subdomains())
    for (const auto& i : points_of(piece))
      if (const int q = to.locale_of(i); q != dmap::here()) {
        if (on_my_node(q)) ++t.node_elements, node_peers.insert(q);
        else ++t.far_elements, far_peers.insert(q);
      }
  t.node_peers = node_peers.size();
  t.far_peers = far_peers.size();
  return t;
}

// Whether the mapping of this process that holds `p` is advised to use huge pages (its VmFlags
// in /proc/self/smaps have "hg"); nullopt where that file cannot be read.
std::optional<bool> huge_pages_advised(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  if (!smaps) return std::nullopt;
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t first = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> first >> dash >> end && dash == '-') {
      inside = first <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return (line + " ").find(" hg ") != std::string::npos;
    }
  }
  return std::nullopt;
}

// Arrays go to node-shared storage when some node holds two locales or more.
bool shared_expected() { return dmap::all_reduce_max(static_cast<int>(dmap::node_locales().size())) > 1; }

}  // namespace

TEST_CASE("A = B between node locales copies directly: no messages, exact node bytes", "[node]") {
  const node_settings on(true);
  const rect<2> space{range(0, 37), range(0, 53)};  // uneven on every locale count
  const int p = dmap::num_locales();
  dmap::domain<2> rows{dmap::block<2>{dmap::target_grid<2>({p, 1})}, space};
  dmap::domain<2> cols{dmap::block<2>{dmap::target_grid<2>({1, p})}, space};
  dmap::domain<2> cyc{dmap::cyclic<2>{}, space};
  const std::vector<std::pair<dmap::domain<2>*, dmap::domain<2>*>> pairs{
      {&rows, &cols}, {&cols, &rows}, {&rows, &cyc}, {&cyc, &rows}};
  for (const auto& [from_ptr, to_ptr] : pairs) {
    auto& from = *from_ptr;
    auto& to = *to_ptr;
    INFO(from.name() << " -> " << to.name());
    dmap::array<double, 2> B{from}, A{to};
    DMAP_CHECK_ALL(A.node_shared() == shared_expected() && B.node_shared() == shared_expected());
    // Each locale's part starts on a cache line: pieces two locales write never share one.
    DMAP_CHECK_ALL((!A.node_shared() || (reinterpret_cast<std::uintptr_t>(A.local_data()) % 64 == 0 &&
                                          reinterpret_cast<std::uintptr_t>(B.local_data()) % 64 == 0)));
    dmap::forall(dmap::zip(B, from), [](double& b, const idx<2>& i) { b = value_of(i); });
    A = B;  // builds the plan
    dmap::forall(A, [](double& a) { a = -1; });
    dmap::barrier();
    dmap::reset_counters();
    A = B;
    const auto c = dmap::counters();
    DMAP_CHECK_ALL(holds(A, value_of));
    const traffic out = sent_elsewhere(from, to), in = sent_elsewhere(to, from);
    // Peers on this node: direct copies; peers on other nodes: messages of the same bytes.
    DMAP_CHECK_ALL((c.node_bytes == out.node_elements * sizeof(double) && c.node_copies == out.node_peers));
    DMAP_CHECK_ALL((c.messages_sent == out.far_peers && c.bytes_sent == out.far_elements * sizeof(double)));
    DMAP_CHECK_ALL((c.messages_received == in.far_peers && c.bytes_received == in.far_elements * sizeof(double)));
    // The one agreement that every locale names the same two arrays (docs/guide/memory-model.md).
    DMAP_CHECK_ALL(c.collectives == (p == 1 ? 0u : 1u));
    // Every copy is announced by its destination and confirmed to it: two signals per pair.
    DMAP_CHECK_ALL(c.signals == out.node_peers + in.node_peers);
  }
}

TEST_CASE("with node transfers off, the same copies travel as messages of the same bytes", "[node]") {
  const rect<2> space{range(0, 37), range(0, 53)};
  dmap::domain<2> from{dmap::block<2>{}, space};
  dmap::domain<2> to{dmap::cyclic<2>{}, space};
  const traffic out = sent_elsewhere(from, to);
  const std::uint64_t elements = out.node_elements + out.far_elements, peers = out.node_peers + out.far_peers;
  {
    const node_settings off(false);
    dmap::array<double, 2> B{from}, A{to};
    DMAP_CHECK_ALL(!A.node_shared() && !B.node_shared());
    dmap::forall(dmap::zip(B, from), [](double& b, const idx<2>& i) { b = value_of(i); });
    A = B;
    dmap::reset_counters();
    A = B;
    const auto c = dmap::counters();
    DMAP_CHECK_ALL(holds(A, value_of));
    DMAP_CHECK_ALL((c.messages_sent == peers && c.bytes_sent == elements * sizeof(double)));
    DMAP_CHECK_ALL((c.node_copies == 0 && c.node_bytes == 0 && c.signals == 0));
  }
  {
    // Shared arrays, node transfers switched off afterwards: messages again.
    const node_settings on(true);
    dmap::array<double, 2> B{from}, A{to};
    dmap::forall(dmap::zip(B, from), [](double& b, const idx<2>& i) { b = value_of(i); });
    dmap::set_node_transfers({false, 0});
    dmap::reset_counters();
    A = B;
    const auto c = dmap::counters();
    DMAP_CHECK_ALL(holds(A, value_of));
    DMAP_CHECK_ALL((c.messages_sent == peers && c.node_bytes == 0));
  }
}

TEST_CASE("arrays below the minimum size, and adopted buffers, keep private storage and messages", "[node]") {
  const rect<2> space{range(0, 20), range(0, 30)};  // 4800 bytes of doubles
  dmap::domain<2> D{dmap::block<2>{}, space};
  {
    const node_settings on(true, 4801);
    dmap::array<double, 2> A{D};
    DMAP_CHECK_ALL(!A.node_shared());
  }
  {
    const node_settings on(true, 4800);
    dmap::array<double, 2> A{D};
    DMAP_CHECK_ALL(A.node_shared() == shared_expected());
    const auto layout = D.local_layouts(dmap::here())[0];
    std::vector<double> mine(static_cast<std::size_t>(layout.end()));
    dmap::array<double, 2> F{D, dmap::foreign_buffer<double, 2>{mine.data(), static_cast<index_t>(mine.size()),
                                                                layout.strides}};
    DMAP_CHECK_ALL(!F.node_shared());
  }
}

TEST_CASE("halo updates copy into the neighbours' ghost cells: same bytes as messages, none sent", "[node][stencil]") {
  const rect<2> space{range(0, 23), range(-4, 17)};
  const dmap::stencil<2> map{idx<2>{2, 1}, {true, false}};
  const auto update_costs = [&](bool on) {
    const node_settings s(on);
    dmap::domain<2> D{map, space};
    dmap::array<double, 2> A{D};
    DMAP_CHECK_ALL(A.node_shared() == (on && shared_expected()));
    dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = value_of(i); });
    dmap::update_halos(A);  // builds the plan
    dmap::forall(A, [](double& a) { a = a; });
    dmap::reset_counters();
    dmap::update_halos(A);
    const auto c = dmap::counters();
    // Every stored index holds the value of its periodic image inside the domain; boundary
    // cells (beyond the non-periodic dimension) keep their initial 0.
    bool ok = true;
    for (const auto& b : A.local_blocks())
      for (const auto& i : points_of(b.layout.indices)) {
        idx<2> j = i;
        j[0] = ((i[0] % 23) + 23) % 23;
        const double expected = space.contains(j) ? value_of(j) : 0.0;
        ok = ok && b(i) == expected;
      }
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(c.collectives == 0);
    return c;
  };
  const auto off = update_costs(false);
  const auto on = update_costs(true);
  if (shared_expected()) {
    // The same copies either way: to peers of this node directly, to the others as messages.
    DMAP_CHECK_ALL((on.node_copies + on.messages_sent == off.messages_sent &&
                    on.node_bytes + on.bytes_sent == off.bytes_sent));
    if (static_cast<int>(dmap::node_locales().size()) == dmap::num_locales())
      DMAP_CHECK_ALL((on.messages_sent == 0 && on.bytes_sent == 0 && on.messages_received == 0));
  } else {  // no node holds two locales: messages either way
    DMAP_CHECK_ALL((on.node_copies == 0 && on.messages_sent == off.messages_sent && on.bytes_sent == off.bytes_sent));
  }
}

TEST_CASE("remote A[i], fetch and printing read node peers' storage directly", "[node][remote]") {
  const node_settings on(true);
  const index_t n = 29, m = 13;
  dmap::domain<2> D{dmap::block<2>{}, rect<2>{range(0, n), range(0, m)}};
  dmap::array<double, 2> A{D}, B{D};
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = value_of(i); });
  dmap::barrier();
  std::uint64_t on_node = 0, far = 0;  // elements read from node peers and from other nodes
  for (const auto& piece : D.local_subdomains())
    for (const auto& i : points_of(piece))
      if (const int q = D.locale_of({n - 1 - i[0], i[1]}); q != dmap::here()) ++(on_my_node(q) ? on_node : far);
  dmap::reset_counters();
  dmap::forall(dmap::zip(B, D), [&](double& b, const idx<2>& i) { b = A[{n - 1 - i[0], i[1]}]; });
  auto c = dmap::counters();
  DMAP_CHECK_ALL(holds(B, [&](const idx<2>& i) { return value_of({n - 1 - i[0], i[1]}); }));
  DMAP_CHECK_ALL((c.node_bytes == on_node * sizeof(double) && c.node_copies == on_node));
  DMAP_CHECK_ALL((c.messages_received == far && c.bytes_received == far * sizeof(double)));
  // Writes to a peer's element land there.
  dmap::barrier();
  if (dmap::here() == 0) A[{n - 1, m - 1}] = -7.5;
  dmap::barrier();
  DMAP_CHECK_ALL(static_cast<double>(A[{n - 1, m - 1}]) == -7.5);
  dmap::barrier();
  // Printing from any locale reads everything; the text is the same on every locale.
  dmap::reset_counters();
  std::ostringstream text;
  text << A;
  c = dmap::counters();
  std::uint64_t node_elements = 0;  // the elements of this node's other locales
  for (const int q : dmap::node_locales())
    if (q != dmap::here())
      for (const auto& piece : D.local_subdomains(q)) node_elements += static_cast<std::uint64_t>(piece.size());
  const auto far_elements = static_cast<std::uint64_t>(n * m - D.local_subdomains()[0].size()) - node_elements;
  DMAP_CHECK_ALL((c.node_bytes == node_elements * sizeof(double) && c.bytes_received == far_elements * sizeof(double)));
  const auto gathered = A.gather();
  if (dmap::here() == 0) {
    std::ostringstream expected;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < m; ++j)
        expected << (j ? " " : (i ? "\n" : "")) << gathered[static_cast<std::size_t>(i * m + j)];
    CHECK(text.str() == expected.str());
  }
}

TEST_CASE("views, overlapping self-assignment, staged zips, plans and resize with node-shared arrays", "[node]") {
  const node_settings on(true);
  const rect<2> space{range(0, 31), range(0, 26)};
  dmap::domain<2> D{dmap::block<2>{}, space};
  dmap::domain<2> C{dmap::cyclic<2>{}, space};
  dmap::array<double, 2> A{D}, Z{C};
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = value_of(i); });

  // A view of one map into a shifted view of another.
  dmap::forall(Z, [](double& z) { z = 0; });
  Z[rect<2>{range(1, 31), range(0, 26)}] = A[rect<2>{range(0, 30), range(0, 26)}];
  DMAP_CHECK_ALL(holds(Z, [](const idx<2>& i) { return i[0] == 0 ? 0.0 : value_of({i[0] - 1, i[1]}); }));

  // Overlapping parts of one array: the source is read as it was before.
  A[rect<2>{range(2, 31), range(0, 26)}] = A[rect<2>{range(0, 29), range(0, 26)}];
  DMAP_CHECK_ALL(holds(A, [](const idx<2>& i) { return i[0] < 2 ? value_of(i) : value_of({i[0] - 2, i[1]}); }));

  // A zip of misaligned arrays stages Z (shared staging) and writes it back.
  dmap::forall(dmap::zip(A, Z), [](const double& a, double& z) { z = 2 * a; });
  DMAP_CHECK_ALL(holds(Z, [](const idx<2>& i) { return 2 * (i[0] < 2 ? value_of(i) : value_of({i[0] - 2, i[1]})); }));

  // A plan run in two steps.
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = value_of(i); });
  auto plan = dmap::plan_assignment(Z, A);
  plan.start();
  plan.finish();
  DMAP_CHECK_ALL(holds(Z, value_of));

  // Resizing keeps the surviving values and the node-shared storage.
  D.set_indices(rect<2>{range(0, 40), range(-3, 26)});
  DMAP_CHECK_ALL(A.node_shared() == shared_expected());
  bool ok = true;
  for (const auto& b : A.local_blocks())
    for (const auto& i : points_of(D.local_subdomains()[0])) ok = ok && b(i) == (space.contains(i) ? value_of(i) : 0.0);
  DMAP_CHECK_ALL(ok);
}

TEST_CASE("buffers from 4 MiB up ask for huge pages, smaller ones do not; so does private array storage", "[node]") {
#if defined(__linux__)
  // The rule, on fresh mappings of our own (malloc's heap may hold memory advised for an
  // earlier buffer, so a small array's flags would say nothing), each buffer starting on a
  // 2 MiB boundary so that its middle lies in the part the advice would cover.
  constexpr std::size_t huge = std::size_t{2} << 20;
  const auto fresh = [](std::size_t bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<std::byte*>(p);
  };
  const auto on_boundary = [](std::byte* p) {
    return p + (huge - reinterpret_cast<std::uintptr_t>(p) % huge) % huge;
  };
  constexpr std::size_t large_bytes = std::size_t{8} << 20, small_bytes = std::size_t{3} << 20;
  std::byte* large = fresh(large_bytes + huge);
  std::byte* small = fresh(small_bytes + huge);
  DMAP_CHECK_ALL(large != nullptr && small != nullptr);
  if (large && small) {
    std::byte* const l = on_boundary(large);
    std::byte* const s = on_boundary(small);
    dmap::detail::advise_huge_pages(l, large_bytes);
    dmap::detail::advise_huge_pages(s, small_bytes);
    const auto large_advised = huge_pages_advised(l + large_bytes / 2);
    const auto small_advised = huge_pages_advised(s + small_bytes / 2);
    DMAP_CHECK_ALL(large_advised.has_value() && small_advised.has_value());
    if (large_advised && small_advised) DMAP_CHECK_ALL(*large_advised && !*small_advised);
  }
  if (large) munmap(large, large_bytes + huge);
  if (small) munmap(small, small_bytes + huge);
#endif
  // Array storage takes the advice: 8 MiB of doubles per locale, private storage.
  const node_settings off(false);
  const index_t p = dmap::num_locales();
  dmap::domain<1> D{dmap::block<1>{}, range(0, (index_t{1} << 20) * p + 3)};
  dmap::array<double, 1> A{D};
  DMAP_CHECK_ALL(!A.node_shared());
  const auto advised = huge_pages_advised(A.local_data() + A.local_blocks()[0].span().size() / 2);
#if defined(__linux__)
  DMAP_CHECK_ALL(advised.has_value());
#endif
  if (advised) DMAP_CHECK_ALL(*advised);
}

TEST_CASE("node transfer settings round-trip", "[node]") {
  const node_settings s(false, 123);
  DMAP_CHECK_ALL((dmap::node_transfers() == dmap::node_transfer_settings{false, 123}));
}

}  // namespace test_node_transfers
