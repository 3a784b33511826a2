// The machinery behind hdf5.hpp (not part of the API): HDF5 identifiers and error text, the
// HDF5 type of each element type, agreed dataset paths, and the checks every locale agrees on.
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

#include "../../runtime/environment.hpp"
#include "../npy.hpp"

namespace dmap {

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

/// Objects of at least this many bytes (datasets' elements) start at a multiple of it in the file
/// (H5Pset_alignment). Measured with bench_io (docs/performance.md, "Parallel I/O"): HDF5's
/// collective write of column blocks (1 x 2 locales) ran at 1.3-1.9 of hand-written MPI-IO's
/// rate with its elements at 1 MiB, 0.91-0.99 right after the metadata (2 KiB in); page alignment
/// (4 KiB) gained nothing, and the other cases were unchanged. Parallel file systems stripe at 1 MiB too. The gap before a
/// dataset is a hole (no disk blocks on ext4, XFS, Lustre).
inline constexpr hsize_t h5_alignment = hsize_t{1} << 20;

/// A transfer in which every locale's share is contiguous pieces of at least this many bytes on
/// average is made by each locale's own MPI-IO calls inside the collective H5Dwrite / H5Dread
/// (H5FD_MPIO_INDIVIDUAL_IO); smaller pieces (interleaved shares: column blocks, Cyclic) keep
/// two-phase collective I/O, which gathers them into large writes. Measured with bench_io: at
/// 4 x 1 (4 ranks on 2 cores) row blocks then wrote at 1.3-2.2 and read at 2.4-4.5 of the rate of
/// hand-written two-phase MPI_File_write_all / read_all (0.77-0.97 and 0.56-0.96 before); at
/// 2 x 1 no change.
inline constexpr std::uint64_t h5_individual_run_bytes = std::uint64_t{1} << 20;

/// The file access properties of dmap's files: MPI-IO on dmap's communicator, large objects
/// aligned (h5_alignment).
inline h5_id h5_file_access(const std::string& who) {
  h5_id fapl = h5_check(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, who, "cannot make file access properties");
  h5_status(H5Pset_fapl_mpio(fapl.get(), env().comm(), MPI_INFO_NULL), who, "cannot select MPI-IO");
  h5_status(H5Pset_alignment(fapl.get(), h5_alignment, h5_alignment), who, "cannot set the alignment");
  return fapl;
}

/// The creation properties of dmap's datasets: contiguous storage allocated when the dataset is
/// made, never filled (dmap writes every element; a fill would write the whole dataset twice).
/// Chunked storage was measured 6-20x slower (chunks of 1024 rows) and is not used.
inline h5_id h5_dataset_creation(const std::string& who) {
  h5_id dcpl = h5_check(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, who, "cannot make dataset creation properties");
  h5_status(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), who, "cannot set the allocation time");
  h5_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), who, "cannot turn off fill values");
  return dcpl;
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

/// Collective. True when every locale's share `part` of a transfer is contiguous pieces of the
/// file of at least h5_individual_run_bytes on average (a run with a step is one piece per
/// element; a locale without elements agrees): the transfer then needs no two-phase I/O. One
/// all-reduce.
template <class T, std::size_t N>
bool h5_individual_io(const file_part<T, N>& part) {
  std::uint64_t pieces = 0;
  for (const auto& r : part.runs()) pieces += r.step == 1 ? 1 : static_cast<std::uint64_t>(r.count);
  const std::uint64_t mean = pieces == 0 ? std::numeric_limits<std::uint64_t>::max()
                                         : static_cast<std::uint64_t>(part.elements()) * sizeof(T) / pieces;
  return (num_locales() == 1 ? mean : all_reduce_min(mean)) >= h5_individual_run_bytes;
}

/// Collective. Moves this locale's share `part` of dataset `dataset` (elements of type `type`)
/// between the file and memory in one collective H5Dwrite / H5Dread (each locale's own MPI-IO
/// calls inside it when every share is long runs: h5_individual_run_bytes); counts it in the
/// file counters.
template <class T, std::size_t N>
void h5_move(hid_t dataset, hid_t type, file_part<T, N>& part, bool writing, const std::string& who,
             const std::string& what) {
  const auto shape = part.shape();
  if (std::find(shape.begin(), shape.end(), index_t{0}) != shape.end()) return;  // no storage: HDF5 refuses even an empty transfer
  h5_id file_space, memory_space, transfer;
  std::vector<T> packed;
  T* buffer = part.base();
  const auto& runs = part.runs();
  const bool individual = h5_individual_io(part);
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
    if (individual)
      h5_status(H5Pset_dxpl_mpio_collective_opt(transfer.get(), H5FD_MPIO_INDIVIDUAL_IO), who,
                "cannot select each locale's own MPI-IO calls");
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

}  // namespace dmap
