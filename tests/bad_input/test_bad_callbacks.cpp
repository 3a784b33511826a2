// User callbacks that break their contract, and per-locale verdicts that must be agreed:
// comparators that are not strict weak orders (`<=`, always true, an order that depends on the
// locale, an answer that changes from call to call) in every function of the sort family, on
// the serial and the parallel local paths; a comparator throwing on one locale while a large
// array sorts on threads; associative hashes that throw on one locale only (in add, remove,
// contains_each, array get, set and assignment) or change from call to call; `multiply` with y
// adopting x's buffer while a locale holds no element; a sparse domain whose parent gives one
// locale 2^40 rows. The result is a permutation of the input (sorting), or a named error on
// every locale; never a crash or a hang.
#include "../maps_1d.hpp"
#include "support.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "../../layouts/compressed_layout.hpp"
#include "../../layouts/coo_layout.hpp"

namespace test_bad_callbacks {  // one per file: the tests also build as unity batches (docs/testing.md)
using dmap::bad_input::fails_from;
using dmap::bad_input::user_failure;

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::maps::domain_of;
using dmap::testing::maps::map_kind;
using dmap::testing::maps::name_of;
using i64 = std::int64_t;

namespace {

std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Element k of the inputs: values in [0, 1000), many repeated.
i64 value_at(index_t k) { return static_cast<i64>(mix(static_cast<std::uint64_t>(k)) % 1000); }

void fill(dmap::array<i64, 1>& a, bool positions = false) {
  const index_t first = a.domain().indices().dim(0).first();
  dmap::forall(dmap::zip(a.domain(), a), [&](const idx<1>& i, i64& x) {
    x = positions ? i[0] - first : value_at(i[0] - first);
  });
}

using order = std::function<bool(i64, i64)>;

/// Comparators that are not strict weak orders.
std::vector<std::pair<std::string, order>> broken_orders() {
  auto calls = std::make_shared<std::atomic<std::uint64_t>>(static_cast<std::uint64_t>(dmap::here()) * 7919);
  return {
      {"a <= b", [](i64 a, i64 b) { return a <= b; }},
      {"always true", [](i64, i64) { return true; }},
      {"ascending on even locales, descending on odd ones",
       [](i64 a, i64 b) { return dmap::here() % 2 == 0 ? a < b : a > b; }},
      {"a coin flip at every call",
       [calls](i64 a, i64 b) { return (mix(calls->fetch_add(1) ^ (static_cast<std::uint64_t>(a) * 31 + static_cast<std::uint64_t>(b))) & 1) != 0; }},
  };
}

/// `got` (every element, from gather: on locale 0, empty elsewhere) is a permutation of
/// `want` ("" or what differs).
std::string permutation_of(std::vector<i64> got, std::vector<i64> want) {
  if (dmap::here() != 0) return "";
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  return got == want ? "" : "the result is not a permutation of the input";
}

/// The flaky hash's failing locale (-1: none).
std::atomic<int> hash_fails_on{-1};

/// The one key the flaky hash fails for (no_key: every key).
constexpr i64 no_key = std::numeric_limits<i64>::min();
std::atomic<i64> poisoned_key{no_key};

/// A key hash that throws on locale hash_fails_on only (for poisoned_key only, when set).
struct flaky_hash {
  std::uint64_t operator()(const i64& k) const {
    if (dmap::here() == hash_fails_on.load() && (poisoned_key.load() == no_key || k == poisoned_key.load()))
      throw user_failure("the key hash failed on locale " + std::to_string(dmap::here()));
    return mix(static_cast<std::uint64_t>(k));
  }
};

/// A key hash whose answer changes at every call.
std::atomic<std::uint64_t> fickle_calls{0};
struct fickle_hash {
  std::uint64_t operator()(const i64& k) const { return mix(fickle_calls.fetch_add(1) ^ static_cast<std::uint64_t>(k)); }
};

/// Keys placed by value (k mod P), whatever the hash.
int by_value(i64 k, int p) { return static_cast<int>(((k % p) + p) % p); }

/// Collective: `f` either returns on every locale or throws a dmap::error on every locale
/// ("" or what happened).
template <class F>
std::string same_outcome(F&& f) {
  int threw = 0;
  std::string what;
  try {
    f();
  } catch (const dmap::error&) {
    threw = 1;
  } catch (const std::exception& e) {
    threw = 2;
    what = e.what();
  }
  if (threw == 2) return "threw an exception that is not a dmap::error: " + what;
  const int any = dmap::all_reduce_max(threw), all = dmap::all_reduce_min(threw);
  return any == all ? "" : "threw on some locales and returned on others";
}

}  // namespace

TEST_CASE("bad input: comparators that are not strict weak orders sort to a permutation", "[bad_input][sort]") {
  const int p = dmap::num_locales();
  // 300 elements: each locale sorts on one thread; 20,000 per locale: on its threads.
  const std::pair<const char*, index_t> sizes[] = {{"300 elements", 300}, {"20,000 per locale", 20000 * index_t{p}}};
  for (const auto& [size_name, n] : sizes) {
    for (const map_kind k : {map_kind::block, map_kind::cyclic}) {
      if (n > 300 && k != map_kind::block) continue;
      dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
      dmap::array<i64, 1> A(D), V(D);
      std::vector<i64> input;
      for (index_t j = 0; j < n; ++j) input.push_back(value_at(j));
      for (const auto& [order_name, less] : broken_orders()) {
        const std::string where = order_name + ", " + size_name + " (" + name_of(k) + ")";
        INFO(where);
        CHECK(dmap::bad_input::census().insert("sort family: comparator " + where).second);
        fill(A);
        CHECK_NOTHROW(dmap::sort(A, less));
        CHECK_NO_FAILURE(permutation_of(A.gather(), input));
        fill(A);
        CHECK_NOTHROW(dmap::stable_sort(A, less));
        CHECK_NO_FAILURE(permutation_of(A.gather(), input));
        fill(A);
        CHECK_NOTHROW(dmap::sort(A[range(n / 3, n)], less));
        CHECK_NO_FAILURE(permutation_of(A.gather(), input));
        for (const bool stable : {false, true}) {
          fill(A);
          fill(V, true);
          CHECK_NOTHROW(stable ? dmap::stable_sort_by_key(A, V, less) : dmap::sort_by_key(A, V, less));
          // Each value (the key's old position) still sits beside its key.
          const auto keys = A.gather(), values = V.gather();
          bool paired = keys.size() == values.size();
          for (std::size_t j = 0; paired && j < values.size(); ++j)
            paired = values[j] >= 0 && values[j] < n && keys[j] == value_at(values[j]);
          DMAP_CHECK_ALL(paired);
          CHECK_NO_FAILURE(permutation_of(values, [&] {
            std::vector<i64> all;
            for (index_t j = 0; j < n; ++j) all.push_back(j);
            return all;
          }()));
        }
        fill(A);
        bool sorted = false;
        CHECK_NOTHROW(sorted = dmap::is_sorted(A, less));
        DMAP_CHECK_ALL(dmap::all_reduce_max(static_cast<int>(sorted)) == dmap::all_reduce_min(static_cast<int>(sorted)));
        index_t unique = 0;
        CHECK_NOTHROW(unique = dmap::count_unique(A, less));
        DMAP_CHECK_ALL(unique >= 1 && unique <= n);
        DMAP_CHECK_ALL(dmap::all_reduce_max(unique) == dmap::all_reduce_min(unique));
        CHECK_NO_FAILURE(permutation_of(A.gather(), input));
      }
    }
  }
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: a comparator throwing on one locale while a large array sorts on threads",
          "[bad_input][sort]") {
  // The 13-element sweep of test_bad_sort covers every stage on one thread; here each locale
  // sorts 20,000 elements (oneTBB's parallel sort, the per-thread stable sorts and their merge).
  const int p = dmap::num_locales();
  const index_t n = 20000 * index_t{p};
  dmap::domain<1> D = domain_of(map_kind::block, rect<1>{range(0, n)});
  dmap::array<i64, 1> A(D);
  const int origin = p - 1;
  for (const bool stable : {false, true}) {
    for (const long at : {1L, 1000L, 100000L}) {
      const std::string name = std::string(stable ? "stable_sort" : "sort") + ": 20,000 per locale, comparator throws at call " +
                               std::to_string(at) + " on the last locale";
      INFO(name);
      CHECK(dmap::bad_input::census().insert(name).second);
      fill(A);
      const auto before = A.gather();
      auto calls = std::make_shared<std::atomic<long>>(0);
      const auto less = [&, calls](i64 a, i64 b) {
        if (dmap::here() == origin && calls->fetch_add(1) + 1 == at) throw user_failure("comparator failed");
        return a < b;
      };
      CHECK_NO_FAILURE(fails_from<user_failure>(origin, [&] { stable ? dmap::stable_sort(A, less) : dmap::sort(A, less); }));
      DMAP_CHECK_ALL(A.gather() == before);
    }
  }
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: an associative key hash throwing on one locale only fails everywhere",
          "[bad_input][associative]") {
  const int p = dmap::num_locales();
  using by_value_domain = dmap::associative_domain<i64, flaky_hash, int (*)(i64, int)>;
  using by_value_array = dmap::associative_array<double, i64, flaky_hash, int (*)(i64, int)>;
  using by_hash_domain = dmap::associative_domain<i64, flaky_hash>;
  using by_hash_array = dmap::associative_array<double, i64, flaky_hash>;
  // Every locale passes keys of every owner, so every locale hashes some.
  std::vector<i64> keys;
  for (i64 k = 0; k < 4 * p; ++k) keys.push_back(k * 3 + dmap::here());
  std::vector<i64> more;
  for (i64 k = 0; k < 4 * p; ++k) more.push_back(1000 + k * 5 + dmap::here());
  const std::vector<double> values(keys.size(), 2.5);
  const auto run = [&](auto& d, auto& a, auto& b, const std::string& mapper) {
    d.add(std::span<const i64>(keys));
    a.set(std::span<const i64>(keys), std::span<const double>(values));
    const index_t size = d.size();
    for (const int origin : p == 1 ? std::vector<int>{0} : std::vector<int>{0, p - 1}) {
      const std::string on = " (" + mapper + ", the hash throws on locale " + (origin == 0 ? "0" : "P-1") + ")";
      const auto check = [&](const std::string& what, auto&& f) {
        const std::string name = "associative: " + what + on;
        INFO(name);
        CHECK(dmap::bad_input::census().insert(name).second);
        hash_fails_on = origin;
        std::string result;
        try {
          result = fails_from<user_failure>(origin, f);
        } catch (...) {
          hash_fails_on = -1;
          throw;
        }
        hash_fails_on = -1;
        CHECK_NO_FAILURE(result);
        DMAP_CHECK_ALL(d.size() == size);
        const auto present = d.contains_each(std::span<const i64>(keys));
        DMAP_CHECK_ALL(std::all_of(present.begin(), present.end(), [](bool x) { return x; }));
        const auto got = a.get(std::span<const i64>(keys));
        DMAP_CHECK_ALL(std::all_of(got.begin(), got.end(), [](double x) { return x == 2.5; }));
      };
      check("remove", [&] { d.remove(std::span<const i64>(keys)); });
      check("add", [&] { d.add(std::span<const i64>(more)); });
      check("contains_each", [&] { (void)d.contains_each(std::span<const i64>(keys)); });
      check("array get", [&] { (void)a.get(std::span<const i64>(keys)); });
      check("array set", [&] { a.set(std::span<const i64>(keys), std::span<const double>(values)); });
      check("array add_and_accumulate", [&] { a.add_and_accumulate(std::span<const i64>(more), std::span<const double>(values)); });
      check("array assignment from another domain", [&] { a = b; });
      // The hash throws only for a key the origin holds already, which only the growth of its
      // table hashes again: 64 new keys per locale and owner make every table grow.
      i64 held = 0;
      while (!(d.locale_of(held) == origin && d.contains(held))) ++held;
      std::vector<i64> many;
      for (i64 k = 0; k < 64 * p; ++k) many.push_back(100000 + (k * p + dmap::here()) * 7);
      poisoned_key = held;
      check("add growing the table, the hash failing for a key held already", [&] { d.add(std::span<const i64>(many)); });
      poisoned_key = no_key;
    }
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
  };
  {
    by_value_domain d(flaky_hash{}, &by_value), e(flaky_hash{}, &by_value);
    e.add(std::span<const i64>(keys));
    by_value_array a(d, 0.0), b(e, 1.0);
    run(d, a, b, "keys placed by value");
  }
  {
    by_hash_domain d, e;
    e.add(std::span<const i64>(keys));
    by_hash_array a(d, 0.0), b(e, 1.0);
    run(d, a, b, "keys placed by their hash");
  }
}

TEST_CASE("bad input: an associative key hash that changes at every call neither crashes nor hangs",
          "[bad_input][associative]") {
  const int p = dmap::num_locales();
  std::vector<i64> keys;
  for (i64 k = 0; k < 50 * p; ++k) keys.push_back(k * 3 + dmap::here());
  const std::vector<double> values(keys.size(), 1.0);
  using by_value_domain = dmap::associative_domain<i64, fickle_hash, int (*)(i64, int)>;
  using by_value_array = dmap::associative_array<double, i64, fickle_hash, int (*)(i64, int)>;
  const auto check = [&](const std::string& what, auto&& f) {
    const std::string name = "associative: a hash changing at every call, " + what;
    INFO(name);
    CHECK(dmap::bad_input::census().insert(name).second);
    CHECK_NO_FAILURE(same_outcome(f));
  };
  by_value_domain d(fickle_hash{}, &by_value), e(fickle_hash{}, &by_value);
  by_value_array a(d, 0.0), b(e, 0.0);
  for (int round = 0; round < 3; ++round) {
    check("add, round " + std::to_string(round), [&] { d.add(std::span<const i64>(keys)); });
    check("contains_each, round " + std::to_string(round), [&] { (void)d.contains_each(std::span<const i64>(keys)); });
    check("array set, round " + std::to_string(round),
          [&] { a.set(std::span<const i64>(keys), std::span<const double>(values)); });
    check("array get, round " + std::to_string(round), [&] { (void)a.get(std::span<const i64>(keys)); });
    check("array add_and_accumulate, round " + std::to_string(round),
          [&] { a.add_and_accumulate(std::span<const i64>(keys), std::span<const double>(values)); });
    check("contains, round " + std::to_string(round), [&] { (void)d.contains(keys[0]); });
    check("assignment, round " + std::to_string(round), [&] {
      e.add(std::span<const i64>(keys));
      b = a;
    });
    check("remove, round " + std::to_string(round),
          [&] { d.remove(std::span<const i64>(keys).first(keys.size() / 2)); });
  }
  check("clear", [&] { d.clear(); });
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: reduction and scan ops and Hashed mappers that break their contract", "[bad_input][reductions]") {
  const int p = dmap::num_locales();
  const index_t n = 1000 * p + 7;
  // Not associative; answering differently on different locales. (Wrapping arithmetic: the
  // values grow without bound, and a signed overflow in the test's own op would be undefined.)
  const auto wrap = [](std::uint64_t v) { return static_cast<i64>(v); };
  const auto u = [](i64 v) { return static_cast<std::uint64_t>(v); };
  const auto minus = [=](i64 a, i64 b) { return wrap(u(a) - u(b)); };
  const auto by_locale = [=](i64 a, i64 b) { return dmap::here() % 2 == 0 ? wrap(u(a) + u(b)) : wrap(u(a) * 3 - u(b)); };
  for (const map_kind k : {map_kind::block, map_kind::cyclic}) {
    INFO(name_of(k));
    dmap::domain<1> D = domain_of(k, rect<1>{range(0, n)});
    dmap::array<i64, 1> A(D), S(D);
    fill(A);
    const std::string m = std::string(" (") + name_of(k) + ")";
    // reduce: an unspecified value, the same on every locale (the locales' results are
    // combined along one tree and the total broadcast).
    CHECK(dmap::bad_input::census().insert("reduce: a non-associative op" + m).second);
    const i64 r1 = dmap::reduce(A, i64{0}, minus);
    DMAP_CHECK_ALL(dmap::all_reduce_max(r1) == dmap::all_reduce_min(r1));
    CHECK(dmap::bad_input::census().insert("reduce: an op answering differently on different locales" + m).second);
    const i64 r2 = dmap::reduce(A, i64{0}, by_locale);
    DMAP_CHECK_ALL(dmap::all_reduce_max(r2) == dmap::all_reduce_min(r2));
    // scans: unspecified values, no crash, no hang.
    CHECK(dmap::bad_input::census().insert("inclusive_scan: a non-associative op" + m).second);
    CHECK_NO_FAILURE(same_outcome([&] { (void)dmap::inclusive_scan(A, S, minus); }));
    CHECK(dmap::bad_input::census().insert("exclusive_scan: an op answering differently on different locales" + m).second);
    CHECK_NO_FAILURE(same_outcome([&] { (void)dmap::exclusive_scan(A, S, i64{0}, by_locale); }));
  }
  // A Hashed mapper whose answer changes at every call: each index is placed by one call (at
  // its directory home), so any answers make a valid placement.
  static std::atomic<index_t> mapper_calls{0};
  const dmap::hashed<1, index_t (*)(index_t)> fickle{+[](index_t i) { return (i + mapper_calls.fetch_add(1)) % dmap::num_locales(); }, "fickle"};
  CHECK(dmap::bad_input::census().insert("hashed: a mapper answering differently at every call").second);
  CHECK_NO_FAILURE(same_outcome([&] {
    dmap::domain<1> H(fickle, rect<1>{range(0, n)});
    dmap::array<i64, 1> B(H);
    dmap::forall(dmap::zip(H, B), [](const idx<1>& i, i64& b) { b = i[0]; });
    H.set_indices(rect<1>{range(0, n + 5)});
    dmap::domain<1> C = domain_of(map_kind::block, rect<1>{range(0, n + 5)});
    dmap::array<i64, 1> E(C);
    E = B;
    if (dmap::reduce(E, i64{0}) != n * (n - 1) / 2) throw dmap::runtime_error("wrong sum");
  }));
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

TEST_CASE("bad input: multiply with y adopting x's buffer while a locale holds no element",
          "[bad_input][spmv]") {
  const int p = dmap::num_locales();
  const index_t n = std::max(1, p - 1);  // Block leaves one locale without an element (P > 1)
  const dmap::domain<2> parent{dmap::block<2>{}, rect<2>{range(0, n), range(0, n)}};
  dmap::sparse_domain<2> s(parent, dmap::csr_layout<2>{});
  std::vector<idx<2>> diagonal;
  if (dmap::here() == 0)
    for (index_t i = 0; i < n; ++i) diagonal.push_back(idx<2>{i, i});
  s.add(std::span<const idx<2>>(diagonal));
  dmap::sparse_array<double, 2> a(s);
  const dmap::domain<1> d{dmap::block<1>{}, rect<1>{range(0, n)}};
  std::vector<double> buffer(static_cast<std::size_t>(d.local_size()) + 1, 1.0);
  const dmap::foreign_buffer<double, 1> shared{buffer.data(), static_cast<index_t>(buffer.size()), {1}};
  dmap::array<double, 1> x(d, shared), y(d, shared);
  BAD_INPUT("multiply: y adopts x's buffer and a locale holds no element", dmap::argument_error,
            dmap::multiply(a, x, y));
  {
    // Buffers that overlap without starting together are the same fault (every locale holds
    // three elements).
    const index_t m = 3 * p;
    const dmap::domain<2> square{dmap::block<2>{}, rect<2>{range(0, m), range(0, m)}};
    dmap::sparse_domain<2> t(square, dmap::csr_layout<2>{});
    dmap::sparse_array<double, 2> b(t);
    const dmap::domain<1> e{dmap::block<1>{}, rect<1>{range(0, m)}};
    std::vector<double> wide(static_cast<std::size_t>(e.local_size()) + 1, 1.0);
    dmap::array<double, 1> u(e, dmap::foreign_buffer<double, 1>{wide.data(), static_cast<index_t>(wide.size()), {1}});
    dmap::array<double, 1> v(e, dmap::foreign_buffer<double, 1>{wide.data() + 1, static_cast<index_t>(wide.size()) - 1, {1}});
    BAD_INPUT("multiply: y adopts x's buffer shifted by one element", dmap::argument_error, dmap::multiply(b, u, v));
  }
  // Adopted buffers of their own are fine.
  std::vector<double> other(buffer.size(), 0.0);
  dmap::array<double, 1> z(d, dmap::foreign_buffer<double, 1>{other.data(), static_cast<index_t>(other.size()), {1}});
  CHECK_NOTHROW(dmap::multiply(a, x, z));
  const auto product = z.gather();  // collective: on locale 0, empty elsewhere
  DMAP_CHECK_ALL(dmap::here() != 0 || product == std::vector<double>(static_cast<std::size_t>(n), 0.0));
}

TEST_CASE("bad input: a sparse domain whose parent gives one locale 2^40 rows fails everywhere",
          "[bad_input][sparse]") {
  // CSR keeps a start per row of each piece even when empty: 8 TiB on locale 0.
  const int p = dmap::num_locales();
  const index_t rows = (index_t{1} << 40) + p - 1;  // locale 0 2^40 rows, the others one each
  std::vector<index_t> cut;
  for (int k = 1; k < p; ++k) cut.push_back((index_t{1} << 40) + k - 1);
  const dmap::domain<2> parent{dmap::irregular_block<2>{{cut, std::vector<index_t>{}}, dmap::target_grid<2>{{p, 1}}},
                               rect<2>{range(0, rows), range(0, 4)}};
  const dmap::domain<2> transposed{dmap::irregular_block<2>{{std::vector<index_t>{}, cut}, dmap::target_grid<2>{{1, p}}},
                                   rect<2>{range(0, 4), range(0, rows)}};
  CHECK(dmap::bad_input::census().insert("sparse_domain: CSR over a parent giving locale 0 2^40 rows").second);
  CHECK_NO_FAILURE((fails_from<dmap::argument_error, dmap::argument_error>(
      0, [&] { dmap::sparse_domain<2> s(parent, dmap::csr_layout<2>{}); })));
  CHECK(dmap::bad_input::census().insert("sparse_domain: CSC over a parent giving locale 0 2^40 columns").second);
  CHECK_NO_FAILURE((fails_from<dmap::argument_error, dmap::argument_error>(
      0, [&] { dmap::sparse_domain<2> s(transposed, dmap::csc_layout<2>{}); })));
  // 2^17 pieces of 2^24 rows over the locales (128 MiB each, which the kernel grants one by
  // one, and kills the process when they are touched): refused before any is built.
  const dmap::domain<2> pieces{dmap::block_cyclic<2>{idx<2>{index_t{1} << 24, 4}, dmap::target_grid<2>{{p, 1}}},
                               rect<2>{range(0, index_t{1} << 41), range(0, 4)}};
  BAD_INPUT("sparse_domain: CSR over 2^17 block-cyclic pieces of 2^24 rows", dmap::argument_error,
            dmap::sparse_domain<2>(pieces, dmap::csr_layout<2>{}));
  // COO keeps nothing per row: fine.
  CHECK_NOTHROW(dmap::sparse_domain<2>(parent, dmap::coo_layout<2>{}));
  CHECK_NOTHROW(dmap::sparse_domain<2>(transposed, dmap::csr_layout<2>{}));
  CHECK_NO_FAILURE(dmap::bad_input::library_still_works());
}

}  // namespace test_bad_callbacks
