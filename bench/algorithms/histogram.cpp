// Case "histogram": 2^k values (uniform random bins, made on each rank from a hash of the
// value's position) counted into 2^b bins of a Block 1-D array of int64, through a
// dmap::accumulate handle's add_each, against a hand-written baseline: per-thread
// per-destination buffers of local bin offsets, MPI_Alltoall of the counts, MPI_Alltoallv,
// then the owners add. A second line times the per-element path (`H[i] += 1` through
// element_ref: one-sided reads and writes, one locale at a time so that no two locales
// update one bin at once) on a smaller count. A third line compares dmap with the best a user
// writes by hand when the bins fit in memory per thread: dense per-thread counts, summed, then
// MPI_Reduce_scatter (no per-value buffering at all). A fourth line (histogram_vs_best) gives
// the automatic choice against the faster of the two hand-written ways (each side's faster
// median of the two pairs): what the automatic choice must reach at every (n, bins). A fifth line
// (histogram_forall_add) times the per-element form, add() called from a dmap::forall body,
// against the better way.
//   mpirun -n 4 bench_algorithms histogram [log2 n = 24] [log2 bins = 16] [reps = 5]
#include <dmap/dmap.hpp>
#include <mpi.h>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../timing.hpp"
#include "cases.hpp"

namespace {

using dmap::idx;
using dmap::index_t;

/// A well-mixed 64-bit hash (splitmix64's finaliser): the random bin of a position.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The first bin locale q owns when `bins` bins are cut in p blocks (Chapel's and dmap's cut).
index_t first_bin(index_t bins, int p, int q) { return (bins * q + p - 1) / p; }

/// Per-thread lists of local bin offsets, one per destination; kept from call to call.
using lists = std::vector<std::vector<std::int32_t>>;
using thread_lists = oneapi::tbb::enumerable_thread_specific<lists>;

/// The send and receive buffers of the hand-written histogram, kept from call to call (as
/// dmap keeps its own): no fresh pages to fault in per call.
struct message_buffers {
  std::vector<std::int32_t> send, recv;
};

/// The hand-written histogram: `values` (this rank's bins) into `counts` (this rank's block).
void baseline(const std::int64_t* values, index_t count, index_t bins, std::vector<std::int64_t>& counts,
              oneapi::tbb::task_arena& arena, thread_lists& buffers, message_buffers& messages) {
  const int p = dmap::num_locales();
  for (auto& l : buffers)
    for (auto& v : l) v.clear();  // keep the capacities of the last call
  arena.execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<index_t>(0, count, 4096),
        [&](const oneapi::tbb::blocked_range<index_t>& r) {
          lists& mine = buffers.local();
          for (index_t k = r.begin(); k != r.end(); ++k) {
            const index_t b = values[k];
            const int q = static_cast<int>((b * p) / bins);  // owner under the Block cut (bins*p < 2^63)
            mine[static_cast<std::size_t>(q)].push_back(static_cast<std::int32_t>(b - first_bin(bins, p, q)));
          }
        },
        oneapi::tbb::static_partitioner{});
  });
  std::vector<int> send_counts(static_cast<std::size_t>(p), 0), recv_counts(send_counts), send_displs(send_counts),
      recv_displs(send_counts);
  for (const auto& l : buffers)
    for (int q = 0; q < p; ++q) send_counts[q] += static_cast<int>(l[q].size());
  for (int q = 1; q < p; ++q) send_displs[q] = send_displs[q - 1] + send_counts[q - 1];
  std::vector<std::int32_t>& send = messages.send;
  send.resize(static_cast<std::size_t>(send_displs[p - 1] + send_counts[p - 1]));
  std::vector<int> at(send_displs);
  for (const auto& l : buffers)
    for (int q = 0; q < p; ++q) {
      std::copy(l[q].begin(), l[q].end(), send.begin() + at[q]);
      at[q] += static_cast<int>(l[q].size());
    }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int q = 1; q < p; ++q) recv_displs[q] = recv_displs[q - 1] + recv_counts[q - 1];
  std::vector<std::int32_t>& recv = messages.recv;
  recv.resize(static_cast<std::size_t>(recv_displs[p - 1] + recv_counts[p - 1]));
  MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_INT32_T, recv.data(), recv_counts.data(),
                recv_displs.data(), MPI_INT32_T, MPI_COMM_WORLD);
  for (const std::int32_t off : recv) ++counts[static_cast<std::size_t>(off)];
}

/// Per-thread dense counts of every bin; kept from call to call.
using thread_counts = oneapi::tbb::enumerable_thread_specific<std::vector<std::int64_t>>;

/// The hand-written histogram with counts combined at the source: each thread counts into its
/// own array of all bins, the threads' arrays are summed, and MPI_Reduce_scatter leaves each
/// rank the totals of its block (`block_sizes[q]` bins on rank q).
void dense_baseline(const std::int64_t* values, index_t count, std::vector<std::int64_t>& counts,
                    oneapi::tbb::task_arena& arena, thread_counts& per_thread, std::vector<std::int64_t>& sum,
                    std::vector<int>& block_sizes) {
  for (auto& h : per_thread) std::fill(h.begin(), h.end(), 0);
  arena.execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<index_t>(0, count, 4096),
        [&](const oneapi::tbb::blocked_range<index_t>& r) {
          std::int64_t* mine = per_thread.local().data();
          for (index_t k = r.begin(); k != r.end(); ++k) ++mine[values[k]];
        },
        oneapi::tbb::static_partitioner{});
  });
  std::fill(sum.begin(), sum.end(), 0);
  for (const auto& h : per_thread)
    for (std::size_t b = 0; b < sum.size(); ++b) sum[b] += h[b];
  MPI_Reduce_scatter(sum.data(), counts.data(), block_sizes.data(), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
}

int run(const std::vector<std::string>& args) {
  const int log_n = args.size() > 0 ? std::stoi(args[0]) : 24;
  const int log_bins = args.size() > 1 ? std::stoi(args[1]) : 16;
  const int reps = args.size() > 2 ? std::stoi(args[2]) : 5;
  const index_t n = index_t{1} << log_n, bins = index_t{1} << log_bins;
  const int p = dmap::num_locales(), me = dmap::here();

  // The values: a Block array of n bins; each rank makes its own from their positions.
  const dmap::domain<1> S(dmap::block<1>{}, dmap::rect<1>{dmap::range(0, n)});
  dmap::array<std::int64_t, 1> values(S);
  dmap::forall(dmap::zip(S, values), [&](const idx<1>& i, std::int64_t& v) {
    v = static_cast<std::int64_t>(mix(static_cast<std::uint64_t>(i[0])) % static_cast<std::uint64_t>(bins));
  });
  const dmap::domain<1> B(dmap::block<1>{}, dmap::rect<1>{dmap::range(0, bins)});
  dmap::array<std::int64_t, 1> H(B);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(H.local_size()));
  oneapi::tbb::task_arena arena(dmap::num_threads());  // the baseline's own threads, as many as dmap's

  // Both sides keep their buffers from one repetition to the next (one handle per mode).
  auto automatic = dmap::accumulate(H);
  auto listed = dmap::accumulate(H, std::plus<>{}, dmap::aggregation::lists);
  auto* acc = &automatic;
  const auto with_dmap = [&] {
    dmap::forall(H, [](std::int64_t& h) { h = 0; });
    acc->add_each(std::as_const(values), [](std::int64_t v) { return std::pair{v, std::int64_t{1}}; });
    acc->finish();
  };
  const auto with_forall_add = [&] {
    dmap::forall(H, [](std::int64_t& h) { h = 0; });
    dmap::forall(std::as_const(values), [&](const std::int64_t& v) { acc->add(v, 1); });
    acc->finish();
  };
  thread_lists buffers([p] { return lists(static_cast<std::size_t>(p)); });
  message_buffers messages;
  const auto by_hand = [&] {
    std::fill(counts.begin(), counts.end(), 0);
    baseline(values.local_data(), values.local_size(), bins, counts, arena, buffers, messages);
  };
  const auto [dmap_s, base_s] = bench::median_times(reps, with_dmap, by_hand);
  const dmap::comm_counters c = bench::counters_of_repeat(with_dmap);
  by_hand();
  index_t wrong = 0;
  for (index_t k = 0; k < H.local_size(); ++k) wrong += H.local_data()[k] != counts[static_cast<std::size_t>(k)];
  std::int64_t total = 0;
  for (index_t k = 0; k < H.local_size(); ++k) total += H.local_data()[k];
  wrong = dmap::all_reduce_sum(wrong);
  total = dmap::all_reduce_sum(total);
  // The same with per-destination lists (what dmap does for index sets too large for a
  // table per thread): every contribution is buffered, lists are folded before they leave.
  acc = &listed;
  const auto [lists_s, lists_base_s] = bench::median_times(reps, with_dmap, by_hand);
  const dmap::comm_counters lc = bench::counters_of_repeat(with_dmap);
  index_t wrong_lists = 0;
  for (index_t k = 0; k < H.local_size(); ++k) wrong_lists += H.local_data()[k] != counts[static_cast<std::size_t>(k)];
  wrong += dmap::all_reduce_sum(wrong_lists);
  acc = &automatic;
  // Against dense per-thread counts + MPI_Reduce_scatter (what an expert writes when the bins
  // fit per thread; it sends every bin, counted or not).
  thread_counts per_thread([bins] { return std::vector<std::int64_t>(static_cast<std::size_t>(bins)); });
  std::vector<std::int64_t> sum(static_cast<std::size_t>(bins));
  std::vector<int> block_sizes(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) block_sizes[q] = static_cast<int>(first_bin(bins, p, q + 1) - first_bin(bins, p, q));
  const auto dense_by_hand = [&] {
    dense_baseline(values.local_data(), values.local_size(), counts, arena, per_thread, sum, block_sizes);
  };
  const auto [dense_dmap_s, dense_s] = bench::median_times(reps, with_dmap, dense_by_hand);
  index_t wrong_dense = 0;
  for (index_t k = 0; k < H.local_size(); ++k) wrong_dense += H.local_data()[k] != counts[static_cast<std::size_t>(k)];
  wrong += dmap::all_reduce_sum(wrong_dense);
  // The automatic choice against the better hand-written way at this (n, bins): each side's
  // faster median of the two alternating runs above (a run of one way can leave the machine
  // slower for the next, as freeing a 128 MiB dense table does, and a pair can meet a slow
  // phase of the machine: each side takes its better pair). The per-element form alternates
  // with the better way.
  const bool lists_better = base_s <= dense_s;
  const double best_auto_s = std::min(dmap_s, dense_dmap_s), best_base_s = std::min(base_s, dense_s);
  const auto [add_s, add_base_s] =
      lists_better ? bench::median_times(reps, with_forall_add, by_hand) : bench::median_times(reps, with_forall_add, dense_by_hand);
  index_t wrong_add = 0;
  for (index_t k = 0; k < H.local_size(); ++k) wrong_add += H.local_data()[k] != counts[static_cast<std::size_t>(k)];
  wrong += dmap::all_reduce_sum(wrong_add);
  // At least (locale 0, when n >> bins so that it holds values of every bin): one 8-byte count
  // for every bin it does not own.
  bench::print_seconds("histogram", n, dmap_s, base_s, c,
                       n >= 16 * bins ? static_cast<std::uint64_t>(8 * (bins - H.local_size())) : 0);
  bench::print_seconds("histogram_vs_dense", n, dense_dmap_s, dense_s, c,
                       n >= 16 * bins ? static_cast<std::uint64_t>(8 * (bins - H.local_size())) : 0);
  bench::print_seconds("histogram_lists", n, lists_s, lists_base_s, lc,
                       n >= 16 * bins ? static_cast<std::uint64_t>(8 * (bins - H.local_size())) : 0);
  bench::print_seconds("histogram_vs_best", n, best_auto_s, best_base_s, c,
                       n >= 16 * bins ? static_cast<std::uint64_t>(8 * (bins - H.local_size())) : 0);
  bench::print_seconds("histogram_forall_add", n, add_s, add_base_s, c,
                       n >= 16 * bins ? static_cast<std::uint64_t>(8 * (bins - H.local_size())) : 0);
  if (me == 0)
    std::printf("  (histogram_vs_best: lists by hand %.6f s, dense by hand %.6f s, each beside dmap)\n", base_s, dense_s);

  // The per-element path: H[v] += 1 one locale after the other (no two locales race on a bin).
  // Its own array in private storage, so that remote elements are reached by MPI one-sided
  // messages (as between nodes) rather than by loads and stores into node-shared memory.
  const index_t small = std::min<index_t>(n, index_t{1} << 14);
  const dmap::node_transfer_settings saved = dmap::detail::env().node_transfers();
  dmap::set_node_transfers({false, saved.min_bytes});
  dmap::array<std::int64_t, 1> R(B);
  dmap::set_node_transfers(saved);
  // This locale's values at positions below `small` (a Block piece is one run of positions).
  const index_t my_first = S.local_subdomains().empty() ? n : S.local_subdomains()[0].dim(0).first();
  const index_t my_count = std::max<index_t>(0, std::min(small - my_first, values.local_size()));
  dmap::reset_counters();
  double rma_s = 0;
  for (int q = 0; q < p; ++q) {
    rma_s += bench::timed([&] {
      if (q == me)
        for (index_t k = 0; k < my_count; ++k) R[idx<1>{values.local_data()[k]}] += 1;
    });
  }
  const dmap::comm_counters rc = dmap::counters();
  std::int64_t rma_total = 0;
  for (index_t k = 0; k < R.local_size(); ++k) rma_total += R.local_data()[k];
  rma_total = dmap::all_reduce_sum(rma_total);
  if (me == 0)
    std::printf("bench histogram_rma ranks=%d threads=%d n=%lld dmap=%.6f unit=s rate=%.3e/s msgs=%llu bytes=%llu "
                "(per-element H[i] += 1, locales in turn; histogram rate at the same n would be %.3e/s)\n",
                p, dmap::num_threads(), static_cast<long long>(small), rma_s, static_cast<double>(small) / rma_s,
                static_cast<unsigned long long>(rc.messages_sent), static_cast<unsigned long long>(rc.bytes_sent),
                static_cast<double>(n) / dmap_s);
  const bool ok = wrong == 0 && total == n && rma_total == small;
  if (me == 0 && !ok)
    std::printf("histogram: WRONG (%lld bins differ from the baseline, total %lld of %lld, "
                "per-element total %lld of %lld)\n",
                static_cast<long long>(wrong), static_cast<long long>(total), static_cast<long long>(n),
                static_cast<long long>(rma_total), static_cast<long long>(small));
  return ok ? 0 : 1;
}

const bench::algorithms::registrar reg{
    {"histogram", "[log2 n = 24] [log2 bins = 16] [reps = 5]: aggregated accumulate vs buffers + MPI_Alltoallv", run}};

}  // namespace
