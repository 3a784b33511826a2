// The machinery behind grid.hpp (not part of the API): for_each_combination,
// locales_of_product, check_grid_matches_locales.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../environment.hpp"
#include "../errors.hpp"

namespace dmap {

template <std::size_t N>
class target_grid;

namespace detail {

/// Calls f(k) for every combination k of one position per dimension below `counts`, in
/// row-major order; returns their number (0, and no call, when a count is 0).
template <std::size_t N, class F>
std::size_t for_each_combination(const std::array<std::size_t, N>& counts, F&& f) {
  std::size_t total = 1;
  for (std::size_t c : counts) total *= c;
  if (total == 0) return 0;
  std::array<std::size_t, N> k{};
  while (true) {
    f(k);
    std::size_t d = N;
    while (d-- > 0) {
      if (++k[d] < counts[d]) break;
      k[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return total;
  }
}

/// The locales of `grid` at every combination of one coordinate per dimension from
/// `coords` (each list sorted), sorted.
template <std::size_t N>
std::vector<int> locales_of_product(const target_grid<N>& grid, const std::array<std::vector<int>, N>& coords) {
  std::vector<int> out;
  std::array<std::size_t, N> counts{};
  for (std::size_t d = 0; d < N; ++d) counts[d] = coords[d].size();
  for_each_combination<N>(counts, [&](const std::array<std::size_t, N>& k) {
    std::array<int, N> c{};
    for (std::size_t d = 0; d < N; ++d) c[d] = coords[d][k[d]];
    out.push_back(grid.locale_at(c));
  });
  std::sort(out.begin(), out.end());
  return out;
}

/// Throws argument_error unless every locale id in `grid` is a locale of the program (<
/// num_locales()); a grid may hold some of them only. `who` names the distribution. Without
/// an environment there is nothing to check.
template <std::size_t N>
void check_grid_matches_locales(const target_grid<N>& grid, const char* who) {
  if (current_environment == nullptr || grid.max_locale() < num_locales()) return;
  std::ostringstream s;
  s << who << ": the target grid " << grid << " holds locale " << grid.max_locale()
    << "; every locale of a grid must be < num_locales() = " << num_locales();
  throw argument_error(s.str());
}

}  // namespace detail
}  // namespace dmap
