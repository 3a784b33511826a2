// typed_array<T, M>: the implementation of array_handle for one element type and rank.
// Included by the file of each dtype (array_<dtype>.cpp), which instantiates it for M = 1, 2, 3
// through make_typed<T>.
#pragma once

#include <pybind11/complex.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>
#include <utility>

#include <dmap/algorithms/halos.hpp>
#include <dmap/dsi/array.hpp>
#include <dmap/dsi/array_view.hpp>
#include <dmap/interop/dap_export.hpp>
#include <dmap/interop/dap_import.hpp>
#include <dmap/interop/partitioned.hpp>
#include <dmap/io/npy.hpp>
#include <dmap/iterators/reduce.hpp>
#include <dmap/runtime/collectives.hpp>
#include <dmap/dsi/detail/domain_state.hpp>
#include <dmap/runtime/detail/byte_exchange.hpp>

#include "array.h"
#include "conversions.h"

namespace dmap::python {

/// The rank of an array or view type.
template <class X>
struct rank_of;
template <class T, std::size_t N>
struct rank_of<dmap::array<T, N>> : std::integral_constant<std::size_t, N> {};
template <class T, std::size_t N, std::size_t M>
struct rank_of<dmap::array_view<T, N, M>> : std::integral_constant<std::size_t, N> {};
template <class X>
inline constexpr std::size_t rank_of_v = rank_of<std::remove_cvref_t<X>>::value;

/// The text of a shape, "(3, 4)".
inline std::string shape_text(const std::vector<index_t>& s) {
  std::ostringstream m;
  m << "(";
  for (std::size_t d = 0; d < s.size(); ++d) m << (d ? ", " : "") << s[d];
  m << (s.size() == 1 ? ",)" : ")");
  return m.str();
}

/// x (a value of the real type S) as a T under the rules of conversions.h; `refuse(rule)`
/// makes the error.
template <class T, class S, class E>
T checked_scalar(S x, E&& refuse) {
  const conversion_rule<S, part_t<T>> rule;
  if (rule.refused(x)) throw refuse(rule.rule(x, dtype_name(dtype_of<T>::value)));
  return static_cast<T>(x);
}

/// v as a 0-d NumPy array when it is a NumPy scalar or array (argument_error naming `who` for
/// an array of one or more dimensions); nothing for any other object.
inline std::optional<py::array> numpy_value(py::handle v, const std::string& who) {
  const py::module_ np = py::module_::import("numpy");
  if (!py::isinstance<py::array>(v) && !py::isinstance(v, np.attr("generic"))) return std::nullopt;
  py::array a = np.attr("asarray")(v);
  if (a.ndim() != 0)
    throw argument_error(who + ": the value is a NumPy array of shape " + py::str(a.attr("shape")).cast<std::string>() +
                         "; one number is expected here (A[...] = array assigns an array)");
  return a;
}

/// A Python number, NumPy scalar or 0-d NumPy array as a T (a number type), converted as NumPy
/// converts it except what conversions.h refuses (argument_error naming `who`, the value and the rule):
/// the same rules as a NumPy array assigned in bulk (checked_array).
template <class T>
T number_of(py::handle v, const std::string& who) {
  using R = part_t<T>;
  const std::string target = dtype_name(dtype_of<T>::value);
  const auto refuse = [&](const std::string& rule) {
    return argument_error(who + ": the value is " + shortened(py::repr(v).cast<std::string>()) + "; " + rule);
  };
  if (const auto a = numpy_value(v, who)) {
    if (a->dtype().kind() == 'O') return number_of<T>(a->attr("item")(), who);  // one Python object
    return *checked_array<T>(*a, who, "the value").data();
  }
  if (PyBool_Check(v.ptr())) return static_cast<T>(v.ptr() == Py_True ? 1 : 0);
  if (PyComplex_Check(v.ptr())) {
    if constexpr (is_complex_v<T>) {
      const Py_complex c = PyComplex_AsCComplex(v.ptr());
      return T(c.real, c.imag);
    } else {
      throw refuse("complex values do not convert to " + target + " (dmap drops no imaginary parts: pass the real part)");
    }
  }
  if (PyIndex_Check(v.ptr())) {  // Python ints, anything with __index__
    const auto i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
    if (!i) {
      PyErr_Clear();
      throw refuse("it is not a number");
    }
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow == 0) return checked_scalar<T>(static_cast<std::int64_t>(x), refuse);
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(i.ptr());
      if (!PyErr_Occurred()) return checked_scalar<T>(static_cast<std::uint64_t>(u), refuse);
      PyErr_Clear();
    }
    // Beyond 64 bits (NumPy makes such integers objects, never numbers).
    if constexpr (std::is_integral_v<R>) {
      throw refuse(conversion_rule<std::uint64_t, R>().rule(0, target));
    } else {
      const double d = PyLong_AsDouble(i.ptr());
      if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        throw refuse(conversion_rule<long double, R>().rule(0, target));
      }
      return checked_scalar<T>(d, refuse);
    }
  }
  if constexpr (is_complex_v<T>) {
    const Py_complex c = PyComplex_AsCComplex(v.ptr());
    if (c.real == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      throw refuse("it is not a number");
    }
    return T(c.real, c.imag);
  } else {
    const double d = PyFloat_AsDouble(v.ptr());  // Python floats, anything with __float__
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      throw refuse("it is not a real number");
    }
    return checked_scalar<T>(d, refuse);
  }
}

/// A Python number, NumPy scalar or 0-d NumPy array as a bool: NumPy's truth of the number
/// (nonzero is true, NaN too); argument_error naming `who` for anything that is not a number.
inline boolean truth_of(py::handle v, const std::string& who) {
  const auto refuse = [&](const std::string& rule) {
    return argument_error(who + ": the value is " + shortened(py::repr(v).cast<std::string>()) + "; " + rule);
  };
  if (const auto a = numpy_value(v, who)) {
    if (a->dtype().kind() == 'O') return truth_of(a->attr("item")(), who);  // one Python object
    return *checked_array<boolean>(*a, who, "the value").data();
  }
  if (PyNumber_Check(v.ptr())) {  // Python's numbers and anything with __index__, __int__ or __float__
    const int truth = PyObject_IsTrue(v.ptr());
    if (truth < 0) {
      PyErr_Clear();
      throw refuse("it is not a number");
    }
    return boolean{truth == 1};
  }
  throw refuse("it is not a number");
}

/// A Python number, NumPy scalar or 0-d NumPy array as a T: number_of, or truth_of for bool.
template <class T>
T scalar_of(py::handle v, const std::string& who) {
  if constexpr (std::is_same_v<T, boolean>)
    return truth_of(v, who);
  else
    return number_of<T>(v, who);
}

/// A T as a NumPy scalar of dtype `code`.
template <class T>
py::object numpy_scalar(const T& v, dtype_code code) {
  if constexpr (std::is_same_v<T, boolean>)
    return numpy_dtype(code).attr("type")(py::bool_(v.value));
  else
    return numpy_dtype(code).attr("type")(py::cast(v));
}

/// Calls f(offset_a, offset_b) for every element of a block of `ext` elements, in row-major
/// order, stepping by `sa` and `sb` elements per dimension.
template <std::size_t K, class F>
void for_each_offset(const std::array<index_t, K>& ext, const std::array<index_t, K>& sa,
                     const std::array<index_t, K>& sb, F&& f) {
  for (index_t e : ext)
    if (e == 0) return;
  if constexpr (K == 1) {
    for (index_t i = 0; i < ext[0]; ++i) f(i * sa[0], i * sb[0]);
  } else if constexpr (K == 2) {
    for (index_t i = 0; i < ext[0]; ++i)
      for (index_t j = 0; j < ext[1]; ++j) f(i * sa[0] + j * sa[1], i * sb[0] + j * sb[1]);
  } else {
    static_assert(K == 3);
    for (index_t i = 0; i < ext[0]; ++i)
      for (index_t j = 0; j < ext[1]; ++j)
        for (index_t k = 0; k < ext[2]; ++k)
          f(i * sa[0] + j * sa[1] + k * sa[2], i * sb[0] + j * sb[1] + k * sb[2]);
  }
}

/// One owned piece of a view as NumPy sees it: the first element, the element steps per
/// dimension, the extents, and where it sits in the view (first position, position step).
template <class T, std::size_t K>
struct piece {
  T* data = nullptr;
  std::array<index_t, K> extents{}, steps{}, first_position{}, position_steps{};
};

/// The piece `owned` of a view whose indices are `whole`, stored as `block`.
template <class T, std::size_t K>
piece<T, K> piece_of(const rect<K>& owned, const local_block<T, K>& block, const rect<K>& whole) {
  piece<T, K> p;
  p.extents = owned.shape();
  const idx<K> first = owned.first();
  p.data = block.base + block.layout.offset_of(first);
  for (std::size_t d = 0; d < K; ++d) {
    p.first_position[d] = whole.dim(d).order_of(first[d]);
    if (owned.dim(d).size() > 1) {
      idx<K> next = first;
      next[d] = owned.dim(d).index_at(1);
      p.steps[d] = block.layout.offset_of(next) - block.layout.offset_of(first);
      p.position_steps[d] = whole.dim(d).order_of(next[d]) - p.first_position[d];
    } else {
      p.steps[d] = block.layout.strides[d];
      p.position_steps[d] = 1;
    }
  }
  return p;
}

template <class T, std::size_t M>
class typed_array final : public array_handle {
  // Sums and products accumulate as NumPy's do: float32 in float64 (then float32), int32 and
  // bool in int64 (NumPy's sum of bools counts them).
  static constexpr bool widened_to_int64 = std::is_same_v<T, std::int32_t> || std::is_same_v<T, boolean>;
  using acc_sum_t = std::conditional_t<std::is_same_v<T, float>, double,
                                       std::conditional_t<widened_to_int64, std::int64_t, T>>;
  using out_sum_t = std::conditional_t<widened_to_int64, std::int64_t, T>;

 public:
  /// A new array over `d`, every element zero: the storage of a released array of the same
  /// domain, dtype and rank when the reuse pool holds one (zeroed here unless `zeroed` is
  /// false: then the owned elements are unspecified; ghost cells and padding are zeroed
  /// anyway), else new storage.
  explicit typed_array(std::shared_ptr<domain_handle> d, bool zeroed = true) : dom_(std::move(d)) {
    if (auto reused = take_reusable(dom_.get(), static_cast<int>(dtype_of<T>::value), M)) {
      a_ = std::static_pointer_cast<dmap::array<T, M>>(std::move(reused));
      const auto& state = *dmap::detail::state_of(a_->domain());
      if (zeroed || !state.dense_storage) {  // storage beyond the owned elements (ghosts, padding) stays zero
        std::fill_n(a_->local_data(), state.storage_size, T{});
        dmap::barrier();  // every locale's zeros are written before any locale reads the array
      }
      return;
    }
    a_ = std::make_shared<dmap::array<T, M>>(dom_->template get<M>());
  }
  /// An array made by an import (`adopted` uses the producer's buffers; `keep` holds the
  /// Python objects owning them, released after the array).
  typed_array(std::shared_ptr<domain_handle> d, dmap::array<T, M>&& adopted, py::object keep)
      : dom_(std::move(d)), keep_(std::move(keep)) {
    a_ = std::make_shared<dmap::array<T, M>>(std::move(adopted));
  }
  ~typed_array() override {
    if (keep_ || !a_)
      bury();  // an import's storage is its producer's: never reused
    else
      bury_reusable({dom_, static_cast<int>(dtype_of<T>::value), M});
  }
  std::shared_ptr<void> take() noexcept override {
    if (!keep_) return std::move(a_);
    // The array goes first (members are destroyed in reverse order), then the producer's buffers.
    struct holder {
      py::object keep;
      std::shared_ptr<dmap::array<T, M>> a;
    };
    return std::make_shared<holder>(holder{std::move(keep_), std::move(a_)});
  }

  dtype_code dtype() const noexcept override { return dtype_of<T>::value; }
  std::size_t rank() const noexcept override { return M; }
  const std::shared_ptr<domain_handle>& domain() const noexcept override { return dom_; }
  section whole() const override { return section::of<M>(arr().domain().indices()); }

  /// The dmap array; runtime_error once released.
  dmap::array<T, M>& arr() const {
    check_running("dmap.Array");
    if (!a_) throw runtime_error("dmap.Array: this array has been released");
    return *a_;
  }

  /// f(the whole array) or f(a view of rank s.rank()).
  template <class F>
  decltype(auto) visit(const section& s, F&& f) const {
    if (s.whole) return f(arr());
    return visit_view(s, f);
  }
  template <class F>
  decltype(auto) visit_view(const section& s, F&& f) const {
    if (s.rank() == 1) return f(view<1>(s));
    if constexpr (M >= 2)
      if (s.rank() == 2) return f(view<2>(s));
    if constexpr (M >= 3)
      if (s.rank() == 3) return f(view<3>(s));
    throw argument_error("dmap.Array: a view of rank " + std::to_string(s.rank()) + " of a " + std::to_string(M) +
                         "-D array");
  }
  template <std::size_t K>
  dmap::array_view<T, K, M> view(const section& s) const {
    return dmap::array_view<T, K, M>(arr(), s.target_rect<M>(), s.view_rect<K>(), s.dims_array<K>());
  }

  /// f(piece) for each non-empty owned piece of `s`, in the order dmap lists them.
  template <class F>
  void for_each_piece(const section& s, F&& f) const {
    visit(s, [&](auto&& x) {
      constexpr std::size_t K = rank_of_v<decltype(x)>;
      const rect<K> whole = s.view_rect<K>();
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(x)>, dmap::array<T, M>>) {
        const auto& owned = x.domain().local_subdomains();
        const auto& blocks = x.local_blocks();
        for (std::size_t b = 0; b < owned.size() && b < blocks.size(); ++b)
          if (!owned[b].empty()) f(piece_of<T, K>(owned[b], blocks[b], whole));
      } else {
        const auto& owned = x.local_subdomains();
        const auto blocks = x.local_blocks();
        for (std::size_t b = 0; b < owned.size() && b < blocks.size(); ++b)
          if (!owned[b].empty()) f(piece_of<T, K>(owned[b], blocks[b], whole));
      }
    });
  }

  void assign(const section& dst, const array_handle& src, const section& from) override {
    // Agreed: a dtype or a shape that is wrong on one locale only (a slice computed from the
    // rank) fails on every locale; the assignment then agrees the two sides' identities.
    dmap::detail::fingerprint f;
    add_section(f, dst);
    add_section(f, from);
    f.add(static_cast<int>(src.dtype()));
    agreed_local("dmap.Array[...] = Array", {"dmap.Array[...] = Array", f.value(), [] {
                   return std::string("the sections and dtypes of an assignment");
                 }},
                 [&] {
                   if (src.dtype() != dtype())
                     throw argument_error(std::string("dmap.Array: cannot assign a ") + dtype_name(src.dtype()) +
                                          " array to a " + dtype_name(dtype()) +
                                          " array; dmap assigns between arrays of one dtype");
                   if (dst.shape() != from.shape())
                     throw shape_error("dmap.Array: cannot assign an array of shape " + shape_text(from.shape()) +
                                       " to one of shape " + shape_text(dst.shape()));
                 });
    with_rank(src.rank(), [&]<std::size_t M2>() {
      const auto& other = dynamic_cast<const typed_array<T, M2>&>(src);
      visit(dst, [&](auto&& x) {
        other.visit(from, [&](auto&& y) {
          if constexpr (rank_of_v<decltype(x)> == rank_of_v<decltype(y)>) x = y;
        });
      });
    });
  }

  void fill(const section& dst, py::handle value) override {
    // Agreed: a value that is wrong on one locale only fails on every locale.
    const T v = agreed_local("dmap.Array.fill", [&] { return scalar_of<T>(value, "dmap.Array.fill"); });
    if (dst.whole) {
      dmap::view_of(arr()) = v;
    } else {
      visit_view(dst, [&](auto&& x) { x = v; });
    }
  }

  void assign_numpy(const section& dst, py::handle values) override {
    const std::string who = "dmap.Array[...] = ndarray";
    const std::vector<index_t> shape = dst.shape();
    // Agreed, and checked whole before any element is written: an array wrong on one locale
    // fails on every locale and leaves the target as it was.
    // The contents are compared too (a hash of the converted elements, folded into the same
    // agreement): every locale must pass the same array.
    const dmap::detail::collective_scope scope;
    dmap::detail::call_arguments args{"dmap.Array[...] = ndarray", 0,
                                      [] { return std::string("the section and the NumPy array's elements"); }};
    const auto c = agreed_local(who, args, [&] {
      py::array a = py::module_::import("numpy").attr("asarray")(values);
      check_dtype<T>(a.dtype(), who, "the NumPy array");
      std::vector<index_t> given(a.shape(), a.shape() + a.ndim());
      if (given != shape)
        throw shape_error(who + ": the NumPy array has shape " + shape_text(given) + ", the target " +
                          shape_text(shape) + "; every locale passes the whole array");
      auto checked = checked_array<T>(a, who, "the NumPy array");
      dmap::detail::fingerprint f;
      add_section(f, dst);
      f.add_buffer(checked.data(), static_cast<std::size_t>(checked.size()) * sizeof(T));
      args.fingerprint = f.value();
      return checked;
    });
    const T* in = c.data();
    std::vector<index_t> cstrides(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;) cstrides[d - 1] = cstrides[d] * shape[d];
    for_each_piece(dst, [&](const auto& p) {
      constexpr std::size_t K = std::tuple_size_v<std::remove_cvref_t<decltype(p.extents)>>;
      index_t start = 0;
      std::array<index_t, K> sa{};
      for (std::size_t d = 0; d < K; ++d) {
        start += p.first_position[d] * cstrides[d];
        sa[d] = p.position_steps[d] * cstrides[d];
      }
      T* out = p.data;
      for_each_offset<K>(p.extents, sa, p.steps, [&](index_t a, index_t b) { out[b] = in[start + a]; });
    });
  }

  py::object reduce(const section& s, reduction r) override {
    if constexpr (is_complex_v<T>) {
      if (r == reduction::min || r == reduction::max)
        throw unsupported_error("dmap.Array.min/max: complex128 elements have no order; reduce the real or "
                                "imaginary parts instead");
    }
    if ((r == reduction::min || r == reduction::max) && s.size() == 0)
      throw argument_error(std::string("dmap.Array.") + (r == reduction::min ? "min" : "max") +
                           ": the array is empty; an empty array has no minimum or maximum");
    const auto widen = [](const T& v) {
      if constexpr (std::is_same_v<T, boolean>)
        return static_cast<acc_sum_t>(v.value);
      else
        return static_cast<acc_sum_t>(v);
    };
    switch (r) {
      case reduction::sum: {
        const acc_sum_t v = visit(s, [&](auto&& x) { return dmap::reduce(x, acc_sum_t{}, std::plus<>{}, widen); });
        return numpy_scalar(static_cast<out_sum_t>(v), dtype_of<out_sum_t>::value);
      }
      case reduction::prod: {
        const acc_sum_t v =
            visit(s, [&](auto&& x) { return dmap::reduce(x, acc_sum_t{1}, std::multiplies<>{}, widen); });
        return numpy_scalar(static_cast<out_sum_t>(v), dtype_of<out_sum_t>::value);
      }
      case reduction::min:
      case reduction::max:
        if constexpr (std::is_same_v<T, boolean>) {  // min is all, max is any (NumPy's order of bools)
          const bool low = r == reduction::min;
          const auto pick = [low](const T& a, const T& b) { return T{low ? (a.value && b.value) : (a.value || b.value)}; };
          const T v = visit(s, [&](auto&& x) { return dmap::reduce(x, T{low}, pick); });
          return numpy_scalar(v, dtype());
        } else if constexpr (!is_complex_v<T>) {
          const bool low = r == reduction::min;
          // NaN wins, as in NumPy.
          const auto pick = [low](const T& a, const T& b) -> T {
            if constexpr (std::is_floating_point_v<T>) {
              if (a != a) return a;
              if (b != b) return b;
            }
            return low ? (b < a ? b : a) : (a < b ? b : a);
          };
          const T init = low ? (std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                                     : std::numeric_limits<T>::max())
                             : (std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                     : std::numeric_limits<T>::lowest());
          const T v = visit(s, [&](auto&& x) { return dmap::reduce(x, init, pick); });
          return numpy_scalar(v, dtype());
        }
        break;
    }
    throw argument_error("dmap.Array: unknown reduction");
  }

  py::object gather(const section& s, const gather_request& to) override {
    const std::string who = to.who;
    const int p = num_locales();
    index_t bytes_total = 0;
    if (__builtin_mul_overflow(s.size(), static_cast<index_t>(sizeof(T)), &bytes_total))
      bytes_total = std::numeric_limits<index_t>::max();
    dmap::detail::call_arguments args{to.who, 0, [&] {
                                        return to.every_locale ? "every locale" : "root " + py::repr(to.root).cast<std::string>();
                                      }};
    // Agreed, with the root and the limit in the fingerprint: a root or a limit that is bad or
    // differs on one locale fails on every locale instead of leaving some in the broadcast.
    const int root = agreed_local(who, args, [&] {
      if (to.refused) throw argument_error(who + ": " + to.refused);
      int r = -1;
      if (!to.every_locale) {
        if (to.root.is_none())
          throw argument_error(who + ": root is None; gather delivers to one locale, as mpi4py's comm.gather does: "
                                     "pass a locale, or call allgather() for every locale");
        const index_t q = to_index(to.root, who + ": root");
        if (q < 0 || q >= p)
          throw argument_error(who + ": root is " + std::to_string(q) + "; it must be a locale in [0, " +
                               std::to_string(p) + ")");
        r = static_cast<int>(q);
      }
      if (to.limit_bytes >= 0 && bytes_total > to.limit_bytes)
        throw argument_error(who + ": the array holds " + std::to_string(bytes_total) +
                             " bytes, above dmap.gather_limit() (" + std::to_string(to.limit_bytes) +
                             " bytes), and converting it copies all of them to every locale; call allgather() or "
                             "gather(root) to ask for the copy, or raise the limit with dmap.set_gather_limit()");
      dmap::detail::fingerprint f;
      add_section(f, s);
      f.add(r).add(to.limit_bytes);
      args.fingerprint = f.value();
      return r;
    });
    const std::vector<index_t> shape = s.shape();
    std::vector<T> v = visit(s, [](auto&& x) { return x.gather(); });  // the elements, on locale 0
    const std::vector<py::ssize_t> np_shape(shape.begin(), shape.end());
    const auto bytes = static_cast<std::size_t>(s.size()) * sizeof(T);
    const auto as_numpy = [&](const void* data) {  // only where the elements are delivered
      py::array_t<T> out(np_shape);
      if (bytes > 0) std::memcpy(out.mutable_data(), data, bytes);
      return py::object(std::move(out));
    };
    if (root == 0) return here() == 0 ? as_numpy(v.data()) : py::object(py::none());
    if (root > 0) {  // one message from locale 0 to the root
      dmap::detail::byte_buffers outgoing(static_cast<std::size_t>(p));
      if (here() == 0) outgoing[static_cast<std::size_t>(root)] = dmap::detail::to_bytes(std::exchange(v, {}));
      const auto incoming = dmap::detail::exchange(std::move(outgoing));
      return here() == root ? as_numpy(incoming[0].data()) : py::object(py::none());
    }
    py::array_t<T> out(np_shape);
    if (here() == 0 && bytes > 0) std::memcpy(out.mutable_data(), v.data(), bytes);
    auto* raw = reinterpret_cast<char*>(out.mutable_data());
    constexpr std::size_t chunk = std::size_t{1} << 30;
    for (std::size_t at = 0; at < bytes; at += chunk) dmap::detail::broadcast_bytes(raw + at, std::min(chunk, bytes - at), 0);
    return out;
  }

  py::list local_blocks(const section& s, py::handle owner) override {
    py::list out;
    const py::dtype dt = numpy_dtype(dtype());
    for_each_piece(s, [&](const auto& p) {
      std::vector<py::ssize_t> shape(p.extents.begin(), p.extents.end()), strides;
      for (index_t st : p.steps) strides.push_back(static_cast<py::ssize_t>(st * static_cast<index_t>(sizeof(T))));
      out.append(py::array(dt, shape, strides, p.data, owner));
    });
    return out;
  }

  py::list local_slices(const section& s) override {
    py::list out;
    for_each_piece(s, [&](const auto& p) {
      py::tuple t(p.extents.size());
      for (std::size_t d = 0; d < p.extents.size(); ++d) {
        const index_t start = p.first_position[d], step = p.position_steps[d];
        const index_t stop = start + step * p.extents[d];
        t[d] = py::reinterpret_steal<py::object>(
            PySlice_New(py::int_(start).ptr(), stop < 0 ? Py_None : py::int_(stop).ptr(), py::int_(step).ptr()));
      }
      out.append(t);
    });
    return out;
  }

  py::list local_frames(py::handle owner) override {
    py::list out;
    const py::dtype dt = numpy_dtype(dtype());
    for (const auto& b : arr().local_blocks()) {
      if (b.layout.indices.empty()) continue;
      const auto ext = b.extents();
      std::vector<py::ssize_t> shape(ext.begin(), ext.end()), strides;
      for (index_t st : b.strides()) strides.push_back(static_cast<py::ssize_t>(st * static_cast<index_t>(sizeof(T))));
      out.append(py::array(dt, shape, strides, b.data(), owner));
    }
    return out;
  }

  py::list local_frame_indices() override {
    py::list out;
    for (const auto& b : arr().local_blocks()) {
      if (b.layout.indices.empty()) continue;
      py::tuple t(M);
      for (std::size_t d = 0; d < M; ++d) t[d] = to_py_range(b.layout.indices.dim(d));
      out.append(t);
    }
    return out;
  }

  void update_halos(bool star) override {
    dmap::update_halos(arr(), star ? halo_shape::star : halo_shape::box);
  }

  void write_npy(const section& s, const std::string& path) override {
    visit(s, [&](auto&& x) { dmap::write_npy(path, x); });
  }
  void read_npy(const section& s, const std::string& path) override {
    visit(s, [&](auto&& x) { dmap::read_npy(path, x); });
  }

  py::object get(const std::vector<index_t>& i) override {
    const T v = arr()[element(i)];
    return numpy_scalar(v, dtype());
  }
  void set(const std::vector<index_t>& i, py::handle value) override {
    arr()[element(i)] = scalar_of<T>(value, "dmap.Array[...] = value");
  }

  std::shared_ptr<array_handle> copy() override {
    auto made = std::make_shared<typed_array<T, M>>(dom_, false);  // every element assigned next
    made->arr() = arr();
    return made;
  }

 private:
  static idx<M> element(const std::vector<index_t>& i) {
    idx<M> at{};
    for (std::size_t d = 0; d < M && d < i.size(); ++d) at[d] = i[d];
    return at;
  }

  std::shared_ptr<domain_handle> dom_;
  py::object keep_;
  std::shared_ptr<dmap::array<T, M>> a_;

 public:
  py::dict distarray(py::handle owner) override {
    const dmap::dap_description<T, M> x = dmap::dap_export(arr());
    py::dict out;
    out["__version__"] = x.version;
    std::vector<py::ssize_t> shape, strides;
    for (std::size_t d = 0; d < M; ++d) {
      shape.push_back(static_cast<py::ssize_t>(x.shape[d]));
      strides.push_back(static_cast<py::ssize_t>(x.strides[d] * static_cast<index_t>(sizeof(T))));
    }
    const py::dtype dt = numpy_dtype(dtype());
    if (x.buffer != nullptr) out["buffer"] = py::array(dt, shape, strides, x.buffer, owner);
    else out["buffer"] = py::array(dt, shape);  // no element here: an empty array
    py::tuple dims(M);
    for (std::size_t d = 0; d < M; ++d) {
      const dap_dimension& dim = x.dim_data[d];
      py::dict dd;
      dd["dist_type"] = std::string(1, dim.dist_type);
      dd["size"] = dim.size;
      dd["proc_grid_size"] = dim.proc_grid_size;
      dd["proc_grid_rank"] = dim.proc_grid_rank;
      if (dim.dist_type == 'b') {
        dd["start"] = dim.start;
        dd["stop"] = dim.stop;
        dd["padding"] = py::make_tuple(dim.padding[0], dim.padding[1]);
        dd["periodic"] = dim.periodic;
      } else if (dim.dist_type == 'c') {
        dd["start"] = dim.start;
        dd["block_size"] = dim.block_size;
      } else if (dim.dist_type == 'u') {
        py::array_t<std::int64_t> idx(static_cast<py::ssize_t>(dim.indices.size()));
        std::copy(dim.indices.begin(), dim.indices.end(), idx.mutable_data());
        dd["indices"] = idx;
        dd["one_to_one"] = dim.one_to_one;
      }
      dims[d] = dd;
    }
    out["dim_data"] = dims;
    return out;
  }

  py::dict partitioned(py::handle owner, const py::list& locations) override {
    const dmap::partitioned<T, M> x = dmap::partitioned_export(arr());
    const auto tuple = [](const auto& v) {
      py::tuple t(v.size());
      for (std::size_t k = 0; k < v.size(); ++k) t[k] = v[k];
      return t;
    };
    py::dict out, parts;
    out["shape"] = tuple(x.shape);
    out["partition_tiling"] = tuple(x.partition_tiling);
    const py::dtype dt = numpy_dtype(dtype());
    for (const auto& [position, tile] : x.partitions) {
      py::dict t;
      t["start"] = tuple(tile.start);
      t["shape"] = tuple(tile.shape);
      if (tile.data != nullptr) {
        std::vector<py::ssize_t> shape, strides;
        for (std::size_t d = 0; d < M; ++d) {
          shape.push_back(static_cast<py::ssize_t>(tile.shape[d]));
          strides.push_back(static_cast<py::ssize_t>(tile.strides[d] * static_cast<index_t>(sizeof(T))));
        }
        t["data"] = py::array(dt, shape, strides, tile.data, owner);
      } else {
        t["data"] = py::none();
      }
      py::list where;
      for (const int q : tile.location) where.append(locations[static_cast<std::size_t>(q)]);
      t["location"] = where;
      parts[tuple(position)] = t;
    }
    out["partitions"] = parts;
    py::list locals;
    for (const auto& position : x.locals) locals.append(tuple(position));
    out["locals"] = locals;
    return out;
  }

  py::list partitioned_fetch(const std::vector<std::vector<index_t>>& positions) override {
    const dmap::partitioned<T, M> x = dmap::partitioned_export(arr());
    std::vector<dmap::tile_position<M>> at;
    for (const auto& p : positions) {
      if (p.size() != M)
        throw argument_error("dmap.Array.__partitioned__['get']: a position has " + std::to_string(p.size()) +
                             " entries; the partition grid has " + std::to_string(M) + " dimensions");
      dmap::tile_position<M> t{};
      for (std::size_t d = 0; d < M; ++d) t[d] = p[d];
      at.push_back(t);
    }
    const auto got = x.get(at);
    py::list out;
    for (std::size_t k = 0; k < at.size(); ++k) {
      const auto& tile = x.partitions.at(at[k]);
      std::vector<py::ssize_t> shape(tile.shape.begin(), tile.shape.end());
      py::array_t<T> a(shape);
      if (!got[k].empty()) std::copy(got[k].begin(), got[k].end(), a.mutable_data());
      out.append(a);
    }
    return out;
  }
};

/// Collective: a typed array of T over `d`, of d's rank (zeroed: see typed_array's constructor).
template <class T>
std::shared_ptr<array_handle> make_typed(const std::shared_ptr<domain_handle>& d, bool zeroed) {
  return with_rank(d->rank(), [&]<std::size_t M>() -> std::shared_ptr<array_handle> {
    return std::make_shared<typed_array<T, M>>(d, zeroed);
  });
}

/// Collective: the array adopting a DAP producer's buffers, of T and the description's rank.
template <class T>
std::shared_ptr<array_handle> import_dap_typed(const dap_input& in) {
  return with_rank(in.dims.size(), [&]<std::size_t M>() -> std::shared_ptr<array_handle> {
    dmap::dap_description<T, M> x;
    x.version = in.version;
    x.buffer = static_cast<T*>(in.data);
    for (std::size_t d = 0; d < M; ++d) {
      x.shape[d] = in.shape[d];
      x.strides[d] = in.strides[d];
      x.dim_data[d] = in.dims[d];
    }
    dmap::array<T, M> a = dmap::dap_import(x);
    auto dom = std::make_shared<domain_handle>(M, py::str("dap"), std::make_shared<dmap::domain<M>>(a.domain()));
    return std::make_shared<typed_array<T, M>>(dom, std::move(a), in.keep);
  });
}

/// Collective: the array adopting a __partitioned__ producer's partitions.
template <class T>
std::shared_ptr<array_handle> import_partitioned_typed(const partitioned_input& in) {
  return with_rank(in.shape.size(), [&]<std::size_t M>() -> std::shared_ptr<array_handle> {
    dmap::partitioned<T, M> x;
    for (std::size_t d = 0; d < M; ++d) x.shape[d] = in.shape[d], x.partition_tiling[d] = in.tiling[d];
    for (const auto& t : in.tiles) {
      dmap::partition<T, M> p;
      dmap::tile_position<M> key{};
      for (std::size_t d = 0; d < M; ++d) {
        key[d] = t.position[d];
        p.start[d] = t.start[d];
        p.shape[d] = t.shape[d];
        p.strides[d] = t.strides.empty() ? 0 : t.strides[d];
      }
      p.data = static_cast<T*>(t.data);
      p.location = t.location;
      x.partitions.emplace(key, std::move(p));
    }
    for (const auto& l : in.locals) {
      dmap::tile_position<M> key{};
      for (std::size_t d = 0; d < M; ++d) key[d] = l[d];
      x.locals.push_back(key);
    }
    dmap::array<T, M> a = dmap::partitioned_import(x);
    auto dom =
        std::make_shared<domain_handle>(M, py::str("partitioned"), std::make_shared<dmap::domain<M>>(a.domain()));
    return std::make_shared<typed_array<T, M>>(dom, std::move(a), in.keep);
  });
}

}  // namespace dmap::python
