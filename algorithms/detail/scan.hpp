// The machinery behind scan.hpp (not part of the API): the rules a scan call must keep, the
// plan of runs a scan walks, the two passes over it, and the staging of overlapping operands.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../dsi/array_traits.hpp"
#include "../../dsi/array_view.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/detail/chunks.hpp"
#include "../../iterators/concepts.hpp"
#include "../../iterators/detail/operands.hpp"
#include "../../iterators/reduce.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/tasks.hpp"
#include "linear_slabs.hpp"

namespace dmap {

namespace detail {

/// The element type of a scan input or output.
template <class X>
using scan_value_t = typename array_traits_of<X>::value_type;

/// The value a transform_inclusive_scan accumulates: what `transform` returns, decayed
/// (void when the transform cannot be called with the input's elements).
template <class In, class Tr>
struct transform_result {
  using type = void;
};
template <class In, class Tr>
  requires array_source<In> && std::is_invocable_v<Tr&, const scan_value_t<In>&>
struct transform_result<In, Tr> {
  using type = std::decay_t<std::invoke_result_t<Tr&, const scan_value_t<In>&>>;
};

/// The first rule a scan call breaks (0: none). The numbers select the message below.
template <class In, class Out, class T, class Op, class Tr>
constexpr int scan_rule_broken() {
  if constexpr (!array_source<In>) return 1;
  else if constexpr (!array_target<Out>) return 2;
  else if constexpr (array_traits_of<In>::rank != array_traits_of<Out>::rank) return 3;
  else if constexpr (!std::is_invocable_v<Tr&, const scan_value_t<In>&> ||
                     !std::convertible_to<std::invoke_result_t<Tr&, const scan_value_t<In>&>, T>)
    return 4;
  else if constexpr (!std::is_trivially_copyable_v<T> || !std::default_initializable<T>) return 5;
  else if constexpr (!reduction_op<Op, T>) return 6;
  else if constexpr (!std::is_assignable_v<scan_value_t<Out>&, const T&>) return 7;
  else return 0;
}

/// Fails the compilation with the message of rule `Rule` (see scan_rule_broken).
template <int Rule, class... X>
void scan_misuse_report() {
  static_assert(Rule != 1 || misuse<X...>,
                "dmap scans: the input must be a dmap::array or array view (concept dmap::scan_input)");
  static_assert(Rule != 2 || misuse<X...>,
                "dmap scans: the output must be a non-const dmap::array or a view of writable elements (concept "
                "dmap::scan_output)");
  static_assert(Rule != 3 || misuse<X...>,
                "dmap scans: the input and the output must have the same number of dimensions");
  static_assert(Rule != 4 || misuse<X...>,
                "dmap scans: the transform must be callable with one input element and return something "
                "convertible to the scanned type");
  static_assert(Rule != 5 || misuse<X...>,
                "dmap scans: the scanned type (the init value's, else the input's or the transform's result) must be "
                "trivially copyable and default-constructible: locales exchange partial results as bytes");
  static_assert(Rule != 6 || misuse<X...>,
                "dmap scans: the operation must combine two values of the scanned type T into one convertible to T "
                "(concept dmap::reduction_op)");
  static_assert(Rule != 7 || misuse<X...>,
                "dmap scans: the output's elements must be assignable from the scanned type");
}

/// True when the call is well formed (see scan_rule_broken).
template <class In, class Out, class T, class Op, class Tr>
concept scan_call = (scan_rule_broken<In, Out, T, Op, Tr>() == 0);

/// Operations known to be commutative on arithmetic types: their partial sums may be
/// regrouped (four accumulators) in the pass that only computes totals.
template <class Op, class T>
inline constexpr bool regroupable_op =
    std::is_arithmetic_v<T> && (std::is_same_v<Op, std::plus<>> || std::is_same_v<Op, std::plus<T>>);

/// One piece of this locale's run: a rect of input positions, contiguous in global row-major
/// order, with the cursors of the input and output over it.
template <class In, class Out, std::size_t N>
struct scan_piece {
  index_t first = 0;  // global row-major position of its first element
  index_t size = 0;
  std::array<index_t, N> extents{};
  chunk_cursor<element_row<In>, N> in;
  chunk_cursor<element_row<Out>, N> out;
};

/// This locale's part of a scan: its pieces in position order, and whether they form one run
/// of consecutive positions (`single`) whose output is stored here too (`aligned`).
template <class In, class Out, std::size_t N>
struct scan_plan {
  std::vector<scan_piece<In, Out, N>> pieces;
  bool single = true;
  bool aligned = true;
  index_t first = 0;
  index_t size = 0;
};

/// Local: this locale's plan for scanning `in` into `out` (operands of one shape).
template <class InOp, class OutOp>
auto make_scan_plan(const InOp& in, const OutOp& out) {
  constexpr std::size_t N = InOp::rank;
  using plan_t = scan_plan<typename InOp::element_type, typename OutOp::element_type, N>;
  plan_t plan;
  const rect<N>& whole = in.whole();
  const auto shape = whole.shape();
  std::array<index_t, N> weight{};
  weight[N - 1] = 1;
  for (std::size_t d = N - 1; d > 0; --d) weight[d - 1] = weight[d] * std::max<index_t>(shape[d], 1);
  // Output copies must be exactly the input's: every copy of the output is then written by
  // the locale that scans the same copy of the input.
  const auto* in_layers = in.copy_layers();
  const auto* out_layers = out.copy_layers();
  if (in.state_is_replicated() != out.state_is_replicated() || (in_layers == nullptr) != (out_layers == nullptr) ||
      (in_layers && *in_layers != *out_layers))
    plan.aligned = false;
  const auto& pieces = in.pieces();
  for (std::size_t j = 0; j < pieces.size(); ++j) {
    if (pieces[j].empty()) continue;
    const dense_rect<N> d = densify(whole, pieces[j]);
    // The piece's positions, ascending; contiguous when every dimension after some k is
    // whole, dimension k is a unit-step interval and every dimension before k one index.
    rect<N> norm;
    for (std::size_t e = 0; e < N; ++e) {
      const range& r = d.dim(e);
      if (r.size() > 1 && r.stride() != 1 && r.stride() != -1) {
        plan.single = false;
        return plan;
      }
      const index_t lo = std::min(r.first(), r.last());
      norm.set_dim(e, range(lo, lo + r.size()));
    }
    std::size_t k = N - 1;
    while (k > 0 && norm.dim(k).size() == shape[k]) --k;
    for (std::size_t e = 0; e < k; ++e)
      if (norm.dim(e).size() != 1) {
        plan.single = false;
        return plan;
      }
    scan_piece<typename InOp::element_type, typename OutOp::element_type, N> piece;
    for (std::size_t e = 0; e < N; ++e) piece.first += norm.dim(e).first() * weight[e];
    piece.size = norm.size();
    piece.extents = norm.shape();
    const dense_rect<N> orders(norm);
    const auto ic = in.follow(undensify(whole, orders), j);
    if (!ic) {  // a piece of the input always follows itself; be safe anyway
      plan.single = false;
      return plan;
    }
    piece.in = *ic;
    if (plan.aligned) {
      if (const auto oc = out.follow(undensify(out.whole(), orders), j)) piece.out = *oc;
      else plan.aligned = false;
    }
    plan.pieces.push_back(piece);
  }
  std::sort(plan.pieces.begin(), plan.pieces.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t j = 0; j < plan.pieces.size(); ++j) {
    if (j > 0 && plan.pieces[j].first != plan.pieces[j - 1].first + plan.pieces[j - 1].size) {
      plan.single = false;
      return plan;
    }
    plan.size += plan.pieces[j].size;
  }
  if (!plan.pieces.empty()) plan.first = plan.pieces.front().first;
  return plan;
}

/// Calls `f(in_row, out_row, length)` for every row segment of the positions [begin, end) of
/// the plan's run (0-based within the run), in order.
template <class Plan, class F>
void walk_run(const Plan& plan, index_t begin, index_t end, F&& f) {
  index_t start = 0;
  for (const auto& pc : plan.pieces) {
    const index_t pc_begin = start, pc_end = start + pc.size;
    start = pc_end;
    if (pc_end <= begin) continue;
    if (pc_begin >= end) break;
    constexpr std::size_t N = std::tuple_size_v<decltype(pc.extents)>;
    index_t o = std::max(begin, pc_begin) - pc_begin;
    const index_t stop = std::min(end, pc_end) - pc_begin;
    const index_t row_length = pc.extents[N - 1];
    index_t c = o % row_length;
    std::array<index_t, N> k{};
    for (index_t r = o / row_length, d = static_cast<index_t>(N) - 1; d-- > 0;) {
      k[static_cast<std::size_t>(d)] = r % pc.extents[static_cast<std::size_t>(d)];
      r /= pc.extents[static_cast<std::size_t>(d)];
    }
    while (o < stop) {
      const index_t length = std::min(row_length - c, stop - o);
      const auto ir = pc.in.row(k);
      const auto orow = pc.out.row(k);
      f(decltype(ir){ir.p + c * ir.s, ir.s}, decltype(orow){orow.p + c * orow.s, orow.s}, length);
      o += length;
      c = 0;
      for (std::size_t d = N - 1; d-- > 0;) {
        if (++k[d] < pc.extents[d]) break;
        k[d] = 0;
      }
    }
  }
}

/// One locale's run as the other locales see it: where it starts, its total, its copy layer.
template <class T>
struct scan_record {
  T total{};
  index_t first = 0;
  std::int32_t has = 0;     // 1 when the run holds elements
  std::int32_t layer = 0;   // runs combine only with the runs of their own copy layer
  std::int32_t failed = 0;  // the user's op or transform threw here in the first pass
  std::int32_t unused = 0;
};

/// Collective: the scan of a plan whose runs are single and aligned on every locale (pass 1:
/// chunk totals; one allgather of the locales' totals; pass 2: each chunk rescanned from its
/// offset). Returns the total (with init for an exclusive scan).
template <bool Exclusive, class T, class Plan, class Op, class Tr>
T scan_runs(const Plan& plan, const T& init, Op& op, Tr& tr, int layer) {
  const auto value = [&](auto& x) { return static_cast<T>(tr(x)); };
  const index_t n = plan.size;
  const index_t parts = n == 0 ? 0 : std::max<index_t>(1, std::min<index_t>(num_threads(), n / min_chunk_indices));
  // floor(n c / parts) without overflow
  const auto bound = [&](index_t c) { return n / parts * c + n % parts * c / parts; };
  std::vector<T> totals(static_cast<std::size_t>(parts));
  std::exception_ptr failure;
  // Pass 1: the total of each chunk, folded left to right (regrouped only for sums).
  try {
    run_tasks(static_cast<std::size_t>(parts), [&](std::size_t c) {
      T acc{};
      bool has = false;
      walk_run(plan, bound(static_cast<index_t>(c)), bound(static_cast<index_t>(c) + 1),
               [&](const auto& ir, const auto&, index_t length) {
                 index_t k = 0;
                 if constexpr (regroupable_op<Op, T>) {
                   if (ir.contiguous() && length >= 8) {
                     T a0 = value(ir.p[0]), a1 = value(ir.p[1]), a2 = value(ir.p[2]), a3 = value(ir.p[3]);
                     for (k = 4; k + 4 <= length; k += 4) {
                       a0 = op(a0, value(ir.p[k]));
                       a1 = op(a1, value(ir.p[k + 1]));
                       a2 = op(a2, value(ir.p[k + 2]));
                       a3 = op(a3, value(ir.p[k + 3]));
                     }
                     const T part = op(op(a0, a1), op(a2, a3));
                     acc = has ? static_cast<T>(op(acc, part)) : part;
                     has = true;
                   }
                 }
                 if (!has && k < length) {
                   acc = value(ir.at(k));
                   has = true;
                   ++k;
                 }
                 T a = acc;
                 for (; k < length; ++k) a = op(a, value(ir.at(k)));
                 acc = a;
               });
      totals[c] = acc;
    });
  } catch (...) {
    failure = std::current_exception();
  }
  // Across locales: every locale's run record, in one allgather (the failure flag travels
  // with it, so a clean scan needs no agreement here).
  scan_record<T> mine;
  mine.first = plan.first;
  mine.has = n > 0 ? 1 : 0;
  mine.layer = layer;
  mine.failed = failure ? 1 : 0;
  if (!failure) {
    try {
      for (index_t c = 0; c < parts; ++c)
        mine.total = c == 0 ? totals[0] : static_cast<T>(op(mine.total, totals[static_cast<std::size_t>(c)]));
    } catch (...) {
      failure = std::current_exception();
      mine.failed = 1;
    }
  }
  const auto records = num_locales() == 1 ? std::vector<scan_record<T>>{mine} : all_gather(mine);
  if (std::any_of(records.begin(), records.end(), [](const auto& r) { return r.failed != 0; })) {
    agree(failure);  // every locale saw the flag: all of them agree, and throw
    return init;     // not reached
  }
  // The runs of this copy layer in position order: the offset of this locale's run is the
  // fold of the runs before it (after init for an exclusive scan), the total the fold of all.
  T total = init;
  try {
    std::vector<const scan_record<T>*> order;
    for (const auto& r : records)
      if (r.has && r.layer == layer) order.push_back(&r);
    std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
    T base = init;
    bool has_base = Exclusive, has_total = Exclusive;
    for (const auto* r : order) {
      if (r->first < plan.first && n > 0) {
        base = has_base ? static_cast<T>(op(base, r->total)) : r->total;
        has_base = true;
      }
      total = has_total ? static_cast<T>(op(total, r->total)) : r->total;
      has_total = true;
    }
    if (!has_total) total = T{};
    // Each chunk's offset: the fold of base and the chunk totals before it.
    std::vector<T> offsets(static_cast<std::size_t>(parts));
    std::vector<char> has_offset(static_cast<std::size_t>(parts));
    for (index_t c = 0; c < parts; ++c) {
      offsets[static_cast<std::size_t>(c)] = base;
      has_offset[static_cast<std::size_t>(c)] = has_base;
      base = has_base ? static_cast<T>(op(base, totals[static_cast<std::size_t>(c)])) : totals[static_cast<std::size_t>(c)];
      has_base = true;
    }
    // Pass 2: each chunk rescanned from its offset. An element is read before its output is
    // written, so the output may be the input.
    run_tasks(static_cast<std::size_t>(parts), [&](std::size_t c) {
      T acc = offsets[c];
      bool has = has_offset[c] != 0;
      walk_run(plan, bound(static_cast<index_t>(c)), bound(static_cast<index_t>(c) + 1),
               [&](const auto& ir, const auto& orow, index_t length) {
                 // The running value in a local: `acc` is captured by reference, and the
                 // compiler would reload it after every store through an output pointer.
                 T a = acc;
                 index_t k = 0;
                 if constexpr (Exclusive) {
                   if (ir.contiguous() && orow.contiguous()) {
                     auto* in_p = ir.p;
                     auto* out_p = orow.p;
                     for (; k < length; ++k) {
                       const T v = value(in_p[k]);
                       out_p[k] = a;
                       a = op(a, v);
                     }
                   } else {
                     for (; k < length; ++k) {
                       const T v = value(ir.at(k));
                       orow.at(k) = a;
                       a = op(a, v);
                     }
                   }
                 } else {
                   if (!has && length > 0) {
                     a = value(ir.at(0));
                     orow.at(0) = a;
                     has = true;
                     k = 1;
                   }
                   if (ir.contiguous() && orow.contiguous()) {
                     auto* in_p = ir.p;
                     auto* out_p = orow.p;
                     for (; k < length; ++k) {
                       a = op(a, value(in_p[k]));
                       out_p[k] = a;
                     }
                   } else {
                     for (; k < length; ++k) {
                       a = op(a, value(ir.at(k)));
                       orow.at(k) = a;
                     }
                   }
                 }
                 acc = a;
               });
    });
  } catch (...) {
    failure = std::current_exception();
  }
  agree(failure);
  return total;
}

/// This locale's copy layer for a scan led by `op` (its own locale when it holds a replicated
/// copy of everything).
template <class Op>
int scan_layer(const Op& op) {
  if (op.state_is_replicated()) return here();
  if (const auto* layers = op.copy_layers()) return (*layers)[static_cast<std::size_t>(here())];
  return 0;
}

/// Throws argument_error when `x` is a moved-from array.
template <class X>
void check_scan_operand(const X& x, const char* who, const char* which) {
  if constexpr (array_traits<std::remove_const_t<X>>::is_array) {
    if (!state_of(x.domain()))
      throw argument_error(std::string(who) + ": " + which + " is a moved-from array; it has no domain or elements");
  }
}

/// A scan's temporary of element type T over equal runs of row-major positions, kept on a
/// domain's state between scans of the same shape.
template <class T, std::size_t N>
struct scan_staging_cache {
  std::array<index_t, N> shape{};
  std::shared_ptr<array<T, N>> staged;
};

/// Collective: the temporary of element type T and `shape` kept on `state` (made, or remade
/// for another shape, on every locale alike: scans are collective).
template <class T, std::size_t N>
array<T, N>& scan_staging(domain_state<N>& state, const std::array<index_t, N>& shape) {
  auto& cache = state.caches.template get<scan_staging_cache<T, N>>();
  if (!cache.staged || cache.shape != shape) {
    cache.staged.reset();  // the old temporary's memory first
    cache.staged = std::make_shared<array<T, N>>(linear_slabs_of<N>(shape));
    cache.shape = shape;
  }
  return *cache.staged;
}

/// Collective: the whole scan of `in` into `out` (see inclusive_scan / exclusive_scan).
template <bool Exclusive, class T, class In, class Out, class Op, class Tr>
T scan(const char* who, In& in, Out& out, const T& init, Op& op, Tr& tr) {
  const collective_scope scope;
  using in_t = std::remove_const_t<In>;
  using U = scan_value_t<In>;
  using V = scan_value_t<Out>;
  constexpr std::size_t N = array_traits<in_t>::rank;
  const operand<In> in_op{in};
  const operand<Out> out_op{out};
  // Which path: every locale's input one run of positions, stored with its output here?
  // The operand checks fail in the same reduction, so a locale whose operand was moved
  // from (or differs in shape) fails with the others instead of leaving them waiting.
  constexpr std::uint64_t not_single = 1, not_aligned = 2, failed = 4;
  std::exception_ptr failure;
  std::optional<decltype(make_scan_plan(in_op, out_op))> plan;
  std::uint64_t mine = 0;
  try {
    check_scan_operand(in, who, "in");
    check_scan_operand(out, who, "out");
    if (in_op.whole().shape() != out_op.whole().shape())
      throw shape_error(std::string(who) + ": out (" + out_op.describe() + ") has another shape than in (" +
                        in_op.describe() + "); a scan writes one element per input element");
    plan.emplace(make_scan_plan(in_op, out_op));
    if (!plan->single) mine |= not_single;
    if (!plan->aligned) mine |= not_aligned;
  } catch (...) {
    failure = std::current_exception();
    mine = failed;
  }
  const std::uint64_t all = num_locales() == 1 ? mine : all_reduce_bit_or(mine);
  if (all & failed) agree(failure);
  if (all == 0) return scan_runs<Exclusive>(*plan, init, op, tr, scan_layer(in_op));
  if (!(all & not_single)) {
    if constexpr (array_traits<in_t>::is_array) {
      // Runs, but the output is elsewhere: scan into an array over the input's domain, then
      // assign (one redistribution).
      array<V, N> result(in.domain());
      const operand<array<V, N>> result_op{result};
      const T total = scan_runs<Exclusive>(make_scan_plan(in_op, result_op), init, op, tr, scan_layer(in_op));
      out = result;
      barrier();  // every locale's output written before any locale reads it
      return total;
    }
  }
  // Many runs per locale (Cyclic, BlockCyclic, 2-D grids, directory maps...): redistribute
  // into equal runs of positions in locale order, scan there, redistribute into the output.
  // The temporaries are kept on in's domain (its array's, for a view) while the shape stays:
  // a repeated scan reuses their storage and the cached assignment plans.
  array<U, N>& staged = scan_staging<U>(in_op.follower_state(), in_op.whole().shape());
  staged = in;
  const operand<array<U, N>> staged_op{staged};
  if constexpr (std::is_same_v<U, V>) {
    const T total = scan_runs<Exclusive>(make_scan_plan(staged_op, staged_op), init, op, tr, scan_layer(staged_op));
    out = staged;
    barrier();  // every locale's output written before any locale reads it
    return total;
  } else {
    array<V, N>& result = scan_staging<V>(in_op.follower_state(), in_op.whole().shape());
    const operand<array<V, N>> result_op{result};
    const T total = scan_runs<Exclusive>(make_scan_plan(staged_op, result_op), init, op, tr, scan_layer(staged_op));
    out = result;
    barrier();  // every locale's output written before any locale reads it
    return total;
  }
}

}  // namespace detail

}  // namespace dmap
