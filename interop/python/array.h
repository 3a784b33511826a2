// The arrays behind dmap.Array: one dmap::array<T, M> per Python array (T one of the six
// dtypes, M = 1..3) behind a virtual interface, so that the bindings (module.cpp) name no
// element type. Every operation takes the section the Python object looks at (common.h).
// The implementations are instantiated one dtype per translation unit (array_<dtype>.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <dmap/interop/dap.hpp>

#include "common.h"
#include "domain.h"
#include "runtime.h"

namespace dmap::python {

/// The reductions of dmap.Array.
enum class reduction { sum, prod, min, max };

/// Where a gather delivers, as the Python call asked (checked by array_handle::gather).
struct gather_request {
  const char* who;               ///< the Python call, for messages ("dmap.Array.gather")
  bool every_locale = false;     ///< allgather: every locale (root is not read)
  py::handle root;               ///< the root locale as passed (any Python object)
  index_t limit_bytes = -1;      ///< refuse above this many bytes (-1: no limit, an explicit gather)
  const char* refused = nullptr; ///< a rule the call broke on this locale: raised in the agreement
};

/// One dmap array of some dtype and rank.
class array_handle : public releasable {
 public:
  /// The element type.
  virtual dtype_code dtype() const noexcept = 0;
  /// The array's rank (M).
  virtual std::size_t rank() const noexcept = 0;
  /// The domain it was declared over.
  virtual const std::shared_ptr<domain_handle>& domain() const noexcept = 0;
  /// The section of the whole array.
  virtual section whole() const = 0;

  /// Collective: the elements of `src` (same dtype, same shape) into the section `dst`.
  virtual void assign(const section& dst, const array_handle& src, const section& from) = 0;
  /// Collective: every element of `dst` set to `value` (converted to the dtype; a value
  /// that does not convert on one locale fails on every locale).
  virtual void fill(const section& dst, py::handle value) = 0;
  /// Collective: the elements of the NumPy array `values` (the view's shape; every locale
  /// passes the whole array) into `dst`, each locale its own, converted as conversions.h says:
  /// every element is checked first, so a refused one on any locale fails on every locale
  /// before anything is written.
  virtual void assign_numpy(const section& dst, py::handle values) = 0;
  /// Collective: the reduction of the elements of `s`, a NumPy scalar on every locale.
  virtual py::object reduce(const section& s, reduction r) = 0;
  /// Collective: the elements of `s` as a NumPy array in C order, on every locale
  /// (`to.every_locale`) or on `to.root` only (None elsewhere). The root and the limit are
  /// checked in an agreement: a bad or differing one fails on every locale.
  virtual py::object gather(const section& s, const gather_request& to) = 0;
  /// Not collective: this locale's owned elements of `s`, one NumPy view per piece into
  /// dmap's storage (`owner` becomes each view's base and keeps the array alive).
  virtual py::list local_blocks(const section& s, py::handle owner) = 0;
  /// Not collective: for each of local_blocks, the positions of the view it covers (a tuple
  /// of slices: gather()[slices] is the block).
  virtual py::list local_slices(const section& s) = 0;
  /// Not collective: this locale's stored blocks of the whole array (owned elements and
  /// ghost cells: Stencil's frames), as NumPy views.
  virtual py::list local_frames(py::handle owner) = 0;
  /// Not collective: the global indices of each of local_frames (a tuple of Python ranges).
  virtual py::list local_frame_indices() = 0;
  /// Collective: refreshes the ghost cells (star: faces only).
  virtual void update_halos(bool star) = 0;
  /// Collective: writes `s` to the .npy file `path`.
  virtual void write_npy(const section& s, const std::string& path) = 0;
  /// Collective: reads the .npy file `path` into `s`.
  virtual void read_npy(const section& s, const std::string& path) = 0;
  /// Not collective: element `i` (array indices), local or remote.
  virtual py::object get(const std::vector<index_t>& i) = 0;
  /// Not collective: sets element `i` (array indices), local or remote.
  virtual void set(const std::vector<index_t>& i, py::handle value) = 0;
  /// Collective: a new array over the same domain with the same elements.
  virtual std::shared_ptr<array_handle> copy() = 0;

  // ---- protocols (protocols.cpp parses and checks the Python side)
  /// Not collective: this locale's DAP 0.10 dictionary of the whole array (dmap::dap_export):
  /// `__version__`, `buffer` (a NumPy view of the local buffer, ghost cells included; `owner`
  /// keeps the array alive) and `dim_data`.
  virtual py::dict distarray(py::handle owner) = 0;
  /// Not collective: this locale's __partitioned__ dictionary without `get`
  /// (dmap::partitioned_export): `location` entries from `locations` (one per locale).
  virtual py::dict partitioned(py::handle owner, const py::list& locations) = 0;
  /// Not collective: the elements of the tiles at `positions` (one message per other locale
  /// holding some), each a NumPy array of the tile's shape.
  virtual py::list partitioned_fetch(const std::vector<std::vector<index_t>>& positions) = 0;
};

/// A producer's DAP description on this locale, with its element type erased.
struct dap_input {
  std::string version;
  void* data = nullptr;
  std::vector<index_t> shape, strides;  // strides in elements
  std::vector<dap_dimension> dims;
  py::object keep;  // the producer's buffer, kept alive while the array adopts it
};

/// A producer's __partitioned__ description on this locale, with its element type erased.
struct partitioned_input {
  struct tile {
    std::vector<index_t> position, start, shape, strides;
    void* data = nullptr;
    std::vector<int> location;
  };
  std::vector<index_t> shape, tiling;
  std::vector<tile> tiles;
  std::vector<std::vector<index_t>> locals;
  py::object keep;  // the local partitions, kept alive while the array adopts them
};

/// The importers, one per dtype (array_<dtype>.cpp): collective, an array adopting the
/// described buffers (dmap::dap_import) or partitions (dmap::partitioned_import).
#define DMAP_PYTHON_IMPORTERS(suffix)                                                     \
  std::shared_ptr<array_handle> import_dap_##suffix(const dap_input& in);                 \
  std::shared_ptr<array_handle> import_partitioned_##suffix(const partitioned_input& in);
DMAP_PYTHON_IMPORTERS(f64)
DMAP_PYTHON_IMPORTERS(f32)
DMAP_PYTHON_IMPORTERS(i64)
DMAP_PYTHON_IMPORTERS(i32)
DMAP_PYTHON_IMPORTERS(c128)
DMAP_PYTHON_IMPORTERS(b1)
#undef DMAP_PYTHON_IMPORTERS

/// Collective: a new array of `dtype` over `domain`, every element zero; with `zeroed` false,
/// the elements are unspecified where the storage of a released array is reused (for results
/// the caller overwrites entirely before anyone reads them).
std::shared_ptr<array_handle> make_array(const std::shared_ptr<domain_handle>& domain, dtype_code dtype,
                                         bool zeroed = true);

/// The factories, one per dtype (array_<dtype>.cpp).
std::shared_ptr<array_handle> make_array_f64(const std::shared_ptr<domain_handle>& domain, bool zeroed);
std::shared_ptr<array_handle> make_array_f32(const std::shared_ptr<domain_handle>& domain, bool zeroed);
std::shared_ptr<array_handle> make_array_i64(const std::shared_ptr<domain_handle>& domain, bool zeroed);
std::shared_ptr<array_handle> make_array_i32(const std::shared_ptr<domain_handle>& domain, bool zeroed);
std::shared_ptr<array_handle> make_array_c128(const std::shared_ptr<domain_handle>& domain, bool zeroed);
std::shared_ptr<array_handle> make_array_b1(const std::shared_ptr<domain_handle>& domain, bool zeroed);

}  // namespace dmap::python
