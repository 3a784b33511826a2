// dmap::target_grid<N>: the balanced factorisation against MPI_Dims_create (an independent
// oracle called directly), rank <-> coordinates in C order against a hand-written odometer,
// and the argument errors. Index math that needs no MPI is also tagged [serial].
#include "../oracle.hpp"
#include "../support.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace test_grid {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using namespace dmap::testing::oracle;  // tests/oracle.hpp

/// Compares target_grid<N>::balanced(P) with MPI_Dims_create for P in 1..64.
template <std::size_t N>
void check_balanced_against_mpi() {
  for (int p = 1; p <= 64; ++p) {
    const auto expected = mpi_dims<N>(p);
    const auto grid = dmap::target_grid<N>::balanced(p);
    INFO("N = " << N << ", P = " << p << ", balanced = " << shape_text(grid.shape()));
    auto mine = grid.shape();
    auto theirs = expected;
    // The same multiset of extents ...
    std::sort(mine.begin(), mine.end());
    std::sort(theirs.begin(), theirs.end());
    CHECK(mine == theirs);
    // ... and the same order: MPI_Dims_create returns extents in non-increasing order.
    CHECK(grid.shape() == expected);
    CHECK(std::is_sorted(grid.shape().begin(), grid.shape().end(), std::greater<>()));
    CHECK(grid.size() == p);
  }
}

/// locale_at/coords_of round trip and C order, for every grid of up to `max_locales`.
template <std::size_t N>
void check_coordinates(int max_locales) {
  for (int p = 1; p <= max_locales; ++p)
    for (const auto& shape : factorisations<N>(p)) {
      const dmap::target_grid<N> grid(shape, p);
      INFO("N = " << N << ", grid " << shape_text(shape));
      const auto coords = c_order_coords<N>(shape);
      REQUIRE(static_cast<int>(coords.size()) == p);
      for (int r = 0; r < p; ++r) {
        // The hand-written odometer enumerates coordinates in C order: rank r is the r-th.
        CHECK(grid.locale_at(coords[static_cast<std::size_t>(r)]) == r);
        CHECK(grid.coords_of(r) == coords[static_cast<std::size_t>(r)]);
        CHECK(grid.locale_at(grid.coords_of(r)) == r);
        // The explicit formula r = ((c0 * s1 + c1) * s2 + c2) ...
        const auto c = grid.coords_of(r);
        int flat = 0;
        for (std::size_t d = 0; d < N; ++d) {
          CHECK(c[d] >= 0);
          CHECK(c[d] < shape[d]);
          flat = flat * shape[d] + c[d];
        }
        CHECK(flat == r);
      }
      for (std::size_t d = 0; d < N; ++d) CHECK(grid.extent(d) == shape[d]);
      CHECK(grid.size() == p);
    }
}

}  // namespace

TEST_CASE("target_grid balanced agrees with MPI_Dims_create", "[grid]") {
  check_balanced_against_mpi<1>();
  check_balanced_against_mpi<2>();
  check_balanced_against_mpi<3>();
  check_balanced_against_mpi<4>();
}

TEST_CASE("target_grid balanced: product, order and errors", "[grid][serial]") {
  for (int p = 1; p <= 64; ++p) {
    const auto g2 = dmap::target_grid<2>::balanced(p);
    const auto g3 = dmap::target_grid<3>::balanced(p);
    CHECK(g2.size() == p);
    CHECK(g3.size() == p);
    CHECK(g2.extent(0) >= g2.extent(1));
    CHECK(g3.extent(0) >= g3.extent(1));
    CHECK(g3.extent(1) >= g3.extent(2));
  }
  CHECK(dmap::target_grid<2>::balanced(12).shape() == std::array<int, 2>{4, 3});
  CHECK(dmap::target_grid<3>::balanced(64).shape() == std::array<int, 3>{4, 4, 4});
  CHECK(dmap::target_grid<1>::balanced(7).shape() == std::array<int, 1>{7});
  CHECK(dmap::target_grid<4>::balanced(1).shape() == std::array<int, 4>{1, 1, 1, 1});
  CHECK_THROWS_AS(dmap::target_grid<2>::balanced(0), dmap::argument_error);
  CHECK_THROWS_WITH(dmap::target_grid<2>::balanced(-3),
                    Catch::Contains("locales") && Catch::Contains("-3") && Catch::Contains(">= 1"));
}

TEST_CASE("target_grid coordinates are C order and round-trip", "[grid][serial]") {
  check_coordinates<1>(12);
  check_coordinates<2>(24);
  check_coordinates<3>(24);
  check_coordinates<4>(16);
}

TEST_CASE("target_grid rejects bad shapes", "[grid][serial]") {
  using shape2 = std::array<int, 2>;
  // An extent below 1.
  CHECK_THROWS_AS((dmap::target_grid<2>(shape2{0, 4}, 0)), dmap::argument_error);
  CHECK_THROWS_WITH((dmap::target_grid<2>(shape2{2, 0}, 0)),
                    Catch::Contains("shape[1]") && Catch::Contains("is 0") &&
                        Catch::Contains(">= 1"));
  CHECK_THROWS_WITH((dmap::target_grid<3>(std::array<int, 3>{-1, 2, 2}, -4)),
                    Catch::Contains("shape[0]") && Catch::Contains("-1") &&
                        Catch::Contains(">= 1"));
  // A product other than the locale count.
  CHECK_THROWS_AS((dmap::target_grid<2>(shape2{2, 3}, 5)), dmap::argument_error);
  CHECK_THROWS_WITH((dmap::target_grid<2>(shape2{2, 3}, 5)),
                    Catch::Contains("shape 2x3") && Catch::Contains("6") &&
                        Catch::Contains("exactly 5"));
  CHECK_NOTHROW((dmap::target_grid<2>(shape2{2, 3}, 6)));
  // Text form and equality.
  std::ostringstream s;
  s << dmap::target_grid<3>(std::array<int, 3>{2, 1, 3}, 6);
  CHECK(s.str() == "2x1x3");
  CHECK(dmap::target_grid<2>(shape2{2, 3}, 6) == dmap::target_grid<2>(shape2{2, 3}, 6));
  CHECK_FALSE(dmap::target_grid<2>(shape2{2, 3}, 6) == dmap::target_grid<2>(shape2{3, 2}, 6));
}

TEST_CASE("target_grid over the program's locales", "[grid]") {
  const int p = dmap::num_locales();
  // The default grid holds every locale, factorised like MPI_Dims_create.
  const dmap::target_grid<1> g1;
  const dmap::target_grid<2> g2;
  const dmap::target_grid<3> g3;
  CHECK(g1.size() == p);
  CHECK(g2.size() == p);
  CHECK(g3.size() == p);
  CHECK(g2.shape() == mpi_dims<2>(p));
  CHECK(g3.shape() == mpi_dims<3>(p));
  CHECK(g2 == dmap::target_grid<2>::balanced(p));

  // Every factorisation of the locale count is accepted.
  for (const auto& shape : factorisations<2>(p)) {
    const dmap::target_grid<2> g{shape};
    CHECK(g.shape() == shape);
  }
  // Anything else is not: the error names the shape and the rule.
  CHECK_THROWS_AS((dmap::target_grid<2>{std::array<int, 2>{p + 1, 1}}), dmap::argument_error);
  CHECK_THROWS_WITH((dmap::target_grid<2>{std::array<int, 2>{p, 2}}),
                    Catch::Contains("shape") && Catch::Contains("exactly " + std::to_string(p)));
  CHECK_THROWS_WITH((dmap::target_grid<2>{std::array<int, 2>{p, 0}}),
                    Catch::Contains("shape[1]") && Catch::Contains(">= 1"));
  // Grids built the same way on every locale agree (a collective sanity check).
  const std::vector<std::array<int, 3>> same(static_cast<std::size_t>(p), g3.shape());
  DMAP_CHECK_ALL(dmap::all_gather(g3.shape()) == same);
}

}  // namespace test_grid
