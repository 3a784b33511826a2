// Converting Python numbers and NumPy arrays to the module's element types, one rule for
// single values and whole arrays: values are converted as NumPy converts them (a C cast:
// fractions dropped toward zero, floats rounded to nearest), except what the cast would
// mangle, which is an argument_error naming the argument, the value and the rule:
//   - into int64 / int32: NaN and infinities, and values whose integer part lies outside the
//     dtype's range (an integer too large, 1e300, 2**63 as a float64);
//   - into float32 (or float64 from a longdouble): a finite value beyond the dtype's largest,
//     which the cast would make infinite (NaN and infinities themselves convert);
//   - into a real dtype: complex values, whatever their imaginary part;
//   - object arrays and anything that is not a number.
// Bools convert to 0 and 1; into bool, every number converts (nonzero is true, NaN too, as in
// NumPy). Arrays are checked element by element in C++ before NumPy casts
// them (a vectorised scan, skipped when the source dtype's every value fits, as float64 into
// float64 or int32 into int64), so a refused array leaves its target untouched.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <dmap/io/npy_format.hpp>

#include "common.h"

namespace dmap::python {

/// NumPy's bool element: one byte holding 0 or 1. A type of its own (not bool) so that dmap
/// stores, gathers and sends it as bytes, which std::vector<bool> would pack into bits.
struct boolean {
  bool value = false;
  friend bool operator==(boolean, boolean) = default;
};

/// The dtype code of an element type.
template <class T>
struct dtype_of;
template <>
struct dtype_of<double> : std::integral_constant<dtype_code, dtype_code::f64> {};
template <>
struct dtype_of<float> : std::integral_constant<dtype_code, dtype_code::f32> {};
template <>
struct dtype_of<std::int64_t> : std::integral_constant<dtype_code, dtype_code::i64> {};
template <>
struct dtype_of<std::int32_t> : std::integral_constant<dtype_code, dtype_code::i32> {};
template <>
struct dtype_of<std::complex<double>> : std::integral_constant<dtype_code, dtype_code::c128> {};
template <>
struct dtype_of<boolean> : std::integral_constant<dtype_code, dtype_code::b1> {};

/// True for std::complex types.
template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

/// The type of T's parts: T itself when real, P for std::complex<P>.
template <class T>
struct part_of {
  using type = T;
};
template <class P>
struct part_of<std::complex<P>> {
  using type = P;
};
template <class T>
using part_t = typename part_of<T>::type;

/// NumPy's float16, which C++20 has no type for: only ever a source, checked as float32.
struct half {};

/// True when every value of the real type S converts to the real type R without being refused,
/// so that no check is needed.
template <class S, class R>
constexpr bool always_fits() {
  if constexpr (std::is_same_v<S, bool> || std::is_same_v<R, boolean>) {
    return true;
  } else if constexpr (std::is_integral_v<R>) {
    if constexpr (std::is_integral_v<S>)
      return std::cmp_greater_equal(std::numeric_limits<S>::min(), std::numeric_limits<R>::min()) &&
             std::cmp_less_equal(std::numeric_limits<S>::max(), std::numeric_limits<R>::max());
    else
      return false;  // NaN and infinities at least
  } else if constexpr (std::is_integral_v<S> || std::is_same_v<S, half>) {
    return true;  // 2^64 and 65504 are far below every float type's largest value
  } else {
    return std::numeric_limits<S>::max() <= std::numeric_limits<R>::max();
  }
}

/// Checks values of the real type S against the conversion to the real type R: `refused(x)`
/// is branch-free (the bulk scan vectorises it), `rule(x)` says why for a refused x.
template <class S, class R>
class conversion_rule {
 public:
  conversion_rule() {
    if constexpr (std::is_integral_v<R> && std::is_floating_point_v<S>) {
      // x converts when lo_ < x < hi_: x truncated toward zero lies in R's range.
      const S low = static_cast<S>(std::numeric_limits<R>::min());  // -2^(bits - 1), exact
      const S below = low - S(1);
      // When low - 1 is no S, the next S below `low` already truncates below the range.
      lo_ = below != low ? below : std::nextafter(low, -std::numeric_limits<S>::infinity());
      hi_ = -low;
    } else if constexpr (std::is_floating_point_v<R> && std::is_floating_point_v<S>) {
      // The smallest magnitude the cast rounds to infinity: R's largest value plus half its
      // last step (round to nearest, ties to even, goes up there).
      constexpr int e = std::numeric_limits<R>::max_exponent, digits = std::numeric_limits<R>::digits;
      hi_ = std::ldexp(S(1), e) - std::ldexp(S(1), e - 1 - digits);
    }
  }

  /// True when x does not convert.
  bool refused(S x) const {
    if constexpr (always_fits<S, R>()) {
      (void)x;
      return false;
    } else if constexpr (std::is_integral_v<S>) {
      return !std::in_range<R>(x);
    } else if constexpr (std::is_integral_v<R>) {
      return !((x > lo_) & (x < hi_));
    } else {
      constexpr S inf = std::numeric_limits<S>::infinity();
      return ((x >= hi_) & (x < inf)) | ((x <= -hi_) & (x > -inf));
    }
  }

  /// Why x does not convert to a `target` array ("NaN and infinities do not convert to int64").
  std::string rule(S x, const std::string& target) const {
    if constexpr (std::is_integral_v<R>) {
      if constexpr (std::is_floating_point_v<S>)
        if (!std::isfinite(x)) return "NaN and infinities do not convert to " + target;
      return target + " holds integers in [" + std::to_string(std::numeric_limits<R>::min()) + ", " +
             std::to_string(std::numeric_limits<R>::max()) + "]" +
             (std::is_floating_point_v<S> ? " (a fraction is dropped toward zero first)" : "");
    } else {
      (void)x;
      std::ostringstream m;
      m.precision(std::numeric_limits<R>::max_digits10);
      m << std::numeric_limits<R>::max();
      return "a finite value beyond " + m.str() + " would become infinite in " + target;
    }
  }

 private:
  S lo_{}, hi_{};
};

/// The index of the first of p[0, n) that `rule` refuses, or n. Scans blocks of 4096
/// elements with a branch-free test and looks for the element itself only in a block that
/// holds one. The flag is an S updated by a select, the one shape of this loop GCC 12
/// vectorises with SSE2 alone (an integer flag set from a double comparison needs 64-bit
/// integer compares, which SSE2 lacks).
template <class S, class R>
index_t first_refused(const S* p, index_t n, const conversion_rule<S, R>& rule) {
  constexpr index_t block = 4096;
  for (index_t at = 0; at < n; at += block) {
    const index_t end = std::min(n, at + block);
    S bad{};
    for (index_t k = at; k < end; ++k) bad = rule.refused(p[k]) ? S(1) : bad;
    if (bad != S(0))
      for (index_t k = at; k < end; ++k)
        if (rule.refused(p[k])) return k;
  }
  return n;
}

/// True for the NumPy dtype kinds of numbers: bool, signed and unsigned integers, floats and
/// complex numbers.
inline bool numeric_kind(char kind) {
  return kind == 'b' || kind == 'i' || kind == 'u' || kind == 'f' || kind == 'c';
}

/// Calls f.template operator()<S>() with S the C++ type of the elements of `dt` (a native
/// numeric NumPy dtype): bool, the fixed-width integers, half, float, double, long double or
/// a std::complex of the last three; argument_error naming `who` for another size.
template <class F>
void with_source_type(const py::dtype& dt, const std::string& who, F&& f) {
  const char kind = dt.kind();
  const auto size = static_cast<std::size_t>(dt.itemsize());
  const auto sized = [&]<class... C>() {
    bool found = false;
    ((!found && sizeof(C) == size ? (found = true, f.template operator()<C>(), 0) : 0), ...);
    if (!found)
      throw argument_error(who + ": NumPy dtype " + py::str(py::handle(dt)).cast<std::string>() +
                           " has no C++ counterpart dmap converts from");
  };
  if (kind == 'b') sized.template operator()<bool>();
  else if (kind == 'i') sized.template operator()<std::int8_t, std::int16_t, std::int32_t, std::int64_t>();
  else if (kind == 'u') sized.template operator()<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>();
  else if (kind == 'f' && size == 2) f.template operator()<half>();
  else if (kind == 'f') sized.template operator()<float, double, long double>();
  else sized.template operator()<std::complex<float>, std::complex<double>, std::complex<long double>>();
}

/// `text` cut to at most 40 characters for a message ("1000000000...(401 characters)").
inline std::string shortened(const std::string& text) {
  if (text.size() <= 40) return text;
  return text.substr(0, 30) + "...(" + std::to_string(text.size()) + " characters)";
}

/// The position of flat element k of a C-order array of `shape`: "3" in 1-D, "(1, 2)" else.
inline std::string position_text(py::ssize_t k, const std::vector<py::ssize_t>& shape) {
  std::vector<py::ssize_t> at(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    at[d] = shape[d] > 0 ? k % shape[d] : 0;
    k = shape[d] > 0 ? k / shape[d] : 0;
  }
  if (at.size() == 1) return std::to_string(at[0]);
  std::string s = "(";
  for (std::size_t d = 0; d < at.size(); ++d) s += (d ? ", " : "") + std::to_string(at[d]);
  return s + ")";
}

/// Checks that a NumPy array of dtype `dt` may convert to T at all: numbers (not objects,
/// strings, dates, ...), and no complex numbers into a real T (argument_error "<who>: <what>
/// has dtype ...").
template <class T>
void check_dtype(const py::dtype& dt, const std::string& who, const std::string& what) {
  const char kind = dt.kind();
  const auto text = [&] { return py::str(py::handle(dt)).cast<std::string>(); };
  if (!numeric_kind(kind))
    throw argument_error(who + ": " + what + " has dtype " + text() + "; it must hold numbers" +
                         (kind == 'O' ? " (NumPy makes an object array of a list holding anything but numbers, "
                                        "or an integer beyond 64 bits)"
                                      : ""));
  if (kind == 'c' && !is_complex_v<T> && !std::is_same_v<T, boolean>)
    throw argument_error(who + ": " + what + " has dtype " + text() + "; complex values do not convert to " +
                         dtype_name(dtype_of<T>::value) + " (dmap drops no imaginary parts: pass the real part)");
}

/// The NumPy array `a` (numbers, any shape, order and byte order) as a C-order NumPy array
/// of T, cast by NumPy after checking every element against the rules above: argument_error
/// "<who>: element <position> of <what> is <value>; <rule>" ("the value is" for a 0-d array)
/// for the first element refused, before anything is converted.
template <class T>
py::array_t<T, py::array::c_style | py::array::forcecast> checked_array(py::array a, const std::string& who,
                                                                      const std::string& what) {
  using R = part_t<T>;
  const std::string target = dtype_name(dtype_of<T>::value);
  py::dtype dt = a.dtype();
  check_dtype<T>(dt, who, what);
  py::object np = py::module_::import("numpy");
  if (!dt.attr("isnative").cast<bool>()) {
    a = a.attr("astype")(dt.attr("newbyteorder")("="));
    dt = a.dtype();
  }
  const bool same = dt.kind() == numpy_dtype(dtype_of<T>::value).kind() && dt.itemsize() == sizeof(T);
  if (!same) {
    with_source_type(dt, who, [&]<class S>() {
      using P = part_t<S>;
      if constexpr (!always_fits<P, R>()) {
        using Q = std::conditional_t<std::is_same_v<P, half>, float, P>;  // float16 is checked as float32
        py::array c = std::is_same_v<P, half> ? py::array(a.attr("astype")(np.attr("float32"), "C"))
                                              : py::array(np.attr("ascontiguousarray")(a));
        const conversion_rule<Q, R> rule;
        const auto* parts = static_cast<const Q*>(c.data());
        const index_t n = static_cast<index_t>(c.size()) * (is_complex_v<S> ? 2 : 1);
        const index_t k = first_refused(parts, n, rule);
        if (k < n) {
          const py::ssize_t element = is_complex_v<S> ? k / 2 : k;
          const std::string value = shortened(py::str(c.attr("item")(element)).cast<std::string>());
          // c may have gained a dimension (ascontiguousarray makes 0-d arrays 1-D); a has not.
          const std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
          const std::string subject =
              a.ndim() == 0 ? "the value" : "element " + position_text(element, shape) + " of " + what;
          throw argument_error(who + ": " + subject + " is " + value + "; " + rule.rule(parts[k], target));
        }
        if constexpr (std::is_same_v<P, half>) a = c;  // cast from the float32 copy: the same values
      }
    });
  }
  return py::array_t<T, py::array::c_style | py::array::forcecast>(a);
}

}  // namespace dmap::python

// boolean is NumPy's bool to pybind11 (py::array_t<boolean>) and to .npy files ('|b1').
namespace pybind11::detail {
template <>
struct npy_format_descriptor<dmap::python::boolean> {
  static constexpr auto name = const_name("bool");
  static pybind11::dtype dtype() { return pybind11::dtype("bool"); }
};
}  // namespace pybind11::detail

namespace dmap::detail {
template <>
struct npy_type<dmap::python::boolean> {
  static constexpr bool known = true;
  static std::string descr() { return "|b1"; }
};
}  // namespace dmap::detail
