// The sharp edges of the public API, each checked from a user's side at every rank count:
// write-back of staged operands follows what the body can write (explicit parameter types,
// dmap::in / dmap::inout), assignment always copies values (moves included; swap rebinds),
// reduce sums by default, and indices, bounds and counts take any integral type.
#include "../oracle.hpp"
#include "../support.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>

namespace test_api_edges {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::testing::throws_as;
using namespace dmap::testing::oracle;

/// Two maps of one n x n index set that share nothing but the diagonal blocks: every
/// locale's rows meet every other locale's columns.
struct rows_and_columns {
  int p = dmap::num_locales();
  index_t n = 6 * p;
  rect<2> r{range(0, n), range(0, n)};
  dmap::domain<2> rows{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, r};
  dmap::domain<2> cols{dmap::block<2>{dmap::target_grid<2>{{1, p}}}, r};
  /// Messages a staged zip of rows x columns sends per locale, one way.
  std::uint64_t one_way() const { return static_cast<std::uint64_t>(p - 1); }
};

/// Collective: the messages this locale sent while `f` ran (a loop over warm plans).
template <class F>
std::uint64_t messages_sent_by(F&& f) {
  f();  // builds the staging plans
  dmap::reset_counters();
  f();
  return dmap::counters().messages_sent;
}

}  // namespace

TEST_CASE("intents: a staged follower is copied back only when the body can write it", "[api][intents]") {
  rows_and_columns m;
  dmap::array<double, 2> A(m.rows), B(m.cols, 1.0);
  const auto gather = m.one_way(), both = 2 * m.one_way();
  // Explicit parameter types say it: const&, by value -> gathered only; & -> copied back.
  DMAP_CHECK_ALL(messages_sent_by([&] { dmap::forall(dmap::zip(A, B), [](double& a, const double& b) { a = b; }); }) ==
                 gather);
  DMAP_CHECK_ALL(messages_sent_by([&] { dmap::forall(dmap::zip(A, B), [](double& a, double b) { a = b; }); }) == gather);
  DMAP_CHECK_ALL(messages_sent_by([&] { dmap::forall(dmap::zip(A, B), [](double& a, double& b) { a = b; }); }) == both);
  // A function pointer and a std::function are read the same way.
  void (*const fn)(double&, const double&) = [](double& a, const double& b) { a = b; };
  DMAP_CHECK_ALL(messages_sent_by([&] { dmap::forall(dmap::zip(A, B), fn); }) == gather);
  const std::function<void(double&, const double&)> sf = fn;
  DMAP_CHECK_ALL(messages_sent_by([&] { dmap::forall(dmap::zip(A, B), sf); }) == gather);
  // Generic bodies: written back unless marked in (or const).
  DMAP_CHECK_ALL(messages_sent_by([&] { dmap::forall(dmap::zip(A, B), [](auto& a, const auto& b) { a = b; }); }) ==
                 both);
  DMAP_CHECK_ALL(
      messages_sent_by([&] { dmap::forall(dmap::zip(A, dmap::in(B)), [](auto& a, const auto& b) { a = b; }); }) ==
      gather);
  DMAP_CHECK_ALL(
      messages_sent_by([&] { dmap::forall(dmap::zip(A, dmap::inout(B)), [](auto& a, auto& b) { b += a; }); }) == both);
  // Views follow the same rule.
  const rect<2> part{range(1, m.n), range(0, m.n - 1)};
  DMAP_CHECK_ALL(messages_sent_by([&] {
                   dmap::forall(dmap::zip(A[part], B[part]), [](double& a, const double& b) { a = b; });
                 }) == gather);
  // What is written through a reference reaches the follower; nothing else changes it.
  dmap::array<double, 2> C(m.cols, 0.0);
  dmap::forall(dmap::zip(A, m.rows), [](double& a, const idx<2>& i) { a = fval(i); });
  dmap::forall(dmap::zip(A, C), [](const double& a, double& c) { c = a + 1; });
  std::string fail;
  for (const auto& s : m.cols.local_subdomains())
    for (const auto& i : points_of(s))
      if (C.local(i) != fval(i) + 1) fail = "C at " + text(i);
  CHECK_NO_FAILURE(fail);
  dmap::forall(dmap::zip(A, C), [](double& a, const double& c) { a = -c; });  // C only read
  for (const auto& s : m.cols.local_subdomains())
    for (const auto& i : points_of(s))
      if (C.local(i) != fval(i) + 1) fail = "C changed at " + text(i);
  CHECK_NO_FAILURE(fail);
}

TEST_CASE("assignment: A = std::move(B) copies values and keeps A's domain; swap exchanges domains",
          "[api][assignment]") {
  const rect<2> r{range(0, 7), range(-3, 5)};
  dmap::domain<2> DA{dmap::block<2>{}, r}, DB{dmap::cyclic<2>{}, r};
  dmap::array<double, 2> A(DA, 1.0), B(DB);
  dmap::forall(dmap::zip(B, DB), [](double& b, const idx<2>& i) { b = fval(i); });
  A = std::move(B);
  DMAP_CHECK_ALL(A.domain() == DA);
  DMAP_CHECK_ALL(B.domain() == DB);  // a live right-hand side stays as it was
  std::string fail;
  for (const auto& s : DA.local_subdomains())
    for (const auto& i : points_of(s))
      if (A.local(i) != fval(i)) fail = "A at " + text(i);
  for (const auto& s : DB.local_subdomains())
    for (const auto& i : points_of(s))
      if (B.local(i) != fval(i)) fail = "B at " + text(i);
  CHECK_NO_FAILURE(fail);
  // Shapes must still match.
  dmap::domain<2> DC{dmap::block<2>{}, rect<2>{range(0, 8), range(0, 7)}};
  dmap::array<double, 2> C(DC);
  DMAP_CHECK_ALL(throws_as<dmap::shape_error>([&] { A = std::move(C); }).first);

  // swap exchanges domains and elements without messages; std::swap and ADL swap alike.
  dmap::reset_counters();
  swap(A, B);
  const bool swapped = A.domain() == DB && B.domain() == DA;
  std::swap(A, B);
  const bool back = A.domain() == DA && B.domain() == DB;
  const auto c = dmap::counters();
  DMAP_CHECK_ALL(swapped && back);
  DMAP_CHECK_ALL(c.messages_sent == 0 && c.messages_received == 0 && c.collectives == 0);

  // A moved-from array takes over what is moved into it, and refuses everything else.
  dmap::array<double, 2> D(std::move(A));
  DMAP_CHECK_ALL(D.domain() == DA);
  const auto [refused, msg] = throws_as<dmap::argument_error>([&] { B = A; });
  INFO(msg);
  DMAP_CHECK_ALL(refused && has(msg, "moved from"));
  A = std::move(D);
  DMAP_CHECK_ALL(A.domain() == DA);
  DMAP_CHECK_ALL(dmap::reduce(A, 0.0) == dmap::reduce(B, 0.0));
}

TEST_CASE("reduce: without an operation it sums", "[api][reduce]") {
  dmap::domain<1> D{dmap::block<1>{}, rect<1>{range(1, 101)}};
  dmap::array<std::int64_t, 1> A(D);
  dmap::forall(dmap::zip(A, D), [](std::int64_t& a, const idx<1>& i) { a = i[0]; });
  DMAP_CHECK_ALL(dmap::reduce(A, std::int64_t{0}) == 5050);
  DMAP_CHECK_ALL(dmap::reduce(A, std::int64_t{0}) == dmap::reduce(A, std::int64_t{0}, std::plus<>{}));
  DMAP_CHECK_ALL(dmap::reduce(A[rect<1>{range(1, 11)}], std::int64_t{0}) == 55);
}

TEST_CASE("indices, bounds and counts of any integral type", "[api][indices]") {
  const std::size_t rows = 5;
  const unsigned columns = 4;
  const short first = -2;
  const rect<2> r{{first, rows}, {0u, columns}};
  DMAP_CHECK_ALL(r == (rect<2>{range(-2, 5), range(0, 4)}));
  DMAP_CHECK_ALL((range{std::uint8_t{1}, std::int16_t{9}, 2L} == range(1, 9, 2)));
  DMAP_CHECK_ALL((range{0ULL, 10ULL, 3, 1u} == range(0, 10, 3, 1)));
  dmap::domain<2> D{dmap::block<2>{}, r};
  dmap::array<double, 2> A(D);
  dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = fval(i); });
  const std::size_t i = 3;
  const std::uint32_t j = 2;
  DMAP_CHECK_ALL(static_cast<double>(A[{i, j}]) == fval(idx<2>{3, 2}));
  DMAP_CHECK_ALL((idx<2>{i, j} == idx<2>{3, 2}));
  DMAP_CHECK_ALL(D.contains({std::int8_t{-2}, 3ULL}));
  // A 1-D index converts from a plain integer.
  dmap::domain<1> L{dmap::cyclic<1>{}, rect<1>{range(0, 9)}};
  dmap::array<int, 1> V(L);
  dmap::forall(dmap::zip(V, L), [](int& v, const idx<1>& k) { v = static_cast<int>(10 * k[0]); });
  DMAP_CHECK_ALL(static_cast<int>(V[5]) == 50 && static_cast<int>(V[std::size_t{7}]) == 70);
  DMAP_CHECK_ALL(L.locale_of(4u) == L.locale_of(idx<1>{4}));
  // Unsigned values that do not fit an int64 index are refused, naming the value.
  const auto huge = std::numeric_limits<std::uint64_t>::max();
  const auto [refused, msg] = throws_as<dmap::argument_error>([&] { (void)range(0, huge); });
  INFO(msg);
  DMAP_CHECK_ALL(refused && has(msg, std::to_string(huge)));
  DMAP_CHECK_ALL(throws_as<dmap::argument_error>([&] { (void)idx<2>{huge, 0}; }).first);
  DMAP_CHECK_ALL(throws_as<dmap::argument_error>([&] { (void)A[{std::uint64_t{1} << 63, 0}]; }).first);
}

}  // namespace test_api_edges
