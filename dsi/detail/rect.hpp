// The machinery behind rect.hpp (not part of the API): repeat_t, rect_size_error,
// check_rect_size, rect_storage, slabs_beside.
#pragma once

#include <array>
#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../index.hpp"
#include "../range.hpp"

namespace dmap {

template <std::size_t N>
class rect;

namespace detail {

template <std::size_t, class T>
using repeat_t = T;

/// The message of check_rect_size.
template <std::size_t N>
[[noreturn]] void rect_size_error(const std::array<range, N>& dims, const char* who) {
  std::ostringstream s;
  s << who << ": {";
  for (std::size_t d = 0; d < N; ++d) s << (d ? ", " : "") << dims[d];
  s << "} has ";
  for (std::size_t d = 0; d < N; ++d) s << (d ? " x " : "") << dims[d].size();
  s << " indices, more than 2^63 - 1; the product of a rect's sizes (an empty dimension counting as 1) must "
       "fit int64";
  throw argument_error(s.str());
}

/// Throws argument_error (naming `who` and the dimensions) unless the product of the sizes
/// of `dims`, an empty dimension counting as 1, fits int64 (the rect rule, see rect.hpp).
template <std::size_t N>
constexpr void check_rect_size(const std::array<range, N>& dims, const char* who) {
  index_t product = 1;
  for (const auto& r : dims) {
    const index_t n = r.size();
    if (n > 1 && __builtin_mul_overflow(product, n, &product)) rect_size_error(dims, who);
  }
}

template <std::size_t N, class Seq = std::make_index_sequence<N>>
struct rect_storage;
// Gives rect<N> a constructor of exactly N ranges, so `rect<2>{{0, n}, {0, m}}` works.
template <std::size_t N, std::size_t... D>
struct rect_storage<N, std::index_sequence<D...>> {
  constexpr rect_storage() = default;
  constexpr rect_storage(repeat_t<D, range>... dims) : dims_{dims...} { check_rect_size<N>(dims_, "dmap::rect"); }
  constexpr explicit rect_storage(const std::array<range, N>& dims) : dims_(dims) {
    check_rect_size<N>(dims_, "dmap::rect");
  }
  std::array<range, N> dims_{};
};

/// For each dimension d in turn, the parts of `outer` below and above `inner` along d, taken
/// across `core` along the other dimensions, after which `core` narrows to inner's bounds
/// along d. With `core` = outer: the whole difference; with `core` already narrowed along
/// every dimension: only the face slabs.
template <std::size_t N>
std::vector<rect<N>> slabs_beside(const rect<N>& outer, const rect<N>& inner, rect<N> core) {
  std::vector<rect<N>> slabs;
  for (std::size_t d = 0; d < N; ++d) {
    const range& o = outer.dim(d);
    const index_t low = inner.dim(d).aligned_low(), high = inner.dim(d).aligned_high();
    for (const range& part : {o.intersect(range(o.lo(), low)), o.intersect(range(high + 1, o.hi()))})
      if (!part.empty()) {
        rect<N> slab = core;
        slab.set_dim(d, part);
        slabs.push_back(slab);
      }
    core.set_dim(d, o.intersect(range(low, high + 1)));
  }
  return slabs;
}

}  // namespace detail
}  // namespace dmap
