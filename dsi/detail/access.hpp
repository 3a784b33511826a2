// The library's way to the members of domains, arrays and views that exist for the library
// only (shared state, placements, plan-cache keys): they are private, and this class, a
// friend of each, hands them to dmap's own layers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "../../runtime/errors.hpp"

namespace dmap {
template <std::size_t N>
class domain;
}  // namespace dmap

namespace dmap::detail {

/// Reaches the private members dmap's layers use.
struct access {
  /// The shared state of a domain.
  template <class Domain>
  static const auto& state(const Domain& d) noexcept {
    return d.state_;
  }
  /// An array or view as one side of an assignment.
  template <class X>
  static auto placed_elements_of(const X& x) {
    return x.placed_elements_of();
  }
  /// The plan-cache key of a view's placement.
  template <class View>
  static auto key(const View& v) {
    return v.key();
  }
  /// The node-shared memory holding an array's elements, or null.
  template <class Array>
  static auto segment(const Array& a) noexcept {
    return a.node_segment();
  }
  /// The collective serial number of an array (the same on every locale).
  template <class Array>
  static std::uint64_t serial(const Array& a) noexcept {
    return a.serial();
  }
  /// This locale's placement of a view.
  template <class View>
  static const auto& placed(const View& v) {
    return v.placed();
  }
};

/// The shared state of domain `d`.
template <std::size_t N>
const auto& state_of(const domain<N>& d) noexcept {
  return access::state(d);
}

/// Throws argument_error "`who`: the array was moved from; `consequence`" when array `a` was
/// moved from (its domain handle is empty).
template <class Array>
void check_array_live(const Array& a, const char* who, const char* consequence) {
  if (!state_of(a.domain())) throw argument_error(std::string(who) + ": the array was moved from; " + consequence);
}

}  // namespace dmap::detail
