// Reading DAP and __partitioned__ dictionaries from Python producers (protocols.h).
#include "protocols.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <dmap/interop/process_locations.hpp>
#include <dmap/runtime/collectives.hpp>
#include <dmap/runtime/environment.hpp>

#include "conversions.h"
#include "runtime.h"

namespace dmap::python {

namespace {

// ------------------------------------------------------------------ locations
std::vector<process_location> location_table;  // every locale's, from dmap::process_locations()
const void* location_env = nullptr;

std::string shown(py::handle v) { return py::repr(v).cast<std::string>(); }

// ------------------------------------------------------------------ reading dictionaries
bool is_mapping(py::handle v) {
  return py::isinstance<py::dict>(v) || (PyMapping_Check(v.ptr()) && py::hasattr(v, "keys"));
}

bool has_key(py::handle map, const char* key) { return PyMapping_HasKeyString(map.ptr(), key) == 1; }

py::object item(py::handle map, const char* key, const std::string& who) {
  if (!has_key(map, key)) throw argument_error(who + ": the key '" + key + "' is missing");
  return py::reinterpret_borrow<py::object>(map)[py::str(key)];
}

std::vector<index_t> index_list(py::handle seq, const std::string& who) {
  if (!py::isinstance<py::sequence>(seq) || py::isinstance<py::str>(seq))
    throw argument_error(who + " is " + shown(seq) + "; it must be a tuple of integers");
  std::vector<index_t> out;
  std::size_t k = 0;
  for (auto v : seq) out.push_back(to_index(v, who + "[" + std::to_string(k++) + "]"));
  return out;
}

bool flag(py::handle v, const std::string& who) {
  if (PyBool_Check(v.ptr()) || py::isinstance(v, py::module_::import("numpy").attr("bool_"))) return PyObject_IsTrue(v.ptr()) == 1;
  throw argument_error(who + " is " + shown(v) + "; it must be a bool");
}

int small_int(py::handle v, const std::string& who) {
  const index_t x = to_index(v, who);
  if (x < -(index_t{1} << 30) || x > (index_t{1} << 30)) throw argument_error(who + " is " + std::to_string(x) + "; it is out of range");
  return static_cast<int>(x);
}

/// A producer's buffer: a NumPy array over the same memory (no copy), checked for what dmap adopts.
struct local_buffer {
  py::array array;
  dtype_code code = dtype_code::f64;
  void* data = nullptr;
  std::vector<index_t> shape, strides;  // strides in elements
};

local_buffer buffer_of(py::handle obj, const std::string& who) {
  if (!PyObject_CheckBuffer(obj.ptr()))
    throw argument_error(who + " is " + shown(py::type::of(obj)) +
                         "; it must support the buffer protocol (PEP 3118), as a memoryview or a NumPy array does");
  local_buffer b;
  b.array = py::module_::import("numpy").attr("asarray")(obj);
  const py::dtype dt = b.array.dtype();
  if (!dt.attr("isnative").cast<bool>())
    throw unsupported_error(who + " holds elements of non-native byte order (" + shown(dt) +
                            "); dmap adopts native " + dtype_list() + " elements");
  try {
    b.code = parse_dtype(dt);
  } catch (const argument_error&) {
    throw unsupported_error(who + " holds elements of dtype " + py::str(py::handle(dt)).cast<std::string>() +
                            "; dmap adopts " + dtype_list() + " elements");
  }
  if (!b.array.writeable())
    throw argument_error(who + " is read-only; dmap adopts writable buffers (its arrays write their elements)");
  const auto item_size = static_cast<index_t>(dt.itemsize());
  for (py::ssize_t d = 0; d < b.array.ndim(); ++d) {
    b.shape.push_back(static_cast<index_t>(b.array.shape(d)));
    const auto s = static_cast<index_t>(b.array.strides(d));
    if (s % item_size != 0)
      throw unsupported_error(who + ": stride " + std::to_string(s) + " bytes along dimension " + std::to_string(d) +
                              " is not a multiple of the element size (" + std::to_string(item_size) +
                              "); dmap adopts buffers of whole elements");
    b.strides.push_back(s / item_size);
  }
  b.data = b.array.mutable_data();
  return b;
}

/// DAP's dimension dictionary `dd` of a buffer of `extent` elements along it.
dap_dimension dimension_of(py::handle dd, index_t extent, const std::string& who) {
  if (!is_mapping(dd)) throw argument_error(who + " is " + shown(dd) + "; it must be a dimension dictionary");
  dap_dimension dim;
  if (py::len(dd) == 0) {  // DAP 0.10's alias: an undistributed dimension
    dim.dist_type = 'b';
    dim.size = extent;
    dim.start = 0;
    dim.stop = extent;
    return dim;
  }
  const py::object kind = item(dd, "dist_type", who);
  if (!py::isinstance<py::str>(kind) || py::len(kind) != 1)
    throw argument_error(who + ": 'dist_type' is " + shown(kind) + "; it must be 'b', 'c' or 'u'");
  dim.dist_type = kind.cast<std::string>()[0];
  dim.size = to_index(item(dd, "size", who), who + ": 'size'");
  if (dim.dist_type == 'n') {  // DAP 0.9's undistributed dimension
    if (has_key(dd, "padding")) {
      const auto p = index_list(item(dd, "padding", who), who + ": 'padding'");
      if (p.size() != 2) throw argument_error(who + ": 'padding' has " + std::to_string(p.size()) + " entries; it must have 2");
      dim.padding = {p[0], p[1]};
    }
    return dim;
  }
  dim.proc_grid_size = small_int(item(dd, "proc_grid_size", who), who + ": 'proc_grid_size'");
  dim.proc_grid_rank = small_int(item(dd, "proc_grid_rank", who), who + ": 'proc_grid_rank'");
  if (dim.dist_type == 'b') {
    dim.start = to_index(item(dd, "start", who), who + ": 'start'");
    dim.stop = to_index(item(dd, "stop", who), who + ": 'stop'");
    if (has_key(dd, "padding")) {
      const auto p = index_list(item(dd, "padding", who), who + ": 'padding'");
      if (p.size() != 2) throw argument_error(who + ": 'padding' has " + std::to_string(p.size()) + " entries; it must have 2");
      dim.padding = {p[0], p[1]};
    }
    if (has_key(dd, "periodic")) dim.periodic = flag(item(dd, "periodic", who), who + ": 'periodic'");
  } else if (dim.dist_type == 'c') {
    dim.start = to_index(item(dd, "start", who), who + ": 'start'");
    if (has_key(dd, "block_size")) dim.block_size = to_index(item(dd, "block_size", who), who + ": 'block_size'");
  } else if (dim.dist_type == 'u') {
    py::array raw = py::module_::import("numpy").attr("asarray")(item(dd, "indices", who));
    const char k = raw.dtype().kind();
    if (raw.ndim() != 1 || (raw.size() > 0 && k != 'i' && k != 'u'))
      throw argument_error(who + ": 'indices' is " + shown(raw) + "; it must be a 1-D buffer of integers");
    using int64_array = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
    const int64_array idx = raw.size() == 0 ? int64_array(raw)  // any dtype, as long as it is empty
                                            : checked_array<std::int64_t>(raw, who, "'indices'");  // no uint64 wrapping
    dim.indices.assign(idx.data(), idx.data() + idx.size());
    if (has_key(dd, "one_to_one")) dim.one_to_one = flag(item(dd, "one_to_one", who), who + ": 'one_to_one'");
  }
  // Any other dist_type: dmap::validate names it.
  return dim;
}

/// The locale a draft location entry names: an int (a rank), or (IP, PID[, device]) where IP
/// is an IP address of the locale's host (IPv4 or IPv6 text) or its host name
/// (dmap::locale_of_location).
int locale_of_location(py::handle where, const std::string& who) {
  if (PyIndex_Check(where.ptr()) && !PyBool_Check(where.ptr())) {
    const index_t q = to_index(where, who);
    if (q < 0 || q >= num_locales())
      throw argument_error(who + " is " + std::to_string(q) + "; a rank must be in [0, " + std::to_string(num_locales()) + ")");
    return static_cast<int>(q);
  }
  if (!py::isinstance<py::sequence>(where) || py::isinstance<py::str>(where) || py::len(where) < 2 || py::len(where) > 3)
    throw argument_error(who + " is " + shown(where) + "; it must be a tuple (IP, PID[, device]) or a rank");
  const auto seq = py::reinterpret_borrow<py::sequence>(where);
  if (seq.size() == 3) {
    const py::object device = seq[2];
    if (!py::isinstance<py::str>(device) || device.cast<std::string>() != "kDLCPU")
      throw unsupported_error(who + ": the device is " + shown(device) + "; dmap adopts host memory ('kDLCPU') only");
  }
  const py::object ip = seq[0];
  if (!py::isinstance<py::str>(ip))
    throw argument_error(who + "[0] (IP) is " + shown(ip) + "; it must be a str: an IP address or a host name");
  const index_t pid = to_index(seq[1], who + "[1] (PID)");
  try {
    return dmap::locale_of_location(location_table, ip.cast<std::string>(), pid);
  } catch (const argument_error& e) {
    throw argument_error(who + " is " + shown(where) + ": " + e.what());
  }
}

std::shared_ptr<array_handle> by_dtype_dap(const dap_input& in, dtype_code code) {
  switch (code) {
    case dtype_code::f64: return import_dap_f64(in);
    case dtype_code::f32: return import_dap_f32(in);
    case dtype_code::i64: return import_dap_i64(in);
    case dtype_code::i32: return import_dap_i32(in);
    case dtype_code::c128: return import_dap_c128(in);
    case dtype_code::b1: return import_dap_b1(in);
  }
  throw argument_error("dmap.from_distarray: unknown dtype");
}

std::shared_ptr<array_handle> by_dtype_partitioned(const partitioned_input& in, dtype_code code) {
  switch (code) {
    case dtype_code::f64: return import_partitioned_f64(in);
    case dtype_code::f32: return import_partitioned_f32(in);
    case dtype_code::i64: return import_partitioned_i64(in);
    case dtype_code::i32: return import_partitioned_i32(in);
    case dtype_code::c128: return import_partitioned_c128(in);
    case dtype_code::b1: return import_partitioned_b1(in);
  }
  throw argument_error("dmap.from_partitioned: unknown dtype");
}

/// Every locale's (dtype, rank) agree (the same verdict everywhere: the list is everyone's).
/// dtype -1: this locale holds no element to tell; the others decide (float64 when none does).
dtype_code agreed_kind(int code, int rank, const std::string& who) {
  const auto all = all_gather(std::array<int, 2>{code, rank});
  int chosen = -1, from = -1;
  for (std::size_t q = 0; q < all.size(); ++q) {
    if (all[q][1] != all[0][1])
      throw argument_error(who + ": locale " + std::to_string(q) + " describes " + std::to_string(all[q][1]) +
                           " dimensions, locale 0 " + std::to_string(all[0][1]) + "; every locale must describe the same array");
    if (all[q][0] < 0) continue;
    if (chosen < 0) {
      chosen = all[q][0], from = static_cast<int>(q);
    } else if (all[q][0] != chosen) {
      throw argument_error(who + ": locale " + std::to_string(q) + "'s elements are " +
                           dtype_name(static_cast<dtype_code>(all[q][0])) + ", locale " + std::to_string(from) + "'s " +
                           dtype_name(static_cast<dtype_code>(chosen)) + "; every locale must hold one dtype");
    }
  }
  return chosen < 0 ? dtype_code::f64 : static_cast<dtype_code>(chosen);
}

}  // namespace

void ensure_locations() {
  ensure_started();
  const void* env = dmap::detail::current_environment;
  const auto pid = static_cast<std::int64_t>(getpid());
  // Known when made for this environment and this locale sits where the table says (a new
  // environment may reuse the old one's address, over another communicator): agreed, so
  // that every locale gathers again when one does.
  const bool known = env == location_env && static_cast<int>(location_table.size()) == num_locales() &&
                     location_table[static_cast<std::size_t>(here())].pid == pid;
  if (!any_of_locales(!known)) return;
  location_table = process_locations();
  location_env = env;
}

py::list locations() {
  if (dmap::detail::current_environment != location_env || static_cast<int>(location_table.size()) != num_locales())
    throw runtime_error("dmap: the locations of the locales are not known (no array was made since dmap started)");
  py::list out;
  for (const auto& l : location_table) out.append(py::make_tuple(l.address(), l.pid));
  return out;
}

std::shared_ptr<array_handle> from_distarray(py::handle obj) {
  const std::string who = "dmap.from_distarray";
  ensure_started();
  collect();
  ensure_locations();
  dap_input in;
  int code = -1, rank = 0;
  agreed_local(who, [&] {
    py::object d = py::reinterpret_borrow<py::object>(obj);
    if (py::hasattr(obj, "__distarray__")) d = obj.attr("__distarray__")();
    if (!is_mapping(d))
      throw argument_error(who + ": " + shown(obj) + " has no __distarray__() method and is not a DAP dictionary");
    in.version = py::str(item(d, "__version__", who)).cast<std::string>();
    const local_buffer b = buffer_of(item(d, "buffer", who), who + ": 'buffer'");
    const py::object dims = item(d, "dim_data", who);
    if (!py::isinstance<py::sequence>(dims) || py::isinstance<py::str>(dims))
      throw argument_error(who + ": 'dim_data' is " + shown(dims) + "; it must be a tuple of dimension dictionaries");
    const std::size_t n = py::len(dims);
    if (n != b.shape.size())
      throw argument_error(who + ": 'dim_data' has " + std::to_string(n) + " dimension dictionaries and the buffer " +
                           std::to_string(b.shape.size()) + " dimensions; they must match");
    if (n < 1 || n > max_rank)
      throw unsupported_error(who + ": a " + std::to_string(n) + "-D array; the Python module builds arrays of 1, 2 or 3 dimensions");
    const auto seq = py::reinterpret_borrow<py::sequence>(dims);
    for (std::size_t k = 0; k < n; ++k)
      in.dims.push_back(dimension_of(seq[k], b.shape[k], who + ": dim_data[" + std::to_string(k) + "]"));
    in.data = b.data;
    in.shape = b.shape;
    in.strides = b.strides;
    in.keep = b.array;
    code = static_cast<int>(b.code);
    rank = static_cast<int>(n);
  });
  return by_dtype_dap(in, agreed_kind(code, rank, who));
}

std::shared_ptr<array_handle> from_partitioned(py::handle obj) {
  const std::string who = "dmap.from_partitioned";
  ensure_started();
  collect();
  ensure_locations();
  partitioned_input in;
  int code = -1, rank = 0;
  agreed_local(who, [&] {
    py::object p = py::reinterpret_borrow<py::object>(obj);
    if (!is_mapping(p) && py::hasattr(obj, "__partitioned__")) p = obj.attr("__partitioned__");
    if (!is_mapping(p))
      throw argument_error(who + ": " + shown(obj) + " has no __partitioned__ attribute and is not a __partitioned__ dictionary");
    in.shape = index_list(item(p, "shape", who), who + ": 'shape'");
    const std::size_t n = in.shape.size();
    if (n < 1 || n > max_rank)
      throw unsupported_error(who + ": a " + std::to_string(n) + "-D array; the Python module builds arrays of 1, 2 or 3 dimensions");
    in.tiling = index_list(item(p, "partition_tiling", who), who + ": 'partition_tiling'");
    if (in.tiling.size() != n)
      throw argument_error(who + ": 'partition_tiling' has " + std::to_string(in.tiling.size()) + " entries and 'shape' " +
                           std::to_string(n) + "; they must have the same dimensionality");
    const py::object parts = item(p, "partitions", who);
    if (!is_mapping(parts)) throw argument_error(who + ": 'partitions' is " + shown(parts) + "; it must be a dictionary");
    const py::object getter = has_key(p, "get") ? item(p, "get", who) : py::none();
    py::list keep;
    const int me = here();
    const py::dict tiles(parts);
    for (auto entry : tiles) {
      const std::string at = who + ": partitions[" + shown(entry.first) + "]";
      partitioned_input::tile t;
      t.position = index_list(entry.first, at + " (the key)");
      if (t.position.size() != n)
        throw argument_error(at + ": the key has " + std::to_string(t.position.size()) + " entries; it must have " + std::to_string(n));
      const py::handle v = entry.second;
      if (!is_mapping(v)) throw argument_error(at + " is " + shown(v) + "; it must be a dictionary");
      t.start = index_list(item(v, "start", at), at + "['start']");
      t.shape = index_list(item(v, "shape", at), at + "['shape']");
      if (t.start.size() != n || t.shape.size() != n)
        throw argument_error(at + ": 'start' and 'shape' must have " + std::to_string(n) + " entries");
      const py::object where = item(v, "location", at);
      if (!py::isinstance<py::sequence>(where) || py::isinstance<py::str>(where))
        throw argument_error(at + "['location'] is " + shown(where) + "; it must be a list of locations");
      std::size_t k = 0;
      for (auto w : where) t.location.push_back(locale_of_location(w, at + "['location'][" + std::to_string(k++) + "]"));
      std::sort(t.location.begin(), t.location.end());
      if (std::find(t.location.begin(), t.location.end(), me) != t.location.end()) {
        py::object data = item(v, "data", at);
        if (!PyObject_CheckBuffer(data.ptr()) && !getter.is_none()) {  // a handle: the producer's get resolves it
          data = getter(data);
          if ((py::isinstance<py::list>(data) || py::isinstance<py::tuple>(data)) && py::len(data) == 1)
            data = py::object(data[py::int_(0)]);
        }
        const local_buffer b = buffer_of(data, at + "['data']");
        if (b.shape != t.shape)
          throw argument_error(at + "['data'] has shape " + shown(b.array.attr("shape")) + "; the partition's shape is " +
                               shown(item(v, "shape", at)));
        if (code >= 0 && code != static_cast<int>(b.code))
          throw argument_error(at + "['data'] holds " + std::string(dtype_name(b.code)) + " elements, another local partition " +
                               dtype_name(static_cast<dtype_code>(code)) + "; all partitions must be of one type");
        code = static_cast<int>(b.code);
        t.data = b.data;
        t.strides = b.strides;
        keep.append(b.array);
      }
      in.tiles.push_back(std::move(t));
    }
    if (has_key(p, "locals")) {
      const py::object locals = item(p, "locals", who);
      if (!py::isinstance<py::sequence>(locals) || py::isinstance<py::str>(locals))
        throw argument_error(who + ": 'locals' is " + shown(locals) + "; it must be a list of partition positions");
      std::size_t k = 0;
      for (auto l : locals) in.locals.push_back(index_list(l, who + ": 'locals'[" + std::to_string(k++) + "]"));
    } else {  // not given: the partitions located here
      for (const auto& t : in.tiles)
        if (std::find(t.location.begin(), t.location.end(), me) != t.location.end()) in.locals.push_back(t.position);
    }
    std::sort(in.locals.begin(), in.locals.end());
    in.keep = keep;
    rank = static_cast<int>(n);
  });
  return by_dtype_partitioned(in, agreed_kind(code, rank, who));
}

}  // namespace dmap::python
