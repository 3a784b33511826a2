// How the iteration engine sees each kind of iterand: its whole index set, the pieces this
// locale owns (when it leads), and a row cursor over any chunk it follows.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/domain.hpp"

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
  const domain_state<N>* state() const noexcept { return d.state().get(); }
  bool state_is_replicated() const noexcept { return d.state()->replicated; }
  const std::vector<int>* copy_layers() const noexcept { return d.state()->layers.get(); }
  /// Domains yield indices, so they never walk storage.
  static constexpr bool walks_storage = false;
  static constexpr bool is_view = false;
  placement_key key() const { return key_of(d.state()); }
  locator<N> locate() const { return d.state()->locate(); }
  std::string describe() const { return d.name() + " domain over " + to_text(d.indices()); }
  std::optional<chunk_cursor<row_type, N>> follow(const rect<N>& part, std::size_t) const {
    chunk_cursor<row_type, N> c{part.first(), {}};
    for (std::size_t dim = 0; dim < N; ++dim) c.step[dim] = part.dim(dim).stride();
    return c;
  }
  static std::string to_text(const rect<N>& r) {
    std::ostringstream s;
    s << r;
    return s.str();
  }
};
template <std::size_t N>
struct operand<domain<N>> : operand<const domain<N>> {};

/// An array iterand yields references to its elements (const ones for a const array).
template <class A>
  requires requires { typename std::remove_const_t<A>::value_type; }
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
  const domain_state<N>* state() const noexcept { return a.domain().state().get(); }
  bool state_is_replicated() const noexcept { return a.domain().state()->replicated; }
  const std::vector<int>* copy_layers() const noexcept { return a.domain().state()->layers.get(); }
  /// Arrays can walk their storage as one span (when their domain's storage is dense).
  static constexpr bool walks_storage = true;
  static constexpr bool is_view = false;
  /// Misaligned, it follows a staging copy (iterators/staging.hpp).
  static constexpr bool stageable = true;
  static constexpr bool writable = !std::is_const_v<A>;
  placement_key key() const { return key_of(a.domain().state()); }
  locator<N> locate() const { return a.domain().state()->locate(); }
  element_type* data() const noexcept { return a.local_data(); }
  std::shared_ptr<void>& staging_slot() const noexcept { return a.domain().state()->staging; }
  /// The same operand over a staging array.
  operand restaged(array_type& z) const { return operand{z}; }
  /// The row of `count` elements starting at storage offset `first`.
  row_type storage_row(index_t first) const noexcept {
    return {a.local_blocks().empty() ? nullptr : a.local_blocks().front().base + first, 1};
  }
  std::string describe() const {
    return a.domain().name() + " array over " + operand<const domain<N>>::to_text(whole());
  }
  // `hint`: the leader's piece, usually the same block for an aligned follower (tried first).
  std::optional<chunk_cursor<row_type, N>> follow(const rect<N>& part, std::size_t hint) const {
    return follow_pieces<element_type, N>(part, hint, a.domain().local_subdomains(), a.domain().state()->my_layouts,
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

  operand(const view_type& view)
      : v(&view), whole_(&view.indices()), owned(&view.placed().owned), layouts(&view.placed().layouts),
        base(view.base().local_data()) {}
  operand(const view_type* view, array_type& z)
      : v(view), whole_(&z.domain().indices()), owned(&z.domain().local_subdomains()),
        layouts(&z.domain().state()->my_layouts), base(z.local_data()) {}

  const rect<N>& whole() const noexcept { return *whole_; }
  const std::vector<rect<N>>& pieces() const noexcept { return *owned; }
  const domain_state<N>* state() const noexcept { return nullptr; }  // always checked
  bool state_is_replicated() const noexcept { return v->base().domain().state()->replicated; }
  const std::vector<int>* copy_layers() const noexcept { return v->base().domain().state()->layers.get(); }
  placement_key key() const { return v->key(); }
  locator<N> locate() const { return v->placed().where; }
  T* data() const noexcept { return base; }
  std::shared_ptr<void>& staging_slot() const noexcept { return v->base().domain().state()->staging; }
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

}  // namespace dmap::detail

namespace dmap {

/// Read access to one element and its neighbours, for stencil loops: `a(-1, 0)` is the
/// element one position before along dimension 0, `a()` the element itself. Offsets count
/// positions in the domain's iteration order.
template <class T, std::size_t N>
class neighborhood {
 public:
  neighborhood(const T* center, const std::array<index_t, N>* step) noexcept
      : p_(center), step_(step) {}
  /// The element at `offsets` positions from this one (one offset per dimension).
  template <class... Offsets>
    requires(sizeof...(Offsets) == N)
  const T& operator()(Offsets... offsets) const noexcept {
    index_t at = 0;
    std::size_t d = 0;
    ((at += static_cast<index_t>(offsets) * (*step_)[d++]), ...);
    return p_[at];
  }
  /// The element itself.
  const T& operator()() const noexcept { return *p_; }
  /// The element at offset `o`.
  const T& at(const idx<N>& o) const noexcept {
    index_t at = 0;
    for (std::size_t d = 0; d < N; ++d) at += o[d] * (*step_)[d];
    return p_[at];
  }

 private:
  const T* p_;
  const std::array<index_t, N>* step_;
};

/// An array read together with its neighbours up to `radius` positions away in every
/// dimension, as a zip operand: `forall(zip(B, neighbors(A, 1)), [](double& b, const auto& a)
/// { b = (a(-1, 0) + a(1, 0) + a(0, -1) + a(0, 1)) / 4; })`. Each chunk widened by the
/// radius must be stored locally (a dmap::stencil domain with fluff >= radius, halos
/// updated); the loop throws otherwise.
template <class T, std::size_t N>
struct neighbors_of {
  const array<T, N>* a;
  idx<N> radius;
};

/// The neighbourhood operand of `a` with the same radius in every dimension.
template <class T, std::size_t N>
neighbors_of<T, N> neighbors(const array<T, N>& a, index_t radius = 1) {
  idx<N> r{};
  r.fill(radius);
  return {&a, r};
}
/// The neighbourhood operand of `a` with a radius per dimension.
template <class T, std::size_t N>
neighbors_of<T, N> neighbors(const array<T, N>& a, const idx<N>& radius) {
  return {&a, radius};
}

namespace detail {

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

template <class T, std::size_t N>
struct operand<neighbors_of<T, N>> {
  static constexpr std::size_t rank = N;
  using row_type = neighborhood_row<T, N>;
  neighbors_of<T, N>& n;

  const rect<N>& whole() const noexcept { return n.a->domain().indices(); }
  const std::vector<rect<N>>& pieces() const noexcept { return n.a->domain().local_subdomains(); }
  const domain_state<N>* state() const noexcept { return nullptr; }  // always checked
  bool state_is_replicated() const noexcept { return n.a->domain().state()->replicated; }
  const std::vector<int>* copy_layers() const noexcept { return n.a->domain().state()->layers.get(); }
  static constexpr bool walks_storage = false;
  static constexpr bool is_view = false;
  placement_key key() const { return key_of(n.a->domain().state()); }
  locator<N> locate() const { return n.a->domain().state()->locate(); }
  std::string describe() const {
    std::ostringstream s;
    s << "neighbours within " << n.radius << " of a " << n.a->domain().name() << " array over "
      << whole() << "; every chunk widened by the radius must be stored locally: use a "
                    "dmap::stencil domain with fluff >= radius";
    return s.str();
  }
  std::optional<chunk_cursor<row_type, N>> follow(const rect<N>& part, std::size_t) const {
    rect<N> reach = part;
    for (std::size_t d = 0; d < N; ++d)
      reach.set_dim(d, part.dim(d).expanded(n.radius[d] * abs_index(whole().dim(d).stride())));
    const auto& owned = n.a->domain().local_subdomains();
    const auto& blocks = n.a->local_blocks();
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const auto& l = blocks[k].layout;
      if (!owned[k].contains(part) || !l.indices.contains(reach)) continue;
      chunk_cursor<row_type, N> c{blocks[k].base + l.offset_of(part.first()), {}, {}};
      for (std::size_t d = 0; d < N; ++d) {
        c.step[d] = part.dim(d).size() == 1
                        ? 0
                        : part.dim(d).stride() / l.indices.dim(d).stride() * l.strides[d];
        c.neighbour[d] = whole().dim(d).stride() / l.indices.dim(d).stride() * l.strides[d];
      }
      return c;
    }
    return std::nullopt;
  }
};
template <class T, std::size_t N>
struct operand<const neighbors_of<T, N>> : operand<neighbors_of<T, N>> {};

}  // namespace detail
}  // namespace dmap
