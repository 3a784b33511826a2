// The hand-written CSR SpMV that bench/spmv.cpp, bench/cg.cpp and bench/pagerank.cpp measure
// dmap::multiply against, and the per-thread sum their hand-written solvers reduce with. The SpMV is
// what a careful MPI programmer writes (PETSc's MatMult shape). Row pointers and 32-bit column
// indices renumbered so that this rank's columns come first (x's local part) and ghost columns
// after it, one vector [local x | ghosts] with room for the ghosts (no copy per product), a ghost
// exchange of one message per peer with MPI_Isend/Irecv (send lists agreed once with
// MPI_Alltoall(v)), the local-column part of every row computed while the messages fly, then the
// ghost part; rows split statically over the oneTBB threads.
#pragma once

#include <dmap/dmap.hpp>
#include <dmap/runtime/detail/thread_pool.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace bench {

using dmap::index_t;

/// Chapel's Block cut of [0, n) over p parts: part k is [ceil(n k / p), ceil(n (k + 1) / p)).
inline index_t cut(index_t n, int p, int k) {
  return (n * k + p - 1) / p;  // n * p stays far below 2^63 here
}

/// The sum of f(first, last) over a static split of [0, n) into one part per thread, added in
/// part order on this rank, then over all ranks: the same value on every rank.
template <class F>
double parallel_sum(index_t n, F&& f) {
  const int parts = dmap::num_threads();
  std::vector<double> partial(static_cast<std::size_t>(parts), 0.0);
  dmap::detail::locale_arena().execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<int>(0, parts, 1),
        [&](const oneapi::tbb::blocked_range<int>& r) {
          for (int k = r.begin(); k < r.end(); ++k)
            partial[static_cast<std::size_t>(k)] = f(n * k / parts, n * (k + 1) / parts);
        },
        oneapi::tbb::static_partitioner{});
  });
  double local = 0, total = 0;
  for (double v : partial) local += v;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

/// The hand-written CSR SpMV y = A x over this rank's Block rows [r0, r1) of an n x n matrix.
struct csr_spmv {
  index_t r0 = 0, r1 = 0, rows = 0, nloc = 0;
  std::vector<std::int64_t> start;     // row i: entries [start[i], start[i + 1])
  std::vector<std::int64_t> split;     // row i's ghost columns start at split[i]
  std::vector<std::uint32_t> col;      // renumbered columns: < nloc local, >= nloc ghost
  std::vector<double> val;
  std::vector<index_t> ghost_rows;     // rows with ghost columns
  std::vector<double> xv, y;           // [local x | ghosts], y
  std::vector<int> recv_peer, send_peer;
  std::vector<index_t> recv_first, recv_count, send_first, send_count;
  std::vector<std::uint32_t> send_index;  // local x offsets packed per peer
  std::vector<double> send_buffer;
  std::uint64_t sent_values = 0;       // values this rank sends per product

  /// The rows of the n x n matrix whose columns `row(r, cols)` appends (ascending) and whose
  /// element (r, c) is `value(r, c)`; x starts at 0.
  template <class Row, class Value>
  csr_spmv(index_t n, Row&& row, Value&& value) {
    const int p = dmap::num_locales(), me = dmap::here();
    r0 = cut(n, p, me), r1 = cut(n, p, me + 1), rows = r1 - r0, nloc = rows;
    std::vector<index_t> cols, ghosts;
    start.push_back(0);
    std::vector<index_t> all_cols;
    for (index_t r = r0; r < r1; ++r) {
      cols.clear();
      row(r, cols);
      for (index_t c : cols) {
        all_cols.push_back(c);
        val.push_back(value(r, c));
        if (c < r0 || c >= r1) ghosts.push_back(c);
      }
      start.push_back(static_cast<std::int64_t>(all_cols.size()));
    }
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
    // Ghosts ascending are grouped by owner already (Block cut).
    const auto owner = [&](index_t c) {
      int lo = 0, hi = p;  // the k with cut(k) <= c < cut(k + 1)
      while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        (cut(n, p, mid) <= c ? lo : hi) = mid;
      }
      return lo;
    };
    std::vector<int> counts(static_cast<std::size_t>(p), 0), asked(static_cast<std::size_t>(p), 0);
    for (index_t c : ghosts) ++counts[static_cast<std::size_t>(owner(c))];
    MPI_Alltoall(counts.data(), 1, MPI_INT, asked.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> sdispl(static_cast<std::size_t>(p), 0), rdispl(static_cast<std::size_t>(p), 0);
    for (int q = 1; q < p; ++q) {
      sdispl[static_cast<std::size_t>(q)] = sdispl[static_cast<std::size_t>(q - 1)] + counts[static_cast<std::size_t>(q - 1)];
      rdispl[static_cast<std::size_t>(q)] = rdispl[static_cast<std::size_t>(q - 1)] + asked[static_cast<std::size_t>(q - 1)];
    }
    std::vector<index_t> wanted(static_cast<std::size_t>(rdispl.back() + asked.back()));
    MPI_Alltoallv(ghosts.data(), counts.data(), sdispl.data(), MPI_INT64_T, wanted.data(), asked.data(), rdispl.data(),
                  MPI_INT64_T, MPI_COMM_WORLD);
    for (int q = 0; q < p; ++q) {
      if (counts[static_cast<std::size_t>(q)] > 0) {
        recv_peer.push_back(q);
        recv_first.push_back(nloc + sdispl[static_cast<std::size_t>(q)]);
        recv_count.push_back(counts[static_cast<std::size_t>(q)]);
      }
      if (asked[static_cast<std::size_t>(q)] > 0) {
        send_peer.push_back(q);
        send_first.push_back(rdispl[static_cast<std::size_t>(q)]);
        send_count.push_back(asked[static_cast<std::size_t>(q)]);
      }
    }
    for (index_t c : wanted) send_index.push_back(static_cast<std::uint32_t>(c - r0));
    sent_values = wanted.size();
    send_buffer.resize(wanted.size());
    // Renumber, and sort each row's entries so that local columns come first.
    col.resize(all_cols.size());
    split.resize(static_cast<std::size_t>(rows));
    std::vector<std::pair<std::uint32_t, double>> entry;
    for (index_t i = 0; i < rows; ++i) {
      entry.clear();
      for (auto e = start[static_cast<std::size_t>(i)]; e < start[static_cast<std::size_t>(i) + 1]; ++e) {
        const index_t c = all_cols[static_cast<std::size_t>(e)];
        const index_t renumbered =
            c >= r0 && c < r1 ? c - r0 : nloc + (std::lower_bound(ghosts.begin(), ghosts.end(), c) - ghosts.begin());
        entry.push_back({static_cast<std::uint32_t>(renumbered), val[static_cast<std::size_t>(e)]});
      }
      std::sort(entry.begin(), entry.end());
      auto e = start[static_cast<std::size_t>(i)];
      split[static_cast<std::size_t>(i)] = start[static_cast<std::size_t>(i) + 1];
      for (const auto& [c, v] : entry) {
        if (c >= nloc && split[static_cast<std::size_t>(i)] == start[static_cast<std::size_t>(i) + 1]) split[static_cast<std::size_t>(i)] = e;
        col[static_cast<std::size_t>(e)] = c;
        val[static_cast<std::size_t>(e)] = v;
        ++e;
      }
      if (split[static_cast<std::size_t>(i)] < start[static_cast<std::size_t>(i) + 1]) ghost_rows.push_back(i);
    }
    xv.assign(static_cast<std::size_t>(nloc) + ghosts.size(), 0.0);
    y.assign(static_cast<std::size_t>(rows), 0.0);
  }

  /// Calls f(first, last) on the locale's threads, [0, n) split statically.
  template <class F>
  static void parallel_rows(index_t n, F&& f) {
    dmap::detail::locale_arena().execute([&] {
      oneapi::tbb::parallel_for(
          oneapi::tbb::blocked_range<index_t>(0, n, std::max<index_t>(1, n / dmap::num_threads())),
          [&](const oneapi::tbb::blocked_range<index_t>& r) { f(r.begin(), r.end()); }, oneapi::tbb::static_partitioner{});
    });
  }

  /// y = A x, x being the local part of xv (its ghost part is filled here).
  void multiply() {
    std::vector<MPI_Request> req(recv_peer.size() + send_peer.size());
    std::size_t k = 0;
    for (std::size_t q = 0; q < recv_peer.size(); ++q)
      MPI_Irecv(xv.data() + recv_first[q], static_cast<int>(recv_count[q]), MPI_DOUBLE, recv_peer[q], 7, MPI_COMM_WORLD,
                &req[k++]);
    const double* x = xv.data();
    for (std::size_t t = 0; t < send_index.size(); ++t) send_buffer[t] = x[send_index[t]];
    for (std::size_t q = 0; q < send_peer.size(); ++q)
      MPI_Isend(send_buffer.data() + send_first[q], static_cast<int>(send_count[q]), MPI_DOUBLE, send_peer[q], 7,
                MPI_COMM_WORLD, &req[k++]);
    const std::int64_t* s = start.data();
    const std::int64_t* m = split.data();
    const std::uint32_t* c = col.data();
    const double* v = val.data();
    double* out = y.data();
    parallel_rows(rows, [&](index_t first, index_t last) {
      for (index_t i = first; i < last; ++i) {
        double sum = 0.0;
        for (auto e = s[i]; e < m[i]; ++e) sum += v[e] * x[c[e]];
        out[i] = sum;
      }
    });
    MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    const index_t* g = ghost_rows.data();
    parallel_rows(static_cast<index_t>(ghost_rows.size()), [&](index_t first, index_t last) {
      for (index_t t = first; t < last; ++t) {
        const index_t i = g[t];
        double sum = 0.0;
        for (auto e = m[i]; e < s[i + 1]; ++e) sum += v[e] * x[c[e]];
        out[i] += sum;
      }
    });
  }
};

}  // namespace bench
