// Maps whose locales hold copies: Replicated (every locale a copy layer of its own) and
// Dimensional with replicated dimensions (the locales with equal coordinates along the
// replicated dimensions form a layer). Oracles: the layer of locale q and the owner of an
// index within a layer are computed here from the grid (C order) and Chapel's Block cut,
// independently of the library. Each layer writes values of its own (fval(i) + 1e6 * layer),
// so every read shows which copy it came from: a locale's reads, views and reductions see its
// own layer; gather and operator<< see locale 0's; assigning to an array without copies takes
// each destination's values from the destination's layer; assigning into the copies fills
// every layer; replicate_from makes every layer equal to the root's; resize keeps each
// layer's surviving values. Then the Dimensional 'none' and 'unstructured' specifiers, and
// their errors. Random shapes from a fixed seed, identical on every locale.
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace test_copies {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using namespace dmap::testing::oracle;


/// A layered map's oracles: the layer of each locale, and the owner of i within a layer.
template <std::size_t N>
struct layered {
  std::function<int(int)> layer;
  std::function<int(int, const idx<N>&)> owner_in_layer;
};

/// The value layer `l` writes at i.
template <std::size_t N>
double lval(const idx<N>& i, int l) {
  return fval(i) + 1e6 * l;
}

/// Collective: every locale's owned indices, indexed by locale.
template <std::size_t N>
std::vector<std::vector<idx<N>>> owned_by_all(const dmap::domain<N>& D) {
  std::vector<idx<N>> mine;
  for (const auto& r : D.local_subdomains())
    for (const auto& i : points_of(r)) mine.push_back(i);
  return dmap::testing::everyones(mine);
}

/// Collective: the checks of the file header for one map over `r`, resized to `next`.
template <std::size_t N, class Dist>
std::string check_layered(const Dist& dist, const layered<N>& o, const rect<N>& r, const rect<N>& next) {
  std::string fail;
  const int p = dmap::num_locales(), me = dmap::here(), mine = o.layer(me);
  dmap::domain<N> D{dist, r};
  const auto points = points_of(r);

  // Each layer covers the index set exactly once; locale_of answers within this layer.
  const auto all = owned_by_all(D);
  std::map<std::pair<int, idx<N>>, int> seen;
  for (int q = 0; q < p; ++q)
    for (const auto& i : all[static_cast<std::size_t>(q)]) {
      if (seen.count({o.layer(q), i})) fail = "layer " + std::to_string(o.layer(q)) + " holds " + text(i) + " twice";
      seen[{o.layer(q), i}] = q;
      if (o.owner_in_layer(o.layer(q), i) != q) fail = text(i) + " held by " + std::to_string(q) + " against the oracle";
    }
  std::vector<int> layers;
  for (int q = 0; q < p; ++q) layers.push_back(o.layer(q));
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  if (seen.size() != layers.size() * points.size()) fail = "the layers do not each cover the index set";
  for (const auto& i : points)
    if (D.locale_of(i) != o.owner_in_layer(mine, i)) fail = "locale_of(" + text(i) + ") is not in this layer";

  // Each layer writes its own values; reads, views and reductions see this layer's.
  dmap::array<double, N> A(D);
  const int layer_here = mine;
  dmap::forall(dmap::zip(A, D), [&](double& a, const idx<N>& i) { a = lval(i, layer_here); });
  dmap::barrier();
  double sum = 0;
  for (const auto& i : points) {
    sum += lval(i, mine);
    if (static_cast<double>(A[i]) != lval(i, mine)) fail = "A[" + text(i) + "] is not this layer's";
  }
  const double got = dmap::reduce(A, 0.0, std::plus<>{});
  if (std::abs(got - sum) > 1e-9 * (1 + std::abs(sum))) fail = "reduce does not see this layer's copy once";
  std::size_t k = 0;
  for (double v : dmap::view(A)) {
    if (k < points.size() && v != lval(points[k], mine)) fail = "view(A) at " + text(points[k]);
    ++k;
  }
  const auto gathered = A.gather();
  if (me == 0)
    for (std::size_t j = 0; j < points.size(); ++j)
      if (gathered[j] != lval(points[j], o.layer(0))) fail = "gather is not locale 0's layer at " + text(points[j]);

  // To an array without copies: each destination reads the source layer of its own.
  dmap::domain<N> BD{dmap::block<N>{}, r};
  dmap::array<double, N> B(BD);
  B = A;
  for (const auto& i : points)
    if (BD.locale_of(i) == me && B.local(i) != lval(i, mine)) fail = "B = A at " + text(i) + " is not from this layer";
  // Into the copies: every layer receives.
  dmap::forall(dmap::zip(B, BD), [](double& b, const idx<N>& i) { b = -fval(i); });
  A = B;
  dmap::barrier();
  for (const auto& i : points)
    if (static_cast<double>(A[i]) != -fval(i)) fail = "A = B did not reach this layer at " + text(i);
  // replicate_from: every layer becomes the root's.
  dmap::barrier();
  dmap::forall(dmap::zip(A, D), [&](double& a, const idx<N>& i) { a = lval(i, layer_here); });
  const int root = p - 1;
  dmap::replicate_from(A, root);
  dmap::barrier();
  for (const auto& i : points)
    if (static_cast<double>(A[i]) != lval(i, o.layer(root))) fail = "after replicate_from at " + text(i);
  // Resize keeps each layer's surviving values.
  dmap::barrier();
  dmap::forall(dmap::zip(A, D), [&](double& a, const idx<N>& i) { a = lval(i, layer_here); });
  D.set_indices(next);
  dmap::barrier();
  for (const auto& i : points_of(next)) {
    const double want = r.contains(i) ? lval(i, mine) : 0.0;
    if (static_cast<double>(A[i]) != want) fail = "after resize at " + text(i);
  }
  return fail;
}

/// The part of [lo, hi) of extent n (Chapel's Block cut) owning x, p parts.
int block_owner(index_t lo, index_t hi, int p, index_t x) { return cut_part(lo, hi, p, x); }

}  // namespace

TEST_CASE("replicated: every locale a copy layer of its own", "[copies][replicated]") {
  gen g(0xc0b1'e501);
  random_dimension_cases(g, 8, [&](auto n, int c) {
    constexpr std::size_t N = decltype(n)::value;
    const rect<N> r = random_rect<N>(g, rect_spec{10, 300, 2});
    const rect<N> next = random_rect<N>(g, rect_spec{10, 300, 2});
    INFO("case " << c << ": " << r << " then " << next);
    const layered<N> o{[](int q) { return q; }, [](int l, const idx<N>&) { return l; }};
    CHECK_NO_FAILURE(check_layered(dmap::replicated<N>{}, o, r, next));
  });
}

TEST_CASE("replicated: zipped behind a distributed leader, each locale reads its own copy", "[copies][replicated]") {
  gen g(0xc0b1'e504);
  random_dimension_cases(g, 6, [&](auto n, int c) {
    constexpr std::size_t N = decltype(n)::value;
    const rect<N> r = random_rect<N>(g, rect_spec{10, 300, 2});
    INFO("case " << c << ": " << r);
    dmap::domain<N> W_dom{dmap::replicated<N>{}, r}, B_dom{dmap::block<N>{}, r};
    dmap::array<double, N> W(W_dom), B(B_dom);
    const int layer_here = dmap::here();
    dmap::forall(dmap::zip(W, W_dom), [&](double& w, const idx<N>& i) { w = lval(i, layer_here); });
    dmap::reset_counters();
    dmap::forall(dmap::zip(B, std::as_const(W)), [](double& b, const double& w) { b = w; });
    const auto moved = dmap::counters();
    std::string fail;
    for (const auto& i : points_of(r))
      if (B_dom.locale_of(i) == dmap::here() && B.local(i) != lval(i, layer_here)) fail = "B at " + text(i);
    CHECK_NO_FAILURE(fail);
    DMAP_CHECK_ALL(moved.messages_sent == 0 && moved.messages_received == 0);
    // operator<< prints the printing locale's own copy, as its reads see it.
    std::ostringstream printed;
    printed << W;
    std::vector<double> mine;
    for (const auto& i : points_of(r)) mine.push_back(lval(i, layer_here));
    DMAP_CHECK_ALL(printed.str() == printed_oracle(mine, r.shape()));
  });
}

TEST_CASE("dimensional: block x replicated on every grid, and replicated x cyclic", "[copies][dimensional]") {
  gen g(0xc0b1'e502);
  const int p = dmap::num_locales();
  for (const auto& shape : factorisations<2>(p)) {
    for (int c = 0; c < 3; ++c) {
      const rect<2> r = random_rect<2>(g, rect_spec{12, 300, 2});
      const rect<2> next = random_rect<2>(g, rect_spec{12, 300, 2});
      INFO("grid " << shape_text(shape) << ", " << r << " then " << next);
      const dmap::target_grid<2> grid(shape);
      // Block along 0, replicated along 1: layer = coordinate 1; owner (block part, layer).
      const auto lo = [&](const rect<2>& w) { return w.empty() ? index_t{0} : std::min(w.dim(0).first(), w.dim(0).last()); };
      const auto hi = [&](const rect<2>& w) { return w.empty() ? index_t{0} : std::max(w.dim(0).first(), w.dim(0).last()) + 1; };
      const auto block_x_repl = [&](const rect<2>& w) {
        return layered<2>{[=](int q) { return q % shape[1]; },
                          [=](int l, const idx<2>& i) { return block_owner(lo(w), hi(w), shape[0], i[0]) * shape[1] + l; }};
      };
      const dmap::dimensional<2> m1({dmap::block_dim{}, dmap::replicated_dim{}}, grid);
      CHECK_NO_FAILURE(check_layered(m1, block_x_repl(r), r, next));
      // Replicated along 0, cyclic along 1 (start 0): layer = coordinate 0.
      const layered<2> o2{[=](int q) { return q / shape[1]; },
                          [=](int l, const idx<2>& i) { return l * shape[1] + static_cast<int>(pmod(i[1], shape[1])); }};
      const dmap::dimensional<2> m2({dmap::replicated_dim{}, dmap::cyclic_dim{0}}, grid);
      CHECK_NO_FAILURE(check_layered(m2, o2, r, next));
    }
  }
}

TEST_CASE("dimensional: replicated dimensions are described to DAP as 'u' holding every position", "[copies][dap]") {
  const int p = dmap::num_locales();
  dmap::domain<2> D{dmap::dimensional<2>({dmap::replicated_dim{}, dmap::block_dim{}}, dmap::target_grid<2>({p, 1})),
                    rect<2>{range(0, 4, 2), range(0, 3)}};
  dmap::array<double, 2> A(D);
  const auto desc = dmap::dap_export(A);
  // One locale along the replicated dimension holds it once: a block ('b', from the pieces).
  if (p == 1) DMAP_CHECK_ALL(desc.dim_data[0].dist_type == 'b' && desc.dim_data[0].stop == 2);
  else
    DMAP_CHECK_ALL(desc.dim_data[0].dist_type == 'u' && !desc.dim_data[0].one_to_one &&
                   desc.dim_data[0].indices == (std::vector<index_t>{0, 1}) && desc.dim_data[0].proc_grid_size == p &&
                   desc.dim_data[0].proc_grid_rank == dmap::here());
  DMAP_CHECK_ALL(desc.dim_data[1].dist_type == 'b' && desc.dim_data[1].start == 0 && desc.dim_data[1].stop == 3);
  DMAP_CHECK_ALL(desc.shape[0] == 2 && desc.shape[1] == 3);
  CHECK_NOTHROW(dmap::validate(desc.dim_data[0]));
}

TEST_CASE("dimensional: 'none' and 'unstructured' specifiers place indices as the lists say", "[dimensional][unstructured]") {
  gen g(0xc0b1'e503);
  const int p = dmap::num_locales();
  for (int c = 0; c < 12; ++c) {
    const rect<2> r = random_rect<2>(g, rect_spec{12, 300, 2});
    // Deal dimension 0's indices to the p coordinates in random order.
    std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
    std::map<index_t, std::pair<int, index_t>> where;  // index -> (coordinate, position)
    for (index_t k = 0; k < r.dim(0).size(); ++k) {
      const index_t v = r.dim(0).index_at(k);
      lists[static_cast<std::size_t>(g.uniform(0, p - 1))].push_back(v);
    }
    for (auto& l : lists) std::shuffle(l.begin(), l.end(), g.g);
    if (g.chance(1, 2) && !lists.empty()) lists[0].push_back(1000);  // outside the range: ignored
    for (int q = 0; q < p; ++q)
      for (std::size_t j = 0; j < lists[static_cast<std::size_t>(q)].size(); ++j)
        where[lists[static_cast<std::size_t>(q)][j]] = {q, static_cast<index_t>(j)};
    INFO("case " << c << ": " << r);
    const auto order = g.chance(1, 2) ? dmap::storage_order::row_major : dmap::storage_order::column_major;
    dmap::domain<2> D{dmap::dimensional<2>({dmap::unstructured_dim{lists}, dmap::none_dim{}}, dmap::target_grid<2>({p, 1}), order), r};
    dmap::array<double, 2> A(D);
    dmap::forall(dmap::zip(A, D), [](double& a, const idx<2>& i) { a = fval(i); });
    std::string fail;
    const auto all = owned_by_all(D);
    std::size_t total = 0;
    for (int q = 0; q < p; ++q)
      for (const auto& i : all[static_cast<std::size_t>(q)]) {
        ++total;
        if (where.at(i[0]).first != q) fail = text(i) + " held by the wrong locale";
      }
    if (total != static_cast<std::size_t>(r.size())) fail = "the lists do not cover the index set once";
    const index_t cols = r.dim(1).size();
    index_t rows_here = 0;
    for (index_t v : lists[static_cast<std::size_t>(dmap::here())]) rows_here += r.dim(0).contains(v) ? 1 : 0;
    for (const auto& i : points_of(r)) {
      if (D.locale_of(i) != where.at(i[0]).first) fail = "locale_of(" + text(i) + ")";
      if (where.at(i[0]).first != dmap::here()) continue;
      // Storage: row position = place in the list (values outside the range skipped).
      index_t row = 0;
      for (index_t v : lists[static_cast<std::size_t>(dmap::here())]) {
        if (v == i[0]) break;
        row += r.dim(0).contains(v) ? 1 : 0;
      }
      const index_t col = r.dim(1).order_of(i[1]);
      const index_t offset = order == dmap::storage_order::row_major ? row * cols + col : col * rows_here + row;
      if (A.local_data()[offset] != fval(i)) fail = "storage of " + text(i);
    }
    CHECK_NO_FAILURE(fail);
    double sum = 0;
    for (const auto& i : points_of(r)) sum += fval(i);
    DMAP_CHECK_ALL(std::abs(dmap::reduce(A, 0.0, std::plus<>{}) - sum) <= 1e-6 * (1 + std::abs(sum)));
    const auto desc = dmap::dap_export(A);
    std::vector<index_t> positions;
    for (index_t v : lists[static_cast<std::size_t>(dmap::here())])
      if (r.dim(0).contains(v)) positions.push_back(r.dim(0).order_of(v));
    // The map declares the dimension unstructured (dimension_kinds()): 'u', the positions in
    // list order, whatever they look like (ascending runs too) and over an empty index set.
    DMAP_CHECK_ALL(desc.dim_data[0].dist_type == 'u' && desc.dim_data[0].one_to_one &&
                   desc.dim_data[0].indices == positions);
  }
}

TEST_CASE("dimensional: bad 'none' and 'unstructured' specifiers are refused on every locale", "[dimensional][unstructured]") {
  const int p = dmap::num_locales();
  if (p > 1)
    CHECK_THROWS_WITH((dmap::dimensional<2>({dmap::none_dim{}, dmap::block_dim{}}, dmap::target_grid<2>({p, 1}))),
                      Catch::Contains("dimension 0") && Catch::Contains("'none'") && Catch::Contains("must have 1"));
  CHECK_THROWS_WITH((dmap::dimensional<1>({dmap::unstructured_dim{std::vector<std::vector<index_t>>(static_cast<std::size_t>(p) + 1)}})),
                    Catch::Contains("lists") && Catch::Contains("exactly " + std::to_string(p)));
  std::vector<std::vector<index_t>> lists(static_cast<std::size_t>(p));
  for (index_t i = 0; i < 6; ++i) lists[static_cast<std::size_t>(i % p)].push_back(i);
  const dmap::dimensional<1> ok({dmap::unstructured_dim{lists}});
  CHECK_NOTHROW(dmap::domain<1>{ok, rect<1>{range(0, 6)}});
  CHECK_THROWS_WITH((dmap::domain<1>{ok, rect<1>{range(0, 7)}}), Catch::Contains("index 6") && Catch::Contains("in no list"));
  auto twice = lists;
  twice[static_cast<std::size_t>(p - 1)].push_back(0);
  CHECK_THROWS_WITH((dmap::domain<1>{dmap::dimensional<1>({dmap::unstructured_dim{twice}}), rect<1>{range(0, 6)}}),
                    Catch::Contains("index 0 is listed by grid coordinates 0 and " + std::to_string(p - 1)));
  dmap::domain<1> D{ok, rect<1>{range(0, 6)}};
  CHECK_THROWS_AS(D.set_indices(rect<1>{range(-1, 6)}), dmap::argument_error);
  CHECK(D.indices() == rect<1>{range(0, 6)});
  CHECK_NOTHROW(D.set_indices(rect<1>{range(1, 5)}));  // listed values outside the range are ignored
  dmap::domain<2> R{dmap::dimensional<2>({dmap::block_dim{}, dmap::block_dim{}}), rect<2>{range(0, 2), range(0, 2)}};
  dmap::array<int, 2> plain(R);
  CHECK_THROWS_WITH(dmap::replicate_from(plain, 0), Catch::Contains("only arrays whose domain holds copies"));
}

}  // namespace test_copies
