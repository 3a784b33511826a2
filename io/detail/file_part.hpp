// Which positions of a file one locale reads or writes, and where they are in its memory. A
// file holds an array's (or view's) index set in row-major order of positions, whatever the
// bounds and strides; a locale's share is a sorted list of runs of positions, each run stored at
// evenly spaced offsets of a buffer. Directly from the locale's own blocks (its pieces and
// their layouts: no copy, no message) when they cut into few, non-interleaving runs; otherwise
// staged: the elements are first moved into (or, reading, out of) a row-major slab per locale,
// so each locale's share is one contiguous run.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "../../algorithms/detail/linear_slabs.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/detail/assignment.hpp"
#include "../../dsi/detail/locator.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"

namespace dmap::detail {

/// The file positions position, position + step, ... (count of them, step >= 1), kept at the
/// buffer offsets memory, memory + memory_step, ...
struct file_run {
  index_t position = 0;
  index_t count = 0;
  index_t step = 1;
  index_t memory = 0;
  index_t memory_step = 1;
  /// The last position of the run.
  index_t last_position() const noexcept { return position + (count - 1) * step; }
  /// True when the run is one contiguous stretch of file and of memory.
  bool contiguous() const noexcept { return step == 1 && memory_step == 1; }
};

/// A box of file positions seen as an N-D selection of the file's shape: per dimension the
/// first position, the number of them and the distance between them (>= 1).
template <std::size_t N>
struct position_box {
  std::array<index_t, N> first{};
  std::array<index_t, N> count{};
  std::array<index_t, N> step{};
};

/// How a locale's share is found: from its own blocks (`direct`), through a row-major slab
/// (`staged`), or the first when it suits (`automatic`).
enum class file_route { automatic, direct, staged };

/// Adds the runs and the box of block `b` (indices of `whole`) to `runs` and `boxes`.
template <std::size_t N>
void add_block_runs(const placed_block<N>& b, const rect<N>& whole, std::vector<file_run>& runs,
                    std::vector<position_box<N>>& boxes) {
  const rect<N>& o = b.owned;
  if (o.empty()) return;
  const idx<N> i0 = o.first();
  std::array<index_t, N> inner{}, along{}, memory_along{}, count = o.shape();
  index_t position = 0;
  for (std::size_t d = N; d-- > 0;) inner[d] = d + 1 == N ? 1 : inner[d + 1] * whole.dim(d + 1).size();
  const index_t memory = b.layout.offset_of(i0 + b.shift);
  position_box<N> box;
  for (std::size_t d = 0; d < N; ++d) {
    const index_t first_order = whole.dim(d).order_of(i0[d]);
    position += first_order * inner[d];
    along[d] = 0;
    memory_along[d] = 0;
    if (count[d] > 1) {
      idx<N> next = i0;
      next[d] += o.dim(d).stride();
      along[d] = whole.dim(d).order_of(next[d]) - first_order;  // positions along d, may be negative
      memory_along[d] = b.layout.offset_of(next + b.shift) - memory;
    }
    box.count[d] = count[d];
    box.step[d] = along[d] < 0 ? -along[d] : (along[d] == 0 ? 1 : along[d]);
    box.first[d] = along[d] < 0 ? first_order + (count[d] - 1) * along[d] : first_order;
  }
  boxes.push_back(box);
  const index_t n_last = count[N - 1];
  const auto add_row = [&](index_t row_position, index_t row_memory) {
    file_run r{row_position, n_last, along[N - 1] * inner[N - 1], row_memory, memory_along[N - 1]};
    if (n_last == 1) {
      r.step = 1;
      r.memory_step = 1;
    } else if (r.step < 0) {  // walk it the other way: positions ascending
      r.position = r.last_position();
      r.memory += (n_last - 1) * r.memory_step;
      r.step = -r.step;
      r.memory_step = -r.memory_step;
    }
    runs.push_back(r);
  };
  if constexpr (N == 1) {
    add_row(position, memory);
  } else {
    std::array<index_t, N> k{};
    while (true) {
      index_t p = position, m = memory;
      for (std::size_t d = 0; d + 1 < N; ++d) p += k[d] * along[d] * inner[d], m += k[d] * memory_along[d];
      add_row(p, m);
      std::size_t d = N - 1;
      while (d-- > 0) {
        if (++k[d] < count[d]) break;
        k[d] = 0;
      }
      if (d == static_cast<std::size_t>(-1)) break;
    }
  }
}

/// Sorts `runs` by position and joins neighbours that continue each other in file and memory.
/// Returns false when two runs interleave (a strided run's span holds another's positions): a
/// file view cannot list them in ascending order then.
inline bool order_runs(std::vector<file_run>& runs) {
  const auto by_position = [](const file_run& a, const file_run& b) { return a.position < b.position; };
  if (!std::is_sorted(runs.begin(), runs.end(), by_position)) std::sort(runs.begin(), runs.end(), by_position);
  std::size_t kept = 0;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    if (kept > 0) {
      file_run& last = runs[kept - 1];
      const file_run& r = runs[k];
      if (r.position <= last.last_position()) return false;
      if (last.contiguous() && r.contiguous() && r.position == last.position + last.count &&
          r.memory == last.memory + last.count) {
        last.count += r.count;
        continue;
      }
    }
    runs[kept++] = runs[k];
  }
  runs.resize(kept);
  return true;
}

/// The even cut of n positions over p locales: locale q holds [n q / p, n (q + 1) / p).
inline index_t even_cut(index_t n, int q, int p) {
  return static_cast<index_t>(static_cast<wide_int>(n) * q / p);
}

/// The row-major slabs of `whole`, one per locale (the even cut), as a locator: locale q holds
/// the positions [even_cut(n, q), even_cut(n, q + 1)) stored compactly from offset 0.
template <std::size_t N>
locator<N> slab_locator(const rect<N>& whole) {
  const int p = num_locales();
  auto all = std::make_shared<placement<N>>(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) {
    std::vector<rect<N>> rects;
    linear_rects(whole, 0, even_cut(whole.size(), q, p), even_cut(whole.size(), q + 1, p), rects);
    for (const auto& l : packed_layouts(rects)) (*all)[static_cast<std::size_t>(q)].push_back({l.indices, l, {}});
  }
  locator<N> out{whole, (*all)[static_cast<std::size_t>(here())], nullptr, nullptr, nullptr, {}};
  out.peers = std::make_shared<const listed_query<N>>(std::move(all));
  return out;
}

/// One locale's share of a file holding an array or view (see the header comment): the runs
/// of positions it reads or writes, the buffer their memory offsets refer to, and the boxes
/// of positions they cover. Made collectively; reading, finish_reading() completes it.
template <class T, std::size_t N>
class file_part {
  static_assert(std::is_trivially_copyable_v<T>, "file I/O moves elements as bytes");

 public:
  /// Collective. The share of this locale when writing `x` (an array or a view): each index
  /// once, whatever copies the map keeps (a directory map is always staged).
  template <class X>
  static file_part for_writing(const X& x, file_route route = file_route::automatic) {
    return file_part(access::placed_elements_of(x), true, route);
  }
  /// Collective. The share of this locale when reading into `x`: every index it holds (each
  /// copy reads its own). Call finish_reading() once the runs are read.
  template <class X>
  static file_part for_reading(const X& x, file_route route = file_route::automatic) {
    return file_part(access::placed_elements_of(x), false, route);
  }

  /// This locale's runs, ascending and not interleaving (empty: it moves nothing).
  const std::vector<file_run>& runs() const noexcept { return runs_; }
  /// The runs' positions as boxes of the file's shape (their union is the runs' positions).
  const std::vector<position_box<N>>& boxes() const noexcept { return boxes_; }
  /// The buffer the runs' memory offsets refer to.
  T* base() const noexcept { return base_; }
  /// The number of positions per dimension of the file.
  std::array<index_t, N> shape() const noexcept { return whole_.shape(); }
  /// The elements this locale moves.
  index_t elements() const noexcept { return elements_; }
  /// True when the share went through a slab.
  bool staged() const noexcept { return staged_; }

  /// Collective. After the runs were read: moves a staged slab into the array or view.
  void finish_reading() {
    if (!staged_) return;
    transfer(slab_, slab_data_.data(), target_, target_data_, target_node_);
  }

 private:
  file_part(const placed_elements<T, N>& x, bool writing, file_route route) : whole_(x.whole) {
    const locator<N> where = x.locate();
    enum : int { can_be_direct = 1, must_stage = 2, failed = 4 };
    const auto decide = [&] {
      if (route == file_route::staged || (writing && where.dir)) return int{must_stage};
      const bool silent = writing && where.layers &&
                          (*where.layers)[static_cast<std::size_t>(here())] != (*where.layers)[0];
      if (silent) return int{can_be_direct};  // another copy layer writes these indices
      index_t rows = 0, stored = 0;
      for (const auto& b : where.mine) {
        const auto extents = b.owned.shape();
        index_t r = b.owned.empty() ? 0 : 1;
        for (std::size_t d = 0; d + 1 < N; ++d) r *= extents[d];
        rows += r;
        stored += b.owned.size();
      }
      if (route == file_route::automatic && rows > 1024 + stored / 8) return int{must_stage};
      for (const auto& b : where.mine) add_block_runs(b, whole_, runs_, boxes_);
      if (!order_runs(runs_)) return int{must_stage};
      elements_ = stored;
      return int{can_be_direct};
    };
    // One all-reduce carries both the vote and a failure (agreed only when there is one).
    std::exception_ptr failure;
    int mine = failed;
    try {
      mine = decide();
    } catch (...) {
      failure = std::current_exception();
    }
    const int all = num_locales() == 1 ? mine : all_reduce_max(mine);
    if (all & failed) agree(failure);
    const bool stage = all == must_stage;
    if (!stage) {
      base_ = x.data;
      return;
    }
    staged_ = true;
    slab_ = slab_locator(whole_);
    const index_t first = even_cut(whole_.size(), here(), num_locales());
    const index_t count = even_cut(whole_.size(), here() + 1, num_locales()) - first;
    agreed([&] {
      clear();
      slab_data_.resize(static_cast<std::size_t>(count));
      if (count > 0) runs_.push_back({first, count, 1, 0, 1});
      for (const auto& b : slab_.mine) add_block_runs(b, whole_, scratch_runs_, boxes_);
      scratch_runs_.clear();
      elements_ = count;
    });
    base_ = slab_data_.data();
    if (writing) {
      transfer(where, static_cast<const T*>(x.data), slab_, slab_data_.data());
    } else {
      target_ = where;
      target_data_ = x.data;
      target_node_ = x.node;
    }
  }
  void clear() {
    runs_.clear();
    boxes_.clear();
    elements_ = 0;
  }

  rect<N> whole_;
  std::vector<file_run> runs_, scratch_runs_;
  std::vector<position_box<N>> boxes_;
  T* base_ = nullptr;
  index_t elements_ = 0;
  bool staged_ = false;
  locator<N> slab_, target_;
  std::vector<T> slab_data_;
  T* target_data_ = nullptr;
  const node_segment* target_node_ = nullptr;
};

}  // namespace dmap::detail
