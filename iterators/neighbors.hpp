// Neighbourhood operands for stencil loops: `zip(B, neighbors(A, 1))` hands the body, for
// each element, read access to A's elements around the same position.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include "../dsi/array.hpp"
#include "../dsi/array_view.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/index.hpp"
#include "detail/neighbors.hpp"

namespace dmap {

/// Which neighbours a stencil reads, and so which ghost cells a halo update refreshes.
enum class halo_shape {
  box,   ///< every neighbour within the radius: faces, edges and corners (a 9-point stencil)
  star,  ///< only neighbours offset along one dimension: faces (a 5-point stencil)
};

/// Read access to one element and its neighbours, for stencil loops: `a(-1, 0)` is the
/// element one position before along dimension 0, `a()` the element itself. Offsets count
/// positions in the iteration order of the array or view the neighbourhood comes from.
template <class T, std::size_t N>
class neighborhood {
 public:
  /// The neighbourhood of the element at `center`, whose neighbours are `step[d]` elements
  /// away along dimension d.
  neighborhood(const T* center, const std::array<index_t, N>* step) noexcept : p_(center), step_(step) {}
  /// The element at `offsets` positions from this one (one integral offset per dimension).
  template <class... Offsets>
    requires(sizeof...(Offsets) == N && (std::is_integral_v<Offsets> && ...))
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

/// A read-only view (of an array<T, M>, N dimensions) read together with its neighbours up
/// to `radius` positions away, as a zip operand. Made by dmap::neighbors.
template <class T, std::size_t N, std::size_t M = N>
struct neighbors_of {
  array_view<const T, N, M> view;       ///< the elements whose neighbourhoods the loop reads
  idx<N> radius;                        ///< how far the body reads, per dimension (in positions)
  halo_shape shape = halo_shape::box;   ///< which neighbours it reads (update_halos(A, nb) follows it)
};

/// The neighbourhood operand of `a` with the same radius in every dimension:
/// `forall(zip(B, neighbors(A, 1)), [](double& b, const auto& a) { b = a(-1, 0) + a(1, 0); })`.
/// Every chunk of the loop widened by the radius must be stored on its locale (a
/// dmap::stencil domain with fluff >= radius, halos updated); the loop throws otherwise.
/// `shape` says which neighbours the body reads: with halo_shape::star it reads no
/// diagonal neighbour, and `update_halos(A, nb)` refreshes only the faces.
template <class T, std::size_t N>
neighbors_of<T, N, N> neighbors(const array<T, N>& a, index_t radius = 1, halo_shape shape = halo_shape::box) {
  return neighbors(a, idx<N>::filled(radius), shape);
}
/// The neighbourhood operand of `a` with a radius per dimension (each >= 0; argument_error
/// otherwise, and for a moved-from array).
template <class T, std::size_t N>
neighbors_of<T, N, N> neighbors(const array<T, N>& a, const idx<N>& radius, halo_shape shape = halo_shape::box) {
  detail::check_array_live(a, "dmap::neighbors", "it has no elements to read");
  return {view_of(a), detail::checked_radius(radius), shape};
}
/// The neighbourhood operand of a view: `zip(B[inner], neighbors(A[inner], 1))` loops over
/// the interior of a whole-grid Stencil array and reads the neighbours beyond it from the
/// array's storage (boundary cells and ghost cells alike).
template <class T, std::size_t N, std::size_t M>
neighbors_of<std::remove_const_t<T>, N, M> neighbors(const array_view<T, N, M>& v, index_t radius = 1,
                                                     halo_shape shape = halo_shape::box) {
  return {v, detail::checked_radius(idx<N>::filled(radius)), shape};
}
/// The neighbourhood operand of a view with a radius per dimension.
template <class T, std::size_t N, std::size_t M>
neighbors_of<std::remove_const_t<T>, N, M> neighbors(const array_view<T, N, M>& v, const idx<N>& radius,
                                                     halo_shape shape = halo_shape::box) {
  return {v, detail::checked_radius(radius), shape};
}

}  // namespace dmap
