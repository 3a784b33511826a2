// Checks that the shared Catch main (tests/catch_mpi_main.cpp) runs once every selected test case
// has run, whatever the cases' names and order: what can only be judged over the whole run, such
// as the bad-input census (tests/bad_input/test_census.cpp). A test file registers one with
//
//   const int registered = dmap_tests::add_run_end_check("name", [](const auto& filters, auto& out) { ... });
//
// The check gets the run's test filters (empty: everything) and a stream for its report (printed
// by locale 0, and by any locale where the check failed); it returns whether it passed. A failed
// check fails the run on every locale, as a failed test case does.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace dmap_tests {

/// A whole-run check: passed(filters of the run, report stream).
using run_end_check = std::function<bool(const std::vector<std::string>&, std::ostream&)>;

/// The registered run-end checks with their names, in registration order.
inline std::vector<std::pair<std::string, run_end_check>>& run_end_checks() {
  static std::vector<std::pair<std::string, run_end_check>> checks;
  return checks;
}

/// Registers `check` under `name`; returns the number of checks so far (for a static initialiser).
inline int add_run_end_check(std::string name, run_end_check check) {
  run_end_checks().emplace_back(std::move(name), std::move(check));
  return static_cast<int>(run_end_checks().size());
}

}  // namespace dmap_tests
