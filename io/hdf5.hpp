// Parallel HDF5 files, written and read by every locale at once: datasets of any group path
// holding an array's (or view's) index set in row-major order, each locale moving its own
// pieces as hyperslabs of one collective H5Dwrite / H5Dread, the map's name and the index
// bounds stored beside them as attributes. Needs the CMake target dmap::hdf5 (parallel HDF5,
// Debian's libhdf5-openmpi-dev); <dmap/dmap.hpp> does not include this header.
#pragma once

#include <hdf5.h>

#ifndef H5_HAVE_PARALLEL
#error "dmap/io/hdf5.hpp needs a parallel HDF5 (Debian: libhdf5-openmpi-dev, linked through dmap::hdf5)"
#endif

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
#include "detail/hdf5.hpp"
#include "npy.hpp"

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

/// A new HDF5 file written by every locale at once: datasets at any group path, attributes on
/// any object. Nothing appears under the final name until commit(): the file is made under a
/// temporary name in the same directory and renamed then, so an existing file is replaced
/// whole or left untouched (a writer destroyed without commit() removes its temporary file).
/// commit() replaces an existing file as write_npy does (moved aside to "<path>.dmap-previous",
/// the new file renamed in, the old one removed), with the same recovery rule when the writer
/// dies: the last complete file is `path` when it exists, otherwise "<path>.dmap-previous"
/// (hdf5_reader applies it). Every member function is collective.
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
    detail::io_crash_point("created");
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
      const detail::h5_id creation = detail::h5_dataset_creation(who);
      set = detail::h5_check(H5Dcreate2(file_.get(), name.c_str(), type.get(), space.get(), links.get(), creation.get(),
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
  /// When `path` does not exist but "<path>.dmap-previous" does (a writer that died part way;
  /// see hdf5_writer), opens that.
  explicit hdf5_reader(std::string path) : path_(std::move(path)) {
    detail::h5_quiet();
    const std::string who = "dmap::hdf5_reader";
    // Every locale checks the path as it sees it, agreed before any locale opens: H5Fopen
    // (MPI_File_open) waits forever when the file is missing on one locale only.
    index_t bytes = 0;
    const std::string source = detail::committed_file(path_);  // path_, or the last complete write
    agreed(detail::file_arguments(who, path_), [&] {
      if (path_.empty()) throw argument_error(who + ": the file name is empty");
      if (path_.find('\0') != std::string::npos) throw argument_error(who + ": the file name contains a NUL character");
      detail::check_mpi_file_name(source, who, path_);
      detail::check_file_here(source, false, who, path_);
      const htri_t is_hdf5 = H5Fis_hdf5(source.c_str());
      const std::string on = num_locales() > 1 ? " (on locale " + std::to_string(here()) + ")" : std::string();
      if (is_hdf5 == 0) throw format_error(who + ": '" + path_ + "' is not an HDF5 file (no HDF5 signature)" + on);
      if (is_hdf5 < 0) throw io_error(who + ": cannot read '" + path_ + "': " + detail::h5_error_text() + on);
      struct stat st {};
      if (::stat(source.c_str(), &st) == 0) bytes = static_cast<index_t>(st.st_size);
    });
    // HDF5's MPI-IO driver takes locale 0's file size for every locale: a copy cut short on
    // another locale would read past its end unseen.
    detail::h5_agree_seen(detail::fingerprint().add(bytes).value(), who, "size of '" + path_ + "'",
                          [&] { return std::to_string(bytes) + " bytes"; });
    detail::h5_id fapl;
    agreed([&] { fapl = detail::h5_file_access(who); });
    agreed([&] {
      const hid_t f = H5Fopen(source.c_str(), H5F_ACC_RDONLY, fapl.get());
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
  // Collective. detail::h5_agree_seen of a dataset's type, shape and dmap attributes.
  static void agree_info(const hdf5_dataset_info& info, const std::string& who, const std::string& what) {
    detail::fingerprint f;
    f.add(info.type).add(info.type.size()).add(info.map).add(info.map.size());
    for (const auto* list : {&info.shape, &info.first, &info.stride}) {
      f.add(list->size());
      for (const index_t e : *list) f.add(e);
    }
    detail::h5_agree_seen(f.value(), who, what, [&] {
      std::string shape;
      for (std::size_t d = 0; d < info.shape.size(); ++d) shape += (d ? ", " : "") + std::to_string(info.shape[d]);
      return "type '" + info.type + "', shape (" + shape + "), map '" + info.map + "'";
    });
  }

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
    agree_info(seen, who, "dataset " + what);
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
