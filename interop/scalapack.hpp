// ScaLAPACK interop: the 9-integer array descriptor (and the BLACS context it names) of a
// column-major BlockCyclic dmap array, so ScaLAPACK and PBLAS routines work on the array's
// local buffers in place; and a ScaLAPACK matrix (descriptor plus local pointer) adopted as a
// dmap array without copying.
//
// Needs ScaLAPACK and BLACS at link time (an LP64 build: INTEGER is int), so dmap.hpp does
// not include it; include <dmap/interop/scalapack.hpp> and link ScaLAPACK. The Fortran and
// BLACS entry points have no C header: the prototypes in detail/scalapack.hpp follow their sources.
//
// Correspondence (docs/guide/scalapack.md): ScaLAPACK's global row g (1-based) is the
// domain's index lo + g - 1; RSRC_ = src along a dimension whose block_cyclic_dim has block
// size nb and start lo - src * nb (block 0 begins src blocks before the first index, so the
// first index's block is dealt to grid coordinate src). A C-order target grid pr x pc is a
// BLACS grid in "Row" order: locale q sits at (q / pc, q % pc).
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

#include "../dists/block_cyclic.hpp"
#include "../dists/dimensional.hpp"
#include "../dsi/array.hpp"
#include "../dsi/foreign_buffer.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/environment.hpp"
#include "detail/scalapack.hpp"

namespace dmap {

/// The element types ScaLAPACK computes with (its S, D, C and Z routines).
template <class T>
concept scalapack_scalar = std::same_as<T, float> || std::same_as<T, double> ||
                           std::same_as<T, std::complex<float>> || std::same_as<T, std::complex<double>>;

/// A ScaLAPACK array descriptor and the BLACS context it names.
struct scalapack_desc {
  std::array<int, 9> desc{};  ///< DTYPE_ (1), CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_
  int context = -1;           ///< the BLACS context (desc[1]); dmap keeps it (see blacs_context)
  /// The descriptor as ScaLAPACK routines take it (DESCA).
  const int* data() const noexcept { return desc.data(); }
};

/// A ScaLAPACK matrix adopted by dmap: the domain its descriptor describes and the array over
/// it that keeps its elements in the ScaLAPACK local buffer.
template <class T>
struct scalapack_matrix {
  dmap::domain<2> domain;   ///< M_ x N_ indices from (0, 0), block_cyclic<2> column-major over the BLACS grid
  dmap::array<T, 2> array;  ///< over `domain`, adopting the local buffer (adopted() until the domain changes)
};

/// The BLACS context of a rows x cols process grid in "Row" order over the communicator dmap
/// runs on (locale q at grid coordinates (q / cols, q % cols), as a C-order target_grid<2>
/// places it). Collective (every locale passes the same shape). Made on first use of a shape
/// and kept by the environment, which releases it (Cblacs_gridexit) when it ends: do not call
/// Cblacs_gridexit on it, and do not use it after the environment is destroyed. Throws
/// argument_error on every locale unless rows, cols >= 1 and rows * cols == num_locales().
inline int blacs_context(int rows, int cols) {
  agreed([&] {
    if (rows < 1 || cols < 1 || static_cast<long long>(rows) * cols != num_locales())
      throw argument_error("dmap::blacs_context: the grid is " + std::to_string(rows) + "x" + std::to_string(cols) +
                           "; it must have rows, cols >= 1 and rows * cols == num_locales() = " +
                           std::to_string(num_locales()));
  });
  return detail::env().attachment<detail::blacs_grids>().context(rows, cols);
}

/// Collective: the ScaLAPACK descriptor of the column-major BlockCyclic domain `D` (this
/// locale's LLD_ = max(1, local rows)) and the BLACS context of its target grid
/// (blacs_context). Throws unsupported_error on every locale for what ScaLAPACK cannot
/// describe: another map, a target grid other than the C-order grid of all locales (a
/// subset or another order), row-major storage, a stride other than 1, a first index not at
/// a block boundary, sizes or block sizes beyond int, a local matrix of more than INT_MAX
/// elements.
inline scalapack_desc scalapack_descriptor(const domain<2>& D) {
  std::array<int, 9> desc = agreed([&] { return detail::scalapack_describe(D, "dmap::scalapack_descriptor"); });
  const auto& grid = D.template descriptor<dimensional_domain<2>>()->targets();
  desc[1] = blacs_context(grid.extent(0), grid.extent(1));
  return {desc, desc[1]};
}

/// Collective: the descriptor of `D` in the caller's BLACS context `context` instead of
/// dmap's (PBLAS and ScaLAPACK routines need every operand in one context). Throws
/// argument_error on every locale unless `context` is a grid of D's target grid shape
/// placing every locale q at (q / cols, q % cols), as a "Row" grid over dmap's locales does;
/// unsupported_error as the one-argument form. The context stays the caller's.
inline scalapack_desc scalapack_descriptor(const domain<2>& D, int context) {
  const std::string who = "dmap::scalapack_descriptor";
  return agreed([&] {
    std::array<int, 9> desc = detail::scalapack_describe(D, who);
    const auto& grid = D.template descriptor<dimensional_domain<2>>()->targets();
    int pr = -1, pc = -1, r = -1, c = -1;
    Cblacs_gridinfo(context, &pr, &pc, &r, &c);
    const int rows = grid.extent(0), cols = grid.extent(1);
    if (pr != rows || pc != cols || r != here() / cols || c != here() % cols)
      throw argument_error(who + ": context " + std::to_string(context) + " is a " + std::to_string(pr) + "x" +
                           std::to_string(pc) + " grid placing locale " + std::to_string(here()) + " at (" +
                           std::to_string(r) + ", " + std::to_string(c) + "); the domain's target grid " +
                           std::to_string(rows) + "x" + std::to_string(cols) + " places it at (" +
                           std::to_string(here() / cols) + ", " + std::to_string(here() % cols) + ")");
    desc[1] = context;
    return scalapack_desc{desc, context};
  });
}

/// Collective: the descriptor of array `A` (the descriptor of its domain); its local matrix
/// is `A.local_data()`, with A.local_size() elements.
template <scalapack_scalar T>
scalapack_desc scalapack_descriptor(const array<T, 2>& A) {
  return scalapack_descriptor(A.domain());
}

/// Collective: the descriptor of array `A` in the caller's BLACS context (see the domain form).
template <scalapack_scalar T>
scalapack_desc scalapack_descriptor(const array<T, 2>& A, int context) {
  return scalapack_descriptor(A.domain(), context);
}

/// Collective: adopts the ScaLAPACK matrix `desc` (9 integers) whose local matrix on this
/// locale starts at `local`, without copying: the result's domain is M_ x N_ indices from
/// (0, 0) (global row g of ScaLAPACK is index g - 1) distributed by
/// block_cyclic<2>{{MB_, NB_}, start, {NPROW, NPCOL}, column_major}, with start
/// (-RSRC_ * MB_, -CSRC_ * NB_) (unset when both are 0), and its array uses `local`. The
/// buffer must outlive the array's use of it. Throws on every locale when a locale's
/// descriptor is wrong, naming the entry: argument_error for an invalid one (not a BLACS
/// context this locale belongs to, M_ or N_ < 0, MB_ or NB_ < 1, RSRC_ or CSRC_ outside the
/// grid, LLD_ < max(1, local rows), `local` null with elements, global entries or grid
/// shapes that differ between locales); unsupported_error for a valid one dmap cannot adopt
/// (DTYPE_ other than 1, a grid over other processes than dmap's locales or not in "Row"
/// order, LLD_ above the local row count when the local matrix has several columns).
template <scalapack_scalar T>
scalapack_matrix<T> scalapack_import(const int* desc, T* local) {
  const std::string who = "dmap::scalapack_import";
  std::array<int, 9> d{};
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  const auto field = [&](std::size_t k) { return who + ": " + detail::scalapack_field(d, k); };
  // This locale's descriptor on its own.
  agreed([&] {
    if (desc == nullptr) throw argument_error(who + ": desc is null; it must point at a descriptor's 9 integers");
    std::copy(desc, desc + 9, d.begin());
    if (d[0] != 1)
      throw unsupported_error(field(0) + "; dmap adopts dense matrices only (DTYPE_ 1), not band or "
                              "out-of-core descriptors");
    Cblacs_gridinfo(d[1], &nprow, &npcol, &myrow, &mycol);
    if (nprow < 1 || npcol < 1 || myrow < 0 || mycol < 0)
      throw argument_error(field(1) + "; it must be a BLACS context whose grid holds this locale (" +
                           std::to_string(here()) + ")");
    if (static_cast<long long>(nprow) * npcol != num_locales())
      throw unsupported_error(field(1) + ", a " + std::to_string(nprow) + "x" + std::to_string(npcol) +
                              " grid; a dmap array spans all " + std::to_string(num_locales()) +
                              " locales, so the grid must have exactly that many processes");
    if (myrow != here() / npcol || mycol != here() % npcol)
      throw unsupported_error(field(1) + ", whose grid places locale " + std::to_string(here()) + " at (" +
                              std::to_string(myrow) + ", " + std::to_string(mycol) + "); dmap places it at (" +
                              std::to_string(here() / npcol) + ", " + std::to_string(here() % npcol) +
                              "): make the grid in \"Row\" order over the communicator dmap runs on");
    for (std::size_t k : {std::size_t{2}, std::size_t{3}})
      if (d[k] < 0) throw argument_error(field(k) + "; it must be >= 0");
    for (std::size_t k : {std::size_t{4}, std::size_t{5}})
      if (d[k] < 1) throw argument_error(field(k) + "; it must be >= 1");
    if (d[6] < 0 || d[6] >= nprow)
      throw argument_error(field(6) + "; it must be in [0, NPROW) = [0, " + std::to_string(nprow) + ")");
    if (d[7] < 0 || d[7] >= npcol)
      throw argument_error(field(7) + "; it must be in [0, NPCOL) = [0, " + std::to_string(npcol) + ")");
  });
  // The global entries and the grid shape, the same everywhere; then this locale's LLD_.
  const std::array<int, 8> mine{d[2], d[3], d[4], d[5], d[6], d[7], nprow, npcol};
  const auto all = all_gather(mine);
  index_t elements = 0;
  agreed([&] {
    for (std::size_t q = 1; q < all.size(); ++q)
      for (std::size_t f = 0; f < 8; ++f)
        if (all[q][f] != all[0][f]) {
          const std::string what = f < 6 ? "desc[" + std::to_string(f + 2) + "] (" +
                                               detail::scalapack_field_names[f + 2] + ")"
                                         : f == 6 ? "the BLACS grid's NPROW" : "the BLACS grid's NPCOL";
          throw argument_error(who + ": " + what + " is " + std::to_string(all[0][f]) + " on locale 0 but " +
                               std::to_string(all[q][f]) + " on locale " + std::to_string(q) +
                               "; every locale must pass the same global descriptor entries");
        }
    const int rows = detail::scalapack_numroc(d[2], d[4], myrow, d[6], nprow);
    const int cols = detail::scalapack_numroc(d[3], d[5], mycol, d[7], npcol);
    const int least = std::max(1, rows);
    if (d[8] < least)
      throw argument_error(field(8) + " on locale " + std::to_string(here()) + "; it must be >= max(1, LOCr(M_)) = " +
                           std::to_string(least));
    // Column j of the local matrix starts at j * LLD_ in ScaLAPACK and at j * rows in dmap's
    // column-major storage: they agree when LLD_ == rows or there is at most one column.
    if (d[8] != least && rows > 0 && cols > 1)
      throw unsupported_error(field(8) + " on locale " + std::to_string(here()) +
                              "; dmap keeps a local matrix with leading dimension max(1, LOCr(M_)) = " +
                              std::to_string(least) + ", so a larger LLD_ cannot be adopted without copying "
                              "(allocate the local matrix with LLD_ = max(1, NUMROC(M_, MB_, MYROW, RSRC_, NPROW)))");
    elements = rows == 0 || cols == 0 ? 0 : static_cast<index_t>(d[8]) * (cols - 1) + rows;
    if (local == nullptr && elements > 0)
      throw argument_error(who + ": local is null on locale " + std::to_string(here()) + "; it must point at its " +
                           std::to_string(rows) + " x " + std::to_string(cols) + " local matrix");
  });
  const target_grid<2> grid{{nprow, npcol}};
  std::optional<idx<2>> start;
  if (d[6] != 0 || d[7] != 0)
    start = idx<2>{-static_cast<index_t>(d[6]) * d[4], -static_cast<index_t>(d[7]) * d[5]};
  dmap::domain<2> D{block_cyclic<2>{idx<2>{d[4], d[5]}, start, grid, storage_order::column_major},
                    rect<2>{{0, d[2]}, {0, d[3]}}};
  dmap::array<T, 2> A(D, foreign_buffer<T, 2>{local, elements, {1, d[8]}});
  return {std::move(D), std::move(A)};
}

/// Collective: scalapack_import of a descriptor held in a std::array.
template <scalapack_scalar T>
scalapack_matrix<T> scalapack_import(const std::array<int, 9>& desc, T* local) {
  return scalapack_import(desc.data(), local);
}

}  // namespace dmap
