// The Python face of dmap (module dmap._dmap): what every translation unit of the module
// shares. Internal to the module, hence `.h`: the library's own `*.hpp` files are installed,
// layer-checked and documented by Doxygen, and these are none of that.
//
// Vocabulary: a *section* is what a Python `Array` object looks at: some indices of one
// dmap::array<T, M> (a rect of the array's indices, strides and directions allowed) and the
// array dimensions it keeps (an integer index drops a dimension, as in NumPy). Python
// indexing is by *positions* (0-based, NumPy's rules); dmap's global indices appear only
// where the API says so (Domain.bounds, local_subdomains, local_frame_indices).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <dmap/dsi/range.hpp>
#include <dmap/dsi/rect.hpp>
#include <dmap/runtime/errors.hpp>

namespace dmap::python {

namespace py = pybind11;

/// The element types a Python array may have.
enum class dtype_code : int { f64 = 0, f32 = 1, i64 = 2, i32 = 3, c128 = 4, b1 = 5 };
inline constexpr int dtype_count = 6;
/// The largest rank the module instantiates.
inline constexpr std::size_t max_rank = 3;

/// The dtype a Python object names (a numpy dtype, a type such as numpy.float64 or float, or
/// a string); argument_error for anything else.
dtype_code parse_dtype(py::handle dtype);
/// NumPy's dtype object of `code`.
py::dtype numpy_dtype(dtype_code code);
/// "float64", "float32", "int64", "int32", "complex128", "bool".
const char* dtype_name(dtype_code code);
/// Every dtype's name, for messages: "float64, float32, int64, int32, complex128 or bool".
std::string dtype_list();

/// A Python integer (or NumPy integer) as an int64; argument_error naming `what` when it is
/// not an integer (bool included) or does not fit int64.
index_t to_index(py::handle value, const std::string& what);

/// A Python `range` holding the indices of `r` (same order).
py::object to_py_range(const range& r);
/// A dmap range holding the indices of the Python range `r` (same order).
range from_py_range(py::handle r, const std::string& what);

/// The indices one Python array object looks at (see the header comment).
struct section {
  std::vector<range> target;       ///< per array dimension: the indices covered
  std::vector<std::size_t> dims;   ///< the array dimensions the view keeps, in view order
  bool whole = true;               ///< the whole array, as it is (no slicing yet)

  /// The number of array dimensions.
  std::size_t base_rank() const noexcept { return target.size(); }
  /// The number of view dimensions.
  std::size_t rank() const noexcept { return dims.size(); }
  /// The view's shape.
  std::vector<index_t> shape() const;
  /// The number of elements.
  index_t size() const;
  /// The section of a whole array over `indices`.
  template <std::size_t M>
  static section of(const rect<M>& indices) {
    section s;
    for (std::size_t d = 0; d < M; ++d) s.target.push_back(indices.dim(d)), s.dims.push_back(d);
    return s;
  }
  /// The array's indices covered, as a rect (precondition: base_rank() == M).
  template <std::size_t M>
  rect<M> target_rect() const {
    std::array<range, M> r;
    for (std::size_t d = 0; d < M; ++d) r[d] = target[d];
    return rect<M>(r);
  }
  /// The view's own indices: the kept dimensions of target_rect (precondition: rank() == K).
  template <std::size_t K>
  rect<K> view_rect() const {
    std::array<range, K> r;
    for (std::size_t n = 0; n < K; ++n) r[n] = target[dims[n]];
    return rect<K>(r);
  }
  /// The kept dimensions as an array (precondition: rank() == K).
  template <std::size_t K>
  std::array<std::size_t, K> dims_array() const {
    std::array<std::size_t, K> a{};
    for (std::size_t n = 0; n < K; ++n) a[n] = dims[n];
    return a;
  }
};

/// What a Python subscript selects: a smaller section, or one element (every dimension
/// fixed by an integer; `element` then holds the array index).
struct selection {
  section view;
  bool is_element = false;
  std::vector<index_t> element;
};

/// Applies a NumPy-style subscript (integers, slices with steps, one Ellipsis; fewer entries
/// than dimensions keep the rest whole) to `s`. Positions are 0-based along each view
/// dimension, negative ones count from the end. out_of_bounds_error for an integer outside
/// its dimension or too many entries; argument_error for anything else (None, arrays, ...).
selection select(const section& s, py::handle key);

/// Throws the dmap error matching a Python exception in flight (the caller caught
/// py::error_already_set or another std::exception from Python code): argument_error
/// carrying `who` and the Python message, so that error agreement carries it to every locale.
[[noreturn]] void rethrow_as_dmap(const std::string& who);

/// Runs `f` (local work, no communication) and agrees on failure: when it throws on any
/// locale, every locale throws a dmap error of the same family with the same message (a
/// Python exception becomes an argument_error naming `who`).
template <class F>
auto agreed_local(const std::string& who, F&& f);

}  // namespace dmap::python

#include <dmap/runtime/agreement.hpp>

namespace dmap::python {

/// Adds a section (the indices it covers and the dimensions it keeps) to a fingerprint.
inline void add_section(dmap::detail::fingerprint& f, const section& s) {
  for (const auto& r : s.target) f.add(r.first()).add(r.size()).add(r.stride());
  for (const auto d : s.dims) f.add(d);
}

/// agreed_local comparing the call's arguments `args` across locales in the same agreement.
template <class F>
auto agreed_local(const std::string& who, const dmap::detail::call_arguments& args, F&& f) {
  return dmap::agreed(args, [&]() -> decltype(f()) {
    try {
      return f();
    } catch (const dmap::error&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (...) {
      rethrow_as_dmap(who);
    }
  });
}

template <class F>
auto agreed_local(const std::string& who, F&& f) {
  return agreed_local(who, dmap::detail::call_arguments{}, std::forward<F>(f));
}

}  // namespace dmap::python
