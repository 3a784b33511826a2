// Moving elements between two placements of the same indices (which locale owns which
// rect, and where it stores it): every locale sends each peer the intersections of its
// blocks with the peer's, in one message per peer. Used by resize, gathers, array
// assignment and halo updates.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/buffers.hpp"
#include "../../runtime/detail/messages.hpp"
#include "../../runtime/detail/node_segment.hpp"
#include "../../runtime/precompiled.hpp"
#include "../layout.hpp"
#include "../rect.hpp"
#include "chunks.hpp"
#include "placement_query.hpp"

namespace dmap::detail {

/// The runs of `part` (a subset of `layout.indices`, moved by `shift`) in `layout`, in
/// row-major order of `part` (or in `order`): each run is `count()` elements at `offset()`,
/// `offset() + step()`, ... Successive rows that continue one another with the same step
/// form one run, so a compact block traversed in its storage order is one run; no
/// traversal in that order has fewer runs.
template <std::size_t N>
class run_cursor {
 public:
  /// The first run of `part` in `layout`.
  run_cursor(const rect<N>& part, const dense_layout<N>& layout, const idx<N>& shift = {},
             const dimension_order<N>& order = row_major_order<N>()) {
    if (part.empty()) return;
    std::array<index_t, N> extents{}, step{};
    for (std::size_t k = 0; k < N; ++k) {
      const std::size_t d = order[k];
      extents[k] = part.dim(d).size();
      step[k] = extents[k] == 1 ? 0 : part.dim(d).stride() / layout.indices.dim(d).stride() * layout.strides[d];
    }
    offset_ = layout.offset_of(part.first() + shift);
    // Fold dimensions into the run from the last one outwards while the run of the inner
    // ones, taken once more, lands where the next step of the outer one starts.
    count_ = extents[N - 1];
    step_ = count_ == 1 ? 1 : step[N - 1];
    outer_ = N - 1;
    while (outer_ > 0) {
      const std::size_t d = outer_ - 1;
      if (extents[d] > 1) {
        if (count_ == 1) {
          step_ = step[d];
        } else {
          index_t span = 0;
          if (__builtin_mul_overflow(count_, step_, &span) || span != step[d]) break;
        }
        count_ *= extents[d];
      }
      --outer_;
    }
    runs_ = 1;
    for (std::size_t d = 0; d < outer_; ++d) extents_[d] = extents[d], steps_[d] = step[d], runs_ *= extents[d];
    done_ = false;
  }

  /// True after the last run.
  bool done() const noexcept { return done_; }
  /// The offset of the run's first element.
  index_t offset() const noexcept { return offset_; }
  /// The distance between successive elements of the run (1 when it has one element).
  index_t step() const noexcept { return step_; }
  /// The number of elements in the run (the same for every run).
  index_t count() const noexcept { return count_; }
  /// The number of runs, in all.
  index_t runs() const noexcept { return runs_; }
  /// Moves to the next run.
  void next() noexcept {
    std::size_t d = outer_;
    while (d-- > 0) {
      if (++position_[d] < extents_[d]) {
        offset_ += steps_[d];
        return;
      }
      offset_ -= (extents_[d] - 1) * steps_[d];
      position_[d] = 0;
    }
    done_ = true;
  }

 private:
  index_t offset_ = 0, step_ = 1, count_ = 0, runs_ = 0;
  std::size_t outer_ = 0;  // dimensions [0, outer_) are stepped over, the others are in the run
  std::array<index_t, N> extents_{}, steps_{}, position_{};
  bool done_ = true;
};

/// Calls `f(offset, step, count)` for each run of `part`, a subset of `layout.indices`, in
/// row-major order of `part` (see run_cursor).
template <std::size_t N, class F>
void for_each_run(const rect<N>& part, const dense_layout<N>& layout, F&& f) {
  for_each_run(part, layout, idx<N>{}, std::forward<F>(f));
}
/// The same for the indices of `part` moved by `shift` (`part` + shift within the layout).
template <std::size_t N, class F>
void for_each_run(const rect<N>& part, const dense_layout<N>& layout, const idx<N>& shift, F&& f) {
  for (run_cursor<N> c(part, layout, shift); !c.done(); c.next()) f(c.offset(), c.step(), c.count());
}

/// Calls `f(from_offset, from_step, to_offset, to_step, count)` for the runs `part` makes in
/// both blocks at once, visiting `part` in the destination's storage order: each piece is
/// one run in both, and a piece ends where a run of either block does.
template <std::size_t N, class F>
void for_each_paired_run(const rect<N>& part, const placed_block<N>& from, const placed_block<N>& to, F&& f) {
  const dimension_order<N> order = storage_order_of(to.layout);
  run_cursor<N> a(part, from.layout, from.shift, order), b(part, to.layout, to.shift, order);
  index_t a_at = a.offset(), a_left = a.count(), b_at = b.offset(), b_left = b.count();
  while (!a.done() && !b.done()) {
    const index_t n = std::min(a_left, b_left);
    f(a_at, a.step(), b_at, b.step(), n);
    a_at += n * a.step(), a_left -= n;
    b_at += n * b.step(), b_left -= n;
    if (a_left == 0) {
      a.next();
      a_at = a.offset(), a_left = a.count();
    }
    if (b_left == 0) {
      b.next();
      b_at = b.offset(), b_left = b.count();
    }
  }
}

/// Copies `count` contiguous elements from `from` to `to` (not overlapping). The short runs of
/// a block-cyclic map's pieces, repeated thousands of times per message, are copied with a
/// size known to the compiler where they have a usual one: a call to memmove per piece of 8
/// doubles cost more than the copy.
template <class T>
[[gnu::always_inline]] inline void copy_elements(const T* from, T* to, index_t count) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    const auto fixed = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      std::memcpy(static_cast<void*>(to), static_cast<const void*>(from), K * sizeof(T));
    };
    switch (count) {
      case 1: *to = *from; return;
      case 2: return fixed(std::integral_constant<std::size_t, 2>{});
      case 4: return fixed(std::integral_constant<std::size_t, 4>{});
      case 8: return fixed(std::integral_constant<std::size_t, 8>{});
      case 16: return fixed(std::integral_constant<std::size_t, 16>{});
      default: break;
    }
  }
  std::copy(from, from + count, to);
}

/// Copies `count` elements from `from` (step `from_step`) to `to` (step `to_step`).
template <class T>
void copy_run(const T* from, index_t from_step, T* to, index_t to_step, index_t count) {
  if (from_step == 1 && to_step == 1) {
    copy_elements(from, to, count);
    return;
  }
  for (index_t k = 0; k < count; ++k) to[k * to_step] = from[k * from_step];
}

/// Runs of a transposing copy taken together: `transpose_tile` runs by `transpose_tile`
/// elements at a time.
inline constexpr index_t transpose_tile = 16;

/// Copies the elements of `part` from one block to another (both hold `part`), one
/// std::copy per run the two blocks share. Where the runs step through memory on one side (a
/// transposing copy: each destination row is a source column), runs of one shape are copied
/// `transpose_tile` at a time in tiles of `transpose_tile` elements, so that each cache line
/// of the strided side serves all the runs of a tile rather than one: a 4096 x 4096 complex
/// transpose at one locale took 245 ms run by run, against 71 ms for FFTW's transpose (2-core
/// VM, 2026-11-29).
template <class T, std::size_t N>
void copy_part(const rect<N>& part, const placed_block<N>& from, const T* from_base,
               const placed_block<N>& to, T* to_base) {
  struct run {
    index_t from, from_step, to, to_step, count;
  };
  std::array<run, transpose_tile> held;
  index_t holding = 0;
  const auto flush = [&] {
    if (holding == 1) copy_run(from_base + held[0].from, held[0].from_step, to_base + held[0].to, held[0].to_step, held[0].count);
    if (holding > 1)
      for (index_t k0 = 0; k0 < held[0].count; k0 += transpose_tile) {
        const index_t k1 = std::min(held[0].count, k0 + transpose_tile);
        for (index_t r = 0; r < holding; ++r) {
          const run& x = held[static_cast<std::size_t>(r)];
          for (index_t k = k0; k < k1; ++k) to_base[x.to + k * x.to_step] = from_base[x.from + k * x.from_step];
        }
      }
    holding = 0;
  };
  for_each_paired_run(part, from, to, [&](index_t f, index_t fs, index_t t, index_t ts, index_t n) {
    if (fs == 1 && ts == 1) {  // contiguous on both sides: nothing to share
      flush();
      copy_run(from_base + f, fs, to_base + t, ts, n);
      return;
    }
    if (holding > 0 && (n != held[0].count || fs != held[0].from_step || ts != held[0].to_step)) flush();
    held[static_cast<std::size_t>(holding++)] = {f, fs, t, ts, n};
    if (holding == transpose_tile) flush();
  });
  flush();
}

/// How a part of a plan repeats: nested levels, the innermost first; level k makes `count`
/// copies of what the levels below it describe, the c-th moved by c x `storage` in storage
/// (by c x `to_storage` in a copy's destination). Only storage moves matter: the message
/// order is the order of the copies. A block-cyclic map's pieces met by one peer, all
/// alike, are one part repeated. Empty (no allocation) for a part that stands for itself.
struct repeats {
  /// One level of repetition.
  struct level {
    index_t count = 1;
    index_t storage = 0;
    index_t to_storage = 0;
    friend bool operator==(const level&, const level&) = default;
  };
  /// The most levels one part holds (a 3-D lattice of pieces, and one more for a period
  /// that holds two pieces of one peer).
  static constexpr std::size_t max_depth = 4;
  std::vector<level> levels;

  /// The number of copies in all.
  index_t total() const noexcept {
    index_t n = 1;
    for (const auto& l : levels) n *= l.count;
    return n;
  }
  friend bool operator==(const repeats&, const repeats&) = default;
};

/// Calls f(storage, to_storage) for each copy `r` describes, in order (outer levels vary
/// slowest): the distances to add to the first copy's offsets.
template <class F>
void for_each_repeat(const repeats& r, F&& f) {
  const std::size_t depth = r.levels.size();
  if (depth == 0) {
    f(index_t{0}, index_t{0});
    return;
  }
  if (depth == 1) {
    const auto& l = r.levels[0];
    for (index_t c = 0; c < l.count; ++c) f(c * l.storage, c * l.to_storage);
    return;
  }
  std::array<index_t, repeats::max_depth> at{};
  index_t storage = 0, to_storage = 0;
  for (;;) {
    f(storage, to_storage);
    std::size_t k = 0;
    for (; k < depth; ++k) {
      const auto& l = r.levels[k];
      if (++at[k] < l.count) {
        storage += l.storage, to_storage += l.to_storage;
        break;
      }
      storage -= (l.count - 1) * l.storage, to_storage -= (l.count - 1) * l.to_storage;
      at[k] = 0;
    }
    if (k == depth) return;
  }
}

/// The move (in the storage of blocks a and b) that takes part `x` held in blocks xa, xb onto
/// part `y` held in ya, yb, element for element in row-major order, if there is one: equal
/// shapes and layout steps, and both layouts agree with one move along every dimension.
/// (`xb`, `yb` may be null: a part of one block.)
template <std::size_t N>
std::optional<repeats::level> translation(const rect<N>& x, const placed_block<N>& xa, const placed_block<N>* xb,
                                          const rect<N>& y, const placed_block<N>& ya, const placed_block<N>* yb) {
  repeats::level t;
  if (x.empty() || xa.shift != ya.shift || xa.layout.strides != ya.layout.strides) return std::nullopt;
  if (xb && (xb->shift != yb->shift || xb->layout.strides != yb->layout.strides)) return std::nullopt;
  for (std::size_t d = 0; d < N; ++d)
    if (x.dim(d).size() != y.dim(d).size() || (x.dim(d).size() > 1 && x.dim(d).stride() != y.dim(d).stride()))
      return std::nullopt;
  const idx<N> xf = x.first(), yf = y.first();
  const auto distance = [&](const placed_block<N>& from, const placed_block<N>& to, const idx<N>& xi,
                            const idx<N>& yi) { return to.layout.offset_of(yi + to.shift) - from.layout.offset_of(xi + from.shift); };
  t.storage = distance(xa, ya, xf, yf);
  if (xb) t.to_storage = distance(*xb, *yb, xf, yf);
  for (std::size_t d = 0; d < N; ++d)  // affine layouts: one step along each dimension settles it
    if (x.dim(d).size() > 1) {
      idx<N> xq = xf, yq = yf;
      xq[d] += x.dim(d).stride(), yq[d] += y.dim(d).stride();
      if (distance(xa, ya, xq, yq) != t.storage || (xb && distance(*xb, *yb, xq, yq) != t.to_storage))
        return std::nullopt;
    }
  return t;
}

/// Folds runs of items that repeat one another (Item: a part or a copy, with `again`) into
/// one item with one more level, again while any fold happens: a lattice of pieces, listed
/// in row-major order, ends as one item. `translate(x, y)` is translation() for two items.
/// The items keep their order, element for element.
template <class Item, class Translate>
void fold_repeats(std::vector<Item>& items, Translate&& translate) {
  for (std::size_t pass = 0; pass < repeats::max_depth && items.size() > 1; ++pass) {
    std::vector<Item> out;
    out.reserve(items.size());
    bool folded = false;
    for (std::size_t i = 0; i < items.size();) {
      std::size_t j = i;
      std::optional<repeats::level> step;
      if (items[i].again.levels.size() < repeats::max_depth && i + 1 < items.size() &&
          items[i].again == items[i + 1].again)
        step = translate(items[i], items[i + 1]);
      if (step) {
        j = i + 1;
        while (j + 1 < items.size() && items[j + 1].again == items[i].again) {
          const auto next = translate(items[j], items[j + 1]);
          if (!next || !(*next == *step)) break;
          ++j;
        }
      }
      out.push_back(std::move(items[i]));
      if (j > i) {
        step->count = static_cast<index_t>(j - i + 1);
        out.back().again.levels.push_back(*step);
        folded = true;
      }
      i = j + 1;
    }
    items = std::move(out);
    if (!folded) return;
  }
}

/// Per dimension, a distance after which both placements repeat how they deal indices (0:
/// none known), from theirs: the least common multiple, or the one that is known.
template <std::size_t N>
idx<N> common_period(const idx<N>& a, const idx<N>& b) {
  idx<N> out;
  for (std::size_t d = 0; d < N; ++d) {
    if (a[d] <= 0 || b[d] <= 0) {
      out[d] = std::max<index_t>({a[d], b[d], 0});
      continue;
    }
    const index_t g = std::gcd(a[d], b[d]);
    if (__builtin_mul_overflow(a[d] / g, b[d], &out[d])) out[d] = 0;
  }
  return out;
}

/// True when `period` (as common_period gives it) is known along some dimension.
template <std::size_t N>
bool any_period(const idx<N>& period) {
  return std::any_of(period.begin(), period.end(), [](index_t l) { return l > 0; });
}

/// Copies the elements of `part` from one block to another (both hold `part`), and of each
/// copy `again` makes of it.
template <class T, std::size_t N>
void copy_part(const rect<N>& part, const placed_block<N>& from, const T* from_base, const placed_block<N>& to,
               T* to_base, const repeats& again) {
  if (again.levels.empty()) {
    copy_part(part, from, from_base, to, to_base);
    return;
  }
  struct run {
    index_t from, from_step, to, to_step, count;
  };
  std::vector<run> runs;  // the first copy's, moved for each copy
  for_each_paired_run(part, from, to, [&](index_t f, index_t fs, index_t t, index_t ts, index_t n) {
    runs.push_back({f, fs, t, ts, n});
  });
  if (runs.size() == 1) {
    const run r = runs[0];
    for_each_repeat(again, [&](index_t df, index_t dt) {
      copy_run(from_base + r.from + df, r.from_step, to_base + r.to + dt, r.to_step, r.count);
    });
    return;
  }
  for_each_repeat(again, [&](index_t df, index_t dt) {
    for (const run& r : runs) copy_run(from_base + r.from + df, r.from_step, to_base + r.to + dt, r.to_step, r.count);
  });
}

/// The coordinates of `i` in the dimension order `order` (slowest first): comparing these
/// compares indices in the order storage of `order` keeps them.
template <std::size_t N>
idx<N> in_order(const idx<N>& i, const dimension_order<N>& order) noexcept {
  idx<N> out;
  for (std::size_t k = 0; k < N; ++k) out[k] = i[order[k]];
  return out;
}

/// A canonical (same on every locale) order of plan items that puts together the items
/// alike but for a translation by a multiple of `period`: sorted into families of equal
/// `key(item)` (its peer first, then anything else that must match) and phase (first index
/// modulo the period; the index itself where no period is known), each by first index taken
/// in `order` (the message order: a family then walks storage of that order forwards), the
/// families by (peer, first index of their first item). Lattices of pieces of periodic maps
/// then come one after another, ready for fold_repeats.
template <std::size_t N, class Item, class Key, class First>
void sort_by_family(std::vector<Item>& items, const idx<N>& period, const dimension_order<N>& order, Key&& key,
                    First&& first_of) {
  struct tag {
    decltype(key(items[0])) family;
    idx<N> phase, first;
    std::array<std::pair<index_t, index_t>, N> shape;
    std::size_t item;
  };
  std::vector<tag> tags;
  tags.reserve(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) {
    const rect<N>& r = first_of(items[k]);
    const idx<N> first = r.first();
    tag t{key(items[k]), {}, in_order(first, order), {}, k};
    for (std::size_t d = 0; d < N; ++d) {
      t.phase[d] = period[d] > 0 ? floor_mod(first[d], period[d]) : first[d];
      t.shape[d] = {r.dim(d).size(), r.dim(d).size() > 1 ? r.dim(d).stride() : 0};
    }
    tags.push_back(t);
  }
  const auto same_family = [](const tag& a, const tag& b) {
    return a.family == b.family && a.phase == b.phase && a.shape == b.shape;
  };
  std::sort(tags.begin(), tags.end(), [](const tag& a, const tag& b) {
    return std::tie(a.family, a.phase, a.shape, a.first) < std::tie(b.family, b.phase, b.shape, b.first);
  });
  std::vector<std::pair<std::size_t, std::size_t>> families;  // [begin, end) in tags
  for (std::size_t k = 0; k < tags.size(); ++k)
    if (k == 0 || !same_family(tags[k - 1], tags[k])) families.push_back({k, k + 1});
    else families.back().second = k + 1;
  std::sort(families.begin(), families.end(), [&](const auto& x, const auto& y) {
    const tag &a = tags[x.first], &b = tags[y.first];
    if (a.family.first != b.family.first) return a.family.first < b.family.first;
    if (a.first != b.first) return a.first < b.first;
    return x.first < y.first;
  });
  std::vector<Item> out;
  out.reserve(items.size());
  for (const auto& [begin, end] : families)
    for (std::size_t k = begin; k < end; ++k) out.push_back(std::move(items[tags[k].item]));
  items = std::move(out);
}

/// The bounds [lo, hi] (inclusive) of a nonempty range, whatever its direction.
inline std::pair<index_t, index_t> bounds_of(const range& r) {
  return {std::min(r.first(), r.last()), std::max(r.first(), r.last())};
}

/// Part `a` of block `in_a` followed by part `b` of block `in_b` as one part of one block,
/// when they are adjacent along one dimension and equal in the others, and one layout
/// extending `in_a`'s places b's elements where `in_b` does. With `message_order`, only when
/// the union taken in that order is a's elements then b's (messages keep their element order).
template <std::size_t N>
std::optional<std::pair<rect<N>, placed_block<N>>> joined_part(const rect<N>& a, const placed_block<N>& in_a,
                                                               const rect<N>& b, const placed_block<N>& in_b,
                                                               std::type_identity_t<const dimension_order<N>*> message_order) {
  if (a.empty() || b.empty() || in_a.shift != in_b.shift || in_a.layout.strides != in_b.layout.strides)
    return std::nullopt;
  std::size_t along = N;
  for (std::size_t d = 0; d < N; ++d)
    if (!(a.dim(d) == b.dim(d))) {
      if (along != N) return std::nullopt;
      along = d;
    }
  if (along == N) return std::nullopt;
  if (message_order)  // every dimension slower than `along` has one index
    for (std::size_t k = 0; (*message_order)[k] != along; ++k)
      if (a.dim((*message_order)[k]).size() != 1) return std::nullopt;
  const range &ra = a.dim(along), &rb = b.dim(along);
  index_t step = 0, next = 0;
  if (ra.size() > 1) step = ra.stride();
  else if (rb.size() > 1) step = rb.stride();
  else if (__builtin_sub_overflow(rb.first(), ra.last(), &step)) return std::nullopt;
  if (step == 0 || (rb.size() > 1 && rb.stride() != step) || __builtin_add_overflow(ra.last(), step, &next) ||
      next != rb.first())
    return std::nullopt;
  const index_t shift = in_a.shift[along];
  const range& la = in_a.layout.indices.dim(along);
  const auto [blo, bhi] = bounds_of(rb);
  const wide_int lo = std::min<wide_int>(la.lo(), static_cast<wide_int>(blo) + shift);
  const wide_int hi = std::max<wide_int>(la.hi(), static_cast<wide_int>(bhi) + shift + 1);
  if (hi - lo > std::numeric_limits<index_t>::max()) return std::nullopt;
  dense_layout<N> joined = in_a.layout;
  try {
    joined.indices.set_dim(along, range(static_cast<index_t>(lo), static_cast<index_t>(hi), la.stride(), la.alignment()));
  } catch (const argument_error&) {
    return std::nullopt;  // the joined layout would not fit int64: keep two parts
  }
  const idx<N> a_first = a.first() + in_a.shift, b_first = b.first() + in_b.shift;
  joined.offset = 0;
  joined.offset = in_a.layout.offset_of(a_first) - joined.offset_of(a_first);
  if (!joined.indices.contains(b.translated(in_b.shift))) return std::nullopt;
  // Both layouts are affine on b's lattice: agreeing at its first index and one step along
  // each dimension, they agree everywhere.
  if (joined.offset_of(b_first) != in_b.layout.offset_of(b_first)) return std::nullopt;
  for (std::size_t d = 0; d < N; ++d)
    if (b.dim(d).size() > 1) {
      idx<N> q = b_first;
      q[d] += b.dim(d).stride();
      if (joined.offset_of(q) != in_b.layout.offset_of(q)) return std::nullopt;
    }
  rect<N> both = a;
  both.set_dim(along, range::counted(ra.first(), ra.size() + rb.size(), step));
  return std::pair{both, placed_block<N>{both, joined, in_a.shift}};
}

/// Calls emit(a, b, part) for every pair of blocks a of `as` and b of `bs` whose indices meet
/// (part: the common indices), in the order of a loop over a then b. `bs` is indexed by bands
/// of equal bounds along the first dimension, each sorted along the last one, so maps made of
/// products of per-dimension pieces (BlockCyclic, Dimensional) pair in about
/// O(|as| (bands + log |bs|) + pairs) instead of O(|as| |bs|).
template <std::size_t N, class Emit>
void for_each_meeting(const std::vector<placed_block<N>>& as, const std::vector<placed_block<N>>& bs, Emit&& emit) {
  std::vector<std::size_t> hits;
  if (as.size() * bs.size() <= 256) {
    for (std::size_t a = 0; a < as.size(); ++a)
      for (std::size_t b = 0; b < bs.size(); ++b) {
        const rect<N> part = as[a].owned.intersect(bs[b].owned);
        if (!part.empty()) emit(a, b, part);
      }
    return;
  }
  struct band {
    std::pair<index_t, index_t> first_dim;  // bounds along dimension 0
    std::vector<std::size_t> members;       // sorted by their low bound along dimension N - 1
    bool ordered = true;                    // their high bounds along N - 1 increase too
  };
  std::vector<band> bands;
  {
    std::vector<std::size_t> order;
    for (std::size_t b = 0; b < bs.size(); ++b)
      if (!bs[b].owned.empty()) order.push_back(b);
    const auto key = [&](std::size_t b) {
      return std::tuple(bounds_of(bs[b].owned.dim(0)), bounds_of(bs[b].owned.dim(N - 1)).first, b);
    };
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return key(x) < key(y); });
    for (std::size_t b : order) {
      const auto d0 = bounds_of(bs[b].owned.dim(0));
      if (bands.empty() || bands.back().first_dim != d0) bands.push_back({d0, {}, true});
      auto& m = bands.back().members;
      if (!m.empty() &&
          bounds_of(bs[b].owned.dim(N - 1)).second < bounds_of(bs[m.back()].owned.dim(N - 1)).second)
        bands.back().ordered = false;
      m.push_back(b);
    }
  }
  for (std::size_t a = 0; a < as.size(); ++a) {
    const rect<N>& ra = as[a].owned;
    if (ra.empty()) continue;
    const auto a0 = bounds_of(ra.dim(0)), al = bounds_of(ra.dim(N - 1));
    hits.clear();
    for (const auto& bd : bands) {
      if (bd.first_dim.first > a0.second) break;
      if (bd.first_dim.second < a0.first) continue;
      auto it = bd.members.begin();
      if (bd.ordered)  // the first member whose high bound reaches a's low bound
        it = std::partition_point(bd.members.begin(), bd.members.end(), [&](std::size_t b) {
          return bounds_of(bs[b].owned.dim(N - 1)).second < al.first;
        });
      for (; it != bd.members.end(); ++it) {
        const auto bl = bounds_of(bs[*it].owned.dim(N - 1));
        if (bl.first > al.second) break;
        if (bl.second >= al.first) hits.push_back(*it);
      }
    }
    std::sort(hits.begin(), hits.end());
    for (std::size_t b : hits) {
      const rect<N> part = ra.intersect(bs[b].owned);
      if (!part.empty()) emit(a, b, part);
    }
  }
}

/// The indices of `r` moved by `by` (each dimension's first index, count and step: a part's
/// bounds may reach past its indices, up to int64's ends, where rect::translated would throw).
template <std::size_t N>
rect<N> moved_indices(const rect<N>& r, const idx<N>& by) {
  rect<N> out;
  for (std::size_t d = 0; d < N; ++d) {
    const range& x = r.dim(d);
    out.set_dim(d, range::counted(x.first() + by[d], x.size(), x.stride()));
  }
  return out;
}

/// Calls f(offset, step, count) for each run of a plan's part (indices, block and repeats),
/// in message order (the part's indices in the dimension order `order`); a part of one run
/// repeated is one tight loop.
template <class Part, std::size_t N, class F>
void for_each_part_run(const Part& pc, const dimension_order<N>& order, F&& f) {
  using cursor = run_cursor<N>;
  if (pc.again.levels.empty()) {
    for (cursor c(pc.indices, pc.block->layout, pc.block->shift, order); !c.done(); c.next())
      f(c.offset(), c.step(), c.count());
    return;
  }
  const cursor c(pc.indices, pc.block->layout, pc.block->shift, order);
  if (c.runs() == 1) {
    const index_t offset = c.offset(), step = c.step(), count = c.count();
    for_each_repeat(pc.again, [&](index_t moved, index_t) { f(offset + moved, step, count); });
    return;
  }
  std::vector<std::array<index_t, 3>> runs;  // the first copy's, moved for each copy
  runs.reserve(static_cast<std::size_t>(c.runs()));
  for (cursor r = c; !r.done(); r.next()) runs.push_back({r.offset(), r.step(), r.count()});
  for_each_repeat(pc.again, [&](index_t moved, index_t) {
    for (const auto& [offset, step, count] : runs) f(offset + moved, step, count);
  });
}

/// The offset of the one contiguous run (in message order: `order`) that a message's parts
/// occupy in this locale's storage, if they do: such a message is sent from, or received
/// into, the storage itself.
template <class Parts, std::size_t N>
std::optional<index_t> single_run(const Parts& parts, const dimension_order<N>& order) {
  std::optional<index_t> first;
  index_t next = 0;
  bool line = true;
  for (const auto& pc : parts)
    for_each_part_run(pc, order, [&](index_t offset, index_t step, index_t count) {
      if (!first) first = offset, next = offset;
      line = line && offset == next && (step == 1 || count == 1);
      next = offset + count;
    });
  return line ? first : std::nullopt;
}

/// What one locale sends, receives and copies locally to move the indices present in two
/// placements from the first to the second: one message per peer that shares indices, each
/// listing its parts (rect pieces of this locale's blocks) in an order both sides compute
/// alike. Maps known only through a directory add element lists: offsets packed after the
/// rect parts, in the same order on both sides (see dsi/detail/locator.hpp). Built from this
/// locale's blocks and questions about the regions they meet, so it holds only this
/// locale's peers. Reusable; moved, never copied (its messages point into its storage).
template <std::size_t N>
class transfer_plan {
 public:
  /// One part of a message: the indices `indices` of this locale's block `*block` (the source
  /// block of a send, the destination block of a receive; the plan keeps the blocks).
  struct part {
    rect<N> indices;
    const placed_block<N>* block = nullptr;
    repeats again{};  ///< the part stands for these copies of itself (storage: the block's)
  };
  /// A copy of `part` from block `from` to block `to`: within this locale, or (in a direct_to
  /// list) from this locale's block into a node peer's.
  struct copy {
    rect<N> part;
    placed_block<N> from;
    placed_block<N> to;
    repeats again{};  ///< the copy stands for these copies of itself
  };
  /// Messages that repeat one another at a run of peers: the k-th of `count` goes to peer
  /// `peer + k * peer_step`, its parts' storage moved by `k * storage_step` (an all-to-all
  /// keeps one message for a run of its peers).
  struct peer_repeats {
    index_t count = 1;
    int peer_step = 0;
    index_t storage_step = 0;
  };
  /// One message: the peer, the parts in message order, then the element offsets (element
  /// plans), and the number of elements. It may stand for messages to more peers (`again`;
  /// never with offsets). A send to a locale of this node has the same elements as copies
  /// into the peer's blocks too (direct_to: used when the destination is in node-shared
  /// memory).
  struct message {
    int peer = 0;
    std::span<const part> parts;  ///< held by the plan
    std::vector<index_t> offsets;
    index_t count = 0;
    /// The offset of the one contiguous run the parts occupy in this locale's storage, in
    /// message order, if they do (single_run): sent from, or received into, the storage itself.
    std::optional<index_t> line;
    peer_repeats again{};  ///< the message stands for these copies of itself at other peers
    /// The order in which each part's elements follow one another (dimensions, slowest
    /// first): the destination's storage order (placement_query::storage_order_hint), the same
    /// on both sides.
    dimension_order<N> order = row_major_order<N>();
  };

  /// The plan of locale `me` for moving placement `from` to placement `to`: `my_from` and
  /// `my_to` are its own blocks of each, `from` and `to` answer for the other locales. When
  /// `from` holds copies, `layers` gives each locale's copy layer and a destination receives
  /// only from the source locales of its own layer (a replicated array: from its own copy).
  transfer_plan(int me, const std::vector<placed_block<N>>& my_from, const placement_query<N>& from,
                const std::vector<placed_block<N>>& my_to, const placement_query<N>& to,
                const std::vector<int>* layers = nullptr);

  /// The plan of this locale for moving between two placements listed in full.
  transfer_plan(const placement<N>& from, const placement<N>& to, const std::vector<int>* layers = nullptr)
      : transfer_plan(here(), blocks_of(from, here()), listed_query<N>(share(from)), blocks_of(to, here()),
                      listed_query<N>(share(to)), layers) {}
  transfer_plan(const transfer_plan&) = delete;
  transfer_plan& operator=(const transfer_plan&) = delete;
  /// Takes over `other`'s messages (their parts and blocks stay where they are).
  transfer_plan(transfer_plan&&) noexcept = default;
  /// Takes over `other`'s messages.
  transfer_plan& operator=(transfer_plan&&) noexcept = default;

  /// Messages sent, one per peer (or per run of peers: for_each_peer_of), by increasing peer.
  const std::vector<message>& sends() const noexcept { return sends_; }
  /// Messages received, one per peer (or per run of peers), by increasing peer.
  const std::vector<message>& receives() const noexcept { return receives_; }
  /// Copies within this locale.
  const std::vector<copy>& local() const noexcept { return local_; }
  /// The elements sent to locale `peer` of this node as copies into its blocks of the
  /// destination (nullptr for other locales, under a simulated machine, or one locale per node).
  const std::vector<copy>* direct_to(int peer) const {
    const auto it = direct_.find(peer);
    return it == direct_.end() ? nullptr : &it->second;
  }
  /// Every such list, by peer.
  const std::map<int, std::vector<copy>>& direct() const noexcept { return direct_; }
  /// (source, destination) offsets copied within this locale (element plans).
  const std::vector<std::pair<index_t, index_t>>& local_offsets() const noexcept { return local_offsets_; }
  /// The bytes the plan keeps for its messages' parts and the blocks they name.
  std::size_t parts_bytes() const noexcept {
    return (send_parts_.capacity() + receive_parts_.capacity()) * sizeof(part) + blocks_.size() * sizeof(placed_block<N>);
  }
  /// The number of elements copied within this locale.
  index_t local_count() const {
    index_t n = static_cast<index_t>(local_offsets_.size());
    for (const auto& c : local_) n += c.part.size() * c.again.total();
    return n;
  }

  /// A plan of element lists only: `sends[q]` are the source offsets packed for locale q,
  /// `receives[q]` the destination offsets of what q sends, `local` (source, destination)
  /// pairs copied here.
  static transfer_plan of_elements(std::vector<std::vector<index_t>> sends,
                                   std::vector<std::vector<index_t>> receives,
                                   std::vector<std::pair<index_t, index_t>> local) {
    transfer_plan plan;
    plan.sends_ = listed_messages(std::move(sends));
    plan.receives_ = listed_messages(std::move(receives));
    plan.local_offsets_ = std::move(local);
    return plan;
  }

 private:
  // One part found while building, before the parts are put in message order. It may stand
  // for a run of parts found one after another (an all-to-all finds one per peer): the k-th
  // of `count` goes to peer `peer + k * peer_step`, its indices moved by `k * step`.
  struct entry {
    int peer;
    rect<N> part;
    idx<N> to_shift, from_shift;
    std::size_t block;  // this locale's block
    index_t count = 1;
    int peer_step = 0;
    idx<N> step{};
    int last_peer() const noexcept { return peer + static_cast<int>(count - 1) * peer_step; }
  };
  // Folds `e` (one part) into the run that ends `found` when it is the run's next member: the
  // same block and shifts, a later peer, and the same shape moved by the run's step. A peer
  // with several parts starts no run (its parts are grouped one by one anyway).
  static bool extend_run(std::vector<entry>& found, const entry& e);
  // Calls f(member) for each part `run` stands for, in order.
  template <class F>
  static void for_each_member(const entry& run, F&& f) {
    entry one = run;
    one.count = 1;
    for (index_t k = 0; k < run.count; ++k) {
      if (k > 0) {
        one.peer += run.peer_step;
        one.part = moved_indices(one.part, run.step);
      }
      f(one);
    }
  }
  transfer_plan() = default;
  // Appends the copy of `part` from `from` to `to`, joined with the last copy of `copies` when
  // the two are adjacent in both storages.
  static void add_copy(std::vector<copy>& copies, const rect<N>& part, const placed_block<N>& from,
                       const placed_block<N>& to) {
    if (!copies.empty()) {
      copy& last = copies.back();
      const auto joined_from = joined_part(last.part, last.from, part, from, nullptr);
      const auto joined_to = joined_part(last.part, last.to, part, to, nullptr);
      if (joined_from && joined_to) {
        last = {joined_from->first, joined_from->second, joined_to->second};
        return;
      }
    }
    copies.push_back({part, from, to});
  }
  // The parts sent to locales of this node as copies into their blocks of `to`, by peer
  // (none under a simulated machine, or when no node holds two locales).
  static std::map<int, std::vector<copy>> direct_copies(const std::vector<entry>& sent,
                                                        const std::vector<placed_block<N>>& mine,
                                                        const placement_query<N>& to, const idx<N>& period,
                                                        const dimension_order<N>& order);
  // The copies found (each part with its two blocks) as a plan keeps them: in family order
  // when a period is known, adjacent ones joined, repeats folded.
  static std::vector<copy> compact_copies(std::vector<copy> found, const idx<N>& period, const dimension_order<N>& order);
  static std::shared_ptr<const placement<N>> share(const placement<N>& p) {
    return std::shared_ptr<const placement<N>>(&p, [](const placement<N>*) {});
  }
  // Message order, the same on both sides: by peer, then by the first index of the part
  // compared in `order` (the destination's storage order), then by the destination's and the
  // source's shifts (one index may travel twice to one
  // peer, into two periodic ghost cells). When the placements repeat with a known period,
  // by peer, then in families (sort_by_family). Parts that repeat one another are folded.
  // The messages' parts go to `parts`, naming blocks of `mine` or joined ones (in blocks_).
  std::vector<message> group(std::vector<entry> entries, const std::vector<placed_block<N>>& mine,
                             const idx<N>& period, const dimension_order<N>& order, std::vector<part>& parts);
  // group() when each peer has one part: a message per run of parts (their runs of peers).
  static std::optional<std::vector<message>> runs_as_messages(const std::vector<entry>& runs,
                                                              const std::vector<placed_block<N>>& mine,
                                                              const dimension_order<N>& order, std::vector<part>& parts);
  // Folds the messages of a run (first peer `peer`, repeats `after`, one part: `indices` of
  // `block`) into `before` (one part, `first`) when they continue its run of peers.
  static bool join_runs(message& before, const part& first, int peer, const peer_repeats& after,
                        const rect<N>& indices, const placed_block<N>& block);
  // Keeps in blocks_ exactly the blocks the parts name, and points the parts at them.
  void keep_blocks();
  static std::vector<message> listed_messages(std::vector<std::vector<index_t>> lists) {
    std::vector<message> out;
    for (std::size_t q = 0; q < lists.size(); ++q)
      if (!lists[q].empty()) {
        const auto n = static_cast<index_t>(lists[q].size());
        out.push_back({static_cast<int>(q), {}, std::move(lists[q]), n, {}, {}});
      }
    return out;
  }

  std::vector<message> sends_, receives_;
  std::vector<part> send_parts_, receive_parts_;  // the messages' parts, message after message
  std::deque<placed_block<N>> blocks_;            // the blocks parts name (a deque: they never move)
  std::map<int, std::vector<copy>> direct_;
  std::vector<copy> local_;
  std::vector<std::pair<index_t, index_t>> local_offsets_;
};

// The definitions below are outside the class so that a program linking the library does not
// instantiate them (runtime/precompiled.hpp).

template <std::size_t N>
transfer_plan<N>::transfer_plan(int me, const std::vector<placed_block<N>>& my_from, const placement_query<N>& from,
                                const std::vector<placed_block<N>>& my_to, const placement_query<N>& to,
                                const std::vector<int>* layers) {
  const auto same_layer = [&](int q) {
    return !layers || (*layers)[static_cast<std::size_t>(q)] == (*layers)[static_cast<std::size_t>(me)];
  };
  // The parts this locale's blocks `mine` share with the other locales' regions of
  // `peers`, each part in the source's direction, as the sender sees it.
  const auto parts_with = [&](const std::vector<placed_block<N>>& mine, const placement_query<N>& peers,
                              bool sending) {
    std::vector<entry> found;
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const rect<N>& own = mine[k].owned;
      if (own.empty()) continue;
      peers.for_each_region_meeting(own, [&](int q, const held_region<N>& r) {
        if (q == me || !same_layer(q)) return;
        const rect<N> common = sending ? own.intersect(r.owned) : r.owned.intersect(own);
        if (common.empty()) return;
        const entry e = sending ? entry{q, common, r.shift, mine[k].shift, k} : entry{q, common, mine[k].shift, r.shift, k};
        if (!extend_run(found, e)) found.push_back(e);
      });
    }
    return found;
  };
  const idx<N> period = common_period(from.period(), to.period());
  std::vector<entry> out = parts_with(my_from, to, true);
  const dimension_order<N> order = to.storage_order_hint();
  direct_ = direct_copies(out, my_from, to, period, order);
  sends_ = group(std::move(out), my_from, period, order, send_parts_);
  receives_ = group(parts_with(my_to, from, false), my_to, period, order, receive_parts_);  // found now: reuses the sends' memory
  keep_blocks();
  std::vector<copy> found;
  for_each_meeting<N>(my_from, my_to, [&](std::size_t f, std::size_t t, const rect<N>& common) {
    found.push_back({common, my_from[f], my_to[t]});
  });
  local_ = compact_copies(std::move(found), period, order);
}

template <std::size_t N>
auto transfer_plan<N>::compact_copies(std::vector<copy> found, const idx<N>& period,
                                     const dimension_order<N>& order) -> std::vector<copy> {
  if (any_period(period))
    sort_by_family<N>(
        found, period, order,
        [](const copy& c) { return std::pair{0, std::tuple(c.from.shift, c.to.shift, c.from.layout.strides, c.to.layout.strides)}; },
        [](const copy& c) -> const rect<N>& { return c.part; });
  std::vector<copy> copies;
  copies.reserve(found.size());
  for (const auto& c : found) add_copy(copies, c.part, c.from, c.to);
  fold_repeats(copies, [](const copy& x, const copy& y) {
    return translation(x.part, x.from, &x.to, y.part, y.from, &y.to);
  });
  copies.shrink_to_fit();
  return copies;
}

template <std::size_t N>
auto transfer_plan<N>::direct_copies(const std::vector<entry>& sent, const std::vector<placed_block<N>>& mine,
                                     const placement_query<N>& to, const idx<N>& period,
                                     const dimension_order<N>& order) -> std::map<int, std::vector<copy>> {
  std::map<int, std::vector<copy>> out;
  if (simulated || env().largest_node() < 2) return out;
  std::map<int, std::vector<entry>> by_peer;  // the parts sent to each node peer, one by one
  for (const entry& run : sent)
    for_each_member(run, [&](const entry& e) {
      if (env().node_rank_of(e.peer) >= 0) by_peer[e.peer].push_back(e);
    });
  for (const auto& [q, entries] : by_peer) {
    std::vector<placed_block<N>> parts;  // each part with this locale's block, named as sent
    for (const entry& e : entries) parts.push_back({e.part, mine[e.block].layout, e.from_shift});
    const std::vector<placed_block<N>> theirs = to.blocks(q);
    std::vector<copy> found;
    for_each_meeting<N>(parts, theirs, [&](std::size_t a, std::size_t b, const rect<N>& common) {
      if (theirs[b].shift == entries[a].to_shift) found.push_back({common, parts[a], theirs[b]});
    });
    out[q] = compact_copies(std::move(found), period, order);
  }
  return out;
}

template <std::size_t N>
void transfer_plan<N>::keep_blocks() {
  std::deque<placed_block<N>> kept;
  std::map<const placed_block<N>*, const placed_block<N>*> moved;
  const placed_block<N>* last_named = nullptr;  // parts in a row often name one block
  const placed_block<N>* last_kept = nullptr;
  for (auto* parts : {&send_parts_, &receive_parts_})
    for (part& pc : *parts) {
      if (pc.block != last_named) {
        last_named = pc.block;
        auto [at, added] = moved.try_emplace(pc.block, nullptr);
        if (added) at->second = &kept.emplace_back(*pc.block);
        last_kept = at->second;
      }
      pc.block = last_kept;
    }
  blocks_ = std::move(kept);
}

template <std::size_t N>
bool transfer_plan<N>::extend_run(std::vector<entry>& found, const entry& e) {
  if (found.empty()) return false;
  entry& last = found.back();
  if (last.block != e.block || e.peer <= last.last_peer() ||
      (last.count == 1 && found.size() > 1 && found[found.size() - 2].last_peer() == last.peer))
    return false;
  for (std::size_t d = 0; d < N; ++d) {  // (a loop: std::array's == calls memcmp here)
    const range &a = last.part.dim(d), &b = e.part.dim(d);
    if (last.to_shift[d] != e.to_shift[d] || last.from_shift[d] != e.from_shift[d] || a.size() != b.size() ||
        (a.size() > 1 && a.stride() != b.stride()))
      return false;
  }
  const idx<N> a = last.part.first(), b = e.part.first();
  idx<N> step{};
  for (std::size_t d = 0; d < N; ++d)
    if (__builtin_sub_overflow(b[d], a[d], &step[d])) return false;
  const int peer_step = e.peer - last.peer;
  if (last.count == 1) {
    last.count = 2;
    last.peer_step = peer_step;
    last.step = step;
    return true;
  }
  // The next member is the first moved by count steps (products that overflow never match).
  index_t peers = 0;
  if (__builtin_mul_overflow(last.count, static_cast<index_t>(last.peer_step), &peers) || peers != peer_step)
    return false;
  for (std::size_t d = 0; d < N; ++d) {
    index_t moved = 0;
    if (__builtin_mul_overflow(last.count, last.step[d], &moved) || moved != step[d]) return false;
  }
  ++last.count;
  return true;
}

template <std::size_t N>
bool transfer_plan<N>::join_runs(message& before, const part& first, int peer, const peer_repeats& after,
                                 const rect<N>& indices, const placed_block<N>& block) {
  const auto moved = translation<N>(first.indices, *first.block, nullptr, indices, block, nullptr);
  if (!moved) return false;
  peer_repeats& r = before.again;
  const index_t k = r.count;
  // The common steps: a run's own, or (two single messages) the distance between them.
  const int peer_step = k > 1 ? r.peer_step : after.count > 1 ? after.peer_step : peer - before.peer;
  const index_t storage_step = k > 1 ? r.storage_step : after.count > 1 ? after.storage_step : moved->storage;
  if (after.count > 1 && (after.peer_step != peer_step || after.storage_step != storage_step)) return false;
  index_t peers = 0, storage = 0, total = 0;
  if (peer_step <= 0 || __builtin_mul_overflow(k, static_cast<index_t>(peer_step), &peers) ||
      peers != static_cast<index_t>(peer) - before.peer || __builtin_mul_overflow(k, storage_step, &storage) ||
      storage != moved->storage || __builtin_add_overflow(k, after.count, &total))
    return false;
  r = {total, peer_step, storage_step};
  return true;
}

template <std::size_t N>
auto transfer_plan<N>::runs_as_messages(const std::vector<entry>& runs, const std::vector<placed_block<N>>& mine,
                                        const dimension_order<N>& order, std::vector<part>& parts)
    -> std::optional<std::vector<message>> {
  std::vector<message> out;
  parts.clear();
  for (const entry& run : runs) {
    const placed_block<N>& block = mine[run.block];
    peer_repeats again;
    if (run.count > 1) {
      // Both members lie in one affine block: one step moves every element alike.
      const auto moved = translation<N>(run.part, block, nullptr, moved_indices(run.part, run.step), block, nullptr);
      if (!moved) return std::nullopt;
      again = {run.count, run.peer_step, moved->storage};
    }
    const index_t count = run.part.size();
    if (!out.empty() && out.back().count == count && join_runs(out.back(), parts.back(), run.peer, again, run.part, block))
      continue;
    parts.push_back({run.part, &block});
    out.push_back({run.peer, {}, {}, count, {}, again});
  }
  for (std::size_t m = 0; m < out.size(); ++m) {
    out[m].parts = std::span<const part>(parts.data() + m, 1);
    out[m].order = order;
    out[m].line = single_run(out[m].parts, order);
  }
  return out;
}

template <std::size_t N>
std::vector<typename transfer_plan<N>::message> transfer_plan<N>::group(std::vector<entry> entries,
                                                                         const std::vector<placed_block<N>>& mine,
                                                                         const idx<N>& period,
                                                                         const dimension_order<N>& order,
                                                                         std::vector<part>& parts) {
  const auto by_peer = [](const entry& a, const entry& b) { return a.peer < b.peer; };
  if (!std::is_sorted(entries.begin(), entries.end(), by_peer)) std::stable_sort(entries.begin(), entries.end(), by_peer);
  bool one_part_each = true;  // each peer has one part: each run of parts is a run of messages
  for (std::size_t k = 1; k < entries.size() && one_part_each; ++k)
    one_part_each = entries[k - 1].last_peer() < entries[k].peer;
  if (one_part_each)
    if (auto out = runs_as_messages(entries, mine, order, parts)) return std::move(*out);
  if (std::any_of(entries.begin(), entries.end(), [](const entry& e) { return e.count > 1; })) {
    std::vector<entry> each;  // the runs one part after another
    for (const entry& run : entries) for_each_member(run, [&](const entry& e) { each.push_back(e); });
    entries = std::move(each);
  }
  const auto by_first = [&order](const entry& a, const entry& b) {
    if (a.peer != b.peer) return a.peer < b.peer;
    const idx<N> fa = in_order(a.part.first(), order), fb = in_order(b.part.first(), order);
    if (fa != fb) return fa < fb;
    if (a.to_shift != b.to_shift) return a.to_shift < b.to_shift;
    return a.from_shift < b.from_shift;
  };
  if (!std::is_sorted(entries.begin(), entries.end(), by_first))  // often found in order already
    std::sort(entries.begin(), entries.end(), by_first);
  if (any_period(period))
    for (std::size_t k = 0; k < entries.size();) {  // the families of each peer with several parts
      std::size_t end = k + 1;
      while (end < entries.size() && entries[end].peer == entries[k].peer) ++end;
      if (end - k > 1) {
        std::vector<entry> of_peer(std::make_move_iterator(entries.begin() + static_cast<std::ptrdiff_t>(k)),
                                   std::make_move_iterator(entries.begin() + static_cast<std::ptrdiff_t>(end)));
        sort_by_family<N>(
            of_peer, period, order, [](const entry& e) { return std::pair{e.peer, std::pair(e.to_shift, e.from_shift)}; },
            [](const entry& e) -> const rect<N>& { return e.part; });
        std::move(of_peer.begin(), of_peer.end(), entries.begin() + static_cast<std::ptrdiff_t>(k));
      }
      k = end;
    }
  std::size_t peers = 0;
  for (std::size_t k = 0; k < entries.size(); ++k) peers += k == 0 || entries[k].peer != entries[k - 1].peer;
  std::vector<message> out;
  out.reserve(peers);
  std::vector<std::pair<std::size_t, std::size_t>> where;  // each message's parts: first, count
  where.reserve(peers);
  parts.clear();
  parts.reserve(entries.size());
  const auto fold_last = [&] {  // folds the parts of the last message that repeat one another
    if (parts.size() - where.back().first < 2) return;
    const auto first = parts.begin() + static_cast<std::ptrdiff_t>(where.back().first);
    std::vector<part> of_message(std::make_move_iterator(first), std::make_move_iterator(parts.end()));
    parts.erase(first, parts.end());
    fold_repeats(of_message, [](const part& x, const part& y) {
      return translation<N>(x.indices, *x.block, nullptr, y.indices, *y.block, nullptr);
    });
    parts.insert(parts.end(), std::make_move_iterator(of_message.begin()), std::make_move_iterator(of_message.end()));
  };
  // Folds the last message into the one before when it repeats it at the next peer of its run.
  const auto repeat_last = [&] {
    if (out.size() < 2) return;
    message &before = out[out.size() - 2], &last = out.back();
    const auto [first_before, parts_before] = where[where.size() - 2];
    const auto [first_last, parts_last] = where.back();
    if (parts_before != 1 || parts_last != 1 || before.count != last.count) return;
    const part &x = parts[first_before], &y = parts[first_last];
    if (!(x.again == y.again)) return;
    const auto step = translation<N>(x.indices, *x.block, nullptr, y.indices, *y.block, nullptr);
    if (!step) return;
    peer_repeats& r = before.again;
    if (r.count == 1) {
      r.peer_step = last.peer - before.peer;
      r.storage_step = step->storage;
    } else {
      index_t storage = 0, peer = 0;
      if (__builtin_mul_overflow(r.count, r.storage_step, &storage) || storage != step->storage ||
          __builtin_mul_overflow(r.count, static_cast<index_t>(r.peer_step), &peer) || peer != last.peer - before.peer)
        return;
    }
    ++r.count;
    out.pop_back();
    where.pop_back();
    parts.pop_back();
  };
  const auto close_last = [&] {  // the last message is complete: its parts folded, then itself
    if (out.empty()) return;
    fold_last();
    where.back().second = parts.size() - where.back().first;
    repeat_last();
  };
  for (const auto& e : entries) {
    if (out.empty() || out.back().peer != e.peer) {
      close_last();
      out.push_back({e.peer, {}, {}, 0, {}, {}});
      where.emplace_back(parts.size(), 0);
    }
    out.back().count += e.part.size();
    // A part that continues the previous one in both order and storage joins it.
    if (parts.size() > where.back().first)
      if (auto both = joined_part(parts.back().indices, *parts.back().block, e.part, mine[e.block], &order)) {
        if (!blocks_.empty() && parts.back().block == &blocks_.back()) blocks_.back() = std::move(both->second);
        else blocks_.push_back(std::move(both->second));  // the previous part's block joined: kept by the plan
        parts.back() = {both->first, &blocks_.back()};
        continue;
      }
    parts.push_back({e.part, &mine[e.block]});
  }
  close_last();
  out.shrink_to_fit();
  parts.shrink_to_fit();
  for (std::size_t m = 0; m < out.size(); ++m) {
    out[m].parts = std::span<const part>(parts.data() + where[m].first, where[m].second);
    out[m].order = order;
    out[m].line = single_run(out[m].parts, order);
  }
  return out;
}

/// Calls f(peer, moved) for each message `msg` stands for (its `again`), by increasing peer:
/// `moved` is added to its parts' storage offsets for that peer.
template <class Message, class F>
void for_each_peer_of(const Message& msg, F&& f) {
  for (index_t k = 0; k < msg.again.count; ++k)
    f(msg.peer + static_cast<int>(k) * msg.again.peer_step, k * msg.again.storage_step);
}

/// The number of messages `messages` stand for (each with its repeats at other peers).
template <class Message>
std::size_t messages_in(const std::vector<Message>& messages) {
  std::size_t n = 0;
  for (const auto& m : messages) n += static_cast<std::size_t>(m.again.count);
  return n;
}

/// Stores a received element into its cell by assignment (unpack_message's default).
struct assign_element {
  /// `cell = value`.
  template <class T>
  void operator()(T& cell, const T& value) const noexcept(std::is_nothrow_copy_assignable_v<T>) {
    cell = value;
  }
};

/// Packs the elements a message of a transfer_plan lists (its parts' runs in `base`, moved by
/// `moved` for a repeat of the message at another peer, then its element offsets) into `out`,
/// in message order: what the peer's unpack_message expects.
template <class T, class Message>
void pack_message(const Message& msg, const T* base, T* out, index_t moved = 0) {
  std::size_t at = 0;
  for (const auto& pc : msg.parts)
    for_each_part_run(pc, msg.order, [&](index_t offset, index_t step, index_t count) {
      const T* in = base + (offset + moved);
      if (step == 1) {
        copy_elements(in, out + at, count);
        at += static_cast<std::size_t>(count);
      } else {
        for (index_t k = 0; k < count; ++k) out[at++] = in[k * step];
      }
    });
  for (index_t offset : msg.offsets) out[at++] = base[offset];
}

/// Unpacks a message packed by pack_message into the cells its parts (and offsets) name in
/// `base` (moved by `moved` for a repeat at another peer), in message order: `store(cell,
/// value)` for each element (assignment by default; a combining store makes a reduction of the
/// received values into the cells).
template <class T, class Message, class Store = assign_element>
void unpack_message(const Message& msg, const T* in, T* base, Store&& store = {}, index_t moved = 0) {
  std::size_t at = 0;
  for (const auto& pc : msg.parts)
    for_each_part_run(pc, msg.order, [&](index_t offset, index_t step, index_t count) {
      T* out = base + (offset + moved);
      if constexpr (std::is_same_v<std::remove_cvref_t<Store>, assign_element>) {
        if (step == 1) {
          copy_elements(in + at, out, count);
          at += static_cast<std::size_t>(count);
          return;
        }
      }
      if (step == 1) {
        for (index_t k = 0; k < count; ++k) store(out[k], in[at + static_cast<std::size_t>(k)]);
        at += static_cast<std::size_t>(count);
      } else {
        for (index_t k = 0; k < count; ++k) store(out[k * step], in[at++]);
      }
    });
  for (index_t offset : msg.offsets) store(base[offset], in[at++]);
}

/// A transfer in flight: messages posted and local copies done; `finish()` waits for the
/// messages and stores what arrived. Computation may run in between.
template <transferable T, std::size_t N>
class pending_transfer {
 public:
  /// Packs and posts every message of `plan` and makes the local copies. With `direct`, a
  /// message that is one contiguous run of the source is sent from it without packing, and
  /// one that lands in one contiguous run of the destination is received there: the caller
  /// then leaves both unchanged until finish() (transfers that finish at once). When the
  /// destination lies in node-shared memory (`to_node`, the same on every locale) and node
  /// transfers are on, the elements for locales of this node are copied straight into their
  /// storage once each says it is ready, before this returns: no message carries them.
  pending_transfer(const transfer_plan<N>& plan, const T* from_base, T* to_base, bool direct = false,
                   const node_segment* to_node = nullptr);
  pending_transfer(pending_transfer&&) noexcept = default;

  /// Waits for the messages (and the node peers' direct copies) and unpacks them into their
  /// blocks.
  void finish();

 private:
  const transfer_plan<N>* plan_;
  T* to_base_;
  std::vector<bool> received_in_place_;
  std::vector<pooled_buffer> outgoing_, incoming_;
  message_batch batch_;
  signal_batch signals_;  // ready sent and done expected for direct copies into this locale
};

template <transferable T, std::size_t N>
pending_transfer<T, N>::pending_transfer(const transfer_plan<N>& plan, const T* from_base, T* to_base, bool direct,
                                         const node_segment* to_node)
    : plan_(&plan), to_base_(to_base) {
  const bool node = to_node != nullptr && env().node_transfers().enabled;
  const auto copied_directly = [&](const typename transfer_plan<N>::message& msg, int peer) {
    return node && msg.offsets.empty() && env().node_rank_of(peer) >= 0;
  };
  const auto& receives = plan.receives();
  incoming_.resize(messages_in(receives));
  received_in_place_.assign(incoming_.size(), false);
  std::size_t m = 0;  // the message (one peer's) among those the plan's messages stand for
  for (const auto& msg : receives)
    for_each_peer_of(msg, [&](int peer, index_t moved) {
      const auto n = static_cast<std::size_t>(msg.count);
      if (copied_directly(msg, peer)) {  // the peer copies into this locale's storage
        received_in_place_[m++] = true;
        signals_.send(peer, signal_kind::ready);
        signals_.receive(peer, signal_kind::done);
        return;
      }
      if (direct && msg.offsets.empty()) {
        if (const auto run = msg.line) {
          received_in_place_[m++] = true;
          batch_.receive(peer, to_base + (*run + moved), n * sizeof(T));
          return;
        }
      }
      incoming_[m] = message_buffers().take(n * sizeof(T));
      batch_.receive(peer, incoming_[m++].template as<T>(), n * sizeof(T));
    });
  const auto& sends = plan.sends();
  outgoing_.resize(messages_in(sends));
  signal_batch ready;
  std::vector<std::pair<int, index_t>> pushed;  // (peer, elements) copied directly, in the order `ready` expects them
  m = 0;
  for (const auto& msg : sends)
    for_each_peer_of(msg, [&](int peer, index_t moved) {
      const auto n = static_cast<std::size_t>(msg.count);
      if (copied_directly(msg, peer)) {
        ready.expect(peer, signal_kind::ready);
        pushed.emplace_back(peer, msg.count);
        ++m;
        return;
      }
      if (direct && msg.offsets.empty()) {
        if (const auto run = msg.line) {
          batch_.send(peer, from_base + (*run + moved), n * sizeof(T));
          ++m;
          return;
        }
      }
      outgoing_[m] = message_buffers().take(n * sizeof(T));
      T* out = outgoing_[m++].template as<T>();
      pack_message(msg, from_base, out, moved);
      batch_.send(peer, out, n * sizeof(T));
    });
  for (const auto& pc : plan.local()) copy_part(pc.part, pc.from, from_base, pc.to, to_base, pc.again);
  for (const auto& [from, to] : plan.local_offsets()) to_base[to] = from_base[from];
  if (pushed.empty()) return;
  ready.on_arrival([&](std::size_t k) {
    const auto [peer, count] = pushed[k];
    T* theirs = node_data_of<T>(to_node, peer);
    if (const auto* copies = plan.direct_to(peer))
      for (const auto& c : *copies) copy_part(c.part, c.from, from_base, c.to, theirs, c.again);
    signals_.send(peer, signal_kind::done);
    count_node_copy(static_cast<std::uint64_t>(count) * sizeof(T));
  });
}

template <transferable T, std::size_t N>
void pending_transfer<T, N>::finish() {
  batch_.wait();
  signals_.wait();
  std::size_t m = 0;
  for (const auto& msg : plan_->receives())
    for_each_peer_of(msg, [&](int, index_t moved) {
      if (!received_in_place_[m]) unpack_message(msg, incoming_[m].template as<T>(), to_base_, assign_element{}, moved);
      ++m;
    });
  incoming_.clear();
}

/// Collective. Copies every index present in both placements from `from` (elements at
/// `from_base`) to `to` (elements at `to_base`): one message per pair of locales that share
/// indices, exactly the shared elements, and no collective call. A source with copies is
/// read from each destination's own copy layer (`layers`, see transfer_plan).
template <transferable T, std::size_t N>
void transfer(const placement<N>& from, const T* from_base, const placement<N>& to, T* to_base,
              const std::vector<int>* layers = nullptr) {
  const transfer_plan<N> plan(from, to, layers);
  pending_transfer<T, N>(plan, from_base, to_base, from_base != to_base).finish();
}


#define DMAP_TRANSFER_ELEMENT_INSTANCES(T, N, how) how class pending_transfer<T, N>;
/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_TRANSFER_INSTANCES(N, how)                                                        \
  how class transfer_plan<N>;                                                                 \
  how dimension_order<N> storage_order_of<N>(const dense_layout<N>&);                         \
  DMAP_PRECOMPILED_ELEMENTS(DMAP_TRANSFER_ELEMENT_INSTANCES, N, how)
DMAP_DECLARE_PRECOMPILED(DMAP_TRANSFER_INSTANCES)

}  // namespace dmap::detail
