// dmap::sort, stable_sort, sort_by_key, stable_sort_by_key, is_sorted and count_unique over
// every 1-D map of tests/maps_1d.hpp, against std::sort / std::stable_sort / std::unique of
// the same values on one locale.
//
// Inputs are vectors of values by row-major position, identical on every locale (a fixed
// seed), written into the array at each index's position; the result is read back with
// gather() (and, for maps with copies, each locale's own copy) and compared with the oracle.
// Sizes are uneven and small (0, 1, 2, 7, 37, 101: more locales than elements at 3-4 ranks);
// index sets are offset, strided and descending.
#include "../maps_1d.hpp"
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace test_sort {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::maps::all_maps;
using dmap::testing::maps::domain_of;
using dmap::testing::maps::map_kind;
using dmap::testing::maps::name_of;

/// The index sets a sweep uses for n elements: unit stride from 0, offset with stride 3,
/// descending.
std::vector<rect<1>> index_sets(index_t n) {
  return {rect<1>{range(0, n)}, rect<1>{range::counted(-11, n, 3)}, rect<1>{range::counted(40, n, -1)}};
}

/// The row-major position of `i` in `r`, computed from the range's first index and stride.
index_t position_of(const rect<1>& r, const idx<1>& i) {
  const range& d = r.dim(0);
  const index_t first = d.stride() > 0 ? d.lo() + dmap::testing::oracle::pmod(d.alignment() - d.lo(), d.stride())
                                       : d.hi() - 1 - dmap::testing::oracle::pmod(d.hi() - 1 - d.alignment(), -d.stride());
  return (i[0] - first) / d.stride();
}

/// Writes values[k] to the element at row-major position k of `a` (every copy).
template <class T>
void fill(dmap::array<T, 1>& a, const std::vector<T>& values) {
  const rect<1> r = a.domain().indices();
  dmap::forall(dmap::zip(a.domain(), a), [&](const idx<1>& i, T& x) { x = values[static_cast<std::size_t>(position_of(r, i))]; });
}

/// Collective: "" when `a` holds `want` by row-major position (read with gather on locale 0;
/// under maps with copies also every locale's own copy, read locally), else what differs.
template <class T, class Eq = std::equal_to<>>
std::string holds(const dmap::array<T, 1>& a, const std::vector<T>& want, Eq eq = {}) {
  std::string bad;
  const auto got = a.gather();
  if (dmap::here() == 0) {
    if (got.size() != want.size()) bad = "gathered " + std::to_string(got.size()) + " elements";
    for (std::size_t k = 0; bad.empty() && k < got.size(); ++k)
      if (!eq(got[k], want[k])) bad = "wrong element at position " + std::to_string(k);
  }
  // Every locale checks the elements it stores for its owned indices (copies included).
  const rect<1> r = a.domain().indices();
  for (const auto& piece : a.domain().local_subdomains())
    for (index_t k = 0; bad.empty() && k < piece.size(); ++k) {
      const idx<1> i{piece.dim(0).index_at(k)};
      if (!eq(a.local(i), want[static_cast<std::size_t>(position_of(r, i))]))
        bad = "locale " + std::to_string(dmap::here()) + " stores a wrong element at position " +
              std::to_string(position_of(r, i));
    }
  return bad;
}

/// Values for a pattern: random in [-50, 50], all equal, ascending, descending, few distinct.
enum class pattern { random, equal, ascending, descending, few };
constexpr pattern all_patterns[] = {pattern::random, pattern::equal, pattern::ascending, pattern::descending,
                                    pattern::few};

std::vector<std::int64_t> values_of(pattern p, index_t n, std::mt19937_64& rng) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) {
    auto& x = v[static_cast<std::size_t>(k)];
    switch (p) {
      case pattern::random: x = static_cast<std::int64_t>(rng() % 101) - 50; break;
      case pattern::equal: x = 7; break;
      case pattern::ascending: x = 2 * k - n; break;
      case pattern::descending: x = n - 3 * k; break;
      case pattern::few: x = static_cast<std::int64_t>(rng() % 3); break;
    }
  }
  return v;
}

/// A record sorted by its key only; `tag` tells equal keys apart (its original position).
struct record {
  std::int32_t key;
  std::int32_t tag;
  friend bool operator==(const record&, const record&) = default;
};
struct by_key {
  bool operator()(const record& a, const record& b) const { return a.key < b.key; }
};

const std::vector<index_t> sizes{0, 1, 2, 7, 37, 101};

}  // namespace

TEST_CASE("sort: every map, uneven sizes and index sets, against std::sort", "[sort]") {
  std::mt19937_64 rng(20261125);
  for (const map_kind k : all_maps)
    for (const index_t n : sizes)
      for (const rect<1>& r : index_sets(n)) {
        if (r.dim(0).stride() != 1 && n != 2 && n != 37) continue;
        INFO("map " << name_of(k) << ", indices " << r);
        dmap::domain<1> D = domain_of(k, r);
        dmap::array<std::int64_t, 1> A(D);
        auto values = values_of(pattern::random, n, rng);
        fill(A, values);
        dmap::sort(A);
        std::sort(values.begin(), values.end());
        CHECK_NO_FAILURE(holds(A, values));
      }
}

TEST_CASE("sort: patterns (equal, sorted, reversed, few distinct) and a descending comparator", "[sort]") {
  std::mt19937_64 rng(7);
  for (const map_kind k : all_maps)
    for (const pattern p : all_patterns) {
      // Every pattern on a contiguous cut and on a copied map; the hard ones on every map.
      if (k != map_kind::block && k != map_kind::cyclic && p != pattern::equal && p != pattern::few) continue;
      const index_t n = 37;
      INFO("map " << name_of(k) << ", pattern " << static_cast<int>(p));
      dmap::domain<1> D = domain_of(k, rect<1>{range(3, 3 + n)});
      dmap::array<std::int64_t, 1> A(D), B(D);
      auto values = values_of(p, n, rng);
      fill(A, values);
      fill(B, values);
      dmap::sort(A);
      dmap::sort(B, std::greater<>{});
      auto up = values, down = values;
      std::sort(up.begin(), up.end());
      std::sort(down.begin(), down.end(), std::greater<>{});
      CHECK_NO_FAILURE(holds(A, up));
      CHECK_NO_FAILURE(holds(B, down));
    }
}

TEST_CASE("sort: large patterns of numbers under std::less and std::greater, stable or not", "[sort]") {
  // Large enough for each locale's threads to split their part (16,384 elements a part at
  // least); on one locale with Block the elements are sorted in the array's own storage
  // (partitions around sampled pivots, then a std::sort per thread): patterns that unbalance
  // the pivots (all equal, two values, sorted, reversed), doubles with NaNs and signed zeros.
  std::mt19937_64 rng(29);
  const index_t n = 5 * 16384 * dmap::num_locales() + 7;
  for (const map_kind k : {map_kind::block, map_kind::cyclic})
    for (const pattern p : all_patterns) {
      INFO("map " << name_of(k) << ", pattern " << static_cast<int>(p) << ", " << dmap::num_threads() << " thread(s)");
      dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
      dmap::array<std::int64_t, 1> A(D);
      const auto values = values_of(p, n, rng);
      auto up = values, down = values;
      std::sort(up.begin(), up.end());
      std::sort(down.begin(), down.end(), std::greater<>{});
      fill(A, values);
      dmap::sort(A);
      CHECK_NO_FAILURE(holds(A, up));
      fill(A, values);
      dmap::sort(A, std::greater<>{});
      CHECK_NO_FAILURE(holds(A, down));
      fill(A, values);
      dmap::stable_sort(A, std::greater<std::int64_t>{});
      CHECK_NO_FAILURE(holds(A, down));
      // By key (not stable): the keys in order, each with the position it came from.
      dmap::array<std::int64_t, 1> P(D);
      std::vector<std::int64_t> positions(values.size());
      std::iota(positions.begin(), positions.end(), std::int64_t{0});
      fill(A, values);
      fill(P, positions);
      dmap::sort_by_key(A, P);
      CHECK_NO_FAILURE(holds(A, up));
      const auto keys = A.gather(), from = P.gather();
      bool paired = dmap::here() != 0 || (keys.size() == values.size() && from.size() == values.size());
      std::vector<bool> used(values.size(), false);
      for (std::size_t j = 0; paired && dmap::here() == 0 && j < keys.size(); ++j) {
        const auto q = static_cast<std::size_t>(from[j]);
        paired = q < values.size() && !used[q] && values[q] == keys[j];
        if (paired) used[q] = true;
      }
      DMAP_CHECK_ALL(paired);
      // Doubles: the same values with every 11th a NaN, every 13th a -0.0.
      std::vector<double> d(values.size());
      for (std::size_t j = 0; j < d.size(); ++j)
        d[j] = j % 11 == 0 ? std::numeric_limits<double>::quiet_NaN() : j % 13 == 0 ? -0.0 : static_cast<double>(values[j]);
      const auto nan_last = [](double a, double b) { return a < b || (b != b && a == a); };
      auto want = d;
      std::sort(want.begin(), want.end(), nan_last);
      dmap::array<double, 1> X(D);
      fill(X, d);
      dmap::sort(X);
      const auto same = [](double a, double b) { return a == b || (a != a && b != b); };  // -0.0 == 0.0
      CHECK_NO_FAILURE(holds(X, want, same));
    }
}

TEST_CASE("parallel_partition: any number of chunks, any split, the elements kept", "[sort]") {
  // Each chunk is partitioned, then misplaced runs are swapped across chunks: splits at either
  // end, in one chunk, on chunk boundaries, and chunks of one or two elements' difference.
  using dmap::detail::sort_grain;
  std::mt19937_64 rng(31 + static_cast<unsigned>(dmap::here()));
  bool right = true;
  for (const std::size_t pieces : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{7}})
    for (const std::size_t n : {sort_grain - 1, sort_grain, sort_grain + 1, 3 * sort_grain + 5, std::size_t{100003}})
      for (int shape = 0; shape < 6; ++shape) {
        std::vector<std::int64_t> v(n);
        for (std::size_t j = 0; j < n; ++j) {
          const auto k = static_cast<std::int64_t>(j);
          v[j] = shape == 0 ? static_cast<std::int64_t>(rng() % 1000)     // random
                 : shape == 1 ? k                                         // ascending
                 : shape == 2 ? -k                                        // descending
                 : shape == 3 ? (j * pieces / n % 2 == 0 ? 0 : 1000)      // alternate chunks
                 : shape == 4 ? 0                                         // all true
                              : 1000;                                     // all false
        }
        const std::int64_t cut = shape == 0 ? 500 : shape == 1 || shape == 2 ? (shape == 1 ? 1 : -1) * static_cast<std::int64_t>(n / 3) : 1;
        const auto pred = [&](std::int64_t x) { return shape == 2 ? x > cut : x < cut; };
        auto want = v;
        std::sort(want.begin(), want.end());
        dmap::detail::partition_scratch scratch(pieces);
        const std::size_t mid = static_cast<std::size_t>(dmap::detail::parallel_partition(v.data(), n, pred, scratch) - v.data());
        const auto count = static_cast<std::size_t>(std::count_if(v.begin(), v.end(), pred));
        bool ok = mid == count && std::all_of(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), pred) &&
                  std::none_of(v.begin() + static_cast<std::ptrdiff_t>(mid), v.end(), pred);
        std::sort(v.begin(), v.end());
        ok = ok && v == want;
        if (!ok) UNSCOPED_INFO("pieces " << pieces << ", n " << n << ", shape " << shape << ": split " << mid << ", want " << count);
        right = right && ok;
      }
  DMAP_CHECK_ALL(right);
}

TEST_CASE("sorts of double keys: NaN keys last (with their values), with and without NaNs", "[sort]") {
  // On one locale the pairs are packed, looked at for NaN keys while packing, and sorted in a
  // pooled buffer; on several, sample-sorted. Keys with NaNs and keys without, both sides of
  // the one-locale path, large enough for every thread to split.
  std::mt19937_64 rng(37);
  const index_t n = 3 * 16384 * dmap::num_locales() + 5;
  for (const map_kind k : {map_kind::block, map_kind::cyclic})
    for (const bool with_nan : {false, true}) {
      INFO("map " << name_of(k) << (with_nan ? ", with NaN keys" : ", no NaN key"));
      std::vector<double> keys(static_cast<std::size_t>(n));
      std::uniform_real_distribution<double> uniform(-100.0, 100.0);
      for (std::size_t j = 0; j < keys.size(); ++j)
        keys[j] = with_nan && j % 7 == 3 ? std::numeric_limits<double>::quiet_NaN() : std::floor(uniform(rng));
      std::vector<std::int64_t> positions(keys.size());
      std::iota(positions.begin(), positions.end(), std::int64_t{0});
      dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
      dmap::array<double, 1> K(D);
      dmap::array<std::int64_t, 1> P(D);
      fill(K, keys);
      fill(P, positions);
      dmap::sort_by_key(K, P);
      const auto got = K.gather();
      const auto from = P.gather();
      bool ok = dmap::here() != 0 || (got.size() == keys.size() && from.size() == keys.size());
      std::vector<bool> used(keys.size(), false);
      for (std::size_t j = 0; ok && dmap::here() == 0 && j < got.size(); ++j) {
        const auto q = static_cast<std::size_t>(from[j]);
        const bool nan = got[j] != got[j];
        ok = q < keys.size() && !used[q] && (nan ? keys[q] != keys[q] : keys[q] == got[j]);
        // Numbers ascending, then the NaNs.
        if (ok && j > 0) ok = nan || (got[j - 1] == got[j - 1] && got[j - 1] <= got[j]);
        if (ok) used[q] = true;
      }
      DMAP_CHECK_ALL(ok);
      // The keys alone, sorted and stable-sorted (copied noting NaNs on several locales).
      auto want = keys;
      std::sort(want.begin(), want.end(), [](double a, double b) { return a < b || (b != b && a == a); });
      const auto same = [](double a, double b) { return a == b || (a != a && b != b); };
      for (const bool stable : {false, true}) {
        fill(K, keys);
        if (stable) dmap::stable_sort(K);
        else dmap::sort(K);
        CHECK_NO_FAILURE(holds(K, want, same));
      }
    }
}

TEST_CASE("sort: many equal keys are spread over the locales, not piled on one", "[sort]") {
  // All elements equal: regular sampling breaks ties by position, so the buckets stay
  // balanced and the placement into Block moves nothing.
  const index_t n = 101;
  dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, n)});
  dmap::array<double, 1> A(D, 2.5);
  const auto before = dmap::counters();
  dmap::sort(A);
  const auto after = dmap::counters();
  // The data exchange sends each locale's run to itself; nothing else moves.
  DMAP_CHECK_ALL(after.messages_sent == before.messages_sent && after.node_copies == before.node_copies);
  CHECK_NO_FAILURE(holds(A, std::vector<double>(static_cast<std::size_t>(n), 2.5)));
  // Reversed input: at most one message per peer for the data and one per peer for the
  // placement, and every element sent at most twice.
  std::vector<double> down(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) down[static_cast<std::size_t>(k)] = static_cast<double>(n - k);
  fill(A, down);
  const auto start = dmap::counters();
  dmap::sort(A);
  const auto spent = dmap::counters() - start;
  const auto peers = static_cast<std::uint64_t>(dmap::num_locales() - 1);
  DMAP_CHECK_ALL(spent.messages_sent <= 2 * peers);
  DMAP_CHECK_ALL(spent.bytes_sent + spent.node_bytes <= 2 * sizeof(double) * static_cast<std::uint64_t>(D.local_size()));
  std::sort(down.begin(), down.end());
  CHECK_NO_FAILURE(holds(A, down));
}

TEST_CASE("stable_sort: records with equal keys keep their order, every map", "[sort]") {
  std::mt19937_64 rng(99);
  for (const map_kind k : all_maps)
    for (const index_t n : {index_t{0}, index_t{2}, index_t{7}, index_t{101}})
      for (const rect<1>& r : index_sets(n)) {
        if (r.dim(0).stride() != 1 && n != 7) continue;
        INFO("map " << name_of(k) << ", indices " << r);
        dmap::domain<1> D = domain_of(k, r);
        dmap::array<record, 1> A(D);
        std::vector<record> values(static_cast<std::size_t>(n));
        for (index_t j = 0; j < n; ++j)
          values[static_cast<std::size_t>(j)] = {static_cast<std::int32_t>(rng() % 4), static_cast<std::int32_t>(j)};
        fill(A, values);
        dmap::stable_sort(A, by_key{});
        std::stable_sort(values.begin(), values.end(), by_key{});
        CHECK_NO_FAILURE(holds(A, values));
      }
}

TEST_CASE("stable_sort: all keys equal and a descending key order", "[sort]") {
  for (const map_kind k : {map_kind::block, map_kind::cyclic, map_kind::unstructured}) {
    const index_t n = 37;
    dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
    dmap::array<record, 1> A(D), B(D);
    std::vector<record> same(static_cast<std::size_t>(n)), mixed(static_cast<std::size_t>(n));
    for (index_t j = 0; j < n; ++j) {
      same[static_cast<std::size_t>(j)] = {5, static_cast<std::int32_t>(j)};
      mixed[static_cast<std::size_t>(j)] = {static_cast<std::int32_t>((j * 7) % 5), static_cast<std::int32_t>(j)};
    }
    fill(A, same);
    fill(B, mixed);
    dmap::stable_sort(A, by_key{});
    const auto descending = [](const record& a, const record& b) { return a.key > b.key; };
    dmap::stable_sort(B, descending);
    std::stable_sort(mixed.begin(), mixed.end(), descending);
    INFO("map " << name_of(k));
    CHECK_NO_FAILURE(holds(A, same));
    CHECK_NO_FAILURE(holds(B, mixed));
  }
}

TEST_CASE("sort of doubles: NaNs go last under std::less and std::greater", "[sort]") {
  const index_t n = 37;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> values(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) values[static_cast<std::size_t>(k)] = k % 5 == 2 ? nan : static_cast<double>((k * 13) % 17) - 8;
  const auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  for (const map_kind k : {map_kind::block, map_kind::cyclic}) {
    dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
    dmap::array<double, 1> A(D), B(D);
    fill(A, values);
    fill(B, values);
    dmap::sort(A);
    dmap::sort(B, std::greater<double>{});
    std::vector<double> numbers;
    for (double v : values)
      if (!std::isnan(v)) numbers.push_back(v);
    std::sort(numbers.begin(), numbers.end());
    auto up = numbers;
    up.resize(values.size(), nan);
    std::vector<double> down(numbers.rbegin(), numbers.rend());
    down.resize(values.size(), nan);
    INFO("map " << name_of(k));
    CHECK_NO_FAILURE(holds(A, up, same));
    CHECK_NO_FAILURE(holds(B, down, same));
    DMAP_CHECK_ALL(dmap::is_sorted(A));
    DMAP_CHECK_ALL(dmap::count_unique(A) == static_cast<index_t>(std::set<double>(numbers.begin(), numbers.end()).size()) + 1);
  }
}

TEST_CASE("sort_by_key: values on another map move with their keys", "[sort]") {
  std::mt19937_64 rng(5);
  const std::pair<map_kind, map_kind> pairs[] = {{map_kind::block, map_kind::cyclic},
                                                 {map_kind::cyclic, map_kind::block},
                                                 {map_kind::hashed, map_kind::irregular},
                                                 {map_kind::block_cyclic, map_kind::unstructured},
                                                 {map_kind::replicated, map_kind::stencil},
                                                 {map_kind::block, map_kind::block}};
  for (const auto& [kk, kv] : pairs)
    for (const index_t n : {index_t{0}, index_t{1}, index_t{7}, index_t{101}}) {
      INFO("keys " << name_of(kk) << ", values " << name_of(kv) << ", n " << n);
      dmap::domain<1> DK = domain_of(kk, rect<1>{range(0, n)});
      dmap::domain<1> DV = domain_of(kv, rect<1>{range::counted(100, n, -2)});
      dmap::array<std::int32_t, 1> K(DK);
      dmap::array<double, 1> V(DV);
      std::vector<std::int32_t> keys(static_cast<std::size_t>(n));
      std::vector<double> vals(static_cast<std::size_t>(n));
      for (index_t j = 0; j < n; ++j) {
        keys[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(rng() % 9);
        vals[static_cast<std::size_t>(j)] = 0.5 * static_cast<double>(j);
      }
      fill(K, keys);
      fill(V, vals);
      dmap::stable_sort_by_key(K, V);
      std::vector<std::pair<std::int32_t, double>> oracle;
      for (index_t j = 0; j < n; ++j) oracle.emplace_back(keys[static_cast<std::size_t>(j)], vals[static_cast<std::size_t>(j)]);
      std::stable_sort(oracle.begin(), oracle.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<std::int32_t> want_k;
      std::vector<double> want_v;
      for (const auto& [a, b] : oracle) {
        want_k.push_back(a);
        want_v.push_back(b);
      }
      CHECK_NO_FAILURE(holds(K, want_k));
      CHECK_NO_FAILURE(holds(V, want_v));
      // The unstable variant: keys sorted, and each (key, value) pair is one of the input's.
      fill(K, keys);
      fill(V, vals);
      dmap::sort_by_key(K, V, std::greater<>{});
      std::vector<std::int32_t> down = keys;
      std::sort(down.begin(), down.end(), std::greater<>{});
      CHECK_NO_FAILURE(holds(K, down));
      const auto gk = K.gather();
      const auto gv = V.gather();
      bool paired = true;
      for (std::size_t j = 0; j < gk.size(); ++j) {
        const auto at = static_cast<std::size_t>(gv[j] * 2);
        paired = paired && at < keys.size() && keys[at] == gk[j];
      }
      std::vector<double> sorted_v = gv;
      std::sort(sorted_v.begin(), sorted_v.end());
      DMAP_CHECK_ALL(paired && (dmap::here() != 0 || sorted_v == vals));
    }
}

TEST_CASE("is_sorted and count_unique: locale boundaries, every map", "[sort]") {
  std::mt19937_64 rng(3);
  for (const map_kind k : all_maps)
    for (const index_t n : {index_t{0}, index_t{2}, index_t{7}, index_t{37}}) {
      INFO("map " << name_of(k) << ", n " << n);
      dmap::domain<1> D = domain_of(k, rect<1>{range::counted(9, n, -1)});
      dmap::array<std::int64_t, 1> A(D);
      auto values = values_of(pattern::few, n, rng);
      std::sort(values.begin(), values.end());
      fill(A, values);
      const auto distinct = static_cast<index_t>(std::unique(values.begin(), values.end()) - values.begin());
      DMAP_CHECK_ALL(dmap::is_sorted(A));
      DMAP_CHECK_ALL(dmap::count_unique(A) == distinct);
      // One inversion at every position in turn (boundaries between owners included).
      for (index_t at = 1; at < n; ++at) {
        auto broken = values_of(pattern::ascending, n, rng);
        std::swap(broken[static_cast<std::size_t>(at - 1)], broken[static_cast<std::size_t>(at)]);
        fill(A, broken);
        DMAP_CHECK_ALL(!dmap::is_sorted(A));
        DMAP_CHECK_ALL(dmap::is_sorted(A, std::greater<>{}) == (n == 2));
        if (at == 1) DMAP_CHECK_ALL(dmap::count_unique(A) == n);
        // Every position of the short arrays under a contiguous cut and Cyclic, a few
        // positions otherwise.
        const bool every = n <= 7 && (k == map_kind::block || k == map_kind::irregular || k == map_kind::cyclic);
        if (!every) at += n / 3;
      }
      // Unsorted input: count_unique sorts a copy and leaves the array alone.
      auto shuffled = values_of(pattern::random, n, rng);
      fill(A, shuffled);
      auto copy = shuffled;
      std::sort(copy.begin(), copy.end());
      const auto want = static_cast<index_t>(std::unique(copy.begin(), copy.end()) - copy.begin());
      DMAP_CHECK_ALL(dmap::count_unique(A) == want);
      CHECK_NO_FAILURE(holds(A, shuffled));
    }
}

TEST_CASE("sort of 1-D views: strided slices of any map, the rest untouched", "[sort]") {
  std::mt19937_64 rng(11);
  const index_t n = 23;
  for (const map_kind k : {map_kind::block, map_kind::cyclic, map_kind::hashed}) {
    INFO("map " << name_of(k));
    dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
    dmap::array<std::int64_t, 1> A(D);
    auto values = values_of(pattern::random, n, rng);
    fill(A, values);
    // Positions 1, 4, 7, ... sorted ascending; then positions 2, 4, ..., 20 descending, stably.
    const rect<1> every_third{range(1, n, 3)};
    DMAP_CHECK_ALL(!dmap::is_sorted(A[every_third]));
    dmap::sort(A[every_third]);
    std::vector<std::int64_t> picked;
    for (index_t j = 1; j < n; j += 3) picked.push_back(values[static_cast<std::size_t>(j)]);
    std::sort(picked.begin(), picked.end());
    for (std::size_t t = 0; t < picked.size(); ++t) values[1 + 3 * t] = picked[t];
    CHECK_NO_FAILURE(holds(A, values));
    DMAP_CHECK_ALL(dmap::is_sorted(A[every_third]));
    std::vector<std::int64_t> distinct = picked;
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    DMAP_CHECK_ALL(dmap::count_unique(std::as_const(A)[every_third]) == static_cast<index_t>(distinct.size()));
    const rect<1> evens{range(2, 21, 2)};
    dmap::stable_sort(A[evens], std::greater<>{});
    picked.clear();
    for (index_t j = 2; j < 21; j += 2) picked.push_back(values[static_cast<std::size_t>(j)]);
    std::stable_sort(picked.begin(), picked.end(), std::greater<>{});
    for (std::size_t t = 0; t < picked.size(); ++t) values[2 + 2 * t] = picked[t];
    CHECK_NO_FAILURE(holds(A, values));
  }
}

}  // namespace test_sort

namespace test_sort {

TEST_CASE("stable sorts of numbers keep signed zeros and NaN payloads in their order", "[sort]") {
  // Numbers that compare equal are identical but for the sign of zero (and NaNs, which go last,
  // for their payloads): a stable sort must keep those in their row-major order. Large enough
  // for every locale's local sort to use its threads (run with DMAP_NUM_THREADS=2 to be sure).
  const index_t n = 2 * 16384 * dmap::num_locales() + 37;
  std::mt19937_64 rng(11);
  std::vector<double> values(static_cast<std::size_t>(n));
  std::uint64_t payload = 0;
  for (auto& x : values) {
    switch (rng() % 8) {
      case 0: x = -0.0; break;
      case 1: x = 0.0; break;
      case 2: x = std::bit_cast<double>(0x7ff8000000000000ull | ++payload); break;  // a NaN with its own payload
      default: x = static_cast<double>(static_cast<std::int64_t>(rng() % 2001) - 1000);
    }
  }
  const auto bitwise = [](double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); };
  // The oracle: NaNs set apart in order, the numbers sorted stably.
  const auto oracle = [&](auto less) {
    std::vector<double> v = values;
    const auto end = std::stable_partition(v.begin(), v.end(), [](double x) { return x == x; });
    std::stable_sort(v.begin(), end, less);
    return v;
  };
  for (const map_kind k : {map_kind::block, map_kind::cyclic}) {
    INFO("map " << name_of(k));
    dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
    dmap::array<double, 1> A(D);
    fill(A, values);
    dmap::stable_sort(A);
    CHECK_NO_FAILURE(holds(A, oracle(std::less<>{}), bitwise));
    fill(A, values);
    dmap::stable_sort(A, std::greater<>{});
    CHECK_NO_FAILURE(holds(A, oracle(std::greater<>{}), bitwise));
    // By key: the same keys, their positions as values.
    dmap::array<std::int64_t, 1> V(D);
    std::vector<std::int64_t> positions(values.size());
    std::iota(positions.begin(), positions.end(), std::int64_t{0});
    fill(A, values);
    fill(V, positions);
    dmap::stable_sort_by_key(A, V);
    std::vector<std::pair<double, std::int64_t>> pairs;
    for (std::size_t j = 0; j < values.size(); ++j) pairs.emplace_back(values[j], positions[j]);
    const auto end = std::stable_partition(pairs.begin(), pairs.end(), [](const auto& p) { return p.first == p.first; });
    std::stable_sort(pairs.begin(), end, [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<double> want_k;
    std::vector<std::int64_t> want_v;
    for (const auto& [a, b] : pairs) {
      want_k.push_back(a);
      want_v.push_back(b);
    }
    CHECK_NO_FAILURE(holds(A, want_k, bitwise));
    CHECK_NO_FAILURE(holds(V, want_v));
    // Unstable by key: the keys in order with the NaN keys last, each pair one of the input's.
    fill(A, values);
    fill(V, positions);
    dmap::sort_by_key(A, V);
    const auto gk = A.gather();
    const auto gv = V.gather();
    bool ok = true;
    for (std::size_t j = 0; j < gk.size(); ++j) {
      ok = ok && bitwise(gk[j], values[static_cast<std::size_t>(gv[j])]);
      if (j > 0) ok = ok && (gk[j] != gk[j] || (gk[j - 1] == gk[j - 1] && !(gk[j] < gk[j - 1])));
    }
    DMAP_CHECK_ALL(ok);
  }
}

}  // namespace test_sort
