// The machinery behind scalapack.hpp (not part of the API): the prototypes of the ScaLAPACK and
// BLACS entry points dmap calls (they have no C header; these follow their sources), and the
// checks and arithmetic that turn a domain into a descriptor.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <complex>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "../../dists/block_cyclic.hpp"
#include "../../dists/dimensional.hpp"
#include "../../dsi/array.hpp"
#include "../../dsi/foreign_buffer.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/environment.hpp"

extern "C" {
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void Cblacs_gridinit(int* icontxt, char* order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int icontxt);
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
}

namespace dmap {

namespace detail {

/// ScaLAPACK's names of the descriptor entries, by position.
inline constexpr std::array<const char*, 9> scalapack_field_names{"DTYPE_", "CTXT_", "M_",    "N_",  "MB_",
                                                                   "NB_",    "RSRC_", "CSRC_", "LLD_"};

/// "desc[4] (MB_) is 0" for messages.
inline std::string scalapack_field(const std::array<int, 9>& desc, std::size_t k) {
  return "desc[" + std::to_string(k) + "] (" + scalapack_field_names[k] + ") is " + std::to_string(desc[k]);
}

/// NUMROC: the rows (or columns) of an n-long dimension in blocks of nb that grid
/// coordinate `coord` of `procs` holds when block 0 is on `src`.
inline int scalapack_numroc(int n, int nb, int coord, int src, int procs) {
  return numroc_(&n, &nb, &coord, &src, &procs);
}

/// The BLACS process grids dmap made over its communicator, one per shape, created on first
/// use and released (Cblacs_gridexit) when the environment ends. An environment attachment.
class blacs_grids {
 public:
  blacs_grids() = default;
  blacs_grids(const blacs_grids&) = delete;
  blacs_grids& operator=(const blacs_grids&) = delete;
  ~blacs_grids() {
    for (auto g = grids_.rbegin(); g != grids_.rend(); ++g) {
      // A program that called Cblacs_exit has released every grid already.
      int pr = -1, pc = -1, r = -1, c = -1;
      Cblacs_gridinfo(g->context, &pr, &pc, &r, &c);
      if (pr == g->rows && pc == g->cols) Cblacs_gridexit(g->context);
    }
  }

  /// The context of the rows x cols grid in "Row" order over the environment's
  /// communicator (locale q at (q / cols, q % cols)). Collective the first time a shape is
  /// asked for (every locale asks for the same shapes in the same order); rows * cols must
  /// be num_locales().
  int context(int rows, int cols) {
    for (const auto& g : grids_)
      if (g.rows == rows && g.cols == cols) return g.context;
    const int handle = Csys2blacs_handle(env().comm());
    int context = handle;
    char order[] = "Row";
    Cblacs_gridinit(&context, order, rows, cols);
    // The grid keeps communicators of its own; the system handle only named dmap's.
    Cfree_blacs_system_handle(handle);
    grids_.push_back({rows, cols, context});
    agreed([&] {
      int pr = -1, pc = -1, r = -1, c = -1;
      Cblacs_gridinfo(context, &pr, &pc, &r, &c);
      if (pr != rows || pc != cols || r != here() / cols || c != here() % cols)
        throw runtime_error("dmap::blacs_context: BLACS made a " + std::to_string(pr) + "x" + std::to_string(pc) +
                            " grid placing locale " + std::to_string(here()) + " at (" + std::to_string(r) + ", " +
                            std::to_string(c) + "); asked for " + std::to_string(rows) + "x" + std::to_string(cols) +
                            " in \"Row\" order");
    });
    return context;
  }

 private:
  struct grid {
    int rows, cols, context;
  };
  std::vector<grid> grids_;
};

/// The descriptor of a column-major BlockCyclic domain, without its context (desc[1] = -1),
/// and the grid shape; throws unsupported_error for what ScaLAPACK cannot describe. Not
/// collective (this locale's LLD_ and local size).
inline std::array<int, 9> scalapack_describe(const domain<2>& D, const std::string& who) {
  const auto* dd = D.template descriptor<dimensional_domain<2>>();
  if (dd == nullptr)
    throw unsupported_error(who + ": the distribution " + D.name() +
                            " is not block-cyclic; ScaLAPACK describes 2-D block-cyclic matrices only "
                            "(dmap::block_cyclic<2> with storage_order::column_major)");
  const auto& dist = dd->distribution();
  const target_grid<2>& grid = dist.targets();
  if (grid.size() != num_locales() || !(grid == target_grid<2>(grid.shape(), grid.size())))
    throw unsupported_error(who + ": " + D.name() + " maps onto a target grid other than the C-order grid of all " +
                            std::to_string(num_locales()) + " locales; a BLACS context (blacs_context) places "
                            "every locale q at (q / cols, q % cols)");
  const auto coords = grid.coords_of(here());
  std::array<int, 9> desc{1, -1, 0, 0, 1, 1, 0, 0, 1};
  for (std::size_t d = 0; d < 2; ++d) {
    const std::string dim = "dimension " + std::to_string(d);
    const auto* bc = std::get_if<block_cyclic_dim>(&dist.specs()[d]);
    if (bc == nullptr)
      throw unsupported_error(who + ": " + dim + " of " + D.name() + " is " + describe(dist.specs()[d]) +
                              "; ScaLAPACK describes block-cyclic dimensions only");
    const range r = D.dim(d);
    if (r.size() > 1 && r.stride() != 1)
      throw unsupported_error(who + ": " + dim + " of the domain has stride " + std::to_string(r.stride()) +
                              "; ScaLAPACK describes dense index ranges (stride 1)");
    if (r.size() > INT_MAX)
      throw unsupported_error(who + ": " + dim + " has " + std::to_string(r.size()) +
                              " indices; ScaLAPACK's M_ and N_ are ints (at most " + std::to_string(INT_MAX) + ")");
    if (bc->block_size > INT_MAX)
      throw unsupported_error(who + ": " + dim + " has block size " + std::to_string(bc->block_size) +
                              "; ScaLAPACK's MB_ and NB_ are ints (at most " + std::to_string(INT_MAX) + ")");
    const index_t lo = r.size() > 0 ? r.first() : r.lo(), b = bc->block_size, start = bc->start.value_or(lo);
    const int p = grid.extent(d);
    int src = 0;  // an empty dimension whose start is off the block boundaries: any source will do
    // ScaLAPACK's first block begins at the first index: dmap's block boundaries must too.
    if (floor_mod_wide(static_cast<wide_int>(lo) - start, b) == 0) {
      src = block_cyclic_owner(lo, start, b, p);
    } else if (r.size() > 0) {
      throw unsupported_error(who + ": " + dim + ": block 0 starts at " + std::to_string(start) +
                              ", so the first index " + std::to_string(lo) + " is not at a block boundary; " +
                              "ScaLAPACK's first block begins at the first row or column (use start = " +
                              std::to_string(lo) + " - src * " + std::to_string(b) + ")");
    }
    desc[2 + d] = static_cast<int>(r.size());
    desc[4 + d] = static_cast<int>(b);
    desc[6 + d] = src;
  }
  if (dist.order() != storage_order::column_major)
    throw unsupported_error(who + ": " + D.name() +
                            " stores each locale's elements row-major; ScaLAPACK's local matrices are column-major "
                            "(use dmap::storage_order::column_major)");
  const index_t rows = dd->cut(0).count(coords[0]), cols = dd->cut(1).count(coords[1]);
  if (rows * cols > INT_MAX)
    throw unsupported_error(who + ": locale " + std::to_string(here()) + " holds " + std::to_string(rows) + " x " +
                            std::to_string(cols) + " elements; LP64 ScaLAPACK indexes a local matrix with ints (at "
                            "most " + std::to_string(INT_MAX) + " elements)");
  desc[8] = static_cast<int>(std::max<index_t>(1, rows));
  return desc;
}

}  // namespace detail

}  // namespace dmap
