#include "evaluate_runners.h"

#include <cstdlib>

namespace dmap::python::evaluation {

rows_runner runner_named(const std::string& name) {
  if (name == "portable") return run_rows_portable;
#ifdef DMAP_EVALUATE_AVX2
  if (name == "avx2" && __builtin_cpu_supports("avx2")) return run_rows_avx2;
#endif
  return nullptr;
}

std::vector<std::string> runner_names() {
  std::vector<std::string> names;
  for (const char* name : {"avx2", "portable"})
    if (runner_named(name)) names.emplace_back(name);
  return names;
}

}  // namespace dmap::python::evaluation
