// The verb table of docs/guide/vocabulary.md, row by row, for the three kinds of domains and
// arrays side by side: rectangular (dmap::domain, dmap::array), sparse (dmap::sparse_domain,
// dmap::sparse_array) and associative (dmap::associative_domain, dmap::associative_array).
// Every locale knows the whole set (the same seeds everywhere), so each query is checked
// against a std::set / std::map oracle on every locale, one locale at a time where the table
// says "not collective" (the others wait at a barrier, which proves the call needs nobody
// else), and every locale at once otherwise.
#include "../support.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../layouts/compressed_layout.hpp"
#include "../../layouts/coo_layout.hpp"
#include "../oracle.hpp"

namespace test_vocabulary {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using i64 = std::int64_t;

namespace {

/// A value of index i.
double value_of(const idx<2>& i) { return 100.0 * static_cast<double>(i[0]) + static_cast<double>(i[1]); }
/// A value of key k.
double value_of_key(i64 k) { return 0.5 * static_cast<double>(k % 1000); }

/// The sparse set of the tests: about a third of `space`, the same on every locale.
std::set<idx<2>> sparse_set(const rect<2>& space, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::set<idx<2>> out;
  for (const auto& i : dmap::testing::oracle::points_of(space))
    if (gen() % 3 == 0) out.insert(i);
  return out;
}
/// The keys of the tests, the int64 extremes among them.
std::set<i64> key_set(unsigned seed, std::size_t n) {
  std::mt19937_64 gen(seed);
  std::set<i64> out{std::numeric_limits<i64>::min(), std::numeric_limits<i64>::max(), 0, -1};
  while (out.size() < n) out.insert(static_cast<i64>(gen() % 20000) - 10000);
  return out;
}
/// This locale's share of a set (every locale gives every p-th element).
template <class T>
std::vector<T> share(const std::set<T>& all) {
  std::vector<T> out;
  std::size_t k = 0;
  for (const T& x : all)
    if (static_cast<int>(k++ % static_cast<std::size_t>(dmap::num_locales())) == dmap::here()) out.push_back(x);
  return out;
}

/// Collective: runs `f` on each locale in turn, the others waiting; "" or the first failure.
template <class F>
std::string one_locale_at_a_time(F&& f) {
  std::string failure;
  for (int q = 0; q < dmap::num_locales(); ++q) {
    if (q == dmap::here()) failure = f();
    dmap::barrier();
  }
  return failure;
}

}  // namespace

TEST_CASE("vocabulary: size, local_size, contains, local_contains and locale_of agree across the kinds",
          "[vocabulary]") {
  const rect<2> space{{-2, 9}, {0, 7}};
  const std::set<idx<2>> oracle = sparse_set(space, 3);
  const std::set<i64> keys = key_set(5, 300);
  const dmap::domain<2> D{dmap::cyclic<2>{}, space};
  for (int layout = 0; layout < 2; ++layout) {
    dmap::sparse_domain<2> S = layout == 0 ? dmap::sparse_domain<2>{D, dmap::csr_layout<2>{}}
                                           : dmap::sparse_domain<2>{D, dmap::csc_layout<2>{}};
    S.add(share(oracle));
    dmap::associative_domain<i64> K;
    K.add(share(keys));
    INFO("layout " << S.layout_name());
    DMAP_CHECK_ALL(D.size() == space.size() && S.size() == static_cast<index_t>(oracle.size()) &&
                   K.size() == static_cast<index_t>(keys.size()));
    DMAP_CHECK_ALL(dmap::all_reduce_sum(D.local_size()) == D.size() && dmap::all_reduce_sum(S.local_size()) == S.size() &&
                   dmap::all_reduce_sum(K.local_size()) == K.size());
    // contains: membership of the whole set, asked by one locale alone (not collective).
    CHECK_NO_FAILURE(one_locale_at_a_time([&]() -> std::string {
      for (const auto& i : dmap::testing::oracle::points_of(rect<2>{{-4, 11}, {-1, 8}})) {
        const bool in_space = space.contains(i);
        if (D.contains(i) != in_space) return "dense contains";
        if (S.contains(i) != (oracle.count(i) == 1)) return "sparse contains";
        if (!in_space) continue;
        const bool mine = D.locale_of(i) == dmap::here();
        if (D.local_contains(i) != mine) return "dense local_contains";
        if (S.locale_of(i) != D.locale_of(i)) return "sparse locale_of";
        if (S.local_contains(i) != (mine && oracle.count(i) == 1)) return "sparse local_contains";
      }
      for (i64 k = -10005; k < 10005; k += 7) {
        if (K.contains(k) != (keys.count(k) == 1)) return "associative contains " + std::to_string(k);
        if (K.local_contains(k) != (K.locale_of(k) == dmap::here() && keys.count(k) == 1))
          return "associative local_contains";
      }
      for (i64 k : keys)
        if (!K.contains(k)) return "associative contains of a present key " + std::to_string(k);
      return "";
    }));
    // The batch forms, collective: each locale asks its own list.
    std::vector<idx<2>> asked;
    for (const auto& i : dmap::testing::oracle::points_of(rect<2>{{-3, 10}, {0, 8}}))
      if ((i[0] + i[1] + dmap::here()) % 3 == 0) asked.push_back(i);
    const auto in = S.contains_each(asked);
    bool same = in.size() == asked.size();
    for (std::size_t k = 0; same && k < asked.size(); ++k) same = in[k] == (oracle.count(asked[k]) == 1);
    DMAP_CHECK_ALL(same);
    std::vector<i64> asked_keys{std::numeric_limits<i64>::min(), 12345678};
    for (i64 k = -10000 + dmap::here(); k < 10000; k += 11) asked_keys.push_back(k);
    const auto kin = K.contains_each(asked_keys);
    same = kin.size() == asked_keys.size();
    for (std::size_t k = 0; same && k < asked_keys.size(); ++k) same = kin[k] == (keys.count(asked_keys[k]) == 1);
    DMAP_CHECK_ALL(same);
  }
}

TEST_CASE("vocabulary: A[i] reads any element from any locale and writes present ones, for the three kinds",
          "[vocabulary]") {
  const rect<2> space{{0, 12}, {3, 10}};
  const std::set<idx<2>> oracle = sparse_set(space, 7);
  const std::set<i64> keys = key_set(9, 200);
  const dmap::domain<2> D{dmap::block<2>{}, space};
  dmap::array<double, 2> X(D, -1.0);
  dmap::sparse_domain<2> S{D, dmap::coo_layout<2>{}};
  S.add(share(oracle));
  dmap::sparse_array<double, 2> A(S, -1.0);
  dmap::associative_domain<i64> K;
  K.add(share(keys));
  dmap::associative_array<double, i64> B(K, -1.0);
  dmap::forall(dmap::zip(X, D), [](double& x, const idx<2>& i) { x = value_of(i); });
  dmap::forall(dmap::zip(A, S), [](double& a, const idx<2>& i) { a = value_of(i); });
  dmap::forall(dmap::zip(B, K), [](double& b, const i64& k) { b = value_of_key(k); });
  // Reads by one locale alone: dense elements, sparse values or the implicit value, keys.
  CHECK_NO_FAILURE(one_locale_at_a_time([&]() -> std::string {
    for (const auto& i : dmap::testing::oracle::points_of(space)) {
      if (static_cast<double>(X[i]) != value_of(i) || std::as_const(X)[i] != value_of(i)) return "dense read";
      const double want = oracle.count(i) ? value_of(i) : -1.0;
      if (static_cast<double>(A[i]) != want || std::as_const(A)[i] != want) return "sparse read";
    }
    for (i64 k : keys)
      if (static_cast<double>(B[k]) != value_of_key(k) || std::as_const(B)[k] != value_of_key(k))
        return "associative read";
    return "";
  }));
  // Writes of present elements from one writer locale per element, one-sidedly.
  const int p = dmap::num_locales();
  std::size_t n = 0;
  for (const auto& i : oracle)
    if (static_cast<int>(n++ % static_cast<std::size_t>(p)) == dmap::here()) {
      A[i] = -value_of(i);
      X[i] = -value_of(i);
    }
  n = 0;
  for (i64 k : keys)
    if (static_cast<int>(n++ % static_cast<std::size_t>(p)) == (dmap::here() + 1) % p) B[k] += 1.0;
  dmap::barrier();
  double sparse_sum = 0, dense_sum = 0, key_sum = 0;
  for (const auto& i : dmap::testing::oracle::points_of(space)) dense_sum += oracle.count(i) ? -value_of(i) : value_of(i);
  for (const auto& i : oracle) sparse_sum -= value_of(i);
  for (i64 k : keys) key_sum += value_of_key(k) + 1.0;
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == sparse_sum && dmap::reduce(X, 0.0) == dense_sum &&
                 dmap::reduce(B, 0.0) == key_sum);
  // Writing an absent index or key is an out_of_bounds_error naming it, from any locale alone;
  // so is any access outside the parent.
  CHECK_NO_FAILURE(one_locale_at_a_time([&]() -> std::string {
    for (const auto& i : dmap::testing::oracle::points_of(space))
      if (!oracle.count(i)) {
        std::ostringstream name;
        name << i;
        const std::string w = dmap::testing::throws_with<dmap::out_of_bounds_error>([&] { A[i] = 1.0; }, name.str());
        if (!w.empty()) return w;
      }
    std::string w = dmap::testing::throws_with<dmap::out_of_bounds_error>(
        [&] { (void)static_cast<double>(A[idx<2>{12, 3}]); }, "outside the parent");
    if (w.empty()) w = dmap::testing::throws_with<dmap::out_of_bounds_error>([&] { B[777777] = 1.0; }, "777777");
    if (w.empty()) w = dmap::testing::throws_with<dmap::out_of_bounds_error>([&] { X[idx<2>{0, 0}] = 1.0; }, "(0, 0)");
    return w;
  }));
  // A remote sparse read of a small table sends nothing and reads twice: the owner's table
  // (whole, at most 256 entries), then the value.
  const auto remote = std::find_if(oracle.begin(), oracle.end(), [&](const idx<2>& i) { return S.locale_of(i) != dmap::here(); });
  dmap::reset_counters();
  const double got = remote != oracle.end() ? static_cast<double>(A[*remote]) : 0.0;
  const auto c = dmap::counters();
  DMAP_CHECK_ALL(remote == oracle.end() ||
                 (got == -value_of(*remote) && c.messages_sent == 0 && c.messages_received == 2 && c.collectives == 0));
}

TEST_CASE("vocabulary: the implicit value, one name for the three kinds", "[vocabulary]") {
  dmap::domain<1> D{dmap::block<1>{}, rect<1>{range(0, 10)}};
  const dmap::domain<1> parent{dmap::block<1>{}, rect<1>{range(0, 20)}};  // keeps its indices
  dmap::array<int, 1> X(D, 7);
  dmap::sparse_domain<1> S{parent, dmap::coo_layout<1>{}};
  dmap::sparse_array<int, 1> A(S, 7);
  dmap::associative_domain<i64> K;
  dmap::associative_array<int, i64> B(K, 7);
  DMAP_CHECK_ALL(X.implicit_value() == 7 && A.implicit_value() == 7 && B.implicit_value() == 7);
  // What indices added later start with: dense (set_indices), sparse (add), associative (add).
  D.set_indices(rect<1>{range(0, 12)});
  S.add({idx<1>{3}, idx<1>{11}});
  K.add({1, 2});
  DMAP_CHECK_ALL(X[idx<1>{11}] == 7 && A[idx<1>{11}] == 7 && A[idx<1>{4}] == 7 && B[2] == 7);
  // set_implicit_value (collective): later additions take the new value; stored ones keep theirs.
  X.set_implicit_value(-3);
  A.set_implicit_value(-3);
  B.set_implicit_value(-3);
  D.set_indices(rect<1>{range(0, 14)});
  S.add({idx<1>{12}});
  K.add({3});
  DMAP_CHECK_ALL(X[idx<1>{11}] == 7 && X[idx<1>{13}] == -3 && A[idx<1>{3}] == 7 && A[idx<1>{12}] == -3 &&
                 A[idx<1>{5}] == -3 && B[1] == 7 && B[3] == -3);
  // The old names still answer, deprecated for one release.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  DMAP_CHECK_ALL(A.irv() == -3 && B.initial_value() == -3);
  A.set_irv(5);
#pragma GCC diagnostic pop
  DMAP_CHECK_ALL(A.implicit_value() == 5 && A[idx<1>{6}] == 5);
  // Copies take the implicit value along; assignment copies values only.
  dmap::array<int, 1> Y(X);
  dmap::sparse_array<int, 1> C(A);
  dmap::associative_array<int, i64> E(B);
  DMAP_CHECK_ALL(Y.implicit_value() == -3 && C.implicit_value() == 5 && E.implicit_value() == -3);
  dmap::array<int, 1> Z(D, 100);
  dmap::sparse_array<int, 1> F(S, 100);
  dmap::associative_array<int, i64> G(K, 100);
  Z = X;
  F = A;
  G = B;
  DMAP_CHECK_ALL(Z.implicit_value() == 100 && F.implicit_value() == 100 && G.implicit_value() == 100 &&
                 Z[idx<1>{13}] == -3 && F[idx<1>{12}] == -3 && F[idx<1>{6}] == 100 && G[3] == -3);
}

TEST_CASE("vocabulary: assignment, swap, move and copy behave alike for the three kinds", "[vocabulary]") {
  const rect<2> space{{0, 10}, {0, 10}};
  const std::set<idx<2>> oracle = sparse_set(space, 11);
  const std::set<i64> keys = key_set(13, 150);
  const int p = dmap::num_locales();

  // Sparse: the same set over two parents (Block / Cyclic) and two layouts.
  const dmap::domain<2> P1{dmap::block<2>{}, space};
  const dmap::domain<2> P2{dmap::cyclic<2>{}, space};
  dmap::sparse_domain<2> S1{P1, dmap::csr_layout<2>{}};
  dmap::sparse_domain<2> S2{P2, dmap::csc_layout<2>{}};
  S1.add(share(oracle));
  S2.add(share(oracle));
  dmap::sparse_array<double, 2> A1(S1, -1.0), A2(S2, -2.0);
  dmap::forall(dmap::zip(A2, S2), [](double& a, const idx<2>& i) { a = value_of(i); });
  // By index: each value travels to its owner under S1, at most one message per peer.
  dmap::reset_counters();
  A1 = A2;
  const auto c = dmap::counters();
  std::set<int> peers;
  for (const auto& i : S2.local_indices())
    if (S1.locale_of(i) != dmap::here()) peers.insert(S1.locale_of(i));
  DMAP_CHECK_ALL(c.messages_sent == peers.size());
  bool right = true;
  for (const auto& i : S1.local_indices()) right = right && A1.local(i) == value_of(i);
  DMAP_CHECK_ALL(right && A1.implicit_value() == -1.0);
  // Different sets: shape_error on every locale, the target unchanged.
  dmap::sparse_domain<2> S3{P2, dmap::coo_layout<2>{}};
  S3.add(share(oracle));
  const auto points = dmap::testing::oracle::points_of(space);
  const idx<2> absent = *std::find_if(points.begin(), points.end(), [&](const idx<2>& i) { return oracle.count(i) == 0; });
  S3.remove({*oracle.begin()});
  S3.add({absent});
  dmap::sparse_array<double, 2> A3(S3, 0.0);
  std::ostringstream absent_text;
  absent_text << absent;
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::shape_error>([&] { A1 = A3; }, absent_text.str()));
  right = true;
  for (const auto& i : S1.local_indices()) right = right && A1.local(i) == value_of(i);
  DMAP_CHECK_ALL(right);

  // Associative: the same keys under two mappers.
  const auto by_sign = [](i64 k, int locales) { return k < 0 ? 0 : locales - 1; };
  dmap::associative_domain<i64> K1;
  dmap::associative_domain<i64, dmap::key_hash<i64>, decltype(by_sign)> K2({}, by_sign);
  K1.add(share(keys));
  K2.add(share(keys));
  dmap::associative_array<double, i64> B1(K1, 0.0);
  dmap::associative_array<double, i64, dmap::key_hash<i64>, decltype(by_sign)> B2(K2, 0.0);
  dmap::forall(dmap::zip(B2, K2), [](double& b, const i64& k) { b = value_of_key(k); });
  B1 = B2;
  right = true;
  for (i64 k : K1.local_keys()) right = right && B1.local(k) == value_of_key(k);
  DMAP_CHECK_ALL(right);
  B2 = B1;  // and back
  DMAP_CHECK_ALL(dmap::reduce(B2, 0.0) == dmap::reduce(B1, 0.0));
  K2.remove({*keys.begin()});
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::shape_error>([&] { B1 = B2; }, "keys"));

  // swap (member and free) rebinds without communication; move construction takes over;
  // move assignment copies into a live array and takes over into a moved-from one.
  const dmap::domain<2> Q{dmap::block<2>{}, rect<2>{{0, 3}, {0, 3}}};
  dmap::array<double, 2> X(P1, 1.0), Y(Q, 2.0);
  dmap::sparse_array<double, 2> U(S1, 1.0), V(S2, 2.0);
  dmap::associative_array<double, i64> M(K1, 1.0), N(K1, 2.0);
  dmap::forall(U, [](double& u) { u = 1.0; });
  dmap::forall(V, [](double& v) { v = 2.0; });
  dmap::forall(M, [](double& m) { m = 1.0; });
  dmap::forall(N, [](double& m) { m = 2.0; });
  dmap::reset_counters();
  X.swap(Y);
  swap(X, Y);
  U.swap(V);
  swap(M, N);
  const auto after_swaps = dmap::counters();
  DMAP_CHECK_ALL(after_swaps.messages_sent == 0 && after_swaps.collectives == 0);
  DMAP_CHECK_ALL(X.domain() == P1 && U.domain() == S2 && V.domain() == S1 && U.implicit_value() == 2.0 &&
                 dmap::reduce(U, 0.0) == 2.0 * static_cast<double>(oracle.size()) &&
                 dmap::reduce(M, 0.0) == 2.0 * static_cast<double>(K1.size()));
  dmap::sparse_array<double, 2> W(std::move(U));
  dmap::associative_array<double, i64> O(std::move(M));
  dmap::array<double, 2> Z(std::move(X));
  DMAP_CHECK_ALL(W.domain() == S2 && O.domain() == K1 && Z.domain() == P1);
  CHECK_NO_FAILURE(dmap::testing::throws_with<dmap::argument_error>([&] { (void)U.local_values(); }, "moved from"));
  U = std::move(W);  // a moved-from array takes over
  M = std::move(O);
  X = std::move(Z);
  DMAP_CHECK_ALL(U.domain() == S2 && M.domain() == K1 && X.domain() == P1);
  V = std::move(U);  // a live array copies (by index here: S1 and S2 hold the same set)
  DMAP_CHECK_ALL(V.domain() == S1 && dmap::reduce(V, 0.0) == 2.0 * static_cast<double>(oracle.size()));
  (void)p;
}

TEST_CASE("vocabulary: printing is not collective and lists the set in order", "[vocabulary]") {
  const rect<2> space{{0, 6}, {0, 5}};
  const std::set<idx<2>> oracle = sparse_set(space, 17);
  const dmap::domain<2> D{dmap::cyclic<2>{}, space};
  dmap::sparse_domain<2> S{D, dmap::csc_layout<2>{}};
  S.add(share(oracle));
  dmap::sparse_array<int, 2> A(S);
  dmap::forall(dmap::zip(A, S), [](int& a, const idx<2>& i) { a = static_cast<int>(i[0] * 10 + i[1]); });
  std::ostringstream want_domain, want_array;
  want_domain << '{';
  bool first = true;
  for (const auto& i : oracle) {
    want_domain << (first ? "" : ", ") << i;
    want_array << (first ? "" : " ") << i[0] * 10 + i[1];
    first = false;
  }
  want_domain << '}';
  const std::set<i64> keys = key_set(19, 40);
  dmap::associative_domain<i64> K;
  K.add(share(keys));
  dmap::associative_array<i64, i64> B(K);
  dmap::forall(dmap::zip(B, K), [](i64& b, const i64& k) { b = k; });
  CHECK_NO_FAILURE(one_locale_at_a_time([&]() -> std::string {
    std::ostringstream d, a, k, b;
    d << S;
    a << A;
    k << K;
    b << B;
    if (d.str() != want_domain.str()) return "sparse domain printed as " + d.str();
    if (a.str() != want_array.str()) return "sparse array printed as " + a.str();
    // Keys print in locale and slot order: as a set, they are the oracle; the array's values
    // (each key's own value) come in the same order.
    std::string ks = k.str();
    if (ks.size() < 2 || ks.front() != '{' || ks.back() != '}') return "associative domain printed as " + ks;
    std::replace(ks.begin(), ks.end(), ',', ' ');
    std::istringstream kin(ks.substr(1, ks.size() - 2)), bin(b.str());
    std::set<i64> printed;
    i64 key = 0, value = 0;
    while (kin >> key) {
      if (!(bin >> value) || value != key) return "associative array values not in the keys' order";
      printed.insert(key);
    }
    if (printed != keys) return "associative domain printed other keys: " + k.str();
    return "";
  }));
}

}  // namespace test_vocabulary
