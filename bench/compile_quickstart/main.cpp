// Compile time of the README's quickstart (examples/quickstart.cpp) against a translation unit
// that uses MPI, oneTBB and range-v3 directly (reference_program.cc), compiled by one command
// that differs only in the source: the installed package's flags, Release optimisation.
// Alternating runs; medians of wall time and of the compiler's peak memory. Prints
//   bench compile_quickstart ... dmap=<s> baseline=<s> unit=s ratio=<baseline/dmap> ... dmap_mb= baseline_mb=
// Usage: bench_compile_quickstart [repetitions (default 3)]. Not an MPI program: run it alone.
#include <sys/resource.h>
#include <sys/wait.h>
#include <spawn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace {

// One compile: wall seconds and the compiler's peak resident memory in MB.
struct compile_cost {
  double seconds = 0;
  double peak_mb = 0;
};

// The command the build wrote (one argument per line): the compiler, then its flags.
std::vector<std::string> read_command(const char* path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(std::string("cannot read the compile command ") + path);
  std::vector<std::string> args;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) args.push_back(line);
  if (args.empty()) throw std::runtime_error(std::string("empty compile command in ") + path);
  return args;
}

// Compiles `source` to /dev/null with `command` and measures it (the child's rusage).
compile_cost compile(std::vector<std::string> command, const std::string& source) {
  command.insert(command.end(), {"-c", source, "-o", "/dev/null"});
  std::vector<char*> argv;
  for (auto& a : command) argv.push_back(a.data());
  argv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot start the compiler " + command.front());
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) throw std::runtime_error("wait4 failed");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("the compiler failed on " + source);
  return {seconds, static_cast<double>(usage.ru_maxrss) / 1024.0};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
    if (reps < 1) throw std::runtime_error("repetitions must be at least 1");
    const auto command = read_command(DMAP_COMPILE_COMMAND_FILE);
    std::vector<double> dmap_s, dmap_mb, base_s, base_mb;
    for (int r = 0; r < reps; ++r) {
      const compile_cost d = compile(command, DMAP_QUICKSTART_SOURCE);
      const compile_cost b = compile(command, DMAP_REFERENCE_SOURCE);
      dmap_s.push_back(d.seconds), dmap_mb.push_back(d.peak_mb);
      base_s.push_back(b.seconds), base_mb.push_back(b.peak_mb);
    }
    const double ds = median(dmap_s), bs = median(base_s);
    std::printf("bench compile_quickstart ranks=1 threads=1 n=%d dmap=%.3f baseline=%.3f unit=s ratio=%.3f msgs=0 "
                "bytes=0 min_bytes=0 dmap_mb=%.0f baseline_mb=%.0f\n",
                reps, ds, bs, bs / ds, median(dmap_mb), median(base_mb));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_compile_quickstart: %s\n", e.what());
    return 1;
  }
}
