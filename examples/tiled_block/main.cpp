// A map that brings its own local layout: Block's cut, each locale's chunk stored as tiles of
// 4 x 4 elements (user_layouts::tiled_block, tiled_block.hpp). The tiled array is filled,
// zipped with a Block array (a different storage of the same cut: no message), assigned from a
// Cyclic array (one message per peer), reduced, and then dmap's conformance kit checks the map
// in 1, 2 and 3 dimensions with random tiles, and with padded rows (gaps allowed). Prints what
// it checked; exits 0 when everything passed on every locale. Run it as one locale or under
// mpirun -n P.
#include "tiled_block.hpp"

// A project of your own writes <dmap/conformance/conformance.hpp>; this example sits in dmap's
// source tree and includes the kit relatively, as tiled_block.hpp includes the library.
#include "../../conformance/conformance.hpp"

#include <cstdlib>
#include <functional>
#include <iostream>
#include <utility>

namespace conformance = dmap::conformance;
using user_layouts::block_with_layout;
using user_layouts::tiled_block;

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const dmap::rect<2> space{{0, 30}, {0, 21}};
  const dmap::domain<2> T_dom{tiled_block<2>{dmap::tiled_layout<2>({4, 4})}, space};
  const dmap::domain<2> B_dom{dmap::block<2>{}, space}, C_dom{dmap::cyclic<2>{}, space};
  dmap::array<double, 2> T{T_dom}, B{B_dom}, C{C_dom};

  const auto value = [](dmap::idx<2> i) { return static_cast<double>(100 * i[0] + i[1]); };
  dmap::forall(T_dom, [&](dmap::idx<2> i) { T.local(i) = value(i); });
  dmap::forall(dmap::zip(B, std::as_const(T)), [](double& b, const double& t) { b = 2 * t; });
  dmap::forall(C_dom, [&](dmap::idx<2> i) { C.local(i) = -value(i); });
  T = C;  // Cyclic to tiles: one message per peer
  const double dot = dmap::reduce(dmap::zip(T, B), 0.0, std::plus<>{}, [](double t, double b) { return t * b; });
  double want = 0;
  for (dmap::index_t i = 0; i < 30; ++i)
    for (dmap::index_t j = 0; j < 21; ++j) want += -value({i, j}) * 2 * value({i, j});
  if (dmap::here() == 0)
    std::cout << "tiled_block: locale 0 stores " << T_dom.local_subdomains().size() << " tiles of "
              << T_dom.local_size() << " indices; sum of T * B = " << dot << " (expected " << want << ")\n";

  conformance::result result = conformance::check<2>(
      "tiled_block", [](const dmap::rect<2>&, conformance::random_engine& g, const dmap::target_grid<2>& grid) {
        const dmap::index_t t0 = 2 + static_cast<dmap::index_t>(g() % 5), t1 = 2 + static_cast<dmap::index_t>(g() % 5);
        return tiled_block<2>(dmap::tiled_layout<2>({t0, t1}), grid);
      });
  result += conformance::check<1>("tiled_block", [](const dmap::rect<1>&, conformance::random_engine& g) {
    return tiled_block<1>(dmap::tiled_layout<1>({8 + static_cast<dmap::index_t>(g() % 33)}));
  });
  result += conformance::check<3>("tiled_block", [](const dmap::rect<3>&, conformance::random_engine&) {
    return tiled_block<3>(dmap::tiled_layout<3>({2, 3, 4}, dmap::storage_order::column_major));
  });
  // Padded rows leave gaps between rows: allowed by the concept, so the kit is told.
  conformance::options<2> gaps;
  gaps.gaps_allowed = true;
  result += conformance::check<2>("block_with_layout(padded rows)", [](const dmap::rect<2>&, conformance::random_engine&) {
    return block_with_layout<2, dmap::dense_order_layout<2>>(
        dmap::dense_order_layout<2>(dmap::storage_order::row_major, dmap::row_padding::fixed(3)));
  }, gaps);
  conformance::expect_argument_error(result, "tiled_layout: a tile of 0 positions is refused",
                                     [] { dmap::tiled_layout<2> refused({4, 0}); });

  if (dmap::here() == 0) std::cout << result;
  return result.ok() && dot == want ? EXIT_SUCCESS : EXIT_FAILURE;
}
