// Smallest useful downstream program: built against an installed dmap via find_package(dmap).
// Exits 0 only if a distributed fill + reduce gives the right answer on every locale and the
// installed conformance kit passes a library map.
#include <dmap/conformance/conformance.hpp>
#include <dmap/dmap.hpp>

#include <cstdio>
#include <iostream>

int main(int argc, char* argv[]) {
  dmap::environment env{argc, argv};

  dmap::rect<1> space{dmap::range{0, 1000}};
  dmap::domain D{dmap::block<1>{}, space};
  dmap::array<double, 1> A{D};

  dmap::forall(A, [](double& a) { a = 1.0; });
  const double s = dmap::reduce(A, 0.0);

  int bad = (s == 1000.0) ? 0 : 1;
  if (bad != 0)
    std::fprintf(stderr, "consumer: locale %d of %d: reduce gave %g, expected 1000\n", dmap::here(),
                 dmap::num_locales(), s);

  dmap::conformance::options<2> options;
  options.random_cases = 3;
  options.large_case = false;
  const auto checked = dmap::conformance::check<2>(
      "cyclic", [](const dmap::rect<2>&, dmap::conformance::random_engine&) { return dmap::cyclic<2>{}; }, options);
  if (!checked.ok()) {
    bad = 1;
    if (dmap::here() == 0) std::cerr << checked;
  }
  if (bad == 0 && dmap::here() == 0)
    std::printf("consumer: sum over %d locale(s) = %g, conformance kit passed %zu checks (ok)\n",
                dmap::num_locales(), s, checked.checks().size());
  return dmap::all_reduce_max(bad);
}
