// How the iteration engine sees each kind of iterand: its whole index set, the pieces this
// locale owns (when it leads), and a row cursor over any chunk it follows.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "../../runtime/agreement.hpp"
#include "../../dsi/array.hpp"
#include "../../dsi/array_view.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/detail/plan_cache.hpp"
#include "../../dsi/domain.hpp"
#include "../neighbors.hpp"

namespace dmap::detail {

/// A row of array elements: element k is p[k * s].
template <class T>
struct element_row {
  T* p;
  index_t s;
  T& at(index_t k) const noexcept { return p[k * s]; }
  T& unit(index_t k) const noexcept { return p[k]; }
  bool contiguous() const noexcept { return s == 1; }
};

/// A row of domain indices: index k is start with the last coordinate moved by k * s.
template <std::size_t N>
struct index_row {
  idx<N> start;
  index_t s;
  idx<N> at(index_t k) const noexcept {
    idx<N> i = start;
    i[N - 1] += k * s;
    return i;
  }
  idx<N> unit(index_t k) const noexcept { return at(k); }
  bool contiguous() const noexcept { return true; }
};

/// A row of neighbourhoods: the k-th is centred k * s elements after p.
template <class T, std::size_t N>
struct neighborhood_row {
  const T* p;
  index_t s;
  const std::array<index_t, N>* step;
  neighborhood<T, N> at(index_t k) const noexcept { return {p + k * s, step}; }
  neighborhood<T, N> unit(index_t k) const noexcept { return {p + k, step}; }
  bool contiguous() const noexcept { return s == 1; }
};

/// A follower's cursor over one chunk: the start of row k (outer positions) and the step
/// along the row.
template <class Row, std::size_t N>
struct chunk_cursor;

template <class T, std::size_t N>
struct chunk_cursor<element_row<T>, N> {
  T* base;
  std::array<index_t, N> step;
  element_row<T> row(const std::array<index_t, N>& k) const noexcept {
    index_t offset = 0;
    for (std::size_t d = 0; d + 1 < N; ++d) offset += k[d] * step[d];
    return {base + offset, step[N - 1]};
  }
};

template <std::size_t N>
struct chunk_cursor<index_row<N>, N> {
  idx<N> first;
  std::array<index_t, N> step;
  index_row<N> row(const std::array<index_t, N>& k) const noexcept {
    idx<N> i = first;
    for (std::size_t d = 0; d + 1 < N; ++d) i[d] += k[d] * step[d];
    return {i, step[N - 1]};
  }
};

template <class T, std::size_t N>
struct chunk_cursor<neighborhood_row<T, N>, N> {
  const T* base;
  std::array<index_t, N> step;       // between rows and along the row, per chunk dimension
  std::array<index_t, N> neighbour;  // one position along each dimension
  neighborhood_row<T, N> row(const std::array<index_t, N>& k) const noexcept {
    index_t offset = 0;
    for (std::size_t d = 0; d + 1 < N; ++d) offset += k[d] * step[d];
    return {base + offset, step[N - 1], &neighbour};
  }
};

/// The cursor over `part` of a block stored with `layout` in `base`.
template <class T, std::size_t N>
chunk_cursor<element_row<T>, N> block_cursor(const rect<N>& part, const dense_layout<N>& layout, T* base) {
  chunk_cursor<element_row<T>, N> c{base + layout.offset_of(part.first()), {}};
  for (std::size_t d = 0; d < N; ++d)
    c.step[d] = part.dim(d).size() == 1 ? 0 : part.dim(d).stride() / layout.indices.dim(d).stride() * layout.strides[d];
  return c;
}

/// The cursor over `part` of the first of this locale's pieces `owned` that holds it (the
/// piece `hint` tried first), stored with `layouts` in `base`; none when no piece holds it.
template <class T, std::size_t N>
std::optional<chunk_cursor<element_row<T>, N>> follow_pieces(const rect<N>& part, std::size_t hint,
                                                             const std::vector<rect<N>>& owned,
                                                             const std::vector<dense_layout<N>>& layouts, T* base) {
  if (hint < owned.size() && owned[hint].contains(part)) return block_cursor<T, N>(part, layouts[hint], base);
  for (std::size_t k = 0; k < owned.size(); ++k)
    if (owned[k].contains(part)) return block_cursor<T, N>(part, layouts[k], base);
  return std::nullopt;
}

template <std::size_t N>
std::string to_text(const rect<N>& r) {
  std::ostringstream s;
  s << r;
  return s.str();
}

template <class X>
struct operand;

/// A domain iterand yields its indices.
template <std::size_t N>
struct operand<const domain<N>> {
  static constexpr std::size_t rank = N;
  using row_type = index_row<N>;
  const domain<N>& d;

  const rect<N>& whole() const noexcept { return d.indices(); }
  const std::vector<rect<N>>& pieces() const noexcept { return d.local_subdomains(); }
  const domain_state<N>* state() const noexcept { return state_of(d).get(); }
  bool state_is_replicated() const noexcept { return state_of(d)->replicated; }
  const std::vector<int>* copy_layers() const noexcept { return state_of(d)->layers.get(); }
  /// Domains yield indices, so they never walk storage.
  static constexpr bool walks_storage = false;
  static constexpr bool is_view = false;
  static constexpr bool stageable = false;
  static constexpr bool writable = false;
  placement_key key() const { return key_of(state_of(d)); }
  /// What every locale must agree on about this operand: the domain and its index set.
  std::uint64_t identity() const {
    return fingerprint().add('D').add(state_of(d)->serial).add(state_of(d)->generation).value();
  }
  locator<N> locate() const { return state_of(d)->locate(); }
  std::string describe() const { return d.name() + " domain over " + to_text(d.indices()); }
  std::optional<chunk_cursor<row_type, N>> follow(const rect<N>& part, std::size_t) const {
    chunk_cursor<row_type, N> c{part.first(), {}};
    for (std::size_t dim = 0; dim < N; ++dim) c.step[dim] = part.dim(dim).stride();
    return c;
  }
};
template <std::size_t N>
struct operand<domain<N>> : operand<const domain<N>> {};

template <class X>
inline constexpr bool is_array_v = false;
template <class T, std::size_t N>
inline constexpr bool is_array_v<array<T, N>> = true;

/// An array iterand yields references to its elements (const ones for a const array).
template <class A>
  requires is_array_v<std::remove_const_t<A>>
struct operand<A> {
  using array_type = std::remove_const_t<A>;
  using value_type = typename array_type::value_type;
  using element_type = std::conditional_t<std::is_const_v<A>, const value_type, value_type>;
  static constexpr std::size_t rank = array_type::rank;
  static constexpr std::size_t N = rank;
  using row_type = element_row<element_type>;
  A& a;

  const rect<N>& whole() const noexcept { return a.domain().indices(); }
  const std::vector<rect<N>>& pieces() const noexcept { return a.domain().local_subdomains(); }
  const domain_state<N>* state() const noexcept { return state_of(a.domain()).get(); }
  bool state_is_replicated() const noexcept { return state_of(a.domain())->replicated; }
  const std::vector<int>* copy_layers() const noexcept { return state_of(a.domain())->layers.get(); }
  /// Arrays can walk their storage as one span (when their domain's storage is dense).
  static constexpr bool walks_storage = true;
  static constexpr bool is_view = false;
  /// Misaligned, it follows a staging copy (iterators/detail/staging.hpp).
  static constexpr bool stageable = true;
  static constexpr bool writable = !std::is_const_v<A>;
  placement_key key() const { return key_of(state_of(a.domain())); }
  /// What every locale must agree on about this operand: the array and its index set.
  std::uint64_t identity() const {
    return fingerprint().add('A').add(access::serial(a)).add(state_of(a.domain())->generation).value();
  }
  locator<N> locate() const { return state_of(a.domain())->locate(); }
  element_type* data() const noexcept { return a.local_data(); }
  /// The node-shared memory holding data(), or null.
  const node_segment* segment() const noexcept { return access::segment(a); }
  /// The state of the follower's domain, which keeps its staging.
  domain_state<N>& follower_state() const noexcept { return *state_of(a.domain()); }
  /// The same operand over a staging array.
  operand restaged(array_type& z) const { return operand{z}; }
  /// The row of `count` elements starting at storage offset `first`.
  row_type storage_row(index_t first) const noexcept { return {a.local_data() + first, 1}; }
  std::string describe() const { return a.domain().name() + " array over " + to_text(whole()); }
  // `hint`: the leader's piece, usually the same block for an aligned follower (tried first).
  std::optional<chunk_cursor<row_type, N>> follow(const rect<N>& part, std::size_t hint) const {
    return follow_pieces<element_type, N>(part, hint, a.domain().local_subdomains(), state_of(a.domain())->my_layouts,
                                          a.local_data());
  }
};

/// An array view iterand yields references to the viewed elements. Its pieces on a locale
/// are the view's indices the locale owns; it follows any chunk inside one of them.
template <class T, std::size_t N, std::size_t M>
struct operand<array_view<T, N, M>> {
  using view_type = array_view<T, N, M>;
  using value_type = std::remove_const_t<T>;
  using element_type = T;
  using array_type = array<value_type, N>;
  static constexpr std::size_t rank = N;
  using row_type = element_row<T>;
  static constexpr bool walks_storage = false;
  static constexpr bool is_view = true;
  static constexpr bool stageable = true;
  static constexpr bool writable = !std::is_const_v<T>;

  const view_type* v;
  const rect<N>* whole_;
  const std::vector<rect<N>>* owned;
  const std::vector<dense_layout<N>>* layouts;
  T* base;
  const node_segment* node;

  operand(const view_type& view)
      : v(&view), whole_(&view.indices()), owned(&access::placed(view).owned),
        layouts(&access::placed(view).layouts), base(view.base().local_data()), node(access::segment(view.base())) {}
  operand(const view_type* view, array_type& z)
      : v(view), whole_(&z.domain().indices()), owned(&z.domain().local_subdomains()),
        layouts(&state_of(z.domain())->my_layouts), base(z.local_data()), node(access::segment(z)) {}

  const rect<N>& whole() const noexcept { return *whole_; }
  const std::vector<rect<N>>& pieces() const noexcept { return *owned; }
  const domain_state<N>* state() const noexcept { return nullptr; }  // always checked
  bool state_is_replicated() const noexcept { return state_of(v->base().domain())->replicated; }
  const std::vector<int>* copy_layers() const noexcept { return state_of(v->base().domain())->layers.get(); }
  placement_key key() const { return access::key(*v); }
  /// What every locale must agree on about this operand: the viewed array and the view.
  std::uint64_t identity() const {
    fingerprint f;
    f.add('V').add(access::serial(v->base()));
    for (const index_t x : access::key(*v).mapping) f.add(x);
    return f.value();
  }
  locator<N> locate() const { return access::placed(*v).where; }
  T* data() const noexcept { return base; }
  /// The node-shared memory holding data(), or null.
  const node_segment* segment() const noexcept { return node; }
  /// The state of the viewed array's domain, which keeps the view's staging.
  auto& follower_state() const noexcept { return *state_of(v->base().domain()); }
  /// The same operand over a staging array.
  operand restaged(array_type& z) const { return operand(v, z); }
  std::string describe() const {
    std::ostringstream s;
    s << "view " << v->indices() << " of " << v->base().domain().name() << " array over "
      << v->base().domain().indices();
    return s.str();
  }
  std::optional<chunk_cursor<row_type, N>> follow(const rect<N>& part, std::size_t hint) const {
    return follow_pieces<T, N>(part, hint, *owned, *layouts, base);
  }
};
template <class T, std::size_t N, std::size_t M>
struct operand<const array_view<T, N, M>> : operand<array_view<T, N, M>> {
  using base_operand = operand<array_view<T, N, M>>;
  using base_operand::base_operand;
  explicit operand(const base_operand& op) : base_operand(op) {}
  operand restaged(typename base_operand::array_type& z) const { return operand(base_operand::restaged(z)); }
};

/// A neighbourhood operand: for each index of its view, the element and its neighbours,
/// read from the viewed array's storage (owned and ghost cells). Never staged: every chunk
/// widened by the radius must be stored where the chunk runs.
template <class T, std::size_t N, std::size_t M>
struct operand<neighbors_of<T, N, M>> {
  static constexpr std::size_t rank = N;
  using row_type = neighborhood_row<T, N>;
  static constexpr bool walks_storage = false;
  static constexpr bool is_view = false;
  static constexpr bool stageable = false;
  static constexpr bool writable = false;
  const neighbors_of<T, N, M>& n;

  const array_view<const T, N, M>& view() const noexcept { return n.view; }
  const array<T, M>& base_array() const noexcept { return n.view.base(); }
  const rect<N>& whole() const noexcept { return view().indices(); }
  const std::vector<rect<N>>& pieces() const { return access::placed(view()).owned; }
  const domain_state<N>* state() const noexcept { return nullptr; }  // always checked
  bool state_is_replicated() const noexcept { return state_of(base_array().domain())->replicated; }
  const std::vector<int>* copy_layers() const noexcept { return state_of(base_array().domain())->layers.get(); }
  placement_key key() const { return access::key(view()); }
  /// The shared state of the viewed array's domain (it keeps the neighbourhoods found served).
  domain_state<M>& base_state() const noexcept { return *state_of(base_array().domain()); }
  /// The radius of the neighbourhood.
  const idx<N>& radius() const noexcept { return n.radius; }
  /// What every locale must agree on about this operand: the view, the radius and the shape.
  std::uint64_t identity() const {
    fingerprint f;
    f.add('N').add(access::serial(base_array())).add(n.radius).add(n.shape);
    for (const index_t x : access::key(view()).mapping) f.add(x);
    return f.value();
  }
  locator<N> locate() const { return access::placed(view()).where; }
  std::string describe() const {
    std::ostringstream s;
    s << "neighbours within " << n.radius << " of view " << whole() << " of a " << base_array().domain().name()
      << " array over " << base_array().domain().indices()
      << "; every chunk widened by the radius must be stored locally: use a dmap::stencil domain with "
         "fluff >= radius (and update its halos)";
    return s.str();
  }
  std::optional<chunk_cursor<row_type, N>> follow(const rect<N>& part, std::size_t) const {
    const auto& target = view().base_indices();
    const auto& dims = view().base_dims();
    // The chunk and its reach as indices of the array (dimensions the view drops hold one index).
    rect<M> base_part = target, base_reach = target;
    for (std::size_t v = 0; v < N; ++v) {
      const std::size_t e = dims[v];
      const range& w = whole().dim(v);
      base_part.set_dim(e, reindex(part.dim(v), w, target.dim(e)));
      // A reach past the int64 limits is stored nowhere: the chunk cannot be served here.
      index_t reach = 0;
      if (__builtin_mul_overflow(n.radius[v], abs_index(w.stride()), &reach)) return std::nullopt;
      const range& p = part.dim(v);
      index_t low = 0, high = 0, span = 0;
      if (__builtin_sub_overflow(p.lo(), reach, &low) || __builtin_add_overflow(p.hi(), reach, &high) ||
          __builtin_sub_overflow(high, low, &span))
        return std::nullopt;
      base_reach.set_dim(e, reindex(p.expanded(reach), w, target.dim(e)));
    }
    const auto& owned = base_array().domain().local_subdomains();
    const auto& blocks = base_array().local_blocks();
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const auto& l = blocks[k].layout;
      if (!owned[k].contains(base_part) || !l.indices.contains(base_reach)) continue;
      chunk_cursor<row_type, N> c{blocks[k].base + l.offset_of(base_part.first()), {}, {}};
      for (std::size_t v = 0; v < N; ++v) {
        const std::size_t e = dims[v];
        c.neighbour[v] = target.dim(e).stride() / l.indices.dim(e).stride() * l.strides[e];
        c.step[v] = part.dim(v).size() == 1 ? 0 : part.dim(v).stride() / whole().dim(v).stride() * c.neighbour[v];
      }
      return c;
    }
    return std::nullopt;
  }
};
template <class T, std::size_t N, std::size_t M>
struct operand<const neighbors_of<T, N, M>> : operand<neighbors_of<T, N, M>> {};

}  // namespace dmap::detail
