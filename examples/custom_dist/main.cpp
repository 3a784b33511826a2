// A distribution written outside dmap (weighted_block.hpp) used with everything in dmap:
// rows shared by weights 1, 2, ..., P; forall, zip, reduce, assignment to and from Block
// (redistribution), array views (rank change, strided slices), resize, serial views and
// printing. Exits non-zero if any check fails, so ctest catches regressions. Run it as one locale (./custom_dist) or under mpirun -n P.
#include "weighted_block.hpp"

#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using custom_dist::weighted_block;
using dmap::idx;
using dmap::index_t;

static_assert(dmap::distribution<weighted_block<2>, 2>, "weighted_block must satisfy the DSI concept");

int failures = 0;  // checks failed on this locale

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  std::cerr << "locale " << dmap::here() << ": check failed: " << what << "\n";
}

// Runs `make` (not collective) and checks it throws dmap::argument_error mentioning `word`.
template <class F>
void expect_argument_error(F&& make, const std::string& word, const std::string& what) {
  try {
    make();
    check(false, what + ": no exception");
  } catch (const dmap::argument_error& e) {
    check(std::string(e.what()).find(word) != std::string::npos, what + ": message '" + e.what() + "'");
  }
}

// The rows each locale owns, from the domain alone (no messages).
std::vector<index_t> row_counts(const dmap::domain<2>& D) {
  std::vector<index_t> rows;
  for (int q = 0; q < dmap::num_locales(); ++q) {
    index_t r = 0;
    for (const auto& piece : D.local_subdomains(q)) r += piece.dim(0).size();
    rows.push_back(r);
  }
  return rows;
}

// Locale 0 prints the rows per locale; every locale checks they follow the weights.
void show_and_check_rows(const dmap::domain<2>& D, const std::vector<double>& weights) {
  const auto rows = row_counts(D);
  double total = 0;
  for (double w : weights) total += w;
  index_t sum = 0;
  std::ostringstream line;
  for (std::size_t q = 0; q < rows.size(); ++q) {
    sum += rows[q];
    line << (q ? ", " : "") << rows[q];
    const double share = static_cast<double>(D.dim(0).size()) * weights[q] / total;
    check(std::abs(static_cast<double>(rows[q]) - share) < 1.0,
          "locale " + std::to_string(q) + " owns " + std::to_string(rows[q]) + " rows, its share is " +
              std::to_string(share));
  }
  check(sum == D.dim(0).size(), "the row counts add up to the rows of " + std::to_string(D.dim(0).size()));
  if (dmap::here() == 0) std::cout << "rows per locale over " << D.indices() << ": " << line.str() << "\n";
  // Every index's locale_of agrees with what that locale's subdomains hold.
  for (const idx<2> i : dmap::view(D)) {
    const auto owned = D.local_subdomains(D.locale_of(i));
    check(owned.size() == 1 && owned.front().contains(i), "locale_of and local_subdomains disagree");
  }
}

int run() {
  const int p = dmap::num_locales();

  // Validation: wrong count or a non-positive weight is an argument_error naming the rule.
  expect_argument_error([&] { (void)weighted_block<2>(std::vector<double>(static_cast<std::size_t>(p + 1), 1.0)); },
                        "exactly one per locale", "too many weights");
  expect_argument_error([&] {
    std::vector<double> w(static_cast<std::size_t>(p), 1.0);
    w.back() = 0.0;
    (void)weighted_block<2>(w);
  }, "positive", "a zero weight");

  // A 2-D domain whose rows are shared 1 : 2 : ... : P.
  const auto dist = weighted_block<2>::increasing();
  const index_t n = 60, m = 10;
  const dmap::rect<2> space{{0, n}, {0, m}};
  dmap::domain D{dist, space};
  if (dmap::here() == 0) std::cout << "locales " << p << ", domain " << space << " over " << D.name() << "\n";
  show_and_check_rows(D, dist.weights());

  // forall writes f(i), a zip doubles it, reductions match the closed forms.
  const auto f = [m](const idx<2>& i) { return static_cast<double>(i[0] * m + i[1]); };
  dmap::array<double, 2> A{D}, C{D};
  dmap::forall(D, [&](idx<2> i) { A.local(i) = f(i); });
  dmap::forall(dmap::zip(C, std::as_const(A)), [](double& c, const double& a) { c = 2 * a; });
  const double K = static_cast<double>(n * m);
  const double sum = dmap::reduce(A, 0.0, std::plus<>{});
  const double dot = dmap::reduce(dmap::zip(A, C), 0.0, std::plus<>{}, [](double a, double c) { return a * c; });
  check(sum == K * (K - 1) / 2, "sum(A) = " + std::to_string(sum));
  check(dot == (K - 1) * K * (2 * K - 1) / 3, "A.C = " + std::to_string(dot));
  if (dmap::here() == 0)
    std::cout << std::setprecision(12) << "sum(A) = " << sum << " (closed form K(K-1)/2 = " << K * (K - 1) / 2
              << "), A.C = " << dot << " (closed form (K-1)K(2K-1)/3 = " << (K - 1) * K * (2 * K - 1) / 3
              << "), K = " << K << "\n";

  // Redistribution: B = A into a Block array over the same indices, change B, A = B back.
  dmap::domain DB{dmap::block<2>{}, space};
  dmap::array<double, 2> B{DB};
  B = A;
  const auto mismatches = [](auto expected) {  // a reduce transform: 1 per wrong element
    return [expected](double v, idx<2> i) { return v == expected(i) ? 0 : 1; };
  };
  check(dmap::reduce(dmap::zip(B, DB), 0, std::plus<>{}, mismatches(f)) == 0, "B = A copied every element");
  const auto g = [f](const idx<2>& i) { return -f(i); };
  dmap::forall(dmap::zip(B, DB), [&](double& b, idx<2> i) { b = g(i); });
  A = B;
  check(dmap::reduce(dmap::zip(A, D), 0, std::plus<>{}, mismatches(g)) == 0, "A = B copied every element");
  if (dmap::here() == 0) std::cout << "B = A into " << DB.name() << " and A = B back: ok\n";

  // Zips across different cuts work too: where the cuts differ (more than one locale), the
  // follower B is staged onto the leader's rows, one message per pair of locales that share rows, and
  // the plan is kept for the next such loop.
  bool same_cut = true;
  for (int q = 0; q < p; ++q) same_cut = same_cut && D.local_subdomains(q) == DB.local_subdomains(q);
  const auto plans_before = dmap::plan_statistics();
  dmap::array<double, 2> Z{D};
  dmap::forall(dmap::zip(Z, std::as_const(B)), [](double& z, const double& b) { z = -b; });
  check(dmap::reduce(dmap::zip(Z, D), 0, std::plus<>{}, mismatches(f)) == 0, "zip(Z, B) across different cuts");
  const bool staged = dmap::plan_statistics().built > plans_before.built;
  check(staged == !same_cut, "zip(Z, B) stages B exactly when the cuts differ");
  dmap::domain DU{weighted_block<2>::uniform(), space};
  dmap::domain DBU{dmap::block<2>{dmap::target_grid<2>{{p, 1}}}, space};
  dmap::array<double, 2> U{DU}, V{DBU, 1.0};
  dmap::forall(dmap::zip(U, std::as_const(V)), [](double& u, const double& v) { u = v; });
  check(dmap::reduce(U, 0.0, std::plus<>{}) == K, "zip with Block over the same cut");
  if (dmap::here() == 0)
    std::cout << "zip(Z, B): " << (staged ? "B staged (the cuts differ)" : "aligned (the cuts coincide)")
              << "; zip with Block over equal weights: aligned\n";

  // Views work over any distribution: a column of A (weighted rows) copied into a row of B
  // (Block) by one assignment, and the odd rows of Z doubled in place through a strided slice.
  const index_t k = std::min(n, m), col = m / 2;
  const auto row_of_b = dmap::rank_change(B, 1, dmap::range(0, k));
  row_of_b = dmap::rank_change(std::as_const(A), dmap::range(0, k), col);
  dmap::domain<1> DK{dmap::block<1>{}, dmap::rect<1>{{0, k}}};
  check(dmap::reduce(dmap::zip(row_of_b, DK), 0, std::plus<>{},
                     [&](double b, idx<1> j) { return b == g(idx<2>{j[0], col}) ? 0 : 1; }) == 0,
        "row 1 of B = column of A");
  dmap::forall(Z[dmap::rect<2>{dmap::range(1, n, 2), dmap::range(0, m)}], [](double& z) { z *= 2; });
  check(dmap::reduce(dmap::zip(Z, D), 0, std::plus<>{},
                     [&](double z, idx<2> i) { return z == (i[0] % 2 ? 2 : 1) * f(i) ? 0 : 1; }) == 0,
        "forall over the odd rows of Z");
  if (dmap::here() == 0) std::cout << "views: a column of A into a row of B, odd rows of Z doubled: ok\n";

  // Resize: more rows, fewer columns; the cut moves, surviving values stay, new ones are 0.
  D.set_indices(dmap::rect<2>{{0, n + n / 2}, {0, m - 2}});
  show_and_check_rows(D, dist.weights());
  check(dmap::reduce(dmap::zip(A, D), 0, std::plus<>{},
                     [&](double a, idx<2> i) { return a == (i[0] < n ? g(i) : 0.0) ? 0 : 1; }) == 0,
        "resize kept the surviving values");
  if (dmap::here() == 0) {  // a serial view, read by one locale alone
    index_t k = 0, bad = 0;
    for (const double a : dmap::view(A)) {
      const idx<2> i = D.indices().index_at(k++);
      bad += a == (i[0] < n ? g(i) : 0.0) ? 0 : 1;
    }
    check(bad == 0 && k == D.size(), "view(A) after the resize");
  }

  // Who owns what, printed by locale 0 (printing is not collective).
  dmap::domain S{dist, dmap::rect<2>{{0, 12}, {0, 4}}};
  dmap::array<int, 2> owner{S};
  dmap::forall(owner, [](int& o) { o = dmap::here(); });  // owner computes
  check(dmap::reduce(dmap::zip(owner, S), 0, std::plus<>{},
                     [&](int o, idx<2> i) { return o == S.locale_of(i) ? 0 : 1; }) == 0,
        "forall ran every index on its owner");
  if (dmap::here() == 0) std::cout << "owner of each index of " << S.indices() << ":\n" << owner << "\n";

  const bool ok = dmap::all_of_locales(failures == 0);
  if (dmap::here() == 0) std::cout << (ok ? "all checks passed\n" : "SOME CHECKS FAILED\n");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  try {
    return run();
  } catch (const std::exception& e) {  // collective failures are thrown on every locale
    std::cerr << "locale " << dmap::here() << ": " << e.what() << "\n";
    return EXIT_FAILURE;
  }
}
