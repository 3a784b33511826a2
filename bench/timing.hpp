// Timing shared by the benchmarks: synchronised runs timed by the slowest locale, and medians
// of alternating repetitions of dmap and its baseline.
#pragma once

#include <dmap/dmap.hpp>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace bench {

/// Times `f` once on every locale, synchronised; the slowest locale's time counts.
template <class F>
double timed(F&& f) {
  dmap::barrier();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return dmap::all_reduce_max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

/// Medians of `reps` timings of `a` and of `b`, alternating so that drifting machine load
/// hits both alike; one warm-up round first.
template <class A, class B>
std::pair<double, double> median_times(int reps, A&& a, B&& b) {
  std::vector<double> ta, tb;
  for (int r = 0; r <= reps; ++r) {
    const double x = timed(a), y = timed(b);
    if (r > 0) ta.push_back(x), tb.push_back(y);
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[ta.size() / 2], tb[tb.size() / 2]};
}

/// The library's communication counters of one run of `f`, after a first run that builds
/// whatever plans and staging `f` keeps (what each later run costs).
template <class F>
dmap::comm_counters counters_of_repeat(F&& f) {
  f();
  dmap::reset_counters();
  f();
  return dmap::counters();
}

}  // namespace bench
