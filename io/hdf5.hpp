// Parallel HDF5 files, written and read by every locale at once: datasets of any group path
// holding an array's (or view's) index set in row-major order, each locale moving its own
// pieces as hyperslabs of one collective H5Dwrite / H5Dread, the map's name and the index
// bounds stored beside them as attributes. Needs the CMake target dmap::hdf5 (parallel HDF5,
// Debian's libhdf5-openmpi-dev); <dmap/dmap.hpp> does not include this header.
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <sys/stat.h>
#include <type_traits>
#include <utility>
#include <vector>

#include "../runtime/environment.hpp"
#include "npy.hpp"

#ifndef H5_HAVE_PARALLEL
#error "dmap/io/hdf5.hpp needs a parallel HDF5 (Debian: libhdf5-openmpi-dev, linked through dmap::hdf5)"
#endif

namespace dmap {

/// What an HDF5 dataset holds: its element type (a NumPy dtype string such as "<f8", or a
/// description of a type dmap cannot read), its shape, and what dmap wrote beside it (the
/// map's name and the first index and stride of each dimension; empty for other writers).
struct hdf5_dataset_info {
  std::string type;            ///< the dtype ("<f8", "<c16", ...) or "unsupported: ..."
  std::vector<index_t> shape;  ///< the extent of each dimension
  std::string map;             ///< attribute dmap_map: the writer's map name ("" if absent)
  std::vector<index_t> first;  ///< attribute dmap_first: the first index per dimension
  std::vector<index_t> stride; ///< attribute dmap_stride: the stride per dimension
};

namespace detail {

/// An HDF5 identifier closed by `closer` on destruction.
class h5_id {
 public:
  h5_id() = default;
  h5_id(hid_t id, herr_t (*closer)(hid_t)) : id_(id), closer_(closer) {}
  h5_id(h5_id&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), closer_(o.closer_) {}
  h5_id& operator=(h5_id&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(closer_, o.closer_);
    return *this;
  }
  ~h5_id() { reset(); }
  /// Closes the identifier now (returns HDF5's status; 0 when there was none).
  herr_t reset() {
    herr_t status = 0;
    if (id_ >= 0 && closer_ != nullptr) status = closer_(id_);
    id_ = H5I_INVALID_HID;
    return status;
  }
  hid_t get() const noexcept { return id_; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  herr_t (*closer_)(hid_t) = nullptr;
};

/// Turns off HDF5's printing of its error stack (dmap reports errors as exceptions).
inline void h5_quiet() {
  static const bool done = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)done;
}

/// The innermost messages of HDF5's current error stack, then clears it.
inline std::string h5_error_text() {
  std::vector<std::string> lines;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
        auto& out = *static_cast<std::vector<std::string>*>(data);
        if (e->desc != nullptr && *e->desc != '\0') out.emplace_back(e->desc);
        return 0;
      },
      &lines);
  H5Eclear2(H5E_DEFAULT);
  if (lines.empty()) return "HDF5 gave no reason";
  std::string out = lines.front();
  if (lines.size() > 1 && lines.back() != lines.front()) out += " (" + lines.back() + ")";
  return out;
}

/// `id`, owned by `closer`, unless it is negative: then io_error "`who`: `what`: <HDF5's reason>".
inline h5_id h5_check(hid_t id, herr_t (*closer)(hid_t), const std::string& who, const std::string& what) {
  if (id < 0) throw io_error(who + ": " + what + ": " + h5_error_text());
  return {id, closer};
}

/// Throws io_error like h5_check unless `status` is non-negative.
inline void h5_status(herr_t status, const std::string& who, const std::string& what) {
  if (status < 0) throw io_error(who + ": " + what + ": " + h5_error_text());
}

/// The HDF5 memory type of T (complex numbers as the compound {r, i} that h5py and NumPy use).
template <class T>
h5_id h5_type_of() {
  const auto copy = [](hid_t t) { return h5_id(H5Tcopy(t), H5Tclose); };
  if constexpr (std::is_same_v<T, std::int8_t>) return copy(H5T_NATIVE_INT8);
  else if constexpr (std::is_same_v<T, std::uint8_t>) return copy(H5T_NATIVE_UINT8);
  else if constexpr (std::is_same_v<T, std::int16_t>) return copy(H5T_NATIVE_INT16);
  else if constexpr (std::is_same_v<T, std::uint16_t>) return copy(H5T_NATIVE_UINT16);
  else if constexpr (std::is_same_v<T, std::int32_t>) return copy(H5T_NATIVE_INT32);
  else if constexpr (std::is_same_v<T, std::uint32_t>) return copy(H5T_NATIVE_UINT32);
  else if constexpr (std::is_same_v<T, std::int64_t>) return copy(H5T_NATIVE_INT64);
  else if constexpr (std::is_same_v<T, std::uint64_t>) return copy(H5T_NATIVE_UINT64);
  else if constexpr (std::is_same_v<T, float>) return copy(H5T_NATIVE_FLOAT);
  else if constexpr (std::is_same_v<T, double>) return copy(H5T_NATIVE_DOUBLE);
  else {
    static_assert(std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>);
    using R = typename T::value_type;
    h5_id t(H5Tcreate(H5T_COMPOUND, sizeof(T)), H5Tclose);
    const hid_t part = std::is_same_v<R, float> ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    H5Tinsert(t.get(), "r", 0, part);
    H5Tinsert(t.get(), "i", sizeof(R), part);
    return t;
  }
}

/// The NumPy dtype string of a stored HDF5 type ("<f8", ">i4", "<c16"), or "unsupported: ..."
/// for a type no dmap element has.
inline std::string h5_type_name(hid_t t) {
  const H5T_class_t c = H5Tget_class(t);
  const std::size_t size = H5Tget_size(t);
  const auto order = [](hid_t x) { return H5Tget_order(x) == H5T_ORDER_BE ? std::string(">") : std::string("<"); };
  if (c == H5T_INTEGER && (size == 1 || size == 2 || size == 4 || size == 8)) {
    const bool is_signed = H5Tget_sign(t) == H5T_SGN_2;
    return (size == 1 ? std::string("|") : order(t)) + (is_signed ? "i" : "u") + std::to_string(size);
  }
  if (c == H5T_FLOAT && (size == 4 || size == 8)) {
    // only IEEE formats: the precision and exponent of binary32 or binary64
    const std::size_t precision = H5Tget_precision(t);
    if ((size == 4 && precision == 32) || (size == 8 && precision == 64)) return order(t) + "f" + std::to_string(size);
  }
  if (c == H5T_COMPOUND && H5Tget_nmembers(t) == 2 && (size == 8 || size == 16)) {
    const h5_id r(H5Tget_member_type(t, 0), H5Tclose), i(H5Tget_member_type(t, 1), H5Tclose);
    char* rn = H5Tget_member_name(t, 0);
    char* in = H5Tget_member_name(t, 1);
    const bool names = rn != nullptr && in != nullptr && std::strcmp(rn, "r") == 0 && std::strcmp(in, "i") == 0;
    H5free_memory(rn);
    H5free_memory(in);
    if (names && H5Tget_class(r.get()) == H5T_FLOAT && H5Tequal(r.get(), i.get()) > 0 &&
        H5Tget_size(r.get()) * 2 == size && H5Tget_member_offset(t, 0) == 0 &&
        H5Tget_member_offset(t, 1) == size / 2)
      return order(r.get()) + "c" + std::to_string(size);
  }
  static const char* const classes[] = {"integer", "float", "time", "string", "bitfield", "opaque",
                                        "compound", "reference", "enum", "variable-length", "array"};
  const std::string name = c >= 0 && c < 11 ? classes[c] : "unknown";
  return "unsupported: an HDF5 " + name + " type of " + std::to_string(size) + " bytes";
}

/// True when a stored type named `stored` holds elements of T exactly (the byte order may
/// differ: HDF5 swaps bytes without loss).
template <class T>
bool h5_holds(const std::string& stored) {
  const std::string want = npy_descr<T>();
  return stored.size() == want.size() && stored.compare(1, std::string::npos, want, 1) == 0 &&
         stored.find(':') == std::string::npos;
}

/// The components of an HDF5 object path ("/a/b/c" or "a/b/c": a, b, c); argument_error
/// naming `who` for an empty path, an empty component ("a//b") or "." and "..".
inline std::vector<std::string> h5_path_parts(const std::string& path, const std::string& who, bool root_allowed) {
  std::vector<std::string> parts;
  std::size_t at = path.empty() || path[0] != '/' ? 0 : 1;
  if (path.empty() || (path == "/" && !root_allowed))
    throw argument_error(who + ": the dataset name '" + path + "' names no dataset (give a path such as \"/field\")");
  if (path.find('\0') != std::string::npos) throw argument_error(who + ": the object path '" + path + "' contains a NUL character");
  while (at < path.size()) {
    const auto end = std::min(path.find('/', at), path.size());
    std::string part = path.substr(at, end - at);
    if (part.empty() || part == "." || part == "..")
      throw argument_error(who + ": the object path '" + path +
                           "' has an empty, '.' or '..' component; give names separated by single '/'");
    parts.push_back(std::move(part));
    at = end + 1;
  }
  return parts;
}

/// True when `path` names an existing object of `file` (every group on the way exists).
inline bool h5_exists(hid_t file, const std::vector<std::string>& parts) {
  std::string at;
  for (const auto& p : parts) {
    at += "/" + p;
    const htri_t e = H5Lexists(file, at.c_str(), H5P_DEFAULT);
    if (e <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    H5O_info_t info;
    if (H5Oget_info_by_name(file, at.c_str(), &info, H5P_DEFAULT) < 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    if (&p != &parts.back() && info.type != H5O_TYPE_GROUP) return false;
  }
  return true;
}

/// "/a/b" for parts a, b.
inline std::string h5_joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

/// Collective. The components of object path `path` (h5_path_parts), agreed: a bad path on one
/// locale is its argument_error on every locale, and locales naming different objects (or
/// attribute names, `attribute` when given) are an argument_error on every locale. `file` is
/// for messages.
inline std::vector<std::string> h5_agreed_path(const std::string& path, const std::string& who, bool root_allowed,
                                               const std::string& file, const std::string* attribute = nullptr) {
  call_arguments args{who.c_str(), 0, {}};
  return agreed(args, [&] {
    auto parts = h5_path_parts(path, who, root_allowed);
    if (attribute != nullptr && attribute->empty()) throw argument_error(who + ": the attribute name is empty");
    if (attribute != nullptr && attribute->find('\0') != std::string::npos)
      throw argument_error(who + ": the attribute name contains a NUL character");
    // The fingerprint of what this locale names ("a" and "/a" alike), read by the agreement.
    const std::string object = h5_joined(parts), name = attribute != nullptr ? *attribute : std::string();
    args.fingerprint = fingerprint().add(object).add(object.size()).add(name).add(name.size()).value();
    args.describe = [object, name, file] {
      return "object '" + object + "'" + (name.empty() ? std::string() : ", attribute '" + name + "'") + " of '" + file + "'";
    };
    return parts;
  });
}

/// Collective. Throws io_error on every locale unless every locale's `mine` (a fingerprint of
/// what it read of `what` in the file it opened) is locale 0's: each locale reads the metadata
/// itself, and a path resolved per locale or a file replaced between the locales' opens gives
/// another answer there, on which a locale acting alone would leave the others waiting or
/// return another value. `here_text` describes this locale's answer.
template <class Describe>
void h5_agree_seen(std::uint64_t mine, const std::string& who, const std::string& what, Describe&& here_text) {
  if (num_locales() == 1) return;
  std::uint64_t first = mine;
  broadcast(first, 0);
  agreed([&] {
    if (mine != first)
      throw io_error(who + ": locale " + std::to_string(here()) + " sees another " + what + " than locale 0 (here: " +
                     here_text() + "): the path names another file on some locale (a relative path or link resolved "
                     "per locale?) or the file changed while it was opened; every locale must read one file");
  });
}

/// Collective. h5_agree_seen of a dataset's type, shape and dmap attributes.
inline void h5_agree_info(const hdf5_dataset_info& info, const std::string& who, const std::string& what) {
  fingerprint f;
  f.add(info.type).add(info.type.size()).add(info.map).add(info.map.size());
  for (const auto* list : {&info.shape, &info.first, &info.stride}) {
    f.add(list->size());
    for (const index_t e : *list) f.add(e);
  }
  h5_agree_seen(f.value(), who, what, [&] {
    std::string shape;
    for (std::size_t d = 0; d < info.shape.size(); ++d) shape += (d ? ", " : "") + std::to_string(info.shape[d]);
    return "type '" + info.type + "', shape (" + shape + "), map '" + info.map + "'";
  });
}

/// The map name and the index set of an array or view (what a dataset's attributes record).
template <class X>
std::pair<std::string, std::vector<std::pair<index_t, index_t>>> h5_origin(const X& x) {
  using bare = std::remove_cvref_t<X>;
  std::string map;
  std::vector<std::pair<index_t, index_t>> dims;
  const auto record = [&](const auto& r) {
    for (std::size_t d = 0; d < array_traits<bare>::rank; ++d) dims.emplace_back(r.dim(d).first(), r.dim(d).stride());
  };
  if constexpr (array_traits<bare>::is_array) {
    map = x.domain().name();
    record(x.domain().indices());
  } else {
    map = x.base().domain().name() + ", a view";
    record(x.indices());
  }
  return {map, dims};
}

/// The file access properties of dmap's files: MPI-IO on dmap's communicator.
inline h5_id h5_file_access(const std::string& who) {
  h5_id fapl = h5_check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, who, "cannot make file access properties");
  h5_status(H5Pset_fapl_mpio(fapl.get(), env().comm(), MPI_INFO_NULL), who, "cannot select MPI-IO");
  return fapl;
}

/// The most hyperslabs one locale hands HDF5 before its share is staged through a row-major
/// slab (HDF5 merges many hyperslab selections slowly).
inline constexpr std::size_t h5_max_boxes = 64;

/// Collective. The share of this locale in a transfer of `x`, with few enough boxes for HDF5.
template <class T, std::size_t N, class X>
file_part<T, N> h5_part(const X& x, bool writing, file_route route) {
  auto make = [&](file_route r) { return writing ? file_part<T, N>::for_writing(x, r) : file_part<T, N>::for_reading(x, r); };
  file_part<T, N> part = make(route);
  if (route != file_route::automatic || part.staged()) return part;
  const auto boxes = static_cast<index_t>(part.boxes().size());
  if ((num_locales() == 1 ? boxes : all_reduce_max(boxes)) <= static_cast<index_t>(h5_max_boxes)) return part;
  return make(file_route::staged);
}

/// Collective. Moves this locale's share `part` of dataset `dataset` (elements of type `type`)
/// between the file and memory; counts it in the file counters.
template <class T, std::size_t N>
void h5_move(hid_t dataset, hid_t type, file_part<T, N>& part, bool writing, const std::string& who,
             const std::string& what) {
  const auto shape = part.shape();
  if (std::find(shape.begin(), shape.end(), index_t{0}) != shape.end()) return;  // no storage: HDF5 refuses even an empty transfer
  h5_id file_space, memory_space, transfer;
  std::vector<T> packed;
  T* buffer = part.base();
  const auto& runs = part.runs();
  agreed([&] {
    file_space = h5_check(H5Dget_space(dataset), H5Sclose, who, "cannot get the dataspace of " + what);
    if (runs.empty()) {
      h5_status(H5Sselect_none(file_space.get()), who, "cannot select in " + what);
    } else {
      bool first = true;
      for (const auto& box : part.boxes()) {
        std::array<hsize_t, N> start{}, stride{}, count{};
        for (std::size_t d = 0; d < N; ++d) {
          start[d] = static_cast<hsize_t>(box.first[d]);
          stride[d] = static_cast<hsize_t>(box.step[d]);
          count[d] = static_cast<hsize_t>(box.count[d]);
        }
        h5_status(H5Sselect_hyperslab(file_space.get(), first ? H5S_SELECT_SET : H5S_SELECT_OR, start.data(),
                                      stride.data(), count.data(), nullptr),
                  who, "cannot select this locale's part of " + what);
        first = false;
      }
    }
    const hsize_t n = static_cast<hsize_t>(part.elements());
    const hsize_t extent = std::max<hsize_t>(n, 1);
    memory_space = h5_check(H5Screate_simple(1, &extent, nullptr), H5Sclose, who, "cannot make a memory dataspace");
    if (n == 0) h5_status(H5Sselect_none(memory_space.get()), who, "cannot select in memory");
    // HDF5 moves a selection in row-major order of the file's positions: the runs' order.
    if (!runs.empty() && !memory_in_file_order(runs)) {
      packed.resize(static_cast<std::size_t>(n));
      if (writing) {
        std::size_t k = 0;
        for (const auto& r : runs)
          for (index_t e = 0; e < r.count; ++e) packed[k++] = buffer[r.memory + e * r.memory_step];
      }
      buffer = packed.data();
    } else if (!runs.empty()) {
      buffer += runs.front().memory;
    }
    transfer = h5_check(H5Pcreate(H5P_DATASET_XFER), H5Pclose, who, "cannot make transfer properties");
    h5_status(H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE), who, "cannot select collective transfers");
  });
  T dummy{};
  if (buffer == nullptr) buffer = &dummy;
  // One collective call on every locale: its failure is agreed afterwards.
  agreed([&] {
    auto& c = env().files();
    const auto bytes = static_cast<std::uint64_t>(part.elements()) * sizeof(T);
    if (writing) {
      h5_status(H5Dwrite(dataset, type, memory_space.get(), file_space.get(), transfer.get(), buffer), who,
                "cannot write " + what);
      ++c.writes;
      c.bytes_written += bytes;
    } else {
      h5_status(H5Dread(dataset, type, memory_space.get(), file_space.get(), transfer.get(), buffer), who,
                "cannot read " + what);
      ++c.reads;
      c.bytes_read += bytes;
      if (!packed.empty()) {
        std::size_t k = 0;
        for (const auto& r : runs)
          for (index_t e = 0; e < r.count; ++e) part.base()[r.memory + e * r.memory_step] = packed[k++];
      }
    }
  });
}

/// Collective. Writes `value` as attribute `name` of the open object `object` (replacing one of
/// that name).
template <class V>
void h5_write_attribute(hid_t object, const std::string& name, const V& value, const std::string& who,
                        const std::string& what) {
  if (H5Aexists(object, name.c_str()) > 0)
    h5_status(H5Adelete(object, name.c_str()), who, "cannot replace attribute '" + name + "' of " + what);
  H5Eclear2(H5E_DEFAULT);
  h5_id type, space;
  const void* data = nullptr;
  const char* text = nullptr;
  if constexpr (std::is_same_v<V, std::string>) {  // variable-length UTF-8: Python reads a str
    type = h5_id(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    space = h5_id(H5Screate(H5S_SCALAR), H5Sclose);
    text = value.c_str();
    data = &text;
  } else if constexpr (std::is_same_v<V, std::vector<std::int64_t>>) {
    type = h5_id(H5Tcopy(H5T_NATIVE_INT64), H5Tclose);
    const hsize_t n = value.size();
    space = h5_id(H5Screate_simple(1, &n, nullptr), H5Sclose);
    data = value.data();
  } else {
    type = h5_type_of<V>();
    space = h5_id(H5Screate(H5S_SCALAR), H5Sclose);
    data = &value;
  }
  const h5_id a = h5_check(H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                           H5Aclose, who, "cannot create attribute '" + name + "' of " + what);
  h5_status(H5Awrite(a.get(), type.get(), data), who, "cannot write attribute '" + name + "' of " + what);
}

}  // namespace detail

/// A new HDF5 file written by every locale at once: datasets at any group path, attributes on
/// any object. Nothing appears under the final name until commit(): the file is made under a
/// temporary name in the same directory and renamed then, so an existing file is replaced
/// whole or left untouched (a writer destroyed without commit() removes its temporary file).
/// Every member function is collective.
class hdf5_writer {
 public:
  /// Collective. Starts the file `path`. Throws io_error (on every locale) when it cannot be
  /// created, argument_error for an empty path.
  explicit hdf5_writer(std::string path) : commit_(std::move(path), "dmap::hdf5_writer") {
    detail::h5_quiet();
    const std::string who = "dmap::hdf5_writer";
    const std::string& shown = commit_.path();
    detail::check_mpi_file_name(commit_.temporary(), who, shown);
    detail::h5_id fapl;
    agreed([&] { fapl = detail::h5_file_access(who); });
    agreed([&] {
      const hid_t f = H5Fcreate(commit_.temporary().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
      file_ = detail::h5_check(f, H5Fclose, who, "cannot create '" + shown + "' (as '" + commit_.temporary() + "')");
    });
  }
  hdf5_writer(const hdf5_writer&) = delete;
  hdf5_writer& operator=(const hdf5_writer&) = delete;
  /// Closes and removes the temporary file unless commit() succeeded.
  ~hdf5_writer() { file_.reset(); }

  /// Collective. Writes array or view `x` as the new dataset `dataset` ("/group/name"; the
  /// groups are made as needed), its shape that of x's index set in row-major order, with
  /// attributes dmap_map, dmap_first and dmap_stride. Each locale writes its own elements.
  /// Throws argument_error for a bad or taken name, io_error when HDF5 fails.
  template <array_source X>
    requires npy_element<detail::array_value_t<X>>
  void write(const std::string& dataset, const X& x) {
    write_dataset(dataset, x, detail::file_route::automatic);
  }

  /// Collective. Sets attribute `name` of the object `object` (a dataset or group written
  /// before; "/" is the file's root group) to `value`: an integer, a double or a string.
  template <class V>
    requires std::is_same_v<V, std::int64_t> || std::is_same_v<V, double> || std::is_same_v<V, std::string>
  void set_attribute(const std::string& object, const std::string& name, const V& value) {
    const std::string who = "dmap::hdf5_writer::set_attribute";
    live(who);
    const auto parts = detail::h5_agreed_path(object, who, true, commit_.path(), &name);
    const std::string what = "'" + detail::h5_joined(parts) + "' in '" + commit_.path() + "'";
    agreed([&] {
      if (!detail::h5_exists(file_.get(), parts))
        throw argument_error(who + ": there is no object " + what + " to set an attribute on");
      const detail::h5_id o = detail::h5_check(H5Oopen(file_.get(), detail::h5_joined(parts).c_str(), H5P_DEFAULT),
                                               H5Oclose, who, "cannot open " + what);
      detail::h5_write_attribute(o.get(), name, value, who, what);
    });
  }
  /// Collective. set_attribute for a string literal.
  void set_attribute(const std::string& object, const std::string& name, const char* value) {
    set_attribute(object, name, std::string(value));
  }

  /// Collective. Closes the file and renames it to its final name. Throws io_error when that
  /// fails, or when a write() failed after making its dataset (the file would hold it part
  /// written); the temporary file is removed with the writer.
  void commit() {
    const std::string who = "dmap::hdf5_writer::commit";
    live(who);
    agreed([&] {
      const herr_t closed = file_.reset();
      if (!broken_.empty()) throw io_error(who + ": '" + commit_.path() + "' is not published: " + broken_);
      detail::h5_status(closed, who, "cannot close '" + commit_.path() + "'");
    });
    commit_.publish();
  }

  /// The final name of the file.
  const std::string& path() const noexcept { return commit_.path(); }

  /// write() with the route of every locale's share chosen (tests take both).
  template <class X>
  void write_dataset(const std::string& dataset, const X& x, detail::file_route route) {
    using T = detail::array_value_t<X>;
    constexpr std::size_t N = detail::array_traits_of<X>::rank;
    const std::string who = "dmap::hdf5_writer::write";
    live(who);
    detail::check_live_operand(x, who.c_str());
    const auto parts = detail::h5_agreed_path(dataset, who, false, commit_.path());
    const std::string name = detail::h5_joined(parts);
    const std::string what = "dataset '" + name + "' of '" + commit_.path() + "'";
    auto part = detail::h5_part<T, N>(x, true, route);
    const auto shape = part.shape();
    const auto [map, dims] = detail::h5_origin(x);
    detail::h5_id type, set;
    struct unless_done {  // a dataset created but not written whole must never be published
      std::string& broken;
      std::string why;
      ~unless_done() { if (!why.empty()) broken = why; }
    } guard{broken_, {}};
    agreed([&] {
      if (detail::h5_exists(file_.get(), parts))
        throw argument_error(who + ": " + what + " exists already; each dataset is written once");
      std::array<hsize_t, N> extents{};
      for (std::size_t d = 0; d < N; ++d) extents[d] = static_cast<hsize_t>(shape[d]);
      const detail::h5_id space = detail::h5_check(H5Screate_simple(static_cast<int>(N), extents.data(), nullptr),
                                                   H5Sclose, who, "cannot make the dataspace of " + what);
      const detail::h5_id links = detail::h5_check(H5Pcreate(H5P_LINK_CREATE), H5Pclose, who, "cannot make link properties");
      detail::h5_status(H5Pset_create_intermediate_group(links.get(), 1), who, "cannot ask for groups");
      type = detail::h5_type_of<T>();
      set = detail::h5_check(H5Dcreate2(file_.get(), name.c_str(), type.get(), space.get(), links.get(), H5P_DEFAULT,
                                        H5P_DEFAULT),
                             H5Dclose, who, "cannot create " + what);
      guard.why = "writing its " + what + " failed";
      std::vector<std::int64_t> first, stride;
      for (const auto& [f, s] : dims) first.push_back(f), stride.push_back(s);
      detail::h5_write_attribute(set.get(), "dmap_map", map, who, what);
      detail::h5_write_attribute(set.get(), "dmap_first", first, who, what);
      detail::h5_write_attribute(set.get(), "dmap_stride", stride, who, what);
    });
    detail::h5_move(set.get(), type.get(), part, true, who, what);
    agreed([&] { detail::h5_status(set.reset(), who, "cannot close " + what); });
    guard.why.clear();
  }

 private:
  void live(const std::string& who) const {
    if (file_.get() < 0) throw argument_error(who + ": the writer of '" + commit_.path() + "' was committed already");
  }

  detail::file_commit commit_;
  detail::h5_id file_;
  std::string broken_;  ///< why commit() must refuse (a write failed part way), or ""
};

/// An existing HDF5 file read by every locale at once. Every member function is collective.
class hdf5_reader {
 public:
  /// Collective. Opens `path` for reading. Throws on every locale: io_error when it cannot be
  /// read (missing, unreadable, truncated) on some locale, format_error when it is not an HDF5
  /// file, argument_error when the locales pass different paths (or one relative path from
  /// different working directories). Each locale checks the file it sees; the verdict is agreed.
  explicit hdf5_reader(std::string path) : path_(std::move(path)) {
    detail::h5_quiet();
    const std::string who = "dmap::hdf5_reader";
    // Every locale checks the path as it sees it, agreed before any locale opens: H5Fopen
    // (MPI_File_open) waits forever when the file is missing on one locale only.
    index_t bytes = 0;
    agreed(detail::file_arguments(who, path_), [&] {
      if (path_.empty()) throw argument_error(who + ": the file name is empty");
      if (path_.find('\0') != std::string::npos) throw argument_error(who + ": the file name contains a NUL character");
      detail::check_mpi_file_name(path_, who, path_);
      detail::check_file_here(path_, false, who, path_);
      const htri_t is_hdf5 = H5Fis_hdf5(path_.c_str());
      const std::string on = num_locales() > 1 ? " (on locale " + std::to_string(here()) + ")" : std::string();
      if (is_hdf5 == 0) throw format_error(who + ": '" + path_ + "' is not an HDF5 file (no HDF5 signature)" + on);
      if (is_hdf5 < 0) throw io_error(who + ": cannot read '" + path_ + "': " + detail::h5_error_text() + on);
      struct stat st {};
      if (::stat(path_.c_str(), &st) == 0) bytes = static_cast<index_t>(st.st_size);
    });
    // HDF5's MPI-IO driver takes locale 0's file size for every locale: a copy cut short on
    // another locale would read past its end unseen.
    detail::h5_agree_seen(detail::fingerprint().add(bytes).value(), who, "size of '" + path_ + "'",
                          [&] { return std::to_string(bytes) + " bytes"; });
    detail::h5_id fapl;
    agreed([&] { fapl = detail::h5_file_access(who); });
    agreed([&] {
      const hid_t f = H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl.get());
      file_ = detail::h5_check(f, H5Fclose, who, "cannot open '" + path_ + "'");
    });
  }
  hdf5_reader(const hdf5_reader&) = delete;
  hdf5_reader& operator=(const hdf5_reader&) = delete;

  /// Collective. True when the file has an object (dataset or group) at `object`. Throws
  /// io_error on every locale when some locale's answer differs from locale 0's (its path names
  /// another file), argument_error for a bad path or another path on some locale.
  bool exists(const std::string& object) {
    const std::string who = "dmap::hdf5_reader::exists";
    const auto parts = detail::h5_agreed_path(object, who, true, path_);
    const bool found = agreed([&] { return detail::h5_exists(file_.get(), parts); });
    detail::h5_agree_seen(detail::fingerprint().add(found).value(), who,
                          "answer for object '" + detail::h5_joined(parts) + "' of '" + path_ + "'",
                          [&] { return std::string(found ? "it exists" : "it does not exist"); });
    return found;
  }

  /// Collective. What dataset `dataset` holds. Throws format_error when there is no such
  /// dataset or it is not a simple array, io_error when some locale sees another type, shape or
  /// dmap attributes than locale 0 (its path names another file).
  hdf5_dataset_info info(const std::string& dataset) { return info_of(dataset, "dmap::hdf5_reader::info"); }

  /// Collective. Reads dataset `dataset` into array or view `x`, whose shape it must have (the
  /// dataset's row-major positions fill x's indices in row-major order): each locale reads its
  /// own elements. Throws on every locale: format_error for a missing dataset or another element
  /// type, shape_error for another shape, io_error when HDF5 fails or some locale sees other
  /// metadata of the dataset than locale 0 (see info), argument_error for a bad name or another
  /// name on some locale.
  template <array_target X>
    requires npy_element<detail::array_value_t<X>>
  void read(const std::string& dataset, X&& x) {
    read_dataset(dataset, x, detail::file_route::automatic);
  }

  /// Collective. Attribute `name` of object `object` ("/" for the root group) as V: an
  /// integer, a double or a string. Throws format_error when it is missing or of another kind,
  /// io_error when some locale reads another value than locale 0, argument_error for a bad or
  /// empty name or another object or name on some locale.
  template <class V>
    requires std::is_same_v<V, std::int64_t> || std::is_same_v<V, double> || std::is_same_v<V, std::string>
  V attribute(const std::string& object, const std::string& name) {
    const std::string who = "dmap::hdf5_reader::attribute";
    const auto parts = detail::h5_agreed_path(object, who, true, path_, &name);
    V value = agreed([&] { return attribute_of<V>(detail::h5_joined(parts), parts, name, who); });
    detail::fingerprint f;
    if constexpr (std::is_same_v<V, std::string>) f.add(std::string_view(value)).add(value.size());
    else f.add(value);
    detail::h5_agree_seen(f.value(), who, "value of attribute '" + name + "' of '" + detail::h5_joined(parts) + "' in '" + path_ + "'",
                          [&] {
                            if constexpr (std::is_same_v<V, std::string>) return "'" + value + "'";
                            else return std::to_string(value);
                          });
    return value;
  }

  /// The file's name.
  const std::string& path() const noexcept { return path_; }

  /// read() with the route of every locale's share chosen (tests take both).
  template <class X>
  void read_dataset(const std::string& dataset, X& x, detail::file_route route) {
    const detail::collective_scope scope;
    using T = detail::array_value_t<X>;
    constexpr std::size_t N = detail::array_traits_of<X>::rank;
    const std::string who = "dmap::hdf5_reader::read";
    detail::check_live_operand(x, who.c_str());
    const hdf5_dataset_info info = info_of(dataset, who);  // the name and what the locales see, agreed
    const std::string name = detail::h5_joined(detail::h5_path_parts(dataset, who, false));
    const std::string what = "dataset '" + name + "' of '" + path_ + "'";
    if (!detail::h5_holds<T>(info.type))
      throw format_error(who + ": " + what + " holds elements of type '" + info.type + "', the array's are '" +
                         npy_descr<T>() + "'; dmap reads no conversions");
    auto part = detail::h5_part<T, N>(x, false, route);
    const auto shape = part.shape();
    bool same = info.shape.size() == N;
    for (std::size_t d = 0; same && d < N; ++d) same = info.shape[d] == shape[d];
    if (!same) {
      std::string s = who + ": " + what + " has shape (";
      for (std::size_t d = 0; d < info.shape.size(); ++d) s += (d ? ", " : "") + std::to_string(info.shape[d]);
      s += "), the array has shape (";
      for (std::size_t d = 0; d < N; ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
      throw shape_error(s + ")");
    }
    detail::h5_id set, type;
    agreed([&] {
      set = detail::h5_check(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose, who, "cannot open " + what);
      type = detail::h5_type_of<T>();
    });
    detail::h5_move(set.get(), type.get(), part, false, who, what);
    part.finish_reading();
  }

 private:
  hdf5_dataset_info info_of(const std::string& dataset, const std::string& who) {
    const auto parts = detail::h5_agreed_path(dataset, who, false, path_);
    const std::string name = detail::h5_joined(parts);
    const std::string what = "'" + name + "' of '" + path_ + "'";
    hdf5_dataset_info seen = agreed([&] {
      if (!detail::h5_exists(file_.get(), parts)) throw format_error(who + ": there is no dataset " + what);
      H5O_info_t o;
      detail::h5_status(H5Oget_info_by_name(file_.get(), name.c_str(), &o, H5P_DEFAULT), who, "cannot inspect " + what);
      if (o.type != H5O_TYPE_DATASET) throw format_error(who + ": " + what + " is not a dataset (a group?)");
      const detail::h5_id set = detail::h5_check(H5Dopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Dclose, who,
                                                 "cannot open " + what);
      const detail::h5_id type = detail::h5_check(H5Dget_type(set.get()), H5Tclose, who, "cannot get the type of " + what);
      const detail::h5_id space = detail::h5_check(H5Dget_space(set.get()), H5Sclose, who, "cannot get the shape of " + what);
      hdf5_dataset_info info;
      info.type = detail::h5_type_name(type.get());
      if (H5Sget_simple_extent_type(space.get()) != H5S_SIMPLE)
        throw format_error(who + ": " + what + " is not an array dataset (a scalar or empty dataspace)");
      const int rank = H5Sget_simple_extent_ndims(space.get());
      std::vector<hsize_t> extents(static_cast<std::size_t>(std::max(rank, 0)));
      if (rank < 0 || H5Sget_simple_extent_dims(space.get(), extents.data(), nullptr) < 0)
        throw format_error(who + ": cannot read the shape of " + what + ": " + detail::h5_error_text());
      for (const auto e : extents) {
        if (e > static_cast<hsize_t>(std::numeric_limits<index_t>::max()))
          throw format_error(who + ": " + what + " has an extent beyond 2^63 - 1");
        info.shape.push_back(static_cast<index_t>(e));
      }
      if (H5Aexists(set.get(), "dmap_map") > 0) info.map = attribute_of<std::string>(name, parts, "dmap_map", who);
      if (H5Aexists(set.get(), "dmap_first") > 0) info.first = int_list(set.get(), "dmap_first", who, what);
      if (H5Aexists(set.get(), "dmap_stride") > 0) info.stride = int_list(set.get(), "dmap_stride", who, what);
      H5Eclear2(H5E_DEFAULT);
      return info;
    });
    detail::h5_agree_info(seen, who, "dataset " + what);
    return seen;
  }

  static std::vector<index_t> int_list(hid_t set, const char* name, const std::string& who, const std::string& what) {
    const detail::h5_id a = detail::h5_check(H5Aopen(set, name, H5P_DEFAULT), H5Aclose, who, "cannot open an attribute of " + what);
    const detail::h5_id space = detail::h5_check(H5Aget_space(a.get()), H5Sclose, who, "cannot read an attribute of " + what);
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    if (n < 0 || n > 64) throw format_error(who + ": attribute '" + name + "' of " + what + " is not a short list");
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    detail::h5_status(H5Aread(a.get(), H5T_NATIVE_INT64, v.data()), who, std::string("cannot read attribute '") + name + "'");
    return {v.begin(), v.end()};
  }

  template <class V>
  V attribute_of(const std::string& name, const std::vector<std::string>& parts, const std::string& attribute,
                 const std::string& who) {
    const std::string what = "'" + name + "' of '" + path_ + "'";
    if (!detail::h5_exists(file_.get(), parts)) throw format_error(who + ": there is no object " + what);
    const detail::h5_id o = detail::h5_check(H5Oopen(file_.get(), name.c_str(), H5P_DEFAULT), H5Oclose, who, "cannot open " + what);
    if (H5Aexists(o.get(), attribute.c_str()) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      throw format_error(who + ": " + what + " has no attribute '" + attribute + "'");
    }
    const detail::h5_id a = detail::h5_check(H5Aopen(o.get(), attribute.c_str(), H5P_DEFAULT), H5Aclose, who,
                                             "cannot open attribute '" + attribute + "' of " + what);
    const detail::h5_id type = detail::h5_check(H5Aget_type(a.get()), H5Tclose, who, "cannot read an attribute of " + what);
    const detail::h5_id space = detail::h5_check(H5Aget_space(a.get()), H5Sclose, who, "cannot read an attribute of " + what);
    const H5T_class_t c = H5Tget_class(type.get());
    const auto wrong = [&](const char* want) {
      return format_error(who + ": attribute '" + attribute + "' of " + what + " is not " + want);
    };
    if (H5Sget_simple_extent_npoints(space.get()) != 1) throw wrong("a single value");
    if constexpr (std::is_same_v<V, std::string>) {
      if (c != H5T_STRING) throw wrong("a string");
      if (H5Tis_variable_str(type.get()) > 0) {
        char* text = nullptr;
        const detail::h5_id mem(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(mem.get(), H5T_VARIABLE);
        H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
        detail::h5_status(H5Aread(a.get(), mem.get(), &text), who, "cannot read attribute '" + attribute + "'");
        std::string out = text == nullptr ? std::string() : std::string(text);
        H5free_memory(text);
        return out;
      }
      const std::size_t size = H5Tget_size(type.get());
      if (size > (std::size_t{1} << 20)) throw wrong("a string of at most 1 MiB");
      std::string out(size, '\0');
      detail::h5_status(H5Aread(a.get(), type.get(), out.data()), who, "cannot read attribute '" + attribute + "'");
      out.resize(std::strlen(out.c_str()));
      return out;
    } else {
      const bool is_int = std::is_same_v<V, std::int64_t>;
      if (c != (is_int ? H5T_INTEGER : H5T_FLOAT)) throw wrong(is_int ? "an integer" : "a floating-point number");
      V out{};
      const detail::h5_id mem = detail::h5_type_of<V>();
      detail::h5_status(H5Aread(a.get(), mem.get(), &out), who, "cannot read attribute '" + attribute + "'");
      return out;
    }
  }

  std::string path_;
  detail::h5_id file_;
};

/// Collective. Writes array or view `x` as dataset `dataset` of a new HDF5 file `path`
/// (replacing `path` whole once written; see hdf5_writer).
template <array_source X>
  requires npy_element<detail::array_value_t<X>>
void write_hdf5(const std::string& path, const std::string& dataset, const X& x) {
  hdf5_writer w(path);
  w.write(dataset, x);
  w.commit();
}

/// Collective. Reads dataset `dataset` of the HDF5 file `path` into array or view `x` (see
/// hdf5_reader::read).
template <array_target X>
  requires npy_element<detail::array_value_t<X>>
void read_hdf5(const std::string& path, const std::string& dataset, X&& x) {
  hdf5_reader r(path);
  r.read(dataset, x);
}

}  // namespace dmap
