// The active cells of a 2-D grid as a sparse domain: a disc of cells over a Block-distributed
// grid, a value per active cell, a dense field over the whole grid read and written at the
// active cells only, then the inner disc removed (an annulus remains) with the values of the
// rest kept. Every count and sum is checked against a serial computation; prints
// "sparse_mesh: ok" when all agree.
#include <dmap/dmap.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  constexpr std::int64_t n = 200, radius = 90, inner = 40;
  const auto inside = [](dmap::idx<2> i, std::int64_t r) {
    const std::int64_t x = i[0] - n / 2, y = i[1] - n / 2;
    return x * x + y * y <= r * r;
  };
  dmap::domain<2> grid{dmap::block<2>{}, dmap::rect<2>{{0, n}, {0, n}}};
  dmap::sparse_domain<2> active{grid, dmap::csr_layout<2>{}};

  // Each locale proposes the disc's cells of a band of rows (any locale may add any index).
  std::vector<dmap::idx<2>> proposed;
  for (std::int64_t r = dmap::here(); r < n; r += dmap::num_locales())
    for (std::int64_t c = 0; c < n; ++c)
      if (inside({r, c}, radius)) proposed.push_back({r, c});
  active.add(proposed);

  dmap::sparse_array<double, 2> heat{active, 0.0};
  dmap::array<double, 2> field{grid, 1.0};
  dmap::forall(dmap::zip(heat, field, active), [](double& h, double& f, dmap::idx<2> i) {
    h = static_cast<double>(i[0] + i[1]);
    f = 2.0;  // the field changes at the active cells only
  });
  const double heat_sum = dmap::reduce(heat, 0.0);
  const double field_sum = dmap::reduce(field, 0.0);

  // Remove the inner disc: every locale removes the cells of its own rows of it.
  std::vector<dmap::idx<2>> hole;
  for (std::int64_t r = dmap::here(); r < n; r += dmap::num_locales())
    for (std::int64_t c = 0; c < n; ++c)
      if (inside({r, c}, inner)) hole.push_back({r, c});
  active.remove(hole);
  const double ring_sum = dmap::reduce(heat, 0.0);

  // The same numbers, serially.
  std::int64_t disc = 0, ring = 0;
  double expect_heat = 0, expect_ring = 0;
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < n; ++c)
      if (inside({r, c}, radius)) {
        ++disc;
        expect_heat += static_cast<double>(r + c);
        if (!inside({r, c}, inner)) ++ring, expect_ring += static_cast<double>(r + c);
      }
  const double expect_field = static_cast<double>(n * n + disc);
  const bool ok = active.size() == ring && heat_sum == expect_heat && ring_sum == expect_ring &&
                  field_sum == expect_field;
  if (dmap::here() == 0)
    std::cout << "disc " << disc << " cells, annulus " << active.size() << " cells (" << active.layout_name()
              << "), heat " << heat_sum << " -> " << ring_sum << ", field " << field_sum << "\n"
              << (ok ? "sparse_mesh: ok" : "sparse_mesh: MISMATCH") << "\n";
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
