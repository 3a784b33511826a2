// Linked into every benchmark of a build configured with DMAP_BENCH_BUILD_CHECK=ON (the main build
// of scripts/test.sh): there the benchmarks are compiled without optimisation, only to check that
// they still build and link, so each refuses to run instead of printing figures that mean nothing.
// scripts/bench.sh configures its build with DMAP_BENCH_BUILD_CHECK=OFF.
#include <cstdio>
#include <cstdlib>

namespace {

struct refuse_to_measure {
  refuse_to_measure() {
    std::fputs("bench: this benchmark was compiled without optimisation to check that it builds "
               "(DMAP_BENCH_BUILD_CHECK=ON); build and run it with scripts/bench.sh\n",
               stderr);
    std::exit(2);
  }
};

const refuse_to_measure refusal;

}  // namespace
