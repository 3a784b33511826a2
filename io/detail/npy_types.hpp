// The machinery behind npy_format.hpp (not part of the API): the NumPy dtype of each element
// type dmap writes to .npy files, and the largest header dmap reads.
#pragma once

#include <bit>
#include <complex>
#include <cstdint>
#include <string>

#include "../../dsi/index_type.hpp"

namespace dmap {

namespace detail {

template <class T>
struct npy_type {
  static constexpr bool known = false;
};
template <class T>
struct npy_type_of_size {
  static constexpr bool known = true;
  static constexpr char endian = sizeof(T) == 1 ? '|' : (std::endian::native == std::endian::little ? '<' : '>');
};
#define DMAP_NPY_TYPE(T, kind)                                        \
  template <>                                                         \
  struct npy_type<T> : npy_type_of_size<T> {                          \
    static std::string descr() {                                      \
      return std::string(1, endian) + kind + std::to_string(sizeof(T)); \
    }                                                                 \
  };
DMAP_NPY_TYPE(std::int8_t, 'i')
DMAP_NPY_TYPE(std::uint8_t, 'u')
DMAP_NPY_TYPE(std::int16_t, 'i')
DMAP_NPY_TYPE(std::uint16_t, 'u')
DMAP_NPY_TYPE(std::int32_t, 'i')
DMAP_NPY_TYPE(std::uint32_t, 'u')
DMAP_NPY_TYPE(std::int64_t, 'i')
DMAP_NPY_TYPE(std::uint64_t, 'u')
DMAP_NPY_TYPE(float, 'f')
DMAP_NPY_TYPE(double, 'f')
DMAP_NPY_TYPE(std::complex<float>, 'c')
DMAP_NPY_TYPE(std::complex<double>, 'c')
#undef DMAP_NPY_TYPE

/// The largest .npy header dmap reads (numpy's own limit for untrusted files is 10000 bytes).
inline constexpr index_t npy_header_limit = index_t{1} << 20;

}  // namespace detail

}  // namespace dmap
