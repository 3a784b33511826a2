// The iteration engine behind forall and reduce: the leader's local pieces become dense
// rects, cut into chunks on oneTBB; each operand follows a chunk with a row cursor, and the
// body runs over each row in a plain loop (contiguous rows vectorise).
#pragma once

#include <cstddef>
#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../dsi/detail/chunks.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/detail/tasks.hpp"
#include "../zip.hpp"
#include "operands.hpp"
#include "staging.hpp"

namespace dmap::detail {

/// The operands of one loop (1 for a plain iterand, several for a zip), leader first.
template <class... X>
struct loop_operands {
  std::tuple<operand<X>...> ops;
  static constexpr std::size_t N = std::tuple_element_t<0, std::tuple<operand<X>...>>::rank;
  static_assert(((operand<X>::rank == N) && ...),
                "dmap::zip: all iterands must have the same number of dimensions");
  /// True when every operand is an array (so a loop may walk storage instead of pieces).
  static constexpr bool all_walk_storage = (operand<X>::walks_storage && ...);
  /// Set when an operand is moved-from on this locale (an argument_error not yet thrown: the
  /// loop's first agreement throws it on every locale, so other locales never wait for it).
  std::exception_ptr refused{};
};

/// Throws argument_error when iterand `x` is a moved-from array or domain (it has no
/// index set); other iterands are always whole. `who` names the call.
template <class X>
void check_live_iterand(const X& x, const char* who) {
  using Y = std::remove_const_t<X>;
  if constexpr (is_array_v<Y>) {
    if (!state_of(x.domain()))
      throw argument_error(std::string(who) + ": an iterand is a moved-from array; it has no domain or elements");
  } else if constexpr (requires { state_of(x); }) {
    if (!state_of(x)) throw argument_error(std::string(who) + ": an iterand is a moved-from domain; it has no indices");
  }
}

/// The loop operands of `x`; a moved-from iterand is recorded in `refused`, not thrown
/// (see loop_refusal). `who` names the call in that error.
template <class X>
loop_operands<X> operands_of(X& x, const char* who = "dmap::forall/reduce") {
  loop_operands<X> ops{std::tuple<operand<X>>(operand<X>{x})};
  ops.refused = exception_of([&] { check_live_iterand(x, who); });
  return ops;
}
template <class... X>
loop_operands<std::remove_reference_t<X>...> operands_of(zipped<X...>& z, const char* who = "dmap::forall/reduce") {
  return std::apply(
      [who](auto&... x) {
        loop_operands<std::remove_reference_t<X>...> ops{
            std::tuple<operand<std::remove_reference_t<X>>...>(operand<std::remove_reference_t<X>>{x}...)};
        ops.refused = exception_of([&] { (check_live_iterand(x, who), ...); });
        return ops;
      },
      z.iterands);
}
template <class... X>
auto operands_of(const zipped<X...>& z, const char* who = "dmap::forall/reduce") {
  return operands_of(const_cast<zipped<X...>&>(z), who);
}

/// Throws shape_error unless every operand has the leader's shape.
template <class Ops>
void check_shapes(const Ops& ops) {
  const auto& lead = std::get<0>(ops.ops);
  std::apply(
      [&](const auto&... op) {
        std::size_t k = 0;
        ((++k, op.whole().shape() == lead.whole().shape()
                   ? void()
                   : throw shape_error("dmap::zip: operand " + std::to_string(k - 1) + " (" +
                                       op.describe() + ") has another shape than the leader (" +
                                       lead.describe() + "); zipped iterands need equal shapes")),
         ...);
      },
      ops.ops);
}

/// Why this locale cannot run a loop over `ops` (a moved-from operand, operands of different
/// shapes), or null. Not collective: a loop passes it to its first agreement, so a locale that
/// refuses and the locales that do not fail together instead of waiting for each other.
template <class Ops>
std::exception_ptr loop_refusal(const Ops& ops) noexcept {
  if (ops.refused) return ops.refused;
  return exception_of([&] { check_shapes(ops); });
}

/// True when `op` certainly stores the leader's pieces where the leader does: arrays and
/// domains of the leader's domain, views of one domain through the same mapping.
template <class Lead, class Op>
bool same_placement(const Lead& lead, const Op& op) {
  if constexpr (Lead::is_view && Op::is_view) return lead.key().same_as(op.key());
  else return lead.state() != nullptr && op.state() == lead.state();
}

/// The neighbourhoods of arrays over a domain that every locale found stored around that
/// domain's own pieces (the leader's, when the leader is an array or the domain itself), for
/// the domain's current index set: a stencil loop that zips one again needs no agreement on
/// alignment. Kept on the domain; entries are added on every locale alike, after the agreement
/// that found them served everywhere, so every locale skips the same agreements.
template <std::size_t N>
struct served_neighbourhoods {
  struct entry {
    placement_key view;  // the viewed array's domain at one generation, through one view
    rect<N> whole;       // the view's indices
    idx<N> radius;
  };
  std::vector<entry> entries;
};

/// The neighbourhood cache of `op` when it is a neighbourhood of an array over the leader's
/// domain (the leader's pieces are then that domain's own), else null.
template <class Lead, class Op>
auto* neighbourhood_cache(const Lead& lead, const Op& op) {
  constexpr std::size_t N = Lead::rank;
  served_neighbourhoods<N>* cache = nullptr;
  if constexpr (requires { op.base_state(); }) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(op.base_state())>, domain_state<N>>)
      if (lead.state() != nullptr && lead.state() == &op.base_state())
        cache = &op.base_state().caches.template get<served_neighbourhoods<N>>();
  }
  return cache;
}

/// True when `op` is a neighbourhood that every locale found served for the leader's pieces,
/// under the current index set (see served_neighbourhoods).
template <class Lead, class Op>
bool known_served(const Lead& lead, const Op& op) {
  if constexpr (requires { op.radius(); }) {
    if (auto* cache = neighbourhood_cache(lead, op)) {
      const placement_key key = op.key();
      for (const auto& e : cache->entries)
        if (e.view.same_as(key) && e.whole == op.whole() && e.radius == op.radius()) return true;
    }
  }
  return false;
}

/// Records the neighbourhoods among `ops` as served for the leader's pieces (called on every
/// locale once an agreement found every operand aligned everywhere); drops entries of other
/// index sets.
template <class Ops>
void remember_served(const Ops& ops) {
  const auto& lead = std::get<0>(ops.ops);
  std::apply([&](const auto&... op) {
    ([&] {
      if constexpr (requires { op.radius(); }) {
        if (known_served(lead, op)) return;
        if (auto* cache = neighbourhood_cache(lead, op)) {
          const placement_key key = op.key();
          std::erase_if(cache->entries, [&](const auto& e) { return e.view.expired() || e.view.generation != key.generation; });
          constexpr std::size_t most = 16;  // a program's stencil loops over one domain: few shapes
          if (cache->entries.size() >= most) cache->entries.erase(cache->entries.begin());
          cache->entries.push_back({key, op.whole(), op.radius()});
        }
      }
    }(), ...);
  }, ops.ops);
}

/// Collective. The operands (bit k for operand k) that cannot serve every one of the
/// leader's pieces from local storage on some locale: followers that are not aligned. A
/// follower that throws while asked (on any locale) makes every locale throw. No agreement
/// when every follower certainly is aligned: of the leader's placement, or a neighbourhood
/// found served before (served_neighbourhoods).
template <class Ops, std::size_t N>
std::uint64_t misaligned_operands(const Ops& ops, const std::vector<dense_rect<N>>& dense_pieces,
                                  const call_arguments& args) {
  static_assert(std::tuple_size_v<decltype(ops.ops)> <= 63, "dmap::zip: at most 63 iterands");
  constexpr std::uint64_t failed = std::uint64_t{1} << 63;  // a follower threw on that locale
  const auto& lead = std::get<0>(ops.ops);
  const auto* lead_state = lead.state();
  bool trivially = true;
  std::apply([&](const auto&... op) {
    ((trivially = trivially && (same_placement(lead, op) || known_served(lead, op))), ...);
  }, ops.ops);
  if (trivially) return 0;
  std::uint64_t mine = 0;
  std::exception_ptr failure;
  try {
    std::apply(
        [&](const auto&... op) {
          int k = 0;
          (([&] {
             // The leader's domain serves itself; others are asked piece by piece, with the
             // piece's position as the hint an aligned follower answers at once.
             if (op.state() != lead_state || op.state() == nullptr)
               for (std::size_t j = 0; j < dense_pieces.size(); ++j)
                 if (!op.follow(undensify(op.whole(), dense_pieces[j]), j)) {
                   mine |= std::uint64_t{1} << k;
                   break;
                 }
             ++k;
           }()),
           ...);
        },
        ops.ops);
  } catch (...) {
    failure = std::current_exception();
    mine |= failed;
  }
  // The loop's agreement on its operands rides on the same reduction: locales that zip
  // other operands (which may decide alignment differently) fail here together.
  const std::uint64_t all = agree(failure, args, mine);
  if (all == 0) remember_served(ops);
  return all;
}

/// The operands of one loop with its misaligned followers replaced by their staging arrays
/// (collective: the staging is built or reused, and the followers' elements copied in), and
/// what to copy back afterwards.
template <class Ops>
struct staged_operands {
  Ops ops;
  std::vector<std::pair<std::shared_ptr<const void>, std::function<void()>>> write_back;
};

template <class Op>
Op staged_operand(const Op& op, void* staging) {
  if constexpr (Op::stageable) {
    if (staging != nullptr) return op.restaged(*static_cast<typename Op::array_type*>(staging));
  }
  return op;
}

/// Stages the operands in `mask`; those in `written` (and not const) are copied back after
/// the loop.
template <class Ops, std::size_t... K>
staged_operands<Ops> stage(const Ops& ops, std::uint64_t mask, std::uint64_t written, std::index_sequence<K...>) {
  const auto& lead = std::get<0>(ops.ops);
  std::array<void*, sizeof...(K)> staging{};
  std::vector<std::pair<std::shared_ptr<const void>, std::function<void()>>> back;
  const auto one = [&](const auto& op, std::size_t k) {
    using op_t = std::remove_cvref_t<decltype(op)>;
    if (!(mask >> k & 1)) return;
    if constexpr (op_t::stageable) {
      using T = typename op_t::value_type;
      constexpr std::size_t N = op_t::rank;
      const auto& entry = staged(lead, op, k);
      const auto& z = entry.array;
      pending_transfer<T, N>(*entry.in, op.data(), z->local_data(), true, access::segment(*z)).finish();
      staging[k] = z.get();
      if constexpr (op_t::writable) {
        if (written >> k & 1) {
          auto out = entry.out;
          T* target = op.data();
          const node_segment* target_node = op.segment();
          back.push_back({z, [out, z, target, target_node] {
                            pending_transfer<T, N>(*out, z->local_data(), target, true, target_node).finish();
                          }});
        }
      }
    } else {
      throw unsupported_error("dmap::zip: operand " + std::to_string(k) + " (" + op.describe() +
                              ") is not aligned with the leader (" + lead.describe() +
                              ") and cannot be staged");
    }
  };
  (one(std::get<K>(ops.ops), K), ...);
  return {Ops{std::tuple{staged_operand(std::get<K>(ops.ops), staging[K])...}}, std::move(back)};
}

/// The leader's local pieces as dense rects, cut into chunks for this locale's threads.
template <class Ops>
auto leader_chunks(const Ops& ops) {
  const auto& lead = std::get<0>(ops.ops);
  return dense_pieces_and_chunks(lead.whole(), lead.pieces(), num_threads());
}

/// Calls `row_fn(length, rows...)` for every row of `chunk`, in row-major order, with each
/// operand's row (its follower's cursor over the chunk).
template <class Ops, class RowFn>
void run_chunk(const Ops& ops, const work_chunk<Ops::N>& chunk, RowFn&& row_fn) {
  constexpr std::size_t N = Ops::N;
  auto cursors = std::apply(
      [&](const auto&... op) {
        return std::tuple{*op.follow(undensify(op.whole(), chunk.orders), chunk.piece)...};
      },
      ops.ops);
  const auto extents = chunk.orders.shape();
  for_each_row_start<N>(extents, [&](const std::array<index_t, N>& k) {
    std::apply([&](const auto&... c) { row_fn(extents[N - 1], c.row(k)...); }, cursors);
  });
}

/// The storage span of this locale when every operand is an array over the leader's own
/// domain and that domain's storage is dense: the loop may then walk [0, span) directly.
template <class Ops>
  requires Ops::all_walk_storage
std::optional<index_t> storage_span(const Ops& ops) {
  const auto* lead = std::get<0>(ops.ops).state();
  bool same = lead != nullptr && lead->dense_storage;
  std::apply([&](const auto&... op) {
    ((same = same && op.state() == lead), ...);
  }, ops.ops);
  if (!same) return std::nullopt;
  return lead->my_size;
}

/// Collective. Runs `task(i)` for i in [0, count) on the arena, then agrees on failure so
/// that an exception on one locale is rethrown on all of them.
template <class Task>
void run_tasks_agreed(std::size_t count, Task&& task, const call_arguments& args = {}) {
  std::exception_ptr failure;
  try {
    run_tasks(count, std::forward<Task>(task));
  } catch (...) {
    failure = std::current_exception();
  }
  agree(failure, args);
}

/// The arguments of a parallel loop over `ops` for the agreements it makes: every operand's
/// identity (the array or domain, the view) in order.
template <class Ops>
call_arguments loop_arguments(const Ops& ops) {
  fingerprint f;
  f.add(std::string_view("dmap parallel loop"));
  std::apply([&](const auto&... op) { (f.add(op.identity()), ...); }, ops.ops);
  return {"dmap::forall / dmap::reduce", f.value(), [&ops] {
            std::string s = "zip(";
            std::apply([&](const auto&... op) { ((s += op.describe() + "; "), ...); }, ops.ops);
            return s + ")";
          }};
}

/// Collective. The whole protocol of one parallel loop over `ops`. Arrays over one domain
/// with dense storage walk that storage, one contiguous run per thread (the split their
/// first touch used). Otherwise: shape check, then the leader's chunks, each followed by
/// every operand's cursor; followers that are not aligned with the leader follow staging
/// copies of the leader's pieces (iterators/detail/staging.hpp), copied back after the loop
/// when their bit in `written` is set and the operand is not const. `before(task_count)` runs once the tasks are
/// known; then each task calls `task(slot, each_row)`, where `each_row(row_fn)` calls
/// `row_fn(length, rows...)` for every row the task covers.
template <class Ops, class Before, class Task>
void run_loop(const Ops& ops, Before&& before, Task&& task, std::uint64_t written) {
  const collective_scope scope;
  // A locale that refuses the loop goes straight to the agreement every other locale makes
  // first (in misaligned_operands or after its tasks), which throws its error everywhere.
  if (const auto refused = loop_refusal(ops)) agree(refused);
  const call_arguments args = loop_arguments(ops);
  if constexpr (Ops::all_walk_storage) {
    if (const auto span = storage_span(ops)) {
      const auto runs = cut_storage(*span, num_threads());
      before(runs.size());
      run_tasks_agreed(runs.size(), [&](std::size_t r) {
        const index_t first = runs[r].first, last = runs[r].second;
        task(r, [&](auto&& row_fn) {
          std::apply([&](const auto&... operands) { row_fn(last - first, operands.storage_row(first)...); },
                     ops.ops);
        });
      }, args);
      return;
    }
  }
  const auto pieces_and_chunks = leader_chunks(ops);
  const auto& chunks = pieces_and_chunks.second;  // not a structured binding: clang < 16 cannot capture one
  const std::uint64_t misaligned = misaligned_operands(ops, pieces_and_chunks.first, args);
  if (misaligned == 0) {
    before(chunks.size());
    run_tasks_agreed(chunks.size(), [&](std::size_t c) {
      task(c, [&](auto&& row_fn) { run_chunk(ops, chunks[c], row_fn); });
    }, args);
    return;
  }
  // Followers that are not aligned run on staging copies of exactly the leader's pieces.
  const auto staged = stage(ops, misaligned, written,
                            std::make_index_sequence<std::tuple_size_v<decltype(ops.ops)>>{});
  before(chunks.size());
  run_tasks_agreed(chunks.size(), [&](std::size_t c) {
    task(c, [&](auto&& row_fn) { run_chunk(staged.ops, chunks[c], row_fn); });
  }, args);
  for (const auto& [keep, copy_back] : staged.write_back) copy_back();
}

/// Calls body(rows.at(k)...) for k in [0, length), with a unit-stride loop when every row
/// is contiguous so the compiler can vectorise it. Never inlined itself: a small function of
/// its own is where GCC inlines the body into the loop (inlined into the loop protocol, a
/// large function, the body stayed a call per element: aggregator::add in a histogram).
template <class Body, class... Rows>
[[gnu::noinline]] void for_row(Body& body, index_t length, const Rows&... rows) {
  if ((rows.contiguous() && ...)) {
    for (index_t k = 0; k < length; ++k) body(rows.unit(k)...);
  } else {
    for (index_t k = 0; k < length; ++k) body(rows.at(k)...);
  }
}

}  // namespace dmap::detail
