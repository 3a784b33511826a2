// One array's local storage: a buffer holding this locale's blocks (owned elements, ghost
// cells, copies), first touched by the threads later loops use, or a foreign buffer the
// array adopted; exposed to one-sided access. Registered with its domain, which
// reallocates it when the index set changes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "../../runtime/detail/huge_pages.hpp"
#include "../../runtime/detail/node_segment.hpp"
#include "../../runtime/detail/tasks.hpp"
#include "../../runtime/detail/window.hpp"
#include "../../runtime/precompiled.hpp"
#include "../layout.hpp"
#include "chunks.hpp"
#include "domain_state.hpp"
#include "locator.hpp"

namespace dmap::detail {

/// The bytes of `count` elements of T (negative counts as 0), saturated at 2^64 - 1.
template <class T>
std::uint64_t bytes_of(index_t count) noexcept {
  const auto n = static_cast<std::uint64_t>(std::max<index_t>(count, 0));
  return n > UINT64_MAX / sizeof(T) ? UINT64_MAX : n * sizeof(T);
}

/// Collective when it may apply: whether an array of T over `dom` keeps its elements in
/// node-shared memory (see use_node_storage).
template <class T, std::size_t N>
bool node_storage_wanted(const domain_state<N>& dom) {
  return use_node_storage(bytes_of<T>(dom.whole.size()), bytes_of<T>(dom.storage_size));
}

/// Not collective: whether an array of T over `dom` may keep node-shared storage and whether
/// this locale's part fits (see node_storage_asked); the caller agrees on the fit.
template <class T, std::size_t N>
node_storage_ask node_storage_asked(const domain_state<N>& dom) {
  return node_storage_asked(bytes_of<T>(dom.whole.size()), bytes_of<T>(dom.storage_size));
}

/// Calls `f(first, last)` for each run [first, last) of the offsets [0, count) that no element
/// of `layouts` occupies (the gaps padded rows leave, or anything a map's layouts skip), in
/// increasing order. One layout whose strides nest (each dimension's stride, by increasing
/// stride, at least the span of the ones below it) is walked row by row; others are marked
/// element by element.
template <std::size_t N, class F>
void for_each_gap(const std::vector<dense_layout<N>>& layouts, index_t count, F&& f) {
  index_t held = 0;
  for (const auto& l : layouts) held += l.size();
  if (held >= count) return;  // a layout's elements are distinct and lie in [0, count): no gap
  if (layouts.size() == 1 && !layouts.front().indices.empty()) {
    const dense_layout<N>& l = layouts.front();
    const auto extents = l.extents();
    std::array<std::size_t, N> by_stride{};
    for (std::size_t d = 0; d < N; ++d) by_stride[d] = d;
    std::sort(by_stride.begin(), by_stride.end(), [&](std::size_t a, std::size_t b) { return l.strides[a] < l.strides[b]; });
    bool nested = l.strides[by_stride[0]] == 1 || extents[by_stride[0]] == 1;
    for (std::size_t j = 1; j < N && nested; ++j)
      nested = l.strides[by_stride[j]] >= l.strides[by_stride[j - 1]] * extents[by_stride[j - 1]];
    if (nested) {
      // Rows along the smallest stride, in storage order (largest stride outermost).
      std::array<index_t, N> ext{};  // extents in storage order, the row last
      for (std::size_t j = 0; j < N; ++j) ext[j] = extents[by_stride[N - 1 - j]];
      const index_t row = extents[by_stride[0]];
      index_t next = 0;
      for_each_row_start<N>(ext, [&](const std::array<index_t, N>& k) {
        index_t start = l.offset;
        for (std::size_t j = 0; j + 1 < N; ++j) start += k[j] * l.strides[by_stride[N - 1 - j]];
        if (start > next) f(next, start);
        next = start + row;
      });
      if (next < count) f(next, count);
      return;
    }
  }
  std::vector<bool> taken(static_cast<std::size_t>(count), false);
  for (const auto& l : layouts) {
    const auto extents = l.extents();
    for_each_row_start<N>(extents, [&](const std::array<index_t, N>& k) {
      index_t start = l.offset;
      for (std::size_t d = 0; d + 1 < N; ++d) start += k[d] * l.strides[d];
      for (index_t t = 0; t < extents[N - 1]; ++t) taken[static_cast<std::size_t>(start + t * l.strides[N - 1])] = true;
    });
  }
  for (index_t k = 0; k < count;) {
    if (taken[static_cast<std::size_t>(k)]) {
      ++k;
      continue;
    }
    index_t end = k;
    while (end < count && !taken[static_cast<std::size_t>(end)]) ++end;
    f(k, end);
    k = end;
  }
}

/// One array's local storage: a buffer holding this locale's blocks, exposed to RMA.
template <class T, std::size_t N>
class array_storage final : public array_hook<N> {
 public:
  /// This locale's storage of an array over `dom`, every element `value`, in node-shared
  /// memory when `shared` (see node_storage_wanted; collective over the node then). May throw
  /// std::bad_alloc on one locale only (the array agrees before exposing it); node-shared
  /// memory is allocated last, after everything that can fail here.
  array_storage(std::shared_ptr<domain_state<N>> dom, const T& value, bool shared);
  /// This locale's storage of an array over `dom` kept in `foreign` (checked by the caller
  /// against the domain's local layouts): no element is written.
  array_storage(std::shared_ptr<domain_state<N>> dom, T* foreign);
  array_storage(const array_storage&) = delete;
  array_storage& operator=(const array_storage&) = delete;
  ~array_storage() override;

  void choose_storage() override { next_shared_ = node_storage_wanted<T>(*dom_); }
  void prepare() override { next_ = allocated(implicit_, next_shared_); }
  void discard() noexcept override { next_ = {}; }
  void commit(const locator<N>& before, const locator<N>& after) override;

  /// The array's collective serial number (env().new_serial() at its creation).
  std::uint64_t serial = 0;

  const std::shared_ptr<domain_state<N>>& dom() const noexcept { return dom_; }
  /// The implicit value: what indices a resize adds start with.
  const T& implicit() const noexcept { return implicit_; }
  /// Changes the implicit value (the caller agrees on it).
  void set_implicit(const T& value) noexcept { implicit_ = value; }
  T* data() const noexcept { return now_.data; }
  /// True while the elements live in a foreign buffer (until the domain changes).
  bool adopted() const noexcept { return now_.foreign; }
  index_t size() const noexcept { return now_.count; }
  const std::vector<local_block<T, N>>& blocks() const noexcept { return now_.blocks; }
  const rma_window& window() const noexcept { return window_; }
  /// The node-shared memory holding the elements, or null (private or adopted storage).
  const node_segment* segment() const noexcept { return now_.segment.get(); }
  /// Collective: exposes the storage to one-sided access.
  void expose();

 private:
  // A buffer holding this locale's blocks of the domain's current placement: allocated here
  // (`buffer` owns it) or adopted (`buffer` is null).
  struct storage {
    std::unique_ptr<node_segment> segment;
    std::unique_ptr<T[]> buffer;
    T* data = nullptr;
    bool foreign = false;
    index_t count = 0;
    std::vector<local_block<T, N>> blocks;
  };

  // Allocates this locale's blocks and writes `value` into every element: the owned ones
  // chunk by chunk on the threads later loops over the domain use (first touch), then any
  // extra storage (ghost cells, copies of other locales' indices), then the gaps no layout
  // holds (padded rows), so that every element of the buffer is constructed.
  storage allocated(const T& value, bool shared) const;

  std::shared_ptr<domain_state<N>> dom_;
  T implicit_{};  // what indices a resize adds start with
  storage now_;   // the storage in use
  storage next_;  // allocated by prepare(), taken by commit()
  bool next_shared_ = false;  // whether prepare() allocates node-shared memory
  rma_window window_;
};

template <class T, std::size_t N>
array_storage<T, N>::array_storage(std::shared_ptr<domain_state<N>> dom, const T& value, bool shared)
    : dom_(std::move(dom)), implicit_(value) {
  dom_->arrays.reserve(dom_->arrays.size() + 1);
  now_ = allocated(value, shared);
  dom_->arrays.push_back(this);
}

template <class T, std::size_t N>
array_storage<T, N>::array_storage(std::shared_ptr<domain_state<N>> dom, T* foreign) : dom_(std::move(dom)) {
  now_.data = foreign;
  now_.foreign = true;
  now_.count = dom_->storage_size;
  for (const auto& l : dom_->my_layouts) now_.blocks.push_back({l, foreign});
  dom_->arrays.push_back(this);
}

template <class T, std::size_t N>
array_storage<T, N>::~array_storage() {
  auto& a = dom_->arrays;
  a.erase(std::remove(a.begin(), a.end(), this), a.end());
}

template <class T, std::size_t N>
void array_storage<T, N>::commit(const locator<N>& before, const locator<N>& after) {
  storage old = std::exchange(now_, std::move(next_));
  window_ = rma_window{};
  transfer(before, old.data, after, now_.data, segment());
  expose();
}

template <class T, std::size_t N>
void array_storage<T, N>::expose() {
  window_ = rma_window(now_.data, static_cast<std::size_t>(now_.count) * sizeof(T), sizeof(T), segment());
}

template <class T, std::size_t N>
auto array_storage<T, N>::allocated(const T& value, bool shared) const -> storage {
  storage s;
  s.count = dom_->storage_size;
  s.blocks.reserve(dom_->my_layouts.size());
  if (shared) {
    s.segment = std::make_unique<node_segment>(static_cast<std::size_t>(s.count) * sizeof(T));
    s.data = reinterpret_cast<T*>(s.segment->data());
  } else {
    s.buffer = std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(s.count));
    s.data = s.buffer.get();
    advise_huge_pages(s.data, static_cast<std::size_t>(s.count) * sizeof(T));  // before the first touch below
  }
  for (const auto& l : dom_->my_layouts) s.blocks.push_back({l, s.data});
  T* base = s.data;
  if (dom_->dense_storage) {
    // Later loops over arrays of this domain alone walk the storage in these runs.
    const auto runs = cut_storage(s.count, num_threads());
    run_tasks(runs.size(), [&](std::size_t r) {
      for (index_t k = runs[r].first; k < runs[r].second; ++k) std::construct_at(base + k, value);
    });
    return s;
  }
  const auto fill = [&](const rect<N>& part, const dense_layout<N>& layout) {
    for_each_run(part, layout, [&](index_t offset, index_t step, index_t count) {
      for (index_t k = 0; k < count; ++k) std::construct_at(base + offset + k * step, value);
    });
  };
  const auto& owned = dom_->my_subdomains;
  std::vector<dense_rect<N>> pieces;
  for (const auto& r : owned) pieces.push_back(densify(dom_->whole, r));
  const auto chunks = cut_into_chunks(pieces, num_threads());
  run_tasks(chunks.size(), [&](std::size_t c) {
    fill(undensify(dom_->whole, chunks[c].orders), s.blocks[chunks[c].piece].layout);
  });
  for (std::size_t b = 0; b < owned.size(); ++b)
    for (const auto& slab : difference(s.blocks[b].layout.indices, owned[b])) fill(slab, s.blocks[b].layout);
  if (dom_->dir) {
    for (std::size_t k = 0; k < dom_->dir->stored().size(); ++k)
      if (!dom_->dir->owns_stored(k)) std::construct_at(base + k, value);
  } else {
    for_each_gap<N>(dom_->my_layouts, s.count, [&](index_t first, index_t last) {
      for (index_t k = first; k < last; ++k) std::construct_at(base + k, value);
    });
  }
  return s;
}



#define DMAP_ARRAY_STORAGE_ELEMENT_INSTANCES(T, N, how) how class array_storage<T, N>;
/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_ARRAY_STORAGE_INSTANCES(N, how) DMAP_PRECOMPILED_ELEMENTS(DMAP_ARRAY_STORAGE_ELEMENT_INSTANCES, N, how)
DMAP_DECLARE_PRECOMPILED(DMAP_ARRAY_STORAGE_INSTANCES)

}  // namespace dmap::detail
