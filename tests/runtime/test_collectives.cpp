// Collectives that scale: agreement checks are reductions of fixed size, and reduce combines
// the locales' results along a fixed binomial tree (runtime/detail/combining_tree.hpp).
//
// Oracles: the documented tree order, computed serially from known per-locale data (one
// element per locale, so a locale's partial result is that element); the message counts of a
// binomial tree and its reverse; locale 0's bits, gathered, for "the same on every locale".
#include "../support.hpp"
#include "../../runtime/detail/buffers.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace test_collectives {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::throws_as;

/// The documented combining order over values x[a], ..., x[a + m - 1]: T(a, 1) = x[a],
/// T(a, m) = op(T(a, h), T(a + h, m - h)) with h the largest power of two below m.
template <class T, class Op>
T tree_order(const std::vector<T>& x, std::size_t a, std::size_t m, const Op& op) {
  if (m == 1) return x[a];
  std::size_t h = 1;
  while (2 * h < m) h *= 2;
  return op(tree_order(x, a, h, op), tree_order(x, a + h, m - h, op));
}

/// The positions a member at position `k` of `n` receives from in the combining tree (and
/// sends to in the broadcast): k + 2^s for 2^s below k's lowest set bit (every 2^s at 0).
int children(int k, int n) {
  int c = 0;
  for (int step = 1; step < n && (k == 0 || step < (k & -k)); step *= 2)
    if (k + step < n) ++c;
  return c;
}

/// Values whose floating sum depends on the grouping (1e16 + 1 rounds to 1e16).
double tricky(index_t q) {
  switch (q % 4) {
    case 0: return 1e16;
    case 1: return 1.0;
    case 2: return -1e16;
    default: return 1.0 + static_cast<double>(q) * 0.25;
  }
}

/// A domain holding one index per locale (index q on locale q).
dmap::domain<1> one_per_locale() { return dmap::domain<1>{dmap::block<1>{}, rect<1>{range(0, dmap::num_locales())}}; }

/// Collective: true on every locale iff `bits` is locale 0's.
bool same_bits_everywhere(std::uint64_t bits) {
  const auto all = dmap::all_gather(bits);
  for (const auto b : all)
    if (b != all[0]) return false;
  return true;
}

}  // namespace

TEST_CASE("collectives: bit-or and min-max reductions of fixed size", "[collectives]") {
  const int p = dmap::num_locales(), me = dmap::here();
  dmap::reset_counters();
  const std::uint64_t bits = dmap::all_reduce_bit_or(std::uint64_t{1} << (me % 64));
  const auto [least, greatest] = dmap::all_reduce_min_max(std::uint64_t{100} + 7 * static_cast<std::uint64_t>(me));
  const auto c = dmap::counters();
  std::uint64_t want = 0;
  for (int q = 0; q < p; ++q) want |= std::uint64_t{1} << (q % 64);
  DMAP_CHECK_ALL(bits == want);
  DMAP_CHECK_ALL((least == 100 && greatest == 100 + 7 * static_cast<std::uint64_t>(p - 1)));
  DMAP_CHECK_ALL((c.collectives == 2 && c.messages_sent == 0 && c.bytes_received == 0));
  // The extremes of 64 bits survive the complement trick.
  const auto [lo, hi] = dmap::all_reduce_min_max(me == 0 ? UINT64_MAX : std::uint64_t{0});
  DMAP_CHECK_ALL((hi == UINT64_MAX && lo == (p == 1 ? UINT64_MAX : 0)));
  // Unsigned minima and maxima with the top bit set: MPICH 4.0.2 (every unsigned type) and Open
  // MPI 4.1.4 (MPI_UNSIGNED_LONG) compare them as signed; dmap must not.
  const auto top_on_0 = [&](auto top, auto low) { return me == 0 ? top : static_cast<decltype(top)>(low + me); };
  DMAP_CHECK_ALL(dmap::all_reduce_max(top_on_0(UINT64_MAX - 1, 1)) == UINT64_MAX - 1);
  DMAP_CHECK_ALL(dmap::all_reduce_min(top_on_0(UINT64_MAX - 1, 1)) == (p == 1 ? UINT64_MAX - 1 : 2));
  DMAP_CHECK_ALL(dmap::all_reduce_max(top_on_0(0xFFFFFFF0u, 1u)) == 0xFFFFFFF0u);
  DMAP_CHECK_ALL(dmap::all_reduce_min(top_on_0(0xFFFFFFF0u, 1u)) == (p == 1 ? 0xFFFFFFF0u : 2u));
  DMAP_CHECK_ALL(dmap::all_reduce_max(top_on_0(~0ull, 0ull)) == ~0ull);
  const auto [least_top, greatest_top] = dmap::all_reduce_min_max(top_on_0(std::uint64_t{1} << 63, std::uint64_t{5}));
  DMAP_CHECK_ALL((greatest_top == std::uint64_t{1} << 63 && least_top == (p == 1 ? std::uint64_t{1} << 63 : 6)));
}

TEST_CASE("reduce combines locales along the documented tree: same bits everywhere and every time", "[collectives][reduce]") {
  const int p = dmap::num_locales();
  const auto D = one_per_locale();
  dmap::array<double, 1> A(D);
  DMAP_REQUIRE_ALL(A.local_size() == 1);
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<1>& i) { a = tricky(i[0]); });
  std::vector<double> x;
  for (int q = 0; q < p; ++q) x.push_back(tricky(q));
  const auto plus = [](double a, double b) { return a + b; };
  for (const double init : {0.0, 0.5, -1e16}) {
    INFO("init " << init);
    const double got = dmap::reduce(A, init, std::plus<>{});
    const double want = init + tree_order(x, 0, x.size(), plus);
    DMAP_CHECK_ALL(std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want));
    DMAP_CHECK_ALL(same_bits_everywhere(std::bit_cast<std::uint64_t>(got)));
    bool repeatable = true;
    for (int run = 0; run < 5; ++run)
      repeatable = repeatable && std::bit_cast<std::uint64_t>(dmap::reduce(A, init, std::plus<>{})) ==
                                     std::bit_cast<std::uint64_t>(got);
    DMAP_CHECK_ALL(repeatable);
  }
  // The oracle can tell orders apart: at 4 locales the tree (1e16 + 1) + (-1e16 + 1.75) gives 2
  // where the fold in locale order ((1e16 + 1) - 1e16) + 1.75 gives 1.75.
  if (p == 4) {
    double fold = 0.0;
    for (const double v : x) fold += v;
    CHECK(fold != tree_order(x, 0, x.size(), plus));
  }
}

TEST_CASE("reduce groups exactly as documented: an order- and grouping-sensitive operation", "[collectives][reduce]") {
  // Not associative nor commutative (reduce does not promise anything for such an op, but its
  // grouping is fixed, so the result shows the grouping and the order exactly).
  const int p = dmap::num_locales();
  const auto D = one_per_locale();
  dmap::array<std::uint64_t, 1> A(D);
  const auto value = [](index_t q) { return static_cast<std::uint64_t>(q) * 1000003u + 17u; };
  dmap::forall(dmap::zip(A, D), [&](std::uint64_t& a, const idx<1>& i) { a = value(i[0]); });
  const auto op = [](std::uint64_t a, std::uint64_t b) { return a * 3u + b * 5u + 1u; };
  std::vector<std::uint64_t> x;
  for (int q = 0; q < p; ++q) x.push_back(value(q));
  const std::uint64_t init = 11;
  const std::uint64_t got = dmap::reduce(A, init, op);
  DMAP_CHECK_ALL(got == op(init, tree_order(x, 0, x.size(), op)));
  DMAP_CHECK_ALL(same_bits_everywhere(got));
}

TEST_CASE("reduce sends O(log P) messages per locale: the tree up and the same tree down", "[collectives][reduce]") {
  const int p = dmap::num_locales(), me = dmap::here();
  const auto D = one_per_locale();
  dmap::array<double, 1> A(D);
  dmap::forall(A, [](double& a) { a = 1.0; });
  // A loop over the same array, for the collectives of the loop itself (its agreement).
  dmap::reset_counters();
  dmap::forall(A, [](double& a) { a += 1.0; });
  const auto loop = dmap::counters();
  dmap::reset_counters();
  const double sum = dmap::reduce(A, 0.0);
  const auto c = dmap::counters();
  const std::uint64_t want = (me != 0 ? 1u : 0u) + static_cast<std::uint64_t>(children(me, p));
  const std::uint64_t bytes = want * sizeof(dmap::detail::partial<double>);
  INFO("locale " << me << ": sent " << c.messages_sent << " received " << c.messages_received << " bytes "
                 << c.bytes_sent << "/" << c.bytes_received << " collectives " << c.collectives << " (loop "
                 << loop.collectives << "); expected " << want << " messages each way");
  DMAP_CHECK_ALL(sum == 2.0 * p);
  DMAP_CHECK_ALL((c.messages_sent == want && c.messages_received == want));
  DMAP_CHECK_ALL((c.bytes_sent == bytes && c.bytes_received == bytes));
  DMAP_CHECK_ALL(c.collectives == loop.collectives);  // the tree is no collective
  int log2p = 0;
  while ((1 << log2p) < p) ++log2p;
  DMAP_CHECK_ALL(want <= static_cast<std::uint64_t>(log2p));
}

TEST_CASE("reduce: an op that throws on one locale in the cross-locale combine fails everywhere", "[collectives][reduce]") {
  const int p = dmap::num_locales();
  const auto D = one_per_locale();
  dmap::array<double, 1> A(D);
  dmap::forall(A, [](double& a) { a = 1.0; });
  // Locale 2 combines locale 3's value at 4+ locales (not the root); else locale 0 (with init).
  const int bad = p >= 4 ? 2 : 0;
  const auto op = [bad](double a, double b) {
    if (dmap::here() == bad) throw dmap::shape_error("op failed on locale " + std::to_string(bad));
    return a + b;
  };
  double r = 0.0;
  const auto [thrown, what] = throws_as<dmap::shape_error>([&] { r = dmap::reduce(A, 0.0, op); });
  INFO(what);
  DMAP_CHECK_ALL((thrown && what.find("op failed on locale " + std::to_string(bad)) != std::string::npos));
  // Every locale that combines throws: the lowest one's error reaches all.
  const auto always = [](double, double) -> double {
    throw dmap::argument_error("op failed on locale " + std::to_string(dmap::here()));
  };
  const auto [all_thrown, first] = throws_as<dmap::argument_error>([&] { r = dmap::reduce(A, 0.0, always); });
  INFO(first);
  DMAP_CHECK_ALL((all_thrown && first.find("op failed on locale 0") != std::string::npos));
  // A failure in the local stage (several chunks per locale) on the last locale only.
  const dmap::domain<1> big{dmap::block<1>{}, rect<1>{range(0, 200000)}};
  dmap::array<double, 1> B(big);
  dmap::forall(B, [](double& b) { b = 1.0; });
  const int last = p - 1;
  const auto local_bad = [last](double a, double b) {
    if (dmap::here() == last) throw dmap::argument_error("local stage on locale " + std::to_string(last));
    return a + b;
  };
  const auto [local_thrown, local_what] = throws_as<dmap::argument_error>([&] { r = dmap::reduce(B, 0.0, local_bad); });
  INFO(local_what);
  DMAP_CHECK_ALL((local_thrown && local_what.find("local stage on locale " + std::to_string(last)) != std::string::npos));
  // And afterwards the next reduction works: no message was left behind.
  DMAP_CHECK_ALL(dmap::reduce(B, 0.0) == 200000.0);
}

TEST_CASE("reduce with copy layers: one tree per layer, a failure in one layer fails everywhere", "[collectives][reduce][copies]") {
  const int p = dmap::num_locales();
  if (p % 2 != 0) return;  // two layers of p / 2 locales
  const dmap::dimensional<2> map({dmap::block_dim{}, dmap::replicated_dim{}}, dmap::target_grid<2>({p / 2, 2}));
  const dmap::domain<2> D{map, rect<2>{range(0, 3 * p), range(0, 2)}};
  dmap::array<double, 2> A(D);
  const int me = dmap::here();
  dmap::forall(dmap::zip(A, D), [me](double& a, const idx<2>& i) { a = static_cast<double>(i[0] * 7 + i[1] + 100 * me); });
  dmap::barrier();
  double want = 0;  // this layer's copy, read element by element
  for (index_t i = 0; i < 3 * p; ++i)
    for (index_t j = 0; j < 2; ++j) want += static_cast<double>(A[idx<2>{i, j}]);
  dmap::barrier();
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == want);
  // One element per locale, so the op runs only across locales. Every locale but 0 fails when
  // it combines: the layer of locale 1 fails, the layer of locale 0 does not, all throw.
  const dmap::domain<2> E{map, rect<2>{range(0, p / 2), range(0, 1)}};
  dmap::array<double, 2> B(E);
  DMAP_REQUIRE_ALL(B.local_size() == 1);
  dmap::forall(B, [](double& b) { b = 1.0; });
  DMAP_CHECK_ALL(dmap::reduce(B, 0.5) == 0.5 + p / 2);
  const auto op = [](double a, double b) {
    if (dmap::here() != 0) throw dmap::argument_error("op failed in a layer");
    return a + b;
  };
  const auto [thrown, what] = throws_as<dmap::argument_error>([&] { (void)dmap::reduce(B, 0.0, op); });
  INFO(what);
  DMAP_CHECK_ALL((thrown && what.find("op failed in a layer") != std::string::npos));
}

TEST_CASE("domain checks: one fixed-size reduction, and a mismatch names locale 0 and the lowest other", "[collectives]") {
  const int p = dmap::num_locales(), me = dmap::here();
  dmap::reset_counters();
  dmap::detail::check_same_on_all_locales("test", rect<1>{range(0, 10)}, "block");
  const auto c = dmap::counters();
  // One locale agrees with itself without a call.
  DMAP_CHECK_ALL((c.collectives == (p == 1 ? 0u : 1u) && c.messages_sent == 0 && c.messages_received == 0));
  if (p == 1) return;
  for (const int odd : {1, p - 1}) {
    const rect<1> r{range(0, me >= odd ? 11 : 10)};
    const auto [thrown, what] = throws_as<dmap::argument_error>(
        [&] { dmap::detail::check_same_on_all_locales("test", r, "block"); });
    INFO(what);
    DMAP_CHECK_ALL((thrown && what.find("locales 0 and " + std::to_string(odd) + " passed different") != std::string::npos));
  }
  // Only the map's name differs, on the last locale.
  const auto [thrown, what] = throws_as<dmap::argument_error>(
      [&] { dmap::detail::check_same_on_all_locales("test", rect<1>{range(0, 10)}, me == p - 1 ? "cyclic" : "block"); });
  INFO(what);
  DMAP_CHECK_ALL((thrown && what.find("locales 0 and " + std::to_string(p - 1)) != std::string::npos));
}

TEST_CASE("messages longer than the piece size travel in pieces, cut alike on both sides", "[collectives][pieces]") {
  // The piece size is lowered from 2^30 bytes so that ordinary transfers are cut: a
  // redistribution, an exchange and a gather must give the same answer, in more messages.
  struct piece_size {
    std::size_t saved = dmap::detail::message_piece_bytes;
    explicit piece_size(std::size_t bytes) { dmap::detail::message_piece_bytes = bytes; }
    ~piece_size() { dmap::detail::message_piece_bytes = saved; }
  };
  const int p = dmap::num_locales(), me = dmap::here();
  const rect<1> r{range(0, 10007)};
  dmap::domain<1> B(dmap::block<1>{}, r), C(dmap::cyclic<1>{}, r);
  dmap::array<std::int64_t, 1> from(B);
  dmap::forall(dmap::zip(from, B), [](std::int64_t& a, const idx<1>& i) { a = 3 * i[0] + 1; });
  const auto settings = dmap::node_transfers();
  dmap::set_node_transfers({.enabled = false, .min_bytes = settings.min_bytes});  // every byte through messages
  dmap::array<std::int64_t, 1> from_private(B), whole_private(C), cut_private(C);
  from_private = from;
  dmap::reset_counters();
  whole_private = from_private;
  const auto in_one = dmap::counters();
  {
    const piece_size small(1000);
    dmap::reset_counters();
    cut_private = from_private;
    const auto in_pieces = dmap::counters();
    INFO("locale " << me << ": " << in_one.messages_sent << " messages whole, " << in_pieces.messages_sent
                   << " in pieces of 1000 bytes; " << in_one.bytes_sent << " / " << in_pieces.bytes_sent << " bytes");
    DMAP_CHECK_ALL(in_pieces.bytes_sent == in_one.bytes_sent && in_pieces.bytes_received == in_one.bytes_received);
    // Each message of b bytes becomes ceil(b / 1000) pieces: every message here is over 1000
    // bytes when some locale sends any (10007 elements over p locales, a cyclic target).
    DMAP_CHECK_ALL(in_pieces.messages_sent >= in_one.messages_sent);
    DMAP_CHECK_ALL(in_pieces.messages_sent <= in_one.messages_sent + in_pieces.bytes_sent / 1000);
    if (p > 1) DMAP_CHECK_ALL(dmap::all_reduce_sum(in_pieces.messages_sent) > dmap::all_reduce_sum(in_one.messages_sent));
    // An exchange of 4,999 bytes to every other locale, and a gather of the whole to locale 0.
    dmap::detail::byte_buffers out(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) out[static_cast<std::size_t>(q)].assign(4999, std::byte(static_cast<unsigned char>(me * 16 + q)));
    const auto in = dmap::detail::exchange(std::move(out));
    bool right = true;
    for (int q = 0; q < p; ++q)
      for (const std::byte b : in[static_cast<std::size_t>(q)]) right = right && b == std::byte(static_cast<unsigned char>(q * 16 + me));
    DMAP_CHECK_ALL(right);
    const auto all = cut_private.gather();
    bool gathered = me != 0 || all.size() == 10007;
    for (std::size_t k = 0; k < all.size(); ++k) gathered = gathered && all[k] == 3 * static_cast<std::int64_t>(k) + 1;
    DMAP_CHECK_ALL(gathered);
  }
  dmap::set_node_transfers(settings);
  const bool same = dmap::reduce(dmap::zip(whole_private, cut_private), std::int64_t{0}, std::plus<>{},
                                 [](std::int64_t a, std::int64_t b) { return std::int64_t{a != b}; }) == 0;
  DMAP_CHECK_ALL(same);
  DMAP_CHECK_ALL(dmap::reduce(cut_private, std::int64_t{0}) == 3 * (10006 * 10007 / 2) + 10007);
}

TEST_CASE("pooled vectors take their storage from the message pool, give it back, and resize without writing",
          "[collectives][pool]") {
  using dmap::detail::pooled_vector;
  static_assert(std::is_same_v<pooled_vector<double>::allocator_type, dmap::detail::pooled_allocator<double>>);
  struct alignas(64) wide {
    double x;
  };
  static_assert(std::is_same_v<pooled_vector<wide>::allocator_type, std::allocator<wide>>);  // over-aligned
  const int p = dmap::num_locales(), me = dmap::here();
  // An odd size no other buffer of the pool has: the storage given back is the one taken next.
  const std::size_t n = (std::size_t{1} << 20) + 37 + static_cast<std::size_t>(me);
  const double* first = nullptr;
  {
    pooled_vector<double> v(n);
    for (std::size_t k = 0; k < n; ++k) v[k] = static_cast<double>(k) + 0.5;
    first = v.data();
  }
  auto& pool = dmap::detail::message_buffers();
  const std::size_t idle = pool.idle_bytes();
  DMAP_CHECK_ALL(idle >= n * sizeof(double) && idle <= dmap::detail::buffer_pool::kept_bytes);
  // Past kept_bytes of idle storage the largest buffers are freed: one that alone passes it
  // is not kept (a small allocation standing for a large one, freed at once).
  pool.give(std::make_unique<std::byte[]>(16), dmap::detail::buffer_pool::kept_bytes + 1);
  DMAP_CHECK_ALL(pool.idle_bytes() == idle);
  pooled_vector<double> w;
  w.resize(n);  // default-initialised: the pool's storage, its bytes as they were
  DMAP_CHECK_ALL(pool.idle_bytes() < idle);
  bool kept = w.data() == first;
  for (std::size_t k = 0; kept && k < n; ++k) kept = w[k] == static_cast<double>(k) + 0.5;
  DMAP_CHECK_ALL(kept);
  // A copy constructed from values holds them; an exchange receives into pooled vectors.
  const pooled_vector<double> copy(w.begin(), w.begin() + 1000);
  DMAP_CHECK_ALL(copy.size() == 1000 && copy[999] == 999.5);
  std::vector<std::vector<std::byte>> out(static_cast<std::size_t>(p));
  std::vector<std::span<const std::byte>> spans(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) {
    out[static_cast<std::size_t>(q)].assign(static_cast<std::size_t>(100 * q + me + 1), std::byte(static_cast<unsigned char>(me * 16 + q)));
    spans[static_cast<std::size_t>(q)] = out[static_cast<std::size_t>(q)];
  }
  std::vector<pooled_vector<std::byte>> in;
  dmap::detail::exchange_spans_into(spans, in);
  bool right = in.size() == static_cast<std::size_t>(p);
  for (int q = 0; right && q < p; ++q) {
    const auto& got = in[static_cast<std::size_t>(q)];
    if (q == me) continue;
    right = got.size() == static_cast<std::size_t>(100 * me + q + 1);
    for (const std::byte b : got) right = right && b == std::byte(static_cast<unsigned char>(q * 16 + me));
  }
  DMAP_CHECK_ALL(right);
}

}  // namespace test_collectives
