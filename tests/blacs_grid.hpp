// A BLACS process grid for the ScaLAPACK tests (tests/dists/test_scalapack.cpp,
// tests/interop/test_scalapack_interop.cpp), released at scope exit. The BLACS entry points have no
// C header; the prototypes follow the sources (LP64: int, every argument by pointer).
#pragma once

#include <string>

extern "C" {
void Cblacs_pinfo(int* mypnum, int* nprocs);
void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridinit(int* icontxt, char* order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int icontxt);
}

namespace dmap::testing {

/// A pr x pc BLACS grid over all locales in `order` ("Row": C order, as dmap's grids).
class blacs_grid {
 public:
  /// Collective: the grid (BLACS' default system context).
  blacs_grid(int pr, int pc, const char* order = "Row") {
    int me = 0, np = 0;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &ctxt_);
    std::string o = order;
    Cblacs_gridinit(&ctxt_, o.data(), pr, pc);
    Cblacs_gridinfo(ctxt_, &nprow_, &npcol_, &myrow_, &mycol_);
  }
  blacs_grid(const blacs_grid&) = delete;
  blacs_grid& operator=(const blacs_grid&) = delete;
  ~blacs_grid() {
    if (myrow_ >= 0) Cblacs_gridexit(ctxt_);
  }
  /// The BLACS context.
  int context() const noexcept { return ctxt_; }
  /// This locale's grid row (-1 when outside the grid).
  int myrow() const noexcept { return myrow_; }
  /// This locale's grid column (-1 when outside the grid).
  int mycol() const noexcept { return mycol_; }
  /// Grid rows.
  int nprow() const noexcept { return nprow_; }
  /// Grid columns.
  int npcol() const noexcept { return npcol_; }

 private:
  int ctxt_ = -1, nprow_ = -1, npcol_ = -1, myrow_ = -1, mycol_ = -1;
};

}  // namespace dmap::testing
