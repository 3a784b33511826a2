// strided_span<T, N>: an mdspan-style view of strided memory (pointer, extents, strides in
// elements), indexed by local positions. It is how a locale's blocks are handed to code
// that speaks mdspan, PEP 3118 buffers or BLAS-style (pointer, leading dimension) calls;
// to_mdspan converts it into a std::mdspan / Kokkos mdspan with a layout_stride mapping.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>

#include "../runtime/errors.hpp"
#include "range.hpp"

namespace dmap {

/// N-D strided memory: element (k0, ..., kN-1) is data()[k0 * stride(0) + ... ], for
/// 0 <= kd < extent(d). Strides may be negative (a view stored backwards).
template <class T, std::size_t N>
class strided_span {
 public:
  /// The element type, as accessed (may be const).
  using element_type = T;
  /// The element type without const or volatile.
  using value_type = std::remove_cv_t<T>;
  /// The integer type of positions and extents.
  using index_type = index_t;

  strided_span() = default;
  /// The memory at `data` with these extents and strides (in elements).
  strided_span(T* data, const std::array<index_t, N>& extents, const std::array<index_t, N>& strides) noexcept
      : data_(data), extents_(extents), strides_(strides) {}

  /// The number of dimensions.
  static constexpr std::size_t rank() noexcept { return N; }
  /// The element at local position (0, ..., 0).
  T* data_handle() const noexcept { return data_; }
  /// Positions per dimension.
  const std::array<index_t, N>& extents() const noexcept { return extents_; }
  /// Positions along dimension d.
  index_t extent(std::size_t d) const noexcept { return extents_[d]; }
  /// Element distances per dimension.
  const std::array<index_t, N>& strides() const noexcept { return strides_; }
  /// Element distance along dimension d.
  index_t stride(std::size_t d) const noexcept { return strides_[d]; }
  /// The number of elements.
  index_t size() const noexcept {
    index_t n = 1;
    for (index_t e : extents_) n *= e;
    return n;
  }
  /// True when it holds no element.
  bool empty() const noexcept { return size() == 0; }
  /// The element at local positions k (one integer per dimension).
  template <index_like... K>
    requires(sizeof...(K) == N)
  T& operator()(K... k) const noexcept {
    const std::array<index_t, N> at{static_cast<index_t>(k)...};
    return (*this)[at];
  }
  /// The element at local positions k.
  T& operator[](const std::array<index_t, N>& k) const noexcept {
    index_t offset = 0;
    for (std::size_t d = 0; d < N; ++d) offset += k[d] * strides_[d];
    return data_[offset];
  }

 private:
  T* data_ = nullptr;
  std::array<index_t, N> extents_{};
  std::array<index_t, N> strides_{};
};

/// `s` as an mdspan type `MDSpan` with a strided mapping, such as
/// `std::mdspan<double, std::dextents<std::int64_t, 2>, std::layout_stride>` (C++23) or
/// Kokkos' `mdspan`: MDSpan(data, mapping_type(extents_type(extents), strides)). The
/// standard's layout_stride needs positive strides: a view stored backwards throws
/// unsupported_error.
template <class MDSpan, class T, std::size_t N>
MDSpan to_mdspan(const strided_span<T, N>& s) {
  using extents_type = typename MDSpan::extents_type;
  using mapping_type = typename MDSpan::mapping_type;
  using I = typename extents_type::index_type;
  std::array<I, N> extents{}, strides{};
  for (std::size_t d = 0; d < N; ++d) {
    if (s.stride(d) <= 0)
      throw unsupported_error("dmap::to_mdspan: stride " + std::to_string(d) + " is " + std::to_string(s.stride(d)) +
                              "; a layout_stride mapping needs positive strides (the view is stored backwards)");
    extents[d] = static_cast<I>(s.extent(d));
    strides[d] = static_cast<I>(s.stride(d));
  }
  return MDSpan(s.data_handle(), mapping_type(extents_type(extents), strides));
}

}  // namespace dmap
