// One array's local storage: a buffer holding this locale's blocks (owned elements, ghost
// cells, copies), first touched by the threads later loops use, and exposed to one-sided
// access. Registered with its domain, which reallocates it when the index set changes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "../../runtime/detail/tasks.hpp"
#include "../../runtime/detail/window.hpp"
#include "../layout.hpp"
#include "chunks.hpp"
#include "domain_state.hpp"
#include "locator.hpp"

namespace dmap::detail {

/// One array's local storage: a buffer holding this locale's blocks, exposed to RMA.
template <class T, std::size_t N>
class array_storage final : public array_hook<N> {
 public:
  array_storage(std::shared_ptr<domain_state<N>> dom, const T& value) : dom_(std::move(dom)) {
    allocate(value);
    dom_->arrays.push_back(this);
  }
  array_storage(const array_storage&) = delete;
  array_storage& operator=(const array_storage&) = delete;
  ~array_storage() override {
    auto& a = dom_->arrays;
    a.erase(std::remove(a.begin(), a.end(), this), a.end());
  }

  void reallocate(const locator<N>& before, const locator<N>& after) override {
    std::unique_ptr<T[]> old = std::move(buffer_);
    window_ = rma_window{};
    allocate(T{});
    transfer(before, old.get(), after, buffer_.get());
    window_ = rma_window(buffer_.get(), static_cast<std::size_t>(count_) * sizeof(T), sizeof(T));
  }

  const std::shared_ptr<domain_state<N>>& dom() const noexcept { return dom_; }
  T* data() const noexcept { return buffer_.get(); }
  index_t size() const noexcept { return count_; }
  const std::vector<local_block<T, N>>& blocks() const noexcept { return blocks_; }
  const rma_window& window() const noexcept { return window_; }
  void expose() {
    window_ = rma_window(buffer_.get(), static_cast<std::size_t>(count_) * sizeof(T), sizeof(T));
  }

 private:
  // Allocates this locale's blocks and writes `value` into every element: the owned ones
  // chunk by chunk on the threads later loops over the domain use (first touch), then any
  // extra storage (ghost cells, copies of other locales' indices).
  void allocate(const T& value) {
    count_ = dom_->storage_size;
    buffer_ = std::make_unique_for_overwrite<T[]>(static_cast<std::size_t>(count_));
    blocks_.clear();
    for (const auto& l : dom_->my_layouts) blocks_.push_back({l, buffer_.get()});
    T* base = buffer_.get();
    if (dom_->dense_storage) {
      // Later loops over arrays of this domain alone walk the storage in these runs.
      const auto runs = cut_storage(count_, num_threads());
      run_tasks(runs.size(), [&](std::size_t r) {
        for (index_t k = runs[r].first; k < runs[r].second; ++k) std::construct_at(base + k, value);
      });
      return;
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
      fill(undensify(dom_->whole, chunks[c].orders), blocks_[chunks[c].piece].layout);
    });
    for (std::size_t b = 0; b < owned.size(); ++b)
      for (const auto& slab : difference(blocks_[b].layout.indices, owned[b])) fill(slab, blocks_[b].layout);
    if (dom_->dir)
      for (std::size_t k = 0; k < dom_->dir->stored().size(); ++k)
        if (!dom_->dir->owns_stored(k)) std::construct_at(base + k, value);
  }

  std::shared_ptr<domain_state<N>> dom_;
  std::unique_ptr<T[]> buffer_;
  index_t count_ = 0;
  std::vector<local_block<T, N>> blocks_;
  rma_window window_;
};


}  // namespace dmap::detail
