// sparse_array<T, N>: values over a sparse domain, with an implicit value for the indices
// of the parent that are not in the set (Chapel's IRV). Each locale keeps the values of its
// indices contiguously, in the domain's position order, exposed to one-sided access so that
// any locale reads (and writes present) elements alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <queue>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"
#include "../runtime/detail/messages.hpp"
#include "../runtime/detail/window.hpp"
#include "detail/misuse.hpp"
#include "detail/pack_by_locale.hpp"
#include "detail/same_on_all_locales.hpp"
#include "sparse_domain.hpp"

namespace dmap {

/// What `A[i]` gives on a sparse array: a reference to the element of index `i` of the
/// parent, wherever it lives. Reading gives the stored value, or the implicit value when `i`
/// is not in the set; writing stores into a present index (locally, or one-sidedly at its
/// owner: one message) and is an out_of_bounds_error naming `i` for an absent one.
template <class T, std::size_t N>
class sparse_ref {
 public:
  /// The value (one message when the element is on another locale).
  operator T() const {
    if (local_) return *local_;
    if (position_ < 0) return implicit_;
    T value;
    window_->get(owner_, position_, &value);
    return value;
  }
  /// Stores `value`; out_of_bounds_error when the index is not in the set.
  sparse_ref& operator=(const T& value) {
    if (local_) {
      *local_ = value;
    } else if (position_ >= 0) {
      window_->put(owner_, position_, &value);
    } else {
      std::ostringstream m;
      m << "dmap::sparse_array::operator[]: index " << index_ << " is not in the sparse domain; an absent index reads "
        << "as the implicit value and cannot be written (add it to the domain first)";
      throw out_of_bounds_error(m.str());
    }
    return *this;
  }
  /// Copies another element's value.
  sparse_ref& operator=(const sparse_ref& other) { return *this = static_cast<T>(other); }
  /// Read-modify-write (a read and a write, two messages when remote; not atomic).
  sparse_ref& operator+=(const T& v) { return *this = static_cast<T>(*this) + v; }
  /// Read-modify-write subtraction, like operator+=.
  sparse_ref& operator-=(const T& v) { return *this = static_cast<T>(*this) - v; }
  /// Read-modify-write multiplication, like operator+=.
  sparse_ref& operator*=(const T& v) { return *this = static_cast<T>(*this) * v; }
  /// Read-modify-write division, like operator+=.
  sparse_ref& operator/=(const T& v) { return *this = static_cast<T>(*this) / v; }

  /// A reference to index `i`: at `local` when it is stored here, else at `position` of
  /// locale `owner` through `window` (position -1: absent, reads as `implicit`).
  sparse_ref(T* local, const detail::rma_window* window, int owner, index_t position, const T& implicit,
             const idx<N>& i) noexcept
      : local_(local), window_(window), owner_(owner), position_(position), implicit_(implicit), index_(i) {}

 private:
  T* local_;
  const detail::rma_window* window_;
  int owner_;
  index_t position_;
  T implicit_;
  idx<N> index_;
};

/// An array over a sparse domain: one value per index of the set, and the implicit value
/// (`implicit_value()`) for every other index of the parent. Values follow the set as it
/// changes: present indices keep theirs, added ones start at the implicit value. `A[i]`
/// reads any index of the parent from any locale (absent ones give the implicit value) and
/// writes present ones; writing an absent index is an out_of_bounds_error naming it.
///
/// A value type like dmap::array: creating, copying, assigning and destroying are
/// collective, assignment copies values (between arrays over different sparse domains that
/// hold the same indices too: by index, one message per peer) and never rebinds; `swap`
/// rebinds. Collective: `get`, `set`, loops.
template <transferable T, std::size_t N>
class sparse_array {
 public:
  /// Loops over sparse arrays are dmap::forall / reduce overloads of their own.
  using own_loops = void;
  /// The element type.
  using value_type = T;
  /// The number of dimensions.
  static constexpr std::size_t rank = N;

  /// Collective: an array over `d` whose every value, and the implicit value, is
  /// `implicit`. A moved-from domain is an argument_error on every locale.
  explicit sparse_array(const sparse_domain<N>& d, const T& implicit = T{})
      : dom_(d), values_(agreed([&] {
          auto v = std::make_unique<values>(dom_.live("dmap::sparse_array"), implicit);
          v->current.assign(static_cast<std::size_t>(v->owner->local_size()), implicit);
          return v;
        })) {
    const detail::collective_scope scope;
    values_->expose();
  }
  /// Collective: a copy of `other` (values and implicit value) over the same domain.
  sparse_array(const sparse_array& other)
      : dom_(other.dom_), values_(agreed([&] {
          const values& o = other.live("dmap::sparse_array (copy)");
          auto v = std::make_unique<values>(*o.owner, o.implicit);
          v->current = o.current;
          return v;
        })) {
    const detail::collective_scope scope;
    values_->expose();
  }
  /// Takes over `other`'s domain and values (no communication); `other` may then only be
  /// assigned to or destroyed.
  sparse_array(sparse_array&&) noexcept = default;
  /// Collective: copies the values of `other` (the implicit value stays this array's). Over
  /// the same sparse domain, locally after one agreement; over another sparse domain that
  /// holds the same indices (any parent map, any layout), each value travels to its index's
  /// owner here, one message per peer. Domains holding different indices are a shape_error
  /// on every locale (as dense arrays of different shapes are), and then nothing changes; a
  /// moved-from operand on any locale is an argument_error on every locale.
  sparse_array& operator=(const sparse_array& other) {
    if (this != &other) assign(other);
    return *this;
  }
  /// Collective: copies the values of `other`, exactly like the copy assignment (the array
  /// keeps its domain). A moved-from array takes over `other`'s domain and values instead.
  sparse_array& operator=(sparse_array&& other) {
    if (this == &other) return *this;
    if (!values_) {
      other.live("dmap::sparse_array::operator= (right-hand side)");
      dom_ = std::move(other.dom_);
      values_ = std::move(other.values_);
      return *this;
    }
    return *this = static_cast<const sparse_array&>(other);
  }
  /// Assignment from a dense or associative array does not compile: it says which rule the
  /// call breaks.
  template <class Other>
    requires(!std::is_same_v<std::remove_cvref_t<Other>, sparse_array> &&
             requires { typename std::remove_cvref_t<Other>::value_type; })
  sparse_array& operator=(const Other&) {
    static_assert(detail::misuse<Other>,
                  "dmap::sparse_array::operator=: assignment copies values between arrays of one kind (dense to "
                  "dense, sparse to sparse, associative to associative); copy a dense array's values into a sparse "
                  "one with a loop it leads: forall(zip(S, D), ...)");
    return *this;
  }
  /// Exchanges the domains and values of two arrays (no communication): the explicit way to
  /// rebind an array to another sparse domain.
  void swap(sparse_array& other) noexcept {
    std::swap(dom_, other.dom_);
    std::swap(values_, other.values_);
  }
  /// See swap().
  friend void swap(sparse_array& a, sparse_array& b) noexcept { a.swap(b); }

  /// The sparse domain the array is declared over.
  const sparse_domain<N>& domain() const noexcept { return dom_; }
  /// The implicit value: what every index of the parent outside the set reads as, and what
  /// indices added to the set start with.
  const T& implicit_value() const { return live("dmap::sparse_array::implicit_value").implicit; }
  /// Collective: changes the implicit value (stored values keep theirs). Every locale must
  /// pass the same value: argument_error on every locale otherwise (values with padding
  /// bytes, which cannot be compared, take locale 0's).
  void set_implicit_value(const T& value) {
    const detail::collective_scope scope;
    auto& v = *agreed([&] { return &live("dmap::sparse_array::set_implicit_value"); });
    v.implicit = detail::same_value_on_all_locales("dmap::sparse_array::set_implicit_value", value);
  }
  /// The implicit value (the name before implicit_value; Chapel's IRV).
  [[deprecated("dmap::sparse_array::irv() is now implicit_value()")]] const T& irv() const { return implicit_value(); }
  /// Collective: set_implicit_value (the name before it).
  [[deprecated("dmap::sparse_array::set_irv(v) is now set_implicit_value(v), a collective call")]] void set_irv(
      const T& value) {
    set_implicit_value(value);
  }

  /// This locale's values, in the domain's position order.
  std::span<T> local_values() { return live("dmap::sparse_array::local_values").current; }
  /// This locale's values, in the domain's position order.
  std::span<const T> local_values() const { return live("dmap::sparse_array::local_values").current; }

  /// The element of any index `i` of the parent (Chapel's dsiAccess): read it (the value, or
  /// the implicit value when `i` is absent) or write it (a present index only: writing an
  /// absent one is an out_of_bounds_error naming it). Not collective: an index another
  /// locale owns is found in its owner's lookup table one-sidedly (see contains), then read
  /// or written in one more message. It sees what the owner wrote before the last
  /// synchronisation. Throws out_of_bounds_error outside the parent.
  sparse_ref<T, N> operator[](const idx<N>& i) {
    auto& v = live("dmap::sparse_array::operator[]");
    const auto [owner, p] = find("dmap::sparse_array::operator[]", v, i);
    if (owner == here()) return {p < 0 ? nullptr : &v.current[static_cast<std::size_t>(p)], nullptr, owner, p, v.implicit, i};
    return {nullptr, &v.window, owner, p, v.implicit, i};
  }
  /// The value of any index `i` of the parent (see operator[]): its value, or the implicit
  /// value when `i` is not in the set.
  T operator[](const idx<N>& i) const {
    const auto& v = live("dmap::sparse_array::operator[]");
    const auto [owner, p] = find("dmap::sparse_array::operator[]", v, i);
    if (p < 0) return v.implicit;
    if (owner == here()) return v.current[static_cast<std::size_t>(p)];
    T value;
    v.window.get(owner, p, &value);
    return value;
  }
  /// The element of `i`, an index in the set that this locale owns. Throws
  /// out_of_bounds_error when `i` is not in the set (absent indices read as the implicit
  /// value and cannot be written), not_local_error when another locale owns it.
  T& local(const idx<N>& i) {
    auto& v = live("dmap::sparse_array::local");
    const index_t p = dom_.local_position(i);
    if (p < 0) {
      std::ostringstream m;
      m << "dmap::sparse_array::local: index " << i << " is not in the sparse domain; an absent index reads as the "
        << "implicit value and cannot be written (add it to the domain first)";
      throw out_of_bounds_error(m.str());
    }
    return v.current[static_cast<std::size_t>(p)];
  }
  /// The value of `i`, an index of the parent this locale owns: its value when `i` is in the
  /// set, the implicit value otherwise. Throws out_of_bounds_error outside the parent and
  /// not_local_error when another locale owns `i`.
  const T& local(const idx<N>& i) const {
    const auto& v = live("dmap::sparse_array::local");
    const index_t p = dom_.local_position(i);
    return p < 0 ? v.implicit : v.current[static_cast<std::size_t>(p)];
  }

  /// Collective: the values of `indices` (each locale its own list, any owners), in the
  /// caller's order; absent indices give the implicit value. One message per peer each way.
  /// An index outside the parent is an out_of_bounds_error on every locale.
  std::vector<T> get(std::span<const idx<N>> indices) const {
    const char* who = "dmap::sparse_array::get";
    const auto p = static_cast<std::size_t>(num_locales());
    std::vector<std::vector<std::size_t>> asked(p);
    const detail::byte_buffers in =
        detail::exchange(sparse_domain<N>::route([&]() -> const auto& { return *live(who).owner; }, indices, asked, who));
    const auto& v = live(who);
    const auto& s = *v.owner;
    detail::byte_buffers answers = agreed([&] {
      detail::byte_buffers out(p);
      for (std::size_t q = 0; q < p; ++q) {
        const auto queries = detail::from_bytes<idx<N>>(in[q]);
        std::vector<T> a(queries.size());
        for (std::size_t k = 0; k < queries.size(); ++k) {
          const index_t at = sparse_domain<N>::routed_position(s, queries[k], static_cast<int>(q), who);
          a[k] = at < 0 ? v.implicit : v.current[static_cast<std::size_t>(at)];
        }
        out[q] = detail::to_bytes(a);
      }
      return out;
    });
    std::vector<std::size_t> expected(p);
    for (std::size_t q = 0; q < p; ++q) expected[q] = asked[q].size() * sizeof(T);
    const detail::byte_buffers back = detail::exchange_known_sizes(std::move(answers), expected);
    std::vector<T> result(indices.size());
    for (std::size_t q = 0; q < p; ++q) {
      const auto a = detail::from_bytes<T>(back[q]);
      for (std::size_t k = 0; k < asked[q].size(); ++k) result[asked[q][k]] = a[k];
    }
    return result;
  }
  /// Collective: get() of a braced list.
  std::vector<T> get(std::initializer_list<idx<N>> indices) const {
    return get(std::span<const idx<N>>(indices.begin(), indices.size()));
  }
  /// Collective: writes `values[k]` to `indices[k]` (each locale its own lists, any owners);
  /// one message per peer. Lists of different lengths are an argument_error, an index outside
  /// the parent or absent from the set an out_of_bounds_error naming it, on every locale;
  /// then nothing is written. When several locales write one index, the highest locale's
  /// last value wins.
  void set(std::span<const idx<N>> indices, std::span<const T> values_in) {
    const detail::collective_scope scope;
    const char* who = "dmap::sparse_array::set";
    auto& v = *agreed([&] {
      values* live_values = &live(who);
      if (indices.size() != values_in.size())
        throw argument_error("dmap::sparse_array::set: " + std::to_string(indices.size()) + " indices but " +
                             std::to_string(values_in.size()) + " values; give one value per index");
      return live_values;
    });
    const auto& s = *v.owner;
    std::vector<std::vector<std::size_t>> asked(static_cast<std::size_t>(num_locales()));
    detail::byte_buffers indices_in = detail::exchange(sparse_domain<N>::route([&]() -> const auto& { return s; }, indices, asked, who));
    detail::byte_buffers out(asked.size());
    for (std::size_t q = 0; q < asked.size(); ++q) {
      std::vector<T> vals;
      vals.reserve(asked[q].size());
      for (std::size_t k : asked[q]) vals.push_back(values_in[k]);
      out[q] = detail::to_bytes(vals);
    }
    detail::byte_buffers values_arrived = detail::exchange(std::move(out));
    std::vector<std::pair<index_t, T>> writes;
    agreed([&] {
      for (std::size_t q = 0; q < asked.size(); ++q) {
        const auto where = detail::from_bytes<idx<N>>(indices_in[q]);
        const auto what = detail::from_bytes<T>(values_arrived[q]);
        for (std::size_t k = 0; k < where.size(); ++k) {
          const index_t p = sparse_domain<N>::routed_position(s, where[k], static_cast<int>(q), who);
          if (p < 0) {
            std::ostringstream m;
            m << who << ": index " << where[k] << " is not in the sparse domain; absent indices "
              << "cannot be written (add them to the domain first)";
            throw out_of_bounds_error(m.str());
          }
          writes.emplace_back(p, what[k]);
        }
      }
    });
    for (const auto& [p, value] : writes) v.current[static_cast<std::size_t>(p)] = value;
  }
  /// Collective: set() with braced lists.
  void set(std::initializer_list<idx<N>> indices, std::initializer_list<T> values_in) {
    set(std::span<const idx<N>>(indices.begin(), indices.size()), std::span<const T>(values_in.begin(), values_in.size()));
  }

  /// Writes the values of the indices in the set, in the parent's row-major order of their
  /// indices, separated by spaces (as Chapel writes a sparse array), on the calling locale:
  /// it reads the other locales' lookup tables and values one-sidedly, in batches of 16,384
  /// indices (one message per batch and locale for the table, one for the values). Not
  /// collective: `if (dmap::here() == 0) std::cout << A;` prints once.
  friend std::ostream& operator<<(std::ostream& os, const sparse_array& a) {
    const auto& v = a.live("dmap::sparse_array::operator<<");
    constexpr std::size_t batch = 16384;
    std::vector<std::pair<int, index_t>> pending;  // (owner, position), in index order
    std::vector<T> got, remote;
    std::vector<std::vector<std::size_t>> by_owner(static_cast<std::size_t>(num_locales()));
    bool first = true;
    const auto flush = [&] {
      got.resize(pending.size());
      for (auto& b : by_owner) b.clear();
      for (std::size_t k = 0; k < pending.size(); ++k) by_owner[static_cast<std::size_t>(pending[k].first)].push_back(k);
      for (std::size_t q = 0; q < by_owner.size(); ++q) {
        const auto& ks = by_owner[q];
        if (ks.empty()) continue;
        if (static_cast<int>(q) == here()) {
          for (std::size_t k : ks) got[k] = v.current[static_cast<std::size_t>(pending[k].second)];
          continue;
        }
        std::vector<detail::element_run> runs;
        for (std::size_t k : ks) {
          const index_t p = pending[k].second;
          if (!runs.empty() && runs.back().first + runs.back().count == p) ++runs.back().count;
          else runs.push_back({p, 1});
        }
        remote.resize(ks.size());
        v.window.get(static_cast<int>(q), runs, remote.data());
        for (std::size_t j = 0; j < ks.size(); ++j) got[ks[j]] = remote[j];
      }
      for (const T& value : got) {
        os << (first ? "" : " ") << value;
        first = false;
      }
      pending.clear();
    };
    v.owner->lookup.for_each_in_order([&](int owner, std::int64_t, index_t position) {
      pending.push_back({owner, position});
      if (pending.size() == batch) flush();
    });
    flush();
    return os;
  }

 private:
  friend struct detail::access;

  // The values, registered with the domain so that they follow its index set.
  struct values final : detail::sparse_array_hook<N> {
    values(detail::sparse_state<N>& s, const T& implicit_value) : owner(&s), implicit(implicit_value) {
      s.arrays.push_back(this);
    }
    values(const values&) = delete;
    values& operator=(const values&) = delete;
    ~values() override {
      auto& a = owner->arrays;
      a.erase(std::find(a.begin(), a.end(), this));
    }
    void prepare(const std::vector<index_t>& moved_from) override {
      prepared.clear();
      prepared.reserve(moved_from.size());
      for (index_t p : moved_from) prepared.push_back(p < 0 ? implicit : current[static_cast<std::size_t>(p)]);
    }
    void commit() noexcept override {
      current.swap(prepared);
      std::vector<T>().swap(prepared);
    }
    void abandon() noexcept override { std::vector<T>().swap(prepared); }
    void expose() override {
      window = detail::rma_window();
      window = detail::rma_window(current.data(), current.size() * sizeof(T), sizeof(T));
    }

    detail::sparse_state<N>* owner;
    T implicit;
    std::vector<T> current, prepared;
    detail::rma_window window;  // `current`, to other locales
  };

  values& live(const char* who) const {
    if (!values_) throw argument_error(std::string(who) + ": the sparse array was moved from");
    dom_.live(who);
    return *values_;
  }
  // (owner, position there) of index `i` of the parent; position -1 when `i` is not in the
  // set. out_of_bounds_error outside the parent.
  std::pair<int, index_t> find(const char* who, const values& v, const idx<N>& i) const {
    const auto& s = *v.owner;
    if (!s.parent.indices().contains(i)) {
      std::ostringstream m;
      m << who << ": index " << i << " is outside the parent domain " << s.parent.indices();
      throw out_of_bounds_error(m.str());
    }
    if (s.finder.find(i) != s.pieces.size()) return {here(), s.position_of(i)};
    const int owner = s.parent.locale_of(i);
    return {owner, s.position_on(owner, i)};
  }
  // Collective: operator=. Over the same domain the values are copied locally; over another
  // domain every value travels to its index's owner here, and the index sets must be equal
  // (shape_error otherwise). The first agreement checks both operands on every locale.
  void assign(const sparse_array& other) {
    const detail::collective_scope scope;
    const char* who = "dmap::sparse_array::operator=";
    bool same = false;
    // Whether both sides share a domain (a local copy, no message) is agreed with the checks:
    // a locale that copies locally must not leave the others in the exchange.
    detail::call_arguments args{who, 0, [&same] {
                                  return same ? std::string("both sides over one sparse domain")
                                              : std::string("sides over two sparse domains");
                                }};
    detail::byte_buffers out = agreed(args, [&] {
      const values& mine = live("dmap::sparse_array::operator= (left-hand side)");
      const values& theirs = other.live("dmap::sparse_array::operator= (right-hand side)");
      same = dom_ == other.dom_;
      args.fingerprint = same ? 1 : 2;
      if (same) return detail::byte_buffers{};
      const auto& a = *mine.owner;
      const auto& b = *theirs.owner;
      if (a.global_size != b.global_size)
        throw shape_error(std::string(who) + ": the left-hand sparse domain holds " + std::to_string(a.global_size) +
                          " indices, the right-hand one " + std::to_string(b.global_size) +
                          "; arrays over different sparse domains copy only when both hold the same indices");
      std::vector<idx<N>> indices(static_cast<std::size_t>(b.local_size()));
      b.decode(0, b.local_size(), indices.data());
      const rect<N>& whole = a.parent.indices();
      for (const idx<N>& i : indices)
        if (!whole.contains(i)) {
          std::ostringstream m;
          m << who << ": index " << i << " of the right-hand array is outside the left-hand parent domain " << whole
            << "; arrays over different sparse domains copy only when both hold the same indices";
          throw shape_error(m.str());
        }
      const std::vector<int> owners = sparse_domain<N>::owners_in_parent(a, indices);
      return detail::pack_by_locale(std::span<const idx<N>>(indices), theirs.current.data(), owners);
    });
    if (same) {
      std::copy(other.values_->current.begin(), other.values_->current.end(), values_->current.begin());
      return;
    }
    const detail::byte_buffers in = detail::exchange(std::move(out));
    values& mine = *values_;
    const auto& a = *mine.owner;
    std::vector<std::vector<T>> given(in.size());
    std::vector<std::vector<index_t>> at(in.size());
    agreed([&] {
      for (std::size_t q = 0; q < in.size(); ++q)
        for (const idx<N>& i : detail::unpack_keys<idx<N>>(in[q], &given[q])) {
          const index_t p = sparse_domain<N>::routed_position(a, i, static_cast<int>(q), who);
          if (p < 0) {
            std::ostringstream m;
            m << who << ": index " << i << " of the right-hand array is not in the left-hand sparse domain; arrays "
              << "over different sparse domains copy only when both hold the same indices";
            throw shape_error(m.str());
          }
          at[q].push_back(p);
        }
    });
    for (std::size_t q = 0; q < in.size(); ++q)
      for (std::size_t k = 0; k < at[q].size(); ++k) mine.current[static_cast<std::size_t>(at[q][k])] = given[q][k];
  }

  sparse_domain<N> dom_;
  std::unique_ptr<values> values_;
};

}  // namespace dmap
