// array<T, N>: elements of type T, one per index of a distributed domain. Each locale
// stores its indices where the domain's local layouts say; other locales' elements are
// reached by one-sided access (A[i]) or in bulk (fetch, dmap::view(A), operator<<).
#pragma once

#include <cstddef>
#include <memory>
#include <numeric>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "../runtime/precompiled.hpp"
#include "detail/access.hpp"
#include "detail/array.hpp"
#include "detail/array_storage.hpp"
#include "detail/assignment.hpp"
#include "detail/misuse.hpp"
#include "detail/same_on_all_locales.hpp"
#include "domain.hpp"
#include "element_ref.hpp"
#include "foreign_buffer.hpp"

namespace dmap {

template <transferable T, std::size_t N>
class array;
template <class T, std::size_t N, std::size_t M>
class array_view;

/// A distributed array: one T per index of a domain<N>. A value type: creating, copying and
/// assigning are collective and assignment always copies elements (it never rebinds the
/// array to another domain; `swap` does that). T must be trivially copyable (concept
/// dmap::transferable: elements travel between locales as bytes).
template <transferable T, std::size_t N>
class array {
 public:
  /// The element type.
  using value_type = T;
  /// The number of dimensions.
  static constexpr std::size_t rank = N;

  /// Collective: an array over `d`, every element value-initialised (and so is the implicit
  /// value).
  explicit array(const dmap::domain<N>& d) : array(d, T{}) {}
  /// Collective: an array over `d`, every element set to `value`, which is also the implicit
  /// value: indices a later `set_indices` adds start with it.
  array(const dmap::domain<N>& d, const T& value);
  /// Collective: an array over `d` whose elements are the ones already in `buffer` (this
  /// locale's part, laid out as `d.local_layouts()` say): nothing is copied, written or sent.
  /// The array uses the buffer until it is destroyed or `d` changes its index set (then its
  /// elements move to storage dmap allocates; see adopted()). Throws argument_error on every
  /// locale when some locale's buffer is too small, null, misaligned or strided otherwise
  /// than the local layouts.
  array(const dmap::domain<N>& d, const foreign_buffer<T, N>& buffer);
  /// Collective: a copy over the same domain (elements and implicit value).
  array(const array& other);
  /// Takes over `other`'s domain and elements (no communication); `other` is left empty:
  /// only assigning to it or destroying it is allowed afterwards.
  array(array&&) noexcept = default;
  /// Collective: copies the elements of `other`, which must have the same shape (any
  /// distribution, any index set: the k-th index in row-major order takes the k-th value).
  /// Elements move in one message per pair of locales that share some; the plan is kept
  /// and reused while neither domain changes (plan_statistics() counts it).
  array& operator=(const array& other);
  /// Collective: copies the elements of a view of the same shape (see operator=(const array&)).
  template <class U, std::size_t M>
    requires std::is_same_v<std::remove_const_t<U>, T>
  array& operator=(const array_view<U, N, M>& other);
  /// Collective: copies the elements of `other`, exactly like the copy assignment (the array
  /// stays over its own domain). An empty (moved-from) array takes over `other`'s domain
  /// and elements instead, so std::swap and containers work.
  array& operator=(array&& other);
  /// Assignment from a sparse or associative array does not compile: it says which rule the
  /// call breaks.
  template <class Other>
    requires requires { typename std::remove_cvref_t<Other>::own_loops; }
  array& operator=(const Other&) {
    static_assert(detail::misuse<Other>,
                  "dmap::array::operator=: assignment copies values between arrays of one kind (dense to dense, "
                  "sparse to sparse, associative to associative); copy a sparse array's values into a dense one with "
                  "a loop it leads: forall(zip(S, D), ...)");
    return *this;
  }
  /// Exchanges the domains and elements of two arrays (no communication): the explicit way
  /// to rebind an array to another domain.
  void swap(array& other) noexcept {
    std::swap(dom_, other.dom_);
    std::swap(st_, other.st_);
  }
  /// See swap().
  friend void swap(array& a, array& b) noexcept { a.swap(b); }

  /// The domain the array is declared over.
  const dmap::domain<N>& domain() const noexcept { return dom_; }
  /// The implicit value: what every index the domain's `set_indices` adds starts with (the
  /// value given at construction, T{} by default or for an adopted buffer).
  const T& implicit_value() const { return checked_live("dmap::array::implicit_value").st_->implicit(); }
  /// Collective: changes the implicit value (elements keep theirs). Every locale must pass
  /// the same value: argument_error on every locale otherwise (values with padding bytes,
  /// which cannot be compared, take locale 0's).
  void set_implicit_value(const T& value);
  /// This locale's storage: (layout, pointer) per owned rect, in the order of
  /// `domain().local_subdomains()`; a layout may hold more than its rect (ghost cells).
  const std::vector<local_block<T, N>>& local_blocks() const {
    return checked_live("dmap::array::local_blocks").st_->blocks();
  }
  /// The number of elements this locale stores.
  index_t local_size() const { return checked_live("dmap::array::local_size").st_->size(); }
  /// This locale's whole buffer of local_size() elements (owned elements, ghost cells,
  /// copies of other locales' elements).
  T* local_data() const { return checked_live("dmap::array::local_data").st_->data(); }

  /// True while the elements live in a buffer the array adopted (see the constructor taking
  /// a foreign_buffer): until the domain changes its index set.
  bool adopted() const { return checked_live("dmap::array::adopted").st_->adopted(); }
  /// True when the elements live in node-shared memory (see dmap::set_node_transfers): the
  /// other locales of this node copy into and read from them directly.
  bool node_shared() const { return checked_live("dmap::array::node_shared").st_->segment() != nullptr; }

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
  element_ref<T> operator[](const idx<N>& i);
  /// The value of any index `i`.
  T operator[](const idx<N>& i) const { return const_cast<array&>(*this)[i]; }

  /// Fetches the elements at global row-major orders [first, first + count) into `out`:
  /// one message per remote locale holding some of them. Not collective. Throws
  /// argument_error when count < 0 and out_of_bounds_error when the orders reach outside
  /// [0, domain().size()).
  void fetch(index_t first, index_t count, T* out) const;
  /// Fetches the elements at the global row-major `orders` into out[0], out[1], ...: one
  /// message per remote locale holding some of them. Not collective. Throws
  /// out_of_bounds_error when an order lies outside [0, domain().size()).
  void fetch(const std::vector<index_t>& orders, T* out) const;

  /// Collective: every element, in row-major order, on locale 0 (empty elsewhere).
  [[nodiscard]] std::vector<T> gather() const;

  /// Writes the array like Chapel (rows on lines, planes separated by blank lines) on the
  /// calling locale, which reads the other locales' elements one-sidedly in batches. Not
  /// collective: `if (dmap::here() == 0) std::cout << A;` prints once.
  friend std::ostream& operator<<(std::ostream& os, const array& a) {
    a.checked_live("dmap::array::operator<<");
    return detail::write_elements<T, N>(
        os, a.domain().shape(), [&a](index_t first, index_t count, T* out) { a.fetch(first, count, out); });
  }

 private:
  friend struct detail::access;
  // This array as one side of an assignment.
  detail::placed_elements<T, N> placed_elements_of() const;
  // The fingerprint of an initial or fill value every locale must agree on: the element size,
  // and the value unless the map keeps copies (each locale's copy of a Replicated array is its
  // own to fill).
  static std::uint64_t value_fingerprint(const dmap::domain<N>& d, const T& value);
  // Collective: the storage of a new array over `d` with implicit value `value`, after one
  // agreement on the arguments (the domain is not moved from, the value and the element type
  // are the same everywhere) that also decides node-shared storage: every locale's part must
  // fit. A failure to allocate on any locale is thrown on every locale. `who` names the call.
  static std::unique_ptr<detail::array_storage<T, N>> made_storage(const dmap::domain<N>& d, const T& value,
                                                                 const char* who);
  // Collective companion of assign_elements for an operand moved from on this locale only:
  // joins the agreement the other locales make first there, which throws everywhere.
  void refuse_if_moved_from(const array* other) const;
  // The collective serial number of the array (0 when moved from).
  std::uint64_t serial() const noexcept { return st_ ? st_->serial : 0; }
  // The node-shared memory holding the elements, or null.
  const detail::node_segment* node_segment() const noexcept { return st_ ? st_->segment() : nullptr; }
  // Throws argument_error when the array was moved from (it has no domain any more).
  const array& checked_live(const char* who) const {
    if (!st_)
      throw argument_error(std::string(who) + ": the array was moved from; it has no domain or elements until "
                           "another array is moved into it");
    return *this;
  }
  // fetch() of orders already checked.
  void fetch_checked(const std::vector<index_t>& orders, T* out) const;
  T* find_local(const idx<N>& i) const {
#ifndef DMAP_NO_CHECKS
    checked_live("dmap::array::local");
#endif
    if (const auto& dir = detail::state_of(dom_)->dir) {
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
  [[noreturn]] void not_local(const idx<N>& i) const;
  void check_bounds(const idx<N>& i) const;
  std::pair<int, index_t> remote_offset(const idx<N>& i) const;

  dmap::domain<N> dom_;
  std::unique_ptr<detail::array_storage<T, N>> st_;
};

template <transferable T, std::size_t N>
array<T, N>::array(const dmap::domain<N>& d, const T& value) : dom_(d), st_(made_storage(d, value, "dmap::array")) {
  const detail::collective_scope scope;
  st_->serial = detail::env().new_serial();
  st_->expose();
}

template <transferable T, std::size_t N>
array<T, N>::array(const dmap::domain<N>& d, const foreign_buffer<T, N>& buffer)
    : dom_(d), st_(agreed({"dmap::array (adopting)", detail::fingerprint().add(sizeof(T)).add(std::string_view(typeid(T).name())).value(),
                           [] { return std::string("an array of ") + typeid(T).name() + " over a foreign buffer"; }},
                          [&] {
        const auto& st = detail::state_of(d);
        if (!st) throw argument_error("dmap::array (adopting): the domain was moved from; an array needs a domain with indices");
        detail::check_foreign_buffer(*st, buffer, "dmap::array (adopting)");
        return std::make_unique<detail::array_storage<T, N>>(st, buffer.data);
      })) {
  const detail::collective_scope scope;
  st_->serial = detail::env().new_serial();
  st_->expose();
}

template <transferable T, std::size_t N>
array<T, N>::array(const array& other)
    : dom_(other.dom_), st_(made_storage(other.dom_, other.st_ ? other.st_->implicit() : T{}, "dmap::array (copy)")) {
  const detail::collective_scope scope;
  st_->serial = detail::env().new_serial();
  st_->expose();
  *this = other;
}

template <transferable T, std::size_t N>
auto array<T, N>::operator=(const array& other) -> array& {
  if (this == &other) return *this;
  refuse_if_moved_from(&other);
  detail::assign_elements<T, N>(other.placed_elements_of(), placed_elements_of(), "dmap::array::operator=");
  return *this;
}

template <transferable T, std::size_t N>
auto array<T, N>::operator=(array&& other) -> array& {
  if (this == &other) return *this;
  if (!st_) {
    other.checked_live("dmap::array::operator= (right-hand side)");
    dom_ = std::move(other.dom_);
    st_ = std::move(other.st_);
    return *this;
  }
  return *this = static_cast<const array&>(other);
}

template <transferable T, std::size_t N>
void array<T, N>::set_implicit_value(const T& value) {
  agreed([&] { checked_live("dmap::array::set_implicit_value"); });
  st_->set_implicit(detail::same_value_on_all_locales("dmap::array::set_implicit_value", value));
}

template <transferable T, std::size_t N>
auto array<T, N>::operator[](const idx<N>& i) -> element_ref<T> {
  checked_live("dmap::array::operator[]");
  if (const auto& dir = detail::state_of(dom_)->dir) {
    check_bounds(i);
    const index_t o = domain().indices().order_of(i);
    const auto stored = dir->find_stored(o);
    if (stored && stored->second) {
      T* here_elem = st_->data() + stored->first;
      return element_ref<T>(here_elem, here_elem, nullptr, here(), 0);
    }
    const detail::location l = dir->lookup(o);
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

template <transferable T, std::size_t N>
void array<T, N>::fetch(index_t first, index_t count, T* out) const {
  detail::check_position_run("dmap::array::fetch", first, count, checked_live("dmap::array::fetch").dom_.size());
  std::vector<index_t> orders(static_cast<std::size_t>(count));
  std::iota(orders.begin(), orders.end(), first);
  fetch_checked(orders, out);
}

template <transferable T, std::size_t N>
void array<T, N>::fetch(const std::vector<index_t>& orders, T* out) const {
  detail::check_positions("dmap::array::fetch", orders, checked_live("dmap::array::fetch").dom_.size());
  fetch_checked(orders, out);
}

template <transferable T, std::size_t N>
auto array<T, N>::gather() const -> std::vector<T> {
  checked_live("dmap::array::gather");
  return detail::gather_to_root(detail::state_of(domain())->locate(), st_->data());
}

template <transferable T, std::size_t N>
auto array<T, N>::placed_elements_of() const -> detail::placed_elements<T, N> {
  const auto& s = detail::state_of(domain());
  return {detail::key_of(s), [s] { return s->locate(); }, s->whole, st_->data(), st_->size(),
          &s->caches.template get<detail::assignment_plans<N>>(), st_->segment(), st_->serial};
}

template <transferable T, std::size_t N>
std::uint64_t array<T, N>::value_fingerprint(const dmap::domain<N>& d, const T& value) {
  detail::fingerprint f;
  f.add(sizeof(T)).add(std::string_view(typeid(T).name()));
  if (const auto& s = detail::state_of(d); !s || !s->layers) f.add_value(value);
  return f.value();
}

template <transferable T, std::size_t N>
auto array<T, N>::made_storage(const dmap::domain<N>& d, const T& value,
                                                               const char* who) -> std::unique_ptr<detail::array_storage<T, N>> {
  const auto& st = detail::state_of(d);
  detail::node_storage_ask ask;
  const std::exception_ptr failure = detail::exception_of([&] {
    if (!st)
      throw argument_error(std::string(who) + ": the domain (or the copied array) was moved from; an array needs "
                           "a domain with indices");
    ask = detail::node_storage_asked<T>(*st);
  });
  const std::uint64_t does_not_fit = 1;
  const std::uint64_t bits = agree(failure,
                                   {who, value_fingerprint(d, value),
                                    [] {
                                      return std::string("an array of ") + typeid(T).name() + " (" +
                                             std::to_string(sizeof(T)) + " bytes) and its initial value";
                                    }},
                                   ask.may && !ask.fits ? does_not_fit : 0);
  const bool shared = ask.may && !(bits & does_not_fit);
  return agreed([&] { return std::make_unique<detail::array_storage<T, N>>(st, value, shared); });
}

template <transferable T, std::size_t N>
void array<T, N>::refuse_if_moved_from(const array* other) const {
  const std::exception_ptr failure = detail::exception_of([&] {
    checked_live("dmap::array::operator= (left-hand side)");
    if (other != nullptr) other->checked_live("dmap::array::operator= (right-hand side)");
  });
  if (failure) {
    const detail::collective_scope scope;
    agree(failure);
  }
}

template <transferable T, std::size_t N>
void array<T, N>::fetch_checked(const std::vector<index_t>& orders, T* out) const {
  const auto& st = *detail::state_of(dom_);
  const auto count = static_cast<index_t>(orders.size());
  std::vector<detail::location> where(orders.size());
  if (st.dir) {
    where = st.dir->lookup(orders);
  } else {
    for (index_t k = 0; k < count; ++k) {
      const idx<N> i = st.whole.index_at(orders[static_cast<std::size_t>(k)]);
      const int owner = st.model->locale_of(i);
      for (const auto& b : *st.blocks_of(owner))
        if (b.owned.contains(i)) {
          where[static_cast<std::size_t>(k)] = {b.layout.offset_of(i), owner, 1};
          break;
        }
    }
  }
  std::vector<std::vector<detail::element_run>> runs(static_cast<std::size_t>(num_locales()));
  std::vector<std::vector<index_t>> slots(runs.size());
  for (index_t k = 0; k < count; ++k) {
    const detail::location& l = where[static_cast<std::size_t>(k)];
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

template <transferable T, std::size_t N>
[[noreturn]] void array<T, N>::not_local(const idx<N>& i) const {
  std::ostringstream s;
  s << "dmap::array::local: index " << i << " is not owned by locale " << here();
  if (domain().contains(i)) s << " (its owner is locale " << domain().locale_of(i) << ")";
  else s << " (it is not in the domain " << domain().indices() << ")";
  throw not_local_error(s.str());
}

template <transferable T, std::size_t N>
void array<T, N>::check_bounds(const idx<N>& i) const {
  if (domain().contains(i)) return;
  std::ostringstream s;
  s << "dmap::array::operator[]: index " << i << " is not in the domain " << domain().indices();
  throw out_of_bounds_error(s.str());
}

template <transferable T, std::size_t N>
auto array<T, N>::remote_offset(const idx<N>& i) const -> std::pair<int, index_t> {
  const int owner = detail::state_of(dom_)->model->locale_of(i);
  for (const auto& b : *detail::state_of(dom_)->blocks_of(owner))
    if (b.owned.contains(i)) return {owner, b.layout.offset_of(i)};
  throw runtime_error("dmap::array: the distribution says locale " + std::to_string(owner) +
                      " owns an index that none of its layouts holds");
}


/// Deduces `array<T, N>` from a domain and a value.
template <class T, std::size_t N>
array(const domain<N>&, const T&) -> array<T, N>;
/// Deduces `array<T, N>` from a domain and a foreign buffer.
template <class T, std::size_t N>
array(const domain<N>&, const foreign_buffer<T, N>&) -> array<T, N>;

#define DMAP_ARRAY_ELEMENT_INSTANCES(T, N, how) how class array<T, N>;
/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_ARRAY_INSTANCES(N, how) DMAP_PRECOMPILED_ELEMENTS(DMAP_ARRAY_ELEMENT_INSTANCES, N, how)
DMAP_DECLARE_PRECOMPILED(DMAP_ARRAY_INSTANCES)

static_assert(array_descriptor<array<double, 2>, 2>, "dmap::array must model the DSI array concept");
static_assert(local_array_descriptor<detail::array_storage<double, 2>, double, 2>,
              "dmap's local storage must model the DSI local array concept");

}  // namespace dmap

#include "array_view.hpp"  // the views array::operator[](rect) makes
