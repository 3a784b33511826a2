// bench_algorithms: the parallel algorithms against hand-written MPI + oneTBB baselines.
//   mpirun -n 4 bench_algorithms                 every case with its default arguments
//   mpirun -n 4 bench_algorithms scan 25 5       one case, with its own arguments
// Each case prints `bench ...` lines (docs/design.md section 10) on locale 0.
#include <dmap/dmap.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cases.hpp"

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  auto& cases = bench::algorithms::registry();
  std::sort(cases.begin(), cases.end(),
            [](const auto& a, const auto& b) { return std::strcmp(a.name, b.name) < 0; });
  if (argc > 1) {
    const std::string name = argv[1];
    for (const auto& c : cases)
      if (name == c.name) return c.run(std::vector<std::string>(argv + 2, argv + argc));
    if (dmap::here() == 0) {
      std::fprintf(stderr, "bench_algorithms: no case '%s'; the cases are:\n", name.c_str());
      for (const auto& c : cases) std::fprintf(stderr, "  %s %s\n", c.name, c.usage);
    }
    return 2;
  }
  int status = 0;
  for (const auto& c : cases) status |= c.run({});
  return status;
}
