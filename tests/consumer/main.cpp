// Smallest useful downstream program: built against an installed dmap via find_package(dmap).
// Exits 0 only if a distributed fill + reduce gives the right answer on every locale.
#include <dmap/dmap.hpp>

#include <cstdio>
#include <functional>

int main(int argc, char* argv[]) {
  dmap::environment env{argc, argv};

  dmap::rect<1> space{dmap::range{0, 1000}};
  dmap::domain D{dmap::block<1>{}, space};
  dmap::array<double, 1> A{D};

  dmap::forall(A, [](double& a) { a = 1.0; });
  const double s = dmap::reduce(A, 0.0, std::plus<>{});

  const int bad = (s == 1000.0) ? 0 : 1;
  if (bad != 0)
    std::fprintf(stderr, "consumer: locale %d of %d: reduce gave %g, expected 1000\n", dmap::here(),
                 dmap::num_locales(), s);
  else if (dmap::here() == 0)
    std::printf("consumer: sum over %d locale(s) = %g (ok)\n", dmap::num_locales(), s);
  return dmap::all_reduce_max(bad);
}
