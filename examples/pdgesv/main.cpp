// Solves a linear system A x = b with ScaLAPACK's PDGESV working in place on dmap arrays:
// dmap fills A (n x n, diagonally dominant, from a fixed seed) and b with parallel loops,
// dmap::scalapack_descriptor describes them, PDGESV factors A and overwrites b with x in
// the arrays' own local buffers, and the residual ||A x - b|| / (||A|| ||x|| n eps) is
// computed with PBLAS's PDGEMV and dmap reductions. Prints the residual and "pdgesv: ok"
// when it is small; exits non-zero otherwise. Run it as one locale or under mpirun -n P.
#include <dmap/dmap.hpp>
#include <dmap/interop/scalapack.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <vector>

extern "C" {
// ScaLAPACK (Fortran, LP64; no character arguments) and PBLAS (C: char* without lengths).
void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
             double* b, const int* ib, const int* jb, const int* descb, int* info);
void pdgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* ia,
             const int* ja, const int* desca, const double* x, const int* ix, const int* jx, const int* descx,
             const int* incx, const double* beta, double* y, const int* iy, const int* jy, const int* descy,
             const int* incy);
}

namespace {

// A value in [-1, 1) determined by (seed, i, j) alone (splitmix64), so the system is the
// same at every locale count.
double noise(std::uint64_t seed, dmap::index_t i, dmap::index_t j) {
  std::uint64_t z = seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(i) * 0xbf58476d1ce4e5b9ull +
                    static_cast<std::uint64_t>(j) * 0x94d049bb133111ebull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

// The local matrix of `a` for ScaLAPACK: a locale holding nothing passes a valid dummy.
double* local_matrix(dmap::array<double, 2>& a, double& dummy) { return a.local_size() > 0 ? a.local_data() : &dummy; }

// sqrt of the sum of squares of `a`'s elements (collective).
double norm2(const dmap::array<double, 2>& a) {
  return std::sqrt(dmap::reduce(a, 0.0, std::plus<>{}, [](double v) { return v * v; }));
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const int n = 300, nb = 32, one = 1;
  // PDGESV wants square blocks, and b blocked (and placed) like A's rows: one map for both.
  const dmap::block_cyclic<2> map{{nb, nb}, dmap::target_grid<2>::balanced(dmap::num_locales()),
                                  dmap::storage_order::column_major};
  const dmap::domain<2> DA{map, dmap::rect<2>{{0, n}, {0, n}}}, DB{map, dmap::rect<2>{{0, n}, {0, 1}}};
  dmap::array<double, 2> A(DA), b(DB);
  dmap::forall(DA, [&](dmap::idx<2> i) { A.local(i) = noise(1, i[0], i[1]) + (i[0] == i[1] ? n : 0.0); });
  dmap::forall(DB, [&](dmap::idx<2> i) { b.local(i) = noise(2, i[0], 0); });
  const dmap::array<double, 2> A0 = A, b0 = b;  // PDGESV overwrites A with its LU factors and b with x

  const dmap::scalapack_desc da = dmap::scalapack_descriptor(A), db = dmap::scalapack_descriptor(b);
  // IPIV: LOCr(M_A) + MB_A entries on each locale.
  std::vector<int> ipiv(static_cast<std::size_t>(da.desc[8] + nb));
  double dummy_a = 0, dummy_b = 0, dummy_r = 0;
  int info = 0;
  pdgesv_(&n, &one, local_matrix(A, dummy_a), &one, &one, da.data(), ipiv.data(), local_matrix(b, dummy_b), &one,
          &one, db.data(), &info);
  if (dmap::all_reduce_max(info != 0 ? 1 : 0) != 0) {
    if (dmap::here() == 0) std::cerr << "pdgesv: PDGESV failed, INFO = " << info << "\n";
    return 1;
  }
  const dmap::array<double, 2>& x = b;

  // r := A0 x - b0, by PDGEMV on A0's and r's local buffers (A0 and r share A's and b's domains).
  dmap::array<double, 2> r = b0;
  const double plus_one = 1, minus_one = -1;
  pdgemv_("N", &n, &n, &plus_one, A0.local_size() > 0 ? A0.local_data() : &dummy_a, &one, &one, da.data(),
          x.local_size() > 0 ? x.local_data() : &dummy_b, &one, &one, db.data(), &one, &minus_one,
          local_matrix(r, dummy_r), &one, &one, db.data(), &one);
  const double eps = std::numeric_limits<double>::epsilon();
  const double residual = norm2(r) / (norm2(A0) * norm2(x) * n * eps);
  const bool ok = std::isfinite(residual) && residual < 16.0;
  if (dmap::here() == 0) {
    std::cout << "pdgesv: n = " << n << ", " << nb << "x" << nb << " blocks over " << DA.name() << "\n"
              << "pdgesv: ||A x - b|| / (||A|| ||x|| n eps) = " << residual << " (Frobenius and 2-norms)\n";
    std::cout << (ok ? "pdgesv: ok\n" : "pdgesv: residual too large\n");
  }
  return ok ? 0 : 1;
}
