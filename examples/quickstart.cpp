// The README's example: a Block-distributed 2-D array, loops, a zip, reductions, a
// redistribution, slices and a row view, a resize and printing. Run it as one locale
// (./quickstart) or under mpirun -n P.
#include <dmap/core.hpp>

#include <iostream>

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};                        // MPI + oneTBB; one locale without mpirun
  const dmap::index_t n = 6, m = 8;
  const dmap::rect<2> space{{0, n}, {0, m}};                // half-open, like C++ and DAP start/stop
  dmap::domain D{dmap::block<2>{}, space};                  // target grid factorised over all locales
  dmap::array<double, 2> A{D}, B{D};
  dmap::forall(D, [&](dmap::idx<2> i) { A.local(i) = static_cast<double>(i[0]) + 0.5 * i[1]; });
  dmap::forall(dmap::zip(B, A), [](double& b, const double& a) { b = 2 * a; });  // owner computes
  const double sum = dmap::reduce(A, 0.0);                  // collective; the same on every locale
  const double dot = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{}, [](double a, double b) { return a * b; });

  dmap::domain C{dmap::cyclic<2>{}, space};
  dmap::array<double, 2> E{C};
  E = B;                                                    // redistribution: one message per peer
  E[dmap::rect<2>{{1, n}, {0, m}}] = A[dmap::rect<2>{{0, n - 1}, {0, m}}];  // slices, any maps
  dmap::forall(dmap::rank_change(E, 0, dmap::all), [](double& e) { e = -1; }); // row 0 as a 1-D view
  D.set_indices(dmap::rect<2>{{0, n + 1}, {0, m}});        // arrays over D keep surviving values
  const double corner = A[{n - 1, m - 1}];                  // any locale reads any element
  if (dmap::here() == 0)                                    // printing is not collective
    std::cout << "sum " << sum << ", A.B " << dot << ", corner " << corner << " over " << D.name() << "\n"
              << "E =\n" << E << "\n";
}
