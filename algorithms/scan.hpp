// Scans: inclusive_scan, exclusive_scan and their transform variants over arrays and views
// of any map, in global row-major order, into an array or view of any map, with any
// associative operation (commutativity is not needed). O(1) collective calls, whatever the
// number of locales and elements.
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

#include "../dsi/array.hpp"
#include "../dsi/array_traits.hpp"
#include "../dsi/array_view.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/detail/chunks.hpp"
#include "../iterators/concepts.hpp"
#include "../iterators/detail/operands.hpp"
#include "../iterators/reduce.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/tasks.hpp"
#include "detail/linear_slabs.hpp"
#include "detail/scan.hpp"

namespace dmap {

/// What a scan reads: a dmap::array (const or not) or an array view.
template <class X>
concept scan_input = array_source<X>;

/// What a scan writes: a non-const dmap::array or a view of writable elements.
template <class X>
concept scan_output = array_target<X>;

/// Collective: `out[k] = in[0] op in[1] op ... op in[k]` for every position k of the global
/// row-major order (std::inclusive_scan over a distributed array), and returns the fold of all
/// the elements (the same on every locale; T{} when `in` is empty). `in`: an array or view of
/// any map; `out`: an array or writable view of the same shape and any map, possibly `in`
/// itself (exactly: like std::inclusive_scan, it must not overlap `in` otherwise). `op` must be associative, not commutative: elements are combined in row-major
/// order, grouped by locale and chunk. The scanned type T is in's element type. When it returns,
/// every locale's part of `out` is written (remote reads of `out` see the result).
///   dmap::inclusive_scan(A, B);                       running sums of A into B
///   dmap::inclusive_scan(A, A, dmap::maximum{});      running maxima, in place
template <class In, class Out, class Op = std::plus<>>
  requires detail::scan_call<In, Out, typename detail::transform_result<In, detail::identity_transform>::type, Op,
                             detail::identity_transform>
auto inclusive_scan(In&& in, Out&& out, Op op = {}) {
  using T = typename detail::transform_result<In, detail::identity_transform>::type;
  detail::identity_transform tr;
  return detail::scan<false, T>("dmap::inclusive_scan", in, out, T{}, op, tr);
}

/// Collective: `out[k] = init op in[0] op ... op in[k-1]` (out[0] = init) for every position
/// k in global row-major order (std::exclusive_scan), and returns `init op in[0] op ... op
/// in[n-1]` (the value after the last element: `init` when `in` is empty), the same on every
/// locale. The scanned type is init's. Operands and `op` as for inclusive_scan.
///   const auto total = dmap::exclusive_scan(counts, offsets, std::int64_t{0});
template <class In, class Out, class T, class Op = std::plus<>>
  requires detail::scan_call<In, Out, T, Op, detail::identity_transform>
T exclusive_scan(In&& in, Out&& out, T init, Op op = {}) {
  detail::identity_transform tr;
  return detail::scan<true, T>("dmap::exclusive_scan", in, out, init, op, tr);
}

/// Collective: inclusive_scan of `transform(in[k])` (std::transform_inclusive_scan); the
/// scanned type is what `transform` returns. `transform` is called twice per element (once
/// per pass), so it should be cheap and without side effects.
template <class In, class Out, class Op, class Transform>
  requires detail::scan_call<In, Out, typename detail::transform_result<In, Transform>::type, Op, Transform>
auto transform_inclusive_scan(In&& in, Out&& out, Op op, Transform transform) {
  using T = typename detail::transform_result<In, Transform>::type;
  return detail::scan<false, T>("dmap::transform_inclusive_scan", in, out, T{}, op, transform);
}

/// Collective: exclusive_scan of `transform(in[k])` from `init` (std::transform_exclusive_scan);
/// returns init op transform(in[0]) op ... op transform(in[n-1]).
template <class In, class Out, class T, class Op, class Transform>
  requires detail::scan_call<In, Out, T, Op, Transform>
T transform_exclusive_scan(In&& in, Out&& out, T init, Op op, Transform transform) {
  return detail::scan<true, T>("dmap::transform_exclusive_scan", in, out, init, op, transform);
}

/// A misuse of inclusive_scan: says which rule it breaks.
template <class In, class Out, class Op = std::plus<>>
  requires(!detail::scan_call<In, Out, typename detail::transform_result<In, detail::identity_transform>::type, Op,
                              detail::identity_transform>)
void inclusive_scan(In&&, Out&&, Op = {}) {
  detail::scan_misuse_report<detail::scan_rule_broken<In, Out,
                                                      typename detail::transform_result<In, detail::identity_transform>::type,
                                                      Op, detail::identity_transform>(),
                             In, Out>();
}
/// A misuse of exclusive_scan: says which rule it breaks.
template <class In, class Out, class T, class Op = std::plus<>>
  requires(!detail::scan_call<In, Out, T, Op, detail::identity_transform>)
void exclusive_scan(In&&, Out&&, T, Op = {}) {
  detail::scan_misuse_report<detail::scan_rule_broken<In, Out, T, Op, detail::identity_transform>(), In, Out>();
}
/// A misuse of transform_inclusive_scan: says which rule it breaks.
template <class In, class Out, class Op, class Transform>
  requires(!detail::scan_call<In, Out, typename detail::transform_result<In, Transform>::type, Op, Transform>)
void transform_inclusive_scan(In&&, Out&&, Op, Transform) {
  detail::scan_misuse_report<
      detail::scan_rule_broken<In, Out, typename detail::transform_result<In, Transform>::type, Op, Transform>(), In,
      Out>();
}
/// A misuse of transform_exclusive_scan: says which rule it breaks.
template <class In, class Out, class T, class Op, class Transform>
  requires(!detail::scan_call<In, Out, T, Op, Transform>)
void transform_exclusive_scan(In&&, Out&&, T, Op, Transform) {
  detail::scan_misuse_report<detail::scan_rule_broken<In, Out, T, Op, Transform>(), In, Out>();
}

}  // namespace dmap
