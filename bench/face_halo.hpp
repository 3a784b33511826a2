// The hand-written halo exchange of the 5-point baselines (bench/stencil.cpp, bench/cg.cpp):
// this rank's block of the interior [1, n - 1)^2 of an n x n grid on a 2-D Cartesian grid of
// ranks, cut as dmap's Block cut, stored with a ghost frame of one cell (pitch = columns + 2),
// faces exchanged with MPI_Isend/Irecv, columns through an MPI_Type_vector.
#pragma once

#include <dmap/dmap.hpp>

#include <array>

#include "csr_baseline.hpp"

namespace bench {

/// This rank's block of the interior of an n x n grid and the exchange of its faces.
struct face_halo {
  dmap::index_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;  ///< owned interior rows [r0, r1), columns [c0, c1)
  dmap::index_t rows = 0, cols = 0, pitch = 0;   ///< the block's extents; a frame row's length
  MPI_Comm comm = MPI_COMM_NULL;                 ///< the Cartesian communicator of the grid
  MPI_Datatype column = MPI_DATATYPE_NULL;       ///< one column of the block inside its frame
  int up = MPI_PROC_NULL, down = MPI_PROC_NULL;  ///< neighbours along the rows (MPI_PROC_NULL at an edge)
  int left = MPI_PROC_NULL, right = MPI_PROC_NULL;  ///< and along the columns

  /// Collective: the block of this rank among the ranks of `grid` (R x C = all ranks).
  face_halo(dmap::index_t n, const dmap::target_grid<2>& grid) {
    std::array<int, 2> dims = grid.shape(), coords{};
    int periods[2] = {0, 0}, rank = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims.data(), periods, 0, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Cart_coords(comm, rank, 2, coords.data());
    MPI_Cart_shift(comm, 0, 1, &up, &down);
    MPI_Cart_shift(comm, 1, 1, &left, &right);
    const dmap::index_t m = n - 2;
    r0 = 1 + cut(m, dims[0], coords[0]), r1 = 1 + cut(m, dims[0], coords[0] + 1);
    c0 = 1 + cut(m, dims[1], coords[1]), c1 = 1 + cut(m, dims[1], coords[1] + 1);
    rows = r1 - r0, cols = c1 - c0, pitch = cols + 2;
    MPI_Type_vector(static_cast<int>(rows), 1, static_cast<int>(pitch), MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
  }
  face_halo(const face_halo&) = delete;
  face_halo& operator=(const face_halo&) = delete;
  ~face_halo() {
    MPI_Type_free(&column);
    MPI_Comm_free(&comm);
  }

  /// Collective with the neighbours: fills the face ghost cells of `frame` ((rows + 2) x pitch,
  /// row-major) from theirs.
  void exchange(double* frame) const {
    MPI_Request req[8];
    double* p = frame;
    const int len = static_cast<int>(cols);
    MPI_Irecv(p + 1, len, MPI_DOUBLE, up, 0, comm, &req[0]);
    MPI_Irecv(p + (rows + 1) * pitch + 1, len, MPI_DOUBLE, down, 1, comm, &req[1]);
    MPI_Irecv(p + pitch, 1, column, left, 2, comm, &req[2]);
    MPI_Irecv(p + pitch + cols + 1, 1, column, right, 3, comm, &req[3]);
    MPI_Isend(p + pitch + 1, len, MPI_DOUBLE, up, 1, comm, &req[4]);
    MPI_Isend(p + rows * pitch + 1, len, MPI_DOUBLE, down, 0, comm, &req[5]);
    MPI_Isend(p + pitch + 1, 1, column, left, 3, comm, &req[6]);
    MPI_Isend(p + pitch + cols, 1, column, right, 2, comm, &req[7]);
    MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
  }
};

}  // namespace bench
