// zip(...): iterands traversed together in a parallel loop; the first one leads.
#pragma once

#include <tuple>

namespace dmap {

/// Several iterands (domains and arrays of one shape) traversed together; the first
/// leads. Holds references: the iterands must outlive the loop.
template <class... Iterands>
struct zipped {
  std::tuple<Iterands&...> iterands;
};

/// Zips iterands for forall/reduce: `forall(zip(B, A, C), [](double& b, const double& a,
/// const double& c) {...})`. Pass `std::as_const(A)` for an operand the body only reads.
template <class... Iterands>
zipped<Iterands...> zip(Iterands&... iterands) {
  static_assert(sizeof...(Iterands) >= 1, "dmap::zip needs at least one iterand");
  return zipped<Iterands...>{std::tuple<Iterands&...>(iterands...)};
}

}  // namespace dmap
