// The census of the bad-input suite: how many distinct bad inputs ran. A run-end check
// (tests/run_end_checks.hpp): the shared main runs it after every selected test case.
#include "../run_end_checks.hpp"
#include "support.hpp"

#include <sstream>

namespace test_census {  // one per file: the tests also build as unity batches (docs/testing.md)

const int registered = dmap_tests::add_run_end_check(
    "bad-input census: at least 700 distinct bad inputs ran",
    [](const std::vector<std::string>& filters, std::ostream& report) {
      const auto count = dmap::bad_input::census().size();
      // A filtered run (one tag, one case) checks fewer; the full run must reach the target.
      // A build of a few files (-DDMAP_BAD_INPUT_TESTS) is never a full run.
#ifdef DMAP_BAD_INPUT_SUBSET
      const bool full_run = false;
      (void)filters;
#else
      const bool full_run = filters.empty() || (filters.size() == 1 && filters.front() == "[bad_input]");
#endif
      report << "bad inputs checked in this run: " << count;
      if (full_run && count < 700) {  // measured per locale count in docs/testing.md
        report << ", fewer than the 700 a full run must check";
        return false;
      }
      return true;
    });

}  // namespace test_census
