// dmap::forall over domains, arrays and zips, and array assignment between distributions,
// against a serial oracle.
//
// The oracle of a rect is the row-major list of its indices, built by nested loops over each
// dimension's sequence, which is found by scanning every integer of [lo, hi) for
// (i - alignment) mod |stride| == 0; element values are formulas of the index. Distributed
// results come back through gather() (rank 0 compares) and every check is collective
// (DMAP_CHECK_ALL), so a failure on one locale fails all of them and names the locale.
//
// Random cases come from a std::mt19937_64 with a fixed seed, identical on every locale:
// 1-3 dimensions, extents 0..40 (empty, single, fewer indices than locales, uneven), strides
// 1, 2, 3, -1, -2 with loose or tight bounds, the default target grid or a random
// factorisation of the locale count, row-major or column-major storage.
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace test_forall {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

// ------------------------------------------------------------------------------- oracle

using namespace dmap::testing::oracle;  // tests/oracle.hpp

/// Random rects here: empty dimensions come in all three forms.
constexpr rect_spec shapes{40, 6000, 3};

/// Another value per index.
template <std::size_t N>
double gval(const idx<N>& i) {
  double v = -0.25;
  for (std::size_t d = 0; d < N; ++d) v += static_cast<double>((d + 2) * 3) * static_cast<double>(i[d]);
  return v;
}

/// Collective. "" when the gathered array equals expected(k) at every row-major order k
/// (checked on locale 0), else the first difference.
template <class T, std::size_t N, class Expected>
std::string compare_gathered(const dmap::array<T, N>& a, index_t size, Expected expected) {
  const std::vector<T> all = a.gather();
  if (dmap::here() != 0) return {};
  if (static_cast<index_t>(all.size()) != size)
    return "gather() returned " + std::to_string(all.size()) + " elements, expected " +
           std::to_string(size);
  for (index_t k = 0; k < size; ++k) {
    const T want = expected(k);
    if (!(all[static_cast<std::size_t>(k)] == want))
      return "element at row-major order " + std::to_string(k) + " is " +
             text(all[static_cast<std::size_t>(k)]) + ", expected " + text(want);
  }
  return {};
}

// ------------------------------------------------------------------------------- errors

/// Runs `f` and reports what it threw: "" for nothing, else "<kind>: what()".
template <class F>
std::string thrown_by(F&& f) {
  try {
    f();
  } catch (const dmap::shape_error& e) {
    return std::string("shape_error: ") + e.what();
  } catch (const dmap::unsupported_error& e) {
    return std::string("unsupported_error: ") + e.what();
  } catch (const dmap::argument_error& e) {
    return std::string("argument_error: ") + e.what();
  } catch (const dmap::error& e) {
    return std::string("dmap::error: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("std::exception: ") + e.what();
  }
  return {};
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// ------------------------------------------------------------------------------- cases

template <std::size_t N>
void visit_case(gen& g, int c) {
  const rect<N> r = random_rect<N>(g, shapes);
  const dmap::block<N> dist = random_block<N>(g);
  INFO("case " << c << ": " << N << "-D " << r << " over " << describe(dist));
  const auto oracle = points_of(r);
  dmap::domain<N> D{dist, r};
  dmap::array<int, N> visits{D};
  dmap::array<double, N> values{D, -1.0};
  std::atomic<long> off_owner{0};
  dmap::forall(D, [&](idx<N> i) {
    visits.local(i) += 1;
    if (D.locale_of(i) != dmap::here()) ++off_owner;
  });
  dmap::forall(D, [&](idx<N> i) { values.local(i) = fval(i); });
  const auto size = static_cast<index_t>(oracle.size());
  const std::string v = compare_gathered(visits, size, [](index_t) { return 1; });
  const std::string w = compare_gathered(values, size, [&](index_t k) { return fval(oracle[static_cast<std::size_t>(k)]); });
  {
    INFO("visit counts: " << v);
    DMAP_CHECK_ALL(v.empty());
  }
  {
    INFO("values: " << w);
    DMAP_CHECK_ALL(w.empty());
  }
  INFO("indices visited off their owner here: " << off_owner.load());
  DMAP_CHECK_ALL(off_owner.load() == 0);
  // The locales' visits add up to the number of indices.
  DMAP_CHECK_ALL(dmap::all_reduce_sum(D.local_size()) == size);
}

template <std::size_t N>
void array_case(gen& g, int c) {
  const rect<N> r = random_rect<N>(g, shapes);
  const dmap::block<N> dist = random_block<N>(g);
  INFO("case " << c << ": " << N << "-D " << r << " over " << describe(dist));
  const auto oracle = points_of(r);
  const auto size = static_cast<index_t>(oracle.size());
  dmap::domain<N> D{dist, r};
  dmap::array<double, N> A{D, -7.0};
  dmap::array<int, N> I{D};
  dmap::forall(A, [](double& a) { a = 3.25; });
  dmap::forall(I, [](int& x) { x = 11; });
  std::string w = compare_gathered(A, size, [](index_t) { return 3.25; });
  if (w.empty()) w = compare_gathered(I, size, [](index_t) { return 11; });
  {
    INFO("forall(A): " << w);
    DMAP_CHECK_ALL(w.empty());
  }
  // zip(A, D) and zip(D, I): each element meets its own index.
  dmap::forall(dmap::zip(A, D), [](double& a, idx<N> i) { a += fval(i); });
  dmap::forall(dmap::zip(D, I), [](idx<N> i, int& x) { x = ival(i) - x; });
  w = compare_gathered(A, size, [&](index_t k) { return 3.25 + fval(oracle[static_cast<std::size_t>(k)]); });
  if (w.empty())
    w = compare_gathered(I, size, [&](index_t k) { return ival(oracle[static_cast<std::size_t>(k)]) - 11; });
  INFO("zip(A, D) / zip(D, I): " << w);
  DMAP_CHECK_ALL(w.empty());
}

template <std::size_t N>
void aligned_zip_case(gen& g, int c) {
  const rect<N> r = random_rect<N>(g, shapes);
  const dmap::block<N> dist = random_block<N>(g);
  // The same grid with the other storage order: another map, the same pieces.
  const dmap::block<N> flipped{dist.targets(), dist.order() == dmap::storage_order::row_major
                                                   ? dmap::storage_order::column_major
                                                   : dmap::storage_order::row_major};
  INFO("case " << c << ": " << N << "-D " << r << " over " << describe(dist));
  const auto oracle = points_of(r);
  const auto size = static_cast<index_t>(oracle.size());
  const auto at = [&](index_t k) { return oracle[static_cast<std::size_t>(k)]; };
  dmap::domain<N> D{dist, r};
  dmap::domain<N> D2{dist, r};     // another domain object, same map and indices
  dmap::domain<N> D3{flipped, r};  // other storage order
  dmap::array<double, N> A{D}, B{D, -1.0}, B2{D2, -1.0}, B3{D3, -1.0};
  dmap::forall(dmap::zip(A, D), [](double& a, idx<N> i) { a = fval(i); });

  std::atomic<long> wrong{0};
  // Same domain.
  dmap::forall(dmap::zip(B, std::as_const(A), D), [&](double& b, const double& a, idx<N> i) {
    if (a != fval(i)) ++wrong;
    b = 2 * a + gval(i);
  });
  // Leader over another domain object; the domain operand is a third object.
  dmap::forall(dmap::zip(B2, std::as_const(A), D2), [&](double& b, const double& a, idx<N> i) {
    if (a != fval(i)) ++wrong;
    b = a - gval(i);
  });
  // Column-major (or row-major) leader with followers in the other order.
  dmap::forall(dmap::zip(B3, std::as_const(A), D), [&](double& b, const double& a, idx<N> i) {
    if (a != fval(i)) ++wrong;
    b = a * 0.5 + 1;
  });
  std::string w = compare_gathered(B, size, [&](index_t k) { return 2 * fval(at(k)) + gval(at(k)); });
  if (w.empty()) w = compare_gathered(B2, size, [&](index_t k) { return fval(at(k)) - gval(at(k)); });
  if (w.empty()) w = compare_gathered(B3, size, [&](index_t k) { return fval(at(k)) * 0.5 + 1; });
  {
    INFO(w);
    DMAP_CHECK_ALL(w.empty());
  }
  // A domain leading, arrays of both storage orders following; writes into A and B3 at once.
  dmap::forall(dmap::zip(D3, A, B3), [&](idx<N> i, double& a, double& b) {
    if (a != fval(i)) ++wrong;
    a = -a;
    b = gval(i);
  });
  w = compare_gathered(A, size, [&](index_t k) { return -fval(at(k)); });
  if (w.empty()) w = compare_gathered(B3, size, [&](index_t k) { return gval(at(k)); });
  {
    INFO(w);
    DMAP_CHECK_ALL(w.empty());
  }
  INFO("operands that disagreed with the index here: " << wrong.load());
  DMAP_CHECK_ALL(wrong.load() == 0);
}

template <std::size_t N>
void follower_order_case(gen& g, int c) {
  const rect<N> r = random_rect<N>(g, shapes);
  const rect<N> e = shaped_rect<N>(g, r.shape(), shapes);  // same shape, other indices / strides
  const dmap::block<N> dist = random_block<N>(g), other = random_block<N>(g);
  INFO("case " << c << ": " << N << "-D " << r << " over " << describe(dist) << ", following domain "
               << e << " over " << describe(other));
  const auto oracle = points_of(r), eoracle = points_of(e);
  const auto size = static_cast<index_t>(oracle.size());
  dmap::domain<N> D{dist, r}, E{other, e};
  dmap::array<double, N> A{D, -1.0};
  dmap::array<int, N> I{D, -1};
  // A following domain yields the index of the same dense position: order k of E for the
  // element at order k of D.
  dmap::forall(dmap::zip(A, E), [](double& a, idx<N> j) { a = fval(j); });
  dmap::forall(dmap::zip(I, D, E), [](int& x, idx<N> i, idx<N> j) { x = ival(j) - ival(i); });
  std::string w = compare_gathered(A, size, [&](index_t k) { return fval(eoracle[static_cast<std::size_t>(k)]); });
  if (w.empty())
    w = compare_gathered(I, size, [&](index_t k) {
      return ival(eoracle[static_cast<std::size_t>(k)]) - ival(oracle[static_cast<std::size_t>(k)]);
    });
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
}

/// Whether the owner of every dense position is the same in both domains (then a zip of
/// arrays over them is aligned).
template <std::size_t N>
bool same_owners(const dmap::domain<N>& a, const std::vector<idx<N>>& ai, const dmap::domain<N>& b,
                 const std::vector<idx<N>>& bi) {
  for (std::size_t k = 0; k < ai.size(); ++k)
    if (a.locale_of(ai[k]) != b.locale_of(bi[k])) return false;
  return true;
}

/// Returns whether the pair was aligned.
template <std::size_t N>
bool zip_pair_case(gen& g, int c) {
  const rect<N> r1 = random_rect<N>(g, shapes);
  const rect<N> r2 = g.chance(1, 3) ? r1 : shaped_rect<N>(g, r1.shape(), shapes);
  const dmap::block<N> d1 = random_block<N>(g), d2 = random_block<N>(g);
  INFO("case " << c << ": leader B over " << r2 << " / " << describe(d2) << ", follower A over " << r1
               << " / " << describe(d1));
  const auto o1 = points_of(r1), o2 = points_of(r2);
  const auto size = static_cast<index_t>(o1.size());
  dmap::domain<N> D1{d1, r1}, D2{d2, r2};
  dmap::array<double, N> A{D1}, B{D2, -1.0};
  dmap::forall(dmap::zip(A, D1), [](double& a, idx<N> i) { a = fval(i); });
  const bool aligned = same_owners(D1, o1, D2, o2);
  INFO("oracle: " << (aligned ? "aligned" : "not aligned"));
  std::atomic<long> wrong{0};
  const std::string what = thrown_by([&] {
    dmap::forall(dmap::zip(B, std::as_const(A), D1), [&](double& b, const double& a, idx<N> i) {
      if (a != fval(i)) ++wrong;
      b = 2 * a;
    });
  });
  INFO("thrown: " << what);
  // Aligned or not (then the follower is staged), the k-th element of the leader pairs with
  // the k-th of the follower.
  DMAP_CHECK_ALL(what.empty());
  DMAP_CHECK_ALL(wrong.load() == 0);
  const std::string w = compare_gathered(B, size, [&](index_t k) { return 2 * fval(o1[static_cast<std::size_t>(k)]); });
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
  return aligned;
}

template <std::size_t N>
void large_case(const rect<N>& r, const dmap::block<N>& dist) {
  INFO(N << "-D " << r << " (" << r.size() << " indices) over " << describe(dist) << ", "
         << dmap::num_threads() << " thread(s) per locale");
  const auto oracle = points_of(r);
  const auto size = static_cast<index_t>(oracle.size());
  dmap::domain<N> D{dist, r};
  dmap::array<int, N> visits{D};
  dmap::array<double, N> A{D}, B{D, -1.0};
  std::atomic<long> off_owner{0};
  dmap::forall(D, [&](idx<N> i) {
    visits.local(i) += 1;
    if (D.locale_of(i) != dmap::here()) ++off_owner;
  });
  dmap::forall(dmap::zip(A, D), [](double& a, idx<N> i) { a = fval(i); });
  dmap::forall(dmap::zip(B, std::as_const(A), D), [](double& b, const double& a, idx<N> i) { b = a + gval(i); });
  std::string w = compare_gathered(visits, size, [](index_t) { return 1; });
  if (w.empty())
    w = compare_gathered(B, size, [&](index_t k) {
      const auto& i = oracle[static_cast<std::size_t>(k)];
      return fval(i) + gval(i);
    });
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
  DMAP_CHECK_ALL(off_owner.load() == 0);
}

}  // namespace

TEST_CASE("forall(D) visits every index exactly once, on its owner", "[forall]") {
  gen g(0xf0a11'0001ULL);
  random_dimension_cases(g, 90, [&](auto n, int c) { visit_case<n>(g, c); });
}

TEST_CASE("forall(A) writes every element; zip(A, D) hands each element its own index", "[forall]") {
  gen g(0xf0a11'0002ULL);
  random_dimension_cases(g, 60, [&](auto n, int c) { array_case<n>(g, c); });
}

TEST_CASE("forall over aligned zips: one domain, distinct domain objects, other storage order", "[forall]") {
  gen g(0xf0a11'0003ULL);
  random_dimension_cases(g, 60, [&](auto n, int c) { aligned_zip_case<n>(g, c); });
}

TEST_CASE("forall: a following domain of other indices yields the leader's row-major order", "[forall]") {
  gen g(0xf0a11'0004ULL);
  random_dimension_cases(g, 60, [&](auto n, int c) { follower_order_case<n>(g, c); });
}

TEST_CASE("zip of arrays over one shape: aligned pairs compute, others are staged and compute the same", "[forall]") {
  gen g(0xf0a11'0005ULL);
  int aligned = 0, cases = 80;
  random_dimension_cases(g, cases, [&](auto n, int c) { aligned += zip_pair_case<n>(g, c); });
  // The cases cover both outcomes (the same on every locale: the oracle is global).
  INFO(aligned << " of " << cases << " pairs aligned");
  CHECK(aligned > 0);
  CHECK((dmap::num_locales() == 1 ? aligned == cases : aligned < cases));
}

TEST_CASE("forall on domains large enough for several chunks per locale", "[forall]") {
  const int p = dmap::num_locales();
  large_case<1>(rect<1>{range::counted(5, 70001, -3)}, dmap::block<1>{});
  large_case<2>(rect<2>{range{0, 300}, range{-7, 223, 2}},
                dmap::block<2>{dmap::target_grid<2>{{1, p}}, dmap::storage_order::column_major});
  large_case<2>(rect<2>{range{-100, 150, -1}, range{0, 160}}, dmap::block<2>{dmap::target_grid<2>{{p, 1}}});
  large_case<3>(rect<3>{range{0, 40}, range{0, 40, -1}, range{1, 81, 2}},
                dmap::block<3>{dmap::target_grid<3>{}, dmap::storage_order::column_major});
}

TEST_CASE("zip of different shapes throws shape_error on every locale, naming both operands", "[forall]") {
  const rect<2> r56{range{0, 5}, range{0, 6}}, r65{range{0, 6}, range{0, 5}};
  dmap::domain<2> D56{dmap::block<2>{}, r56}, D65{dmap::block<2>{}, r65};
  dmap::array<double, 2> A{D56, 1.0}, B{D65, 2.0}, C{D56, 3.0};
  // Same number of elements, other shape.
  std::string what = thrown_by([&] { dmap::forall(dmap::zip(A, B), [](double& a, double& b) { a = b; }); });
  INFO(what);
  DMAP_CHECK_ALL(starts_with(what, "shape_error: "));
  DMAP_CHECK_ALL(has(what, text(r56)) && has(what, text(r65)) && has(what, "operand 1"));
  // The mismatch in the third operand, a domain.
  what = thrown_by([&] {
    dmap::forall(dmap::zip(A, std::as_const(C), D65), [](double& a, const double& c, idx<2>) { a = c; });
  });
  INFO(what);
  DMAP_CHECK_ALL(starts_with(what, "shape_error: ") && has(what, "operand 2"));
  DMAP_CHECK_ALL(has(what, text(r56)) && has(what, text(r65)));
  // In a reduction too.
  what = thrown_by([&] {
    (void)dmap::reduce(dmap::zip(B, A), 0.0, std::plus<>{}, [](double b, double a) { return a * b; });
  });
  INFO(what);
  DMAP_CHECK_ALL(starts_with(what, "shape_error: ") && has(what, text(r56)) && has(what, text(r65)));
  // 1-D of different sizes (one of them empty).
  dmap::domain<1> E{dmap::block<1>{}, rect<1>{range{0, 0}}}, F{dmap::block<1>{}, rect<1>{range{3, 10, 2}}};
  dmap::array<int, 1> X{E}, Y{F};
  what = thrown_by([&] { dmap::forall(dmap::zip(Y, X), [](int& y, int& x) { y = x; }); });
  INFO(what);
  DMAP_CHECK_ALL(starts_with(what, "shape_error: ") && has(what, text(F.indices())) && has(what, text(E.indices())));
  // Nothing was written.
  const std::string w = compare_gathered(A, 30, [](index_t) { return 1.0; });
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
}

TEST_CASE("zip over other target grids or shifted indices stages the follower and computes the same", "[forall]") {
  const int p = dmap::num_locales();
  const rect<2> r{range{0, 8}, range{0, 9}};
  const auto oracle = points_of(r);
  dmap::domain<2> Rows{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, r};
  dmap::domain<2> Cols{dmap::block<2>{dmap::target_grid<2>{{1, p}}}, r};
  dmap::array<double, 2> A{Rows, -1.0}, B{Cols};
  dmap::forall(dmap::zip(B, Cols), [](double& b, idx<2> i) { b = fval(i); });
  const std::string what = thrown_by([&] { dmap::forall(dmap::zip(A, std::as_const(B)), [](double& a, const double& b) { a = b; }); });
  INFO("grids " << p << "x1 vs 1x" << p << ": " << what);
  DMAP_CHECK_ALL(what.empty());
  {
    const std::string w = compare_gathered(A, r.size(), [&](index_t k) { return fval(oracle[static_cast<std::size_t>(k)]); });
    INFO(w);
    DMAP_CHECK_ALL(w.empty());
  }
  // The same in a reduction.
  double sum = 0;
  for (const auto& i : oracle) sum += fval(i) * fval(i);
  double got = 0;
  const std::string red = thrown_by([&] {
    got = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{}, [](double a, double b) { return a * b; });
  });
  INFO(red);
  DMAP_CHECK_ALL(red.empty() && std::abs(got - sum) <= 1e-9 * sum);

  // A shifted index set under a fixed bounding box moves indices across locales.
  const dmap::block<1> boxed{rect<1>{range{0, 40}}};
  dmap::domain<1> D{boxed, rect<1>{range{0, 40}}}, S{boxed, rect<1>{range{10, 50}}};
  dmap::array<int, 1> X{D, -1}, Y{S};
  dmap::forall(dmap::zip(Y, S), [](int& y, idx<1> i) { y = static_cast<int>(i[0]); });
  const std::string shifted = thrown_by([&] { dmap::forall(dmap::zip(X, std::as_const(Y)), [](int& x, const int& y) { x = y; }); });
  INFO("shifted under a bounding box: " << shifted);
  DMAP_CHECK_ALL(shifted.empty());
  {
    const std::string w = compare_gathered(X, 40, [](index_t k) { return static_cast<int>(k + 10); });
    INFO(w);
    DMAP_CHECK_ALL(w.empty());
  }

  // Without a bounding box, Block cuts a shifted unit-stride index set the same way in dense
  // coordinates: that zip is aligned at every locale count.
  dmap::domain<1> U{dmap::block<1>{}, rect<1>{range{0, 40}}}, V{dmap::block<1>{}, rect<1>{range{25, 65}}};
  dmap::array<int, 1> P{U, -1}, Q{V};
  dmap::forall(dmap::zip(Q, V), [](int& q, idx<1> i) { q = static_cast<int>(i[0]); });
  const std::string plain = thrown_by([&] { dmap::forall(dmap::zip(P, std::as_const(Q)), [](int& x, const int& y) { x = y; }); });
  INFO("shifted without a bounding box: " << plain);
  DMAP_CHECK_ALL(plain.empty());
  const std::string w = compare_gathered(P, 40, [](index_t k) { return static_cast<int>(k + 25); });
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
}

TEST_CASE("an exception thrown by the body on one locale reaches every locale", "[forall]") {
  const int p = dmap::num_locales();
  const rect<2> r{range{0, 40}, range{0, 40}};
  dmap::domain<2> D{dmap::block<2>{}, r};
  dmap::array<double, 2> A{D};
  // An index owned by the last locale.
  idx<2> bad{};
  for (const auto& i : points_of(r))
    if (D.locale_of(i) == p - 1) bad = i;
  const auto is_bad = [bad](const idx<2>& i) { return i[0] == bad[0] && i[1] == bad[1]; };

  // A dmap error keeps its family on every locale; elsewhere it is a remote_failure naming
  // the locale that raised it.
  bool caught = false, family_ok = false;
  std::string message;
  try {
    dmap::forall(dmap::zip(A, D), [&](double& a, idx<2> i) {
      if (is_bad(i)) throw dmap::argument_error("boom at " + text(i));
      a = 1;
    });
  } catch (const dmap::argument_error& e) {
    caught = true;
    message = e.what();
    const auto* remote = dynamic_cast<const dmap::remote_failure<dmap::argument_error>*>(&e);
    family_ok = dmap::here() == p - 1 ? remote == nullptr : remote != nullptr && remote->origin() == p - 1;
  }
  INFO("message: " << message);
  DMAP_CHECK_ALL(caught && family_ok);
  DMAP_CHECK_ALL(message == "boom at " + text(bad));

  // Any std::exception: its message reaches every locale.
  const std::string what = thrown_by([&] {
    dmap::forall(D, [&](idx<2> i) {
      if (is_bad(i)) throw std::out_of_range("plain std exception");
    });
  });
  INFO(what);
  DMAP_CHECK_ALL(has(what, "plain std exception"));

  // Every locale throws: all of them see the error of the lowest locale that owns indices.
  const std::string lowest = thrown_by([&] {
    dmap::forall(D, [&](idx<2>) { throw std::runtime_error("from locale " + std::to_string(dmap::here())); });
  });
  INFO(lowest);
  DMAP_CHECK_ALL(has(lowest, "from locale 0"));

  // A throw from one of several chunks, on a large domain, with every thread busy.
  dmap::domain<1> L{dmap::block<1>{}, rect<1>{range{0, 200000}}};
  const std::string big = thrown_by([&] {
    dmap::forall(L, [&](idx<1> i) {
      if (i[0] == 199999) throw dmap::argument_error("last index");
    });
  });
  INFO(big);
  DMAP_CHECK_ALL(starts_with(big, "argument_error: ") && has(big, "last index"));

  // The runtime is still usable afterwards.
  dmap::forall(dmap::zip(A, D), [](double& a, idx<2> i) { a = fval(i); });
  const auto oracle = points_of(r);
  const std::string w = compare_gathered(A, r.size(), [&](index_t k) { return fval(oracle[static_cast<std::size_t>(k)]); });
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
}

namespace {

template <std::size_t N>
void assignment_case(const rect<N>& r, const rect<N>& r_same, const dmap::block<N>& to_dist,
                     const dmap::block<N>& from_dist, int c) {
  INFO("case " << c << ": " << N << "-D A over " << r << " / " << describe(to_dist) << " = B over "
               << r_same << " / " << describe(from_dist));
  const int p = dmap::num_locales(), me = dmap::here();
  const auto oracle = points_of(r);
  const auto size = static_cast<index_t>(oracle.size());
  dmap::domain<N> DA{to_dist, r}, DB{from_dist, r_same};
  dmap::array<double, N> A{DA, -1.0}, B{DB};
  dmap::forall(dmap::zip(B, DB), [](double& b, idx<N> i) { b = fval(i); });

  // Oracle of the traffic: an element moves iff its owners differ; this locale sends to
  // each locale that owns in A some index it owns in B.
  std::uint64_t moved = 0, my_bytes = 0;
  std::vector<bool> peer(static_cast<std::size_t>(p), false);
  for (const auto& i : oracle) {
    const int from = DB.locale_of(i), to = DA.locale_of(i);
    if (from == to) continue;
    ++moved;
    if (from == me) {
      my_bytes += sizeof(double);
      peer[static_cast<std::size_t>(to)] = true;
    }
  }
  const auto my_messages = static_cast<std::uint64_t>(std::count(peer.begin(), peer.end(), true));

  dmap::barrier();
  dmap::reset_counters();
  A = B;
  const dmap::comm_counters used = dmap::counters();
  const std::string w = compare_gathered(A, size, [&](index_t k) { return fval(oracle[static_cast<std::size_t>(k)]); });
  {
    INFO(w);
    DMAP_CHECK_ALL(w.empty());
  }
  const std::uint64_t sent = dmap::all_reduce_sum(used.bytes_sent);
  const std::uint64_t received = dmap::all_reduce_sum(used.bytes_received);
  INFO("bytes sent over all locales " << sent << ", received " << received << ", elements that change owner "
                                      << moved << "; here: " << used.messages_sent << " message(s), "
                                      << used.bytes_sent << " bytes sent, oracle " << my_messages << " / "
                                      << my_bytes);
  DMAP_CHECK_ALL(sent == 8 * moved);
  DMAP_CHECK_ALL(received == sent);
  DMAP_CHECK_ALL(used.messages_sent <= static_cast<std::uint64_t>(p - 1));
  DMAP_CHECK_ALL(used.messages_sent == my_messages && used.bytes_sent == my_bytes);
  // B is untouched.
  const std::string wb = compare_gathered(B, size, [&](index_t k) { return fval(oracle[static_cast<std::size_t>(k)]); });
  INFO(wb);
  DMAP_CHECK_ALL(wb.empty());
}

/// The same indices with other (still valid) bounds: hi moved within one stride.
template <std::size_t N>
rect<N> loosened(gen& g, const rect<N>& r) {
  rect<N> out = r;
  for (std::size_t d = 0; d < N; ++d) {
    const range& x = r.dim(d);
    if (x.empty()) continue;
    const index_t as = x.stride() < 0 ? -x.stride() : x.stride();
    const range t = x.normalized();
    out.set_dim(d, range(t.lo() - g.uniform(0, as - 1), t.hi() + g.uniform(0, as - 1), x.stride(), x.alignment()));
  }
  return out;
}

template <std::size_t N>
void random_assignment_case(gen& g, int c) {
  const rect<N> r = random_rect<N>(g, shapes);
  const dmap::block<N> a = random_block<N>(g), b = random_block<N>(g);
  assignment_case<N>(r, g.chance(1, 2) ? r : loosened<N>(g, r), a, b, c);
}

}  // namespace

TEST_CASE("array assignment between distributions copies every element and sends only what moves", "[forall]") {
  const int p = dmap::num_locales();
  const auto row = dmap::storage_order::row_major, col = dmap::storage_order::column_major;
  const rect<2> r{range{-3, 30}, range{0, 41, 2}};
  assignment_case<2>(r, r, dmap::block<2>{dmap::target_grid<2>{{p, 1}}, row},
                     dmap::block<2>{dmap::target_grid<2>{{1, p}}, row}, -1);
  assignment_case<2>(r, r, dmap::block<2>{dmap::target_grid<2>{{p, 1}}, row},
                     dmap::block<2>{dmap::target_grid<2>{{p, 1}}, col}, -2);
  assignment_case<2>(r, r, dmap::block<2>{dmap::target_grid<2>{{1, p}}, col},
                     dmap::block<2>{dmap::target_grid<2>{{p, 1}}, col}, -3);
  gen g(0xf0a11'0006ULL);
  random_dimension_cases(g, 60, [&](auto n, int c) { random_assignment_case<n>(g, c); });
}

TEST_CASE("array assignment between different index sets of one shape pairs the k-th indices; other shapes throw shape_error", "[forall]") {
  dmap::domain<1> X{dmap::block<1>{}, rect<1>{range{0, 10}}}, Y{dmap::block<1>{}, rect<1>{range{1, 11}}},
      Z{dmap::block<1>{}, rect<1>{range{0, 11}}};
  dmap::array<int, 1> AX{X}, AY{Y}, AZ{Z};
  dmap::forall(dmap::zip(AY, Y), [](int& y, idx<1> i) { y = static_cast<int>(i[0]); });
  const std::string shifted = thrown_by([&] { AX = AY; });
  const std::string longer = thrown_by([&] { AX = AZ; });
  INFO(shifted);
  INFO(longer);
  DMAP_CHECK_ALL(shifted.empty());
  const std::string w = compare_gathered(AX, 10, [](index_t k) { return static_cast<int>(k + 1); });
  INFO(w);
  DMAP_CHECK_ALL(w.empty());
  // Refused on every locale, with both index sets named.
  DMAP_CHECK_ALL(starts_with(longer, "shape_error: ") && has(longer, "{0..<11}") && has(longer, "{0..<10}"));
}

}  // namespace test_forall
