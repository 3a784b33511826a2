// dmap::view(D) and dmap::view(A): serial views in global row-major order (standard ranges
// that range-v3 takes too), against a serial oracle, and their communication (batches of view_batch_elements, one message per
// batch and remote owner) against the counters.
//
// The oracle of a rect is the row-major list of its indices, built by nested loops over each
// dimension's sequence (found by scanning [lo, hi) for (i - alignment) mod |stride| == 0);
// element values are formulas of the index. Views are not collective: each locale iterates
// them alone (in turn, the others waiting in a barrier) or all at once; the checks that
// follow are collective (DMAP_CHECK_ALL).
//
// Random cases come from a std::mt19937_64 with a fixed seed, identical on every locale.
#include "../oracle.hpp"
#include "../support.hpp"

#include <range/v3/algorithm/equal.hpp>
#include <range/v3/algorithm/max.hpp>
#include <range/v3/numeric/accumulate.hpp>
#include <range/v3/range/conversion.hpp>
#include <range/v3/range/primitives.hpp>
#include <range/v3/view/drop.hpp>
#include <range/v3/view/reverse.hpp>
#include <range/v3/view/stride.hpp>
#include <range/v3/view/take.hpp>
#include <range/v3/view/zip.hpp>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <numeric>
#include <ranges>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace test_views {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

// ------------------------------------------------------------------------------- oracle

using namespace dmap::testing::oracle;  // tests/oracle.hpp

/// "" when `got` equals `want`, else the first difference.
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return "the view has " + std::to_string(got.size()) + " elements, expected " + std::to_string(want.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    if (!(got[k] == want[k]))
      return "element " + std::to_string(k) + " is " + text(got[k]) + ", expected " + text(want[k]);
  return {};
}

// ------------------------------------------------------------------------------- cases

template <std::size_t N>
void domain_view_case(gen& g, int c) {
  const rect<N> r = random_rect<N>(g);
  const dmap::block<N> dist = random_block<N>(g);
  INFO("case " << c << ": " << N << "-D " << r << " over " << describe(dist));
  const auto oracle = points_of(r);
  dmap::domain<N> D{dist, r};
  const dmap::comm_counters before = dmap::counters();
  auto v = dmap::view(D);
  const auto got = ranges::to<std::vector<idx<N>>>(v);
  std::string w = first_difference(got, oracle);
  if (w.empty() && static_cast<std::size_t>(ranges::distance(v)) != oracle.size()) w = "distance() differs";
  // Random access and reverse traversal.
  for (int t = 0; t < 5 && w.empty() && !oracle.empty(); ++t) {
    const auto k = static_cast<std::size_t>(g.uniform(0, static_cast<index_t>(oracle.size()) - 1));
    if (!(v[static_cast<std::ptrdiff_t>(k)] == oracle[k])) w = "view[" + std::to_string(k) + "] differs";
  }
  if (w.empty()) {
    const auto back = ranges::to<std::vector<idx<N>>>(v | ranges::views::reverse);
    w = first_difference(back, std::vector<idx<N>>(oracle.rbegin(), oracle.rend()));
  }
  const dmap::comm_counters used = dmap::counters() - before;
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
  // A domain view never communicates.
  DMAP_CHECK_ALL(used == dmap::comm_counters{});
}

/// Each locale iterates the whole view alone, in turn; then all locales at once.
template <std::size_t N>
void array_view_case(gen& g, int c) {
  const rect<N> r = random_rect<N>(g);
  const dmap::block<N> dist = random_block<N>(g);
  INFO("case " << c << ": " << N << "-D " << r << " over " << describe(dist));
  const auto oracle = points_of(r);
  std::vector<double> want_a;
  std::vector<int> want_i;
  for (const auto& i : oracle) {
    want_a.push_back(fval(i));
    want_i.push_back(ival(i));
  }
  dmap::domain<N> D{dist, r};
  dmap::array<double, N> A{D};
  dmap::array<int, N> I{D};
  dmap::forall(dmap::zip(D, A, I), [](idx<N> i, double& a, int& x) {
    a = fval(i);
    x = ival(i);
  });
  std::string w;
  for (int q = 0; q < dmap::num_locales(); ++q) {
    if (dmap::here() == q) {
      w = first_difference(ranges::to<std::vector<double>>(dmap::view(A)), want_a);
      if (w.empty()) w = first_difference(ranges::to<std::vector<int>>(dmap::view(I)), want_i);
    }
    dmap::barrier();
  }
  {
    INFO("alone: " << w);
    DMAP_CHECK_ALL(w.empty());
  }
  // All locales at once, through a range-v3 algorithm.
  const bool together = ranges::equal(dmap::view(I), want_i) && ranges::equal(dmap::view(A), want_a);
  dmap::barrier();
  DMAP_CHECK_ALL(together);
}

/// Reads the whole view of `a` on each locale in turn and checks values and traffic: one
/// message per batch and remote owner, 8 bytes per remote double, nothing sent.
template <class T, std::size_t N, class Value>
void batched_case(const rect<N>& r, const dmap::block<N>& dist, Value value) {
  const auto oracle = points_of(r);
  const auto size = static_cast<index_t>(oracle.size());
  const int p = dmap::num_locales(), me = dmap::here();
  const index_t batches = (size + dmap::view_batch_elements - 1) / dmap::view_batch_elements;
  INFO(N << "-D " << r << " (" << size << " elements, " << batches << " batches) over " << describe(dist));
  REQUIRE(batches >= 2);  // same on every locale
  dmap::domain<N> D{dist, r};
  dmap::array<T, N> A{D};
  dmap::forall(dmap::zip(A, D), [&](T& a, idx<N> i) { a = value(i); });
  std::vector<T> want;
  for (const auto& i : oracle) want.push_back(value(i));

  // The oracle of this locale's traffic.
  std::uint64_t remote = 0, messages = 0;
  for (index_t b = 0; b < batches; ++b) {
    std::set<int> owners;
    for (index_t k = b * dmap::view_batch_elements; k < std::min(size, (b + 1) * dmap::view_batch_elements); ++k) {
      const int q = D.locale_of(oracle[static_cast<std::size_t>(k)]);
      if (q != me) {
        ++remote;
        owners.insert(q);
      }
    }
    messages += owners.size();
  }

  std::string w, wr;
  dmap::comm_counters used{}, used_reverse{};
  for (int q = 0; q < p; ++q) {
    if (me == q) {
      const dmap::comm_counters before = dmap::counters();
      w = first_difference(ranges::to<std::vector<T>>(dmap::view(A)), want);
      used = dmap::counters() - before;
      // Backwards: each batch is still fetched once.
      const dmap::comm_counters middle = dmap::counters();
      wr = first_difference(ranges::to<std::vector<T>>(dmap::view(A) | ranges::views::reverse),
                            std::vector<T>(want.rbegin(), want.rend()));
      used_reverse = dmap::counters() - middle;
    }
    dmap::barrier();
  }
  INFO("forward: " << w);
  INFO("backward: " << wr);
  DMAP_CHECK_ALL(w.empty() && wr.empty());
  INFO("here: received " << used.messages_received << " message(s), " << used.bytes_received << " bytes; oracle "
                         << messages << " message(s), " << remote << " remote elements; backwards "
                         << used_reverse.messages_received << " message(s), " << used_reverse.bytes_received << " bytes");
  // One fetch per remote owner and batch: a message, or a direct copy from a node peer's
  // shared memory (large arrays; see dmap::set_node_transfers).
  const auto fetches = [](const dmap::comm_counters& c) { return c.messages_received + c.node_copies; };
  const auto fetched = [](const dmap::comm_counters& c) { return c.bytes_received + c.node_bytes; };
  DMAP_CHECK_ALL(fetches(used) <= static_cast<std::uint64_t>(batches * (p - 1)));
  DMAP_CHECK_ALL(fetches(used) == messages);
  DMAP_CHECK_ALL(fetched(used) == sizeof(T) * remote);
  DMAP_CHECK_ALL(used.messages_sent == 0 && used.bytes_sent == 0);
  DMAP_CHECK_ALL(fetches(used_reverse) == messages && fetched(used_reverse) == sizeof(T) * remote);
}

}  // namespace

TEST_CASE("view(D) yields the indices in row-major order", "[views]") {
  gen g(0x71e35'0001ULL);
  random_dimension_cases(g, 100, [&](auto n, int c) { domain_view_case<n>(g, c); });
}

TEST_CASE("view(A) yields every value in global row-major order on every locale", "[views]") {
  gen g(0x71e35'0002ULL);
  random_dimension_cases(g, 60, [&](auto n, int c) { array_view_case<n>(g, c); });
}

TEST_CASE("view(A) beyond view_batch_elements fetches in batches, one message per batch and owner", "[views]") {
  const int p = dmap::num_locales();
  const auto col = dmap::storage_order::column_major;
  const rect<2> r{range{0, 200}, range{0, 200}};  // 40000 doubles
  const auto dv = [](const idx<2>& i) { return fval(i); };
  batched_case<double, 2>(r, dmap::block<2>{}, dv);
  batched_case<double, 2>(r, dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, dv);
  batched_case<double, 2>(r, dmap::block<2>{dmap::target_grid<2>{{1, p}}, col}, dv);
  batched_case<double, 2>(rect<2>{range{-50, 150, -1}, range{3, 403, 2}}, dmap::block<2>{dmap::target_grid<2>{}, col}, dv);
  batched_case<int, 1>(rect<1>{range::counted(100, 50000, -3)}, dmap::block<1>{},
                       [](const idx<1>& i) { return ival(i); });
  batched_case<double, 3>(rect<3>{range{0, 40}, range{0, 25}, range{0, 80, 2}}, dmap::block<3>{dmap::target_grid<3>{}, col},
                          [](const idx<3>& i) { return fval(i); });
}

TEST_CASE("views work with range-v3 algorithms", "[views]") {
  const int p = dmap::num_locales();
  const rect<2> r{range{-5, 30}, range{0, 40, -3}};
  const auto oracle = points_of(r);
  dmap::domain<2> D{dmap::block<2>{dmap::target_grid<2>{{1, p}}, dmap::storage_order::column_major}, r};
  dmap::array<double, 2> A{D};
  dmap::array<int, 2> I{D};
  dmap::forall(dmap::zip(A, I, D), [](double& a, int& x, idx<2> i) {
    a = static_cast<double>(i[0] * 100 + i[1]);  // integer-valued: the sum is exact
    x = ival(i);
  });
  double sum = 0;
  int top = 0;
  std::vector<double> values;
  for (const auto& i : oracle) {
    sum += static_cast<double>(i[0] * 100 + i[1]);
    top = std::max(top, ival(i));
    values.push_back(static_cast<double>(i[0] * 100 + i[1]));
  }

  std::string w;
  const auto fail = [&w](const std::string& what) {
    if (w.empty()) w = what;
  };
  if (ranges::accumulate(dmap::view(A), 0.0) != sum) fail("accumulate");
  if (ranges::max(dmap::view(I)) != top) fail("max");
  if (ranges::to<std::vector<double>>(dmap::view(A)) != values) fail("to<vector>");
  if (ranges::to<std::vector<double>>(dmap::view(A) | ranges::views::take(7)) !=
      std::vector<double>(values.begin(), values.begin() + 7))
    fail("take");
  if (ranges::to<std::vector<double>>(dmap::view(A) | ranges::views::drop(100)) !=
      std::vector<double>(values.begin() + 100, values.end()))
    fail("drop");
  std::vector<double> strided;
  for (std::size_t k = 0; k < values.size(); k += 13) strided.push_back(values[k]);
  if (ranges::to<std::vector<double>>(dmap::view(A) | ranges::views::stride(13)) != strided) fail("stride");
  // A domain view and an array view zipped: each value meets its own index.
  std::size_t count = 0;
  for (const auto& [i, a] : ranges::views::zip(dmap::view(D), dmap::view(A))) {
    if (a != static_cast<double>(i[0] * 100 + i[1])) fail("zip at " + text(i));
    ++count;
  }
  if (count != oracle.size()) fail("zip length");
  // Empty views.
  dmap::domain<2> E{dmap::block<2>{}, rect<2>{range{0, 3}, range{5, 5}}};
  dmap::array<double, 2> Z{E, 1.0};
  if (ranges::distance(dmap::view(Z)) != 0 || ranges::accumulate(dmap::view(Z), 2.5) != 2.5) fail("empty array view");
  if (ranges::distance(dmap::view(E)) != 0) fail("empty domain view");
  dmap::barrier();
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
}

// The serial views model the standard range concepts, so std::ranges algorithms and
// std::views adaptors take them as they take a std::vector.
static_assert(std::ranges::random_access_range<decltype(dmap::view(std::declval<const dmap::array<double, 2>&>()))>);
static_assert(std::ranges::sized_range<decltype(dmap::view(std::declval<const dmap::array<double, 2>&>()))>);
static_assert(std::ranges::view<decltype(dmap::view(std::declval<const dmap::domain<3>&>()))>);
static_assert(std::ranges::borrowed_range<decltype(dmap::view(std::declval<const dmap::domain<3>&>()))>);
static_assert(std::random_access_iterator<std::ranges::iterator_t<decltype(dmap::view(std::declval<const dmap::domain<1>&>()))>>);

TEST_CASE("views work with std::ranges algorithms and std::views adaptors", "[views]") {
  const rect<2> r{range{-4, 21}, range{3, 40, 2}};
  const auto oracle = points_of(r);
  dmap::domain<2> D{dmap::cyclic<2>{}, r};
  dmap::array<double, 2> A{D};
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = fval(i); });
  std::vector<double> values;
  for (const auto& i : oracle) values.push_back(fval(i));
  // Each locale in turn iterates alone (views are not collective); the others wait.
  for (int turn = 0; turn < dmap::num_locales(); ++turn) {
    std::string w;
    if (dmap::here() == turn) {
      const auto a = dmap::view(A);
      const auto d = dmap::view(D);
      if (!std::ranges::equal(a, values)) w = "equal";
      if (std::ranges::size(a) != values.size() || std::ranges::size(d) != oracle.size()) w = "size";
      if (!std::ranges::equal(d, oracle)) w = "indices";
      const auto at = std::ranges::find(d, oracle[oracle.size() / 2]);
      if (at - std::ranges::begin(d) != static_cast<std::ptrdiff_t>(oracle.size() / 2)) w = "find";
      if (a[5] != values[5] || *(a.end() - 1) != values.back()) w = "random access";
      std::vector<double> taken;
      std::ranges::copy(a | std::views::drop(7) | std::views::take(20) | std::views::reverse, std::back_inserter(taken));
      if (!std::ranges::equal(taken, std::vector<double>(values.rbegin() + static_cast<std::ptrdiff_t>(values.size()) - 27,
                                                         values.rbegin() + static_cast<std::ptrdiff_t>(values.size()) - 7)))
        w = "drop | take | reverse";
      if (std::accumulate(a.begin(), a.end(), 0.0) != std::accumulate(values.begin(), values.end(), 0.0)) w = "accumulate";
      if (std::ranges::max(a) != *std::ranges::max_element(values)) w = "max";
      std::size_t k = 0;
      for (const auto& i : d | std::views::filter([](const idx<2>& x) { return x[0] % 3 == 0; })) {
        if (i[0] % 3 != 0) w = "filter";
        ++k;
      }
      if (k != static_cast<std::size_t>(std::ranges::count_if(oracle, [](const idx<2>& x) { return x[0] % 3 == 0; })))
        w = "filter count";
    }
    dmap::barrier();
    INFO("locale " << turn << " alone: " << w);
    DMAP_CHECK_ALL(w.empty());
  }
}

}  // namespace test_views
