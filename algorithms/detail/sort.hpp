// The machinery behind sort.hpp (not part of the API): nan_last, trusted_order, is_trusted,
// effective_order, sort_grain, checked_merge, checked_sort, merge_piece, cut_merge, merge_cuts,
// run_merge_pieces, merge_runs, merge_sources, key_order, is_nan_last, plain_order,
// is_number_element, local_sort, chunk_count, run_chunks, any_chunk, sort_part, partition_scratch,
// parallel_partition, split_part, sort_in_place, sort_sample, samples_per_locale, sorted_buckets, sample_sort,
// run_info, local_run, cut_of, position_ordered, in_position_order, starts_of_buckets,
// exchange_bucket_parts, place_buckets, key_value, place_pairs, check_sortable, copy_noting_nan, sort_array,
// sort_by_key, run_summary, summarise, summaries, combine, copy_of_view.
#pragma once

#include <algorithm>
#include <array>
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

#include "../../dsi/array.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/buffers.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../../runtime/detail/tasks.hpp"
#include "linear_slabs.hpp"

namespace dmap::detail {

/// For floating-point elements under std::less / std::greater: the same order with NaN after
/// every number (and NaNs equal), a strict weak order where the plain one is not, so a NaN
/// can never make a local sort read outside its range.
template <class T, bool Descending>
struct nan_last {
  constexpr bool operator()(const T& a, const T& b) const {
    if constexpr (Descending) return a > b || (b != b && a == a);
    else return a < b || (b != b && a == a);
  }
};

/// A comparator known to be a strict weak order (std::less or std::greater on arithmetic
/// elements other than floating point, a key order built on one): the local sorts may use
/// std::sort and std::stable_sort on it, whose reads stay in range only under a strict weak
/// order. Every other comparator is the user's and is never trusted so.
template <class Less>
struct trusted_order {
  Less less;  ///< the order itself
  /// less(a, b).
  template <class A, class B>
  constexpr bool operator()(const A& a, const B& b) const {
    return less(a, b);
  }
};

/// True for the orders the library's own sorts may rely on: trusted_order and nan_last.
template <class Less>
struct is_trusted : std::false_type {};
template <class Less>
struct is_trusted<trusted_order<Less>> : std::true_type {};
template <class T, bool Descending>
struct is_trusted<nan_last<T, Descending>> : std::true_type {};

/// The comparator sort uses for `comp` on T: nan_last for floating-point T under std::less
/// or std::greater (transparent or not), trusted_order of std::less or std::greater for other
/// arithmetic T, `comp` itself otherwise (a user's comparator: sorted by checked_sort).
template <class T, class Comp>
auto effective_order(const Comp& comp) {
  constexpr bool less = std::is_same_v<Comp, std::less<>> || std::is_same_v<Comp, std::less<T>>;
  constexpr bool greater = std::is_same_v<Comp, std::greater<>> || std::is_same_v<Comp, std::greater<T>>;
  if constexpr (std::is_floating_point_v<T> && less)
    return nan_last<T, false>{};
  else if constexpr (std::is_floating_point_v<T> && greater)
    return nan_last<T, true>{};
  else if constexpr (std::is_arithmetic_v<T> && (less || greater))
    return trusted_order<Comp>{comp};
  else
    return comp;
}

/// Below this many elements a local sort or merge runs on one thread.
inline constexpr std::size_t sort_grain = 1 << 14;

/// Merges [a, a_end) and [b, b_end) into `out`, taking from b only when `less(*b, *a)` (stable).
/// Every read is bounded by the two ends, whatever `less` answers: the output is always the
/// two inputs' elements, each once.
template <class E, class Less>
E* checked_merge(const E* a, const E* a_end, const E* b, const E* b_end, E* out, Less& less) {
  while (a != a_end && b != b_end) *out++ = less(*b, *a) ? *b++ : *a++;
  out = std::copy(a, a_end, out);
  return std::copy(b, b_end, out);
}

/// Sorts [data, data + n) under `less`, stably, by a bottom-up merge sort (insertion sort of
/// runs of 16, then merges between `data` and `scratch`, n elements): each read and write is
/// bounded by an explicit index check, so a comparator that is not a strict weak order (`<=`,
/// a random answer) leaves a permutation of the input in an unspecified order, never a read
/// out of range as std::sort may (a comparator that throws leaves the range unspecified: the
/// callers sort copies). The sort of every user comparator.
template <class E, class Less>
void checked_sort(E* data, std::size_t n, Less& less, E* scratch) {
  constexpr std::size_t run = 16;
  for (std::size_t s = 0; s < n; s += run) {
    const std::size_t e = std::min(n, s + run);
    for (std::size_t i = s + 1; i < e; ++i) {
      E x = data[i];
      std::size_t j = i;
      for (; j > s && less(x, data[j - 1]); --j) data[j] = data[j - 1];
      data[j] = x;
    }
  }
  E* from = data;
  E* to = scratch;
  for (std::size_t width = run; width < n; width *= 2) {
    for (std::size_t s = 0; s < n; s += 2 * width) {
      const std::size_t m = std::min(n, s + width), e = std::min(n, s + 2 * width);
      checked_merge(from + s, from + m, from + m, from + e, to + s, less);
    }
    std::swap(from, to);
  }
  if (from != data) std::copy(from, from + n, data);
}

/// checked_sort of all of `v`.
template <class E, class A, class Less>
void checked_sort(std::vector<E, A>& v, Less& less) {
  if (v.size() < 2) return;
  std::vector<E> scratch(v.size());
  checked_sort(v.data(), v.size(), less, scratch.data());
}

/// One piece of a parallel merge: [a0, a1) and [b0, b1) merged into `out`.
template <class E>
struct merge_piece {
  const E* a0;
  const E* a1;
  const E* b0;
  const E* b1;
  E* out;
};

/// Appends to `pieces` the merge of the sorted runs [a, a + na) and [b, b + nb) into `out`,
/// cut into `cuts` pieces at merge-path split points: how many of the first k merged elements
/// come from run a (ties from a first, which keeps the merge stable). Each split is searched
/// between the previous one's counts, so the pieces tile both runs even when `less` is not a
/// strict weak order (the search is then not monotone in k).
template <class E, class Less>
void cut_merge(const E* a, std::size_t na, const E* b, std::size_t nb, E* out, std::size_t cuts, Less& less,
               std::vector<merge_piece<E>>& pieces) {
  const std::size_t total = na + nb;
  std::size_t prev_i = 0, prev_k = 0;
  for (std::size_t c = 1; c <= cuts; ++c) {
    const std::size_t k = total * c / cuts;
    std::size_t lo = std::max(k > nb ? k - nb : 0, prev_i), hi = std::min(na, prev_i + (k - prev_k));
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (!less(b[k - mid - 1], a[mid])) lo = mid + 1;
      else hi = mid;
    }
    pieces.push_back({a + prev_i, a + lo, b + (prev_k - prev_i), b + (k - lo), out + prev_k});
    prev_i = lo;
    prev_k = k;
  }
}

/// The number of pieces a merge of `total` elements out of `all` merged in one round is cut
/// into: its share of the threads, one piece per 4096 elements at most.
inline std::size_t merge_cuts(std::size_t total, std::size_t all) {
  const std::size_t threads = static_cast<std::size_t>(num_threads());
  std::size_t cuts = all < sort_grain ? 1 : std::max<std::size_t>(1, threads * total / all);
  return std::min(cuts, std::max<std::size_t>(1, total / 4096));
}

/// Runs the pieces of one merge round on this locale's threads (checked_merge each).
template <class E, class Less>
void run_merge_pieces(const std::vector<merge_piece<E>>& pieces, Less& less) {
  run_tasks(pieces.size(), [&](std::size_t t) {
    const merge_piece<E>& p = pieces[t];
    checked_merge(p.a0, p.a1, p.b0, p.b1, p.out, less);
  });
}

/// Merges the sorted runs of `v` ([bounds[k], bounds[k + 1]) for each k) into one sorted run,
/// stably: of equal elements, those of an earlier run come first. Adjacent runs are merged
/// pairwise, log2(runs) rounds; each round is cut into about one piece per thread at
/// merge-path split points, so two long runs merge in parallel too. Bounded whatever `less`
/// answers (checked_merge, split points kept in order): the result is a permutation of `v`.
template <class E, class A, class Less>
void merge_runs(std::vector<E, A>& v, std::vector<std::size_t> bounds, Less& less) {
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  if (bounds.size() <= 2) return;
  std::vector<E, A> buffer(v.size(), v.get_allocator());
  while (bounds.size() > 2) {
    std::vector<merge_piece<E>> pieces;
    std::vector<std::size_t> next{0};
    for (std::size_t r = 0; r + 1 < bounds.size(); r += 2) {
      const std::size_t a = bounds[r], m = bounds[r + 1];
      const std::size_t e = r + 2 < bounds.size() ? bounds[r + 2] : m;  // a last run alone is copied
      cut_merge(v.data() + a, m - a, v.data() + m, e - m, buffer.data() + a, merge_cuts(e - a, v.size()), less, pieces);
      next.push_back(e);
    }
    run_merge_pieces(pieces, less);
    v.swap(buffer);
    bounds = std::move(next);
  }
}

/// Merges the sorted runs `sources` (pointer and length, in order) into `out` (their total
/// size), stably like merge_runs: the first round reads the runs where they are (received
/// messages, a locale's own part), pairwise, the next rounds merge_runs `out`.
template <class E, class A, class Less>
void merge_sources(const std::vector<std::pair<const E*, std::size_t>>& sources, std::vector<E, A>& out, Less& less) {
  std::vector<merge_piece<E>> pieces;
  std::vector<std::size_t> bounds{0};
  std::size_t at = 0;
  for (std::size_t r = 0; r < sources.size(); r += 2) {
    const auto& [a, na] = sources[r];
    const auto [b, nb] = r + 1 < sources.size() ? sources[r + 1] : std::pair<const E*, std::size_t>{a + na, 0};
    if (na + nb > 0) cut_merge(a, na, b, nb, out.data() + at, merge_cuts(na + nb, out.size()), less, pieces);
    at += na + nb;
    bounds.push_back(at);
  }
  run_merge_pieces(pieces, less);
  merge_runs(out, std::move(bounds), less);
}

/// Orders key-value pairs (anything with a member `key`) by their keys under `order`.
template <class Order>
struct key_order {
  Order order;  ///< the order of the keys
  /// order(a.key, b.key).
  template <class KV>
  constexpr bool operator()(const KV& a, const KV& b) const {
    return order(a.key, b.key);
  }
};
template <class Order>
struct is_trusted<key_order<Order>> : is_trusted<Order> {};

/// True for nan_last, and for a key order built on it: NaNs (keys) are set apart before a
/// local sort, and the numbers sorted under plain_order.
template <class Less>
struct is_nan_last : std::false_type {};
template <class T, bool Descending>
struct is_nan_last<nan_last<T, Descending>> : std::true_type {};
template <class Order>
struct is_nan_last<key_order<Order>> : is_nan_last<Order> {};

/// The order a nan_last order is on numbers: std::less or std::greater, trusted.
template <class T, bool Descending>
auto plain_order(const nan_last<T, Descending>&) {
  if constexpr (Descending) return trusted_order<std::greater<T>>{};
  else return trusted_order<std::less<T>>{};
}
/// The key order on the pairs whose keys are numbers.
template <class Order>
auto plain_order(const key_order<Order>& k) {
  using plain = decltype(plain_order(k.order));
  return key_order<plain>{plain_order(k.order)};
}

/// True when `x` (an arithmetic element, or a pair's key) is not a NaN.
template <class E>
bool is_number_element(const E& x) {
  if constexpr (std::is_arithmetic_v<E>) return x == x;
  else return x.key == x.key;
}

template <class E, class Less>
void sort_in_place(E* data, std::size_t n, const Less& less, bool stable);  // (below)

/// Sorts `v` on this locale's threads. A trusted order (is_trusted) of numbers, or of pairs
/// when not stable: sort_in_place (its NaNs set apart, its parts partitioned around sampled
/// pivots, no merge). A stable sort of pairs under a trusted order: under nan_last the NaN
/// keys are moved to the end first (stably) and the numbers sorted with the plain operator,
/// then one std::stable_sort per thread's chunk and a stable merge of the chunks. Any other
/// comparator: one checked_sort per thread's chunk and the checked merge of the chunks
/// (stable either way), which is safe whatever the comparator answers.
template <class E, class A, class Less>
void local_sort(std::vector<E, A>& v, Less& less, bool stable) {
  if constexpr (is_trusted<Less>::value) {
    if (!stable || std::is_arithmetic_v<E>) {
      sort_in_place(v.data(), v.size(), less, stable);
      return;
    }
  }
  if constexpr (is_nan_last<Less>::value) {  // (stable pairs)
    const auto end = std::stable_partition(v.begin(), v.end(), [](const E& x) { return is_number_element(x); });
    std::vector<E> tail(end, v.end());
    v.erase(end, v.end());
    auto plain = plain_order(less);
    local_sort(v, plain, stable);
    v.insert(v.end(), tail.begin(), tail.end());
    return;
  }
  // (Left here under a trusted order: stable sorts of pairs.)
  const std::size_t threads = static_cast<std::size_t>(num_threads());
  if constexpr (is_trusted<Less>::value) {
    if (threads == 1 || v.size() < sort_grain) {
      std::stable_sort(v.begin(), v.end(), less);
      return;
    }
  } else {
    if (threads == 1 || v.size() < sort_grain) {
      checked_sort(v, less);
      return;
    }
  }
  std::vector<std::size_t> bounds(threads + 1);
  for (std::size_t t = 0; t <= threads; ++t) bounds[t] = v.size() * t / threads;
  std::vector<E, A> scratch(v.get_allocator());
  if constexpr (!is_trusted<Less>::value) scratch.resize(v.size());
  run_tasks(threads, [&](std::size_t t) {
    if constexpr (is_trusted<Less>::value) {
      const auto first = v.begin() + static_cast<std::ptrdiff_t>(bounds[t]);
      std::stable_sort(first, v.begin() + static_cast<std::ptrdiff_t>(bounds[t + 1]), less);
    } else
      checked_sort(v.data() + bounds[t], bounds[t + 1] - bounds[t], less, scratch.data() + bounds[t]);
  });
  std::vector<E, A>(v.get_allocator()).swap(scratch);
  merge_runs(v, std::move(bounds), less);
}

/// The number of ranges run_chunks cuts n elements into: one per thread, one below
/// sort_grain elements.
inline std::size_t chunk_count(std::size_t n) {
  return n < sort_grain ? 1 : static_cast<std::size_t>(num_threads());
}

/// Calls f(t, a, b) for the t-th of the chunk_count(n) ranges [a, b) that cut [0, n) in
/// order, on this locale's threads.
template <class F>
void run_chunks(std::size_t n, F&& f) {
  const std::size_t pieces = chunk_count(n);
  run_tasks(pieces, [&](std::size_t t) { f(t, n * t / pieces, n * (t + 1) / pieces); });
}

/// Calls test(a, b) for each of run_chunks' ranges [a, b) of [0, n), on this locale's threads;
/// true when some call returned true.
template <class F>
bool any_chunk(std::size_t n, F&& test) {
  std::vector<unsigned char> found(chunk_count(n), 0);
  run_chunks(n, [&](std::size_t t, std::size_t a, std::size_t b) { found[t] = test(a, b); });
  return std::find(found.begin(), found.end(), 1) != found.end();
}

/// A stretch [first, last) of the elements sort_in_place partitions, and how many
/// threads will sort it (0: its elements are all equivalent, already in order).
struct sort_part {
  std::size_t first, last, threads;
};

/// The scratch of parallel_partition over `pieces` chunks (one per thread), allocated before
/// any element moves: where each chunk's right side starts, and the runs of misplaced elements.
struct partition_scratch {
  std::vector<std::size_t> mids;
  std::vector<std::pair<std::size_t, std::size_t>> right_low, left_high;
  explicit partition_scratch(std::size_t pieces) : mids(pieces) {
    right_low.reserve(pieces);
    left_high.reserve(pieces);
  }
};

/// std::partition of [data, data + n) by `pred` (not stable) on this locale's threads: each of
/// s.mids.size() chunks (one below sort_grain elements) is partitioned, then the right-side
/// elements that lie before the split and the left-side ones after it are swapped pairwise,
/// in parallel. One pass over the elements on every thread where std::partition is one pass on
/// one thread. Returns the split.
template <class E, class Pred>
E* parallel_partition(E* data, std::size_t n, const Pred& pred, partition_scratch& s) {
  const std::size_t pieces = n < sort_grain ? 1 : s.mids.size();
  if (pieces <= 1) return std::partition(data, data + n, pred);
  const auto start = [&](std::size_t t) { return n * t / pieces; };
  run_tasks(pieces, [&](std::size_t t) {
    s.mids[t] = static_cast<std::size_t>(std::partition(data + start(t), data + start(t + 1), pred) - data);
  });
  std::size_t mid = 0;
  for (std::size_t t = 0; t < pieces; ++t) mid += s.mids[t] - start(t);
  // As many right-side elements lie before `mid` as left-side ones from `mid` on.
  s.right_low.clear();
  s.left_high.clear();
  std::size_t misplaced = 0;
  for (std::size_t t = 0; t < pieces; ++t) {
    const std::size_t r0 = s.mids[t], r1 = std::min(start(t + 1), mid);
    if (r0 < r1) {
      s.right_low.emplace_back(r0, r1);
      misplaced += r1 - r0;
    }
    const std::size_t l0 = std::max(start(t), mid), l1 = s.mids[t];
    if (l0 < l1) s.left_high.emplace_back(l0, l1);
  }
  // The k-th of the one list is swapped with the k-th of the other, a stretch of k per thread.
  const auto locate = [](const std::vector<std::pair<std::size_t, std::size_t>>& runs, std::size_t k) {
    std::size_t r = 0;
    while (k >= runs[r].second - runs[r].first) {
      k -= runs[r].second - runs[r].first;
      ++r;
    }
    return std::pair{r, runs[r].first + k};
  };
  run_tasks(pieces, [&](std::size_t t) {
    std::size_t k = misplaced * t / pieces;
    const std::size_t k_end = misplaced * (t + 1) / pieces;
    if (k == k_end) return;
    auto [ra, rp] = locate(s.right_low, k);
    auto [la, lp] = locate(s.left_high, k);
    while (k < k_end) {
      const std::size_t len = std::min({k_end - k, s.right_low[ra].second - rp, s.left_high[la].second - lp});
      std::swap_ranges(data + rp, data + rp + len, data + lp);
      k += len;
      rp += len;
      lp += len;
      if (rp == s.right_low[ra].second && ra + 1 < s.right_low.size()) rp = s.right_low[++ra].first;
      if (lp == s.left_high[la].second && la + 1 < s.left_high.size()) lp = s.left_high[++la].first;
    }
  });
  return data + mid;
}

/// Partitions the part `p` of `data` (p.threads >= 2) around a pivot taken from a sample at
/// the quantile of the threads it gives the lower side: elements before the pivot, then (when
/// the lower side came out small) those equivalent to it, then the rest. Returns the parts,
/// empty ones with first == last. With `scratch` (the part is the only one of its level) the
/// partitions run on all threads (parallel_partition), else on the calling thread.
template <class E, class Less>
std::array<sort_part, 3> split_part(E* data, const sort_part& p, const Less& less, partition_scratch* scratch) {
  // (On the stack: no allocation once elements move. At most 16 KiB of samples, 15 at least.)
  constexpr std::size_t samples = std::clamp<std::size_t>(16384 / sizeof(E), 15, 255);
  const std::size_t n = p.last - p.first, low_threads = p.threads / 2;
  std::array<E, samples> sample;
  for (std::size_t j = 0; j < samples; ++j) sample[j] = data[p.first + (2 * j + 1) * n / (2 * samples)];
  const std::size_t rank = samples * low_threads / p.threads;
  std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(rank), sample.end(), less);
  const E pivot = sample[rank];
  E* const first = data + p.first;
  E* const last = data + p.last;
  const auto partition = [&](E* from, E* to, const auto& pred) {
    return scratch ? parallel_partition(from, static_cast<std::size_t>(to - from), pred, *scratch)
                   : std::partition(from, to, pred);
  };
  E* const mid = partition(first, last, [&](const E& x) { return less(x, pivot); });
  E* equal_end = mid;
  // Few elements before the pivot (many equal ones): the equivalent block is set apart, so
  // that each side shrinks (the block holds the pivot at least).
  if (static_cast<std::size_t>(mid - first) < n * low_threads / p.threads / 2)
    equal_end = partition(mid, last, [&](const E& x) { return !less(pivot, x); });
  const auto at = [&](const E* e) { return static_cast<std::size_t>(e - data); };
  return {sort_part{p.first, at(mid), low_threads}, sort_part{at(mid), at(equal_end), 0},
          sort_part{at(equal_end), p.last, p.threads - low_threads}};
}

/// Sorts [data, data + n) in place on this locale's threads under a trusted order (is_trusted)
/// of numbers or of pairs by number keys (a nan_last order sets the NaNs apart at the end
/// first, stably when `stable`): partitions around sampled pivots until each thread has a part
/// (the parts of one level partitioned in parallel, the first level's one part by all threads),
/// then std::sort of each part. No copy and
/// no merge buffer: the one-locale sort of an array's own storage (oneTBB's parallel_sort
/// works the same way). `stable` is for numbers only: numbers that compare equal are
/// identical but for the sign of zero, so the zeros are written back in their first order.
/// Allocates before any element moves (the parts' lists are reserved for their most, 2 per
/// thread); after that only oneTBB's tasks do.
template <class E, class Less>
void sort_in_place(E* data, std::size_t n, const Less& less, bool stable) {
  static_assert(is_trusted<Less>::value, "sort_in_place: an order that cannot throw or misbehave");
  if constexpr (is_nan_last<Less>::value) {
    // The NaNs go to the end (a parallel look for one first: most inputs have none).
    const auto number = [](const E& x) { return is_number_element(x); };
    E* end = data + n;
    if (any_chunk(n, [&](std::size_t a, std::size_t b) { return !std::all_of(data + a, data + b, number); }))
      end = stable ? std::stable_partition(data, data + n, number) : std::partition(data, data + n, number);
    sort_in_place(data, static_cast<std::size_t>(end - data), plain_order(less), stable);
  } else {
    std::vector<E> zeros;  // (stable: the zeros in their first order, collected per chunk)
    if constexpr (std::is_floating_point_v<E>)
      if (stable) {
        std::vector<std::vector<E>> found(chunk_count(n));
        run_chunks(n, [&](std::size_t t, std::size_t a, std::size_t b) {
          for (std::size_t k = a; k < b; ++k)
            if (data[k] == E{0}) found[t].push_back(data[k]);
        });
        for (const auto& f : found) zeros.insert(zeros.end(), f.begin(), f.end());
      }
    const std::size_t threads = static_cast<std::size_t>(num_threads());
    // At most one part per thread to sort and one block of equal elements per split.
    std::vector<sort_part> parts;
    std::vector<std::array<sort_part, 3>> split;
    parts.reserve(2 * threads + 1);
    split.reserve(2 * threads + 1);
    parts.push_back({0, n, threads == 1 || n < sort_grain ? 1 : threads});
    partition_scratch scratch(threads);
    while (std::any_of(parts.begin(), parts.end(), [](const sort_part& p) { return p.threads > 1; })) {
      split.assign(parts.size(), {});
      const bool alone = parts.size() == 1;  // (the first level: its partitions use every thread)
      run_tasks(parts.size(), [&](std::size_t j) {
        if (parts[j].threads > 1 && parts[j].last - parts[j].first >= sort_grain) {
          split[j] = split_part(data, parts[j], less, alone ? &scratch : nullptr);
        } else {
          split[j] = {sort_part{parts[j].first, parts[j].last, std::min<std::size_t>(parts[j].threads, 1)},
                      sort_part{0, 0, 0}, sort_part{0, 0, 0}};
        }
      });
      parts.clear();
      for (const auto& three : split)
        for (const sort_part& q : three)
          if (q.last > q.first) parts.push_back(q);
    }
    run_tasks(parts.size(), [&](std::size_t j) {
      if (parts[j].threads > 0) std::sort(data + parts[j].first, data + parts[j].last, less);
    });
    if constexpr (std::is_floating_point_v<E>)
      if (!zeros.empty()) std::copy(zeros.begin(), zeros.end(), std::lower_bound(data, data + n, E{0}, less));
  }
}

/// One regular sample of a locale's sorted elements: the element, its position in the
/// order (position) that breaks ties, and how many elements it stands for (weight; 0: no
/// sample; negative: the locale failed before sampling).
template <class E>
struct sort_sample {
  E value;
  index_t position;
  double weight;
};

/// The samples each locale contributes: at least P - 1 (regular sampling's bound, every
/// bucket at most about twice the average), 16 per locale below 32 locales for buckets
/// within a few percent of the average, at most 512 (the all-gather is O(P x samples)).
inline std::size_t samples_per_locale(int p) {
  return std::max<std::size_t>(static_cast<std::size_t>(p) - 1, std::min<std::size_t>(16 * static_cast<std::size_t>(p), 512));
}

/// What the sample sort leaves on a locale: bucket `here()` of the sorted sequence (in pooled
/// storage) and every bucket's size (locale order).
template <class E>
struct sorted_buckets {
  pooled_vector<E> bucket;
  std::vector<index_t> sizes;
};

/// Collective: a sample sort of the elements that the locales hold in position order, locale
/// q holding positions [offset_q, offset_q + m_q) in locale order; `cut` (P + 1 starts, the
/// total last) is where the result will be placed, which the buckets approach. `load()` returns
/// this locale's m elements (in position order when `stable`) as a pooled_vector: the loaded
/// elements, the received runs and the merged bucket all live in the message pool's storage
/// (huge pages, kept from call to call), not in fresh pages (fresh pages made the sort of 2^24
/// doubles at 2 x 1 1.5 s instead of 1.0). `numbers` (may be null) is read after load(): true
/// when load() saw no NaN element or key, so that a nan_last order's local sort need not look
/// for them (the splitters keep the whole order). Bucket q of the result holds
/// the elements that sort between splitters q - 1 and q, where elements compare as (element
/// under `less`, position): equal elements spread over several buckets instead of piling up
/// on one locale, and (stable) keep their order. One all-gather of samples, one exchange of
/// the data (one message per peer), one all-gather of bucket sizes; a failure on any locale
/// (`load`, `less`, an allocation) is thrown on every locale.
template <class E, class Less, class Load>
sorted_buckets<E> sample_sort(Load&& load, index_t offset, const std::vector<index_t>& cut, Less less, bool stable,
                              const bool* numbers = nullptr) {
  const index_t total = cut.back();
  const int p = num_locales();
  sorted_buckets<E> out;
  pooled_vector<E> v;
  std::exception_ptr failure;
  const std::size_t k_max = samples_per_locale(p);
  std::vector<sort_sample<E>> mine(k_max, sort_sample<E>{E{}, 0, 0.0});
  try {
    v = load();
    if constexpr (is_nan_last<Less>::value) {
      if (numbers && *numbers) {
        auto plain = plain_order(less);
        local_sort(v, plain, stable);
      } else {
        local_sort(v, less, stable);
      }
    } else {
      local_sort(v, less, stable);
    }
    const std::size_t m = v.size();
    const std::size_t k = std::min(k_max, m);
    for (std::size_t j = 0; j < k; ++j) {
      const auto at = static_cast<std::size_t>((static_cast<long double>(2 * j + 1) * m) / (2.0L * k));
      mine[j] = {v[at], offset + static_cast<index_t>(at), static_cast<double>(m) / static_cast<double>(k)};
    }
  } catch (...) {
    failure = std::current_exception();
    for (auto& s : mine) s.weight = -1;
  }
  if (p == 1) {
    agree(failure);
    out.sizes = {static_cast<index_t>(v.size())};
    out.bucket = std::move(v);
    return out;
  }
  const auto all = all_gather_fixed(std::span<const sort_sample<E>>(mine));
  if (std::any_of(all.begin(), all.end(), [](const sort_sample<E>& s) { return s.weight < 0; })) {
    agree(failure);  // throws on every locale
  }
  const auto before = [&](const E& a, index_t pa, const E& b, index_t pb) {
    if (less(a, b)) return true;
    return !less(b, a) && pa < pb;
  };
  // Splitters and partition: every locale computes the same splitters; a throwing comparator
  // or a failed allocation is agreed before the exchange.
  const std::vector<std::size_t> cuts = agreed([&] {
    std::vector<sort_sample<E>> samples;
    for (const auto& s : all)
      if (s.weight > 0) samples.push_back(s);
    auto by_sample = [&](const sort_sample<E>& a, const sort_sample<E>& b) {
      return before(a.value, a.position, b.value, b.position);
    };
    checked_sort(samples, by_sample);
    double weight = 0;
    for (const auto& s : samples) weight += s.weight;
    // Splitter r (1 <= r < P) is the first sample with about cut[r] elements before it (a
    // sample sits mid-way in the stretch of elements it stands for), so the buckets come out
    // close to the cut the result is placed in, and exactly on it when every element is a
    // sample.
    std::vector<std::size_t> bounds{0};
    double seen = 0;
    std::size_t next = 0;
    for (int r = 1; r < p; ++r) {
      const double target =
          total > 0 ? static_cast<double>(cut[static_cast<std::size_t>(r)]) * weight / static_cast<double>(total) : 0;
      while (next < samples.size() && seen + (samples[next].weight - 1) / 2 < target - 1e-9)
        seen += samples[next++].weight;
      std::size_t edge = v.size();
      if (next < samples.size()) {
        const sort_sample<E>& s = samples[next];
        std::size_t lo = bounds.back(), hi = v.size();
        while (lo < hi) {
          const std::size_t mid = lo + (hi - lo) / 2;
          if (before(v[mid], offset + static_cast<index_t>(mid), s.value, s.position)) lo = mid + 1;
          else hi = mid;
        }
        edge = lo;
      }
      bounds.push_back(edge);
    }
    bounds.push_back(v.size());
    return bounds;
  });
  // Each bucket sent from where it lies in v; this locale's own stays there.
  std::vector<std::span<const std::byte>> outgoing(static_cast<std::size_t>(p));
  for (std::size_t q = 0; q < outgoing.size(); ++q)
    outgoing[q] = std::as_bytes(std::span<const E>(v.data() + cuts[q], cuts[q + 1] - cuts[q]));
  std::vector<pooled_vector<std::byte>> incoming;
  detail::exchange_spans_into(outgoing, incoming);
  // The runs, in locale order (which is position order), merged stably from where they are.
  struct size_and_flag {
    index_t size;
    int failed;
  };
  size_and_flag mine_size{0, 0};
  try {
    std::vector<std::pair<const E*, std::size_t>> sources;
    std::vector<std::vector<E>> realigned;  // messages whose buffer is not aligned for E (over-aligned E)
    std::size_t count = 0;
    for (std::size_t q = 0; q < incoming.size(); ++q) {
      const std::size_t length = q == static_cast<std::size_t>(here()) ? cuts[q + 1] - cuts[q] : incoming[q].size() / sizeof(E);
      if (q == static_cast<std::size_t>(here())) sources.emplace_back(v.data() + cuts[q], length);
      else if (reinterpret_cast<std::uintptr_t>(incoming[q].data()) % alignof(E) == 0)
        sources.emplace_back(reinterpret_cast<const E*>(incoming[q].data()), length);
      else {
        realigned.emplace_back(length);
        if (length > 0) std::memcpy(realigned.back().data(), incoming[q].data(), length * sizeof(E));
        sources.emplace_back(realigned.back().data(), length);
      }
      count += length;
    }
    out.bucket.resize(count);
    merge_sources(sources, out.bucket, less);
    mine_size.size = static_cast<index_t>(count);
  } catch (...) {
    failure = std::current_exception();
    mine_size.failed = 1;
  }
  const auto sizes = all_gather(mine_size);
  if (std::any_of(sizes.begin(), sizes.end(), [](const size_and_flag& s) { return s.failed != 0; })) agree(failure);
  out.sizes.resize(sizes.size());
  index_t sum = 0;
  for (std::size_t q = 0; q < sizes.size(); ++q) sum += out.sizes[q] = sizes[q].size;
  if (sum != total)
    throw runtime_error("dmap::sort: the buckets hold " + std::to_string(sum) + " elements, the array " +
                        std::to_string(total) + "; some locale's comparator disagreed with another's");
  return out;
}

/// Where one locale's elements of a 1-D array lie, for the all-gather that tells whether the
/// array is placed like a contiguous cut (locale q holding positions [first, first + count)
/// in order, in one compact run of storage).
struct run_info {
  index_t first;
  index_t count;
  int contiguous;
};

/// This locale's run_info of `a`, and a pointer to its first element when contiguous.
template <class T>
std::pair<run_info, T*> local_run(const array<T, 1>& a) {
  const auto& owned = a.domain().local_subdomains();
  if (owned.empty()) return {{0, 0, 1}, nullptr};
  if (owned.size() != 1) return {{0, 0, 0}, nullptr};
  const auto& blocks = a.local_blocks();
  const range& r = owned[0].dim(0);
  const range& w = a.domain().indices().dim(0);
  const local_block<T, 1>& b = blocks[0];
  if (r.stride() != w.stride()) return {{0, 0, 0}, nullptr};
  const index_t n = r.size();
  T* first = &b(idx<1>{r.first()});
  if (n > 1 && (&b(idx<1>{r.index_at(1)}) != first + 1 || &b(idx<1>{r.last()}) != first + (n - 1)))
    return {{0, 0, 0}, nullptr};
  return {{w.order_of(r.first()), n, 1}, first};
}

/// The starts of the cut `infos` describe (one per locale, then the total), or nothing when
/// they do not describe every position once, in locale order.
inline std::optional<std::vector<index_t>> cut_of(const std::vector<run_info>& infos, index_t n) {
  std::vector<index_t> starts{0};
  for (const auto& i : infos) {
    if (!i.contiguous || (i.count > 0 && i.first != starts.back())) return std::nullopt;
    starts.push_back(starts.back() + i.count);
  }
  if (starts.back() != n) return std::nullopt;
  return starts;
}

/// A 1-D array's elements in position order, in contiguous runs cut across the locales in
/// locale order: the array's own storage when its map places it so (Block, Irregular Block,
/// a Stencil's owned chunks, ...), else a copy over a 1-D linear_slabs cut (one redistribution).
template <class T>
struct position_ordered {
  std::optional<domain<1>> dom;
  std::optional<array<T, 1>> copy;
  T* data = nullptr;
  std::vector<index_t> starts;

  /// The number of elements this locale holds.
  index_t count() const {
    const auto q = static_cast<std::size_t>(here());
    return starts[q + 1] - starts[q];
  }
  /// The position of this locale's first element.
  index_t offset() const { return starts[static_cast<std::size_t>(here())]; }
};

/// Collective: `a` in position order; over the cut `want` when given (a copy unless `a` has
/// that cut), else over `a`'s own cut when it has one, else Block's.
template <class T>
position_ordered<T> in_position_order(const array<T, 1>& a, const std::vector<index_t>* want = nullptr) {
  position_ordered<T> out;
  const index_t n = a.domain().size();
  const auto [info, first] = local_run(a);
  const auto own = cut_of(all_gather(info), n);
  if (own && (!want || *own == *want)) {
    out.data = first;
    out.starts = *own;
    return out;
  }
  const linear_slabs<1> cut = want ? linear_slabs<1>(*want) : linear_slabs<1>::block(n);
  out.starts = cut.starts();
  out.dom.emplace(cut, rect<1>{range(0, n)});
  out.copy.emplace(*out.dom);
  *out.copy = a;
  out.data = out.copy->local_data();
  return out;
}

/// The first position of each bucket (bucket sizes in locale order), then the total.
inline std::vector<index_t> starts_of_buckets(const std::vector<index_t>& sizes) {
  std::vector<index_t> starts{0};
  for (index_t s : sizes) starts.push_back(starts.back() + s);
  return starts;
}

/// Collective: sends each other locale q the part of this locale's `bucket` (positions from
/// `mine` on) that lies in its run [cut[q], cut[q + 1]), packed in `agreed` (an allocation
/// failure is agreed), in one exchange; returns what the others sent here.
template <class E>
detail::byte_buffers exchange_bucket_parts(const pooled_vector<E>& bucket, index_t mine, const std::vector<index_t>& cut) {
  const auto me = static_cast<std::size_t>(here());
  detail::byte_buffers outgoing = agreed([&] {
    detail::byte_buffers bytes(static_cast<std::size_t>(num_locales()));
    for (std::size_t q = 0; q < bytes.size(); ++q) {
      if (q == me) continue;
      const index_t a0 = std::max(mine, cut[q]), a1 = std::min(mine + static_cast<index_t>(bucket.size()), cut[q + 1]);
      if (a1 <= a0) continue;
      bytes[q].resize(static_cast<std::size_t>(a1 - a0) * sizeof(E));
      std::memcpy(bytes[q].data(), bucket.data() + (a0 - mine), bytes[q].size());
    }
    return bytes;
  });
  return detail::exchange(std::move(outgoing));
}

/// Collective: writes the sorted buckets (bucket q on locale q, `sizes` in locale order) at
/// their positions into `to` (position-ordered storage, cut by to.starts): the part of a
/// bucket that lies in another locale's run travels in one `exchange` (one message per peer
/// whose run the bucket meets), the rest is copied locally; then, when `to` is a copy, `a`
/// is assigned from it. Nothing is written before the exchange has succeeded everywhere.
template <class T>
void place_buckets(array<T, 1>& a, position_ordered<T>& to, const pooled_vector<T>& bucket,
                   const std::vector<index_t>& sizes) {
  const auto me = static_cast<std::size_t>(here());
  const std::vector<index_t> bucket_starts = starts_of_buckets(sizes);
  const index_t mine = bucket_starts[me];
  const auto& cut = to.starts;
  const detail::byte_buffers incoming = exchange_bucket_parts(bucket, mine, cut);
  const index_t a0 = std::max(mine, cut[me]), a1 = std::min(mine + static_cast<index_t>(bucket.size()), cut[me + 1]);
  if (a1 > a0) std::memmove(to.data + (a0 - cut[me]), bucket.data() + (a0 - mine), static_cast<std::size_t>(a1 - a0) * sizeof(T));
  for (std::size_t q = 0; q < incoming.size(); ++q) {
    if (q == me || incoming[q].empty()) continue;
    const index_t first = std::max(bucket_starts[q], cut[me]);
    std::memcpy(to.data + (first - cut[me]), incoming[q].data(), incoming[q].size());
  }
  if (to.copy) a = *to.copy;
}

/// A key and its value, sorted together.
template <class K, class V>
struct key_value {
  K key;
  V value;
};

/// Collective: place_buckets for the sorted key-value pairs of sort_by_key, into the keys'
/// and the values' position-ordered storage (`kto` and `vto`, of one cut): the pairs bound for
/// another locale travel as pairs in one exchange, and each side writes keys and values
/// straight from the pairs; then the arrays are assigned from their copies, if any.
template <class K, class V>
void place_pairs(array<K, 1>& keys, position_ordered<K>& kto, array<V, 1>& values, position_ordered<V>& vto,
                 const pooled_vector<key_value<K, V>>& bucket, const std::vector<index_t>& sizes) {
  using kv = key_value<K, V>;
  const auto me = static_cast<std::size_t>(here());
  const std::vector<index_t> bucket_starts = starts_of_buckets(sizes);
  const index_t mine = bucket_starts[me];
  const auto& cut = kto.starts;
  const detail::byte_buffers incoming = exchange_bucket_parts(bucket, mine, cut);
  // Keys and values from pairs at `from` (bytes: a received message need not be aligned).
  const auto split = [&](const std::byte* from, index_t count, index_t at) {
    K* k = kto.data + at;
    V* v = vto.data + at;
    for (index_t i = 0; i < count; ++i) {
      kv x;
      std::memcpy(&x, from + static_cast<std::size_t>(i) * sizeof(kv), sizeof(kv));
      k[i] = x.key;
      v[i] = x.value;
    }
  };
  const index_t a0 = std::max(mine, cut[me]), a1 = std::min(mine + static_cast<index_t>(bucket.size()), cut[me + 1]);
  if (a1 > a0) split(reinterpret_cast<const std::byte*>(bucket.data() + (a0 - mine)), a1 - a0, a0 - cut[me]);
  for (std::size_t q = 0; q < incoming.size(); ++q) {
    if (q == me || incoming[q].empty()) continue;
    const index_t first = std::max(bucket_starts[q], cut[me]);
    split(incoming[q].data(), static_cast<index_t>(incoming[q].size() / sizeof(kv)), first - cut[me]);
  }
  if (kto.copy) keys = *kto.copy;
  if (vto.copy) values = *vto.copy;
}

/// Throws argument_error on every locale when `a` was moved from on some locale.
template <class T>
void check_sortable(const array<T, 1>& a, const char* who, const char* name) {
  agreed([&] {
    if (!state_of(a.domain()))
      throw argument_error(std::string(who) + ": " + name +
                           " was moved from; it has no domain or elements (only assigning to it or destroying it is "
                           "allowed)");
  });
}

/// A pooled copy of [from, from + n), on this locale's threads; `numbers` is set to whether no
/// element is a NaN.
template <class T>
pooled_vector<T> copy_noting_nan(const T* from, std::size_t n, bool& numbers) {
  pooled_vector<T> v(n);
  numbers = !any_chunk(n, [&](std::size_t a, std::size_t b) {
    bool found = false;
    for (std::size_t i = a; i < b; ++i) {
      v[i] = from[i];
      if constexpr (std::is_floating_point_v<T>) found |= from[i] != from[i];
    }
    return found;
  });
  return v;
}

template <class T, class Comp>
void sort_array(array<T, 1>& a, const Comp& comp, bool stable, const char* who) {
  const detail::collective_scope scope;
  check_sortable(a, who, "the array");
  auto src = in_position_order(a);
  const auto order = effective_order<T>(comp);
  if constexpr (is_trusted<std::remove_const_t<decltype(order)>>::value && std::is_arithmetic_v<T>) {
    // One locale, the array's own storage in position order, an order that cannot throw:
    // sorted where the elements are (no copy out, no merge buffer, no copy back).
    if (num_locales() == 1 && !src.copy) {
      agreed([&] { sort_in_place(src.data, static_cast<std::size_t>(src.count()), order, stable); });
      return;
    }
  }
  bool numbers = false;
  auto sorted = sample_sort<T>([&] { return copy_noting_nan(src.data, static_cast<std::size_t>(src.count()), numbers); },
                               src.offset(), src.starts, order, stable, &numbers);
  place_buckets(a, src, sorted.bucket, sorted.sizes);
}

template <class K, class V, class Comp>
void sort_by_key(array<K, 1>& keys, array<V, 1>& values, const Comp& comp, bool stable, const char* who) {
  const detail::collective_scope scope;
  check_sortable(keys, who, "keys");
  check_sortable(values, who, "values");
  const index_t n = keys.domain().size();
  if (values.domain().size() != n)
    throw shape_error(std::string(who) + ": keys has " + std::to_string(n) + " elements and values " +
                      std::to_string(values.domain().size()) +
                      "; values must hold one element per key (the same shape)");
  auto ks = in_position_order(keys);
  auto vs = in_position_order(values, &ks.starts);
  using kv = key_value<K, V>;
  const auto order = effective_order<K>(comp);
  // A key order on a trusted order of the keys is trusted too; NaN keys are set apart first.
  const key_order<std::remove_const_t<decltype(order)>> by_key{order};
  // The pairs (key, value) of positions [0, n) into v, in parallel; true when no key is a NaN.
  const auto pack_pairs = [&](kv* v, std::size_t n) {
    return !any_chunk(n, [&](std::size_t a, std::size_t b) {
      bool found = false;
      for (std::size_t i = a; i < b; ++i) {
        v[i] = {ks.data[i], vs.data[i]};
        if constexpr (std::is_floating_point_v<K>) found |= ks.data[i] != ks.data[i];
      }
      return found;
    });
  };
  bool numbers = false;
  const auto pairs_of = [&] {
    pooled_vector<kv> v(static_cast<std::size_t>(ks.count()));
    numbers = pack_pairs(v.data(), v.size());
    return v;
  };
  if constexpr (is_trusted<std::remove_const_t<decltype(by_key)>>::value) {
    // One locale, both arrays' own storage in position order, an order that cannot throw, not
    // stable: the pairs are sorted in place (no merge buffer) and written straight back.
    // The pairs live in a pooled buffer (huge pages, kept for the next transfer or sort), not
    // in fresh memory whose page faults cost as much as packing them.
    if (!stable && num_locales() == 1 && !ks.copy && !vs.copy) {
      agreed([&] {
        const auto n = static_cast<std::size_t>(ks.count());
        const pooled_buffer buffer = message_buffers().take(n * sizeof(kv));
        kv* const v = buffer.as<kv>();
        const bool numbers = pack_pairs(v, n);
        // (No NaN key, seen while packing: sort_in_place need not look for them.)
        if constexpr (is_nan_last<std::remove_const_t<decltype(by_key)>>::value) {
          if (numbers) sort_in_place(v, n, plain_order(by_key), false);
          else sort_in_place(v, n, by_key, false);
        } else {
          sort_in_place(v, n, by_key, false);
        }
        run_chunks(n, [&](std::size_t, std::size_t a, std::size_t b) {
          for (std::size_t i = a; i < b; ++i) {
            ks.data[i] = v[i].key;
            vs.data[i] = v[i].value;
          }
        });
      });
      return;
    }
  }
  auto sorted = sample_sort<kv>(pairs_of, ks.offset(), ks.starts, by_key, stable, &numbers);
  place_pairs(keys, ks, values, vs, sorted.bucket, sorted.sizes);
}

/// One locale's summary for is_sorted and count_unique: its first and last element, whether
/// its own run is sorted, how many runs of equal elements it holds.
template <class T>
struct run_summary {
  T first;
  T last;
  index_t count;
  index_t runs;
  int sorted;
  int failed;
};

/// This locale's summary of the sorted-or-not elements [data, data + count).
template <class T, class Less>
run_summary<T> summarise(const T* data, index_t count, Less& less) {
  run_summary<T> s{T{}, T{}, count, 0, 1, 0};
  if (count == 0) return s;
  s.first = data[0];
  s.last = data[count - 1];
  const std::size_t threads = static_cast<std::size_t>(num_threads());
  const std::size_t pieces = static_cast<std::size_t>(count) < sort_grain ? 1 : threads;
  std::vector<index_t> runs(pieces, 0);
  std::vector<int> sorted(pieces, 1);
  run_tasks(pieces, [&](std::size_t t) {
    const index_t a = count * static_cast<index_t>(t) / static_cast<index_t>(pieces);
    const index_t b = count * static_cast<index_t>(t + 1) / static_cast<index_t>(pieces);
    index_t r = 0;
    bool ok = true;
    for (index_t i = std::max<index_t>(a, 1); i < b; ++i) {
      if (less(data[i], data[i - 1])) ok = false;
      else if (less(data[i - 1], data[i])) ++r;
    }
    runs[t] = r + (a == 0 ? 1 : 0);
    sorted[t] = ok;
  });
  for (std::size_t t = 0; t < pieces; ++t) {
    s.runs += runs[t];
    s.sorted &= sorted[t];
  }
  return s;
}

/// Collective: every locale's summary; throws on every locale when one failed.
template <class T, class Less>
std::vector<run_summary<T>> summaries(const T* data, index_t count, Less& less) {
  run_summary<T> mine{T{}, T{}, count, 0, 1, 0};
  std::exception_ptr failure;
  try {
    mine = summarise(data, count, less);
  } catch (...) {
    failure = std::current_exception();
    mine.failed = 1;
  }
  const auto all = all_gather(mine);
  if (std::any_of(all.begin(), all.end(), [](const run_summary<T>& s) { return s.failed != 0; })) agree(failure);
  return all;
}

/// Collective: from every locale's summary of consecutive stretches of a sequence (the same
/// on every locale): (sorted, runs of equal elements, counting a run that crosses locales
/// once). Locale 0 compares the boundaries and its verdict rides on the failure agreement, so
/// every locale returns the same answer even when `less` answers differently on different
/// locales; a throw from `less` is thrown on every locale.
template <class T, class Less>
std::pair<bool, index_t> combine(const std::vector<run_summary<T>>& all, Less& less) {
  std::exception_ptr failure;
  std::uint64_t verdict = 0;  // runs << 1 | sorted, on locale 0 (0 elsewhere: or-ed)
  if (here() == 0) {
    try {
      bool sorted = true;
      index_t runs = 0;
      const run_summary<T>* previous = nullptr;
      for (const auto& s : all) {
        if (s.count == 0) continue;
        sorted = sorted && s.sorted;
        runs += s.runs;
        if (previous) {
          if (less(s.first, previous->last)) sorted = false;
          else if (!less(previous->last, s.first)) --runs;  // the run goes on across the boundary
        }
        previous = &s;
      }
      verdict = static_cast<std::uint64_t>(runs) << 1 | (sorted ? 1u : 0u);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  verdict = agree(failure, {}, verdict);
  return {(verdict & 1) != 0, static_cast<index_t>(verdict >> 1)};
}

/// Collective: a Block-cut copy of the 1-D view `v` (which views may be sorted through).
template <class T, std::size_t M>
array<std::remove_const_t<T>, 1> copy_of_view(const array_view<T, 1, M>& v) {
  const domain<1> d(linear_slabs<1>::block(v.size()), rect<1>{range(0, v.size())});
  array<std::remove_const_t<T>, 1> copy(d);
  copy = v;
  return copy;
}

}  // namespace dmap::detail
