// forall and reduce over associative domains and arrays, and zips of them over one domain:
// owner computes, each locale's table slots cut into chunks for its threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dsi/associative_array.hpp"
#include "../dsi/associative_domain.hpp"
#include "concepts.hpp"
#include "detail/associative_loops.hpp"
#include "detail/combine_partials.hpp"
#include "detail/engine.hpp"
#include "zip.hpp"

namespace dmap {

/// A single thing an associative loop iterates (any reference, const or not):
///
/// | iterand | yields to the body |
/// |---|---|
/// | `dmap::associative_domain<Key, Hash, Mapper>` | `const Key&`, each key on its owner |
/// | `dmap::associative_array<T, Key, ...>` | `T&` (`const T&` for a const array), each value on its key's owner |
template <class X>
concept associative_iterand =
    detail::is_associative_domain_v<std::remove_cvref_t<X>> || detail::is_associative_array_v<std::remove_cvref_t<X>>;

/// What forall and reduce over associative domains and arrays accept:
///
/// | form | rule (checked) |
/// |---|---|
/// | an associative_iterand | at compile time |
/// | `zip(x0, x1, ...)` of associative_iterands | at compile time; all over x0's domain: shape_error on every locale otherwise |
///
/// Dense and sparse operands do not zip with associative ones (a compile-time error naming
/// this concept): they are placed by index, associative ones by key.
template <class X>
concept associative_loop_iterand = associative_iterand<X> || detail::is_associative_zip_v<std::remove_cvref_t<X>>;

/// The arguments a body of an associative loop over X receives, as a std::tuple: `const
/// Key&` for the domain, `T&` or `const T&` for arrays, one per zipped iterand.
template <associative_loop_iterand X>
using associative_args_t = typename detail::associative_loop_args<std::remove_cvref_t<X>>::type;

/// A body for an associative loop over X:
///
/// | iterand | the body is called as |
/// |---|---|
/// | an associative domain | `body(const Key&)` |
/// | an associative array of T | `body(T&)`, or `body(const T&)` for a const array |
/// | `zip(x0, x1, ...)` | `body(a0, a1, ...)`, one argument per iterand as above |
template <class Body, class X>
concept associative_body =
    associative_loop_iterand<X> && detail::invocable_with_tuple<Body&, associative_args_t<X>>::value;

/// Collective: runs `body` once per key of an associative domain (`body(const Key&)`), per
/// value of an associative array (`body(T&)`, `body(const T&)` for a const array), or per
/// key of a zip of them over one domain (`forall(zip(A, B, D), [](T& a, const U& b, const
/// Key& k) {...})`), on the locale that owns the key, in parallel on its threads (slot
/// order within a chunk). A zip operand over another domain is a shape_error. An exception
/// thrown by the body on any locale is rethrown on every locale.
template <class X, class Body>
  requires associative_loop_iterand<X> && associative_body<Body, X>
void forall(X&& x, Body&& body) {
  const detail::collective_scope scope;
  const auto ops = detail::agreed_associative_operands(x, "dmap::forall");
  const auto& table = detail::associative_lead_table(x);
  const std::uint8_t* states = table.states().data();
  const std::size_t capacity = table.capacity();
  const std::size_t size = detail::slot_chunk_size(capacity);
  const std::size_t chunks = (capacity + size - 1) / size;
  detail::run_tasks_agreed(chunks, [&](std::size_t c) {
    const std::size_t end = std::min(capacity, (c + 1) * size);
    for (std::size_t s = c * size; s < end; ++s)
      if (states[s] == 1) std::apply(body, detail::slot_args(ops, s));
  });
}

/// A misuse of forall over an associative iterand: says which rule it breaks.
template <class X, class Body>
  requires(detail::leads_own_loops<std::remove_cvref_t<X>> &&
           (associative_iterand<X> || detail::is_associative_leader<std::remove_cvref_t<X>>) &&
           !associative_body<Body, X>)
void forall(X&&, Body&&) {
  if constexpr (!associative_loop_iterand<X>)
    static_assert(detail::misuse<X, Body>,
                  "dmap::forall: a zip led by an associative domain or array takes only associative domains and "
                  "arrays (over the leader's domain); dense and sparse operands do not zip with them (concept "
                  "dmap::associative_loop_iterand)");
  else
    static_assert(detail::misuse<X, Body>,
                  "dmap::forall: the body must take one argument per zipped iterand: the key (const Key&) of an "
                  "associative domain, a value (T&, or const T& for a const array) of an associative array (concept "
                  "dmap::associative_body)");
}

/// Collective: folds `transform(elements...)` of every key of an associative domain, array
/// or zip of them with `op`, starting from `init`, and returns the same result on every
/// locale. `op` must be associative and commutative; the grouping is fixed by the tables,
/// the thread count and the number of locales (chunk by chunk in slot order, then the
/// binomial tree over locales of dmap::reduce), so repeated runs give identical bits. An
/// exception from `transform` or `op` on any locale is rethrown on every locale.
template <class X, class T, class Op, class Transform>
  requires associative_loop_iterand<X> && std::is_trivially_copyable_v<T> && reduction_op<Op, T> &&
           associative_body<Transform, X>
[[nodiscard]] T reduce(X&& x, T init, Op op, Transform transform) {
  const detail::collective_scope scope;
  const auto ops = detail::agreed_associative_operands(x, "dmap::reduce");
  const auto& table = detail::associative_lead_table(x);
  const std::uint8_t* states = table.states().data();
  const std::size_t capacity = table.capacity();
  const std::size_t size = detail::slot_chunk_size(capacity);
  const std::size_t chunks = (capacity + size - 1) / size;
  std::vector<detail::partial<T>> partials(chunks, detail::partial<T>{init, 0});
  detail::run_tasks_agreed(chunks, [&](std::size_t c) {
    T acc = init;
    bool has = false;
    const std::size_t end = std::min(capacity, (c + 1) * size);
    for (std::size_t s = c * size; s < end; ++s) {
      if (states[s] != 1) continue;
      const T v = static_cast<T>(std::apply(transform, detail::slot_args(ops, s)));
      acc = has ? static_cast<T>(op(acc, v)) : v;
      has = true;
    }
    partials[c] = {acc, has ? 1 : 0};
  });
  return detail::combine_partials(partials, init, op, false, nullptr);
}

/// A misuse of reduce over a zip led by an associative iterand: says which rule it breaks.
template <class X, class T, class... Rest>
  requires(detail::is_associative_leader<std::remove_cvref_t<X>> && !associative_loop_iterand<X>)
T reduce(X&&, T init, Rest&&...) {
  static_assert(detail::misuse<X, T>,
                "dmap::reduce: a zip led by an associative domain or array takes only associative domains and arrays "
                "(over the leader's domain); dense and sparse operands do not zip with them (concept "
                "dmap::associative_loop_iterand)");
  return init;
}

/// Collective: folds the keys of an associative domain or the values of an associative
/// array with `op` (a sum by default), starting from `init`. A zip needs the transform that
/// combines its elements (the four-argument form).
template <class X, class T, class Op = std::plus<>>
  requires associative_iterand<X> && std::is_trivially_copyable_v<T> && reduction_op<Op, T>
[[nodiscard]] T reduce(X&& x, T init, Op op = {}) {
  return reduce(std::forward<X>(x), init, op, [](const auto& v) -> decltype(auto) { return v; });
}

}  // namespace dmap
