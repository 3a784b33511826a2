// Aggregated accumulate, scatter and gather (algorithms/aggregation.hpp) against serial
// oracles: every locale computes the whole expected array from the same formulas (each
// locale's contributions are a function of the locale and a counter) and checks the
// elements it owns; gathers are checked entry by entry. Integer element types, so results
// are exact whatever the thread count. Message counts are checked where the API promises
// one message per peer with data.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../maps_1d.hpp"
#include "../maps_2d.hpp"
#include "../oracle.hpp"
#include "../support.hpp"

namespace test_aggregation {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::oracle::pmod;
namespace maps = dmap::testing::maps;

/// A scrambled, deterministic function of (locale, counter): which bin a contribution goes to.
index_t scramble(index_t q, index_t k) { return pmod(k * 7919 + q * 104729 + (k * k) % 613, 1000003); }

/// Collective: the number of indices of `D` whose element in `A` differs from `expected(order)`,
/// summed over the locales.
template <class T, std::size_t N, class F>
index_t mismatches(const dmap::domain<N>& D, dmap::array<T, N>& A, F&& expected) {
  std::atomic<index_t> bad{0};
  const rect<N> whole = D.indices();
  dmap::forall(D, [&](const idx<N>& i) {
    if (A.local(i) != expected(whole.order_of(i))) ++bad;
  });
  return dmap::all_reduce_sum(bad.load());
}

/// Collective: a histogram of `contributions` values per locale into D (initial value 5 per
/// element), added from a forall over a Block source domain of all locales' contributions.
/// Returns the number of wrong elements.
/// With `each`, the contributions come from the handle's add_each over the source domain.
template <std::size_t N>
index_t histogram_mismatches(const dmap::domain<N>& D, index_t per_locale, dmap::aggregation how, bool each = false) {
  const int p = dmap::num_locales();
  const index_t n = D.indices().size();
  dmap::array<std::int64_t, N> A(D, 5);
  const index_t total = per_locale * p;
  dmap::domain<1> S(dmap::block<1>{}, rect<1>{range(0, total)});
  auto acc = dmap::accumulate(A, std::plus<>{}, how);
  const rect<N> whole = D.indices();
  if (n > 0 && each)
    acc.add_each(S, [&](const idx<1>& j) {
      return std::pair{whole.index_at(scramble(j[0] % 3, j[0]) % n), 1 + j[0] % 3};  // (an int: converted)
    });
  else if (n > 0)
    dmap::forall(S, [&](const idx<1>& j) {
      const index_t b = scramble(j[0] % 3, j[0]) % n;
      acc.add(whole.index_at(b), 1 + j[0] % 3);
    });
  acc.finish();
  std::vector<std::int64_t> expected(static_cast<std::size_t>(n), 5);
  if (n > 0)
    for (index_t j = 0; j < total; ++j) expected[static_cast<std::size_t>(scramble(j % 3, j) % n)] += 1 + j % 3;
  return mismatches(D, A, [&](index_t o) { return expected[static_cast<std::size_t>(o)]; });
}

constexpr index_t sizes[] = {0, 1, 2, 7, 37, 101};
/// Every way of buffering: a per-thread table of the index set, per-destination lists, and
/// the automatic choice (with std::plus: lists, then a table once a thread has many).
constexpr dmap::aggregation modes[] = {dmap::aggregation::table, dmap::aggregation::lists,
                                       dmap::aggregation::automatic};

/// The name of a buffering mode, for INFO.
const char* name_of(dmap::aggregation how) {
  return how == dmap::aggregation::table ? "table" : how == dmap::aggregation::lists ? "lists" : "automatic";
}

}  // namespace

TEST_CASE("aggregation: histograms over every 1-D map match a serial count", "[aggregation]") {
  for (const auto k : maps::all_maps) {
    if (k == maps::map_kind::replicated) continue;  // copies: refused (bad-input suite)
    for (const index_t n : {index_t{0}, index_t{1}, index_t{7}, index_t{101}})
      for (const index_t stride : {index_t{3}, index_t{-2}}) {
        const rect<1> r{stride > 0 ? range(-4, -4 + n * stride, stride) : range(0, n * -stride, stride)};
        INFO("map " << maps::name_of(k) << ", " << r);
        DMAP_REQUIRE_ALL(r.size() == n);
        const auto D = maps::domain_of(k, r);
        for (const auto how : modes) DMAP_CHECK_ALL(histogram_mismatches(D, 3 + n / 2, how) == 0);
      }
  }
}

TEST_CASE("aggregation: histograms over 2-D maps match a serial count", "[aggregation]") {
  for (const auto& m : maps::makers()) {
    if (m.name == "replicated") continue;
    for (const auto& r : {rect<2>{range(0, 5), range(-3, 4)}, rect<2>{range(1, 2), range(0, 9, 2)},
                          rect<2>{range(0, 0), range(0, 3)}}) {
      INFO("map " << m.name << ", " << r);
      const auto D = m.make(r);
      for (const auto how : modes) DMAP_CHECK_ALL(histogram_mismatches(D, 29, how) == 0);
    }
  }
}

TEST_CASE("aggregation: many threads adding from one forall", "[aggregation]") {
  // Enough source indices for several chunks per locale (chunks are at least 4096 indices).
  const int p = dmap::num_locales();
  for (const auto k : {maps::map_kind::block, maps::map_kind::cyclic, maps::map_kind::hashed}) {
    INFO("map " << maps::name_of(k) << " with " << dmap::num_threads() << " thread(s) per locale");
    const auto D = maps::domain_of(k, rect<1>{range(0, 37)});
    for (const auto how : modes) DMAP_CHECK_ALL(histogram_mismatches(D, 3 * 4096 * 2 / p + 11, how) == 0);
  }
}

TEST_CASE("aggregation: add_each gives what add from a forall gives, over every map and mode", "[aggregation]") {
  // Enough contributions per thread for automatic to go live part way through a row (n / 16
  // of 101 is 6), strided index sets (no fast table: every contribution through add()).
  const int p = dmap::num_locales();
  for (const auto k : maps::all_maps) {
    if (k == maps::map_kind::replicated) continue;
    for (const rect<1>& r : {rect<1>{range(-4, 97)}, rect<1>{range(-4, 299, 3)}, rect<1>{range(0, 1)}}) {
      INFO("map " << maps::name_of(k) << ", " << r << ", " << dmap::num_threads() << " thread(s)");
      const auto D = maps::domain_of(k, r);
      for (const auto how : modes) {
        INFO(name_of(how));
        DMAP_CHECK_ALL(histogram_mismatches(D, 3 * 4096 * 2 / p + 11, how, true) == 0);
      }
    }
  }
  for (const auto& m : maps::makers()) {
    if (m.name == "replicated") continue;
    INFO("map " << m.name);
    const auto D = m.make(rect<2>{range(0, 5), range(-3, 4)});
    for (const auto how : modes) DMAP_CHECK_ALL(histogram_mismatches(D, 4099, how, true) == 0);
  }
}

TEST_CASE("aggregation: add_each over zips, strided views and 2-D sources", "[aggregation]") {
  const int p = dmap::num_locales();
  const index_t n = 4096 * 3 + 17, bins = 53;
  const dmap::domain<1> S(dmap::block<1>{}, rect<1>{range(0, n)});
  dmap::array<std::int64_t, 1> V(S), W(S);
  dmap::forall(dmap::zip(S, V, W), [](const idx<1>& i, std::int64_t& v, std::int64_t& w) {
    v = scramble(1, i[0]) % bins;
    w = i[0] % 5;
  });
  const dmap::domain<1> B(dmap::cyclic<1>{}, rect<1>{range(10, 10 + bins)});
  for (const auto how : modes) {
    INFO(name_of(how));
    dmap::array<std::int64_t, 1> H(B, 0);
    auto acc = dmap::accumulate(H, std::plus<>{}, how);
    // A zip: the bin from one array, the weight from the other; then a strided view (rows
    // that are not contiguous), every other element counted once more.
    acc.add_each(dmap::zip(std::as_const(V), std::as_const(W)),
                 [](std::int64_t v, std::int64_t w) { return std::pair{idx<1>{10 + v}, w}; });
    acc.add_each(std::as_const(V)[rect<1>{range(0, n, 2)}], [](std::int64_t v) { return std::pair{10 + v, 1}; });
    acc.finish();
    std::vector<std::int64_t> expected(static_cast<std::size_t>(bins), 0);
    for (index_t i = 0; i < n; ++i) {
      expected[static_cast<std::size_t>(scramble(1, i) % bins)] += i % 5 + (i % 2 == 0 ? 1 : 0);
    }
    DMAP_CHECK_ALL(mismatches(B, H, [&](index_t o) { return expected[static_cast<std::size_t>(o)]; }) == 0);
  }
  // A 2-D source whose rows are cut between locales (Block over a grid of every locale), into
  // a 2-D array: transposed indices.
  const dmap::domain<2> S2(dmap::block<2>{}, rect<2>{range(0, 37), range(0, 3 * p + 5)});
  const dmap::domain<2> T2(dmap::block<2>{}, rect<2>{range(0, 3 * p + 5), range(0, 37)});
  dmap::array<std::int64_t, 2> A(T2, 1);
  auto acc = dmap::accumulate(A);
  for (int twice = 0; twice < 2; ++twice)  // two calls in one round: the second finds the tables live
    acc.add_each(S2, [](const idx<2>& i) { return std::pair{idx<2>{i[1], i[0]}, i[0] * 100 + i[1]}; });
  acc.finish();
  DMAP_CHECK_ALL(mismatches(T2, A, [](index_t o) { return 1 + 2 * ((o % 37) * 100 + o / 37); }) == 0);
}

TEST_CASE("aggregation: serial adds to local and remote elements, repeated rounds", "[aggregation]") {
  const int p = dmap::num_locales(), me = dmap::here();
  for (const auto k : maps::all_maps)
    for (const auto how : modes) {
      if (k == maps::map_kind::replicated) continue;
      const auto D = maps::domain_of(k, rect<1>{range(10, 10 + 2 * 101, 2)});
      INFO("map " << maps::name_of(k) << ", " << name_of(how));
      dmap::array<std::int64_t, 1> A(D, 1);
      auto acc = dmap::accumulate(A, std::plus<>{}, how);
      DMAP_CHECK_ALL(!acc.pending());
      for (int round = 1; round <= 2; ++round) {
        // Every locale adds (me + 1) * (o + 1) * round to every element, in its own order.
        for (index_t o = 0; o < 101; ++o)
          acc.add(10 + 2 * ((o * 37 + me) % 101), (me + 1) * (((o * 37 + me) % 101) + 1) * round);
        DMAP_CHECK_ALL(acc.pending());
        acc.finish();
        DMAP_CHECK_ALL(!acc.pending());
        const index_t weight = index_t{p} * (p + 1) / 2 * (round == 1 ? 1 : 3);
        DMAP_CHECK_ALL(mismatches(D, A, [&](index_t o) { return 1 + weight * (o + 1); }) == 0);
      }
    }
}

TEST_CASE("aggregation: few contributions to a large domain (automatic lists, sent unfolded)", "[aggregation]") {
  // 240007 int64 elements and 41 contributions per locale, far fewer than the n / 8 that
  // would move a thread to a table: lists; the orders are sparse, so they travel as they were
  // added (repeats included): to each peer a 40-byte header and a 4-byte order and an 8-byte
  // value each (the values differ).
  const int p = dmap::num_locales(), me = dmap::here();
  const index_t n = 240007;
  for (const auto k : {maps::map_kind::block, maps::map_kind::cyclic}) {
    INFO("map " << maps::name_of(k));
    const auto D = maps::domain_of(k, rect<1>{range(0, n)});
    dmap::array<std::int64_t, 1> A(D, 2);
    auto acc = dmap::accumulate(A);
    std::vector<std::uint64_t> away(static_cast<std::size_t>(p), 0);  // contributions per owner
    for (index_t j = 0; j < 40; ++j) {
      acc.add(scramble(me, j) % n, j + 1);
      ++away[static_cast<std::size_t>(D.locale_of(idx<1>{scramble(me, j) % n}))];
    }
    acc.add(scramble(me, 0) % n, 100);  // a repeat
    ++away[static_cast<std::size_t>(D.locale_of(idx<1>{scramble(me, 0) % n}))];
    std::uint64_t bytes = 0;
    for (int q = 0; q < p; ++q)
      if (q != me && away[static_cast<std::size_t>(q)] > 0) bytes += 40 + 12 * away[static_cast<std::size_t>(q)];
    dmap::reset_counters();
    acc.finish();
    DMAP_CHECK_ALL(dmap::counters().bytes_sent == bytes);
    std::vector<std::int64_t> expected(static_cast<std::size_t>(n), 2);
    std::vector<index_t> touched;
    for (int q = 0; q < p; ++q) {
      for (index_t j = 0; j < 40; ++j) {
        expected[static_cast<std::size_t>(scramble(q, j) % n)] += j + 1;
        touched.push_back(scramble(q, j) % n);
      }
      expected[static_cast<std::size_t>(scramble(q, 0) % n)] += 100;
    }
    const auto got = dmap::gather(A, touched);
    bool ok = got.size() == touched.size();
    for (std::size_t j = 0; ok && j < got.size(); ++j) ok = got[j] == expected[static_cast<std::size_t>(touched[j])];
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(mismatches(D, A, [&](index_t o) { return expected[static_cast<std::size_t>(o)]; }) == 0);
  }
}

TEST_CASE("aggregation: automatic moves a thread to a table by its contributions and the table's size",
          "[aggregation]") {
  // Serial adds (one thread per locale): a thread lists until its (n / r)-th contribution of
  // the round (r: 8 on one locale, 2 on several, for a cached table), then folds into a table
  // of the whole index set, which is sent densely (a tag and every value of each peer's
  // elements) instead of lists of orders.
  const int p = dmap::num_locales(), me = dmap::here();
  const index_t n = 1001;
  const index_t at = p == 1 ? 125 : 500;  // n / 8, n / 2
  REQUIRE(dmap::detail::table_switch_at(n, 8, p) == at);
  for (const auto k : {maps::map_kind::block, maps::map_kind::cyclic, maps::map_kind::irregular}) {
    INFO("map " << maps::name_of(k));
    const auto D = maps::domain_of(k, rect<1>{range(-500, -500 + n)});
    dmap::array<std::int64_t, 1> A(D, 0);
    std::vector<index_t> owned_by(static_cast<std::size_t>(p), 0);
    for (index_t i = -500; i < -500 + n; ++i) ++owned_by[static_cast<std::size_t>(D.locale_of(idx<1>{i}))];
    auto acc = dmap::accumulate(A);
    for (const index_t count : {at - 1, at, 3 * n}) {
      INFO(count << " contributions per locale");
      std::vector<std::uint64_t> listed_to(static_cast<std::size_t>(p), 0);  // contributions per owner
      for (index_t j = 0; j < count; ++j) {
        const index_t i = -500 + (j * 37) % n;  // distinct while j < n
        acc.add(i, 1);
        ++listed_to[static_cast<std::size_t>(D.locale_of(idx<1>{i}))];
      }
      // Lists: to each peer, a 40-byte header, the one value (every contribution is 1) and a
      // 4-byte order per contribution (distinct orders, too sparse to fold). A table: to each
      // peer owning a touched element, a tag and all its values (untouched: 0).
      std::uint64_t list_bytes = 0, dense_bytes = 0;
      for (int q = 0; q < p; ++q)
        if (q != me && listed_to[static_cast<std::size_t>(q)] > 0) {
          list_bytes += 40 + 8 + 4 * listed_to[static_cast<std::size_t>(q)];
          dense_bytes += 8 + 8 * static_cast<std::uint64_t>(owned_by[static_cast<std::size_t>(q)]);
        }
      dmap::reset_counters();
      acc.finish();
      DMAP_CHECK_ALL(dmap::counters().bytes_sent == (count < at ? list_bytes : dense_bytes));
    }
    DMAP_CHECK_ALL(mismatches(D, A, [&](index_t o) {
                     std::int64_t c = 0;
                     for (const index_t count : {at - 1, at, 3 * n})
                       for (index_t j = 0; j < count; ++j) c += (j * 37) % n == o;
                     return c * p;
                   }) == 0);
  }
}

TEST_CASE("aggregation: add_each at the switch point sends a table, below it lists then crosses it mid-row",
          "[aggregation]") {
  // A thread whose share of add_each's loop reaches the switch point goes live at its first
  // contribution (a performance choice: listing first would end in the same table, so the
  // bytes cannot tell the two apart): a table without keys is sent. With a smaller share it
  // lists, and a second call in the round crosses the switch point part way through its row.
  const int p = dmap::num_locales(), me = dmap::here(), t = dmap::num_threads();
  const index_t n = 1001, at = dmap::detail::table_switch_at(n, 8, p);
  const dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, n)});
  for (const index_t share : {at, at * 3 / 4}) {
    INFO("a share of " << share << " per thread, the switch at " << at);
    dmap::array<std::int64_t, 1> A(D, 0);
    auto acc = dmap::accumulate(A);
    const dmap::domain<1> S(dmap::block<1>{}, rect<1>{range(0, share * t * p)});
    const auto bin = [&](const idx<1>& j) { return std::pair{(j[0] * 37 + 11) % n, std::int64_t{1}}; };
    acc.add_each(S, bin);
    if (share == at) {
      // Every thread went live: each locale sends each peer all of its elements' values.
      dmap::reset_counters();
      acc.finish();
      std::uint64_t dense_bytes = 0;
      for (int q = 0; q < p; ++q)
        if (q != me) dense_bytes += 8 + 8 * static_cast<std::uint64_t>(D.local_subdomains(q)[0].size());
      DMAP_CHECK_ALL(dmap::counters().bytes_sent == dense_bytes);
    } else {
      acc.add_each(S, bin);  // (lists, then the table part way through each thread's row)
      acc.finish();
    }
    const index_t calls = share == at ? 1 : 2;
    DMAP_CHECK_ALL(mismatches(D, A, [&](index_t o) {
                     std::int64_t c = 0;
                     for (index_t j = 0; j < share * t * p; ++j) c += (j * 37 + 11) % n == o;
                     return c * calls;
                   }) == 0);
  }
}

TEST_CASE("aggregation: the automatic rule's thresholds", "[aggregation]") {
  // The rule the constructor applies (an op identity, a formula map): on one locale the
  // (n / 8)-th contribution moves a thread to a table, at least the first; beyond 1 MiB of
  // table the (n / 4)-th. On several locales n / 2 and 4n / 5 (rounded down). No table beyond
  // 256 MiB.
  using dmap::detail::table_switch_at;
  DMAP_CHECK_ALL(table_switch_at(1, 8, 1) == 1);
  DMAP_CHECK_ALL(table_switch_at(2, 8, 4) == 1);
  DMAP_CHECK_ALL(table_switch_at(1001, 8, 1) == 125);
  DMAP_CHECK_ALL(table_switch_at(1001, 8, 2) == 500);
  DMAP_CHECK_ALL(table_switch_at(1001, 8, 7) == 500);
  DMAP_CHECK_ALL(table_switch_at(index_t{1} << 17, 8, 1) == index_t{1} << 14);             // 1 MiB: n / 8
  DMAP_CHECK_ALL(table_switch_at(index_t{1} << 17, 8, 3) == index_t{1} << 16);             // n / 2
  DMAP_CHECK_ALL(table_switch_at((index_t{1} << 17) + 4, 8, 1) == (index_t{1} << 15) + 1);  // beyond: n / 4
  DMAP_CHECK_ALL(table_switch_at((index_t{1} << 17) + 4, 8, 2) == 104860);  // 4n / 5: 104860.8
  DMAP_CHECK_ALL(table_switch_at(index_t{1} << 25, 8, 1) == index_t{1} << 23);  // 256 MiB of int64: allowed
  DMAP_CHECK_ALL(table_switch_at(index_t{1} << 25, 8, 4) == 26843545);  // 4 * 2^25 / 5 = 26843545.6
  DMAP_CHECK_ALL(table_switch_at((index_t{1} << 25) + 1, 8, 1) == -1);  // one more: lists
  DMAP_CHECK_ALL(table_switch_at(index_t{1} << 26, 4, 2) == 53687091);  // 256 MiB of float: 4 * 2^26 / 5
  DMAP_CHECK_ALL(table_switch_at(0, 8, 1) == -1);
  DMAP_CHECK_ALL(table_switch_at(std::numeric_limits<index_t>::max(), 1, 1) == -1);
}

TEST_CASE("aggregation: lists of orders, one word or two, and the messages made of them", "[aggregation]") {
  // Not collective: the buffers of lists mode and their message format, with orders past 2^32
  // (an index set that large is more memory than a test has), values left out while equal and
  // written out at the first that differs, folding, and messages that do not match their header.
  using dmap::detail::order_lists;
  using dmap::detail::read_list_message;
  using dmap::detail::write_list_message;
  for (const bool wide : {false, true}) {
    INFO((wide ? "two words per order" : "one word per order"));
    const index_t base = wide ? (index_t{1} << 40) + 3 : 3;  // the orders: base + 7 * j
    std::vector<std::int64_t> folded;
    std::vector<unsigned char> seen;
    std::plus<> op;
    order_lists<std::int64_t> a, b;
    a.reset(3, wide);
    b.reset(3, wide);
    for (index_t j = 0; j < 30; ++j) a.push(static_cast<std::size_t>(j % 3), base + 7 * j, 1);
    for (index_t j = 0; j < 10; ++j) b.push(1, base + 7 * j, 1);
    CHECK(a.uniform());
    CHECK(a.size(1) == 10);
    std::vector<std::byte> out;
    write_list_message<std::int64_t>({&a, &b}, 1, op, out, folded, seen);
    auto m = read_list_message<std::int64_t>(out);
    CHECK(m.uniform);
    CHECK(m.wide == wide);
    CHECK(out.size() == 40 + 8 + 20 * (wide ? 8 : 4));
    REQUIRE(m.count == 20);
    CHECK(m.lo == base);            // the header's least and greatest order
    CHECK(m.hi == base + 7 * 28);
    for (std::size_t j = 0; j < 10; ++j) {
      CHECK(m.order(j) == base + 7 * (3 * static_cast<index_t>(j) + 1));  // a's list to 1 first, in its order
      CHECK(m.order(10 + j) == base + 7 * static_cast<index_t>(j));        // then b's
      CHECK(m.value(j) == 1);
    }
    // A value that differs: b's values written out (the earlier ones 1), a's stay left out.
    b.push(2, base, -5);
    CHECK(!b.uniform());
    CHECK(b.values(1).size() == 10);
    std::vector<std::pair<index_t, std::int64_t>> seen_in_b;
    b.for_each(1, [&](index_t o, std::int64_t x) { seen_in_b.push_back({o, x}); });
    CHECK(seen_in_b.size() == 10);
    CHECK(seen_in_b.back() == std::pair{base + 63, std::int64_t{1}});
    write_list_message<std::int64_t>({&a, &b}, 2, op, out, folded, seen);
    m = read_list_message<std::int64_t>(out);
    CHECK(!m.uniform);
    REQUIRE(m.count == 11);
    CHECK(out.size() == 40 + 11 * (8 + (wide ? 8 : 4)));
    CHECK(m.lo == base);
    CHECK(m.hi == base + 7 * 29);  // a's j = 29
    CHECK(m.order(10) == base);
    CHECK(m.value(10) == -5);
    CHECK(m.value(9) == 1);
    // Four contributions per order of their span or more: folded, orders increasing.
    order_lists<std::int64_t> c;
    c.reset(1, wide);
    for (index_t j = 0; j < 40; ++j) c.push(0, base + 9 - j % 10, j);
    write_list_message<std::int64_t>({&c}, 0, op, out, folded, seen);
    m = read_list_message<std::int64_t>(out);
    REQUIRE(m.count == 10);
    CHECK(m.lo == base);
    CHECK(m.hi == base + 9);
    for (std::size_t k = 0; k < 10; ++k) {
      const auto o = static_cast<index_t>(k);  // order base + o took j = 9 - o, 19 - o, 29 - o, 39 - o
      CHECK(m.order(k) == base + o);
      CHECK(m.value(k) == 4 * (9 - o) + 60);
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](unsigned char f) { return f == 0; }));  // ready for the next
    // An op that throws part way through a fold leaves the scratch ready for the next fold too.
    c.push(0, base + 4, 666);
    auto picky = [](std::int64_t x, std::int64_t y) -> std::int64_t {
      if (y == 666) throw std::runtime_error("the op refuses 666");
      return x + y;
    };
    CHECK_THROWS_AS(write_list_message<std::int64_t>({&c}, 0, picky, out, folded, seen), std::runtime_error);
    CHECK(std::all_of(seen.begin(), seen.end(), [](unsigned char f) { return f == 0; }));
    // Three per order: sent as added.
    c.clear(false);
    for (index_t j = 0; j < 30; ++j) c.push(0, base + j % 10, 2);
    write_list_message<std::int64_t>({&c}, 0, op, out, folded, seen);
    CHECK(read_list_message<std::int64_t>(out).count == 30);
    // Messages that disagree with their header are refused, not read past their end.
    std::vector<std::byte> bad = out;
    bad.pop_back();
    CHECK_THROWS_AS(read_list_message<std::int64_t>(bad), dmap::runtime_error);
    bad = out;
    bad.push_back(std::byte{0});
    CHECK_THROWS_AS(read_list_message<std::int64_t>(bad), dmap::runtime_error);
    for (const index_t count : {index_t{-1}, std::numeric_limits<index_t>::max(), index_t{1} << 61}) {
      bad = out;
      std::memcpy(bad.data() + 8, &count, 8);
      CHECK_THROWS_AS(read_list_message<std::int64_t>(bad), dmap::runtime_error);
    }
    bad = out;
    bad[16] = std::byte{4};  // an unknown flag
    CHECK_THROWS_AS(read_list_message<std::int64_t>(bad), dmap::runtime_error);
    // A span that cannot hold the orders: the least past the greatest, or below 0.
    for (const auto& [lo, hi] : {std::pair<index_t, index_t>{5, 4}, {-1, 10}, {std::numeric_limits<index_t>::min(), 0}}) {
      bad = out;
      std::memcpy(bad.data() + 24, &lo, 8);
      std::memcpy(bad.data() + 32, &hi, 8);
      CHECK_THROWS_AS(read_list_message<std::int64_t>(bad), dmap::runtime_error);
    }
    CHECK_THROWS_AS(read_list_message<std::int64_t>(std::vector<std::byte>(5)), dmap::runtime_error);
    // Nothing listed for a destination: no message.
    c.clear(true);
    write_list_message<std::int64_t>({&c}, 0, op, out, folded, seen);
    CHECK(out.empty());
  }
  // A value type without a default constructor travels too (never folded: no table of it).
  struct pinned {
    explicit pinned(std::int64_t x) : v(x) {}
    std::int64_t v;
  };
  order_lists<pinned> d;
  d.reset(1, false);
  for (index_t j = 0; j < 40; ++j) d.push(0, j % 3, pinned{j < 20 ? 7 : j});
  std::vector<pinned> no_fold;
  std::vector<unsigned char> no_seen;
  const auto keep_last = [](const pinned&, const pinned& y) { return y; };
  std::vector<std::byte> out;
  write_list_message<pinned>({&d}, 0, keep_last, out, no_fold, no_seen);
  const auto m = read_list_message<pinned>(out);
  REQUIRE(m.count == 40);
  CHECK(m.order(39) == 0);
  CHECK(m.value(5).v == 7);
  CHECK(m.value(39).v == 39);
}

TEST_CASE("aggregation: locales buffering in different modes, floating-point sums", "[aggregation]") {
  // Even locales use tables, odd ones lists: every owner takes dense and keyed messages in
  // one round. Sums of doubles: elements nobody touched keep -0.0 (a table's untouched
  // entries hold the identity -0.0, not +0.0), elements that receive +0.0 become +0.0.
  const int p = dmap::num_locales(), me = dmap::here();
  for (const auto k : {maps::map_kind::block, maps::map_kind::block_cyclic, maps::map_kind::stencil}) {
    INFO("map " << maps::name_of(k));
    const index_t n = 53;
    const auto D = maps::domain_of(k, rect<1>{range(0, n)});
    dmap::array<double, 1> A(D, -0.0);
    auto acc = dmap::accumulate(A, std::plus<>{}, me % 2 == 0 ? dmap::aggregation::table : dmap::aggregation::lists);
    for (index_t i = 0; i < n; ++i) {
      if (i % 5 == 0) continue;  // untouched by anyone
      acc.add(i, i % 5 == 1 ? 0.0 : 0.5 * (me + 1));
    }
    acc.finish();
    const double sum = 0.5 * p * (p + 1) / 2;
    std::atomic<index_t> bad{0};
    dmap::forall(D, [&](const idx<1>& i) {
      const double v = A.local(i);
      if (i[0] % 5 == 0) bad += !(v == 0.0 && std::signbit(v));
      else if (i[0] % 5 == 1) bad += !(v == 0.0 && !std::signbit(v));
      else bad += v != sum;
    });
    DMAP_CHECK_ALL(dmap::all_reduce_sum(bad.load()) == 0);
  }
}

TEST_CASE("aggregation: two handles at once, other operations", "[aggregation]") {
  const int p = dmap::num_locales(), me = dmap::here();
  const auto D = maps::domain_of(maps::map_kind::block_cyclic, rect<1>{range(0, 7)});
  dmap::array<std::int64_t, 1> A(D, -100), B(D, 1);
  auto maxima = dmap::accumulate(A, [](std::int64_t a, std::int64_t b) { return a > b ? a : b; });
  auto products = dmap::accumulate(B, std::multiplies<>{});
  for (index_t i = 0; i < 7; ++i) {
    maxima.add(i, (i * 13 + me * 5) % 11);
    products.add(i, me + 2);
  }
  maxima.finish();
  products.finish();
  std::vector<std::int64_t> most(7, -100), product(7, 1);
  for (int q = 0; q < p; ++q)
    for (index_t i = 0; i < 7; ++i) {
      most[i] = std::max<std::int64_t>(most[i], (i * 13 + q * 5) % 11);
      product[i] *= q + 2;
    }
  DMAP_CHECK_ALL(mismatches(D, A, [&](index_t o) { return most[o]; }) == 0);
  DMAP_CHECK_ALL(mismatches(D, B, [&](index_t o) { return product[o]; }) == 0);
}

TEST_CASE("aggregation: scatter keeps the highest locale's write, then the last one", "[aggregation]") {
  const int p = dmap::num_locales(), me = dmap::here();
  for (const auto k : maps::all_maps) {
    if (k == maps::map_kind::replicated) continue;
    INFO("map " << maps::name_of(k));
    for (const index_t n : {index_t{0}, index_t{1}, index_t{7}, index_t{37}})
      for (const auto how : modes) {
        const auto D = maps::domain_of(k, rect<1>{range(0, n)});
        dmap::array<std::int64_t, 1> A(D, -1);
        auto s = dmap::scatter(A, how);
        for (index_t i = 0; i < n; ++i) {
          if (i % 2 == 0) {
            s.put(i, 1000 * me + i);      // every locale: the highest wins
            s.put(i, 1000 * me + i + 1);  // its own later write replaces its earlier one
          } else if (i % 3 == 1 && i % p == me) {
            s.put(i, 7 * i);  // one locale only
          }
        }
        s.finish();
        DMAP_CHECK_ALL(mismatches(D, A, [&](index_t o) -> std::int64_t {
                         if (o % 2 == 0) return 1000 * (p - 1) + o + 1;
                         return o % 3 == 1 ? 7 * o : -1;
                       }) == 0);
      }
  }
}

TEST_CASE("aggregation: gather of computed indices over every map", "[aggregation]") {
  const int p = dmap::num_locales(), me = dmap::here();
  for (const auto k : maps::all_maps)
    for (const index_t n : sizes) {
      INFO("map " << maps::name_of(k) << ", n = " << n);
      const rect<1> r{range(3, 3 + 3 * n, 3)};
      const auto D = maps::domain_of(k, r);
      dmap::array<std::int64_t, 1> A(D);
      dmap::forall(dmap::zip(D, A), [&](const idx<1>& i, std::int64_t& a) { a = 10 * r.order_of(i) + 1; });
      // A permutation (reversed, shifted by the locale), then duplicates; locale 1 asks nothing.
      std::vector<index_t> asked;
      if (me != 1 && n > 0) {
        for (index_t o = 0; o < n; ++o) asked.push_back(r.index_at(pmod(n - 1 - o + me, n))[0]);
        for (index_t o = 0; o < 5; ++o) asked.push_back(r.index_at((o * me) % n)[0]);
      }
      const std::vector<std::int64_t> got = dmap::gather(A, asked);
      bool ok = got.size() == asked.size();
      for (std::size_t j = 0; ok && j < asked.size(); ++j) ok = got[j] == 10 * ((asked[j] - 3) / 3) + 1;
      DMAP_CHECK_ALL(ok);
    }
  (void)p;
}

TEST_CASE("aggregation: gather over 2-D maps", "[aggregation]") {
  const int me = dmap::here();
  const rect<2> r{range(0, 5), range(-3, 4)};
  for (const auto& m : maps::makers()) {
    INFO("map " << m.name);
    const auto D = m.make(r);
    dmap::array<std::int64_t, 2> A(D);
    dmap::forall(dmap::zip(D, A), [&](const idx<2>& i, std::int64_t& a) { a = r.order_of(i) * 3 - 7; });
    std::vector<idx<2>> asked;
    for (index_t o = 0; o < r.size(); o += 1 + me) asked.push_back(r.index_at((o * 11) % r.size()));
    const auto got = dmap::gather(A, asked);
    bool ok = got.size() == asked.size();
    for (std::size_t j = 0; ok && j < asked.size(); ++j) ok = got[j] == r.order_of(asked[j]) * 3 - 7;
    DMAP_CHECK_ALL(ok);
  }
}

TEST_CASE("aggregation: one message per peer with data", "[aggregation]") {
  const int p = dmap::num_locales(), me = dmap::here();
  const index_t n = 101;
  const dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, n)});
  dmap::array<std::int64_t, 1> A(D);
  // Each locale adds many times to the elements of the next locale and of itself only.
  const int next = (me + 1) % p;
  std::vector<index_t> targets;
  for (index_t i = 0; i < n; ++i)
    if (D.locale_of(idx<1>{i}) == next || D.locale_of(idx<1>{i}) == me) targets.push_back(i);
  for (const auto how : modes) {
    INFO(name_of(how));
    dmap::forall(A, [](std::int64_t& a) { a = 0; });
    auto acc = dmap::accumulate(A, std::plus<>{}, how);
    dmap::reset_counters();
    for (int rep = 0; rep < 4; ++rep)
      for (const index_t i : targets) acc.add(i, 1);
    acc.finish();
    const auto spent = dmap::counters();
    const std::uint64_t peers = p > 1 ? 1 : 0;
    DMAP_CHECK_ALL(spent.messages_sent == peers);
    DMAP_CHECK_ALL(spent.messages_received == peers);
    // Dense bins are combined at the source: lists (4 contributions per order of their span)
    // are folded and send a header and one (4-byte order, value) pair per element; tables
    // (chosen by automatic too) a tag and the values of the next locale's elements (all of
    // them touched), no keys.
    std::uint64_t to_next = 0;
    for (const index_t i : targets) to_next += D.locale_of(idx<1>{i}) == next && next != me;
    const std::uint64_t listed = to_next > 0 ? 40 + to_next * 12 : 0, dense = to_next > 0 ? 8 + to_next * 8 : 0;
    DMAP_CHECK_ALL(spent.bytes_sent == (how == dmap::aggregation::lists ? listed : dense));
    DMAP_CHECK_ALL(mismatches(D, A, [&](index_t) { return p == 1 ? 4 : 8; }) == 0);

    // Every locale to every locale: p - 1 messages each way; a gather: p - 1 each way, twice.
    std::vector<index_t> all(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
    dmap::reset_counters();
    for (const index_t i : all) acc.add(i, 1);
    acc.finish();
    DMAP_CHECK_ALL(dmap::counters().messages_sent == static_cast<std::uint64_t>(p - 1));
    DMAP_CHECK_ALL(dmap::counters().messages_received == static_cast<std::uint64_t>(p - 1));
    dmap::reset_counters();
    const auto values = dmap::gather(A, all);
    DMAP_CHECK_ALL(dmap::counters().messages_sent == 2 * static_cast<std::uint64_t>(p - 1));
    DMAP_CHECK_ALL(dmap::counters().messages_received == 2 * static_cast<std::uint64_t>(p - 1));
    bool ok = values.size() == all.size();
    for (std::size_t j = 0; ok && j < values.size(); ++j) ok = values[j] == (p == 1 ? 4 : 8) + p;
    DMAP_CHECK_ALL(ok);
    // Nothing to send: no message at all.
    dmap::reset_counters();
    acc.finish();
    DMAP_CHECK_ALL(dmap::counters().messages_sent == 0);
  }
}

}  // namespace test_aggregation
