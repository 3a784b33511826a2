// zip(...): iterands traversed together in a parallel loop; the first one leads.
#pragma once

#include <tuple>
#include <utility>

namespace dmap {

/// Several iterands (domains, arrays, neighbourhoods of one shape) traversed together; the
/// first leads. Holds references to domains and arrays (they must outlive the loop) and
/// copies of small operand descriptions such as `neighbors(A)`.
template <class... Iterands>
struct zipped {
  std::tuple<Iterands...> iterands;
};

/// Zips iterands for forall/reduce: `forall(zip(B, A, C), [](double& b, const double& a,
/// const double& c) {...})`. Pass `std::as_const(A)` for an operand the body only reads.
template <class... Iterands>
zipped<Iterands...> zip(Iterands&&... iterands) {
  static_assert(sizeof...(Iterands) >= 1, "dmap::zip needs at least one iterand");
  return zipped<Iterands...>{std::tuple<Iterands...>(std::forward<Iterands>(iterands)...)};
}

}  // namespace dmap
