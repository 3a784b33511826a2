// Sorting 1-D arrays of any map: a sample sort (local parallel sort, regular sampling, one
// all-to-all of the data, a merge of the received runs) whose sorted buckets then land at
// their row-major positions in the array's own map; stable and by-key variants; is_sorted
// and count_unique.
#pragma once

#include <algorithm>
#include <cmath>
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

#include "../dsi/array.hpp"
#include "../dsi/detail/access.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"
#include "../runtime/detail/tasks.hpp"
#include "detail/linear_slabs.hpp"
#include "detail/sort.hpp"

namespace dmap {

/// A comparator for sorting T: callable on two `const T&` and returning something testable
/// as bool; it should be a strict weak order (as for std::sort). One that is not gives an
/// unspecified order, never undefined behaviour (see dmap::sort).
template <class Comp, class T>
concept sort_comparator = std::predicate<Comp&, const T&, const T&>;

/// Collective: sorts the elements of the 1-D array `a` (any map) into ascending order under
/// `comp` (a strict weak order; `std::less<>` by default): afterwards the element at row-major
/// position k of `a`'s index set is the k-th smallest, whatever the map. Not stable (see
/// stable_sort).
///
/// A sample sort: each locale sorts its elements on its threads (partitioned around sampled pivots
/// into a part per thread, the first partition by all threads, then std::sort per part; in pooled
/// storage, not fresh pages), one all-gather of regular samples (at most 512 per locale) picks P - 1
/// splitters, one exchange sends each locale's bucket (one message per peer), each locale merges
/// its received runs, and one all-gather of bucket sizes places the buckets: an assignment from the
/// buckets' cut to `a`'s map. For a map cutting positions into contiguous runs in locale order
/// (Block, Irregular Block, Stencil) that assignment moves only the elements near locale
/// boundaries; other maps (Cyclic, BlockCyclic, Hashed, Unstructured, Replicated) go through a
/// Block-cut copy first, one more redistribution each way. Replicated arrays end with every copy
/// sorted. Elements that compare equal are spread across buckets by their positions, so many equal
/// keys do not land on one locale.
///
/// Errors: a moved-from array is an argument_error; a comparator that throws on any locale
/// at any stage (or a failed allocation) throws on every locale, leaving `a` unchanged. For
/// floating-point elements under `std::less` or `std::greater`, NaNs sort after every number.
/// A comparator that is not a strict weak order (`a <= b`, a NaN under another comparator, an
/// order that differs between locales or calls) leaves a permutation of the elements in an
/// unspecified order (no crash, no hang): only std::less and std::greater on arithmetic types
/// are sorted with std::sort and oneTBB's parallel_sort, every other comparator with a
/// bounds-checked merge sort. Ghost copies (Stencil) are stale afterwards, as after any write.
template <transferable T, class Comp = std::less<>>
  requires sort_comparator<Comp, T>
void sort(array<T, 1>& a, Comp comp = {}) {
  detail::sort_array(a, comp, false, "dmap::sort");
}

/// Collective: sorts the elements a 1-D view names (a slice, strided or not, of a 1-D array
/// of any map, or a rank-changed view of an array of more dimensions) in the view's row-major
/// order; the other elements of the array are untouched. Costs one redistribution to a
/// Block-cut copy and one back, plus the sort of the copy.
template <class T, std::size_t M, class Comp = std::less<>>
  requires(!std::is_const_v<T> && transferable<T> && sort_comparator<Comp, T>)
void sort(const array_view<T, 1, M>& v, Comp comp = {}) {
  const detail::collective_scope scope;
  auto copy = detail::copy_of_view(v);
  detail::sort_array(copy, comp, false, "dmap::sort");
  v = copy;
}

/// Collective: sorts the elements a 1-D view names, stably (see the view overload of sort).
template <class T, std::size_t M, class Comp = std::less<>>
  requires(!std::is_const_v<T> && transferable<T> && sort_comparator<Comp, T>)
void stable_sort(const array_view<T, 1, M>& v, Comp comp = {}) {
  const detail::collective_scope scope;
  auto copy = detail::copy_of_view(v);
  detail::sort_array(copy, comp, true, "dmap::stable_sort");
  v = copy;
}

/// Collective: sorts `a` like dmap::sort, stably: elements that compare equal keep their
/// row-major order. Locales sort with std::stable_sort per thread and merge (numbers under
/// std::less or std::greater with std::sort, the signed zeros then put back in their order:
/// no other equal numbers can be told apart, so the result is the same); splitters and
/// buckets compare (element, position), and each locale merges its received runs in locale
/// order, so no position travels with the elements.
template <transferable T, class Comp = std::less<>>
  requires sort_comparator<Comp, T>
void stable_sort(array<T, 1>& a, Comp comp = {}) {
  detail::sort_array(a, comp, true, "dmap::stable_sort");
}

/// Collective: sorts `keys` under `comp` and moves each value with its key: afterwards
/// values[k] is the value that was paired (by row-major position) with the key now at
/// keys[k]. Keys and values are 1-D arrays of the same size, of any maps (possibly different);
/// shape_error otherwise. Not stable (stable_sort_by_key is). Costs as dmap::sort on
/// key-value pairs, plus a redistribution of the values to the keys' cut when their maps
/// differ, and one assignment per array at the end.
template <transferable K, transferable V, class Comp = std::less<>>
  requires sort_comparator<Comp, K>
void sort_by_key(array<K, 1>& keys, array<V, 1>& values, Comp comp = {}) {
  detail::sort_by_key(keys, values, comp, false, "dmap::sort_by_key");
}

/// Collective: sort_by_key, stably (values of equal keys keep their row-major order).
template <transferable K, transferable V, class Comp = std::less<>>
  requires sort_comparator<Comp, K>
void stable_sort_by_key(array<K, 1>& keys, array<V, 1>& values, Comp comp = {}) {
  detail::sort_by_key(keys, values, comp, true, "dmap::stable_sort_by_key");
}

/// Collective: true on every locale iff no element of `a` (row-major order) is less under
/// `comp` than the one before it (locale 0's verdict when `comp` answers differently on
/// different locales). A locally checked run per locale and one all-gather of the
/// locales' first and last elements for contiguous cuts (Block, Irregular Block, Stencil);
/// other maps first copy `a` to a Block cut (one redistribution). A throwing comparator
/// throws on every locale.
template <transferable T, class Comp = std::less<>>
  requires sort_comparator<Comp, T>
[[nodiscard]] bool is_sorted(const array<T, 1>& a, Comp comp = {}) {
  detail::check_sortable(a, "dmap::is_sorted", "the array");
  auto less = detail::effective_order<T>(comp);
  const auto src = detail::in_position_order(a);
  return detail::combine(detail::summaries(src.data, src.count(), less), less).first;
}

/// Collective: is_sorted of the elements a 1-D view names, in its row-major order (through
/// a Block-cut copy).
template <class T, std::size_t M, class Comp = std::less<>>
  requires(transferable<std::remove_const_t<T>> && sort_comparator<Comp, std::remove_const_t<T>>)
[[nodiscard]] bool is_sorted(const array_view<T, 1, M>& v, Comp comp = {}) {
  return is_sorted(detail::copy_of_view(v), comp);
}

/// Collective: count_unique of the elements a 1-D view names (through a Block-cut copy).
template <class T, std::size_t M, class Comp = std::less<>>
  requires(transferable<std::remove_const_t<T>> && sort_comparator<Comp, std::remove_const_t<T>>)
[[nodiscard]] index_t count_unique(const array_view<T, 1, M>& v, Comp comp = {});

/// Collective: the number of distinct elements of `a` (classes of elements equivalent under
/// `comp`: neither less than the other), the same on every locale. Sorted input (checked as
/// in is_sorted) is counted in place: runs of equal elements, one small all-gather. Unsorted
/// input is sample-sorted into buckets first (on a copy: `a` is unchanged), then its runs are
/// counted: the cost of dmap::sort without the final placement.
template <transferable T, class Comp = std::less<>>
  requires sort_comparator<Comp, T>
[[nodiscard]] index_t count_unique(const array<T, 1>& a, Comp comp = {}) {
  detail::check_sortable(a, "dmap::count_unique", "the array");
  auto less = detail::effective_order<T>(comp);
  const auto src = detail::in_position_order(a);
  const auto [sorted, runs] = detail::combine(detail::summaries(src.data, src.count(), less), less);
  if (sorted) return runs;
  auto buckets = detail::sample_sort<T>([&] { return detail::pooled_vector<T>(src.data, src.data + src.count()); },
                                        src.offset(), src.starts, less, false);
  return detail::combine(
             detail::summaries(buckets.bucket.data(), static_cast<index_t>(buckets.bucket.size()), less), less)
      .second;
}

template <class T, std::size_t M, class Comp>
  requires(transferable<std::remove_const_t<T>> && sort_comparator<Comp, std::remove_const_t<T>>)
index_t count_unique(const array_view<T, 1, M>& v, Comp comp) {
  return count_unique(detail::copy_of_view(v), comp);
}

}  // namespace dmap
