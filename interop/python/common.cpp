// Conversions between Python values and dmap's vocabulary: dtypes, int64 indices, ranges,
// and NumPy-style subscripts applied to sections (see common.h).
#include "common.h"

#include <climits>
#include <sstream>

namespace dmap::python {

namespace {
const char* const names[dtype_count] = {"float64", "float32", "int64", "int32", "complex128", "bool"};
}

dtype_code parse_dtype(py::handle dtype) {
  py::object np = py::module_::import("numpy");
  py::object d;
  try {
    d = np.attr("dtype")(dtype);
  } catch (py::error_already_set& e) {
    throw argument_error(std::string("dmap.Array: dtype ") + py::repr(dtype).cast<std::string>() +
                         " is not a NumPy dtype (" + e.what() + "); use one of " + dtype_list());
  }
  const auto name = d.attr("name").cast<std::string>();
  for (int k = 0; k < dtype_count; ++k)
    if (name == names[k]) return static_cast<dtype_code>(k);
  throw argument_error("dmap.Array: dtype " + name +
                       " is not supported; use one of " + dtype_list());
}

py::dtype numpy_dtype(dtype_code code) { return py::dtype(std::string(dtype_name(code))); }

const char* dtype_name(dtype_code code) { return names[static_cast<int>(code)]; }

std::string dtype_list() {
  std::string out = names[0];
  for (int k = 1; k < dtype_count; ++k) out += (k + 1 < dtype_count ? ", " : " or ") + std::string(names[k]);
  return out;
}

index_t to_index(py::handle value, const std::string& what) {
  if (PyBool_Check(value.ptr()))
    throw argument_error(what + " is a bool (" + py::repr(value).cast<std::string>() + "); it must be an integer");
  PyObject* as_int = PyNumber_Index(value.ptr());  // int, numpy integers, anything with __index__
  if (as_int == nullptr) {
    PyErr_Clear();
    throw argument_error(what + " is " + py::repr(value).cast<std::string>() + "; it must be an integer");
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(as_int, &overflow);
  const bool failed = v == -1 && PyErr_Occurred();
  Py_DECREF(as_int);
  if (failed) PyErr_Clear();
  if (overflow != 0 || failed)
    throw argument_error(what + " is " + py::repr(value).cast<std::string>() +
                         ", outside the int64 range; indices and sizes must fit int64");
  return static_cast<index_t>(v);
}

py::object to_py_range(const range& r) {
  py::object pyrange = py::module_::import("builtins").attr("range");
  if (r.empty()) return pyrange(r.lo(), r.lo());
  const index_t s = r.stride();
  // Python's stop is exclusive in the direction of travel.
  const index_t first = r.first(), last = r.last();
  if (s > 0) return pyrange(first, py::int_(last) + py::int_(1), s);
  py::object stop = py::int_(last) - py::int_(1);
  return pyrange(first, stop, s);
}

range from_py_range(py::handle r, const std::string& what) {
  const index_t start = to_index(r.attr("start"), what + ".start");
  const index_t step = to_index(r.attr("step"), what + ".step");
  std::size_t count = 0;
  try {
    count = py::len(r);
  } catch (py::error_already_set&) {
    throw argument_error(what + " holds more than 2^63 - 1 indices");
  }
  return range::counted(start, static_cast<index_t>(count), step);
}

std::vector<index_t> section::shape() const {
  std::vector<index_t> s;
  for (std::size_t d : dims) s.push_back(target[d].size());
  return s;
}

index_t section::size() const {
  index_t n = 1;
  for (std::size_t d = 0; d < target.size(); ++d) n *= target[d].size();
  return n;
}

selection select(const section& s, py::handle key) {
  py::tuple entries;
  if (py::isinstance<py::tuple>(key)) entries = py::reinterpret_borrow<py::tuple>(key);
  else entries = py::make_tuple(key);
  // Expand the Ellipsis (at most one) into whole slices.
  const std::size_t k = s.rank();
  std::size_t ellipses = 0, explicit_entries = 0;
  for (auto e : entries) {
    if (e.is(py::ellipsis())) ++ellipses;
    else ++explicit_entries;
  }
  if (ellipses > 1) throw argument_error("dmap.Array[...]: a subscript may hold at most one Ellipsis (...)");
  if (explicit_entries > k) {
    std::ostringstream m;
    m << "dmap.Array[...]: " << explicit_entries << " indices for an array of " << k << " dimension(s)";
    throw out_of_bounds_error(m.str());
  }
  std::vector<py::object> full;
  py::object whole = py::reinterpret_steal<py::object>(PySlice_New(nullptr, nullptr, nullptr));
  for (auto e : entries) {
    if (e.is(py::ellipsis())) {
      for (std::size_t n = 0; n < k - explicit_entries; ++n) full.push_back(whole);
    } else {
      full.push_back(py::reinterpret_borrow<py::object>(e));
    }
  }
  while (full.size() < k) full.push_back(whole);

  selection out;
  out.view.target = s.target;
  out.view.whole = false;
  std::vector<std::size_t> kept;
  bool all_slices_whole = true;
  for (std::size_t n = 0; n < k; ++n) {
    const std::size_t d = s.dims[n];
    const range& r = s.target[d];
    const index_t size = r.size();
    py::handle e = full[n];
    if (PySlice_Check(e.ptr())) {
      Py_ssize_t start = 0, stop = 0, step = 0;
      if (PySlice_Unpack(e.ptr(), &start, &stop, &step) < 0) {
        PyErr_Clear();
        throw argument_error("dmap.Array[...]: the slice " + py::repr(e).cast<std::string>() +
                             " has a step of 0 or bounds that are not integers");
      }
      const Py_ssize_t count = PySlice_AdjustIndices(static_cast<Py_ssize_t>(size), &start, &stop, step);
      if (!(start == 0 && step == 1 && count == size)) all_slices_whole = false;
      index_t stride = 0;
      if (__builtin_mul_overflow(r.stride(), static_cast<index_t>(step), &stride))
        throw argument_error("dmap.Array[...]: the step " + std::to_string(step) + " times the stride " +
                             std::to_string(r.stride()) + " leaves the int64 range");
      const index_t first = count > 0 ? r.index_at(start) : (size > 0 ? r.first() : r.lo());
      out.view.target[d] = range::counted(first, count, stride);
      kept.push_back(d);
    } else if (PyBool_Check(e.ptr()) || !PyIndex_Check(e.ptr())) {
      throw argument_error("dmap.Array[...]: " + py::repr(e).cast<std::string>() +
                           " is not an integer, a slice or ...; dmap arrays take integers and slices only");
    } else {
      PyObject* as_int = PyNumber_Index(e.ptr());
      if (as_int == nullptr) {
        PyErr_Clear();
        throw argument_error("dmap.Array[...]: " + py::repr(e).cast<std::string>() +
                             " is not an integer, a slice or ...; dmap arrays take integers and slices only");
      }
      int overflow = 0;
      index_t p = PyLong_AsLongLongAndOverflow(as_int, &overflow);
      Py_DECREF(as_int);
      if (overflow != 0)
        throw out_of_bounds_error("dmap.Array[...]: index " + py::repr(e).cast<std::string>() +
                                  " is out of bounds for dimension " + std::to_string(n) + " of size " +
                                  std::to_string(size));
      const index_t given = p;
      if (p < 0) p += size;
      if (p < 0 || p >= size) {
        std::ostringstream m;
        m << "dmap.Array[...]: index " << given << " is out of bounds for dimension " << n << " of size " << size;
        throw out_of_bounds_error(m.str());
      }
      out.view.target[d] = range::counted(r.index_at(p), 1, 1);
      all_slices_whole = false;
    }
  }
  out.view.dims = kept;
  out.view.whole = s.whole && all_slices_whole && kept.size() == k;
  if (kept.empty()) {
    out.is_element = true;
    for (const auto& r : out.view.target) out.element.push_back(r.first());
  }
  return out;
}

[[noreturn]] void rethrow_as_dmap(const std::string& who) {
  try {
    throw;
  } catch (const dmap::error&) {
    throw;
  } catch (py::error_already_set& e) {
    throw argument_error(who + ": " + e.what());
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw argument_error(who + ": " + e.what());
  } catch (...) {
    throw argument_error(who + ": an exception that is not a std::exception");
  }
}

}  // namespace dmap::python
