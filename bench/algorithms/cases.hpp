// The cases of bench_algorithms (scan, sort, histogram, reverse halo, ...): each case file
// registers itself under a name; main.cpp runs the cases named on the command line, or all.
#pragma once

#include <string>
#include <vector>

namespace bench::algorithms {

/// One case: its name, what it does with its arguments, and the function that runs it
/// (arguments after the case name; returns non-zero when dmap's result is wrong).
struct bench_case {
  const char* name;
  const char* usage;
  int (*run)(const std::vector<std::string>& args);
};

/// Every registered case, in registration order.
inline std::vector<bench_case>& registry() {
  static std::vector<bench_case> cases;
  return cases;
}

/// Registers a case when a case file's static object is constructed.
struct registrar {
  /// Adds `c` to the registry.
  explicit registrar(bench_case c) { registry().push_back(c); }
};

}  // namespace bench::algorithms
