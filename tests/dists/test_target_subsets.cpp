// Target-locale subsets: distributions over a grid of some of the
// locales. Oracles are computed here, independently of the maps: the owner of index i under
// Block over the listed locales L (k of them) is L[floor(i * k / n)], under Cyclic L[i mod k],
// under BlockCyclic with blocks of 3 L[floor(i / 3) mod k]; element values are f(i). Checked
// at every rank count: ownership and empty locales outside, loops, reductions (the same on
// every locale), A = B and zips between arrays on disjoint or overlapping subsets, remote reads
// from locales outside, printing, resize, halo updates on a periodic Stencil over a subset,
// 2-D subgrids, and bad grids refused on every locale. At 1 rank every subset is {0}.
#include "../support.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace test_target_subsets {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::target_grid;
using dmap::testing::throws_with;

/// The value every test stores at index i (exact in double, so sums compare exactly).
double f(index_t i) { return static_cast<double>(3 * i + 1); }
double f2(const idx<2>& i) { return static_cast<double>(100 * i[0] + i[1]); }

/// The first ceil(p / 2) locales.
std::vector<int> first_half(int p) {
  std::vector<int> out;
  for (int q = 0; q < (p + 1) / 2; ++q) out.push_back(q);
  return out;
}
/// The other locales ({0} at one locale): {2} at 3, {2, 3} at 4.
std::vector<int> second_half(int p) {
  if (p == 1) return {0};
  std::vector<int> out;
  for (int q = (p + 1) / 2; q < p; ++q) out.push_back(q);
  return out;
}
/// A list out of order and with a gap: {p - 1, 0} ({2, 0} at 3; {0} at 1).
std::vector<int> reversed_pair(int p) { return p == 1 ? std::vector<int>{0} : std::vector<int>{p - 1, 0}; }

target_grid<1> grid_of(const std::vector<int>& ids) {
  return target_grid<1>(std::array<int, 1>{static_cast<int>(ids.size())}, ids);
}
bool listed(const std::vector<int>& ids, int q) { return std::find(ids.begin(), ids.end(), q) != ids.end(); }

/// A 1-D map kind: how to build it over a grid, and the owner oracle.
struct kind {
  std::string name;
  std::function<dmap::domain<1>(const target_grid<1>&, index_t n)> make;
  std::function<int(const std::vector<int>& ids, index_t n, index_t i)> owner;
};

std::vector<kind> kinds() {
  const auto block_owner = [](const std::vector<int>& ids, index_t n, index_t i) {
    return ids[static_cast<std::size_t>(i * static_cast<index_t>(ids.size()) / n)];
  };
  return {
      {"block", [](const target_grid<1>& g, index_t n) { return dmap::domain<1>{dmap::block<1>{g}, rect<1>{range(0, n)}}; },
       block_owner},
      {"cyclic",
       [](const target_grid<1>& g, index_t n) {
         return dmap::domain<1>{dmap::cyclic<1>{std::nullopt, g}, rect<1>{range(0, n)}};
       },
       [](const std::vector<int>& ids, index_t, index_t i) { return ids[static_cast<std::size_t>(i) % ids.size()]; }},
      {"block_cyclic",
       [](const target_grid<1>& g, index_t n) {
         return dmap::domain<1>{dmap::block_cyclic<1>{idx<1>{3}, g}, rect<1>{range(0, n)}};
       },
       [](const std::vector<int>& ids, index_t, index_t i) { return ids[static_cast<std::size_t>(i / 3) % ids.size()]; }},
      {"stencil",
       [](const target_grid<1>& g, index_t n) {
         return dmap::domain<1>{dmap::stencil<1>{idx<1>{1}, {}, g}, rect<1>{range(0, n)}};
       },
       block_owner},
  };
}

/// Collective: fills A with f at its indices.
void fill(dmap::array<double, 1>& A) {
  dmap::forall(dmap::zip(A, A.domain()), [](double& a, const idx<1>& i) { a = f(i[0]); });
}

/// Collective: "" when A holds `value(i)` at every index this locale owns and every locale
/// reads it (A[i]) at every index; else what differs. A Stencil's locales read the ghost
/// copies they hold, so its halos are updated first. (Barriers: one-sided reads must not
/// overtake the owners' last writes, nor the next writes overtake them.)
template <class V>
std::string check_values(dmap::array<double, 1>& A, index_t n, V value) {
  if (A.domain().template descriptor<dmap::stencil_domain<1>>() != nullptr ||
      A.domain().template descriptor<dmap::padded_domain<1>>() != nullptr)
    dmap::update_halos(A);
  dmap::barrier();
  std::string fail;
  for (index_t i = 0; i < n && fail.empty(); ++i) {
    if (A.domain().locale_of(idx<1>{i}) == dmap::here() && A.local(idx<1>{i}) != value(i))
      fail = "local element " + std::to_string(i) + " is " + std::to_string(A.local(idx<1>{i}));
    const double got = std::as_const(A)[idx<1>{i}];
    if (fail.empty() && got != value(i)) fail = "A[" + std::to_string(i) + "] reads " + std::to_string(got);
  }
  dmap::barrier();
  return fail;
}

/// Collective: "" when D places every index as the oracle says and locales outside `ids`
/// hold nothing.
std::string check_placement(const kind& k, const dmap::domain<1>& D, const dmap::array<double, 1>& A,
                            const std::vector<int>& ids, index_t n) {
  index_t mine = 0;
  for (index_t i = 0; i < n; ++i) {
    const int want = k.owner(ids, n, i);
    if (D.locale_of(idx<1>{i}) != want)
      return "locale_of(" + std::to_string(i) + ") is " + std::to_string(D.locale_of(idx<1>{i})) + ", expected " +
             std::to_string(want);
    mine += want == dmap::here();
  }
  index_t owned = 0;
  for (const auto& s : D.local_subdomains()) owned += s.size();
  if (owned != mine) return "this locale owns " + std::to_string(owned) + " indices, expected " + std::to_string(mine);
  if (!listed(ids, dmap::here()) && (!A.local_blocks().empty() || A.local_size() != 0))
    return "a locale outside the grid stores elements";
  if (!listed(ids, dmap::here()) && !D.local_subdomains().empty()) return "a locale outside the grid owns indices";
  return "";
}

std::string text_of(const std::vector<int>& ids) {
  std::string s = "{";
  for (std::size_t k = 0; k < ids.size(); ++k) s += (k ? ", " : "") + std::to_string(ids[k]);
  return s + "}";
}

}  // namespace

TEST_CASE("target subsets: grid mapping, holds, names, equality", "[subsets][grid][serial]") {
  const target_grid<2> listed_grid(std::array<int, 2>{2, 2}, {2, 0, 3, 1});
  CHECK(listed_grid.locale_at({0, 0}) == 2);
  CHECK(listed_grid.locale_at({0, 1}) == 0);
  CHECK(listed_grid.locale_at({1, 0}) == 3);
  CHECK(listed_grid.coords_of(1) == std::array<int, 2>{1, 1});
  CHECK(listed_grid.coords_of(2) == std::array<int, 2>{0, 0});
  CHECK(listed_grid.holds(3));
  CHECK_FALSE(listed_grid.holds(4));
  CHECK_FALSE(listed_grid.holds(-1));
  CHECK(listed_grid.locales() == std::vector<int>{2, 0, 3, 1});
  CHECK(listed_grid.max_locale() == 3);
  CHECK_THROWS_WITH(listed_grid.coords_of(4), Catch::Contains("locale 4 is not listed"));

  const auto range_grid = target_grid<2>::of_range({2, 3}, 4);
  CHECK(range_grid.size() == 6);
  CHECK(range_grid.locale_at({1, 2}) == 9);
  CHECK(range_grid.coords_of(5) == std::array<int, 2>{0, 1});
  CHECK(range_grid.holds(4));
  CHECK(range_grid.holds(9));
  CHECK_FALSE(range_grid.holds(3));
  CHECK_FALSE(range_grid.holds(10));
  CHECK(range_grid.max_locale() == 9);
  CHECK_THROWS_WITH(range_grid.coords_of(3), Catch::Contains("outside [4, 10)"));

  // A listed run equals the contiguous form; other lists and offsets differ, also by name.
  const auto name = [](const auto& g) {
    std::ostringstream s;
    s << g;
    return s.str();
  };
  CHECK(target_grid<1>({3}, {4, 5, 6}) == target_grid<1>::of_range({3}, 4));
  CHECK(target_grid<1>({3}, {0, 1, 2}) == target_grid<1>({3}, 3));
  CHECK(name(target_grid<1>({3}, 3)) == "3");
  CHECK(name(target_grid<1>::of_range({3}, 4)) == "3 on locales 4..6");
  CHECK(name(listed_grid) == "2x2 on locales [2, 0, 3, 1]");
  CHECK_FALSE(target_grid<1>({2}, {1, 0}) == target_grid<1>({2}, {0, 1}));
  CHECK(name(target_grid<1>({2}, {1, 0})) != name(target_grid<1>({2}, {0, 1})));
  CHECK_FALSE(target_grid<1>::of_range({2}, 1) == target_grid<1>::of_range({2}, 2));
  CHECK(name(target_grid<1>::of_range({2}, 1)) != name(target_grid<1>::of_range({2}, 2)));
  // A braced one-element list is a list, not a locale count.
  CHECK(target_grid<1>({1}, {2}).locale_at({0}) == 2);
}

TEST_CASE("target subsets: bad grids throw argument_error naming the rule on every locale", "[subsets][grid]") {
  const int p = dmap::num_locales();
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([] { (void)target_grid<1>({3}, {0, 1, 0}); },
                                                     "locales[2] is 0, as is locales[0]"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([] { (void)target_grid<1>({2}, {1, -1}); },
                                                     "locales[1] is -1; locale ids must be >= 0"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([] { (void)target_grid<2>({2, 2}, {0, 1, 2}); },
                                                     "holds 3 ids; the shape 2x2 needs exactly 4"));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([] { (void)target_grid<2>({2, 0}, {0}); }, "shape[1] is 0"));
  CHECK_NO_FAILURE(
      throws_with<dmap::argument_error>([] { (void)target_grid<1>::of_range({2}, -1); }, "first is -1"));
  // A locale id the program does not have: refused when a domain is made over the grid.
  const rect<1> r{range(0, 10)};
  const target_grid<1> beyond({1}, {p});
  const std::string rule = "every locale of a grid must be < num_locales() = " + std::to_string(p);
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>([&] { dmap::domain<1> D{dmap::block<1>{beyond}, r}; }, rule));
  CHECK_NO_FAILURE(
      throws_with<dmap::argument_error>([&] { dmap::domain<1> D{dmap::cyclic<1>{std::nullopt, beyond}, r}; }, rule));
  CHECK_NO_FAILURE(
      throws_with<dmap::argument_error>([&] { dmap::domain<1> D{dmap::stencil<1>{idx<1>{1}, {}, beyond}, r}; }, rule));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { dmap::domain<1> D{dmap::padded<1>{{std::vector<index_t>{}}, {std::vector<dmap::padding_widths>{{1, 1}}}, {}, beyond}, r}; },
      rule));
  CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
      [&] { dmap::domain<1> D{dmap::block<1>{target_grid<1>::of_range({p}, 1)}, r}; }, rule));
  if (p > 1) {
    // Replicated dimensions over a subset are refused (copy layers are per locale of the program).
    CHECK_NO_FAILURE(throws_with<dmap::argument_error>(
        [&] { (void)dmap::dimensional<1>{{dmap::replicated_dim{}}, grid_of(first_half(p))}; },
        "a grid with replicated dimensions must hold all"));
  }
}

TEST_CASE("target subsets: placement, loops, reductions, remote reads and printing on one subset", "[subsets]") {
  const int p = dmap::num_locales();
  for (const auto& ids : {first_half(p), second_half(p), reversed_pair(p)}) {
    const index_t n = 5 * static_cast<index_t>(ids.size()) + 2;
    for (const auto& k : kinds()) {
      INFO(k.name << " over locales " << text_of(ids));
      const dmap::domain<1> D = k.make(grid_of(ids), n);
      dmap::array<double, 1> A{D};
      CHECK_NO_FAILURE(check_placement(k, D, A, ids, n));
      fill(A);
      CHECK_NO_FAILURE(check_values(A, n, f));
      double sum = 0;
      for (index_t i = 0; i < n; ++i) sum += f(i);
      const double got = dmap::reduce(A, 0.0, std::plus<>{});
      INFO("reduce gives " << got << ", expected " << sum);
      DMAP_CHECK_ALL(got == sum);
      // Printing reads every element, here from locales outside too: the text of the same
      // values on a Block over all locales.
      dmap::domain<1> all{dmap::block<1>{}, rect<1>{range(0, n)}};
      dmap::array<double, 1> C{all};
      fill(C);
      std::ostringstream mine, reference;
      mine << A;
      reference << C;
      INFO("printed " << mine.str() << ", expected " << reference.str());
      DMAP_CHECK_ALL(mine.str() == reference.str());
    }
  }
}

TEST_CASE("target subsets: A = B and zips between disjoint halves, every pair of kinds", "[subsets]") {
  const int p = dmap::num_locales();
  const std::vector<std::pair<std::vector<int>, std::vector<int>>> pairs{
      {first_half(p), second_half(p)}, {second_half(p), reversed_pair(p)}};
  const index_t n = 17;
  for (const auto& [left, right] : pairs)
    for (const auto& ka : kinds())
      for (const auto& kb : kinds()) {
        INFO(ka.name << " over " << text_of(left) << ", " << kb.name << " over " << text_of(right));
        const dmap::domain<1> DA = ka.make(grid_of(left), n);
        const dmap::domain<1> DB = kb.make(grid_of(right), n);
        dmap::array<double, 1> A{DA}, B{DB};
        fill(A);
        B = A;
        CHECK_NO_FAILURE(check_values(B, n, f));
        dmap::forall(dmap::zip(B, DB), [](double& b, const idx<1>& i) { b = -f(i[0]); });
        A = B;
        CHECK_NO_FAILURE(check_values(A, n, [](index_t i) { return -f(i); }));
        // A zip led by A reads B (staged across the subsets) and writes A.
        fill(B);
        dmap::forall(dmap::zip(A, std::as_const(B)), [](double& a, const double& b) { a = 2 * b; });
        CHECK_NO_FAILURE(check_values(A, n, [](index_t i) { return 2 * f(i); }));
        // A zip led by B writes into A (written back to A's subset).
        dmap::forall(dmap::zip(B, A), [](const double& b, double& a) { a = b + 1; });
        CHECK_NO_FAILURE(check_values(A, n, [](index_t i) { return f(i) + 1; }));
        double dot = 0;
        for (index_t i = 0; i < n; ++i) dot += (f(i) + 1) * f(i);
        const double got = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{}, [](double a, double b) { return a * b; });
        INFO("zip reduce gives " << got << ", expected " << dot);
        DMAP_CHECK_ALL(got == dot);
      }
}

TEST_CASE("target subsets: Irregular Block and Padded over a list out of order", "[subsets]") {
  const int p = dmap::num_locales();
  const index_t n = 17;
  const auto ids = reversed_pair(p);
  std::vector<index_t> cuts;  // oracle: position k owns [cuts[k - 1], cuts[k])
  for (std::size_t j = 0; j + 1 < ids.size(); ++j) cuts.push_back(2 + 5 * static_cast<index_t>(j));
  const auto owner = [&](const std::vector<int>& l, index_t, index_t i) {
    return l[static_cast<std::size_t>(std::upper_bound(cuts.begin(), cuts.end(), i) - cuts.begin())];
  };
  const std::vector<kind> irregular{
      {"irregular",
       [&](const target_grid<1>& g, index_t m) {
         return dmap::domain<1>{dmap::irregular_block<1>{{cuts}, g}, rect<1>{range(0, m)}};
       },
       owner},
      {"padded",
       [&](const target_grid<1>& g, index_t m) {
         const std::vector<dmap::padding_widths> widths(ids.size(), dmap::padding_widths{1, 2});
         return dmap::domain<1>{dmap::padded<1>{{cuts}, {widths}, {true}, g}, rect<1>{range(0, m)}};
       },
       owner}};
  dmap::domain<1> all{dmap::block<1>{}, rect<1>{range(0, n)}};
  dmap::array<double, 1> C{all};
  fill(C);
  for (const auto& k : irregular) {
    INFO(k.name << " over " << text_of(ids));
    const dmap::domain<1> D = k.make(grid_of(ids), n);
    dmap::array<double, 1> A{D};
    CHECK_NO_FAILURE(check_placement(k, D, A, ids, n));
    A = C;
    CHECK_NO_FAILURE(check_values(A, n, f));
    dmap::forall(dmap::zip(C, std::as_const(A)), [](double& c, const double& a) { c = a; });
    CHECK_NO_FAILURE(check_values(C, n, f));
  }
}

TEST_CASE("target subsets: 2-D subgrids, against a Block over all locales", "[subsets]") {
  const int p = dmap::num_locales();
  // A 2x1 grid over {p - 1, 0} (at 1 locale the 1x1 grid of locale 0), and a 1x2 grid over
  // the second half (and locale 0 when the half has one locale).
  std::vector<std::pair<std::array<int, 2>, std::vector<int>>> grids;
  grids.push_back({{static_cast<int>(reversed_pair(p).size()), 1}, reversed_pair(p)});
  std::vector<int> row = second_half(p);
  if (row.size() == 1 && row[0] != 0) row.push_back(0);
  grids.push_back({{1, static_cast<int>(row.size())}, row});
  const rect<2> r{range(0, 6), range(0, 5)};
  for (const auto& [shape, ids] : grids) {
    const target_grid<2> g(shape, ids);
    INFO("grid " << g);
    dmap::domain<2> DB{dmap::block<2>{g}, r};
    dmap::domain<2> DC{dmap::cyclic<2>{std::nullopt, g}, r};
    dmap::domain<2> all{dmap::block<2>{}, r};
    dmap::array<double, 2> A{DB}, B{DC}, C{all};
    // Oracle: Block cuts rows into shape[0] parts and columns into shape[1]; Cyclic deals them.
    bool placed = true;
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 5; ++j) {
        const auto at = [&](index_t a, index_t b) { return ids[static_cast<std::size_t>(a * shape[1] + b)]; };
        placed = placed && DB.locale_of(idx<2>{i, j}) == at(i * shape[0] / 6, j * shape[1] / 5);
        placed = placed && DC.locale_of(idx<2>{i, j}) == at(i % shape[0], j % shape[1]);
      }
    DMAP_CHECK_ALL(placed);
    DMAP_CHECK_ALL(listed(ids, dmap::here()) || (A.local_blocks().empty() && B.local_blocks().empty()));
    dmap::forall(dmap::zip(C, all), [](double& c, const idx<2>& i) { c = f2(i); });
    A = C;
    B = A;
    dmap::forall(dmap::zip(C, std::as_const(B)), [](double& c, const double& b) { c = b + 0.5; });
    dmap::barrier();  // the owners' writes before the one-sided reads
    bool ok = true;
    for (index_t i = 0; i < 6; ++i)
      for (index_t j = 0; j < 5; ++j) {
        const idx<2> x{i, j};
        ok = ok && std::as_const(A)[x] == f2(x) && std::as_const(B)[x] == f2(x) && std::as_const(C)[x] == f2(x) + 0.5;
      }
    DMAP_CHECK_ALL(ok);  // (a collective: the reads are done before the arrays go)
  }
}

TEST_CASE("target subsets: resize keeps the values and the subset", "[subsets]") {
  const int p = dmap::num_locales();
  const auto ids = second_half(p);
  for (const auto& k : kinds()) {
    INFO(k.name << " over " << text_of(ids));
    dmap::domain<1> D = k.make(grid_of(ids), 10);
    dmap::array<double, 1> A{D};
    fill(A);
    D.set_indices(rect<1>{range(0, 16)});
    CHECK_NO_FAILURE(check_placement(k, D, A, ids, 16));
    CHECK_NO_FAILURE(check_values(A, 16, [](index_t i) { return i < 10 ? f(i) : 0.0; }));
    D.set_indices(rect<1>{range(0, 4)});
    CHECK_NO_FAILURE(check_placement(k, D, A, ids, 4));
    CHECK_NO_FAILURE(check_values(A, 4, f));
  }
}

TEST_CASE("target subsets: halo update on a periodic Stencil over a subset", "[subsets][stencil]") {
  const int p = dmap::num_locales();
  for (const auto& ids : {second_half(p), reversed_pair(p)}) {
    INFO("stencil over " << text_of(ids));
    const index_t n = 4 * static_cast<index_t>(ids.size()) + 1;
    const dmap::domain<1> D{dmap::stencil<1>{idx<1>{2}, {true}, grid_of(ids)}, rect<1>{range(0, n)}};
    dmap::array<double, 1> A{D};
    fill(A);
    dmap::update_halos(A);
    std::string fail;
    if (listed(ids, dmap::here())) {
      const auto& b = A.local_blocks().front();
      const range own = D.local_subdomain().dim(0);
      const auto wrapped = [&](index_t i) { return f(((i % n) + n) % n); };
      for (const index_t g : {own.first() - 2, own.first() - 1, own.last() + 1, own.last() + 2})
        if (b(idx<1>{g}) != wrapped(g)) fail = "ghost " + std::to_string(g) + " holds " + std::to_string(b(idx<1>{g}));
    } else if (!A.local_blocks().empty()) {
      fail = "a locale outside the grid holds a block";
    }
    CHECK_NO_FAILURE(fail);
  }
}

TEST_CASE("target subsets: interop refuses what it cannot describe", "[subsets][dap]") {
  const int p = dmap::num_locales();
  if (p == 1) return;
  dmap::domain<1> D{dmap::block<1>{grid_of(second_half(p))}, rect<1>{range(0, 8)}};
  dmap::array<double, 1> A{D};
  CHECK_NO_FAILURE(throws_with<dmap::unsupported_error>([&] { (void)dmap::dap_export(A); }, "target-locale subset"));
}

}  // namespace test_target_subsets
