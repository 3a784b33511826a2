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
#include <span>
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

/// One piece of this locale's part of a scan: a rect of input positions, contiguous in global
/// row-major order, with the cursors of the input and output over it.
template <class In, class Out, std::size_t N>
struct scan_piece {
  index_t first = 0;  // global row-major position of its first element
  index_t size = 0;
  index_t local = 0;  // where it starts in this locale's sequence (its pieces in position order)
  std::array<index_t, N> extents{};
  chunk_cursor<element_row<In>, N> in{};
  chunk_cursor<element_row<Out>, N> out{};
};

/// A run of a scan: the consecutive global positions [first, first + size), which this
/// locale's sequence holds from `local` on.
struct scan_run {
  index_t first = 0;
  index_t size = 0;
  index_t local = 0;
};

/// This locale's part of a scan: its pieces in position order and the runs they form.
/// `stretches`: every piece it owns is a set of row-major stretches (unit steps; not more
/// than max_scan_runs of them), so the scan can be done where the elements are; `aligned`:
/// the output of each piece is stored here too.
template <class In, class Out, std::size_t N>
struct scan_plan {
  std::vector<scan_piece<In, Out, N>> pieces;
  std::vector<scan_run> runs;
  bool stretches = true;
  bool aligned = true;
  index_t size = 0;
};

/// The most stretches a locale may cut its `elements` into and still scan them in place
/// (each costs a record in the all-gather and a walk of its own); beyond, the scan
/// redistributes into one run per locale.
inline index_t max_scan_runs(index_t elements) { return std::max<index_t>(2048, elements / 8); }

/// Local: this locale's plan for scanning `in` into `out` (operands of one shape). A piece
/// whose trailing dimensions are whole is one stretch; any other piece (a 2-D Block piece
/// that does not span the columns, say) is cut into one stretch per index of its leading
/// dimensions.
template <class InOp, class OutOp>
auto make_scan_plan(const InOp& in, const OutOp& out) {
  constexpr std::size_t N = InOp::rank;
  using piece_t = scan_piece<typename InOp::element_type, typename OutOp::element_type, N>;
  scan_plan<typename InOp::element_type, typename OutOp::element_type, N> plan;
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
  index_t elements = 0;
  for (const auto& pc : pieces) elements += pc.size();
  const index_t most = max_scan_runs(elements);
  index_t stretches = 0;
  for (std::size_t j = 0; j < pieces.size(); ++j) {
    if (pieces[j].empty()) continue;
    const dense_rect<N> d = densify(whole, pieces[j]);
    // The piece's positions, ascending: stretches when every dimension has a unit step.
    rect<N> norm;
    for (std::size_t e = 0; e < N; ++e) {
      const range& r = d.dim(e);
      if (r.size() > 1 && r.stride() != 1 && r.stride() != -1) {
        plan.stretches = false;
        return plan;
      }
      const index_t lo = std::min(r.first(), r.last());
      norm.set_dim(e, range(lo, lo + r.size()));
    }
    // Dimensions after k are whole: one stretch per index of the dimensions before k.
    std::size_t k = N - 1;
    while (k > 0 && norm.dim(k).size() == shape[k]) --k;
    index_t count = 1;
    for (std::size_t e = 0; e < k; ++e) count *= norm.dim(e).size();
    stretches += count;
    if (stretches > most) {
      plan.stretches = false;
      return plan;
    }
    const dense_rect<N> orders(norm);
    const auto ic = in.follow(undensify(whole, orders), j);
    if (!ic) {  // a piece of the input always follows itself; be safe anyway
      plan.stretches = false;
      return plan;
    }
    decltype(out.follow(undensify(out.whole(), orders), j)) oc;
    if (plan.aligned) {
      oc = out.follow(undensify(out.whole(), orders), j);
      if (!oc) plan.aligned = false;
    }
    piece_t base;
    for (std::size_t e = 0; e < N; ++e) base.first += norm.dim(e).first() * weight[e];
    base.extents = norm.shape();
    for (std::size_t e = 0; e < k; ++e) base.extents[e] = 1;
    base.size = 1;
    for (std::size_t e = 0; e < N; ++e) base.size *= base.extents[e];
    base.in = *ic;
    if (oc) base.out = *oc;
    std::array<index_t, N> origin{};  // the stretch's indices in the dimensions before k
    for (index_t s = 0; s < count; ++s) {
      piece_t stretch = base;
      for (std::size_t e = 0; e < k; ++e) stretch.first += origin[e] * weight[e];
      stretch.in.base = ic->row(origin).p;
      if (oc) stretch.out.base = oc->row(origin).p;
      plan.pieces.push_back(stretch);
      for (std::size_t e = k; e-- > 0;) {
        if (++origin[e] < norm.dim(e).size()) break;
        origin[e] = 0;
      }
    }
  }
  std::sort(plan.pieces.begin(), plan.pieces.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& pc : plan.pieces) {
    pc.local = plan.size;
    if (!plan.runs.empty()) {
      scan_run& last = plan.runs.back();
      if (pc.first < last.first + last.size) {  // overlapping pieces: not a partition of positions
        plan.stretches = false;
        return plan;
      }
      if (pc.first == last.first + last.size) {
        last.size += pc.size;
        plan.size += pc.size;
        continue;
      }
    }
    plan.runs.push_back({pc.first, pc.size, plan.size});
    plan.size += pc.size;
  }
  return plan;
}

/// Calls `f(in_row, out_row, length)` for every row segment of the positions [begin, end) of
/// this locale's sequence (0-based, the plan's pieces one after the other), in order.
template <class Plan, class F>
void walk_run(const Plan& plan, index_t begin, index_t end, F&& f) {
  auto it = std::upper_bound(plan.pieces.begin(), plan.pieces.end(), begin,
                             [](index_t v, const auto& pc) { return v < pc.local; });
  if (it != plan.pieces.begin()) --it;
  for (; it != plan.pieces.end(); ++it) {
    const auto& pc = *it;
    const index_t pc_begin = pc.local, pc_end = pc.local + pc.size;
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

/// Every locale's `values`, locale after locale, when every locale knows how many each
/// sends: `counts[q]` is locale q's number (the same vector everywhere; `values.size()` is
/// `counts[here()]`). One MPI_Allgatherv; unsupported_error (on every locale alike) above
/// 2^31 - 1 bytes in all.
template <class T>
std::vector<T> all_gather_counted(std::span<const T> values, const std::vector<std::size_t>& counts) {
  count_collective();
  std::vector<int> bytes(counts.size()), starts(counts.size());
  std::size_t total = 0;
  for (std::size_t q = 0; q < counts.size(); ++q) {
    if (counts[q] * sizeof(T) > static_cast<std::size_t>(INT32_MAX) - total * sizeof(T))
      throw unsupported_error("dmap scans: the runs' records exceed 2^31-1 bytes in all");
    starts[q] = static_cast<int>(total * sizeof(T));
    bytes[q] = static_cast<int>(counts[q] * sizeof(T));
    total += counts[q];
  }
  std::vector<T> result(total);
  check_mpi(MPI_Allgatherv(values.data(), static_cast<int>(values.size_bytes()), MPI_BYTE, result.data(),
                           bytes.data(), starts.data(), MPI_BYTE, env().comm()),
            "MPI_Allgatherv");
  return result;
}

/// One run as the other locales see it: where it starts, its total, its copy layer (a
/// locale without runs sends one record with `has` 0).
template <class T>
struct scan_record {
  T total{};
  index_t first = 0;
  std::int32_t has = 0;     // 1 when the run holds elements
  std::int32_t layer = 0;   // runs combine only with the runs of their own copy layer
  std::int32_t failed = 0;  // the user's op or transform threw here in the first pass
  std::int32_t unused = 0;
};

/// One stretch of a chunk's work: the positions [begin, end) of this locale's sequence, all
/// in the run `run`.
struct scan_segment {
  index_t begin;
  index_t end;
  std::size_t run;
};

/// The fold of the (transformed) elements at positions [begin, end) of the plan's sequence,
/// left to right (regrouped only for sums); the range is not empty.
template <class T, class Plan, class Op, class Value>
T fold_stretch(const Plan& plan, index_t begin, index_t end, Op& op, const Value& value) {
  T acc{};
  bool has = false;
  walk_run(plan, begin, end, [&](const auto& ir, const auto&, index_t length) {
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
  return acc;
}

/// Writes the scan of positions [begin, end) of the plan's sequence from `offset` (from the
/// first element when `has` is false: nothing comes before it).
template <bool Exclusive, class T, class Plan, class Op, class Value>
void rescan_stretch(const Plan& plan, index_t begin, index_t end, const T& offset, bool has, Op& op,
                    const Value& value) {
  T acc = offset;
  walk_run(plan, begin, end, [&](const auto& ir, const auto& orow, index_t length) {
    // The running value in a local: `acc` is captured by reference, and the compiler would
    // reload it after every store through an output pointer.
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
}

/// Collective: the scan of a plan whose pieces are stretches with their output here, on
/// every locale. Pass 1: the total of each segment (a chunk's part of a run) on the
/// locale's threads; one all-gather of every run's total (`record_counts[q]`: locale q's
/// number of records, max(1, its runs)); pass 2: each segment rescanned from its offset, the
/// fold of every run before it in position order and of the segments before it in its run.
/// Returns the total (with init for an exclusive scan).
template <bool Exclusive, class T, class Plan, class Op, class Tr>
T scan_runs(const Plan& plan, const std::vector<std::size_t>& record_counts, const T& init, Op& op, Tr& tr,
            int layer) {
  const auto value = [&](auto& x) { return static_cast<T>(tr(x)); };
  const index_t n = plan.size;
  const auto& runs = plan.runs;
  const index_t parts = n == 0 ? 0 : std::max<index_t>(1, std::min<index_t>(num_threads(), n / min_chunk_indices));
  // floor(n c / parts) without overflow
  const auto bound = [&](index_t c) { return n / parts * c + n % parts * c / parts; };
  std::vector<scan_record<T>> mine(std::max<std::size_t>(1, runs.size()));
  std::vector<scan_segment> segments;
  std::vector<std::size_t> segments_of(static_cast<std::size_t>(parts) + 1);  // chunk c: [of[c], of[c + 1])
  std::vector<T> totals;
  std::exception_ptr failure;
  try {
    // The segments: the chunks cut at run boundaries.
    std::size_t r = 0;
    for (index_t c = 0; c < parts; ++c) {
      segments_of[static_cast<std::size_t>(c)] = segments.size();
      for (index_t lo = bound(c), hi = bound(c + 1); lo < hi;) {
        while (runs[r].local + runs[r].size <= lo) ++r;
        const index_t stop = std::min(hi, runs[r].local + runs[r].size);
        segments.push_back({lo, stop, r});
        lo = stop;
      }
    }
    segments_of[static_cast<std::size_t>(parts)] = segments.size();
    totals.resize(segments.size());
    // Pass 1: the total of each segment.
    run_tasks(static_cast<std::size_t>(parts), [&](std::size_t c) {
      for (std::size_t s = segments_of[c]; s < segments_of[c + 1]; ++s)
        totals[s] = fold_stretch<T>(plan, segments[s].begin, segments[s].end, op, value);
    });
    // Each run's total: its segments' in order.
    for (std::size_t s = 0; s < segments.size(); ++s) {
      scan_record<T>& rec = mine[segments[s].run];
      rec.total = rec.has ? static_cast<T>(op(rec.total, totals[s])) : totals[s];
      rec.has = 1;
    }
  } catch (...) {
    failure = std::current_exception();
  }
  for (std::size_t k = 0; k < mine.size(); ++k) {
    if (k < runs.size()) mine[k].first = runs[k].first;
    mine[k].layer = layer;
    mine[k].failed = failure ? 1 : 0;
  }
  // Across locales: every run's record (the failure flag travels with them, so a clean scan
  // needs no agreement here).
  std::vector<scan_record<T>> records;
  if (num_locales() == 1) records = mine;
  else if (std::all_of(record_counts.begin(), record_counts.end(), [](std::size_t c) { return c == 1; }))
    records = all_gather_fixed(std::span<const scan_record<T>>(mine));
  else records = all_gather_counted(std::span<const scan_record<T>>(mine), record_counts);
  if (std::any_of(records.begin(), records.end(), [](const auto& rec) { return rec.failed != 0; })) {
    agree(failure);  // every locale saw the flag: all of them agree, and throw
    return init;     // not reached
  }
  T total = init;
  try {
    // The runs of this copy layer in position order: a run's offset is the fold of the runs
    // before it (after init for an exclusive scan), the total the fold of all.
    std::vector<const scan_record<T>*> order;
    for (const auto& rec : records)
      if (rec.has && rec.layer == layer) order.push_back(&rec);
    std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
    std::vector<T> run_offset(runs.size());
    std::vector<char> run_has_offset(runs.size());
    bool has_total = Exclusive;
    std::size_t r = 0;  // this locale's runs, met in position order
    for (const auto* rec : order) {
      if (r < runs.size() && rec->first == runs[r].first) {
        run_offset[r] = total;
        run_has_offset[r] = has_total;
        ++r;
      }
      total = has_total ? static_cast<T>(op(total, rec->total)) : rec->total;
      has_total = true;
    }
    if (r != runs.size())
      throw runtime_error("dmap scans: a run of this locale is missing from the gathered records");
    if (!has_total) total = T{};
    // Each segment's offset: its run's, then the segments before it in the run.
    std::vector<T> offsets(segments.size());
    std::vector<char> has_offset(segments.size());
    for (std::size_t s = 0; s < segments.size(); ++s) {
      const std::size_t run = segments[s].run;
      if (s == 0 || segments[s - 1].run != run) {
        offsets[s] = run_offset[run];
        has_offset[s] = run_has_offset[run];
      } else {
        offsets[s] = has_offset[s - 1] ? static_cast<T>(op(offsets[s - 1], totals[s - 1])) : totals[s - 1];
        has_offset[s] = 1;
      }
    }
    // Pass 2: each segment rescanned from its offset. An element is read before its output
    // is written, so the output may be the input.
    run_tasks(static_cast<std::size_t>(parts), [&](std::size_t c) {
      for (std::size_t s = segments_of[c]; s < segments_of[c + 1]; ++s)
        rescan_stretch<Exclusive>(plan, segments[s].begin, segments[s].end, offsets[s], has_offset[s] != 0, op,
                                  value);
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

/// The record counts of a scan whose locales hold at most one run each.
inline std::vector<std::size_t> one_record_each() { return std::vector<std::size_t>(static_cast<std::size_t>(num_locales()), 1); }

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
  // Which path: every locale's input a set of row-major stretches, stored with its output
  // here? One all-gather of each locale's verdict and counts. The operand checks fail in the
  // same call, so a locale whose operand was moved from (or differs in shape) fails with the
  // others instead of leaving them waiting.
  constexpr std::uint64_t not_stretches = 1, not_aligned = 2, failed = 4;
  struct verdict {
    std::uint64_t flags = 0;
    index_t runs = 0;
    index_t elements = 0;
  };
  std::exception_ptr failure;
  std::optional<decltype(make_scan_plan(in_op, out_op))> plan;
  verdict mine;
  try {
    check_scan_operand(in, who, "in");
    check_scan_operand(out, who, "out");
    if (in_op.whole().shape() != out_op.whole().shape())
      throw shape_error(std::string(who) + ": out (" + out_op.describe() + ") has another shape than in (" +
                        in_op.describe() + "); a scan writes one element per input element");
    plan.emplace(make_scan_plan(in_op, out_op));
    if (!plan->stretches) mine.flags |= not_stretches;
    if (!plan->aligned) mine.flags |= not_aligned;
    mine.runs = static_cast<index_t>(plan->runs.size());
    mine.elements = plan->size;
  } catch (...) {
    failure = std::current_exception();
    mine.flags = failed;
  }
  const auto verdicts = num_locales() == 1 ? std::vector<verdict>{mine} : all_gather(mine);
  std::uint64_t all = 0;
  index_t runs = 0, elements = 0;
  std::vector<std::size_t> record_counts;
  for (const auto& v : verdicts) {
    all |= v.flags;
    runs += v.runs;
    elements += v.elements;
    record_counts.push_back(static_cast<std::size_t>(std::max<index_t>(1, v.runs)));
  }
  if (all & failed) agree(failure);
  // Scanning the elements where they are costs one record per run in the all-gather; moving
  // them costs two redistributions. The records stay within half a locale's share of the
  // elements' bytes (64 KiB at least).
  const index_t record_budget =
      std::max<index_t>(index_t{64} << 10, elements / num_locales() * static_cast<index_t>(sizeof(U)) / 2);
  const bool in_place = !(all & not_stretches) && runs <= record_budget / static_cast<index_t>(sizeof(scan_record<T>));
  if (in_place && !(all & not_aligned)) return scan_runs<Exclusive>(*plan, record_counts, init, op, tr, scan_layer(in_op));
  if (in_place) {
    if constexpr (array_traits<in_t>::is_array) {
      // Stretches, but the output is elsewhere: scan into an array over the input's domain,
      // then assign (one redistribution). Its plan has the same runs as the input's.
      array<V, N> result(in.domain());
      const operand<array<V, N>> result_op{result};
      const T total = scan_runs<Exclusive>(make_scan_plan(in_op, result_op), record_counts, init, op, tr,
                                           scan_layer(in_op));
      out = result;
      barrier();  // every locale's output written before any locale reads it
      return total;
    }
  }
  // Strided pieces or too many stretches (Cyclic, BlockCyclic with small blocks, directory
  // maps...): redistribute into equal runs of positions in locale order, scan there,
  // redistribute into the output.
  // The temporaries are kept on in's domain (its array's, for a view) while the shape stays:
  // a repeated scan reuses their storage and the cached assignment plans.
  array<U, N>& staged = scan_staging<U>(in_op.follower_state(), in_op.whole().shape());
  staged = in;
  const operand<array<U, N>> staged_op{staged};
  if constexpr (std::is_same_v<U, V>) {
    const T total = scan_runs<Exclusive>(make_scan_plan(staged_op, staged_op), one_record_each(), init, op, tr,
                                         scan_layer(staged_op));
    out = staged;
    barrier();  // every locale's output written before any locale reads it
    return total;
  } else {
    array<V, N>& result = scan_staging<V>(in_op.follower_state(), in_op.whole().shape());
    const operand<array<V, N>> result_op{result};
    const T total = scan_runs<Exclusive>(make_scan_plan(staged_op, result_op), one_record_each(), init, op, tr,
                                         scan_layer(staged_op));
    out = result;
    barrier();  // every locale's output written before any locale reads it
    return total;
  }
}

}  // namespace detail

}  // namespace dmap
