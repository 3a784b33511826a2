// The machinery behind sparse_loops.hpp (not part of the API): sparse_iterands,
// sparse_iterands_t, sparse_args, sparse_loop_operands, sparse_iterand_refs, for_each_operand,
// any_needs_indices, run_sparse_loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/tasks.hpp"
#include "../concepts.hpp"
#include "../reduce.hpp"
#include "../zip.hpp"
#include "body_traits.hpp"
#include "combine_partials.hpp"
#include "sparse_operands.hpp"

namespace dmap::detail {

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

}  // namespace dmap::detail
