// The compiled part of algorithms/detail/spmv.hpp: building the plan of a sparse
// matrix-vector product (the local steps around its one exchange) and keeping it on the
// sparse domain.
#include "spmv.hpp"

#include <oneapi/tbb/parallel_sort.h>

#include "../../runtime/detail/thread_pool.hpp"

namespace dmap::detail {

namespace {

/// Where the indices a locale owns of a 1-D domain sit in its storage.
class owned_offsets {
 public:
  /// The offsets of `d`'s indices owned here.
  explicit owned_offsets(const domain<1>& d) : state_(state_of(d)), finder_(state_->my_subdomains) {}
  /// The storage offset of the index at order `k` of the whole index set, or -1 when this
  /// locale does not own it.
  index_t of_order(index_t k) const {
    if (state_->dir) {
      const auto stored = state_->dir->find_stored(k);
      return stored && stored->second ? stored->first : -1;
    }
    const idx<1> i{state_->whole.dim(0).index_at(k)};
    const std::size_t piece = finder_.find(i);
    return piece == state_->my_subdomains.size() ? -1 : state_->my_layouts[piece].offset_of(i);
  }

 private:
  std::shared_ptr<domain_state<1>> state_;
  piece_finder<1> finder_;
};

/// Which locales own the indices at `orders` of 1-D domain `d` (not collective).
std::vector<int> owners_of_orders(const domain<1>& d, const std::vector<index_t>& orders) {
  std::vector<idx<1>> indices(orders.size());
  const range& whole = d.dim(0);
  for (std::size_t k = 0; k < orders.size(); ++k) indices[k] = idx<1>{whole.index_at(orders[k])};
  return d.locales_of(indices);
}

// Sorts `v` on this locale's arena.
template <class V, class Less>
void sort_on_arena(V& v, Less&& less) {
  if (v.size() < 65536 || env().threads() == 1) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  locale_arena().execute([&] { oneapi::tbb::parallel_sort(v.begin(), v.end(), less); });
}

/// A plan being built: what its local steps before the one exchange leave to those after it.
struct spmv_build {
  spmv_plan plan;
  detail::byte_buffers requests;              ///< to each owner: the count of x orders, the x orders, the rows of partial sums
  std::size_t segments = 0;           ///< rows with local nonzeros
  std::vector<char> ghost_segment;    ///< per segment: reads received x values
  std::vector<index_t> destination;   ///< per segment: y offset, or -(partial slot) - 1
  std::vector<index_t> written;       ///< y offsets written by local rows
};

/// The local steps before the exchange: entries, segments, x columns and their owners, row
/// destinations and the requests to send (no communication but directory look-ups).
void plan_requests(spmv_build& b, const sparse_domain<2>& a, const domain<1>& xd, const domain<1>& yd,
                          const owned_offsets& x_offsets, const owned_offsets& y_offsets) {
  spmv_plan& plan = b.plan;
  auto& requests = b.requests;
  auto& segments = b.segments;
  auto& ghost_segment = b.ghost_segment;
  auto& destination = b.destination;
  auto& written = b.written;
  const int me = here();
  const int p = num_locales();
  const range rows = a.parent().dim(0), cols = a.parent().dim(1);
  const index_t n = a.local_size();
  plan.entries = n;
  requests.assign(static_cast<std::size_t>(p), {});

  // This locale's nonzeros as (row order, column order), in position order.
  std::vector<index_t> row_of(static_cast<std::size_t>(n)), col_of(static_cast<std::size_t>(n));
  {
    constexpr index_t block = 4096;
    const index_t blocks = (n + block - 1) / block;
    run_tasks(static_cast<std::size_t>(blocks), [&](std::size_t b) {
      idx<2> buffer[block];
      const index_t first = static_cast<index_t>(b) * block, last = std::min(n, first + block);
      a.local_indices(first, last, buffer);
      for (index_t k = first; k < last; ++k) {
        row_of[static_cast<std::size_t>(k)] = rows.order_of(buffer[k - first][0]);
        col_of[static_cast<std::size_t>(k)] = cols.order_of(buffer[k - first][1]);
      }
    });
  }

  // The distinct columns, their owners, and where this locale finds each: x's storage
  // (owned here) or a ghost slot (grouped by owner, ascending column within an owner).
  // Found by marking a table over the columns' span when that is at most about twice the
  // entries (memory stays O(entries)), else by sorting.
  std::vector<index_t> distinct;
  std::vector<index_t> table;  // column - low: its number among the distinct ones
  index_t low = 0;
  if (n > 0) {
    const auto [least, most] = std::minmax_element(col_of.begin(), col_of.end());
    low = *least;
    const index_t span = *most - *least + 1;
    if (span <= 2 * n + 65536) {
      table.assign(static_cast<std::size_t>(span), -1);
      for (index_t c : col_of) table[static_cast<std::size_t>(c - low)] = 0;
      for (index_t k = 0; k < span; ++k)
        if (table[static_cast<std::size_t>(k)] == 0) {
          table[static_cast<std::size_t>(k)] = static_cast<index_t>(distinct.size());
          distinct.push_back(low + k);
        }
    }
  }
  if (table.empty()) {
    distinct = col_of;
    sort_on_arena(distinct, std::less<>{});
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  }
  const std::vector<int> owner = owners_of_orders(xd, distinct);
  std::vector<index_t> where(distinct.size());  // x storage offset, or -(ghost slot) - 1
  {
    std::vector<std::vector<index_t>> wanted(static_cast<std::size_t>(p));
    std::vector<index_t> count(static_cast<std::size_t>(p), 0);
    for (std::size_t u = 0; u < distinct.size(); ++u)
      if (owner[u] != me) ++count[static_cast<std::size_t>(owner[u])];
    std::vector<index_t> next(static_cast<std::size_t>(p), 0);
    index_t total = 0;
    for (int q = 0; q < p; ++q) {
      next[static_cast<std::size_t>(q)] = total;
      if (count[static_cast<std::size_t>(q)] > 0)
        plan.x_receive.push_back({q, total, count[static_cast<std::size_t>(q)]});
      total += count[static_cast<std::size_t>(q)];
    }
    for (std::size_t u = 0; u < distinct.size(); ++u) {
      if (owner[u] == me) {
        where[u] = x_offsets.of_order(distinct[u]);
      } else {
        where[u] = -(next[static_cast<std::size_t>(owner[u])]++) - 1;
        wanted[static_cast<std::size_t>(owner[u])].push_back(distinct[u]);
      }
    }
    for (int q = 0; q < p; ++q) {
      auto& w = wanted[static_cast<std::size_t>(q)];
      if (!w.empty()) w.insert(w.begin(), static_cast<index_t>(w.size()));
      requests[static_cast<std::size_t>(q)] = detail::to_bytes(w);
    }
  }
  // Each entry's distinct column (the ghost test and the slot).
  std::vector<std::uint32_t> unique32;
  std::vector<index_t> unique64;
  const bool narrow_unique = distinct.size() < (std::size_t{1} << 32);
  if (narrow_unique) unique32.resize(static_cast<std::size_t>(n)); else unique64.resize(static_cast<std::size_t>(n));
  blocked_loop(n, [&](index_t first, index_t last) {
    for (index_t e = first; e < last; ++e) {
      const index_t c = col_of[static_cast<std::size_t>(e)];
      const auto u = !table.empty() ? table[static_cast<std::size_t>(c - low)]
                                    : std::lower_bound(distinct.begin(), distinct.end(), c) - distinct.begin();
      if (narrow_unique) unique32[static_cast<std::size_t>(e)] = static_cast<std::uint32_t>(u);
      else unique64[static_cast<std::size_t>(e)] = u;
    }
  });
  std::vector<index_t>().swap(col_of);
  std::vector<index_t>().swap(table);
  const auto unique_of = [&](index_t e) -> std::size_t {
    return narrow_unique ? unique32[static_cast<std::size_t>(e)] : static_cast<std::size_t>(unique64[static_cast<std::size_t>(e)]);
  };

  const auto ghost_entry = [&](index_t e) { return where[unique_of(e)] < 0; };

  // Entry order: positions when each row's nonzeros are consecutive positions with its
  // local entries consecutive among them; else by (row, received or not, column).
  bool direct = true;
  {
    std::vector<index_t> run_rows;
    int state = 0;  // in the current run: 0 before its local entries, 1 among them, 2 after
    for (index_t k = 0; k < n && direct; ++k) {
      if (k == 0 || row_of[static_cast<std::size_t>(k)] != row_of[static_cast<std::size_t>(k - 1)]) {
        run_rows.push_back(row_of[static_cast<std::size_t>(k)]);
        state = 0;
      }
      if (!ghost_entry(k)) {
        direct = state != 2;
        state = 1;
      } else if (state == 1) {
        state = 2;
      }
    }
    if (direct) {
      sort_on_arena(run_rows, std::less<>{});
      direct = std::adjacent_find(run_rows.begin(), run_rows.end()) == run_rows.end();
    }
  }
  if (!direct) {
    plan.value_of.resize(static_cast<std::size_t>(n));
    for (index_t k = 0; k < n; ++k) plan.value_of[static_cast<std::size_t>(k)] = k;
    sort_on_arena(plan.value_of, [&](index_t u, index_t v) {
      const auto su = static_cast<std::size_t>(u), sv = static_cast<std::size_t>(v);
      if (row_of[su] != row_of[sv]) return row_of[su] < row_of[sv];
      const bool gu = ghost_entry(u), gv = ghost_entry(v);
      if (gu != gv) return gv;
      return unique_of(u) < unique_of(v);  // distinct columns are numbered in ascending order
    });
    std::vector<index_t> r(static_cast<std::size_t>(n));
    for (std::size_t e = 0; e < r.size(); ++e) r[e] = row_of[static_cast<std::size_t>(plan.value_of[e])];
    row_of.swap(r);
    if (narrow_unique) {
      std::vector<std::uint32_t> u(static_cast<std::size_t>(n));
      for (std::size_t e = 0; e < u.size(); ++e) u[e] = unique32[static_cast<std::size_t>(plan.value_of[e])];
      unique32.swap(u);
    } else {
      std::vector<index_t> u(static_cast<std::size_t>(n));
      for (std::size_t e = 0; e < u.size(); ++e) u[e] = unique64[static_cast<std::size_t>(plan.value_of[e])];
      unique64.swap(u);
    }
  }
  // Segments (rows) in entry order; phase 1 rows with where their local entries lie.
  std::vector<index_t> segment_row;
  for (index_t e = 0; e < n; ++e)
    if (e == 0 || row_of[static_cast<std::size_t>(e)] != row_of[static_cast<std::size_t>(e - 1)]) {
      plan.segment_start.push_back(e);
      segment_row.push_back(row_of[static_cast<std::size_t>(e)]);
    }
  plan.segment_start.push_back(n);
  segments = segment_row.size();
  std::vector<index_t>().swap(row_of);
  ghost_segment.assign(segments, 0);
  for (std::size_t g = 0; g < segments; ++g) {
    const index_t first = plan.segment_start[g], last = plan.segment_start[g + 1];
    index_t local_first = -1, local_last = -1;
    bool ghost = false;
    for (index_t e = first; e < last; ++e) {
      if (ghost_entry(e)) {
        ghost = true;
      } else {
        if (local_first < 0) local_first = e;
        local_last = e + 1;
      }
    }
    if (!ghost) continue;
    if (last - first > static_cast<index_t>(UINT32_MAX))
      throw unsupported_error("dmap::multiply: a row has " + std::to_string(last - first) +
                              " nonzeros on one locale; at most 2^32 - 1 are supported");
    ghost_segment[g] = 1;
    if (local_first < 0) local_first = local_last = first;
    plan.local_part.push_back({static_cast<std::uint32_t>(local_first - first), static_cast<std::uint32_t>(local_last - first)});
  }

  // Entry columns: x storage offsets for local columns, received slots for the others.
  plan.ghosts = 0;
  for (const auto& r : plan.x_receive) plan.ghosts += r.count;
  const index_t widest = std::max(state_of(xd)->storage_size, plan.ghosts);
  const bool narrow = widest <= static_cast<index_t>(UINT32_MAX);
  if (narrow) plan.column32.resize(static_cast<std::size_t>(n)); else plan.column64.resize(static_cast<std::size_t>(n));
  blocked_loop(n, [&](index_t first, index_t last) {
    for (index_t e = first; e < last; ++e) {
      const index_t w = where[unique_of(e)];
      const index_t slot = w >= 0 ? w : -w - 1;
      if (narrow) plan.column32[static_cast<std::size_t>(e)] = static_cast<std::uint32_t>(slot);
      else plan.column64[static_cast<std::size_t>(e)] = static_cast<std::uint64_t>(slot);
    }
  });
  std::vector<std::uint32_t>().swap(unique32);
  std::vector<index_t>().swap(unique64);

  // Rows: y's owner of each segment's row; local rows write y's storage, the others a
  // partial sum (one slot per row and owner, ascending row within an owner).
  const std::vector<int> row_owner = owners_of_orders(yd, segment_row);
  destination.assign(segments, 0);
  {
    std::vector<std::vector<std::pair<index_t, std::size_t>>> remote(static_cast<std::size_t>(p));
    for (std::size_t s = 0; s < segments; ++s) {
      if (row_owner[s] == me) {
        destination[s] = y_offsets.of_order(segment_row[s]);
        written.push_back(destination[s]);
      } else {
        remote[static_cast<std::size_t>(row_owner[s])].push_back({segment_row[s], s});
      }
    }
    index_t slot = 0;
    for (int q = 0; q < p; ++q) {
      auto& list = remote[static_cast<std::size_t>(q)];
      if (list.empty()) continue;
      std::sort(list.begin(), list.end());
      plan.y_send.push_back({q, slot, static_cast<index_t>(list.size())});
      std::vector<index_t> wanted;
      for (const auto& [row, s] : list) {
        destination[s] = -(slot++) - 1;
        wanted.push_back(row);
      }
      // The request to q: its x values wanted, then the rows it receives partials for.
      auto& bytes = requests[static_cast<std::size_t>(q)];
      if (bytes.empty()) bytes = detail::to_bytes(std::vector<index_t>{0});  // no x orders
      const auto more = detail::to_bytes(wanted);
      bytes.insert(bytes.end(), more.begin(), more.end());
    }
    plan.partials = slot;
  }
}

/// The local steps after the exchange: what to send to whom (from the requests in `asked`),
/// the y elements to zero, the runs and the tasks.
void plan_answers(spmv_build& b, const detail::byte_buffers& asked, const domain<1>& xd, const domain<1>& yd,
                         const owned_offsets& x_offsets, const owned_offsets& y_offsets) {
  spmv_plan& plan = b.plan;
  const bool narrow_x = state_of(xd)->storage_size <= static_cast<index_t>(UINT32_MAX);
  const auto segments = b.segments;
  const auto& ghost_segment = b.ghost_segment;
  const auto& destination = b.destination;
  auto& written = b.written;
  const int me = here();
  const int p = num_locales();
  for (int q = 0; q < p; ++q) {
    if (q == me || asked[static_cast<std::size_t>(q)].empty()) continue;
    const auto orders = detail::from_bytes<index_t>(asked[static_cast<std::size_t>(q)]);
    const auto x_end = static_cast<std::size_t>(orders.at(0)) + 1;
    if (x_end > 1) {
      plan.x_send.push_back({q, static_cast<index_t>(plan.x_send32.size() + plan.x_send64.size()),
                             static_cast<index_t>(x_end - 1)});
      for (std::size_t k = 1; k < x_end; ++k) {
        const index_t offset = x_offsets.of_order(orders[k]);
        if (narrow_x) plan.x_send32.push_back(static_cast<std::uint32_t>(offset));
        else plan.x_send64.push_back(static_cast<std::uint64_t>(offset));
      }
    }
    if (orders.size() > x_end) {
      plan.y_receive.push_back({q, static_cast<index_t>(plan.y_add_offsets.size()),
                                static_cast<index_t>(orders.size() - x_end)});
      for (std::size_t k = x_end; k < orders.size(); ++k) plan.y_add_offsets.push_back(y_offsets.of_order(orders[k]));
    }
  }
  plan.received_partials = static_cast<index_t>(plan.y_add_offsets.size());

  // y storage this locale owns that no local row writes: zeroed by each product.
  {
    const auto& ys = *state_of(yd);
    std::vector<index_t> owned;
    owned.reserve(static_cast<std::size_t>(ys.my_size));
    if (ys.dir) {
      for (std::size_t k = 0; k < ys.dir->stored().size(); ++k)
        if (ys.dir->owns_stored(k)) owned.push_back(static_cast<index_t>(k));
    } else {
      for (std::size_t k = 0; k < ys.my_subdomains.size(); ++k)
        for (index_t j = 0; j < ys.my_subdomains[k].dim(0).size(); ++j)
          owned.push_back(ys.my_layouts[k].offset_of(idx<1>{ys.my_subdomains[k].dim(0).index_at(j)}));
    }
    std::sort(owned.begin(), owned.end());
    std::sort(written.begin(), written.end());
    std::size_t w = 0;
    for (index_t o : owned) {
      while (w < written.size() && written[w] < o) ++w;
      if (w < written.size() && written[w] == o) continue;
      if (!plan.y_zero.empty() && plan.y_zero.back().first + plan.y_zero.back().second == o) ++plan.y_zero.back().second;
      else plan.y_zero.push_back({o, 1});
    }
  }

  // Runs: consecutive segments of one phase with consecutive destinations of one kind.
  index_t ghost_rows = 0;
  for (std::size_t s = 0; s < segments; ++s) {
    const int phase = ghost_segment[s] ? 1 : 0;
    const bool partial = destination[s] < 0;
    const index_t to = partial ? -destination[s] - 1 : destination[s];
    const index_t g = phase == 1 ? ghost_rows++ : 0;
    auto& runs = plan.runs[phase];
    if (!runs.empty()) {
      auto& last = runs.back();
      if (last.s1 == static_cast<index_t>(s) && last.partial == partial && last.to + (last.s1 - last.s0) == to) {
        ++last.s1;
        continue;
      }
    }
    runs.push_back({static_cast<index_t>(s), static_cast<index_t>(s) + 1, to, g, partial});
  }
  // Tasks: each phase cut into one block of about equal entries per thread, at segment
  // boundaries (runs split where a block ends).
  const auto tasks = static_cast<index_t>(env().threads());
  for (int phase = 0; phase < 2; ++phase) {
    auto& runs = plan.runs[phase];
    index_t total = 0;
    for (const auto& r : runs) total += plan.segment_start[static_cast<std::size_t>(r.s1)] - plan.segment_start[static_cast<std::size_t>(r.s0)];
    plan.phase_entries[phase] = total;
    auto& chunks = plan.chunks[phase];
    chunks.push_back(0);
    if (runs.empty()) continue;
    std::vector<spmv_plan::run> cut;
    index_t done = 0, block = 1;
    const auto boundary = [&](index_t b) { return total * b / tasks; };
    for (const auto& r : runs) {
      spmv_plan::run piece = r;
      for (index_t s = r.s0; s < r.s1; ++s) {
        done += plan.segment_start[static_cast<std::size_t>(s) + 1] - plan.segment_start[static_cast<std::size_t>(s)];
        if (block < tasks && done >= boundary(block)) {  // a task ends after segment s
          cut.push_back({piece.s0, s + 1, piece.to, piece.g0, piece.partial});
          chunks.push_back(cut.size());
          piece = {s + 1, r.s1, piece.to + (s + 1 - piece.s0), piece.g0 + (s + 1 - piece.s0), piece.partial};
          while (block < tasks && done >= boundary(block)) ++block;
        }
      }
      if (piece.s0 < piece.s1) cut.push_back(piece);
    }
    if (chunks.back() != cut.size()) chunks.push_back(cut.size());
    runs.swap(cut);
  }
}

}  // namespace

spmv_plan build_spmv_plan(const sparse_domain<2>& a, const domain<1>& xd, const domain<1>& yd) {
  const owned_offsets x_offsets(xd), y_offsets(yd);
  spmv_build b;
  agreed([&] { plan_requests(b, a, xd, yd, x_offsets, y_offsets); });
  const detail::byte_buffers asked = detail::exchange(std::move(b.requests));
  agreed([&] { plan_answers(b, asked, xd, yd, x_offsets, y_offsets); });
  return std::move(b.plan);
}

std::shared_ptr<const spmv_plan> cached_spmv_plan(const sparse_domain<2>& a, const domain<1>& xd,
                                                  const domain<1>& yd) {
  auto& cache = access::state(a)->caches.template get<spmv_plans>();
  const placement_key xk = key_of(state_of(xd)), yk = key_of(state_of(yd));
  const std::uint64_t version = a.version();
  using entry = spmv_plans::entry;
  const auto& e = find_or_build(
      cache.entries, spmv_plans::capacity,
      [&](const entry& e) { return e.version == version && e.x.same_as(xk) && e.y.same_as(yk); },
      [&](const entry& e) { return e.version != version || e.x.expired() || e.y.expired(); },
      [&] { return entry{version, xk, yk, std::make_shared<const spmv_plan>(build_spmv_plan(a, xd, yd))}; });
  return e.plan;
}

}  // namespace dmap::detail
