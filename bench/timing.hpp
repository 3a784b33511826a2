// Timing shared by the benchmarks: synchronised runs timed by the slowest locale, and medians
// of alternating repetitions of dmap and its baseline.
#pragma once

#include <dmap/dmap.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
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

/// Per-run medians of `reps` timings of `batch` back-to-back runs of `a` and of `b`,
/// alternating, one warm-up round first: for operations of a few hundred microseconds, whose
/// single timings measure the synchronisation around them more than the operation.
template <class A, class B>
std::pair<double, double> median_batch_times(int reps, int batch, A&& a, B&& b) {
  const auto [ta, tb] = median_times(
      reps, [&] { for (int i = 0; i < batch; ++i) a(); }, [&] { for (int i = 0; i < batch; ++i) b(); });
  return {ta / batch, tb / batch};
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

/// The `transfers=` field of a `bench ...` line: how locales of one node moved data in this run,
/// "node" (node-aware transfers, dmap::set_node_transfers: direct copies into node-shared
/// memory) or "messages" (off: DMAP_NODE_TRANSFERS=0, as between nodes).
inline const char* transfers_field() { return dmap::node_transfers().enabled ? "node" : "messages"; }

/// Prints one `bench ...` line (docs/design.md section 10) of a case timed in seconds, on
/// locale 0: its name, elements, both medians, their ratio (baseline / dmap), dmap's counters
/// of one run and the least bytes any correct program must send.
inline void print_seconds(const char* name, std::int64_t n, double dmap_s, double base_s, const dmap::comm_counters& c,
                          std::uint64_t min_bytes) {
  if (dmap::here() != 0) return;
  std::printf("bench %s ranks=%d threads=%d transfers=%s n=%lld dmap=%.6f baseline=%.6f unit=s ratio=%.3f msgs=%llu bytes=%llu "
              "min_bytes=%llu\n",
              name, dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(n), dmap_s, base_s,
              base_s / dmap_s, static_cast<unsigned long long>(c.messages_sent),
              static_cast<unsigned long long>(c.bytes_sent), static_cast<unsigned long long>(min_bytes));
}

}  // namespace bench
