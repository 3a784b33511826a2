// The module's runtime: environment, registry of dmap objects, agreed releases, the reuse
// pool of dropped arrays' storage, exceptions (see runtime.h).
#include "runtime.h"

#include <mpi4py/mpi4py.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include <dmap/runtime/agreement.hpp>
#include <dmap/runtime/collectives.hpp>
#include <dmap/runtime/environment.hpp>

namespace dmap::python {

namespace {

// The module's state. Never destroyed (it would run after the interpreter and MPI are gone):
// finalize() empties it instead.
struct state_t {
  std::unique_ptr<dmap::environment> env;
  std::uint64_t next_serial = 1;
  std::map<std::uint64_t, releasable*> live;                // by serial
  struct dropped {
    std::shared_ptr<void> payload;
    std::optional<reuse_key> reuse;  // set when the state may serve a later array (the pool)
  };
  std::map<std::uint64_t, dropped> dead;                    // dropped by Python here, not yet freed
  struct pooled {
    std::uint64_t serial;
    std::shared_ptr<void> payload;
    reuse_key key;
  };
  std::deque<pooled> pool;                                  // dead everywhere, waiting for reuse; oldest first
  bool mpi4py_imported = false;
};
state_t& state() {
  static auto* s = new state_t;
  return *s;
}

// The Python exception classes, by dmap::error_kind (leaked on purpose: they must outlive
// every translation).
PyObject* classes[9] = {};

PyObject* make_class(py::module_& m, const char* name, const char* doc, PyObject* bases) {
  const std::string full = std::string("dmap.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(full.c_str(), doc, bases, nullptr);
  if (cls == nullptr) throw py::error_already_set();
  Py_INCREF(cls);
  m.add_object(name, py::reinterpret_borrow<py::object>(cls));
  return cls;
}

py::str text_of(const char* s) {
  PyObject* u = PyUnicode_DecodeUTF8(s, static_cast<Py_ssize_t>(std::strlen(s)), "replace");
  if (u == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(u);
}

// The locale that first raised `e` (another one for a remote_failure), and whether it was
// another locale.
template <class... Families>
std::pair<int, bool> origin_of(const dmap::error& e) {
  int origin = -1;
  (void)((dynamic_cast<const remote_failure<Families>*>(&e) != nullptr
              ? (origin = dynamic_cast<const remote_failure<Families>*>(&e)->origin(), true)
              : false) ||
         ...);
  if (origin >= 0) return {origin, true};
  return {dmap::detail::current_environment ? dmap::detail::current_environment->rank() : 0, false};
}

void raise_python(const dmap::error& e) {
  const int kind = static_cast<int>(e.kind());
  PyObject* cls = classes[kind >= 0 && kind < 9 ? kind : 0];
  const auto [origin, remote] =
      origin_of<argument_error, shape_error, not_local_error, out_of_bounds_error, unsupported_error,
                runtime_error, io_error, format_error, error>(e);
  py::object instance = py::reinterpret_borrow<py::object>(cls)(text_of(e.what()));
  instance.attr("origin") = origin;
  instance.attr("remote") = remote;
  PyErr_SetObject(cls, instance.ptr());
}

void import_mpi4py_once() {
  if (state().mpi4py_imported) return;
  if (import_mpi4py() < 0) throw py::error_already_set();
  state().mpi4py_imported = true;
}

// Frees the dead objects whose serials are in `serials`, in creation order; those that may be
// reused go to the pool instead (unless `drain`), and the pool keeps its newest
// reuse_pool_limit. Returns how many states were freed.
std::size_t free_serials(const std::vector<std::uint64_t>& serials, bool drain) {
  auto& s = state();
  std::size_t freed = 0;
  for (std::uint64_t serial : serials) {
    auto it = s.dead.find(serial);
    if (it == s.dead.end()) continue;
    auto doomed = std::move(it->second);
    s.dead.erase(it);
    if (doomed.reuse && !drain) {
      s.pool.push_back({serial, std::move(doomed.payload), std::move(*doomed.reuse)});
      continue;
    }
    doomed.payload.reset();
    ++freed;
  }
  const std::size_t keep = drain ? 0 : reuse_pool_limit;
  while (s.pool.size() > keep) {
    auto oldest = std::move(s.pool.front());
    s.pool.pop_front();
    oldest.payload.reset();  // the array's storage (collective), then its domain's reference
    oldest.key.domain.reset();
    ++freed;
  }
  return freed;
}

}  // namespace

releasable::releasable() : serial_(state().next_serial++) { state().live.emplace(serial_, this); }

releasable::~releasable() { state().live.erase(serial_); }

void releasable::bury() noexcept {
  std::shared_ptr<void> payload = take();
  if (!payload) return;
  if (!state().env) return;  // dmap is gone: nothing collective left to do
  try {
    state().dead.emplace(serial_, state_t::dropped{std::move(payload), std::nullopt});
  } catch (...) {
  }
}

void releasable::bury_reusable(reuse_key key) noexcept {
  std::shared_ptr<void> payload = take();
  if (!payload || !state().env) return;
  try {
    state().dead.emplace(serial_, state_t::dropped{std::move(payload), std::move(key)});
  } catch (...) {
  }
}

std::shared_ptr<void> take_reusable(const void* domain, int dtype, std::size_t rank) {
  auto& pool = state().pool;
  for (auto it = pool.begin(); it != pool.end(); ++it) {
    if (it->key.domain.get() != domain || it->key.dtype != dtype || it->key.rank != rank) continue;
    std::shared_ptr<void> payload = std::move(it->payload);
    pool.erase(it);
    return payload;
  }
  return nullptr;
}

bool started() noexcept { return static_cast<bool>(state().env); }

void check_running(const char* who) {
  if (!started())
    throw runtime_error(std::string(who) +
                        ": dmap has been finalised (dmap.finalize() or interpreter exit); this object is released");
}

void init(py::object comm) {
  auto& s = state();
  if (s.env)
    throw argument_error(
        "dmap.init: dmap already runs (dmap.init was called, or a dmap object was made, which starts dmap on "
        "MPI.COMM_WORLD); call dmap.init(comm) before anything else, or dmap.finalize() first");
  import_mpi4py_once();
  MPI_Comm host = MPI_COMM_WORLD;
  if (!comm.is_none()) {
    py::object mpi = py::module_::import("mpi4py.MPI");
    if (!py::isinstance(comm, mpi.attr("Comm")))
      throw argument_error("dmap.init: comm is " + py::repr(comm).cast<std::string>() +
                           "; it must be an mpi4py.MPI.Comm (an intra-communicator)");
    MPI_Comm* handle = PyMPIComm_Get(comm.ptr());
    if (handle == nullptr) throw py::error_already_set();
    host = *handle;
  }
  s.env = std::make_unique<dmap::environment>(host);
}

void ensure_started() {
  if (!state().env) dmap::python::init(py::none());
}

namespace {

// One agreed sweep of collect(): frees what is dead on every locale (pooling what may be reused
// unless `drain`). Returns how many states were freed, the same number on every locale.
std::size_t sweep(bool drain) {
  auto& s = state();
  // Free what is dead on every locale: the serials all locales list. One reduction when
  // nothing is dead somewhere (the usual case), a gather of the lists otherwise.
  const auto count = static_cast<std::uint64_t>(s.dead.size());
  if (dmap::all_reduce_min(count) == 0) return drain ? free_serials({}, true) : 0;
  const std::uint64_t most = dmap::all_reduce_max(count);
  std::vector<std::uint64_t> mine(static_cast<std::size_t>(most), 0);  // 0: no serial
  std::size_t k = 0;
  for (const auto& [serial, entry] : s.dead) mine[k++] = serial;
  const auto all = dmap::all_gather_fixed<std::uint64_t>(std::span<const std::uint64_t>(mine));
  std::vector<std::uint64_t> common;
  const int p = dmap::num_locales();
  for (std::uint64_t serial : mine) {
    if (serial == 0) continue;
    bool everywhere = true;
    for (int q = 0; q < p && everywhere; ++q) {
      const auto* first = all.data() + static_cast<std::size_t>(q) * most;
      everywhere = std::find(first, first + most, serial) != first + most;
    }
    if (everywhere) common.push_back(serial);
  }
  std::sort(common.begin(), common.end());
  return free_serials(common, drain);
}

}  // namespace

std::size_t collect(bool drain) {
  if (!state().env) return 0;
  std::size_t freed = sweep(drain);
  // Emptying the pool drops the domains its arrays kept: sweep again until nothing is left.
  for (std::size_t more = freed; drain && more > 0; freed += more) more = sweep(true);
  return freed;
}

void finalize() {
  auto& s = state();
  if (!s.env) return;
  // Every object, live or dead, in reverse creation order: the same set on every locale.
  std::vector<std::pair<std::uint64_t, std::shared_ptr<void>>> all;
  for (auto& [serial, obj] : s.live) all.emplace_back(serial, obj->take());
  for (auto& [serial, entry] : s.dead) all.emplace_back(serial, std::move(entry.payload));
  for (auto& entry : s.pool) all.emplace_back(entry.serial, std::move(entry.payload));
  s.dead.clear();
  s.pool.clear();  // the domains they kept were live: released above
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& entry : all) entry.second.reset();
  s.env.reset();
}

void register_exceptions(py::module_& m) {
  PyObject* builtins_value = PyExc_ValueError;
  auto bases = [](std::initializer_list<PyObject*> list) {
    PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(list.size()));
    Py_ssize_t k = 0;
    for (PyObject* b : list) {
      Py_INCREF(b);
      PyTuple_SET_ITEM(t, k++, b);
    }
    return t;
  };
  PyObject* base = make_class(m, "Error",
                              "Base of every exception dmap raises. Attributes: origin (the locale that raised it "
                              "first) and remote (True when that is another locale).",
                              bases({PyExc_Exception}));
  using k = error_kind;
  classes[static_cast<int>(k::generic)] = base;
  classes[static_cast<int>(k::argument)] =
      make_class(m, "ArgumentError", "An argument broke a documented rule (dmap::argument_error).",
                 bases({base, builtins_value, PyExc_TypeError}));
  classes[static_cast<int>(k::shape)] = make_class(
      m, "ShapeError", "Operands have different shapes (dmap::shape_error).", bases({base, builtins_value}));
  classes[static_cast<int>(k::not_local)] =
      make_class(m, "NotLocalError", "A local-only access named an index another locale owns (dmap::not_local_error).",
                 bases({base, PyExc_LookupError}));
  classes[static_cast<int>(k::out_of_bounds)] =
      make_class(m, "OutOfBoundsError", "An index lies outside its array or domain (dmap::out_of_bounds_error).",
                 bases({base, PyExc_IndexError}));
  classes[static_cast<int>(k::unsupported)] =
      make_class(m, "UnsupportedError", "Valid but not supported by dmap (dmap::unsupported_error).",
                 bases({base, PyExc_NotImplementedError}));
  classes[static_cast<int>(k::runtime)] =
      make_class(m, "RuntimeError", "MPI or the environment failed, or dmap was finalised (dmap::runtime_error).",
                 bases({base, PyExc_RuntimeError}));
  classes[static_cast<int>(k::io)] =
      make_class(m, "FileError", "A file could not be opened, read or written (dmap::io_error).",
                 bases({base, PyExc_OSError}));
  classes[static_cast<int>(k::format)] =
      make_class(m, "FormatError", "A file's contents are not what was asked for (dmap::format_error).",
                 bases({base, builtins_value}));
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const dmap::error& e) {
      raise_python(e);
    }
  });
}

}  // namespace dmap::python
