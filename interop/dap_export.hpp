// DAP export derived from the DSI: any map whose locales' pieces form a per-dimension
// product over its target grid is described from `local_subdomains`, `local_layouts` and
// the optional `dimension_kinds()` (what the map declares each dimension to be) alone
// (Block, Stencil, Padded, Cyclic, BlockCyclic, Irregular, Dimensional, user maps), and 1-D
// maps known through a directory (Hashed, Unstructured) as 'u'. The map's type is never
// read: a user's map exports like a library one.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/concepts.hpp"
#include "dap.hpp"
#include "detail/dap_export.hpp"

namespace dmap {

/// This locale's DAP description of `a`, read-only (a const array's buffer: `buffer` is a
/// `const T*`; the overload for a non-const array hands out a writable one). Not collective.
/// `version` "0.10.0" (the default) or "0.9.0" for DAP 0.9's dictionaries: 'n' for a 'b'
/// dimension on one grid coordinate without padding, start/stop without communication
/// padding, one_to_one absent when false, and a periodic dimension's edge padding as
/// communication padding (not in size). Derived from the DSI: the map's target grid (C
/// order), every locale's pieces and layouts, and what the map declares
/// (`dimension_kinds()`), whatever the map. Per dimension: 'b' when the map declares a block
/// cut (or declares nothing) and each grid coordinate holds one run of positions, in grid
/// order, padding from the layouts' frames (0.10: boundary padding at the edges counted in
/// `size`, periodic or not, so that 0 <= start <= stop <= size always holds; `periodic`
/// says the edge cells hold the wrapped values); 'c' with the map's block size when it
/// declares a cyclic deal (or declares nothing and coordinates hold blocks dealt round
/// robin) from position 0, stored in order, whatever the shape; 'u' otherwise (positions in
/// buffer order; one_to_one as the map declares it, else unless coordinates share
/// positions). An empty domain's dimensions are cut as its map cuts them over a few
/// stand-in indices. 1-D directory maps (Hashed, Unstructured) are 'u'. Throws
/// unsupported_error saying why for maps without an N-D target grid or a grid over some of
/// the locales only, pieces that are not a product, and storage that is not one dense
/// strided buffer; argument_error for a moved-from array or a malformed version.
template <class T, std::size_t N>
dap_description<const T, N> dap_export(const array<T, N>& a, const std::string& version = "0.10.0") {
  return detail::dap_describe<const T>(a, version);
}

/// This locale's DAP description of `a` with a writable buffer (`buffer` is a `T*`: writes
/// through it are writes to the array, as a DAP consumer's or dap_import's are); otherwise
/// as the read-only overload for a const array. Not collective.
template <class T, std::size_t N>
dap_description<T, N> dap_export(array<T, N>& a, const std::string& version = "0.10.0") {
  return detail::dap_describe<T>(a, version);
}

}  // namespace dmap
