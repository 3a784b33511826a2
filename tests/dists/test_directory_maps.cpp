// Hashed and Unstructured: maps known only through the distributed directory.
//
// Every locale reports what it owns (local_subdomains(here), local_layouts(here)) and all
// reports are exchanged, so each locale can check against brute-force oracles: the owned
// indices cover the index set exactly once; the owner of each index is the mapper's answer
// (Hashed) or the lowest locale listing it (Unstructured); locale_of and locales_of agree
// with it on every locale; storage is row-major by order (Hashed) or the list's order
// (Unstructured), compact, and reached by A.local(i). Then: remote reads and writes through
// A[i], forall over zips with the domain, reduce, dmap::view, gather and operator<<, array
// assignment to and from Block and between two directory maps, resize (surviving values kept,
// new ones value-initialised), copies of a map that is not one_to_one, and every refused
// argument as an argument_error on every locale. Random cases come from a fixed seed,
// identical on every locale: 1-3 dimensions, strides 1, 2, 3, -1, -2, empty sets.
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace test_directory_maps {  // one per file: the tests also build as unity batches (docs/testing.md)


namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using namespace dmap::testing::oracle;
using dmap::testing::everyones;


/// What one locale owns, with the offsets its layouts give, in subdomain order.
template <std::size_t N>
struct owned_entry {
  idx<N> i;
  index_t offset;
};

/// Collective: checks a directory domain against `owner_of` (the oracle's owner of each
/// index) and `expected_offset` (the oracle's storage offset on the owner, or -1 to only
/// require compact, distinct offsets). Returns the first failure ("" when none).
template <std::size_t N, class Owner, class Offset>
std::string check_placement(const dmap::domain<N>& D, Owner&& owner_of, Offset&& expected_offset) {
  std::vector<owned_entry<N>> mine;
  std::string fail;
  const auto subs = D.local_subdomains();
  const auto lays = D.local_layouts(dmap::here());
  if (subs.size() != lays.size()) fail = "subdomains and layouts differ in number";
  for (std::size_t k = 0; k < subs.size() && k < lays.size(); ++k) {
    if (!lays[k].indices.contains(subs[k])) fail = "a layout does not hold its subdomain";
    for (const auto& i : points_of(subs[k])) mine.push_back({i, lays[k].offset_of(i)});
  }
  const auto all = everyones(mine);
  const auto points = points_of(D.indices());
  std::map<idx<N>, int> seen;
  for (std::size_t q = 0; q < all.size(); ++q) {
    std::vector<index_t> offsets;
    for (const auto& e : all[q]) {
      if (!D.contains(e.i)) fail = "locale " + std::to_string(q) + " owns " + text(e.i) + ", not an index";
      if (seen.count(e.i)) fail = text(e.i) + " owned twice";
      seen[e.i] = static_cast<int>(q);
      if (owner_of(e.i) != static_cast<int>(q)) fail = text(e.i) + " owned by " + std::to_string(q) + ", oracle says " + std::to_string(owner_of(e.i));
      const index_t want = expected_offset(e.i, static_cast<int>(q));
      if (want >= 0 && want != e.offset) fail = text(e.i) + " at offset " + std::to_string(e.offset) + ", oracle says " + std::to_string(want);
      offsets.push_back(e.offset);
    }
    std::sort(offsets.begin(), offsets.end());
    if (std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end()) fail = "two indices share an element";
  }
  if (seen.size() != points.size()) fail = "owned indices do not cover the index set";
  std::vector<idx<N>> asked;
  for (const auto& i : points) {
    if (D.locale_of(i) != owner_of(i)) fail = "locale_of(" + text(i) + ") disagrees with the oracle";
    asked.push_back(i);
  }
  const auto batch = D.locales_of(asked);
  for (std::size_t k = 0; k < asked.size(); ++k)
    if (batch[k] != owner_of(asked[k])) fail = "locales_of disagrees at " + text(asked[k]);
  if (D.local_size() != static_cast<index_t>(mine.size())) fail = "local_size differs from the owned count";
  return fail;
}

/// Collective: arrays over a directory domain against the oracle values fval(i).
template <std::size_t N>
std::string check_arrays(const dmap::domain<N>& D) {
  std::string fail;
  const auto points = points_of(D.indices());
  dmap::array<double, N> A(D);
  for (const auto& i : points)  // value-initialised, read from every locale
    if (static_cast<double>(A[i]) != 0.0) fail = "not value-initialised at " + text(i);
  dmap::barrier();  // every locale has read before any writes
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<N>& i) { a = fval(i); });
  dmap::barrier();
  for (const auto& i : points)
    if (static_cast<double>(A[i]) != fval(i)) fail = "A[" + text(i) + "] after forall";
  for (const auto& i : points)
    if (D.locale_of(i) == dmap::here() && A.local(i) != fval(i)) fail = "A.local(" + text(i) + ")";
  double sum = 0, top = -1e300;
  for (const auto& i : points) sum += fval(i), top = std::max(top, fval(i));
  const double got = dmap::reduce(A, 0.0, std::plus<>{});
  if (std::abs(got - sum) > 1e-6 * (1 + std::abs(sum))) fail = "reduce sum";
  if (!points.empty() && dmap::reduce(A, -1e300, dmap::maximum{}) != top) fail = "reduce max";
  const auto gathered = A.gather();
  if (dmap::here() == 0)
    for (std::size_t k = 0; k < points.size(); ++k)
      if (gathered[k] != fval(points[k])) fail = "gather at " + text(points[k]);
  std::vector<double> seen;
  for (double v : dmap::view(A)) seen.push_back(v);
  for (std::size_t k = 0; k < points.size() && k < seen.size(); ++k)
    if (seen[k] != fval(points[k])) fail = "view at " + text(points[k]);
  if (seen.size() != points.size()) fail = "view length";

  // Remote writes: locale q writes the indices whose order is q mod P.
  dmap::barrier();
  for (std::size_t k = static_cast<std::size_t>(dmap::here()); k < points.size(); k += static_cast<std::size_t>(dmap::num_locales()))
    A[points[k]] = -fval(points[k]);
  dmap::barrier();
  for (const auto& i : points)
    if (D.locale_of(i) == dmap::here() && A.local(i) != -fval(i)) fail = "remote write to " + text(i);

  // To Block and back, and to a second directory map.
  dmap::domain<N> B_dom{dmap::block<N>{}, D.indices()};
  dmap::array<double, N> B(B_dom);
  B = A;
  for (const auto& i : points)
    if (B_dom.locale_of(i) == dmap::here() && B.local(i) != -fval(i)) fail = "Block = directory map at " + text(i);
  dmap::forall(dmap::zip(B, B_dom), [](double& b, const idx<N>& i) { b = 2 * fval(i); });
  A = B;
  for (const auto& i : points)
    if (D.locale_of(i) == dmap::here() && A.local(i) != 2 * fval(i)) fail = "directory map = Block at " + text(i);
  dmap::domain<N> H{dmap::hashed<N>{}, D.indices()};
  dmap::array<double, N> C(H);
  C = A;
  for (const auto& i : points)
    if (H.locale_of(i) == dmap::here() && C.local(i) != 2 * fval(i)) fail = "hashed = directory map at " + text(i);
  std::ostringstream printed_a, printed_b;
  printed_a << A;
  printed_b << B;
  if (printed_a.str() != printed_b.str()) fail = "operator<< differs from Block's";

  // A zip of two arrays of the domain, and a reduce over a zip.
  dmap::array<double, N> E(D, 1.0);
  dmap::forall(dmap::zip(E, A), [](double& e, const double& a) { e += a; });
  const double zsum = dmap::reduce(dmap::zip(E, A), 0.0, std::plus<>{}, [](double e, double a) { return e - a; });
  if (zsum != static_cast<double>(points.size())) fail = "zip forall/reduce";
  return fail;
}

/// Collective: set_indices keeps surviving values and value-initialises the rest; the owner
/// rule of the resized domain is checked by `check_owner` on every locale.
template <std::size_t N>
std::string check_resize(dmap::domain<N>& D, const rect<N>& next) {
  std::string fail;
  const rect<N> before = D.indices();
  dmap::array<double, N> A(D);
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<N>& i) { a = fval(i); });
  D.set_indices(next);
  if (!(D.indices() == next)) fail = "indices not replaced";
  dmap::barrier();
  for (const auto& i : points_of(next)) {
    const double want = before.contains(i) ? fval(i) : 0.0;
    if (static_cast<double>(A[i]) != want) fail = "after resize at " + text(i);
  }
  dmap::array<double, N> B(D, 3.0);
  if (dmap::reduce(B, 0.0, std::plus<>{}) != 3.0 * static_cast<double>(next.size())) fail = "a new array after resize";
  return fail;
}

/// A random unit- or non-unit-stride rect.
template <std::size_t N>
rect<N> case_rect(gen& g) {
  return random_rect<N>(g, rect_spec{12, 500, 2});
}

/// A mapper with a parameter, compared by its bytes.
struct stripes {
  index_t width;
  int operator()(const idx<1>& i, int p) const { return static_cast<int>(pmod(i[0] / width, p)); }
};

}  // namespace

/// The oracle's offsets of a map storing each locale's indices in row-major order.
template <std::size_t N, class Owner>
auto row_major_offsets(const rect<N>& r, Owner owner_rule) {
  return [r, owner_rule](const idx<N>& i, int q) {
    index_t k = 0;
    for (const auto& j : points_of(r))
      if (r.order_of(j) < r.order_of(i) && owner_rule(j) == q) ++k;
    return k;
  };
}
/// No offset oracle: only distinct offsets are required.
template <std::size_t N>
index_t any_offset(const idx<N>&, int) {
  return -1;
}

TEST_CASE("hashed: placement, arrays and resize against oracles on random index sets", "[hashed][directory]") {
  gen g(0x4a5e'd001);
  const int p = dmap::num_locales();
  random_dimension_cases(g, 18, [&](auto n, int c) {
    constexpr std::size_t N = decltype(n)::value;
    const rect<N> r = case_rect<N>(g);
    const rect<N> next = case_rect<N>(g);
    const bool plain = g.chance(1, 2);
    INFO("case " << c << ": " << r << " then " << next << (plain ? ", default hash" : ", mapper (i0 + 2 i_last) mod p"));
    const auto mapper = [](const idx<N>& i, int q) { return static_cast<int>(pmod(i[0] + 2 * i[N - 1], q)); };
    const auto run = [&](const auto& dist, auto owner_rule) {
      dmap::domain<N> D{dist, r};
      CHECK_NO_FAILURE(check_placement(D, owner_rule, row_major_offsets(r, owner_rule)));
      CHECK_NO_FAILURE(check_arrays(D));
      CHECK_NO_FAILURE(check_resize(D, next));
      CHECK_NO_FAILURE(check_placement(D, owner_rule, row_major_offsets(next, owner_rule)));
      const auto other = D.with_indices(r);
      CHECK_NO_FAILURE(check_placement(other, owner_rule, row_major_offsets(r, owner_rule)));
    };
    if (plain) run(dmap::hashed<N>{}, [&](const idx<N>& i) { return dmap::hash_mapper{}(i, p); });
    else run(dmap::hashed<N, decltype(mapper)>{mapper, "i0+2i"}, [&](const idx<N>& i) { return mapper(i, p); });
  });
}

TEST_CASE("hashed: a mapper with a parameter, called with the integer index in 1-D", "[hashed][directory]") {
  const int p = dmap::num_locales();
  const rect<1> r{range(-7, 40)};
  const dmap::hashed<1, stripes> dist{stripes{3}, "stripes(3)"};
  CHECK(dist == dmap::hashed<1, stripes>{stripes{3}, "stripes(3)"});
  CHECK_FALSE(dist == dmap::hashed<1, stripes>{stripes{4}, "stripes(3)"});
  dmap::domain<1> D{dist, r};
  const auto owner = [&](const idx<1>& i) { return static_cast<int>(pmod(i[0] / 3, p)); };
  CHECK_NO_FAILURE(check_placement(D, owner, row_major_offsets(r, owner)));
  // Runs of three consecutive indices are one piece each (fewer pieces than indices).
  const auto runs = D.local_subdomains().size();
  DMAP_CHECK_ALL(p == 1 ? runs == 1 : runs * 2 >= static_cast<std::size_t>(D.local_size()) / 3);
  const dmap::hashed<1, index_t (*)(index_t)> by_integer{[](index_t i) -> index_t { return i < 0 ? 0 : i % 2; },
                                                         "parity"};
  if (p == 1) {
    CHECK_THROWS_WITH((dmap::domain<1>{by_integer, r}), Catch::Contains("sends index (1) to locale 1"));
  } else {
    dmap::domain<1> E{by_integer, r};
    CHECK_NO_FAILURE(check_placement(E, [&](const idx<1>& i) { return i[0] < 0 ? 0 : static_cast<int>(i[0] % 2); },
                                     any_offset<1>));
  }
}

TEST_CASE("hashed: a mapper naming a locale outside the grid is refused on every locale", "[hashed][directory]") {
  const int p = dmap::num_locales();
  const auto bad = [](const idx<2>& i, int q) { return i[0] == 3 && i[1] == 1 ? q : 0; };
  const dmap::hashed<2, decltype(bad)> dist{bad, "bad"};
  CHECK_THROWS_AS((dmap::domain<2>{dist, rect<2>{range(0, 5), range(0, 4)}}), dmap::argument_error);
  CHECK_THROWS_WITH((dmap::domain<2>{dist, rect<2>{range(0, 5), range(0, 4)}}),
                    Catch::Contains("(3, 1)") && Catch::Contains("to locale " + std::to_string(p)) &&
                        Catch::Contains("[0, " + std::to_string(p) + ")"));
  // A resize onto the bad index is refused and leaves domain and arrays as they were.
  dmap::domain<2> D{dist, rect<2>{range(0, 3), range(0, 4)}};
  dmap::array<int, 2> A(D, 5);
  CHECK_THROWS_AS(D.set_indices(rect<2>{range(0, 5), range(0, 4)}), dmap::argument_error);
  CHECK(D.indices() == (rect<2>{range(0, 3), range(0, 4)}));
  CHECK(dmap::reduce(A, 0, std::plus<>{}) == 5 * 12);
  const auto negative = [](const idx<1>& i, int) { return i[0] == 2 ? -1 : 0; };
  CHECK_THROWS_WITH((dmap::domain<1>{dmap::hashed<1, decltype(negative)>{negative, "neg"}, rect<1>{range(0, 4)}}),
                    Catch::Contains("to locale -1"));
}

namespace {

/// Random per-locale lists over `r`: each index goes to a random locale (and, when `copies`,
/// sometimes also to a second one); each list is shuffled. The owner is the lowest lister.
template <std::size_t N>
struct dealt {
  std::vector<std::vector<idx<N>>> lists;
  std::map<idx<N>, int> owner;
  std::map<idx<N>, std::vector<int>> listers;
};
template <std::size_t N>
dealt<N> deal(gen& g, const rect<N>& r, bool copies) {
  const int p = dmap::num_locales();
  dealt<N> out;
  out.lists.resize(static_cast<std::size_t>(p));
  for (const auto& i : points_of(r)) {
    const int q = static_cast<int>(g.uniform(0, p - 1));
    std::vector<int> who{q};
    if (copies && p > 1 && g.chance(1, 3)) who.push_back(static_cast<int>((q + g.uniform(1, p - 1)) % p));
    for (int w : who) out.lists[static_cast<std::size_t>(w)].push_back(i);
    out.owner[i] = *std::min_element(who.begin(), who.end());
    out.listers[i] = who;
  }
  for (auto& l : out.lists) std::shuffle(l.begin(), l.end(), g.g);
  return out;
}
/// The position of `i` in locale q's list.
template <std::size_t N>
index_t position_in(const std::vector<idx<N>>& list, const idx<N>& i) {
  return static_cast<index_t>(std::find(list.begin(), list.end(), i) - list.begin());
}

}  // namespace

TEST_CASE("unstructured: placement in list order, arrays and resize against oracles", "[unstructured][directory]") {
  gen g(0x4a5e'd002);
  random_dimension_cases(g, 18, [&](auto n, int c) {
    constexpr std::size_t N = decltype(n)::value;
    const rect<N> r = case_rect<N>(g);
    const rect<N> next = case_rect<N>(g);
    const auto d = deal(g, r, false);
    INFO("case " << c << ": " << r << " then " << next);
    const auto& mine = d.lists[static_cast<std::size_t>(dmap::here())];
    dmap::domain<N> D{dmap::unstructured<N>{mine}, r};
    const auto owner = [&](const idx<N>& i) { return d.owner.at(i); };
    DMAP_CHECK_ALL(check_placement(D, owner, [&](const idx<N>& i, int q) {
                     return position_in(d.lists[static_cast<std::size_t>(q)], i);
                   }) == "");
    CHECK_NO_FAILURE(check_arrays(D));
    CHECK_NO_FAILURE(check_resize(D, next));
    // Survivors stay with their owner; new indices go to their directory home.
    const index_t n_next = next.size();
    const int p = dmap::num_locales();
    const auto resized_owner = [&](const idx<N>& i) {
      if (r.contains(i)) return d.owner.at(i);
      const index_t o = next.order_of(i);
      int h = 0;
      while (h + 1 < p && (h + 1) * n_next / p <= o) ++h;
      return h;
    };
    CHECK_NO_FAILURE(check_placement(D, resized_owner, any_offset<N>));
  });
}

TEST_CASE("unstructured: copies are read locally and refreshed from the owner by update_copies",
          "[unstructured][directory]") {
  gen g(0x4a5e'd003);
  const int p = dmap::num_locales();
  random_dimension_cases(g, 8, [&](auto n, int c) {
    constexpr std::size_t N = decltype(n)::value;
    const rect<N> r = case_rect<N>(g);
    const auto d = deal(g, r, true);
    INFO("case " << c << ": " << r);
    const auto& mine = d.lists[static_cast<std::size_t>(dmap::here())];
    dmap::domain<N> D{dmap::unstructured<N>{mine, false}, r};
    const auto owner = [&](const idx<N>& i) { return d.owner.at(i); };
    DMAP_CHECK_ALL(check_placement(D, owner, [&](const idx<N>& i, int q) {
                     return position_in(d.lists[static_cast<std::size_t>(q)], i);
                   }) == "");
    dmap::array<double, N> A(D, -1.0);
    dmap::forall(dmap::zip(A, D), [](double& a, const idx<N>& i) { a = fval(i); });
    std::string fail;
    for (const auto& i : mine)  // copies still hold the initial value, owned elements the new one
      if (static_cast<double>(A[i]) != (owner(i) == dmap::here() ? fval(i) : -1.0)) fail = "before update at " + text(i);
    DMAP_CHECK_ALL(fail == "");
    index_t copies_here = 0;
    std::vector<int> peers(static_cast<std::size_t>(p), 0);
    for (const auto& i : mine)
      if (owner(i) != dmap::here()) ++copies_here, peers[static_cast<std::size_t>(owner(i))] = 1;
    dmap::reset_counters();
    dmap::update_copies(A);
    const auto counted = dmap::counters();
    for (const auto& i : mine)
      if (static_cast<double>(A[i]) != fval(i)) fail = "after update at " + text(i);
    DMAP_CHECK_ALL(fail == "");
    // The second update reuses the plan: exactly one message per owner, the copies' bytes.
    dmap::reset_counters();
    dmap::update_copies(A);
    const auto again = dmap::counters();
    DMAP_CHECK_ALL(again.messages_received == static_cast<std::uint64_t>(std::accumulate(peers.begin(), peers.end(), 0)));
    DMAP_CHECK_ALL(again.bytes_received == static_cast<std::uint64_t>(copies_here) * sizeof(double));
    DMAP_CHECK_ALL(again.collectives == 0);
    DMAP_CHECK_ALL(counted.bytes_received >= again.bytes_received);
    // A reduce sees each index once.
    double sum = 0;
    for (const auto& i : points_of(r)) sum += fval(i);
    DMAP_CHECK_ALL(std::abs(dmap::reduce(A, 0.0, std::plus<>{}) - sum) <= 1e-6 * (1 + std::abs(sum)));
  });
}

TEST_CASE("unstructured: the DAP 0.10 example 2.3 (30 indices dealt to 3 processes)", "[unstructured][dap]") {
  // Lists of the document's example; with fewer or more locales the same lists are dealt
  // round robin over the locales present.
  const std::vector<std::vector<index_t>> doc = {
      {19, 1, 0, 12, 2, 15, 4},
      {6, 13, 3},
      {10, 25, 5, 21, 7, 18, 11, 26, 29, 24, 23, 28, 14, 20, 9, 16, 27, 8, 17, 22}};
  const int p = dmap::num_locales();
  std::vector<index_t> mine;
  for (std::size_t k = 0; k < doc.size(); ++k)
    if (static_cast<int>(k) % p == dmap::here()) mine.insert(mine.end(), doc[k].begin(), doc[k].end());
  dmap::domain<1> D{dmap::unstructured<1>{mine}, rect<1>{range(0, 30)}};
  dmap::array<double, 1> A(D);
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<1>& i) { a = static_cast<double>(i[0]); });
  // Element k of the local buffer is the k-th listed index.
  std::string fail;
  for (std::size_t k = 0; k < mine.size(); ++k)
    if (A.local_data()[k] != static_cast<double>(mine[k])) fail = "buffer position " + std::to_string(k);
  DMAP_CHECK_ALL(fail == "");
  const auto desc = dmap::dap_export(A);
  DMAP_CHECK_ALL(desc.dim_data.size() == 1 && desc.dim_data[0].dist_type == 'u' && desc.dim_data[0].size == 30 &&
                 desc.dim_data[0].indices == mine && desc.dim_data[0].one_to_one);
  const auto json = dmap::to_json(desc);
  if (p == 3 && dmap::here() == 1) CHECK(has(json, "\"indices\": [6, 13, 3]"));
  DMAP_CHECK_ALL(has(json, "\"dist_type\": \"u\""));
}

TEST_CASE("unstructured: lists breaking a rule are refused on every locale, naming the index", "[unstructured][directory]") {
  const int p = dmap::num_locales();
  const int me = dmap::here();
  const rect<1> r{range(0, 10)};
  // Locale q lists {q, q + p, ...}: a valid cover.
  std::vector<index_t> cover;
  for (index_t i = me; i < 10; i += p) cover.push_back(i);
  CHECK_NOTHROW(dmap::domain<1>{dmap::unstructured<1>{cover}, r});
  // Index 9 listed by nobody.
  auto missing = cover;
  missing.erase(std::remove(missing.begin(), missing.end(), index_t{9}), missing.end());
  CHECK_THROWS_WITH((dmap::domain<1>{dmap::unstructured<1>{missing}, r}),
                    Catch::Contains("no locale lists index (9)") && Catch::Contains("cover"));
  // Index p - 1 listed twice by the last locale.
  auto twice = cover;
  if (me == p - 1) twice.push_back(p - 1);
  CHECK_THROWS_AS((dmap::domain<1>{dmap::unstructured<1>{twice}, r}), dmap::argument_error);
  CHECK_THROWS_WITH((dmap::domain<1>{dmap::unstructured<1>{twice}, r}), Catch::Contains("twice"));
  // Index 5 outside the domain {0..<5}.
  CHECK_THROWS_WITH((dmap::domain<1>{dmap::unstructured<1>{cover}, rect<1>{range(0, 5)}}),
                    Catch::Contains("not in the domain"));
  if (p > 1) {
    // Index 0 also listed by locale 1 while one_to_one is claimed; accepted without the claim.
    auto shared = cover;
    if (me == 1) shared.push_back(0);
    CHECK_THROWS_WITH((dmap::domain<1>{dmap::unstructured<1>{shared}, r}),
                      Catch::Contains("locales 0 and 1 both list index (0)") && Catch::Contains("one_to_one"));
    dmap::domain<1> D{dmap::unstructured<1>{shared, false}, r};
    DMAP_CHECK_ALL(D.locale_of(idx<1>{0}) == 0);
  }
  // Other locales' pieces are known only to them.
  dmap::domain<1> D{dmap::unstructured<1>{cover}, r};
  if (p > 1) CHECK_THROWS_AS(D.local_subdomains((me + 1) % p), dmap::unsupported_error);
  dmap::array<double, 1> A(D);
  CHECK_NOTHROW(dmap::update_copies(A));  // one_to_one: nothing to refresh
  dmap::domain<1> B{dmap::block<1>{}, r};
  dmap::array<double, 1> C(B);
  CHECK_THROWS_WITH(dmap::update_copies(C), Catch::Contains("only Unstructured maps hold copies"));
}

}  // namespace test_directory_maps
