// array<T, N>: elements of type T, one per index of a distributed domain. Each locale
// stores the indices it owns densely (layouts/); other locales' elements are reached by
// one-sided access (A[i]) or in bulk (dmap::view(A), operator<<).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../runtime/tasks.hpp"
#include "../runtime/window.hpp"
#include "assignment.hpp"
#include "chunks.hpp"
#include "domain.hpp"

namespace dmap {

template <class T, std::size_t N>
class array;
template <class T, std::size_t N, std::size_t M>
class array_view;

namespace detail {

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

/// A reference to one element of a distributed array, local or remote. Reads come from
/// this locale's storage when it holds the index (owned or ghost copy), else from the owner;
/// writes go to the owner. Remote reads and writes are one message each.
template <class T>
class element_ref {
 public:
  element_ref(const T* read, T* write, const rma_window* window, int owner, index_t offset) noexcept
      : read_(read), write_(write), window_(window), owner_(owner), offset_(offset) {}
  /// The element's value.
  operator T() const {
    if (read_) return *read_;
    T value;
    window_->get(owner_, offset_, &value);
    return value;
  }
  /// Stores `value` in the element.
  element_ref& operator=(const T& value) {
    if (write_) *write_ = value;
    else window_->put(owner_, offset_, &value);
    return *this;
  }
  /// Copies another element's value.
  element_ref& operator=(const element_ref& other) { return *this = static_cast<T>(other); }
  /// Read-modify-write: a read and a write (two messages when remote; not atomic).
  element_ref& operator+=(const T& v) { return *this = static_cast<T>(*this) + v; }
  element_ref& operator-=(const T& v) { return *this = static_cast<T>(*this) - v; }
  element_ref& operator*=(const T& v) { return *this = static_cast<T>(*this) * v; }
  element_ref& operator/=(const T& v) { return *this = static_cast<T>(*this) / v; }

 private:
  const T* read_;
  T* write_;
  const rma_window* window_;
  int owner_;
  index_t offset_;
};

/// A distributed array: one T per index of a domain<N>. Creating, copying, assigning and
/// printing are collective. T must be trivially copyable (elements travel as bytes).
template <class T, std::size_t N>
class array {
  static_assert(std::is_trivially_copyable_v<T>,
                "dmap::array<T, N>: T must be trivially copyable (elements travel between "
                "locales as bytes)");

 public:
  using value_type = T;
  static constexpr std::size_t rank = N;

  /// Collective: an array over `d`, every element value-initialised.
  explicit array(const dmap::domain<N>& d) : array(d, T{}) {}
  /// Collective: an array over `d`, every element set to `value`.
  array(const dmap::domain<N>& d, const T& value)
      : dom_(d), st_(std::make_unique<detail::array_storage<T, N>>(d.state(), value)) {
    st_->expose();
  }
  /// Collective: a copy over the same domain.
  array(const array& other) : array(other.dom_, T{}) { *this = other; }
  array(array&&) noexcept = default;
  /// Collective: copies the elements of `other`, which must have the same shape (any
  /// distribution, any index set: the k-th index in row-major order takes the k-th value).
  /// Elements move in one message per pair of locales that share some; the plan is kept
  /// and reused while neither domain changes (plan_statistics() counts it).
  array& operator=(const array& other) {
    if (this == &other) return *this;
    detail::check_assignment_shapes(other.domain().indices(), domain().indices(), "dmap::array::operator=");
    detail::assign_elements<T, N>(other.placed_elements_of(), placed_elements_of());
    return *this;
  }
  /// Collective: copies the elements of a view of the same shape (see operator=(const array&)).
  template <class U, std::size_t M>
    requires std::is_same_v<std::remove_const_t<U>, T>
  array& operator=(const array_view<U, N, M>& other);
  array& operator=(array&&) noexcept = default;

  /// The domain the array is declared over.
  const dmap::domain<N>& domain() const noexcept { return dom_; }
  /// This locale's storage: (layout, pointer) per owned rect, in the order of
  /// `domain().local_subdomains()`; a layout may hold more than its rect (ghost cells).
  const std::vector<local_block<T, N>>& local_blocks() const noexcept { return st_->blocks(); }
  /// The number of elements this locale stores.
  index_t local_size() const noexcept { return st_->size(); }
  /// This locale's whole buffer of local_size() elements (owned elements, ghost cells,
  /// copies of other locales' elements).
  T* local_data() const noexcept { return st_->data(); }

  /// The view of the indices `r` (a subset of the domain's, any strides; Chapel's `A[r]`):
  /// reads and writes reach this array. Throws out_of_bounds_error when r is not inside.
  array_view<T, N, N> operator[](const rect<N>& r);
  /// The read-only view of the indices `r`.
  array_view<const T, N, N> operator[](const rect<N>& r) const;

  /// The element of `i`, which this locale must own (Chapel's dsiLocalAccess). Throws
  /// not_local_error otherwise, unless DMAP_NO_CHECKS is defined.
  T& local(const idx<N>& i) { return *find_local(i); }
  /// The element of `i`, which this locale must own.
  const T& local(const idx<N>& i) const { return *find_local(i); }

  /// The element of any index `i` (Chapel's dsiAccess): local elements directly, remote
  /// ones by one-sided access (one message per read or write). Ghost copies held here are
  /// read locally (they are as fresh as the last halo update); writes go to the owner.
  /// Not collective.
  element_ref<T> operator[](const idx<N>& i) {
    if (const auto& dir = dom_.state()->dir) {
      check_bounds(i);
      const index_t o = domain().indices().order_of(i);
      const auto stored = dir->find_stored(o);
      if (stored && stored->second) {
        T* here_elem = st_->data() + stored->first;
        return element_ref<T>(here_elem, here_elem, nullptr, here(), 0);
      }
      const location l = dir->lookup(o);
      return element_ref<T>(stored ? st_->data() + stored->first : nullptr, nullptr, &st_->window(), l.locale,
                            l.offset);
    }
    const auto& owned = dom_.local_subdomains();
    const auto& blocks = st_->blocks();
    T* stored = nullptr;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      if (owned[b].contains(i)) return element_ref<T>(&blocks[b](i), &blocks[b](i), nullptr, here(), 0);
      if (!stored && blocks[b].layout.indices.contains(i)) stored = &blocks[b](i);
    }
    // A locally stored index outside the domain is a boundary cell of this locale (DAP
    // boundary padding, or a periodic image): read and written here.
    if (stored && !domain().contains(i)) return element_ref<T>(stored, stored, nullptr, here(), 0);
    check_bounds(i);
    const auto [owner, offset] = remote_offset(i);
    return element_ref<T>(stored, nullptr, &st_->window(), owner, offset);
  }
  /// The value of any index `i`.
  T operator[](const idx<N>& i) const { return const_cast<array&>(*this)[i]; }

  /// Fetches the elements at global row-major orders [first, first + count) into `out`:
  /// one message per remote locale holding some of them. Not collective.
  void fetch(index_t first, index_t count, T* out) const {
    std::vector<index_t> orders(static_cast<std::size_t>(count));
    for (index_t k = 0; k < count; ++k) orders[static_cast<std::size_t>(k)] = first + k;
    fetch(orders, out);
  }
  /// Fetches the elements at the global row-major `orders` into out[0], out[1], ...: one
  /// message per remote locale holding some of them. Not collective.
  void fetch(const std::vector<index_t>& orders, T* out) const {
    const auto& st = *dom_.state();
    const auto count = static_cast<index_t>(orders.size());
    std::vector<location> where(orders.size());
    if (st.dir) {
      where = st.dir->lookup(orders);
    } else {
      for (index_t k = 0; k < count; ++k) {
        const idx<N> i = st.whole.index_at(orders[static_cast<std::size_t>(k)]);
        const int owner = st.model->locale_of(i);
        for (const auto& b : st.blocks_of_all()[static_cast<std::size_t>(owner)])
          if (b.owned.contains(i)) {
            where[static_cast<std::size_t>(k)] = {b.layout.offset_of(i), owner, 1};
            break;
          }
      }
    }
    std::vector<std::vector<element_run>> runs(static_cast<std::size_t>(num_locales()));
    std::vector<std::vector<index_t>> slots(runs.size());
    for (index_t k = 0; k < count; ++k) {
      const location& l = where[static_cast<std::size_t>(k)];
      if (l.locale == here()) {
        out[k] = st_->data()[l.offset];
        continue;
      }
      auto& r = runs[static_cast<std::size_t>(l.locale)];
      if (!r.empty() && r.back().first + r.back().count == l.offset) ++r.back().count;
      else r.push_back({l.offset, 1});
      slots[static_cast<std::size_t>(l.locale)].push_back(k);
    }
    std::vector<T> incoming;
    for (std::size_t q = 0; q < runs.size(); ++q) {
      if (runs[q].empty()) continue;
      incoming.resize(slots[q].size());
      st_->window().get(static_cast<int>(q), runs[q], incoming.data());
      for (std::size_t j = 0; j < slots[q].size(); ++j) out[slots[q][j]] = incoming[j];
    }
  }

  /// Collective: every element, in row-major order, on locale 0 (empty elsewhere).
  std::vector<T> gather() const { return detail::gather_to_root(domain().state()->locate(), st_->data()); }

  /// Collective; locale 0 writes the array like Chapel (rows on lines, planes separated
  /// by blank lines), other locales write nothing.
  friend std::ostream& operator<<(std::ostream& os, const array& a) {
    return detail::write_elements(os, a.gather(), a.domain().shape());
  }

  /// This array as one side of an assignment (internal).
  detail::placed_elements<T, N> placed_elements_of() const {
    const auto& s = domain().state();
    return {detail::key_of(s), [s] { return s->locate(); }, s->whole, st_->data(), st_->size(), &s->assignment_plans};
  }

 private:
  T* find_local(const idx<N>& i) const {
    if (const auto& dir = dom_.state()->dir) {
      const index_t o = domain().indices().order_of(i);
      if (const auto stored = o < 0 ? std::nullopt : dir->find_stored(o); stored && stored->second)
        return st_->data() + stored->first;
      not_local(i);
    }
    const auto& blocks = st_->blocks();
#ifdef DMAP_NO_CHECKS
    if (blocks.size() == 1) return &blocks.front()(i);
#endif
    const auto& owned = dom_.local_subdomains();
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (owned[b].contains(i)) return &blocks[b](i);
    not_local(i);
  }
  [[noreturn]] void not_local(const idx<N>& i) const {
    std::ostringstream s;
    s << "dmap::array::local: index " << i << " is not owned by locale " << here();
    if (domain().contains(i)) s << " (its owner is locale " << domain().locale_of(i) << ")";
    else s << " (it is not in the domain " << domain().indices() << ")";
    throw not_local_error(s.str());
  }
  void check_bounds(const idx<N>& i) const {
    if (domain().contains(i)) return;
    std::ostringstream s;
    s << "dmap::array::operator[]: index " << i << " is not in the domain " << domain().indices();
    throw out_of_bounds_error(s.str());
  }
  std::pair<int, index_t> remote_offset(const idx<N>& i) const {
    const int owner = dom_.state()->model->locale_of(i);
    for (const auto& b : dom_.state()->blocks_of_all()[static_cast<std::size_t>(owner)])
      if (b.owned.contains(i)) return {owner, b.layout.offset_of(i)};
    throw runtime_error("dmap::array: the distribution says locale " + std::to_string(owner) +
                        " owns an index that none of its layouts holds");
  }

  dmap::domain<N> dom_;
  std::unique_ptr<detail::array_storage<T, N>> st_;
};

/// Deduces `array<T, N>` from a domain and a value.
template <class T, std::size_t N>
array(const domain<N>&, const T&) -> array<T, N>;

static_assert(array_descriptor<array<double, 2>, 2>, "dmap::array must model the DSI array concept");
static_assert(local_array_descriptor<detail::array_storage<double, 2>, double, 2>,
              "dmap's local storage must model the DSI local array concept");

}  // namespace dmap

#include "array_view.hpp"  // the views array::operator[](rect) makes
