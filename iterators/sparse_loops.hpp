// forall and reduce over sparse domains and arrays: owner computes, each locale's indices cut
// into chunks by positions (nonzeros, not rows), zipped with sparse arrays over the same
// sparse domain and with dense arrays of the parent's shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/tasks.hpp"
#include "concepts.hpp"
#include "detail/body_traits.hpp"
#include "detail/combine_partials.hpp"
#include "detail/sparse_operands.hpp"
#include "reduce.hpp"
#include "zip.hpp"

namespace dmap {

namespace detail {

template <class X>
struct sparse_iterands {
  using type = std::tuple<X>;
};
template <class... X>
struct sparse_iterands<zipped<X...>> {
  using type = std::tuple<X...>;
};

/// The operand types of a sparse loop over X (a leader or a zip), as a tuple.
template <class X>
using sparse_iterands_t = typename sparse_iterands<std::remove_cvref_t<X>>::type;

template <class Tuple>
struct sparse_args;
template <class... X>
struct sparse_args<std::tuple<X...>> {
  static constexpr bool operands = (sparse_operand_type<X> && ...);
  using type = std::tuple<typename sparse_operand<std::remove_reference_t<X>>::arg_type...>;
};

template <class X>
constexpr bool sparse_loop_operands() {
  if constexpr (!is_sparse_leader<std::remove_cvref_t<std::tuple_element_t<0, sparse_iterands_t<X>>>>)
    return false;
  else
    return sparse_args<sparse_iterands_t<X>>::operands;
}
}  // namespace detail

/// What sparse loops (forall, reduce) accept:
///
/// | form | rule (checked) |
/// |---|---|
/// | `dmap::sparse_domain<N>` (yields `idx<N>`) or `dmap::sparse_array<T, N>` (yields `T&`, `const T&` when const) | at compile time |
/// | `zip(lead, x1, ...)` led by one | at compile time: each follower a sparse domain or array, or a dense `dmap::array` (not a view, not an associative operand) |
/// | sparse followers | over the leader's sparse domain: shape_error on every locale otherwise |
/// | dense followers | of the parent's shape: shape_error on every locale otherwise; read in place when placed like the parent, staged otherwise |
template <class X>
concept sparse_iterand = detail::leads_own_loops<std::remove_cvref_t<X>> && detail::sparse_loop_operands<X>();

/// The arguments a body of a sparse loop over X receives: `idx<N>` for the sparse domain,
/// `T&` or `const T&` for arrays.
template <sparse_iterand X>
using sparse_args_t = typename detail::sparse_args<detail::sparse_iterands_t<X>>::type;

/// A body for a sparse loop over X:
///
/// | iterand | the body is called as |
/// |---|---|
/// | the sparse domain | `body(idx<N>)` |
/// | a sparse or dense array of T | `body(T&)`, or `body(const T&)` / `body(T)` for a const one |
/// | `zip(x0, x1, ...)` | `body(a0, a1, ...)`, one argument per iterand as above |
template <class Body, class X>
concept sparse_body = sparse_iterand<X> && detail::invocable_with_tuple<Body&, sparse_args_t<X>>::value;

namespace detail {

template <class X>
auto sparse_iterand_refs(X& x) {
  if constexpr (is_zip_v<std::remove_cvref_t<X>>)
    return std::apply([](auto&... i) { return std::tuple<decltype(i)...>(i...); }, x.iterands);
  else
    return std::tuple<X&>(x);
}

/// Calls f(operand, k) for each operand k of the tuple `ops`.
template <class Ops, class F>
void for_each_operand(Ops& ops, F&& f) {
  std::size_t k = 0;
  std::apply([&](auto&... op) { (f(op, k++), ...); }, ops);
}

/// True when some operand of the tuple needs the indices of each position.
template <class Ops>
struct any_needs_indices;
template <class... O>
struct any_needs_indices<std::tuple<O...>> : std::bool_constant<(O::needs_indices || ...)> {};

/// Runs a sparse loop: `chunk(c, rows)` runs chunk c, where rows(each_row) hands
/// `each_row(length, rows...)` one row per operand for each batch of positions (at most
/// sparse_batch positions of one piece). Stages misaligned
/// dense followers before, agrees on failure, writes back written ones after.
template <class X, class Prepare, class Chunk>
void run_sparse_loop(X& iterand, Prepare&& prepare, Chunk&& chunk, std::uint64_t written) {
  auto refs = sparse_iterand_refs(iterand);
  const std::remove_reference_t<decltype(sparse_state_of(std::get<0>(refs)))>* leader = nullptr;
  std::exception_ptr failure;
  // Operands (checks that may fail on one locale only are agreed, the leader's too).
  auto ops = agreed([&] {
    const auto& lead = sparse_state_of(std::get<0>(refs));
    leader = &lead;
    return std::apply(
        [&](auto&... r) {
          return std::tuple<sparse_operand<std::remove_reference_t<decltype(r)>>...>(
              sparse_operand<std::remove_reference_t<decltype(r)>>(r, lead)...);
        },
        refs);
  });
  const auto& lead = *leader;
  // Misaligned dense followers: one bitwise-or tells every locale which to stage.
  std::uint64_t misaligned = 0;
  bool any_dense = false;
  for_each_operand(ops, [&](auto& op, std::size_t k) {
    if constexpr (std::remove_cvref_t<decltype(op)>::may_stage) {
      any_dense = true;
      if (!op.aligned) misaligned |= std::uint64_t{1} << k;
    }
  });
  if (any_dense && num_locales() > 1) misaligned = all_reduce_bit_or(misaligned);
  for_each_operand(ops, [&](auto& op, std::size_t k) {
    if constexpr (std::remove_cvref_t<decltype(op)>::may_stage) op.gather(lead, (misaligned >> k) & 1);
  });

  const index_t size = lead.local_size();
  const auto threads = static_cast<index_t>(env().threads());
  const index_t chunks = size == 0 ? 0 : std::max<index_t>(1, std::min(threads, (size + 2047) / 2048));
  constexpr bool indices = any_needs_indices<decltype(ops)>::value;
  try {
    prepare(static_cast<std::size_t>(chunks));
    run_tasks(static_cast<std::size_t>(chunks), [&](std::size_t c) {
      const index_t first = size * static_cast<index_t>(c) / chunks;
      const index_t last = size * static_cast<index_t>(c + 1) / chunks;
      idx<std::remove_cvref_t<decltype(lead)>::rank> ids[indices ? sparse_batch : 1];
      chunk(c, [&](auto&& each_row) {
        std::size_t piece = lead.piece_at(first);
        for (index_t b = first; b < last;) {
          while (lead.offsets[piece + 1] <= b) ++piece;
          const index_t e = std::min({last, b + static_cast<index_t>(sparse_batch), lead.offsets[piece + 1]});
          if constexpr (indices) lead.layouts[piece]->decode(b - lead.offsets[piece], e - lead.offsets[piece], ids);
          std::apply([&](const auto&... op) { each_row(e - b, op.row(b, piece, ids)...); }, ops);
          b = e;
        }
      });
    });
  } catch (...) {
    failure = std::current_exception();
  }
  agree(failure);
  for_each_operand(ops, [&](auto& op, std::size_t k) {
    if constexpr (std::remove_cvref_t<decltype(op)>::may_stage)
      if (((misaligned & written) >> k) & 1) op.write_back();
  });
}

}  // namespace detail

/// Collective: runs `body` once per index of a sparse domain (or element of a sparse array),
/// on the locale that owns it, in parallel on its threads; chunks are cut by positions
/// (nonzeros), so rows of very different lengths do not unbalance the threads:
///   forall(S, [](idx<2> i) {...})
///   forall(A, [](double& a) {...})                                   values of a sparse array
///   forall(zip(A, B, S, X), [](double& a, const double& b, idx<2> i, double& x) {...})
/// Zipped sparse arrays must be over the leader's sparse domain; a dense array of the
/// parent's shape is read at each index: in place when its domain is placed like the parent
/// (the parent itself, or the same map over the same indices), otherwise gathered before the
/// loop and written back after it when the body may write it (as for dense zips). An
/// exception thrown by the body on any locale is rethrown on every locale.
template <class Iterand, class Body>
  requires sparse_iterand<Iterand> && sparse_body<Body, Iterand>
void forall(Iterand&& iterand, Body&& body) {
  const detail::collective_scope scope;
  constexpr std::size_t count = std::tuple_size_v<sparse_args_t<Iterand>>;
  constexpr std::uint64_t written = detail::parameters_written<Body>(std::make_index_sequence<count>{});
  detail::run_sparse_loop(
      iterand, [](std::size_t) {},
      [&](std::size_t, auto&& rows) {
        rows([&](index_t length, const auto&... row) { detail::for_row(body, length, row...); });
      },
      written);
}

/// A misuse of forall over a sparse iterand: says which rule it breaks.
template <class Iterand, class Body>
  requires(detail::leads_own_loops<std::remove_cvref_t<Iterand>> &&
           detail::is_sparse_leader<std::remove_cvref_t<std::tuple_element_t<0, detail::sparse_iterands_t<Iterand>>>> &&
           !sparse_body<Body, Iterand>)
void forall(Iterand&&, Body&&) {
  if constexpr (!sparse_iterand<Iterand>)
    static_assert(detail::misuse<Iterand, Body>,
                  "dmap::forall: a zip led by a sparse domain or array takes sparse arrays over that domain, the "
                  "domain itself and dense dmap::arrays of the parent's shape (concept dmap::sparse_iterand)");
  else
    static_assert(detail::misuse<Iterand, Body>,
                  "dmap::forall: the body must be callable with one argument per zipped iterand: idx<N> for the "
                  "sparse domain, T& or const T& for arrays (concept dmap::sparse_body)");
}

/// Collective: folds `transform(arguments...)` of every index of a sparse iterand with `op`
/// from `init`; the same result on every locale, grouped by chunk in order and then along
/// the fixed tree over the locales (as dense reduce), so repeated runs give identical bits.
template <class Iterand, class T, class Op, class Transform>
  requires sparse_iterand<Iterand> && reduction_op<Op, T> && sparse_body<Transform, Iterand>
[[nodiscard]] T reduce(Iterand&& iterand, T init, Op op, Transform transform) {
  const detail::collective_scope scope;
  static_assert(std::is_trivially_copyable_v<T>, "dmap::reduce: the result type must be trivially copyable");
  std::vector<detail::partial<T>> partials;
  detail::run_sparse_loop(
      iterand, [&](std::size_t chunks) { partials.assign(chunks, detail::partial<T>{init, 0}); },
      [&](std::size_t c, auto&& rows) {
        T acc = init;
        bool has = false;
        rows([&](index_t length, const auto&... row) { detail::reduce_row(acc, has, op, transform, length, row...); });
        partials[c] = {acc, has ? 1 : 0};
      },
      0);
  return detail::combine_partials(partials, init, op, false, nullptr);
}

/// Collective: folds the values of a sparse array (or the indices of a sparse domain) with
/// `op` (a sum by default) from `init`. Absent indices do not take part (the implicit value
/// is not folded in).
template <class Iterand, class T, class Op = std::plus<>>
  requires sparse_iterand<Iterand> && (!detail::is_zip_v<std::remove_cvref_t<Iterand>>) && reduction_op<Op, T>
[[nodiscard]] T reduce(Iterand&& iterand, T init, Op op = {}) {
  return reduce(std::forward<Iterand>(iterand), init, op, detail::identity_transform{});
}

}  // namespace dmap
