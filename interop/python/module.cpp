// dmap._dmap: the compiled part of the Python package `dmap` (interop/python/dmap/__init__.py
// is the rest). Binds the runtime (init, finalize, here, num_locales, ...), dmap.Domain and
// dmap.Array; the element-typed work lives in array_<dtype>.cpp, the runtime in runtime.cpp.
//
// A Python `Array` is a reference to one dmap array plus the section it looks at: the whole
// array, or a view made by subscripting (NumPy's rules: positions, slices with steps,
// integers dropping dimensions). Collective operations must be called by every locale in the
// same order, as in C++; the docstrings say which are.
#include <pybind11/stl.h>

#include <dmap/runtime/collectives.hpp>
#include <dmap/runtime/detail/byte_exchange.hpp>
#include <dmap/runtime/environment.hpp>

#include "array.h"
#include "domain.h"
#include "evaluate.h"
#include "protocols.h"
#include "runtime.h"

namespace dmap::python {

std::shared_ptr<array_handle> make_array(const std::shared_ptr<domain_handle>& domain, dtype_code dtype,
                                         bool zeroed) {
  ensure_started();
  collect();
  ensure_locations();
  switch (dtype) {
    case dtype_code::f64: return make_array_f64(domain, zeroed);
    case dtype_code::f32: return make_array_f32(domain, zeroed);
    case dtype_code::i64: return make_array_i64(domain, zeroed);
    case dtype_code::i32: return make_array_i32(domain, zeroed);
    case dtype_code::c128: return make_array_c128(domain, zeroed);
    case dtype_code::b1: return make_array_b1(domain, zeroed);
  }
  throw argument_error("dmap.Array: unknown dtype");
}

namespace {

/// What a Python dmap.Array object is: an array and the section it looks at.
struct py_array {
  std::shared_ptr<array_handle> h;
  section s;
};

py::tuple tuple_of(const std::vector<index_t>& v) {
  py::tuple t(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) t[k] = v[k];
  return t;
}

py::tuple ranges_of(const std::vector<range>& v) {
  py::tuple t(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) t[k] = to_py_range(v[k]);
  return t;
}

/// The most bytes an implicit conversion (dmap.Array.__array__) copies to every locale; this
/// locale's setting (dmap.set_gather_limit), agreed when it is used.
index_t gather_limit_bytes = index_t{64} << 20;

/// Collective: dmap.Array(domain, dtype), zeroed or not (make_array).
py_array new_array(py::object domain, py::object dtype, bool zeroed) {
  if (!py::isinstance<domain_handle>(domain))
    throw dmap::argument_error("dmap.Array: domain is " + py::repr(domain).cast<std::string>() +
                               "; it must be a dmap.Domain");
  auto d = domain.cast<std::shared_ptr<domain_handle>>();
  const dtype_code code = agreed_local("dmap.Array", [&] { return parse_dtype(dtype); });
  auto h = make_array(d, code, zeroed);
  return py_array{h, h->whole()};
}

py_array& as_array(py::handle obj, const char* who) {
  if (!py::isinstance<py_array>(obj))
    throw argument_error(std::string(who) + ": " + py::repr(obj).cast<std::string>() + " is not a dmap.Array");
  return obj.cast<py_array&>();
}

// Collective: `value` (a dmap.Array or view, a NumPy array or nested sequence of the target's
// shape, or a scalar) into the section `s` of `a`.
void assign_value(py_array& a, const section& s, py::handle value) {
  if (py::isinstance<py_array>(value)) {
    const auto& src = value.cast<py_array&>();
    a.h->assign(s, *src.h, src.s);
    return;
  }
  py::object np = py::module_::import("numpy");
  const bool sequence = py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value);
  if (sequence || py::isinstance(value, np.attr("ndarray"))) {
    py::object arr = py::reinterpret_borrow<py::object>(value);
    if (!sequence && py::len(arr.attr("shape")) == 0) {
      a.h->fill(s, arr.attr("item")());
      return;
    }
    a.h->assign_numpy(s, arr);
    return;
  }
  a.h->fill(s, value);
}

py::object owner_of(py::handle self) { return py::reinterpret_borrow<py::object>(self); }

}  // namespace

}  // namespace dmap::python

PYBIND11_MODULE(_dmap, m) {
  using namespace dmap::python;
  namespace py = pybind11;
  m.doc() = "dmap: Chapel-style distributed domains and arrays over MPI (the compiled part; import dmap).";
  register_exceptions(m);
  register_evaluate(m);

  // ------------------------------------------------------------------ runtime
  m.def("init", &init, py::arg("comm") = py::none(),
        "Collective: starts dmap on the mpi4py communicator `comm` (default MPI.COMM_WORLD): locale r is rank r "
        "of comm; dmap works on its own duplicate. Call it before any other dmap call (dmap otherwise starts on "
        "MPI.COMM_WORLD by itself); dmap.ArgumentError when dmap already runs.");
  m.def("finalize", &finalize,
        "Collective: releases every dmap domain and array (Python objects left over raise dmap.RuntimeError "
        "when used) and ends dmap's environment. MPI stays mpi4py's. Runs by itself at interpreter exit.");
  m.def("started", &started, "True while dmap runs (after dmap.init or the first dmap object).");
  m.def("collect", [] { return collect(true); },
        "Collective: frees the dmap objects Python dropped on every locale now, and the arrays whose storage "
        "waits for reuse (dmap also frees dropped objects whenever a domain or array is made, keeping the "
        "newest few dropped arrays for new arrays of the same domain and dtype). Returns how many were freed.");
  m.def("here", [] { ensure_started(); return dmap::here(); }, "This locale's id (its rank in dmap's communicator).");
  m.def("num_locales", [] { ensure_started(); return dmap::num_locales(); }, "The number of locales.");
  m.def("num_threads", [] { ensure_started(); return dmap::num_threads(); },
        "The oneTBB threads a parallel loop uses on this locale.");
  m.def("barrier", [] { ensure_started(); dmap::barrier(); }, "Collective: waits until every locale arrives.");
  m.def(
      "_agree",
      [](const std::string& who, const py::bytes& key, py::object error) {
        ensure_started();
        const std::string k = key;
        dmap::detail::fingerprint f;
        f.add_buffer(k.data(), k.size());
        agreed_local(who, {who.c_str(), f.value(), [&] { return "the arguments " + k; }}, [&] {
          if (error.is_none()) return;
          const std::string text = py::str(error).cast<std::string>();
          throw dmap::argument_error(text.starts_with(who + ": ") ? text : who + ": " + text);
        });
      },
      py::arg("who"), py::arg("key"), py::arg("error") = py::none(),
      "Collective (for the package's Python functions): raises dmap.ArgumentError on every locale when "
      "`error` is given on any (its text, prefixed by `who` unless it starts with it), or when `key` (the "
      "call's arguments as bytes) differs between locales.");
  m.def(
      "_exchange",
      [](const py::list& outgoing) {
        ensure_started();
        dmap::detail::byte_buffers out;
        out.reserve(outgoing.size());
        for (const auto& b : outgoing) {
          char* data = nullptr;
          Py_ssize_t size = 0;
          if (!PyBytes_Check(b.ptr()) || PyBytes_AsStringAndSize(b.ptr(), &data, &size) != 0)
            throw dmap::argument_error("dmap._exchange: every entry of outgoing must be bytes");
          const auto* first = reinterpret_cast<const std::byte*>(data);
          out.emplace_back(first, first + size);
        }
        const auto incoming = dmap::detail::exchange(std::move(out));
        py::list result;
        for (const auto& b : incoming) result.append(py::bytes(reinterpret_cast<const char*>(b.data()), b.size()));
        return result;
      },
      py::arg("outgoing"),
      "Collective (for the package's Python functions): sends outgoing[q] (bytes) to locale q, one message "
      "per non-empty entry, and returns what each locale sent here, indexed by locale. Every locale passes "
      "one entry per locale (dmap/_reductions.py's _exchange checks that before calling).");
  m.def("gather_limit", [] { return gather_limit_bytes; },
        "The most bytes an implicit conversion of a dmap.Array to NumPy (np.asarray(A), a NumPy function "
        "other than a ufunc given A) copies to every locale; 64 MiB unless set. Explicit gathers (gather, "
        "allgather) have no limit.");
  m.def(
      "set_gather_limit",
      [](py::handle nbytes) {
        const dmap::index_t n = to_index(nbytes, "dmap.set_gather_limit: nbytes");
        if (n < 0)
          throw dmap::argument_error("dmap.set_gather_limit: nbytes is " + std::to_string(n) + "; it must be >= 0");
        return std::exchange(gather_limit_bytes, n);
      },
      py::arg("nbytes"),
      "Sets gather_limit() on this locale and returns the previous limit. Not collective: set it alike on "
      "every locale (a conversion with limits that differ fails on every locale).");
  m.def(
      "update_halos",
      [](py::handle a, bool star) {
        auto& x = as_array(a, "dmap.update_halos");
        if (!x.s.whole)
          throw dmap::argument_error("dmap.update_halos: the argument is a view; pass the whole array");
        x.h->update_halos(star);
      },
      py::arg("array"), py::arg("star") = false,
      "Collective: refreshes the ghost cells of a Stencil array from their owners (star=True: the faces only). "
      "dmap.ArgumentError on an array without ghost cells.");

  // ------------------------------------------------------------------ protocols
  m.def(
      "from_distarray",
      [](py::handle obj) {
        auto h = from_distarray(obj);
        return py_array{h, h->whole()};
      },
      py::arg("obj"),
      "Collective: a dmap.Array adopting (no copy) the local buffers of a DAP producer: an object with "
      "__distarray__() (or its dictionary), on every locale. Errors are raised on every locale.");
  m.def(
      "from_partitioned",
      [](py::handle obj) {
        auto h = from_partitioned(obj);
        return py_array{h, h->whole()};
      },
      py::arg("obj"),
      "Collective: a dmap.Array adopting (no copy) the local partitions of a __partitioned__ producer (an object "
      "with __partitioned__, or the dictionary), on every locale. Errors are raised on every locale.");
  m.def(
      "locations",
      [] {
        ensure_locations();
        return locations();
      },
      "Collective the first time after dmap starts: every locale's location as __partitioned__ writes it, "
      "(IP, PID), indexed by locale (IP: the preferred address of the locale's host).");

  // ------------------------------------------------------------------ Domain
  py::class_<domain_handle, std::shared_ptr<domain_handle>>(m, "Domain", R"doc(
A distributed index set: Domain(map, shape_or_bounds). Collective.

map: dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic(blocks), dmap.Stencil(fluff, periodic),
dmap.Irregular(cuts), dmap.Unstructured(indices), dmap.Hashed(mapper).
shape_or_bounds: an int n (1-D, indices 0..n-1), or a tuple with one entry per dimension (1 to
3): a size n, a (lo, hi) pair (indices lo..hi-1) or a Python range (strides allowed).
)doc")
      .def(py::init<py::object, py::object>(), py::arg("map"), py::arg("shape_or_bounds"))
      .def_property_readonly("ndim", &domain_handle::rank, "The number of dimensions.")
      .def_property_readonly("map", &domain_handle::map, "The map description the domain was made with.")
      .def_property_readonly("name", &domain_handle::name, "dmap's name of the map (the same on every locale).")
      .def_property_readonly(
          "bounds", [](const domain_handle& d) { return ranges_of(d.dims()); },
          "The indices: one Python range per dimension.")
      .def_property_readonly(
          "shape",
          [](const domain_handle& d) {
            std::vector<dmap::index_t> s;
            for (const auto& r : d.dims()) s.push_back(r.size());
            return tuple_of(s);
          },
          "The number of indices per dimension.")
      .def_property_readonly(
          "size",
          [](const domain_handle& d) {
            dmap::index_t n = 1;
            for (const auto& r : d.dims()) n *= r.size();
            return n;
          },
          "The number of indices.")
      .def(
          "local_subdomains",
          [](const domain_handle& d, py::object locale) {
            const int q = locale.is_none() ? -1 : static_cast<int>(to_index(locale, "dmap.Domain.local_subdomains: locale"));
            if (!locale.is_none() && (q < 0 || q >= dmap::num_locales()))
              throw dmap::argument_error("dmap.Domain.local_subdomains: locale " + std::to_string(q) +
                                         " is not in [0, num_locales())");
            py::list out;
            for (const auto& r : d.local_subdomains(q)) out.append(ranges_of(r));
            return out;
          },
          py::arg("locale") = py::none(),
          "The pieces a locale owns (default: this one), each a tuple of Python ranges of global indices. Not "
          "collective. Hashed and Unstructured domains answer for this locale only.")
      .def(
          "locale_of",
          [](const domain_handle& d, py::handle index) {
            std::vector<dmap::index_t> i;
            if (PyIndex_Check(index.ptr())) i.push_back(to_index(index, "dmap.Domain.locale_of: index"));
            else
              for (auto c : index) i.push_back(to_index(c, "dmap.Domain.locale_of: a coordinate"));
            return d.locale_of(i);
          },
          py::arg("index"), "The locale owning a global index (an int in 1-D, a tuple otherwise).")
      .def("__repr__", [](const domain_handle& d) {
        std::string s = "dmap.Domain(" + py::repr(d.map()).cast<std::string>() + ", " +
                        py::repr(ranges_of(d.dims())).cast<std::string>() + ")";
        return s;
      });

  // ------------------------------------------------------------------ Array
  py::class_<py_array>(m, "Array", R"doc(
A distributed array: Array(domain, dtype='float64'). Collective; every element 0.

dtype: float64, float32, int64, int32, complex128 or bool. Indexing follows NumPy (positions 0..n-1
per dimension whatever the domain's bounds; slices with steps; integers drop dimensions): a
subscript with a slice gives a view (a dmap.Array over the same elements); one with only
integers reads or writes one element (not collective: any locale may do it alone).
B[...] = A assigns elements between any two maps (collective, shapes must match); B[...] = x
with a scalar fills; with a NumPy array (every locale passes the whole array) scatters it.
Other dtypes convert as NumPy's cast does, except what it would mangle (NaN, infinities or
out-of-range values into integers, finite values that would overflow float32, complex values
into real arrays): dmap.ArgumentError on every locale, the array unchanged.
)doc")
      .def(py::init([](py::object domain, py::object dtype) { return new_array(domain, dtype, true); }),
           py::arg("domain"), py::arg("dtype") = "float64")
      .def_static(
          "_scratch", [](py::object domain, py::object dtype) { return new_array(domain, dtype, false); },
          py::arg("domain"), py::arg("dtype"),
          "Collective (for the package's element-wise operations and reductions): as dmap.Array(domain, dtype), "
          "but the elements are unspecified when the storage of a dropped array is reused: the caller writes every "
          "element, then synchronises, before anyone reads them.")
      .def_property_readonly("shape", [](const py_array& a) { return tuple_of(a.s.shape()); })
      .def_property_readonly("ndim", [](const py_array& a) { return a.s.rank(); })
      .def_property_readonly("size", [](const py_array& a) { return a.s.size(); })
      .def_property_readonly("dtype", [](const py_array& a) { return numpy_dtype(a.h->dtype()); })
      .def_property_readonly(
          "domain",
          [](const py_array& a) -> py::object {
            if (!a.s.whole) return py::none();
            return py::cast(a.h->domain());
          },
          "The domain of a whole array (None for a view: see base).")
      .def_property_readonly(
          "base", [](const py_array& a) -> py::object {
            if (a.s.whole) return py::none();
            return py::cast(py_array{a.h, a.h->whole()});
          },
          "For a view, the whole array it looks into; None for a whole array.")
      .def_property_readonly("is_view", [](const py_array& a) { return !a.s.whole; })
      .def(
          "transpose",
          [](const py_array& a, py::args axes) {
            // NumPy's forms: transpose(), transpose((1, 0)), transpose(1, 0); None is reversed.
            py::object order = axes.size() == 1 ? py::object(axes[0]) : py::object(axes);
            const std::size_t n = a.s.rank();
            std::vector<std::size_t> perm(n);
            if (order.is_none() || (axes.size() == 0)) {
              for (std::size_t k = 0; k < n; ++k) perm[k] = n - 1 - k;
            } else {
              if (!py::isinstance<py::sequence>(order) || py::isinstance<py::str>(order))
                throw dmap::argument_error("dmap.Array.transpose: axes is " + py::repr(order).cast<std::string>() +
                                           "; it must be a tuple of ints");
              const auto seq = py::reinterpret_borrow<py::sequence>(order);
              if (seq.size() != n)
                throw dmap::argument_error("dmap.Array.transpose: axes " + py::repr(order).cast<std::string>() +
                                           " do not match an array of " + std::to_string(n) + " dimensions");
              std::vector<bool> seen(n, false);
              for (std::size_t k = 0; k < n; ++k) {
                dmap::index_t x = to_index(seq[k], "dmap.Array.transpose: axes[" + std::to_string(k) + "]");
                if (x < 0) x += static_cast<dmap::index_t>(n);
                if (x < 0 || x >= static_cast<dmap::index_t>(n) || seen[static_cast<std::size_t>(x)])
                  throw dmap::argument_error("dmap.Array.transpose: axes " + py::repr(order).cast<std::string>() +
                                             " must name each of the " + std::to_string(n) +
                                             " dimensions once");
                seen[static_cast<std::size_t>(x)] = true;
                perm[k] = static_cast<std::size_t>(x);
              }
            }
            section t = a.s;
            for (std::size_t k = 0; k < n; ++k) t.dims[k] = a.s.dims[perm[k]];
            t.whole = a.s.whole && std::equal(t.dims.begin(), t.dims.end(), a.s.dims.begin());
            return py_array{a.h, t};
          },
          "A view with the dimensions reordered, as NumPy's transpose (no axes: reversed): dimension k of the "
          "view is dimension axes[k] of this one. No element moves (dmap::permute in C++). Not collective.")
      .def_property_readonly(
          "T", [](py::object self) { return self.attr("transpose")(); },
          "The view with the dimensions reversed (NumPy's .T); see transpose.")
      .def("__len__", [](const py_array& a) { return a.s.shape().at(0); })
      .def("__getitem__",
           [](const py_array& a, py::handle key) -> py::object {
             selection sel = select(a.s, key);
             if (sel.is_element) return a.h->get(sel.element);
             return py::cast(py_array{a.h, sel.view});
           })
      .def("__setitem__",
           [](py_array& a, py::handle key, py::handle value) {
             selection sel = select(a.s, key);
             if (sel.is_element) {
               if (py::isinstance<py_array>(value))
                 throw dmap::argument_error("dmap.Array[i, ...] = array: one element takes a scalar");
               a.h->set(sel.element, value);
               return;
             }
             assign_value(a, sel.view, value);
           })
      .def(
          "assign", [](py_array& a, py::handle value) { assign_value(a, a.s, value); }, py::arg("value"),
          "Collective: the same as self[...] = value.")
      .def(
          "fill", [](py_array& a, py::handle value) { a.h->fill(a.s, value); }, py::arg("value"),
          "Collective: every element set to value (each locale writes its own elements).")
      .def(
          "_reduce",
          [](py_array& a, const std::string& kind) {
            if (kind == "sum") return a.h->reduce(a.s, reduction::sum);
            if (kind == "prod") return a.h->reduce(a.s, reduction::prod);
            if (kind == "min") return a.h->reduce(a.s, reduction::min);
            if (kind == "max") return a.h->reduce(a.s, reduction::max);
            throw dmap::argument_error("dmap.Array._reduce: kind is '" + kind + "'; it must be sum, prod, min or max");
          },
          py::arg("kind"),
          "Collective (for dmap/_reductions.py, which defines sum, prod, min and max): the reduction of every "
          "element in C++ over the blocks (int32 sums as int64, float32 accumulates in float64; min and max are "
          "NaN if any element is NaN), a NumPy scalar on every locale.")
      .def(
          "gather",
          [](py_array& a, py::object root) { return a.h->gather(a.s, {"dmap.Array.gather", false, root}); },
          py::arg("root") = 0,
          "Collective: every element as a NumPy array (C order, the array's shape) on locale `root` only, None "
          "elsewhere, as mpi4py's comm.gather (root 0 by default; see allgather).")
      .def(
          "allgather", [](py_array& a) { return a.h->gather(a.s, {"dmap.Array.allgather", true, py::none()}); },
          "Collective: every element as a NumPy array (C order, the array's shape) on every locale, as mpi4py's "
          "comm.allgather.")
      .def(
          "__array__",
          [](py_array& a, py::object dtype, py::object copy) {
            const bool no_copy = !copy.is_none() && !py::bool_(copy);
            py::object out = a.h->gather(
                a.s, {"dmap.Array.__array__", true, py::none(), gather_limit_bytes,
                      no_copy ? "copy=False, but a NumPy array of a dmap.Array is always a copy" : nullptr});
            if (!dtype.is_none()) out = out.attr("astype")(dtype, py::arg("copy") = false);
            return out;
          },
          py::arg("dtype") = py::none(), py::kw_only(), py::arg("copy") = py::none(),
          "Collective: the implicit conversion to NumPy (np.asarray(A), a NumPy function other than a ufunc "
          "given A): allgather(), "
          "refused with dmap.ArgumentError on every locale above gather_limit() bytes.")
      .def(
          "local_blocks", [](py::object self) {
            auto& a = self.cast<py_array&>();
            return a.h->local_blocks(a.s, owner_of(self));
          },
          "This locale's owned elements: one NumPy array per owned piece, a view of dmap's storage (no copy; "
          "writes change the dmap array). Ghost cells are not included (see local_frames). Not collective.")
      .def(
          "local_slices", [](py_array& a) { return a.h->local_slices(a.s); },
          "For each of local_blocks(), the positions it covers: a tuple of slices s with gather()[s] equal to "
          "the block. Not collective.")
      .def(
          "local_frames", [](py::object self) {
            auto& a = self.cast<py_array&>();
            if (!a.s.whole) throw dmap::argument_error("dmap.Array.local_frames: a view has no frames; use the whole array");
            return a.h->local_frames(owner_of(self));
          },
          "This locale's stored blocks, ghost cells included (Stencil: the frame around the owned chunk), as "
          "NumPy views of dmap's storage. Not collective.")
      .def(
          "local_frame_indices", [](py_array& a) {
            if (!a.s.whole)
              throw dmap::argument_error("dmap.Array.local_frame_indices: a view has no frames; use the whole array");
            return a.h->local_frame_indices();
          },
          "For each of local_frames(), its global indices: a tuple of Python ranges. Not collective.")
      .def(
          "write_npy", [](py_array& a, const std::string& path) { a.h->write_npy(a.s, path); }, py::arg("path"),
          "Collective: writes the array (or view) to a NumPy .npy file, every locale its own part "
          "(dmap.FileError when it cannot).")
      .def(
          "read_npy", [](py_array& a, const std::string& path) { a.h->read_npy(a.s, path); }, py::arg("path"),
          "Collective: reads a .npy file of the same shape and dtype into the array (or view) "
          "(dmap.FileError, dmap.FormatError, dmap.ShapeError).")
      .def(
          "copy", [](py_array& a) {
            if (!a.s.whole) throw dmap::argument_error("dmap.Array.copy: copy the whole array (a view has no domain)");
            auto h = a.h->copy();
            return py_array{h, h->whole()};
          },
          "Collective: a new array over the same domain with the same elements.")
      .def(
          "__distarray__",
          [](py::object self) {
            auto& a = self.cast<py_array&>();
            if (!a.s.whole)
              throw dmap::unsupported_error("dmap.Array.__distarray__: a view; DAP describes whole arrays (copy the view "
                                            "into an array of its own first)");
            return a.h->distarray(self);
          },
          "Not collective: this locale's DAP 0.10 dictionary: '__version__', 'buffer' (a NumPy view of the local "
          "buffer, no copy) and 'dim_data'. dmap.UnsupportedError for maps DAP cannot describe.")
      .def(
          "_partitioned",
          [](py::object self) {
            auto& a = self.cast<py_array&>();
            if (!a.s.whole)
              throw dmap::unsupported_error("dmap.Array.__partitioned__: a view; __partitioned__ describes whole arrays");
            return a.h->partitioned(self, locations());
          },
          "The __partitioned__ dictionary without 'get' (see dmap.Array.__partitioned__).")
      .def(
          "_partitioned_fetch",
          [](py_array& a, const std::vector<std::vector<dmap::index_t>>& positions) {
            return a.h->partitioned_fetch(positions);
          },
          "The elements of the tiles at the positions, from wherever they live (not collective).");
  // repr (with values), itemsize, nbytes and the constructors are the package's Python
  // (interop/python/dmap/_printing.py, _constructors.py).
}
