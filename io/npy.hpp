// NumPy .npy files, written and read by every locale at once: one file in C order that
// numpy.load opens, each locale moving its own pieces through an MPI-IO file view (a collective
// write or read), locale 0 adding only the header.
#pragma once

#include <bit>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dsi/array_traits.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/errors.hpp"
#include "detail/file_part.hpp"
#include "detail/mpi_file.hpp"
#include "detail/npy.hpp"
#include "npy_format.hpp"

namespace dmap {

/// Collective. The header of the .npy file `path` (read by locale 0, told to all): use it to
/// make the domain before reading. Reads "<path>.dmap-previous" when `path` does not exist and
/// that does, as read_npy. Throws io_error when the file cannot be read or some
/// locale's file begins otherwise than locale 0's, format_error when it is not an .npy file,
/// argument_error when the locales pass different paths.
inline npy_header read_npy_header(const std::string& path) {
  const std::string who = "dmap::read_npy_header";
  detail::mpi_file file(detail::committed_file(path), MPI_MODE_RDONLY, who, path, detail::file_arguments(who, path));
  auto [h, start] = detail::read_npy_header(file, who, path);
  agreed([&] { detail::check_npy_same_start(file, start, who, path); });
  file.close();
  return h;
}

/// Collective. Writes array or view `x` to the .npy file `path` in C order, its shape that of
/// x's index set: every locale writes its own elements (one collective MPI-IO write through a
/// file view), locale 0 the header too. The file is written under a temporary name in the
/// same directory and renamed when complete, so an existing `path` is replaced whole or left
/// untouched. Crash safety: an existing `path` is first renamed to "<path>.dmap-previous", then
/// the temporary to `path`, then "<path>.dmap-previous" is removed (no rename replaces a file:
/// on ext4 that forces the data to disk, 3-5x the cost of the write). If the writing process
/// dies at any point, the last complete file is `path` when it exists, otherwise
/// "<path>.dmap-previous"; read_npy, read_npy_header and hdf5_reader apply that rule, other
/// readers must too. Nothing is synced to disk (a power loss may lose both). Throws io_error
/// (on every locale) when the file cannot be written.
template <array_source X>
  requires npy_element<detail::array_value_t<X>>
void write_npy(const std::string& path, const X& x) {
  detail::write_npy(path, x, detail::file_route::automatic);
}

/// Collective. Reads the .npy file `path` into array or view `x`, whose shape it must have
/// (the file's positions fill x's indices in row-major order): every locale reads its own
/// elements. When `path` does not exist but "<path>.dmap-previous" does (a write_npy that died
/// part way; see write_npy), reads that. Throws on every locale: io_error when the file cannot be opened or is truncated
/// (as any locale sees it), or when some locale's file begins otherwise than locale 0's (the
/// path names another file there); format_error when it is not an .npy file or holds another
/// dtype or Fortran order, shape_error when the shapes differ, argument_error when the locales
/// pass different paths (or one relative path from different working directories). On failure x is unchanged unless the read itself
/// failed part way.
template <array_target X>
  requires npy_element<detail::array_value_t<X>>
void read_npy(const std::string& path, X&& x) {
  detail::read_npy(path, x, detail::file_route::automatic);
}

}  // namespace dmap
