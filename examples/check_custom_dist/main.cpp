// Checks the user-defined distribution of examples/custom_dist with dmap's conformance kit:
// random index sets in 1, 2 and 3 dimensions against brute-force oracles, its documented owner
// rule, an error path. Prints which checks passed (and what failed where); exits 0 when every
// check passed on every locale. Run it as one locale or under mpirun -n P.
#include "../custom_dist/weighted_block.hpp"

// A project of your own writes <dmap/conformance/conformance.hpp>; this example sits in dmap's
// source tree and includes the kit relatively, as weighted_block.hpp includes the library.
#include "../../conformance/conformance.hpp"

#include <cstdlib>
#include <iostream>
#include <vector>

namespace conformance = dmap::conformance;
using custom_dist::weighted_block;

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};

  // Weights 1, 2, ..., P, with the rule they document written out: locale k owns the rows at
  // ascending positions [ceil(R * S(k) / S(P)), ceil(R * S(k + 1) / S(P))), S(k) = 1 + ... + k.
  conformance::options<2> options;
  options.owner = [](const dmap::idx<2>& i, const dmap::rect<2>& whole) {
    const dmap::range rows = whole.dim(0);
    const dmap::index_t position = (i[0] - rows.aligned_low()) / (rows.stride() < 0 ? -rows.stride() : rows.stride());
    const dmap::index_t p = dmap::num_locales(), total = p * (p + 1) / 2;
    int k = 0;
    while ((rows.size() * ((k + 1) * (k + 2) / 2) + total - 1) / total <= position) ++k;
    return k;
  };
  auto result = conformance::check<2>(
      "weighted_block",
      [](const dmap::rect<2>&, conformance::random_engine&) { return weighted_block<2>::increasing(); }, options);

  // Random weights (drawn alike on every locale), column-major storage, in 1-D and 3-D.
  const auto random_weights = [](conformance::random_engine& rng) {
    std::vector<double> weights(static_cast<std::size_t>(dmap::num_locales()));
    for (auto& w : weights) w = 0.5 * static_cast<double>(1 + rng() % 8);
    return weights;
  };
  result += conformance::check<1>("weighted_block", [&](const dmap::rect<1>&, conformance::random_engine& rng) {
    return weighted_block<1>(random_weights(rng), dmap::storage_order::column_major);
  });
  result += conformance::check<3>("weighted_block", [&](const dmap::rect<3>&, conformance::random_engine& rng) {
    return weighted_block<3>(random_weights(rng));
  });

  conformance::expect_argument_error(result, "weighted_block: a zero weight is refused", [] {
    weighted_block<2> refused(std::vector<double>(static_cast<std::size_t>(dmap::num_locales()), 0.0));
  });

  if (dmap::here() == 0) std::cout << result;
  return result.ok() ? EXIT_SUCCESS : EXIT_FAILURE;
}
