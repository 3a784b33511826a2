// The NumPy side of .npy files: the element types that have a dtype (npy_element, npy_descr)
// and what a file's header says (npy_header).
#pragma once

#include <string>
#include <vector>

#include "../dsi/index_type.hpp"
#include "detail/npy_types.hpp"

namespace dmap {

/// An element type with a NumPy dtype: the fixed-width integers, float, double,
/// std::complex<float> and std::complex<double>.
template <class T>
concept npy_element = detail::npy_type<T>::known;

/// The NumPy dtype string of T in this machine's byte order ("<f8" for double).
template <npy_element T>
std::string npy_descr() {
  return detail::npy_type<T>::descr();
}

/// What an .npy file's header says.
struct npy_header {
  std::string descr;           ///< the dtype, as NumPy writes it ("<f8")
  bool fortran_order = false;  ///< true: the elements are in column-major order
  std::vector<index_t> shape;  ///< the extent of each dimension
  index_t data_offset = 0;     ///< the byte where the elements start
  /// The number of elements (the product of the shape).
  index_t elements() const noexcept {
    index_t n = 1;
    for (const auto e : shape) n *= e;
    return n;
  }
};

}  // namespace dmap
