// The machinery behind associative_loops.hpp (not part of the API): which types are
// associative iterands, what a body receives from each, and the operands, slot chunks and
// checks of a loop over a key table.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../../dsi/associative_array.hpp"
#include "../../dsi/associative_domain.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/environment.hpp"
#include "../../runtime/errors.hpp"

namespace dmap {

template <class... Iterands>
struct zipped;

namespace detail {

template <class X>
inline constexpr bool is_associative_domain_v = false;
template <class K, class H, class M>
inline constexpr bool is_associative_domain_v<associative_domain<K, H, M>> = true;
template <class X>
inline constexpr bool is_associative_array_v = false;
template <class T, class K, class H, class M>
inline constexpr bool is_associative_array_v<associative_array<T, K, H, M>> = true;
/// True for an associative domain or array (dmap::associative_iterand).
template <class X>
inline constexpr bool is_associative_iterand_v =
    is_associative_domain_v<std::remove_cvref_t<X>> || is_associative_array_v<std::remove_cvref_t<X>>;

template <class X>
inline constexpr bool is_associative_zip_v = false;
template <class... X>
inline constexpr bool is_associative_zip_v<zipped<X...>> = (is_associative_iterand_v<X> && ...);
/// True for a zip led by an associative domain or array (whatever follows).
template <class X>
inline constexpr bool is_associative_leader = false;
template <class Lead, class... X>
inline constexpr bool is_associative_leader<zipped<Lead, X...>> = is_associative_iterand_v<Lead>;

/// The argument an associative loop hands the body for iterand X: the key of a domain, a
/// reference to the value of an array (const for a const array).
template <class X, bool Domain = is_associative_domain_v<std::remove_cvref_t<X>>>
struct associative_arg {
  using type = const typename std::remove_cvref_t<X>::key_type&;
};
template <class X>
struct associative_arg<X, false> {
  using value = typename std::remove_cvref_t<X>::value_type;
  using type = std::conditional_t<std::is_const_v<std::remove_reference_t<X>>, const value&, value&>;
};
template <class X>
using associative_arg_t = typename associative_arg<X>::type;

template <class X>
struct associative_loop_args {
  using type = std::tuple<associative_arg_t<X>>;
};
template <class... X>
struct associative_loop_args<zipped<X...>> {
  using type = std::tuple<associative_arg_t<X>...>;
};

/// One iterand of an associative loop, reduced to what a slot gives the body: the key of a
/// domain, a reference to the value of an array (const for a const array).
template <class X>
struct associative_operand {
  using type = std::remove_reference_t<X>;
  static auto make(type& x) {
    if constexpr (is_associative_domain_v<std::remove_const_t<type>>) {
      const auto& st = associative_access::state(x);
      return std::pair{st.table.keys().data(), static_cast<const void*>(&st)};
    } else {
      const auto& st = associative_access::state(x);
      auto* values = associative_access::values(x).data();
      if constexpr (std::is_const_v<type>) return std::pair{static_cast<const std::remove_pointer_t<decltype(values)>*>(values), static_cast<const void*>(&st)};
      else return std::pair{values, static_cast<const void*>(&st)};
    }
  }
};

/// Each iterand's (base pointer, state) pair, leader first.
template <class X>
auto associative_operands(X& x) {
  if constexpr (is_associative_iterand_v<X>) {
    return std::make_tuple(associative_operand<X>::make(x));
  } else {
    return std::apply([](auto&... it) { return std::make_tuple(associative_operand<decltype(it)>::make(it)...); }, x.iterands);
  }
}

/// The leader's key table (the slots every operand's values follow).
template <class X>
const auto& associative_lead_table(X& x) {
  if constexpr (is_associative_iterand_v<X>) return associative_access::state(x).table;
  else return associative_access::state(std::get<0>(x.iterands)).table;
}

/// Throws shape_error when an operand of a zip is over another domain than the leader.
template <class Ops>
void check_same_associative_domain(const Ops& ops, const char* who) {
  const void* lead = std::get<0>(ops).second;
  std::size_t k = 0;
  const auto check = [&](const auto& op) {
    if (op.second != lead)
      throw shape_error(std::string(who) + ": zip operand " + std::to_string(k) +
                        " is over another associative domain than the leader (operand 0); zipped associative "
                        "operands must share one domain");
    ++k;
  };
  std::apply([&](const auto&... op) { (check(op), ...); }, ops);
}

/// The operands of a loop `who` over `x`, whole and over one domain. A locale that refuses
/// them (a moved-from operand, an operand over another domain) joins the agreement the others
/// make after their tasks (run_tasks_agreed), which throws its error everywhere.
template <class X>
auto agreed_associative_operands(X& x, const char* who) {
  std::optional<decltype(associative_operands(x))> checked;
  if (const auto refused = exception_of([&] {
        checked.emplace(associative_operands(x));
        check_same_associative_domain(*checked, who);
      }))
    agree(refused);
  return std::move(*checked);
}

/// The slots one chunk of a loop over a table of `capacity` slots covers: at least 4096,
/// at most one chunk per thread.
inline std::size_t slot_chunk_size(std::size_t capacity) {
  const auto threads = static_cast<std::size_t>(std::max(1, num_threads()));
  return std::max<std::size_t>(4096, (capacity + threads - 1) / threads);
}

template <class Ops>
decltype(auto) slot_args(const Ops& ops, std::size_t s) {
  return std::apply([s](const auto&... op) { return std::forward_as_tuple(op.first[s]...); }, ops);
}

}  // namespace detail

}  // namespace dmap
