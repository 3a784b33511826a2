// array_view<T, N, M>: part of an array<T, M> seen as an N-dimensional array without copying
// (Chapel's slices `A[r]`, rank-change slices `A[i, ..]` and `A.reindex(r)`; NumPy's
// `transpose`, here `permute` and `transpose`). A view names the indices `base_indices()` of
// its array (a rect with a single index along every dimension it drops) by the indices of its
// own index set, dimension by dimension: view dimension n runs along array dimension
// base_dims()[n], the k-th index along one naming the k-th along the other (with the kept
// dimensions in increasing order, that names the k-th index by the k-th in row-major order; a
// permuted view reorders them). Reads and writes reach the array's storage; views lead and
// follow in forall / zip / reduce like arrays, and assignment between views and arrays of one
// shape goes through the same cached transfer plans as `A = B`.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "array.hpp"
#include "detail/access.hpp"
#include "detail/array_view.hpp"
#include "detail/assignment.hpp"
#include "detail/locator.hpp"
#include "detail/plan_cache.hpp"

namespace dmap {

/// A whole dimension in a rank-change slice (Chapel's `..`): `rank_change(A, 3, dmap::all)`
/// is row 3 of a 2-D array.
struct all_t {
  explicit constexpr all_t() = default;
};
/// See all_t.
inline constexpr all_t all{};

/// A view of part of an array<T, M> (T const: read-only) as an array with N dimensions.
/// Made by `A[r]` / slice, rank_change and reindex, of arrays and of views. A view refers to
/// its array, which must outlive it; copying a view copies the reference, assigning to a
/// view assigns elements (collectively), like std::slice_array.
template <class T, std::size_t N, std::size_t M = N>
class array_view {
  using V = std::remove_const_t<T>;

 public:
  /// The element type, without const.
  using value_type = V;
  /// The element type as the view gives it (const for a read-only view).
  using element_type = T;
  /// The number of dimensions of the view.
  static constexpr std::size_t rank = N;
  /// The number of dimensions of the array viewed.
  static constexpr std::size_t base_rank = M;
  /// The array viewed.
  using base_type = std::conditional_t<std::is_const_v<T>, const array<V, M>, array<V, M>>;

  /// The view naming the indices `target` of `base` by `whole`: view dimension n runs along
  /// dimension dims[n] of the array, every other dimension of `target` holds one index.
  /// Throws out_of_bounds_error when `target` is not inside the array's indices and
  /// shape_error when the extents do not match.
  array_view(base_type& base, const rect<M>& target, const rect<N>& whole, const std::array<std::size_t, N>& dims)
      : base_(&base), target_(target), whole_(whole), dims_(dims) {
    check();
  }
  /// Another reference to the same elements.
  array_view(const array_view&) = default;
  /// A read-only view of the same elements.
  operator array_view<const V, N, M>() const
    requires(!std::is_const_v<T>)
  {
    return {*base_, target_, whole_, dims_};
  }

  /// The view's index set.
  const rect<N>& indices() const noexcept { return whole_; }
  /// The number of indices per dimension.
  std::array<index_t, N> shape() const noexcept { return whole_.shape(); }
  /// The number of indices.
  index_t size() const noexcept { return whole_.size(); }
  /// True when `i` is an index of the view.
  bool contains(const idx<N>& i) const noexcept { return whole_.contains(i); }
  /// The array viewed.
  base_type& base() const noexcept { return *base_; }
  /// The array's indices the view covers (one index along each dropped dimension).
  const rect<M>& base_indices() const noexcept { return target_; }
  /// The array's dimension each view dimension runs along.
  const std::array<std::size_t, N>& base_dims() const noexcept { return dims_; }
  /// The array's index named by view index `i` (precondition: contains(i)).
  idx<M> base_index(const idx<N>& i) const noexcept { return detail::section_index(i, whole_, target_, dims_); }
  /// The locale that owns view index `i`.
  int locale_of(const idx<N>& i) const { return base_->domain().locale_of(base_index(checked(i))); }

  /// The element of view index `i`, local or remote (see array::operator[]). Not collective.
  auto operator[](const idx<N>& i) const { return (*base_)[base_index(checked(i))]; }
  /// The view of the indices `r` of this view (a subset of indices(), any strides).
  array_view operator[](const rect<N>& r) const {
    if (!whole_.contains(r)) {
      std::ostringstream s;
      s << "dmap::array_view::operator[]: the slice " << r << " is not inside the view's indices " << whole_;
      throw out_of_bounds_error(s.str());
    }
    rect<M> t = target_;
    for (std::size_t n = 0; n < N; ++n) t.set_dim(dims_[n], detail::reindex(r.dim(n), whole_.dim(n), target_.dim(dims_[n])));
    return {*base_, t, r, dims_};
  }

  /// This locale's pieces of the view: its owned indices, as rects of view indices.
  const std::vector<rect<N>>& local_subdomains() const { return placed().owned; }
  /// This locale's pieces with their storage: the layouts step through the array's buffer
  /// (possibly backwards), so `block(i)` is the element of view index i.
  std::vector<local_block<T, N>> local_blocks() const {
    std::vector<local_block<T, N>> out;
    for (const auto& l : placed().layouts) out.push_back({l, base_->local_data()});
    return out;
  }

  /// Collective: copies the elements of `other` (same shape, any array and map) into the
  /// viewed elements; the k-th index in row-major order takes the k-th value.
  const array_view& operator=(const array_view& other) const
    requires(!std::is_const_v<T>)
  {
    assign_from(detail::access::placed_elements_of(other), "dmap::array_view::operator=");
    return *this;
  }
  /// Collective: the same from another view.
  template <class U, std::size_t K>
    requires(!std::is_const_v<T> && std::is_same_v<std::remove_const_t<U>, V>)
  const array_view& operator=(const array_view<U, N, K>& other) const {
    assign_from(detail::access::placed_elements_of(other), "dmap::array_view::operator=");
    return *this;
  }
  /// Collective: the same from an array.
  const array_view& operator=(const array<V, N>& other) const
    requires(!std::is_const_v<T>)
  {
    assign_from(detail::access::placed_elements_of(other), "dmap::array_view::operator=");
    return *this;
  }
  /// Collective: sets every viewed element to `value` (each locale its own elements; no
  /// messages). One agreement: every locale must pass the same view and value
  /// (argument_error on every locale otherwise, and nothing is written).
  const array_view& operator=(const V& value) const
    requires(!std::is_const_v<T>)
  {
    const detail::collective_scope scope;
    const auto me = placed_elements_of();
    detail::fingerprint f;
    f.add(me.identity());
    if (!detail::state_of(base_->domain())->layers) f.add_value(value);  // a copy is each locale's own to fill
    agreed({"dmap::array_view::operator= (value)", f.value(),
            [&] {
              std::ostringstream s;
              s << "array #" << me.serial << " indices " << whole_ << " = a value";
              return s.str();
            }},
           [] {});
    V* data = base_->local_data();
    for (const auto& l : placed().layouts)
      detail::for_each_run(l.indices, l, [&](index_t offset, index_t step, index_t count) {
        for (index_t k = 0; k < count; ++k) data[offset + k * step] = value;
      });
    return *this;
  }

  /// Fetches the viewed elements at the view's row-major orders [first, first + count) into
  /// `out`: one message per remote locale holding some of them. Not collective. Throws
  /// argument_error when count < 0 and out_of_bounds_error when the orders reach outside
  /// [0, size()).
  void fetch(index_t first, index_t count, V* out) const {
    detail::check_position_run("dmap::array_view::fetch", first, count, size());
    const rect<M>& all = base_->domain().indices();
    std::vector<index_t> orders(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < orders.size(); ++k)
      orders[k] = all.order_of(base_index(whole_.index_at(first + static_cast<index_t>(k))));
    base_->fetch(orders, out);
  }

  /// Collective: every element, in row-major order of the view, on locale 0 (empty elsewhere).
  [[nodiscard]] std::vector<V> gather() const { return detail::gather_to_root(placed().where, base_->local_data()); }
  /// Writes the view like an array, on the calling locale (not collective; see array's
  /// operator<<).
  friend std::ostream& operator<<(std::ostream& os, const array_view& v) {
    return detail::write_elements<V, N>(os, v.shape(),
                                        [&v](index_t first, index_t count, V* out) { v.fetch(first, count, out); });
  }

 private:
  template <class U, std::size_t K, std::size_t L>
  friend class array_view;
  friend struct detail::access;

  // Where the viewed elements live, recomputed when the array's domain changes.
  struct placement_info {
    std::uint64_t generation = 0;
    detail::locator<N> where;               // view indices, layouts into the array's buffers
    std::vector<rect<N>> owned;             // this locale's pieces
    std::vector<dense_layout<N>> layouts;   // and their layouts
  };
  // This locale's placement of the view.
  const placement_info& placed() const {
    const auto& s = *detail::state_of(base_->domain());
    if (!placed_ || placed_->generation != s.generation) {
      if (!target_.empty() && !s.whole.contains(target_)) {
        std::ostringstream m;
        m << "dmap::array_view: the viewed indices " << target_ << " are no longer inside the array's indices "
          << s.whole << " (its domain changed); make the view again";
        throw out_of_bounds_error(m.str());
      }
      auto p = std::make_shared<placement_info>();
      p->generation = s.generation;
      p->where = detail::sectioned(s.locate(), target_, whole_, dims_);
      for (const auto& b : p->where.mine) {
        p->owned.push_back(b.owned);
        p->layouts.push_back(b.layout);
      }
      placed_ = std::move(p);
    }
    return *placed_;
  }
  // Names the view's placement for plan caches.
  detail::placement_key key() const {
    const auto& s = detail::state_of(base_->domain());
    std::vector<index_t> m{static_cast<index_t>(N), static_cast<index_t>(M)};
    const auto put = [&](const range& r) { m.insert(m.end(), {r.first(), r.size(), r.stride()}); };
    for (std::size_t n = 0; n < N; ++n) put(whole_.dim(n)), m.push_back(static_cast<index_t>(dims_[n]));
    for (std::size_t d = 0; d < M; ++d) put(target_.dim(d));
    return {s, s->generation, std::move(m)};
  }
  // The view as one side of an assignment.
  detail::placed_elements<V, N> placed_elements_of() const {
    const array_view self = *this;
    return {key(), [self] { return self.placed().where; }, whole_, const_cast<V*>(base_->local_data()),
            base_->local_size(), &detail::state_of(base_->domain())->caches.template get<detail::assignment_plans<N>>(),
            detail::access::segment(*base_), detail::access::serial(*base_)};
  }

  void check() const {
    const auto& all = base_->domain().indices();
    std::ostringstream s;
    if (!target_.empty() && !all.contains(target_)) {
      s << "dmap::array_view: the indices " << target_ << " are not inside the array's indices " << all;
      throw out_of_bounds_error(s.str());
    }
    std::array<bool, M> kept{};
    for (std::size_t n = 0; n < N; ++n) {
      if (dims_[n] >= M || kept[dims_[n]]) {
        s << "dmap::array_view: view dimension " << n << " runs along array dimension " << dims_[n]
          << ", which is out of range or taken; each must name a distinct dimension below " << M;
        throw argument_error(s.str());
      }
      kept[dims_[n]] = true;
      if (whole_.dim(n).size() != target_.dim(dims_[n]).size()) {
        s << "dmap::array_view: the view's indices " << whole_ << " do not have the shape of the array's indices "
          << target_ << " (dimension " << n << ")";
        throw shape_error(s.str());
      }
    }
    for (std::size_t d = 0; d < M; ++d)
      if (!kept[d] && target_.dim(d).size() != 1) {
        s << "dmap::array_view: dimension " << d << " of " << target_
          << " is dropped by the view, so it must hold exactly one index";
        throw shape_error(s.str());
      }
  }
  const idx<N>& checked(const idx<N>& i) const {
    if (whole_.contains(i)) return i;
    std::ostringstream s;
    s << "dmap::array_view: index " << i << " is not in the view's indices " << whole_;
    throw out_of_bounds_error(s.str());
  }
  void assign_from(const detail::placed_elements<V, N>& from, const char* who) const {
    detail::assign_elements<V, N>(from, placed_elements_of(), who);
  }

  base_type* base_;
  rect<M> target_;
  rect<N> whole_;
  std::array<std::size_t, N> dims_;
  mutable std::shared_ptr<const placement_info> placed_;
};

/// A view of an array or a view: the array itself seen whole.
template <class T, std::size_t N>
array_view<T, N, N> view_of(array<T, N>& a) {
  return {a, a.domain().indices(), a.domain().indices(), detail::identity_dims<N>()};
}
/// A read-only view of a whole array.
template <class T, std::size_t N>
array_view<const T, N, N> view_of(const array<T, N>& a) {
  return {a, a.domain().indices(), a.domain().indices(), detail::identity_dims<N>()};
}

/// The slice of a view by the indices `r` (Chapel's `A[r]`).
template <class T, std::size_t N, std::size_t M>
array_view<T, N, M> slice(const array_view<T, N, M>& v, const rect<N>& r) {
  return v[r];
}
/// The slice of an array by the indices `r` (the same as `a[r]`).
template <class T, std::size_t N>
array_view<T, N, N> slice(array<T, N>& a, const rect<N>& r) {
  return view_of(a)[r];
}
/// The read-only slice of an array by the indices `r`.
template <class T, std::size_t N>
array_view<const T, N, N> slice(const array<T, N>& a, const rect<N>& r) {
  return view_of(a)[r];
}

/// The elements of `v` named by the indices `r` of the same shape (Chapel's
/// `A.reindex(r)`): the k-th index of r, row-major, names v's k-th element.
template <class T, std::size_t N, std::size_t M>
array_view<T, N, M> reindex(const array_view<T, N, M>& v, const rect<N>& r) {
  if (r.shape() != v.shape()) {
    std::ostringstream s;
    s << "dmap::reindex: the new indices " << r << " do not have the shape of " << v.indices();
    throw shape_error(s.str());
  }
  return {v.base(), v.base_indices(), r, v.base_dims()};
}
/// The elements of an array named by the indices `r` of the same shape.
template <class T, std::size_t N>
array_view<T, N, N> reindex(array<T, N>& a, const rect<N>& r) {
  return reindex(view_of(a), r);
}
/// The read-only elements of an array named by the indices `r` of the same shape.
template <class T, std::size_t N>
array_view<const T, N, N> reindex(const array<T, N>& a, const rect<N>& r) {
  return reindex(view_of(a), r);
}

/// The view of `v` with its dimensions reordered (NumPy's `transpose(axes)`): dimension n of
/// the result is dimension order[n] of v, with its indices, so the result's element
/// (i_0, ..., i_{N-1}) is v's element whose index along dimension order[n] is i_n. No element
/// moves: the result reads and writes v's storage with permuted strides, and leads, follows
/// and is assigned like any view. argument_error unless `order` holds each of 0..N-1 once.
template <class T, std::size_t N, std::size_t M>
array_view<T, N, M> permute(const array_view<T, N, M>& v, const std::array<std::size_t, N>& order) {
  std::array<bool, N> seen{};
  rect<N> whole;
  std::array<std::size_t, N> dims{};
  for (std::size_t n = 0; n < N; ++n) {
    if (order[n] >= N || seen[order[n]]) {
      std::ostringstream s;
      s << "dmap::permute: order[" << n << "] is " << order[n] << "; order must hold each of 0.." << N - 1 << " once";
      throw argument_error(s.str());
    }
    seen[order[n]] = true;
    whole.set_dim(n, v.indices().dim(order[n]));
    dims[n] = v.base_dims()[order[n]];
  }
  return {v.base(), v.base_indices(), whole, dims};
}
/// An array with its dimensions reordered (see permute of a view).
template <class T, std::size_t N>
array_view<T, N, N> permute(array<T, N>& a, const std::array<std::size_t, N>& order) {
  return permute(view_of(a), order);
}
/// A read-only array with its dimensions reordered.
template <class T, std::size_t N>
array_view<const T, N, N> permute(const array<T, N>& a, const std::array<std::size_t, N>& order) {
  return permute(view_of(a), order);
}
/// The view of `v` with its dimensions reversed (NumPy's `.T`): element (j, i) of the result
/// is v's element (i, j) in 2-D. A view, as permute's.
template <class T, std::size_t N, std::size_t M>
array_view<T, N, M> transpose(const array_view<T, N, M>& v) {
  std::array<std::size_t, N> order{};
  for (std::size_t n = 0; n < N; ++n) order[n] = N - 1 - n;
  return permute(v, order);
}
/// An array with its dimensions reversed (see transpose of a view).
template <class T, std::size_t N>
array_view<T, N, N> transpose(array<T, N>& a) {
  return transpose(view_of(a));
}
/// A read-only array with its dimensions reversed.
template <class T, std::size_t N>
array_view<const T, N, N> transpose(const array<T, N>& a) {
  return transpose(view_of(a));
}

/// A rank-change slice of a view (Chapel's `A[i, ..]`): one argument per dimension, an
/// integer to fix it, a range (of v's indices) or dmap::all to keep it. The result has one
/// dimension per kept one, named by the kept indices.
template <class T, std::size_t N, std::size_t M, class... Args>
  requires(sizeof...(Args) == N)
auto rank_change(const array_view<T, N, M>& v, const Args&... args) {
  constexpr std::size_t K = (std::size_t{0} + ... + (detail::keeps_dimension<Args> ? 1 : 0));
  static_assert(K >= 1, "dmap::rank_change: keep at least one dimension (a range or dmap::all)");
  // First the slice of v that the arguments describe, then drop the fixed dimensions.
  rect<N> part;
  std::array<std::size_t, K> dims{};
  rect<K> whole;
  std::size_t n = 0, k = 0;
  const auto one = [&](const auto& arg) {
    using X = std::remove_cvref_t<decltype(arg)>;
    const range& all_of_dim = v.indices().dim(n);
    if constexpr (std::is_same_v<X, all_t>) {
      part.set_dim(n, all_of_dim);
    } else if constexpr (std::is_same_v<X, range>) {
      part.set_dim(n, arg);
    } else {
      static_assert(std::is_integral_v<X>, "dmap::rank_change: arguments are integers, ranges or dmap::all");
      const index_t fixed = detail::to_index(arg);
      if (!all_of_dim.contains(fixed)) {
        std::ostringstream s;
        s << "dmap::rank_change: index " << fixed << " fixes dimension " << n << ", but it is not in that dimension's "
          << "indices " << all_of_dim << " of " << v.indices();
        throw out_of_bounds_error(s.str());
      }
      part.set_dim(n, range::counted(fixed, 1, all_of_dim.stride()));
    }
    if constexpr (detail::keeps_dimension<X>) {
      dims[k] = v.base_dims()[n];
      whole.set_dim(k, part.dim(n));
      ++k;
    }
    ++n;
  };
  (one(args), ...);
  const auto sliced = v[part];  // checks the bounds
  return array_view<T, K, M>(v.base(), sliced.base_indices(), whole, dims);
}
/// A rank-change slice of an array (see rank_change of a view).
template <class T, std::size_t N, class... Args>
  requires(sizeof...(Args) == N)
auto rank_change(array<T, N>& a, const Args&... args) {
  return rank_change(view_of(a), args...);
}
/// A read-only rank-change slice of an array.
template <class T, std::size_t N, class... Args>
  requires(sizeof...(Args) == N)
auto rank_change(const array<T, N>& a, const Args&... args) {
  return rank_change(view_of(a), args...);
}

// Array members that make views.
template <transferable T, std::size_t N>
array_view<T, N, N> array<T, N>::operator[](const rect<N>& r) {
  return view_of(*this)[r];
}
template <transferable T, std::size_t N>
array_view<const T, N, N> array<T, N>::operator[](const rect<N>& r) const {
  return view_of(*this)[r];
}
// Hidden from Doxygen, which (1.9.4) does not match an out-of-class member template of a class
// template to its declaration and would list it a second time; it is documented in array.hpp.
/// \cond
template <transferable T, std::size_t N>
template <class U, std::size_t M>
  requires std::is_same_v<std::remove_const_t<U>, T>
array<T, N>& array<T, N>::operator=(const array_view<U, N, M>& other) {
  refuse_if_moved_from(nullptr);
  detail::assign_elements<T, N>(detail::access::placed_elements_of(other), placed_elements_of(), "dmap::array::operator=");
  return *this;
}
/// \endcond

}  // namespace dmap
