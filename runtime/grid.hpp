// target_grid<N>: the N-D Cartesian grid of locales a distribution maps onto, with
// position <-> coordinates in C order (as MPI_Cart_create and DAP proc_grid_rank). The grid
// may hold some of the locales only (Chapel's targetLocales, DASH's teams): a contiguous run
// first .. first + size - 1 (locale id == first + C-order position; the default, first 0)
// or any list of distinct ids, one per position.
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

#include "detail/grid.hpp"
#include "environment.hpp"
#include "errors.hpp"
#include "precompiled.hpp"

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
  target_grid(const std::array<int, N>& shape, int locales);

  /// The balanced factorisation of `locales` into N extents, largest first, as
  /// MPI_Dims_create computes it.
  static target_grid balanced(int locales);

  /// A grid of the given shape over the listed locales, `locales[k]` at C-order position k
  /// (a target-locale subset). Throws argument_error naming the entry when the list does
  /// not hold exactly one id per position, or an id is negative or listed twice. Ids are
  /// checked against num_locales() when a domain is made over the grid.
  target_grid(const std::array<int, N>& shape, std::vector<int> locales);
  /// The same, from a braced list (`target_grid<1>({1}, {2})` is the grid of locale 2: a
  /// one-element list would otherwise pick the locale-count constructor).
  target_grid(const std::array<int, N>& shape, std::initializer_list<int> locales)
      : target_grid(shape, std::vector<int>(locales)) {}
  /// A grid of the given shape over the contiguous locales first .. first + size - 1, in C
  /// order (stores no list). Throws argument_error when first < 0 or an extent is < 1.
  static target_grid of_range(const std::array<int, N>& shape, int first);

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
  int locale_at(const std::array<int, N>& c) const;
  /// The grid coordinates of locale `locale` (argument_error unless the grid holds it).
  std::array<int, N> coords_of(int locale) const;
  /// True when locale `locale` is in the grid (O(1) for a contiguous grid, O(log size) for
  /// a list).
  bool holds(int locale) const noexcept { return position_of(locale) >= 0; }
  /// The locale ids at each position, in C order.
  std::vector<int> locales() const;
  /// True when the grid holds the locales first .. first + size - 1 in C order (it keeps no
  /// list): locale ids increase with row-major coordinates.
  bool contiguous() const noexcept { return ids_.empty(); }
  /// The largest locale id in the grid.
  int max_locale() const noexcept { return ids_.empty() ? first_ + size() - 1 : index_.back().first; }

  /// Equal shapes placing the same locale at every position.
  friend bool operator==(const target_grid&, const target_grid&) = default;
  /// `2x3` over locales 0 .. 5; `2x3 on locales 6..11`; `2 on locales [2, 0]`: grids over
  /// different locales print differently (maps compare names across locales).
  friend std::ostream& operator<<(std::ostream& os, const target_grid& g) {
    os << describe(g.shape_);
    if (!g.ids_.empty()) {
      os << " on locales [";
      for (std::size_t k = 0; k < g.ids_.size(); ++k) os << (k ? ", " : "") << g.ids_[k];
      os << ']';
    } else if (g.first_ != 0) {
      os << " on locales " << g.first_ << ".." << g.first_ + g.size() - 1;
    }
    return os;
  }

 private:
  // The C-order position of `locale`, -1 when the grid does not hold it.
  int position_of(int locale) const noexcept {
    if (ids_.empty()) return locale >= first_ && locale - first_ < size() ? locale - first_ : -1;
    const auto at = std::lower_bound(index_.begin(), index_.end(), std::pair<int, int>{locale, -1});
    return at != index_.end() && at->first == locale ? at->second : -1;
  }
  // The product of the extents; argument_error when an extent is < 1 or the product passes
  // 2^31 - 1 (`who` names the caller).
  static long long checked_product(const std::array<int, N>& shape, const char* who);

  static std::string describe(const std::array<int, N>& shape);

  std::array<int, N> shape_{};
  int first_ = 0;                           // contiguous grids: the locale at position 0
  std::vector<int> ids_;                    // listed grids: the locale at each position (else empty)
  std::vector<std::pair<int, int>> index_;  // listed grids: (locale, position), sorted
};

template <std::size_t N>
target_grid<N>::target_grid(const std::array<int, N>& shape, int locales) : shape_(shape) {
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

template <std::size_t N>
auto target_grid<N>::balanced(int locales) -> target_grid {
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

template <std::size_t N>
target_grid<N>::target_grid(const std::array<int, N>& shape, std::vector<int> locales) : shape_(shape) {
  const long long product = checked_product(shape, "dmap::target_grid");
  if (static_cast<long long>(locales.size()) != product)
    throw argument_error(std::string("dmap::target_grid: locales holds ") + std::to_string(locales.size()) +
                         " ids; the shape " + describe(shape) + " needs exactly " + std::to_string(product) +
                         " (one per grid position)");
  for (std::size_t k = 0; k < locales.size(); ++k)
    if (locales[k] < 0)
      throw argument_error(std::string("dmap::target_grid: locales[") + std::to_string(k) + "] is " +
                           std::to_string(locales[k]) + "; locale ids must be >= 0");
  std::vector<std::pair<int, int>> index;
  index.reserve(locales.size());
  for (std::size_t k = 0; k < locales.size(); ++k) index.push_back({locales[k], static_cast<int>(k)});
  std::sort(index.begin(), index.end());
  for (std::size_t j = 1; j < index.size(); ++j)
    if (index[j].first == index[j - 1].first) {
      const auto [a, b] = std::minmax(index[j - 1].second, index[j].second);
      throw argument_error(std::string("dmap::target_grid: locales[") + std::to_string(b) + "] is " +
                           std::to_string(index[j].first) + ", as is locales[" + std::to_string(a) +
                           "]; a locale appears at most once in a grid (locale ids must be distinct)");
    }
  bool run = true;  // first, first + 1, ...: kept as the contiguous form, which compares equal
  for (std::size_t k = 1; k < locales.size() && run; ++k) run = locales[k] == locales[0] + static_cast<int>(k);
  first_ = locales.front();
  if (!run) ids_ = std::move(locales), index_ = std::move(index);
}

template <std::size_t N>
auto target_grid<N>::of_range(const std::array<int, N>& shape, int first) -> target_grid {
  const long long product = checked_product(shape, "dmap::target_grid::of_range");
  if (first < 0)
    throw argument_error("dmap::target_grid::of_range: first is " + std::to_string(first) +
                         "; locale ids must be >= 0");
  if (first + product - 1 > std::numeric_limits<int>::max())
    throw argument_error("dmap::target_grid::of_range: first " + std::to_string(first) + " plus " +
                         std::to_string(product) + " locales passes 2^31 - 1; locale ids are ints");
  target_grid g(shape, static_cast<int>(product));
  g.first_ = first;
  return g;
}

template <std::size_t N>
int target_grid<N>::locale_at(const std::array<int, N>& c) const {
  int r = 0;
  for (std::size_t d = 0; d < N; ++d) {
    if (c[d] < 0 || c[d] >= shape_[d])
      throw argument_error(std::string("dmap::target_grid::locale_at: coordinate ") + std::to_string(d) + " is " +
                           std::to_string(c[d]) + "; it must be in [0, " + std::to_string(shape_[d]) +
                           ") on the grid " + describe(shape_));
    r = r * shape_[d] + c[d];
  }
  return ids_.empty() ? first_ + r : ids_[static_cast<std::size_t>(r)];
}

template <std::size_t N>
auto target_grid<N>::coords_of(int locale) const -> std::array<int, N> {
  int position = position_of(locale);
  if (position < 0) {
    std::ostringstream s;
    s << "dmap::target_grid::coords_of: locale " << locale;
    if (ids_.empty()) s << " is outside [" << first_ << ", " << first_ + size() << ")";
    else s << " is not listed";
    s << ", the locales of the grid " << *this;
    throw argument_error(s.str());
  }
  std::array<int, N> c{};
  for (std::size_t d = N; d-- > 0;) {
    c[d] = position % shape_[d];
    position /= shape_[d];
  }
  return c;
}

template <std::size_t N>
auto target_grid<N>::locales() const -> std::vector<int> {
  if (!ids_.empty()) return ids_;
  std::vector<int> out(static_cast<std::size_t>(size()));
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = first_ + static_cast<int>(k);
  return out;
}

template <std::size_t N>
auto target_grid<N>::checked_product(const std::array<int, N>& shape, const char* who) -> long long {
  long long product = 1;
  for (std::size_t d = 0; d < N; ++d) {
    if (shape[d] < 1)
      throw argument_error(std::string(who) + ": shape[" + std::to_string(d) + "] is " + std::to_string(shape[d]) +
                           "; every extent must be >= 1");
    product *= shape[d];
    if (product > std::numeric_limits<int>::max())
      throw argument_error(std::string(who) + ": shape " + describe(shape) +
                           " holds more than 2^31 - 1 locales; a grid holds at most 2^31 - 1");
  }
  return product;
}

template <std::size_t N>
std::string target_grid<N>::describe(const std::array<int, N>& shape) {
  std::string s;
  for (std::size_t d = 0; d < N; ++d) {
    if (d) s += 'x';
    s += std::to_string(shape[d]);
  }
  return s;
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_GRID_INSTANCES(N, how) how class target_grid<N>;
DMAP_DECLARE_PRECOMPILED(DMAP_GRID_INSTANCES)

}  // namespace dmap
