// The machinery behind dap_import.hpp (not part of the API): the dimension dictionaries as they
// travel between locales, and the checks and cuts that turn them into a map.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "../../dists/block.hpp"
#include "../../dists/dimensional.hpp"
#include "../../dists/padded.hpp"
#include "../../dists/stencil.hpp"
#include "../../dists/unstructured.hpp"
#include "../../dsi/array.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../dap.hpp"

namespace dmap {

namespace detail {

/// One locale's dimension dictionary, without its index list, as it travels to the others.
struct dap_summary {
  char dist_type;
  bool periodic;
  bool one_to_one;
  int minor;
  int proc_grid_size;
  int proc_grid_rank;
  index_t size;
  index_t start;
  index_t stop;
  index_t padding[2];
  index_t block_size;
  index_t indices;  // how many
};

/// True when a 'b' dictionary marks an empty local buffer by start == size (DAP's "Empty
/// local buffers"), which may sit anywhere in the grid.
inline bool dap_empty_marker(const dap_summary& s) { return s.dist_type == 'b' && s.start == s.size && s.size > 0; }

/// True when two 'b' dictionaries of one grid coordinate describe the same empty buffer
/// (start == stop, no padding), whichever start each names.
inline bool dap_same_empty_block(const dap_summary& a, const dap_summary& b) {
  const auto empty = [](const dap_summary& s) {
    return s.dist_type == 'b' && s.start == s.stop && s.padding[0] == 0 && s.padding[1] == 0;
  };
  return empty(a) && empty(b);
}

/// Throws argument_error "dmap::dap_import: dimension d: <what>".
[[noreturn]] inline void reject_import(std::size_t d, const std::string& what) {
  throw argument_error(dap_text("dmap::dap_import: dimension ", d, ": ", what));
}

/// A 'b' dimension's positions owned by each grid coordinate (from any locale at it), and
/// its boundary padding: what the locales' dictionaries say, checked for an exact cover.
struct dap_block_axis {
  std::vector<index_t> owned_lo, owned_hi;  // per grid coordinate, [lo, hi) of positions
  std::vector<std::array<index_t, 2>> padding;
  index_t low = 0, high = 0;                // the owned positions: [low, high)
};

inline dap_block_axis dap_block_cover(std::size_t d, const std::vector<const dap_summary*>& at) {
  const dap_summary& any = *at.front();
  const auto parts = static_cast<std::size_t>(any.proc_grid_size);
  dap_block_axis axis;
  axis.owned_lo.resize(parts);
  axis.owned_hi.resize(parts);
  axis.padding.resize(parts);
  for (std::size_t k = 0; k < parts; ++k) {
    const dap_summary& s = *at[k];
    dap_dimension dim;
    dim.dist_type = s.dist_type;
    dim.proc_grid_size = s.proc_grid_size;
    dim.proc_grid_rank = s.proc_grid_rank;
    dim.periodic = s.periodic;
    dim.padding = {s.padding[0], s.padding[1]};
    const auto comm = dap_communication_sides(dim, s.minor);
    // Where the owned positions lie in the dictionary's [start, stop).
    const bool all_inside = s.minor >= 10;
    const index_t below = all_inside || !comm[0] ? s.padding[0] : 0;
    const index_t above = all_inside || !comm[1] ? s.padding[1] : 0;
    if (s.dist_type == 'n') {
      axis.owned_lo[k] = s.padding[0];
      axis.owned_hi[k] = s.size - s.padding[1];
    } else if (dap_empty_marker(s)) {
      axis.owned_lo[k] = axis.owned_hi[k] = 0;  // placed below, once the cover's start is known
    } else {
      axis.owned_lo[k] = s.start + below;
      axis.owned_hi[k] = s.stop - above;
    }
    axis.padding[k] = {s.padding[0], s.padding[1]};
    if (axis.owned_hi[k] < axis.owned_lo[k])
      reject_import(d, dap_text("grid coordinate ", k, " owns [", axis.owned_lo[k], ", ", axis.owned_hi[k],
                                "); its padding must not exceed its indices"));
  }
  // DAP 0.10 counts the edge padding in size, periodic or not; 0.9 leaves a periodic
  // dimension's (communication padding) out.
  const bool edges_counted = !any.periodic || any.minor >= 10;
  axis.low = edges_counted ? axis.padding.front()[0] : 0;
  axis.high = edges_counted ? any.size - axis.padding.back()[1] : any.size;
  if (any.size == 0) axis.low = axis.high = 0;
  for (std::size_t k = 0; k < parts; ++k)  // an empty buffer owns nothing where the blocks before it end
    if (dap_empty_marker(*at[k])) axis.owned_lo[k] = axis.owned_hi[k] = k == 0 ? axis.low : axis.owned_hi[k - 1];
  index_t next = axis.low;
  for (std::size_t k = 0; k < parts; ++k) {
    if (axis.owned_lo[k] != next)
      reject_import(d, dap_text("grid coordinate ", k, " owns positions from ", axis.owned_lo[k], ", but ",
                                k == 0 ? std::string("the dimension's owned positions begin at ") + std::to_string(next)
                                       : dap_text("grid coordinate ", k - 1, "'s end at ", next),
                                ": the blocks must cover the dimension exactly, in grid order, without gaps or overlaps"));
    next = axis.owned_hi[k];
    if (k + 1 < parts && axis.padding[k][1] != axis.padding[k + 1][0])
      reject_import(d, dap_text("grid coordinate ", k, "'s padding after (", axis.padding[k][1],
                                ") differs from grid coordinate ", k + 1, "'s padding before (", axis.padding[k + 1][0],
                                "); communication padding must be equal on both sides of a boundary"));
    if (k + 1 < parts && axis.padding[k][1] > 0 && axis.padding[k][1] > std::max(axis.owned_hi[k + 1] - axis.owned_lo[k + 1], index_t{0}))
      reject_import(d, dap_text("grid coordinate ", k, "'s communication padding ", axis.padding[k][1],
                                " exceeds the ", axis.owned_hi[k + 1] - axis.owned_lo[k + 1],
                                " indices its neighbour owns; it must be at most that"));
  }
  if (next != axis.high)
    reject_import(d, dap_text("the blocks end at ", next, ", but the owned positions end at ", axis.high,
                              " (size less the last boundary padding): the blocks must cover the dimension exactly"));
  if (any.periodic && parts > 0 && axis.padding.front()[0] != axis.padding.back()[1])
    reject_import(d, dap_text("it is periodic and grid coordinate 0's padding before (", axis.padding.front()[0],
                              ") differs from the last grid coordinate's padding after (", axis.padding.back()[1],
                              "); wrapped communication padding must be equal on both sides"));
  return axis;
}

}  // namespace detail

}  // namespace dmap
