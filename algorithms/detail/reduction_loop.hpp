// The loop behind partial reductions and locations: the engine's chunks of the leader's
// pieces (iterators/detail/engine.hpp), each row handed over with its position inside the
// chunk, so a reduction knows the dense coordinates (and so the index) of every element.
// Never the one-span storage walk: that walk forgets where an element sits.
#pragma once

#include <array>
#include <cstddef>
#include <exception>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../../iterators/detail/engine.hpp"

namespace dmap::detail {

/// Collective: the loop operands of `x` (operands_of), once every locale found them whole
/// and of one shape and `check(ops)` passed: otherwise the first locale's error (a moved-from
/// iterand reported under the name of the algorithm `who`) is thrown on every locale. The
/// operands' identities, and `also` (of the call's other arguments), are compared in the
/// same agreement.
template <class X, class Check>
auto operands_agreed(X& x, const char* who, Check&& check, std::uint64_t also = 0) {
  auto ops = operands_of(x, who);
  std::exception_ptr failure = loop_refusal(ops);
  if (!failure) failure = exception_of([&] { check(ops); });
  call_arguments args;
  if (!failure) {
    args = loop_arguments(ops);
    args.who = who;
    args.fingerprint = fingerprint().add(args.fingerprint).add(also).value();
  }
  agree(failure, args);
  return ops;
}

/// Collective (the alignment check and any staging of misaligned followers are collective;
/// the tasks are not). The operands come from operands_agreed: whole and of one shape. `before(chunks)` runs once with the
/// leader's chunks; then `task(c, each_row)` runs for every chunk c on this locale's
/// threads, where `each_row(row_fn)` calls `row_fn(k, length, rows...)` for every row of
/// chunk c in row-major order, k being the row's start inside the chunk (positions per
/// dimension, the last one 0). Returns the first exception a task threw on this locale, not
/// agreed with the other locales: the caller agrees where it next communicates anyway.
template <class Ops, class Before, class Task>
std::exception_ptr run_positioned_loop(const Ops& ops, Before&& before, Task&& task) {
  constexpr std::size_t N = Ops::N;
  const auto pieces_and_chunks = leader_chunks(ops);
  const auto& chunks = pieces_and_chunks.second;
  const std::uint64_t misaligned = misaligned_operands(ops, pieces_and_chunks.first, loop_arguments(ops));
  const auto run = [&](const auto& use) -> std::exception_ptr {
    before(pieces_and_chunks.first, chunks);
    try {
      run_tasks(chunks.size(), [&](std::size_t c) {
        const auto& chunk = chunks[c];
        task(c, [&](auto&& row_fn) {
          auto cursors = std::apply(
              [&](const auto&... op) {
                return std::tuple{*op.follow(undensify(op.whole(), chunk.orders), chunk.piece)...};
              },
              use.ops);
          const auto extents = chunk.orders.shape();
          for_each_row_start<N>(extents, [&](const std::array<index_t, N>& k) {
            std::apply([&](const auto&... cur) { row_fn(k, extents[N - 1], cur.row(k)...); }, cursors);
          });
        });
      });
    } catch (...) {
      return std::current_exception();
    }
    return nullptr;
  };
  if (misaligned == 0) return run(ops);
  const auto staged = stage(ops, misaligned, 0, std::make_index_sequence<std::tuple_size_v<decltype(ops.ops)>>{});
  return run(staged.ops);
}

}  // namespace dmap::detail
