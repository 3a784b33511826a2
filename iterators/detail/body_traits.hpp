// What a loop body's parameter types tell about the body: whether it may write the element
// it is handed at each position. Known when the body has one call operator that is not a
// template (a lambda with explicit parameter types, a function, a std::function); a generic
// body's parameters are not known until it is called.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace dmap::detail {

/// The parameter types of a callable when it has exactly one, non-template call operator.
template <class F, class = void>
struct body_parameters {
  static constexpr bool known = false;
};
template <class R, class... A>
struct body_parameters<R (*)(A...)> {
  static constexpr bool known = true;
  using types = std::tuple<A...>;
};
template <class R, class... A>
struct body_parameters<R (*)(A...) noexcept> : body_parameters<R (*)(A...)> {};
template <class R, class... A>
struct body_parameters<R(A...)> : body_parameters<R (*)(A...)> {};
template <class R, class... A>
struct body_parameters<R(A...) noexcept> : body_parameters<R (*)(A...)> {};

template <class M>
struct member_call_parameters {
  static constexpr bool known = false;
};
#define DMAP_MEMBER_CALL(QUALIFIERS)                                                  \
  template <class R, class C, class... A>                                            \
  struct member_call_parameters<R (C::*)(A...) QUALIFIERS> : body_parameters<R (*)(A...)> {};
DMAP_MEMBER_CALL()
DMAP_MEMBER_CALL(const)
DMAP_MEMBER_CALL(noexcept)
DMAP_MEMBER_CALL(const noexcept)
DMAP_MEMBER_CALL(&)
DMAP_MEMBER_CALL(const&)
DMAP_MEMBER_CALL(& noexcept)
DMAP_MEMBER_CALL(const& noexcept)
#undef DMAP_MEMBER_CALL

template <class F>
struct body_parameters<F, std::enable_if_t<std::is_class_v<F>, std::void_t<decltype(&F::operator())>>>
    : member_call_parameters<decltype(&F::operator())> {};

/// True unless the body's parameter at position K is known to be a value or a reference
/// to const (then the body cannot write the element it is handed there).
template <class Body, std::size_t K>
constexpr bool may_write_parameter() {
  using params = body_parameters<std::remove_cvref_t<Body>>;
  if constexpr (!params::known) {
    return true;
  } else if constexpr (K >= std::tuple_size_v<typename params::types>) {
    return true;
  } else {
    using P = std::tuple_element_t<K, typename params::types>;
    return std::is_reference_v<P> && !std::is_const_v<std::remove_reference_t<P>>;
  }
}

/// Bit k set when the body may write the element at position k (see may_write_parameter).
template <class Body, std::size_t... K>
constexpr std::uint64_t parameters_written(std::index_sequence<K...>) {
  return ((may_write_parameter<Body, K>() ? std::uint64_t{1} << K : 0) | ... | 0);
}

}  // namespace dmap::detail
