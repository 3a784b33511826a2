// Associative domains and arrays against brute-force oracles.
//
// Every locale builds every locale's key lists from one std::mt19937_64 with a fixed seed, so
// each knows what all of them pass; the oracle is a std::set / std::map of those lists,
// built identically everywhere. The library's answers (sizes, each locale's keys, membership,
// values read locally, remotely and in batches, loop results, message counts) are compared
// with it on every locale.
#include "../support.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace test_associative {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using i64 = std::int64_t;
using dmap::testing::throws_with;

/// Runs `f`: "" when it throws something derived from std::exception whose message contains
/// `needle`, a description of what happened otherwise.
template <class F>
std::string fails_with(F&& f, const std::string& needle) {
  try {
    f();
  } catch (const std::exception& e) {
    if (std::string(e.what()).find(needle) == std::string::npos) return std::string("the message '") + e.what() + "' lacks '" + needle + "'";
    return "";
  }
  return "no exception";
}

/// Each locale's keys: `n` per locale drawn from [-range, range), some repeated within a
/// list and across lists, plus the int64 extremes given by locale 0 (and again by the last).
std::vector<std::vector<i64>> key_lists(std::uint64_t seed, std::size_t n, i64 range) {
  std::mt19937_64 gen(seed);
  const int p = dmap::num_locales();
  std::vector<std::vector<i64>> lists(static_cast<std::size_t>(p));
  for (auto& l : lists) {
    for (std::size_t k = 0; k < n; ++k) l.push_back(static_cast<i64>(gen() % static_cast<std::uint64_t>(2 * range)) - range);
    if (!l.empty()) l.push_back(l.front());  // a duplicate within the list
  }
  const i64 extremes[] = {std::numeric_limits<i64>::min(), std::numeric_limits<i64>::max(), 0, -1};
  for (i64 e : extremes) lists.front().push_back(e), lists.back().push_back(e);
  return lists;
}
std::set<i64> union_of(const std::vector<std::vector<i64>>& lists) {
  std::set<i64> all;
  for (const auto& l : lists) all.insert(l.begin(), l.end());
  return all;
}
/// A value formula of a key.
i64 f(i64 k) { return static_cast<i64>(static_cast<std::uint64_t>(k) * 3 + 7); }  // wraps at the extremes

/// Collective: every locale's local keys, sorted, as one list; "" when they equal `oracle`
/// and each locale held only keys it owns.
template <class Domain, class Key>
std::string check_keys(const Domain& D, const std::set<Key>& oracle) {
  std::vector<Key> mine;
  bool owned = true;
  for (const Key& k : D.local_keys()) {
    mine.push_back(k);
    owned = owned && D.locale_of(k) == dmap::here();
  }
  const auto all = dmap::testing::everyones(mine);
  std::vector<Key> gathered;
  for (const auto& l : all) gathered.insert(gathered.end(), l.begin(), l.end());
  std::sort(gathered.begin(), gathered.end());
  if (!owned) return "a locale holds a key it does not own";
  if (static_cast<index_t>(mine.size()) != D.local_size()) return "local_size differs from the local keys";
  if (D.size() != static_cast<index_t>(oracle.size()))
    return "size " + std::to_string(D.size()) + ", oracle " + std::to_string(oracle.size());
  if (!std::equal(gathered.begin(), gathered.end(), oracle.begin(), oracle.end())) return "the keys differ from the oracle";
  return "";
}

/// The number of locales other than this one that own some of `keys`.
template <class Domain, class Key>
std::uint64_t remote_owners(const Domain& D, const std::vector<Key>& keys) {
  std::set<int> owners;
  for (const Key& k : keys)
    if (D.locale_of(k) != dmap::here()) owners.insert(D.locale_of(k));
  return owners.size();
}
/// The number of other locales whose list holds a key this locale owns.
template <class Domain, class Key>
std::uint64_t askers(const Domain& D, const std::vector<std::vector<Key>>& lists) {
  std::uint64_t n = 0;
  for (std::size_t q = 0; q < lists.size(); ++q)
    if (static_cast<int>(q) != dmap::here() &&
        std::any_of(lists[q].begin(), lists[q].end(), [&](const Key& k) { return D.locale_of(k) == dmap::here(); }))
      ++n;
  return n;
}
/// Bytes this locale sends for `keys`, `record` bytes per key owned elsewhere.
template <class Domain, class Key>
std::uint64_t remote_bytes(const Domain& D, const std::vector<Key>& keys, std::size_t record) {
  std::uint64_t n = 0;
  for (const Key& k : keys) n += D.locale_of(k) != dmap::here() ? record : 0;
  return n;
}

/// A key with padding and no default hash: hashed by its fields.
struct part {
  std::int32_t lot;
  std::int16_t bin;
  friend bool operator==(const part& a, const part& b) { return a.lot == b.lot && a.bin == b.bin; }
};
struct part_hash {
  std::uint64_t operator()(const part& k) const noexcept {
    return dmap::detail::mix64(static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.lot)) * 65536 +
                               static_cast<std::uint16_t>(k.bin));
  }
};
bool operator<(const part& a, const part& b) { return a.lot != b.lot ? a.lot < b.lot : a.bin < b.bin; }

}  // namespace

TEST_CASE("associative: adding, removing and membership of integer keys against std::set", "[associative]") {
  const auto lists = key_lists(11, 300, 500);
  const auto& mine = lists[static_cast<std::size_t>(dmap::here())];
  std::set<i64> oracle = union_of(lists);
  dmap::associative_domain<i64> D;
  DMAP_CHECK_ALL(D.size() == 0);

  dmap::reset_counters();
  D.add(mine);
  const auto spent = dmap::counters();
  CHECK_NO_FAILURE(check_keys(D, oracle));
  // One message per peer that owns some of this locale's keys, sizeof(key) bytes per key.
  DMAP_CHECK_ALL(spent.messages_sent == remote_owners(D, mine));
  DMAP_CHECK_ALL(spent.messages_received == askers(D, lists));
  DMAP_CHECK_ALL(spent.bytes_sent == remote_bytes(D, mine, sizeof(i64)));

  D.add(mine);  // all present already: nothing changes
  CHECK_NO_FAILURE(check_keys(D, oracle));

  // Membership in batches: present and absent keys, answers in the order asked.
  std::vector<i64> asked;
  for (i64 k = -520 + dmap::here(); k < 520; k += 3) asked.push_back(k);
  asked.push_back(std::numeric_limits<i64>::min());
  dmap::reset_counters();
  const std::vector<bool> in = D.contains_each(asked);
  const auto queried = dmap::counters();
  bool same = in.size() == asked.size();
  for (std::size_t k = 0; same && k < asked.size(); ++k) same = in[k] == (oracle.count(asked[k]) == 1);
  DMAP_CHECK_ALL(same);
  std::vector<std::vector<i64>> all_asked;
  for (int q = 0; q < dmap::num_locales(); ++q) {
    std::vector<i64> a;
    for (i64 k = -520 + q; k < 520; k += 3) a.push_back(k);
    a.push_back(std::numeric_limits<i64>::min());
    all_asked.push_back(a);
  }
  // Keys there, one answer byte per key back: one message per peer each way.
  DMAP_CHECK_ALL(queried.messages_sent == remote_owners(D, asked) + askers(D, all_asked));
  DMAP_CHECK_ALL(queried.messages_received == remote_owners(D, asked) + askers(D, all_asked));

  // Removing: each locale removes every third of its keys and a key nobody has.
  std::vector<i64> gone;
  for (std::size_t k = 0; k < mine.size(); k += 3) gone.push_back(mine[k]);
  gone.push_back(100000 + dmap::here());
  D.remove(gone);
  for (const auto& l : lists)
    for (std::size_t k = 0; k < l.size(); k += 3) oracle.erase(l[k]);
  CHECK_NO_FAILURE(check_keys(D, oracle));
  for (i64 k : oracle) DMAP_CHECK_ALL(D.locale_of(k) != dmap::here() || D.local_contains(k));

  D.clear();
  CHECK_NO_FAILURE(check_keys(D, std::set<i64>{}));
  D.add({1, 2, 3});
  CHECK_NO_FAILURE(check_keys(D, std::set<i64>{1, 2, 3}));
}

TEST_CASE("associative: arrays keep their values as keys come and go and the tables grow", "[associative]") {
  const auto lists = key_lists(23, 40, 1000);
  std::map<i64, i64> oracle;  // key -> value of A
  dmap::associative_domain<i64> D;
  dmap::associative_array<i64, i64> A(D, -1);
  dmap::associative_array<double, i64> B(D, 0.5);
  D.add(lists[static_cast<std::size_t>(dmap::here())]);
  for (i64 k : union_of(lists)) oracle[k] = -1;
  const auto check = [&] {
    bool ok = D.size() == static_cast<index_t>(oracle.size());
    for (const auto& [k, v] : oracle)
      if (D.locale_of(k) == dmap::here()) ok = ok && A.local(k) == v && B.local(k) == 0.5;
    return ok;
  };
  DMAP_CHECK_ALL(check());
  dmap::forall(dmap::zip(A, D), [](i64& a, const i64& k) { a = f(k); });
  for (auto& [k, v] : oracle) v = f(k);
  DMAP_CHECK_ALL(check());

  // Many more keys: every table grows several times; old keys keep their values, new keys
  // get the initial value.
  std::vector<i64> more;
  for (i64 k = 0; k < 3000; ++k) more.push_back(5000 + k * dmap::num_locales() + dmap::here());
  D.add(more);
  for (int q = 0; q < dmap::num_locales(); ++q)
    for (i64 k = 0; k < 3000; ++k) oracle.emplace(5000 + k * dmap::num_locales() + q, -1);
  DMAP_CHECK_ALL(check());

  // Removing keeps the others' values; a key added again starts from the initial value.
  std::vector<i64> gone;
  for (const auto& [k, v] : oracle)
    if (k % 5 == 0) gone.push_back(k);
  D.remove(gone);
  for (i64 k : gone) oracle.erase(k);
  DMAP_CHECK_ALL(check());
  const std::vector<i64> back(gone.begin(), gone.begin() + static_cast<std::ptrdiff_t>(gone.size() / 2));
  D.add(back);
  for (i64 k : back) oracle[k] = -1;
  DMAP_CHECK_ALL(check());

  // A copy has the same values and keeps them when the original changes.
  dmap::associative_array<i64, i64> C(A);
  dmap::forall(A, [](i64& a) { a += 1; });
  bool copied = true;
  for (const auto& [k, v] : oracle)
    if (D.locale_of(k) == dmap::here()) copied = copied && C.local(k) == v && A.local(k) == v + 1;
  DMAP_CHECK_ALL(copied);
}

TEST_CASE("associative: remote A[key] reads and writes from every locale", "[associative]") {
  const auto lists = key_lists(37, 120, 100000);
  const std::set<i64> keys = union_of(lists);
  dmap::associative_domain<i64> D;
  dmap::associative_array<i64, i64> A(D);
  D.add(lists[static_cast<std::size_t>(dmap::here())]);
  // Each locale writes the keys of its stripe (most owned elsewhere), one-sidedly.
  const int p = dmap::num_locales();
  std::size_t n = 0;
  for (i64 k : keys)
    if (static_cast<int>(n++ % static_cast<std::size_t>(p)) == dmap::here()) A[k] = f(k);
  dmap::barrier();
  // Every locale reads every key, most of them owned by others.
  bool ok = true;
  for (i64 k : keys) ok = ok && static_cast<i64>(A[k]) == f(k) && std::as_const(A)[k] == f(k);
  DMAP_CHECK_ALL(ok);
  // A remote read of a present key costs a few one-sided reads (the probe's states, its
  // keys, the value) and sends nothing.
  const auto remote = std::find_if(keys.begin(), keys.end(), [&](i64 k) { return D.locale_of(k) != dmap::here(); });
  dmap::reset_counters();
  const i64 v = remote != keys.end() ? static_cast<i64>(A[*remote]) : 0;
  const auto c = dmap::counters();
  DMAP_CHECK_ALL(remote == keys.end() || (v == f(*remote) && c.messages_sent == 0 && c.messages_received >= 2 &&
                                          c.messages_received <= 3));
  // Reading or writing an absent key is an out_of_bounds_error naming it, on any locale alone.
  CHECK_NO_FAILURE(throws_with<dmap::out_of_bounds_error>([&] { (void)static_cast<i64>(A[777777]); }, "777777"));
  CHECK_NO_FAILURE(throws_with<dmap::out_of_bounds_error>([&] { A[777778] = 1; }, "777778"));
  // local() of a key owned elsewhere is a not_local_error, of an absent key out_of_bounds_error.
  if (remote != keys.end())
    CHECK(throws_with<dmap::not_local_error>([&] { (void)A.local(*remote); }, "not by this locale").empty());
  CHECK_NO_FAILURE(throws_with<dmap::error>([&] { (void)A.local(777779); }, "777779"));
}

TEST_CASE("associative: batched get, set and accumulate, one message per peer each way", "[associative]") {
  const auto lists = key_lists(41, 200, 3000);
  const auto& mine = lists[static_cast<std::size_t>(dmap::here())];
  const std::set<i64> keys = union_of(lists);
  dmap::associative_domain<i64> D;
  dmap::associative_array<i64, i64> A(D, 5);
  D.add(mine);

  // set: keys and values there, nothing back. Overlapping keys: the highest locale wins.
  std::vector<i64> values;
  for (i64 k : mine) values.push_back(f(k) + dmap::here());
  dmap::reset_counters();
  A.set(mine, values);
  auto c = dmap::counters();
  DMAP_CHECK_ALL(c.messages_sent == remote_owners(D, mine));
  DMAP_CHECK_ALL(c.messages_received == askers(D, lists));
  DMAP_CHECK_ALL(c.bytes_sent == remote_bytes(D, mine, sizeof(i64) + sizeof(i64)));
  std::map<i64, i64> oracle;
  for (int q = 0; q < dmap::num_locales(); ++q)
    for (i64 k : lists[static_cast<std::size_t>(q)]) oracle[k] = f(k) + q;

  // get: keys there, values back, in the order asked.
  dmap::reset_counters();
  const std::vector<i64> got = A.get(mine);
  c = dmap::counters();
  bool same = got.size() == mine.size();
  for (std::size_t k = 0; same && k < mine.size(); ++k) same = got[k] == oracle[mine[k]];
  DMAP_CHECK_ALL(same);
  DMAP_CHECK_ALL(c.messages_sent == remote_owners(D, mine) + askers(D, lists));
  DMAP_CHECK_ALL(c.messages_received == remote_owners(D, mine) + askers(D, lists));

  // accumulate: every locale adds 1 per occurrence of a key in its list (a word count).
  std::map<i64, i64> counted = oracle;
  for (const auto& l : lists)
    for (i64 k : l) counted[k] += 1;
  dmap::reset_counters();
  A.accumulate(mine, std::vector<i64>(mine.size(), 1));
  c = dmap::counters();
  DMAP_CHECK_ALL(c.messages_sent == remote_owners(D, mine));
  bool summed = true;
  for (const auto& [k, v] : counted)
    if (D.locale_of(k) == dmap::here()) summed = summed && A.local(k) == v;
  DMAP_CHECK_ALL(summed);
  // With another operation: the maximum.
  A.accumulate(mine, std::vector<i64>(mine.size(), 1 << 20), [](i64 a, i64 b) { return std::max(a, b); });
  DMAP_CHECK_ALL(dmap::reduce(A, i64{0}) == static_cast<i64>(keys.size()) * (1 << 20));

  // Errors on every locale: an absent key (given by the last locale only), sizes that differ.
  std::vector<i64> absent = mine;
  if (dmap::here() == dmap::num_locales() - 1) absent.push_back(999999);
  CHECK_NO_FAILURE(throws_with<dmap::out_of_bounds_error>([&] { (void)A.get(absent); }, "999999"));
  CHECK_NO_FAILURE(throws_with<dmap::out_of_bounds_error>(
      [&] { A.set(absent, std::vector<i64>(absent.size(), 0)); }, "999999"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { A.set(mine, std::vector<i64>(dmap::here() == 0 ? 1 : mine.size(), 0)); }, "values"));
  // Nothing changed.
  DMAP_CHECK_ALL(dmap::reduce(A, i64{0}) == static_cast<i64>(keys.size()) * (1 << 20));
}

TEST_CASE("associative: add_and_accumulate adds the missing keys and combines repeated ones, one message per peer",
          "[associative]") {
  const auto lists = key_lists(59, 300, 500);  // keys repeat within and across the lists
  const auto& mine = lists[static_cast<std::size_t>(dmap::here())];
  const auto half = key_lists(61, 100, 500);  // keys the domain holds before
  dmap::associative_domain<i64> D;
  dmap::associative_array<i64, i64> A(D, 5), other(D, -1);
  D.add(half[static_cast<std::size_t>(dmap::here())]);
  const std::set<i64> before = union_of(half);
  std::set<i64> after = before;
  for (const auto& l : lists) after.insert(l.begin(), l.end());

  // Each key's values f(k) + occurrence, every locale's, summed onto the implicit 5 (wrapping:
  // f is near the int64 limits for the extreme keys, where a signed sum would overflow).
  const auto wrapping_sum = [](i64 a, i64 b) { return static_cast<i64>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b)); };
  std::vector<i64> values;
  for (std::size_t k = 0; k < mine.size(); ++k) values.push_back(f(mine[k]) + static_cast<i64>(k));
  std::map<i64, i64> oracle;
  for (i64 k : after) oracle[k] = 5;
  for (const auto& l : lists)
    for (std::size_t k = 0; k < l.size(); ++k)
      oracle[l[k]] = static_cast<i64>(static_cast<std::uint64_t>(oracle[l[k]]) + static_cast<std::uint64_t>(f(l[k]) + static_cast<i64>(k)));
  // Each distinct key once, with its combined value: one message per owner elsewhere.
  const std::set<i64> distinct(mine.begin(), mine.end());
  const std::vector<i64> distinct_keys(distinct.begin(), distinct.end());
  dmap::reset_counters();
  A.add_and_accumulate(mine, values, wrapping_sum);
  const auto c = dmap::counters();
  DMAP_CHECK_ALL(c.messages_sent == remote_owners(D, distinct_keys));
  DMAP_CHECK_ALL(c.bytes_sent == remote_bytes(D, distinct_keys, 2 * sizeof(i64)));
  CHECK_NO_FAILURE(check_keys(D, after));
  bool right = true, implicit = true;
  for (const i64 k : D.local_keys()) {
    right = right && A.local(k) == oracle[k];
    implicit = implicit && other.local(k) == -1;  // the domain's other array: its implicit value
  }
  DMAP_CHECK_ALL(right);
  DMAP_CHECK_ALL(implicit);

  // Another operation, associative: the maximum; nothing new to add.
  A.add_and_accumulate(mine, std::vector<i64>(mine.size(), i64{1} << 40), [](i64 a, i64 b) { return std::max(a, b); });
  DMAP_CHECK_ALL(dmap::reduce(A, i64{0}, dmap::maximum{}) == (i64{1} << 40) || oracle.empty());
  DMAP_CHECK_ALL(D.size() == static_cast<index_t>(after.size()));

  // Errors on every locale, nothing changed: sizes that differ on one locale; an operation
  // that throws while one locale combines its own values.
  const i64 total = dmap::reduce(A, i64{0}, dmap::maximum{});
  std::vector<i64> fresh{100001, 100002, 100001};
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { A.add_and_accumulate(fresh, std::vector<i64>(dmap::here() == 0 ? 1 : 3, 1)); }, "values"));
  const auto refusing = [](i64 a, i64 b) -> i64 {
    if (dmap::here() == dmap::num_locales() - 1) throw std::runtime_error("cannot combine here");
    return a + b;
  };
  CHECK_NO_FAILURE(fails_with([&] { A.add_and_accumulate(fresh, std::vector<i64>(3, 1), refusing); }, "cannot combine here"));
  DMAP_CHECK_ALL(D.size() == static_cast<index_t>(after.size()));
  DMAP_CHECK_ALL(dmap::reduce(A, i64{0}, dmap::maximum{}) == total);
  // The same keys without the throwing operation: added once each, 2 from every locale.
  A.add_and_accumulate(fresh, std::vector<i64>(3, 1));
  DMAP_CHECK_ALL(D.size() == static_cast<index_t>(after.size()) + 2);
  DMAP_CHECK_ALL(A[100001] == 5 + 2 * dmap::num_locales());
  DMAP_CHECK_ALL(A[100002] == 5 + dmap::num_locales());
}

TEST_CASE("associative: idx<2> keys and a struct key with a user hash", "[associative]") {
  static_assert(std::has_unique_object_representations_v<idx<2>>);
  std::mt19937_64 gen(53);
  const int p = dmap::num_locales();
  std::vector<std::vector<idx<2>>> lists(static_cast<std::size_t>(p));
  std::vector<std::vector<part>> parts(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q)
    for (int k = 0; k < 150; ++k) {
      lists[static_cast<std::size_t>(q)].push_back(idx<2>{static_cast<i64>(gen() % 40) - 20, static_cast<i64>(gen() % 40)});
      parts[static_cast<std::size_t>(q)].push_back(part{static_cast<std::int32_t>(gen() % 100), static_cast<std::int16_t>(gen() % 7 - 3)});
    }
  {
    std::set<idx<2>> oracle;
    for (const auto& l : lists) oracle.insert(l.begin(), l.end());
    dmap::associative_domain<idx<2>> D;
    dmap::associative_array<i64, idx<2>> A(D);
    D.add(lists[static_cast<std::size_t>(dmap::here())]);
    CHECK_NO_FAILURE(check_keys(D, oracle));
    dmap::forall(dmap::zip(D, A), [](const idx<2>& i, i64& a) { a = i[0] * 100 + i[1]; });
    bool ok = true;
    for (const auto& i : oracle) ok = ok && static_cast<i64>(A[i]) == i[0] * 100 + i[1];
    DMAP_CHECK_ALL(ok);
    i64 sum = 0;
    for (const auto& i : oracle) sum += i[0] * 100 + i[1];
    DMAP_CHECK_ALL(dmap::reduce(D, i64{0}, std::plus<>{}, [](const idx<2>& i) { return i[0] * 100 + i[1]; }) == sum);
    CHECK_NO_FAILURE(throws_with<dmap::out_of_bounds_error>([&] { (void)static_cast<i64>(A[idx<2>{-99, 5}]); }, "(-99, 5)"));
  }
  {
    std::set<part> oracle;
    for (const auto& l : parts) oracle.insert(l.begin(), l.end());
    dmap::associative_domain<part, part_hash> D;
    dmap::associative_array<double, part, part_hash> A(D, 1.5);
    D.add(parts[static_cast<std::size_t>(dmap::here())]);
    CHECK_NO_FAILURE(check_keys(D, oracle));
    const std::vector<part> asked{part{5, 0}, part{5, 1}, part{1000, 0}, *oracle.begin(), *oracle.rbegin()};
    const auto in = D.contains_each(asked);
    bool ok = in.size() == asked.size();
    for (std::size_t k = 0; ok && k < asked.size(); ++k) ok = in[k] == (oracle.count(asked[k]) == 1);
    for (const part& k : oracle) ok = ok && static_cast<double>(A[k]) == 1.5;
    DMAP_CHECK_ALL(ok);
    DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == 1.5 * static_cast<double>(oracle.size()));
  }
}

TEST_CASE("associative: forall, reduce and zip against the oracle", "[associative]") {
  const auto lists = key_lists(61, 500, 20000);
  const std::set<i64> keys = union_of(lists);
  dmap::associative_domain<i64> D;
  dmap::associative_array<i64, i64> A(D);
  dmap::associative_array<double, i64> B(D, 2.0);
  D.add(lists[static_cast<std::size_t>(dmap::here())]);
  dmap::forall(D, [&](const i64& k) { A.local(k) = f(k % 1000); });
  dmap::forall(dmap::zip(B, std::as_const(A)), [](double& b, const i64& a) { b = b * static_cast<double>(a); });
  i64 sum = 0, top = std::numeric_limits<i64>::min();
  double weighted = 0;
  for (i64 k : keys) {
    sum += f(k % 1000);
    top = std::max(top, f(k % 1000));
    weighted += 2.0 * static_cast<double>(f(k % 1000)) * static_cast<double>(k % 7);
  }
  DMAP_CHECK_ALL(dmap::reduce(A, i64{0}) == sum);
  DMAP_CHECK_ALL(dmap::reduce(A, std::numeric_limits<i64>::min(), dmap::maximum{}) == top);
  DMAP_CHECK_ALL(dmap::reduce(D, index_t{0}, std::plus<>{}, [](const i64&) { return index_t{1}; }) ==
                 static_cast<index_t>(keys.size()));
  const double r = dmap::reduce(dmap::zip(B, D), 0.0, std::plus<>{},
                                [](const double& b, const i64& k) { return b * static_cast<double>(k % 7); });
  DMAP_CHECK_ALL(r == weighted);  // integer-valued doubles: exact
  // Same bits every time.
  const double again = dmap::reduce(dmap::zip(B, D), 0.0, std::plus<>{},
                                    [](const double& b, const i64& k) { return b * static_cast<double>(k % 7) / 3; });
  const double third = dmap::reduce(dmap::zip(B, D), 0.0, std::plus<>{},
                                    [](const double& b, const i64& k) { return b * static_cast<double>(k % 7) / 3; });
  DMAP_CHECK_ALL(std::memcmp(&again, &third, sizeof(double)) == 0);
  // An empty domain reduces to init.
  dmap::associative_domain<i64> E;
  DMAP_CHECK_ALL(dmap::reduce(E, i64{42}) == 42);

  // A zip over two domains is a shape_error on every locale.
  dmap::associative_domain<i64> other;
  dmap::associative_array<i64, i64> O(other);
  CHECK_NO_FAILURE(throws_with<dmap::shape_error>([&] { dmap::forall(dmap::zip(A, O), [](i64&, i64&) {}); }, "operand 1"));
  CHECK_NO_FAILURE(throws_with<dmap::shape_error>(
      [&] { (void)dmap::reduce(dmap::zip(D, O), i64{0}, std::plus<>{}, [](const i64&, const i64&) { return i64{0}; }); },
      "another associative domain"));

  // A body or op that throws on one locale throws on every locale.
  const i64 victim = *keys.rbegin();
  CHECK_NO_FAILURE(fails_with([&] {
    dmap::forall(D, [&](const i64& k) {
      if (k == victim) throw std::runtime_error("body failed at the victim");
    });
  }, "body failed at the victim"));
  CHECK_NO_FAILURE(fails_with([&] {
    (void)dmap::reduce(A, i64{0}, [&](i64 a, i64 b) -> i64 {
      if (b == f(victim % 1000) || a == f(victim % 1000)) throw std::runtime_error("op failed");
      return a + b;
    });
  }, "op failed"));
  DMAP_CHECK_ALL(dmap::reduce(A, i64{0}) == sum);
}

TEST_CASE("associative: errors reach every locale and change nothing", "[associative]") {
  const int p = dmap::num_locales();
  const int last = p - 1;
  // A mapper that sends key 13 outside the locales, and one that throws for key 17.
  const auto bad_mapper = [](i64 k, int locales) { return k == 13 ? locales : static_cast<int>(dmap::detail::mix64(static_cast<std::uint64_t>(k)) % static_cast<std::uint64_t>(locales)); };
  dmap::associative_domain<i64, dmap::key_hash<i64>, decltype(bad_mapper)> D({}, bad_mapper);
  dmap::associative_array<i64, i64, dmap::key_hash<i64>, decltype(bad_mapper)> A(D, 4);
  D.add({1, 2, 3, 4, 5});
  std::vector<i64> some{10, 11, 12};
  if (dmap::here() == last) some.push_back(13);
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { D.add(some); }, "key 13 to locale " + std::to_string(p)));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { D.remove(some); }, "key 13"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { (void)D.contains_each(some); }, "key 13"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { A.accumulate(some, std::vector<i64>(some.size(), 1)); }, "key 13"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { A.add_and_accumulate(some, std::vector<i64>(some.size(), 1)); }, "key 13"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { (void)D.locale_of(13); }, "[0, " + std::to_string(p) + ")"));
  DMAP_CHECK_ALL(D.size() == 5);

  const auto throwing = [](i64 k) -> int {
    if (k == 17) throw std::runtime_error("mapper cannot place 17");
    return 0;
  };
  dmap::associative_domain<i64, dmap::key_hash<i64>, decltype(throwing)> T({}, throwing);
  T.add({1, 2});
  std::vector<i64> with17{3};
  if (dmap::here() == 0) with17.push_back(17);
  CHECK_NO_FAILURE(fails_with([&] { T.add(with17); }, "mapper cannot place 17"));
  DMAP_CHECK_ALL(T.size() == 2);

  // One locale cannot allocate its grown table's values: every locale throws, the domain
  // and the arrays are as they were. (Not under AddressSanitizer, whose operator new ends the
  // process instead of throwing std::bad_alloc.)
#if !defined(__SANITIZE_ADDRESS__)
  struct big {
    std::array<std::byte, (1 << 20)> bytes;
  };
  const auto to_last = [](i64, int locales) { return locales - 1; };
  dmap::associative_domain<i64, dmap::key_hash<i64>, decltype(to_last)> G({}, to_last);
  dmap::associative_array<i64, i64, dmap::key_hash<i64>, decltype(to_last)> small(G, 9);
  G.add({1, 2, 3});
  if (dmap::here() == 0) small[2] = 20;
  dmap::barrier();
  {
    dmap::associative_array<big, i64, dmap::key_hash<i64>, decltype(to_last)> huge(G);
    std::vector<i64> many;
    if (dmap::here() == 0)
      for (i64 k = 100; k < 100 + (1 << 18); ++k) many.push_back(k);
    CHECK_NO_FAILURE(fails_with([&] { G.add(many); }, ""));
  }
  DMAP_CHECK_ALL(G.size() == 3 && dmap::reduce(small, i64{0}) == 9 + 20 + 9);
  DMAP_CHECK_ALL(static_cast<i64>(small[2]) == 20 && G.contains_each({1, 2, 3, 100}) == std::vector<bool>({true, true, true, false}));
  G.add({100});
  DMAP_CHECK_ALL(G.size() == 4 && static_cast<i64>(small[100]) == 9);
#endif
}

}  // namespace test_associative
