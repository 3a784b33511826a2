// The README's example: a Block-distributed 2-D array, a forall, a zip, a reduction, a
// redistribution, slices and a row view, a resize and printing. Run it as one locale
// (./quickstart) or under mpirun -n P. Printing is not collective: locale 0 prints alone.
#include <dmap/dmap.hpp>

#include <functional>
#include <iostream>
#include <utility>

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};  // MPI + oneTBB; one locale without mpirun
  const dmap::index_t n = 6, m = 8;
  const dmap::rect<2> space{{0, n}, {0, m}};  // half-open, like C++ and DAP start/stop
  dmap::domain D{dmap::block<2>{}, space};    // target grid factorised over all locales
  dmap::array<double, 2> A{D}, B{D};

  dmap::forall(D, [&](dmap::idx<2> i) { A.local(i) = static_cast<double>(i[0]) + 0.5 * i[1]; });
  dmap::forall(dmap::zip(B, std::as_const(A)), [](double& b, const double& a) { b = 2 * a; });
  const double sum = dmap::reduce(A, 0.0);  // a sum: std::plus<> by default
  const double dot = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{},
                                  [](double a, double b) { return a * b; });

  if (dmap::here() == 0)
    std::cout << "locales " << dmap::num_locales() << ", threads per locale "
              << dmap::num_threads() << ", domain " << space << " over " << D.name() << "\n"
              << "sum(A) = " << sum << ", A.B = " << dot << "\n";
  if (dmap::here() == 0) std::cout << "A =\n" << A << "\n";  // locale 0 reads the others' elements

  dmap::domain C{dmap::cyclic<2>{}, space};
  dmap::array<double, 2> E{C};
  E = B;                                                                        // Block -> Cyclic
  E[dmap::rect<2>{{1, n}, {0, m}}] = A[dmap::rect<2>{{0, n - 1}, {0, m}}];      // rows shifted down
  dmap::forall(dmap::rank_change(E, 0, dmap::all), [](double& e) { e = -1; });  // row 0 as a view
  if (dmap::here() == 0) std::cout << "E (Cyclic) =\n" << E << "\n";

  D.set_indices(dmap::rect<2>{{0, n + 1}, {0, m}});  // arrays over D keep surviving values
  const double grown = dmap::reduce(A, 0.0);
  if (dmap::here() == 0) std::cout << "after growing D to " << D.indices() << ": sum(A) = " << grown << "\n";
  const double remote = A[{n - 1, m - 1}];  // any locale may read any element
  if (dmap::here() == 0) std::cout << "A[(" << n - 1 << ", " << m - 1 << ")] = " << remote << "\n";
  return 0;
}
