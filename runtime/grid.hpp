// target_grid<N>: the N-D Cartesian grid of locales a distribution maps onto, with
// rank <-> coordinates in C order (as MPI_Cart_create and DAP proc_grid_rank).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "environment.hpp"
#include "errors.hpp"

namespace dmap {

/// An N-D grid of locales: shape[d] locales along dimension d, locale ids in C order.
template <std::size_t N>
class target_grid {
 public:
  /// A grid over all locales of the program, factorised like MPI_Dims_create.
  target_grid() : target_grid(balanced(num_locales())) {}
  /// A grid of the given shape; its locale count must equal num_locales().
  explicit target_grid(const std::array<int, N>& shape) : target_grid(shape, num_locales()) {}
  /// A grid of the given shape over `locales` locales (for index math without MPI). Throws
  /// argument_error when `locales` < 1, an extent is < 1, or the extents do not multiply to
  /// exactly `locales` (products that overflow included).
  target_grid(const std::array<int, N>& shape, int locales) : shape_(shape) {
    long long product = 1;
    bool beyond_int = false;  // the product passed 2^31 - 1: no locale count can match it
    for (std::size_t d = 0; d < N; ++d) {
      if (shape[d] < 1)
        throw argument_error(std::string("dmap::target_grid: shape[") + std::to_string(d) + "] is " +
                             std::to_string(shape[d]) + "; every extent must be >= 1");
      if (!beyond_int) product *= shape[d];  // product <= 2^31 - 1 and shape[d] < 2^31: fits
      beyond_int = beyond_int || product > std::numeric_limits<int>::max();
    }
    if (locales < 1)
      throw argument_error(std::string("dmap::target_grid: locales is ") + std::to_string(locales) +
                           "; it must be >= 1");
    if (beyond_int || product != locales) {
      std::string message = std::string("dmap::target_grid: shape ") + describe(shape) + " holds ";
      message += beyond_int ? std::string("more than 2^31 - 1") : std::to_string(product);
      message += " locales; it must hold exactly ";
      message += std::to_string(locales) + " (the locale count)";
      throw argument_error(message);
    }
  }

  /// The balanced factorisation of `locales` into N extents, largest first, as
  /// MPI_Dims_create computes it.
  static target_grid balanced(int locales) {
    if (locales < 1)
      throw argument_error("dmap::target_grid::balanced: locales is " + std::to_string(locales) +
                           "; it must be >= 1");
    std::vector<int> primes;
    int n = locales;
    for (int f = 2; static_cast<long long>(f) * f <= n; ++f)
      while (n % f == 0) primes.push_back(f), n /= f;
    if (n > 1) primes.push_back(n);
    std::array<int, N> shape{};
    shape.fill(1);
    std::sort(primes.begin(), primes.end(), std::greater<>());
    for (int p : primes) *std::min_element(shape.begin(), shape.end()) *= p;
    std::sort(shape.begin(), shape.end(), std::greater<>());
    return target_grid(shape, locales);
  }

  /// Locales along each dimension.
  const std::array<int, N>& shape() const noexcept { return shape_; }
  /// Locales along dimension d (d < N; argument_error otherwise).
  int extent(std::size_t d) const {
    if (d >= N)
      throw argument_error(std::string("dmap::target_grid::extent: dimension ") + std::to_string(d) + " is outside [0, " +
                           std::to_string(N) + ")");
    return shape_[d];
  }
  /// The number of locales in the grid.
  int size() const noexcept {
    int s = 1;
    for (int e : shape_) s *= e;
    return s;
  }
  /// The locale id at grid coordinates `c` (C order: the last coordinate varies fastest);
  /// argument_error when a coordinate lies outside [0, extent).
  int locale_at(const std::array<int, N>& c) const {
    int r = 0;
    for (std::size_t d = 0; d < N; ++d) {
      if (c[d] < 0 || c[d] >= shape_[d])
        throw argument_error(std::string("dmap::target_grid::locale_at: coordinate ") + std::to_string(d) + " is " +
                             std::to_string(c[d]) + "; it must be in [0, " + std::to_string(shape_[d]) +
                             ") on the grid " + describe(shape_));
      r = r * shape_[d] + c[d];
    }
    return r;
  }
  /// The grid coordinates of locale `locale` (argument_error unless 0 <= locale < size()).
  std::array<int, N> coords_of(int locale) const {
    if (locale < 0 || locale >= size())
      throw argument_error(std::string("dmap::target_grid::coords_of: locale ") + std::to_string(locale) + " is outside [0, " +
                           std::to_string(size()) + "), the locales of the grid " + describe(shape_));
    std::array<int, N> c{};
    for (std::size_t d = N; d-- > 0;) {
      c[d] = locale % shape_[d];
      locale /= shape_[d];
    }
    return c;
  }

  friend bool operator==(const target_grid&, const target_grid&) = default;
  /// `2x3`.
  friend std::ostream& operator<<(std::ostream& os, const target_grid& g) {
    return os << describe(g.shape_);
  }

 private:
  static std::string describe(const std::array<int, N>& shape) {
    std::string s;
    for (std::size_t d = 0; d < N; ++d) {
      if (d) s += 'x';
      s += std::to_string(shape[d]);
    }
    return s;
  }

  std::array<int, N> shape_{};
};

namespace detail {
/// The locales of `grid` at every combination of one coordinate per dimension from
/// `coords` (each list sorted), sorted.
template <std::size_t N>
std::vector<int> locales_of_product(const target_grid<N>& grid, const std::array<std::vector<int>, N>& coords) {
  std::vector<int> out;
  std::size_t total = 1;
  for (const auto& c : coords) total *= c.size();
  if (total == 0) return out;
  out.reserve(total);
  std::array<std::size_t, N> k{};
  while (true) {
    std::array<int, N> c{};
    for (std::size_t d = 0; d < N; ++d) c[d] = coords[d][k[d]];
    out.push_back(grid.locale_at(c));
    std::size_t d = N;
    while (d-- > 0) {
      if (++k[d] < coords[d].size()) break;
      k[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Throws argument_error unless `grid` holds exactly the program's locales: a grid made for
/// index math over another locale count (target_grid(shape, locales)) cannot place a
/// domain. `who` names the distribution. Without an environment there is nothing to check.
template <std::size_t N>
void check_grid_matches_locales(const target_grid<N>& grid, const char* who) {
  if (current_environment == nullptr || grid.size() == num_locales()) return;
  std::ostringstream s;
  s << who << ": the target grid " << grid << " holds " << grid.size() << " locales; a domain needs a grid of "
    << "exactly the program's " << num_locales() << " locales";
  throw argument_error(s.str());
}
}  // namespace detail

}  // namespace dmap
