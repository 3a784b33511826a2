// The machinery behind scan.hpp (not part of the API): the rules a scan call must keep, the
// plan of runs a scan walks, the two passes over it, and the staging of overlapping operands.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

/// The start positions of some of a locale's runs: `count` runs, starting at `first`,
/// `first + step`, ... (the rows of a 2-D Block piece are one progression).
struct scan_progression {
  index_t first = 0;
  index_t step = 0;
  index_t count = 0;
};

/// The start positions of `runs` (ascending) as progressions, each as long as it goes.
inline std::vector<scan_progression> progressions_of(const std::vector<scan_run>& runs) {
  std::vector<scan_progression> result;
  for (const scan_run& run : runs) {
    if (!result.empty()) {
      scan_progression& last = result.back();
      if (last.count == 1) {
        last.step = run.first - last.first;
        last.count = 2;
        continue;
      }
      if (run.first - (last.first + (last.count - 1) * last.step) == last.step) {
        ++last.count;
        continue;
      }
    }
    result.push_back({run.first, 0, 1});
  }
  return result;
}

/// This locale's part of a scan: its pieces in position order, the runs they form and the
/// runs' start positions as progressions.
/// `stretches`: every piece it owns is a set of row-major stretches (unit steps; not more
/// than max_scan_runs of them), so the scan can be done where the elements are; `aligned`:
/// the output of each piece is stored here too.
template <class In, class Out, std::size_t N>
struct scan_plan {
  std::vector<scan_piece<In, Out, N>> pieces;
  std::vector<scan_run> runs;
  std::vector<scan_progression> starts;
  bool stretches = true;
  bool aligned = true;
  index_t size = 0;
};

/// The most stretches a locale may cut its `elements` into and still scan them in place
/// (each costs a total in the all-gather and a walk of its own); beyond, the scan
/// redistributes into one run per locale.
inline index_t max_scan_runs(index_t elements) { return std::max<index_t>(2048, elements / 8); }

/// One input piece as a scan cuts it: its positions (ascending, unit steps), the leading
/// dimensions [0, k) cut into one stretch per index (`count` stretches), and the cursors of
/// the input and of the output (when `has_out`) over it.
template <class In, class Out, std::size_t N>
struct scan_cut {
  rect<N> norm;
  std::size_t k = 0;
  index_t count = 0;
  chunk_cursor<element_row<In>, N> in{};
  chunk_cursor<element_row<Out>, N> out{};
  bool has_out = false;

  friend bool operator==(const scan_cut& a, const scan_cut& b) noexcept {
    return a.norm == b.norm && a.k == b.k && a.count == b.count && a.in.base == b.in.base &&
           a.in.step == b.in.step && a.has_out == b.has_out &&
           (!a.has_out || (a.out.base == b.out.base && a.out.step == b.out.step));
  }
};

/// Everything a scan's plan is made from: the input's and output's index sets and this
/// locale's cut pieces. Two equal cuttings make equal plans.
template <class In, class Out, std::size_t N>
struct scan_cutting {
  rect<N> whole;
  rect<N> out_whole;
  std::vector<scan_cut<In, Out, N>> cuts;
  bool stretches = true;
  bool aligned = true;
  friend bool operator==(const scan_cutting&, const scan_cutting&) = default;
};

/// Local: how this locale's pieces of `in` are cut for scanning into `out` (operands of one
/// shape). A piece whose trailing dimensions are whole is one stretch; any other piece (a 2-D
/// Block piece that does not span the columns, say) is cut into one stretch per index of its
/// leading dimensions. `stretches` is false when a piece has a non-unit step or the locale
/// would hold more than max_scan_runs stretches.
template <class InOp, class OutOp>
auto cut_scan_pieces(const InOp& in, const OutOp& out) {
  constexpr std::size_t N = InOp::rank;
  scan_cutting<typename InOp::element_type, typename OutOp::element_type, N> cutting;
  const rect<N>& whole = in.whole();
  cutting.whole = whole;
  cutting.out_whole = out.whole();
  const auto shape = whole.shape();
  // Output copies must be exactly the input's: every copy of the output is then written by
  // the locale that scans the same copy of the input.
  const auto* in_layers = in.copy_layers();
  const auto* out_layers = out.copy_layers();
  if (in.state_is_replicated() != out.state_is_replicated() || (in_layers == nullptr) != (out_layers == nullptr) ||
      (in_layers && *in_layers != *out_layers))
    cutting.aligned = false;
  const auto& pieces = in.pieces();
  index_t elements = 0;
  for (const auto& pc : pieces) elements += pc.size();
  const index_t most = max_scan_runs(elements);
  index_t stretches = 0;
  for (std::size_t j = 0; j < pieces.size(); ++j) {
    if (pieces[j].empty()) continue;
    const dense_rect<N> d = densify(whole, pieces[j]);
    // The piece's positions, ascending: stretches when every dimension has a unit step.
    auto& cut = cutting.cuts.emplace_back();
    for (std::size_t e = 0; e < N; ++e) {
      const range& r = d.dim(e);
      if (r.size() > 1 && r.stride() != 1 && r.stride() != -1) {
        cutting.stretches = false;
        return cutting;
      }
      const index_t lo = std::min(r.first(), r.last());
      cut.norm.set_dim(e, range(lo, lo + r.size()));
    }
    // Dimensions after k are whole: one stretch per index of the dimensions before k.
    cut.k = N - 1;
    while (cut.k > 0 && cut.norm.dim(cut.k).size() == shape[cut.k]) --cut.k;
    cut.count = 1;
    for (std::size_t e = 0; e < cut.k; ++e) cut.count *= cut.norm.dim(e).size();
    stretches += cut.count;
    if (stretches > most) {
      cutting.stretches = false;
      return cutting;
    }
    const dense_rect<N> orders(cut.norm);
    const auto ic = in.follow(undensify(whole, orders), j);
    if (!ic) {  // a piece of the input always follows itself; be safe anyway
      cutting.stretches = false;
      return cutting;
    }
    cut.in = *ic;
    if (cutting.aligned) {
      const auto oc = out.follow(undensify(out.whole(), orders), j);
      if (oc) {
        cut.out = *oc;
        cut.has_out = true;
      } else {
        cutting.aligned = false;
      }
    }
  }
  if (!cutting.aligned)
    for (auto& cut : cutting.cuts) cut.has_out = false;
  return cutting;
}

/// Local: the plan of a cutting (see cut_scan_pieces): its stretches in position order, the
/// runs they form and the runs' start positions.
template <class In, class Out, std::size_t N>
scan_plan<In, Out, N> plan_of(const scan_cutting<In, Out, N>& cutting) {
  using piece_t = scan_piece<In, Out, N>;
  scan_plan<In, Out, N> plan;
  plan.stretches = cutting.stretches;
  plan.aligned = cutting.aligned;
  if (!plan.stretches) return plan;
  const auto shape = cutting.whole.shape();
  std::array<index_t, N> weight{};
  weight[N - 1] = 1;
  for (std::size_t d = N - 1; d > 0; --d) weight[d - 1] = weight[d] * std::max<index_t>(shape[d], 1);
  for (const auto& cut : cutting.cuts) {
    piece_t base;
    for (std::size_t e = 0; e < N; ++e) base.first += cut.norm.dim(e).first() * weight[e];
    base.extents = cut.norm.shape();
    for (std::size_t e = 0; e < cut.k; ++e) base.extents[e] = 1;
    base.size = 1;
    for (std::size_t e = 0; e < N; ++e) base.size *= base.extents[e];
    base.in = cut.in;
    if (cut.has_out) base.out = cut.out;
    plan.pieces.reserve(plan.pieces.size() + static_cast<std::size_t>(cut.count));
    std::array<index_t, N> origin{};  // the stretch's indices in the dimensions before k
    for (index_t s = 0; s < cut.count; ++s) {
      piece_t stretch = base;
      for (std::size_t e = 0; e < cut.k; ++e) stretch.first += origin[e] * weight[e];
      stretch.in.base = cut.in.row(origin).p;
      if (cut.has_out) stretch.out.base = cut.out.row(origin).p;
      plan.pieces.push_back(stretch);
      for (std::size_t e = cut.k; e-- > 0;) {
        if (++origin[e] < cut.norm.dim(e).size()) break;
        origin[e] = 0;
      }
    }
  }
  const auto by_first = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(plan.pieces.begin(), plan.pieces.end(), by_first))
    std::sort(plan.pieces.begin(), plan.pieces.end(), by_first);
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
  plan.starts = progressions_of(plan.runs);
  return plan;
}

/// Local: this locale's plan for scanning `in` into `out` (operands of one shape; see
/// cut_scan_pieces).
template <class InOp, class OutOp>
auto make_scan_plan(const InOp& in, const OutOp& out) {
  return plan_of(cut_scan_pieces(in, out));
}

/// The last scan plan made over a domain, with the cutting it was made from.
template <class In, class Out, std::size_t N>
struct scan_plan_cache {
  scan_cutting<In, Out, N> cutting;
  std::shared_ptr<const scan_plan<In, Out, N>> plan;
};

/// Local: the plan for scanning `in` into `out`, kept on in's domain: a scan repeated over the
/// same operands (the same pieces, storage and index sets) reuses it, any change makes another.
template <class InOp, class OutOp>
auto cached_scan_plan(const InOp& in, const OutOp& out) {
  auto cutting = cut_scan_pieces(in, out);
  using in_t = typename InOp::element_type;
  using out_t = typename OutOp::element_type;
  auto& cache = in.follower_state().caches.template get<scan_plan_cache<in_t, out_t, InOp::rank>>();
  if (!cache.plan || !(cache.cutting == cutting)) {
    cache.plan.reset();  // the old plan's memory first
    cache.plan = std::make_shared<const scan_plan<in_t, out_t, InOp::rank>>(plan_of(cutting));
    cache.cutting = std::move(cutting);
  }
  return cache.plan;
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

/// What a scan's exchange carries for one locale, as many runs and progressions as it
/// declared in the verdicts (a locale may send fewer: the head says how many are used).
struct scan_shape {
  index_t runs = 0;
  index_t progressions = 0;
};

/// The head of a locale's message in a scan's exchange. Its progressions (the start
/// positions of its runs) follow, then its runs' totals, at the places its declared
/// scan_shape gives them.
struct scan_message_head {
  index_t runs = 0;
  index_t progressions = 0;
  std::int32_t layer = 0;   // runs combine only with the runs of their own copy layer
  std::int32_t failed = 0;  // the user's op or transform threw here in the first pass
};

/// The bytes of a locale's message of declared `shape` whose totals are T's.
template <class T>
std::size_t scan_message_bytes(const scan_shape& shape) {
  return sizeof(scan_message_head) + static_cast<std::size_t>(shape.progressions) * sizeof(scan_progression) +
         static_cast<std::size_t>(shape.runs) * sizeof(T);
}

/// One locale's runs in a scan's gathered messages, read in position order.
struct scan_source {
  const std::byte* starts = nullptr;  // its progressions
  const std::byte* totals = nullptr;  // its runs' totals
  index_t runs = 0;
  index_t run = 0;  // the run `first` starts
  index_t first = 0;
  std::size_t progression = 0;
  index_t term = 0;  // `run`'s place in its progression
  scan_progression current{};

  /// Reads the progression at `k`.
  void load(std::size_t k) {
    std::memcpy(&current, starts + k * sizeof(scan_progression), sizeof(scan_progression));
    progression = k;
    term = 0;
    first = current.first;
  }
  /// Moves to the next run; false when there is none.
  bool advance() {
    if (++run == runs) return false;
    if (++term < current.count) first += current.step;
    else load(progression + 1);
    return true;
  }
  /// The total of the run `first` starts.
  template <class T>
  T total() const {
    T t;
    std::memcpy(static_cast<void*>(&t), totals + static_cast<std::size_t>(run) * sizeof(T), sizeof(T));
    return t;
  }
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

/// This locale's message in a scan's exchange: the head, its runs' start positions and their
/// totals, laid out for its declared `shape` (which holds at least its runs); only the head,
/// saying so, when the first pass `failed` here.
template <class T>
std::vector<std::byte> scan_message(const scan_shape& shape, const std::vector<scan_progression>& starts,
                                    const std::vector<T>& totals, int layer, bool failed) {
  std::vector<std::byte> message(scan_message_bytes<T>(shape));
  const scan_message_head head{failed ? 0 : static_cast<index_t>(totals.size()),
                               failed ? 0 : static_cast<index_t>(starts.size()), static_cast<std::int32_t>(layer),
                               failed ? 1 : 0};
  std::memcpy(message.data(), &head, sizeof head);
  if (failed) return message;
  std::byte* at = message.data() + sizeof head;
  if (!starts.empty()) std::memcpy(at, starts.data(), starts.size() * sizeof(scan_progression));
  at += static_cast<std::size_t>(shape.progressions) * sizeof(scan_progression);
  for (std::size_t r = 0; r < totals.size(); ++r)
    std::memcpy(at + r * sizeof(T), static_cast<const void*>(&totals[r]), sizeof(T));
  return message;
}

/// Collective: every locale's message of a scan's exchange, locale after locale (locale q's
/// declared as `shapes[q]`). One MPI_Allgather when all are declared alike, else one
/// MPI_Allgatherv.
template <class T>
std::vector<std::byte> gather_scan_messages(const std::vector<std::byte>& mine, const std::vector<scan_shape>& shapes) {
  if (num_locales() == 1) return mine;
  std::vector<std::size_t> bytes(shapes.size());
  for (std::size_t q = 0; q < shapes.size(); ++q) bytes[q] = scan_message_bytes<T>(shapes[q]);
  if (std::all_of(bytes.begin(), bytes.end(), [&](std::size_t b) { return b == bytes[0]; }))
    return all_gather_fixed(std::span<const std::byte>(mine));
  return all_gather_counted(std::span<const std::byte>(mine), bytes);
}

/// Collective: the scan of a plan whose pieces are stretches with their output here, on
/// every locale. Pass 1: the total of each segment (a chunk's part of a run) on the
/// locale's threads; one all-gather of every locale's runs (their start positions as
/// progressions and their totals; `shapes[q]`: what locale q declared); pass 2: each segment
/// rescanned from its offset, the fold of every run before it in position order and of the
/// segments before it in its run. Returns the total (with init for an exclusive scan).
template <bool Exclusive, class T, class Plan, class Op, class Tr>
T scan_runs(const Plan& plan, const std::vector<scan_shape>& shapes, const T& init, Op& op, Tr& tr, int layer) {
  const auto value = [&](auto& x) { return static_cast<T>(tr(x)); };
  const index_t n = plan.size;
  const auto& runs = plan.runs;
  const index_t parts = n == 0 ? 0 : std::max<index_t>(1, std::min<index_t>(num_threads(), n / min_chunk_indices));
  // floor(n c / parts) without overflow
  const auto bound = [&](index_t c) { return n / parts * c + n % parts * c / parts; };
  std::vector<T> run_totals;
  std::vector<scan_segment> segments;
  std::vector<std::size_t> segments_of(static_cast<std::size_t>(parts) + 1);  // chunk c: [of[c], of[c + 1])
  std::vector<T> totals;
  std::exception_ptr failure;
  try {
    const scan_shape& declared = shapes[static_cast<std::size_t>(here())];
    if (static_cast<index_t>(runs.size()) > declared.runs ||
        static_cast<index_t>(plan.starts.size()) > declared.progressions)
      throw runtime_error("dmap scans: this locale has more runs than it declared to the others");
    run_totals.resize(runs.size());
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
    // Each run's total: its segments' in order (every run holds elements, so a segment).
    for (std::size_t s = 0; s < segments.size(); ++s) {
      const std::size_t run = segments[s].run;
      const bool first_of_run = s == 0 || segments[s - 1].run != run;
      run_totals[run] = first_of_run ? totals[s] : static_cast<T>(op(run_totals[run], totals[s]));
    }
  } catch (...) {
    failure = std::current_exception();
  }
  // Across locales: every locale's runs (the failure flag travels with them, so a clean scan
  // needs no agreement here).
  const std::vector<std::byte> gathered = gather_scan_messages<T>(
      scan_message(shapes[static_cast<std::size_t>(here())], plan.starts, run_totals, layer, failure != nullptr),
      shapes);
  std::vector<scan_source> sources(shapes.size());
  bool failed_somewhere = false;
  std::exception_ptr malformed;
  try {
    // Each locale's runs of this copy layer (checked: every locale reads the same bytes and
    // reaches the same verdict).
    std::size_t at = 0;
    for (std::size_t q = 0; q < shapes.size(); ++q) {
      scan_message_head head;
      std::memcpy(&head, gathered.data() + at, sizeof head);
      failed_somewhere = failed_somewhere || head.failed != 0;
      if (head.runs < 0 || head.runs > shapes[q].runs || head.progressions < 0 ||
          head.progressions > shapes[q].progressions || (head.runs == 0) != (head.progressions == 0))
        throw runtime_error("dmap scans: locale " + std::to_string(q) + " sent a malformed record of its runs");
      scan_source& src = sources[q];
      src.starts = gathered.data() + at + sizeof head;
      src.totals = src.starts + static_cast<std::size_t>(shapes[q].progressions) * sizeof(scan_progression);
      index_t terms = 0;
      for (index_t k = 0; k < head.progressions; ++k) {
        scan_progression g;
        std::memcpy(&g, src.starts + static_cast<std::size_t>(k) * sizeof g, sizeof g);
        if (g.count < 1 || g.count > head.runs - terms)
          throw runtime_error("dmap scans: locale " + std::to_string(q) + " sent a malformed record of its runs");
        terms += g.count;
      }
      if (terms != head.runs)
        throw runtime_error("dmap scans: locale " + std::to_string(q) + " sent a malformed record of its runs");
      src.runs = head.layer == layer ? head.runs : 0;
      at += scan_message_bytes<T>(shapes[q]);
    }
  } catch (...) {
    malformed = std::current_exception();
  }
  if (failed_somewhere || malformed) {
    agree(failure ? failure : malformed);  // every locale saw the same bytes: all of them throw
    return init;                           // not reached
  }
  T total = init;
  try {
    // The runs of this copy layer in position order (a merge of the locales' runs): a run's
    // offset is the fold of the runs before it (after init for an exclusive scan), the total
    // the fold of all.
    std::vector<T> run_offset(runs.size());
    std::vector<char> run_has_offset(runs.size());
    bool has_total = Exclusive;
    std::size_t r = 0;  // this locale's runs, met in position order
    using head_t = std::pair<index_t, std::size_t>;  // a locale's next run's first, the locale
    std::vector<head_t> heads;
    for (std::size_t q = 0; q < sources.size(); ++q)
      if (sources[q].runs > 0) {
        sources[q].load(0);
        heads.push_back({sources[q].first, q});
      }
    const auto later = [](const head_t& a, const head_t& b) { return a.first > b.first; };
    std::make_heap(heads.begin(), heads.end(), later);
    const std::size_t me = static_cast<std::size_t>(here());
    while (!heads.empty()) {
      std::pop_heap(heads.begin(), heads.end(), later);
      const std::size_t q = heads.back().second;
      heads.pop_back();
      scan_source& src = sources[q];
      // This locale's runs up to the next run of any other locale, without the heap.
      bool more = true;
      while (more && (heads.empty() || src.first < heads.front().first)) {
        if (q == me) {
          if (r >= runs.size() || src.first != runs[r].first)
            throw runtime_error("dmap scans: the gathered runs do not match this locale's");
          run_offset[r] = total;
          run_has_offset[r] = has_total;
          ++r;
        }
        const T t = src.template total<T>();
        total = has_total ? static_cast<T>(op(total, t)) : t;
        has_total = true;
        more = src.advance();
      }
      if (more) {
        heads.push_back({src.first, q});
        std::push_heap(heads.begin(), heads.end(), later);
      }
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

/// The shapes of a scan's exchange when every locale holds at most one run.
inline std::vector<scan_shape> one_run_each() {
  return std::vector<scan_shape>(static_cast<std::size_t>(num_locales()), scan_shape{1, 1});
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
  // Which path: every locale's input a set of row-major stretches, stored with its output
  // here? One all-gather of each locale's verdict and counts. The operand checks fail in the
  // same call, so a locale whose operand was moved from (or differs in shape) fails with the
  // others instead of leaving them waiting.
  constexpr std::uint64_t not_stretches = 1, not_aligned = 2, failed = 4;
  struct verdict {
    std::uint64_t flags = 0;
    index_t runs = 0;
    index_t progressions = 0;
    index_t elements = 0;
  };
  std::exception_ptr failure;
  decltype(cached_scan_plan(in_op, out_op)) plan;
  verdict mine;
  try {
    check_scan_operand(in, who, "in");
    check_scan_operand(out, who, "out");
    if (in_op.whole().shape() != out_op.whole().shape())
      throw shape_error(std::string(who) + ": out (" + out_op.describe() + ") has another shape than in (" +
                        in_op.describe() + "); a scan writes one element per input element");
    plan = cached_scan_plan(in_op, out_op);
    if (!plan->stretches) mine.flags |= not_stretches;
    if (!plan->aligned) mine.flags |= not_aligned;
    mine.runs = static_cast<index_t>(plan->runs.size());
    mine.progressions = static_cast<index_t>(plan->starts.size());
    mine.elements = plan->size;
  } catch (...) {
    failure = std::current_exception();
    mine.flags = failed;
  }
  const auto verdicts = num_locales() == 1 ? std::vector<verdict>{mine} : all_gather(mine);
  std::uint64_t all = 0;
  index_t record_bytes = 0, elements = 0;
  std::vector<scan_shape> shapes;
  for (const auto& v : verdicts) {
    all |= v.flags;
    shapes.push_back({v.runs, v.progressions});
    record_bytes += static_cast<index_t>(scan_message_bytes<T>(shapes.back()) - sizeof(scan_message_head));
    elements += v.elements;
  }
  if (all & failed) agree(failure);
  // Scanning the elements where they are costs the runs' totals and start positions in the
  // all-gather; moving them costs two redistributions. Those stay within half a locale's
  // share of the elements' bytes (64 KiB at least).
  const index_t record_budget =
      std::max<index_t>(index_t{64} << 10, elements / num_locales() * static_cast<index_t>(sizeof(U)) / 2);
  const bool in_place = !(all & not_stretches) && record_bytes <= record_budget;
  if (in_place && !(all & not_aligned)) return scan_runs<Exclusive>(*plan, shapes, init, op, tr, scan_layer(in_op));
  if (in_place) {
    if constexpr (array_traits<in_t>::is_array) {
      // Stretches, but the output is elsewhere: scan into an array over the input's domain,
      // then assign (one redistribution). Its plan has the same runs as the input's.
      array<V, N> result(in.domain());
      const operand<array<V, N>> result_op{result};
      const T total = scan_runs<Exclusive>(make_scan_plan(in_op, result_op), shapes, init, op, tr,
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
    const T total = scan_runs<Exclusive>(make_scan_plan(staged_op, staged_op), one_run_each(), init, op, tr,
                                         scan_layer(staged_op));
    out = staged;
    barrier();  // every locale's output written before any locale reads it
    return total;
  } else {
    array<V, N>& result = scan_staging<V>(in_op.follower_state(), in_op.whole().shape());
    const operand<array<V, N>> result_op{result};
    const T total = scan_runs<Exclusive>(make_scan_plan(staged_op, result_op), one_run_each(), init, op, tr,
                                         scan_layer(staged_op));
    out = result;
    barrier();  // every locale's output written before any locale reads it
    return total;
  }
}

}  // namespace detail

}  // namespace dmap
