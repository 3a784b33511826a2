// The machinery behind spmv.hpp (not part of the API): the plan of a sparse matrix-vector
// product (which x values each locale needs from which owner, where each row sum lands), its
// cache on the sparse domain, and the product run through it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/detail/plan_cache.hpp"
#include "../../dsi/sparse_array.hpp"
#include "../../dsi/sparse_domain.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../../runtime/detail/buffers.hpp"
#include "../../runtime/detail/messages.hpp"
#include "../../runtime/detail/tasks.hpp"

namespace dmap::detail {

/// The plan of y = A x on this locale: the local product as runs of row segments, the x
/// values to send and receive, and the partial row sums to send, receive and add.
///
/// Entries (this locale's nonzeros) are numbered in the order the product walks them: the
/// positions of A's values when every row's nonzeros are consecutive positions and, among
/// them, the ones in columns whose x value is owned here are consecutive too (CSR storage of
/// one piece with x cut into ranges of columns, as Block is); else sorted by (row, received
/// or not, column), with `value_of` giving each entry's value position. Segment s holds
/// entries [segment_start[s], segment_start[s + 1]): one row. Rows whose x values are all
/// owned here (phase 0) read x's storage directly while the messages fly. The other rows
/// (phase 1, PETSc's split into a diagonal and an off-diagonal part) sum their local entries
/// from x's storage while the messages fly, then add their other entries from the received
/// values: each such row keeps where its local entries lie (`local_part`).
struct spmv_plan {
  /// Consecutive segments [s0, s1) of one phase whose sums go to consecutive destinations:
  /// y's storage from offset `to` (partial == false) or the partial-sum buffer from `to`;
  /// in phase 1, segment s0 is the g0-th row of `local_part`.
  struct run {
    index_t s0 = 0, s1 = 0, to = 0, g0 = 0;
    bool partial = false;
  };
  /// A block of values exchanged with one peer: elements [first, first + count) of the
  /// buffer concerned.
  struct part {
    int locale = 0;
    index_t first = 0, count = 0;
  };

  index_t entries = 0;                        ///< this locale's nonzeros
  std::vector<index_t> segment_start;         ///< segments' first entries, plus the end
  std::vector<index_t> value_of;              ///< value position of each entry; empty: the entry's own
  std::vector<std::uint32_t> column32;        ///< per entry: x storage offset, or received slot
  std::vector<std::uint64_t> column64;        ///< the same when some offset needs 64 bits
  /// Phase 1 rows: their local entries are [start + first, start + second) of their entries.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> local_part;
  std::vector<run> runs[2];                   ///< phase 0 (local columns only), phase 1
  std::vector<std::size_t> chunks[2];         ///< task c of a phase runs runs[c]..runs[c + 1]
  index_t phase_entries[2] = {0, 0};          ///< entries per phase

  index_t ghosts = 0;                         ///< distinct x values received per product
  std::vector<part> x_receive;                ///< into the received values [first, first + count)
  std::vector<part> x_send;                   ///< packed from x storage[x_send_offsets[first ..)]
  std::vector<std::uint32_t> x_send32;        ///< x_send_offsets when x's storage needs 32 bits
  std::vector<std::uint64_t> x_send64;        ///< else

  std::vector<std::pair<index_t, index_t>> y_zero;  ///< (offset, count) runs of y storage with no local row
  index_t partials = 0;                       ///< partial sums sent
  std::vector<part> y_send;                   ///< partial buffer [first, first + count) to locale
  std::vector<part> y_receive;                ///< received partials [first, first + count)
  std::vector<index_t> y_add_offsets;         ///< y storage[y_add_offsets[t]] += received[t]
  index_t received_partials = 0;              ///< y_add_offsets.size()
};

/// The plans kept on a sparse domain: one per (version, x placement, y placement).
struct spmv_plans {
  /// One kept plan and what it was built for.
  struct entry {
    std::uint64_t version = 0;
    placement_key x, y;
    std::shared_ptr<const spmv_plan> plan;
  };
  std::vector<entry> entries;
  /// Plans kept per sparse domain; the oldest goes first.
  static constexpr std::size_t capacity = 8;
};

// Runs `f(first, last)` over [0, n) cut into one contiguous block per thread (n large), or
// at once (small n): packing loops.
template <class F>
void blocked_loop(index_t n, F&& f) {
  const std::size_t threads = static_cast<std::size_t>(env().threads());
  const std::size_t tasks = n < 65536 ? 1 : threads;
  run_tasks(tasks, [&](std::size_t t) {
    const index_t first = n * static_cast<index_t>(t) / static_cast<index_t>(tasks);
    const index_t last = n * static_cast<index_t>(t + 1) / static_cast<index_t>(tasks);
    f(first, last);
  });
}

/// Collective: the plan of y = A x for the sparse domain `a` (2-D; rows along dimension 0,
/// columns along dimension 1) and 1-D domains `xd` (one index per column) and `yd` (one per
/// row). One exchange carries the requests (the x values each locale needs from each owner,
/// the rows it sends partial sums of); the local steps around it agree on failure, so an
/// error on one locale never leaves the others waiting. Compiled in the library
/// (algorithms/detail/spmv_plan.cpp).
spmv_plan build_spmv_plan(const sparse_domain<2>& a, const domain<1>& xd, const domain<1>& yd);

/// What a pass over runs sums: whole rows (phase 0), the local entries of phase 1 rows (out
/// = their sum), or their received entries (out += their sum).
enum class spmv_pass { whole, local_part, received_part };

/// The sums of one block of runs: out[to + (s - s0)] = (or += for the received part) the
/// sum over segment s's entries of the pass of value * x, read from `xs` at their columns.
template <spmv_pass Pass, class T, class Column, bool Indirect>
void spmv_runs(const spmv_plan& plan, const spmv_plan::run* first, const spmv_plan::run* last, const T* values,
               const Column* column, const T* xs, T* y, T* partial) {
  const index_t* start = plan.segment_start.data();
  const index_t* value_of = plan.value_of.data();
  const auto* local = plan.local_part.data();
  for (const auto* r = first; r != last; ++r) {
    T* out = r->partial ? partial : y;
    for (index_t s = r->s0; s < r->s1; ++s) {
      const index_t b = start[s], end = start[s + 1];
      T sum{};
      if constexpr (Pass == spmv_pass::whole) {
        for (index_t e = b; e < end; ++e) sum += values[Indirect ? value_of[e] : e] * xs[column[e]];
        out[r->to + (s - r->s0)] = sum;
      } else {
        const auto& part = local[r->g0 + (s - r->s0)];
        const index_t lb = b + static_cast<index_t>(part.first), le = b + static_cast<index_t>(part.second);
        if constexpr (Pass == spmv_pass::local_part) {
          for (index_t e = lb; e < le; ++e) sum += values[Indirect ? value_of[e] : e] * xs[column[e]];
          out[r->to + (s - r->s0)] = sum;
        } else {
          for (index_t e = b; e < lb; ++e) sum += values[Indirect ? value_of[e] : e] * xs[column[e]];
          for (index_t e = le; e < end; ++e) sum += values[Indirect ? value_of[e] : e] * xs[column[e]];
          out[r->to + (s - r->s0)] += sum;
        }
      }
    }
  }
}

/// Runs one pass over a phase's blocks on this locale's arena.
template <spmv_pass Pass, class T>
void spmv_phase(const spmv_plan& plan, int phase, const T* values, const T* xs, T* y, T* partial) {
  const auto& chunks = plan.chunks[phase];
  if (chunks.size() < 2) return;
  const auto* runs = plan.runs[phase].data();
  run_tasks(chunks.size() - 1, [&](std::size_t c) {
    const auto* first = runs + chunks[c];
    const auto* last = runs + chunks[c + 1];
    if (!plan.column32.empty()) {
      if (plan.value_of.empty()) spmv_runs<Pass, T, std::uint32_t, false>(plan, first, last, values, plan.column32.data(), xs, y, partial);
      else spmv_runs<Pass, T, std::uint32_t, true>(plan, first, last, values, plan.column32.data(), xs, y, partial);
    } else {
      if (plan.value_of.empty()) spmv_runs<Pass, T, std::uint64_t, false>(plan, first, last, values, plan.column64.data(), xs, y, partial);
      else spmv_runs<Pass, T, std::uint64_t, true>(plan, first, last, values, plan.column64.data(), xs, y, partial);
    }
  });
}

/// Collective: y = A x with `plan` (built for A's domain and x's and y's placements).
template <class T>
void run_spmv(const spmv_plan& plan, std::span<const T> values, const T* x, T* y) {
  auto& pool = message_buffers();
  const auto bytes = [](index_t count) { return static_cast<std::size_t>(count) * sizeof(T); };
  const auto sent = static_cast<index_t>(plan.x_send32.size() + plan.x_send64.size());
  pooled_buffer ghost_buffer = pool.take(bytes(plan.ghosts));
  pooled_buffer send_buffer = pool.take(bytes(sent));
  pooled_buffer partial_buffer = pool.take(bytes(plan.partials));
  pooled_buffer received_buffer = pool.take(bytes(plan.received_partials));
  T* ghost = ghost_buffer.as<T>();
  T* send = send_buffer.as<T>();
  T* partial = partial_buffer.as<T>();
  T* received = received_buffer.as<T>();

  message_batch x_messages, y_messages;
  for (const auto& r : plan.x_receive) x_messages.receive(r.locale, ghost + r.first, bytes(r.count));
  for (const auto& r : plan.y_receive) y_messages.receive(r.locale, received + r.first, bytes(r.count));
  blocked_loop(sent, [&](index_t first, index_t last) {
    if (!plan.x_send32.empty()) {
      const std::uint32_t* offsets = plan.x_send32.data();
      for (index_t t = first; t < last; ++t) send[t] = x[offsets[t]];
    } else {
      const std::uint64_t* offsets = plan.x_send64.data();
      for (index_t t = first; t < last; ++t) send[t] = x[offsets[t]];
    }
  });
  for (const auto& s : plan.x_send) x_messages.send(s.locale, send + s.first, bytes(s.count));

  // While the x values travel: every entry whose x value is owned here, and the zeros.
  spmv_phase<spmv_pass::whole, T>(plan, 0, values.data(), x, y, partial);
  spmv_phase<spmv_pass::local_part, T>(plan, 1, values.data(), x, y, partial);
  for (const auto& [offset, count] : plan.y_zero) std::fill(y + offset, y + offset + count, T{});
  x_messages.wait();
  spmv_phase<spmv_pass::received_part, T>(plan, 1, values.data(), ghost, y, partial);
  for (const auto& s : plan.y_send) y_messages.send(s.locale, partial + s.first, bytes(s.count));
  y_messages.wait();
  for (index_t t = 0; t < plan.received_partials; ++t) y[plan.y_add_offsets[static_cast<std::size_t>(t)]] += received[t];
}

/// Collective: the plan of y = A x for A's sparse domain `a` and the domains of x and y,
/// from the cache on `a` (built and kept when missing). plan_statistics() counts it.
std::shared_ptr<const spmv_plan> cached_spmv_plan(const sparse_domain<2>& a, const domain<1>& xd,
                                                  const domain<1>& yd);

}  // namespace dmap::detail
