// Shared Catch2 v2 main for dmap_tests, run as an MPI job (mpirun -n P) or as an MPI singleton.
//
// * The dmap runtime (MPI + oneTBB) is started before the Catch session and stopped after it.
// * Rank 0 reports to stdout as usual (console reporter unless -r/-o say otherwise).
// * Every other rank writes its Catch report to a private temporary file, using the "compact"
//   reporter instead of "console". After the run, a rank whose session failed prints
//       rank r of P: N test case(s) failed
//   and then that captured report, each line prefixed "[rank r] ", to stderr. Ranks that passed say nothing.
// * Test cases run in lexicographic order of their names unless --order is given. Whole-run checks
//   (tests/run_end_checks.hpp, such as the bad-input census) run after every selected test case;
//   one that fails fails the run.
// * The exit code is the maximum over all ranks, so a failure on any rank fails the run on every rank.
// * List/help modes (-l, --list-test-names-only, -t, -h, ...) behave as in plain Catch (every rank prints
//   the list under mpirun; Catch's list-mode exit code is the number of items listed).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <dmap/dmap.hpp>

#include "run_end_checks.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace {

// Test-case totals of this rank's run, filled in by the listener below.
struct run_totals {
  bool seen = false;
  std::uint64_t cases_failed = 0;
  std::uint64_t cases_total = 0;
};
run_totals g_totals;

struct rank_totals_listener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testRunEnded(Catch::TestRunStats const& stats) override {
    g_totals.seen = true;
    g_totals.cases_failed = stats.totals.testCases.failed;
    g_totals.cases_total = stats.totals.testCases.total();
  }
};

// A fresh, empty, uniquely named file for this rank's report ("" if none could be made).
std::string make_rank_report_file(int rank) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string name = (dir / ("dmap_catch_rank" + std::to_string(rank) + "_XXXXXX")).string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return {};
  ::close(fd);
  return name;
}

std::string slurp(std::string const& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Runs the registered run-end checks; locale 0 prints every report, a locale where a check failed
// prints its report on stderr. Returns how many checks failed on this locale.
int run_end_checks(const std::vector<std::string>& filters, int rank) {
  int failed = 0;
  for (const auto& [name, check] : dmap_tests::run_end_checks()) {
    std::ostringstream report;
    const bool passed = check(filters, report);
    if (!passed) {
      ++failed;
      const std::string text = "rank " + std::to_string(rank) + ": run-end check failed: " + name + ": " +
                               report.str() + "\n";
      std::fwrite(text.data(), 1, text.size(), stderr);
      std::fflush(stderr);
    } else if (rank == 0) {
      std::printf("run-end check passed: %s: %s\n", name.c_str(), report.str().c_str());
      std::fflush(stdout);
    }
  }
  return failed;
}

}  // namespace

CATCH_REGISTER_LISTENER(rank_totals_listener)

int main(int argc, char* argv[]) {
  dmap::environment env{argc, argv};
  const int rank = dmap::here();
  const int nranks = dmap::num_locales();

  int rc = 0;
  int checks_failed = 0;
  bool ran_tests = false;
  std::string report_file;  // this rank's private report (ranks != 0 only)
  {
    Catch::Session session;
    rc = session.applyCommandLine(argc, argv);
    if (rc == 0) {
      Catch::ConfigData& cfg = session.configData();
      // Test cases run in the order of their names unless --order says otherwise: the order of
      // registration across translation units (unity batches) is unspecified.
      bool order_given = false;
      for (int a = 1; a < argc; ++a) order_given = order_given || std::string(argv[a]).rfind("--order", 0) == 0;
      if (!order_given) cfg.runOrder = Catch::RunTests::InLexicographicalOrder;
      const bool listing = cfg.listTests || cfg.listTags || cfg.listReporters || cfg.listTestNamesOnly;
      ran_tests = !listing && !cfg.showHelp && !cfg.libIdentify;
      if (rank != 0 && ran_tests) {
        if (cfg.reporterName == "console") cfg.reporterName = "compact";
        if (cfg.outputFilename.empty()) {
          report_file = make_rank_report_file(rank);
          cfg.outputFilename = report_file;  // stays "" (stdout) if no temp file could be made
          if (!report_file.empty()) cfg.useColour = Catch::UseColour::No;
        } else if (cfg.outputFilename.front() != '%') {
          cfg.outputFilename += ".rank" + std::to_string(rank);  // -o out.xml: one file per rank
        }
      }
      rc = session.run();
      if (ran_tests) checks_failed = run_end_checks(cfg.testsOrTags, rank);
    }
  }  // session (and its report stream) closed here, so the report file is complete
  if (checks_failed > 0 && rc == 0) rc = 1;

  if (ran_tests && rc != 0) {
    std::ostringstream msg;
    msg << "rank " << rank << " of " << nranks << ": ";
    if (g_totals.seen && g_totals.cases_failed > 0)
      msg << g_totals.cases_failed << " test case(s) failed";
    else if (checks_failed > 0)
      msg << checks_failed << " run-end check(s) failed";
    else
      msg << "test run failed (Catch exit code " << rc << ")";
    msg << '\n';
    if (!report_file.empty()) {
      std::string report = slurp(report_file);
      while (!report.empty() && (report.back() == '\n' || report.back() == ' ')) report.pop_back();
      std::istringstream lines(report);
      for (std::string line; std::getline(lines, line);) msg << "[rank " << rank << "] " << line << '\n';
    }
    const std::string text = msg.str();
    std::fwrite(text.data(), 1, text.size(), stderr);  // one write: less interleaving between ranks
    std::fflush(stderr);
  }
  if (!report_file.empty()) {
    std::error_code ec;
    std::filesystem::remove(report_file, ec);
  }

  const int worst = dmap::all_reduce_max(rc);
  if (ran_tests && rank == 0 && rc == 0 && worst != 0) {
    std::fprintf(stderr, "rank 0 of %d passed, but other rank(s) failed: see the [rank r] output\n", nranks);
    std::fflush(stderr);
  }
  return worst;
}
