// Scale: what a locale spends on domains and plans as the machine grows.
//  (a) weak scaling on the ranks it runs on (131,072 doubles per locale whatever P): main
//      thread CPU seconds and heap bytes of domain creation and of plan building (the slowest
//      locale), and the run of the plan against hand-written MPI_Alltoallv (1-D) or the
//      hand-computed neighbour list (halo);
//  (b) the scale model: one locale's plan for simulated machines of 1,024 to 65,536 locales,
//      CPU seconds and peak heap bytes, against the hand-computed list of its peers.
// Lines: bench <case> ranks=<P> threads=1 n=<elements> dmap=<s> baseline=<s> unit=s
//        ratio=<baseline/dmap> msgs=<sent by rank 0> bytes=<sent by rank 0> min_bytes=<...>
//        plan_cpu_s=<max> plan_bytes=<max> domain_cpu_s=<max>   (weak)
//        bench model_<case> locales=<P> ... dmap=<s> baseline=<s> plan_bytes=<peak heap growth>
#include <dmap/dmap.hpp>
#include <dmap/algorithms/assignment_plan.hpp>
#include <dmap/algorithms/plan_model.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <new>
#include <vector>

#include "timing.hpp"

// Heap accounting: bytes live and their peak, over every allocation of the process.
namespace {
std::atomic<long long> live_bytes{0}, peak_bytes{0};
void note(long long delta) {
  const long long now = live_bytes.fetch_add(delta) + delta;
  long long peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {}
}
}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<std::size_t*>(p) = n;
  note(static_cast<long long>(n));
  return static_cast<char*>(p) + 16;
}
void operator delete(void* p) noexcept {
  if (!p) return;
  void* base = static_cast<char*>(p) - 16;
  note(-static_cast<long long>(*static_cast<std::size_t*>(base)));
  std::free(base);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace {

using dmap::index_t;

double thread_cpu() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// CPU seconds of `f` on this thread and the heap growth it leaves behind.
template <class F>
std::pair<double, long long> cost_of(F&& f) {
  const long long before = live_bytes.load();
  const double t0 = thread_cpu();
  f();
  return {thread_cpu() - t0, live_bytes.load() - before};
}

// CPU seconds of `f` and its peak heap growth (what it allocated at most at once).
template <class F>
std::pair<double, long long> peak_of(F&& f) {
  const long long before = live_bytes.load();
  peak_bytes.store(before);
  const double t0 = thread_cpu();
  f();
  return {thread_cpu() - t0, peak_bytes.load() - before};
}

constexpr index_t per_locale = 131072;

void print_weak(const char* name, index_t n, double dmap_s, double base_s, const dmap::comm_counters& c,
                index_t min_bytes, double plan_cpu, long long plan_bytes, double domain_cpu) {
  const double plan_cpu_max = dmap::all_reduce_max(plan_cpu), domain_cpu_max = dmap::all_reduce_max(domain_cpu);
  const long long plan_bytes_max = dmap::all_reduce_max(plan_bytes);
  if (dmap::here() == 0)
    std::printf("bench %s ranks=%d threads=1 transfers=%s n=%lld dmap=%.6f baseline=%.6f unit=s ratio=%.3f msgs=%llu bytes=%llu "
                "min_bytes=%lld plan_cpu_s=%.6f plan_bytes=%lld domain_cpu_s=%.6f\n",
                name, dmap::num_locales(), bench::transfers_field(), static_cast<long long>(n), dmap_s, base_s, base_s / dmap_s,
                static_cast<unsigned long long>(c.messages_sent), static_cast<unsigned long long>(c.bytes_sent),
                static_cast<long long>(min_bytes), plan_cpu_max, plan_bytes_max, domain_cpu_max);
}

// BlockCyclic(8) -> Block, 1-D: dmap's plan against hand-written counts + MPI_Alltoallv.
void weak_block_cyclic_to_block() {
  const int p = dmap::num_locales(), me = dmap::here();
  const index_t n = per_locale * p;
  const dmap::rect<1> line{dmap::range(0, n)};
  double domain_cpu = 0;
  std::optional<dmap::domain<1>> from, to;
  domain_cpu += cost_of([&] { from.emplace(dmap::block_cyclic<1>(dmap::idx<1>{8}), line); }).first;
  domain_cpu += cost_of([&] { to.emplace(dmap::block<1>{}, line); }).first;
  dmap::array<double, 1> a(*to, 0.0), b(*from, 1.0);
  std::optional<dmap::assignment_plan<double, 1>> plan;
  const auto [plan_cpu, plan_bytes] = cost_of([&] { plan.emplace(dmap::plan_assignment(a, b)); });

  // Hand-written, as well as it can be done by hand: this locale's block-cyclic elements are
  // in index order, so each Block owner's share is one contiguous run of them (sent from
  // storage, no packing); what arrives from peer q is q's blocks of 8 within this locale's
  // Block part, in order, unpacked to their places.
  const index_t chunk = n / p;  // n is a multiple of p, chunk of 8
  std::vector<double> mine(static_cast<std::size_t>(per_locale), 1.0), got(mine.size()), placed(mine.size());
  std::vector<int> sc(static_cast<std::size_t>(p)), rc(static_cast<std::size_t>(p)), sd(sc.size()), rd(sc.size());
  for (index_t k = me; k < n / 8; k += p) sc[static_cast<std::size_t>(k * 8 / chunk)] += 8;
  for (index_t k = me * chunk / 8; k < (me + 1) * chunk / 8; ++k)  // my Block part's blocks, by owner
    rc[static_cast<std::size_t>(k % p)] += 8;
  for (int q = 1; q < p; ++q) sd[q] = sd[q - 1] + sc[q - 1], rd[q] = rd[q - 1] + rc[q - 1];
  const index_t first_block = me * chunk / 8, end_block = (me + 1) * chunk / 8;
  const auto baseline = [&] {
    MPI_Alltoallv(mine.data(), sc.data(), sd.data(), MPI_DOUBLE, got.data(), rc.data(), rd.data(), MPI_DOUBLE,
                  MPI_COMM_WORLD);
    for (int q = 0; q < p; ++q) {
      const double* in = got.data() + rd[static_cast<std::size_t>(q)];
      index_t k = first_block + ((q - first_block) % p + p) % p;  // the first of q's blocks in my part
      for (; k < end_block; k += p, in += 8) std::copy(in, in + 8, placed.data() + (k - first_block) * 8);
    }
  };
  const auto [dmap_s, base_s] = bench::median_batch_times(7, 40, [&] { plan->run(); }, baseline);
  const auto c = bench::counters_of_repeat([&] { plan->run(); });
  print_weak("scale_weak_bc8_to_block", n, dmap_s, base_s, c, 0, plan_cpu, plan_bytes, domain_cpu);
}

// Row blocks -> column blocks, 2-D (an all-to-all: every locale meets every other).
void weak_rows_to_columns() {
  const int p = dmap::num_locales();
  const dmap::rect<2> square{dmap::range(0, 256 * p), dmap::range(0, 512)};
  double domain_cpu = 0;
  std::optional<dmap::domain<2>> from, to;
  domain_cpu += cost_of([&] { from.emplace(dmap::block<2>(dmap::target_grid<2>({p, 1})), square); }).first;
  domain_cpu += cost_of([&] { to.emplace(dmap::block<2>(dmap::target_grid<2>({1, p})), square); }).first;
  dmap::array<double, 2> a(*to, 0.0), b(*from, 1.0);
  std::optional<dmap::assignment_plan<double, 2>> plan;
  const auto [plan_cpu, plan_bytes] = cost_of([&] { plan.emplace(dmap::plan_assignment(a, b)); });
  // Hand-written: the counts per peer by formula, pack rows into column strips, Alltoallv.
  const index_t rows = 256, cols = 512;
  std::vector<int> sc(static_cast<std::size_t>(p)), sd(sc.size());
  for (int q = 0; q < p; ++q) {
    const index_t c0 = cols * q / p, c1 = cols * (q + 1) / p;
    sc[static_cast<std::size_t>(q)] = static_cast<int>(rows * (c1 - c0));
    if (q) sd[q] = sd[q - 1] + sc[q - 1];
  }
  std::vector<double> local(static_cast<std::size_t>(rows * cols), 1.0), packed(local.size()), got(local.size());
  const auto baseline = [&] {
    std::size_t at = 0;
    for (int q = 0; q < p; ++q)
      for (index_t r = 0; r < rows; ++r)
        for (index_t c = cols * q / p; c < cols * (q + 1) / p; ++c) packed[at++] = local[static_cast<std::size_t>(r * cols + c)];
    MPI_Alltoallv(packed.data(), sc.data(), sd.data(), MPI_DOUBLE, got.data(), sc.data(), sd.data(), MPI_DOUBLE,
                  MPI_COMM_WORLD);
  };
  const auto [dmap_s, base_s] = bench::median_batch_times(7, 40, [&] { plan->run(); }, baseline);
  const auto c = bench::counters_of_repeat([&] { plan->run(); });
  print_weak("scale_weak_rows_to_columns", square.size(), dmap_s, base_s, c, 0, plan_cpu, plan_bytes, domain_cpu);
}

// 3-D periodic stencil: the halo plan (first update minus a repeat), against the
// hand-computed list of the 26 neighbours' ranks.
void weak_halo_3d() {
  const int p = dmap::num_locales();
  const auto grid = dmap::target_grid<3>::balanced(p);
  const auto g = grid.shape();
  const dmap::rect<3> cube{dmap::range(0, 32 * g[0]), dmap::range(0, 32 * g[1]), dmap::range(0, 128 * g[2])};
  const dmap::stencil<3> map(dmap::idx<3>{1, 1, 1}, {true, true, true});
  std::optional<dmap::domain<3>> d;
  const double domain_cpu = cost_of([&] { d.emplace(map, cube); }).first;
  dmap::array<double, 3> a(*d, 1.0);
  const auto [first_cpu, plan_bytes] = cost_of([&] { dmap::update_halos(a); });
  const double repeat_cpu = cost_of([&] { dmap::update_halos(a); }).first;
  std::vector<int> neighbours;
  const auto baseline = [&] {
    neighbours.clear();
    const auto c = grid.coords_of(dmap::here());
    for (int x = -1; x <= 1; ++x)
      for (int y = -1; y <= 1; ++y)
        for (int z = -1; z <= 1; ++z)
          if (x || y || z)
            neighbours.push_back(grid.locale_at({(c[0] + x + g[0]) % g[0], (c[1] + y + g[1]) % g[1], (c[2] + z + g[2]) % g[2]}));
  };
  const double base_s = cost_of(baseline).first;
  const double plan_cpu = std::max(0.0, first_cpu - repeat_cpu);
  const auto [dmap_s, ignored] = bench::median_times(5, [&] { dmap::update_halos(a); }, [] {});
  (void)ignored;
  const auto c = bench::counters_of_repeat([&] { dmap::update_halos(a); });
  print_weak("scale_weak_halo_3d", cube.size(), plan_cpu, base_s, c, 0, plan_cpu, plan_bytes, domain_cpu);
  (void)dmap_s;
}

// (b) One locale's plan for simulated machines.
void modelled(int p) {
  const int me = p / 2 + 1;
  const dmap::target_grid<1> line_grid({p}, p);
  const dmap::rect<1> line{dmap::range(0, per_locale * p)};
  const auto report = [&](const char* name, index_t n, std::pair<double, long long> cost, double base_s,
                          const dmap::plan_summary& s) {
    std::printf("bench model_%s locales=%d locale=%d threads=1 n=%lld dmap=%.6f baseline=%.6f unit=s ratio=%.3f "
                "msgs=%zu bytes=%lld min_bytes=%lld plan_bytes=%lld peers=%zu\n",
                name, p, me, static_cast<long long>(n), cost.first, base_s, base_s / cost.first, s.messages_sent(),
                static_cast<long long>(s.elements_sent * 8), static_cast<long long>(s.elements_sent * 8), cost.second,
                s.send_peers.size() + s.receive_peers.size());
  };
  dmap::plan_summary s;
  std::vector<int> peers;
  {  // Block -> Cyclic: hand-computed peers are the cyclic owners of the block's indices.
    const auto cost = peak_of([&] {
      s = dmap::model_assignment(dmap::cyclic<1>(std::nullopt, line_grid), line, dmap::block<1>(line_grid), line, me, p);
    });
    const double base = cost_of([&] {
      peers.clear();
      for (index_t i = me * per_locale; i < (me + 1) * per_locale && peers.size() < static_cast<std::size_t>(p); ++i)
        peers.push_back(static_cast<int>(i % p));
    }).first;
    report("block_to_cyclic", line.size(), cost, base, s);
  }
  {  // BlockCyclic(8) -> Block
    const auto cost = peak_of([&] {
      s = dmap::model_assignment(dmap::block<1>(line_grid), line, dmap::block_cyclic<1>(dmap::idx<1>{8}, line_grid),
                                 line, me, p);
    });
    const double base = cost_of([&] {
      peers.clear();
      for (index_t k = me * per_locale / 8; k < (me + 1) * per_locale / 8; ++k) peers.push_back(static_cast<int>(k % p));
    }).first;
    report("bc8_to_block", line.size(), cost, base, s);
  }
  {  // rows -> columns, 2-D
    const dmap::rect<2> square{dmap::range(0, 2 * static_cast<index_t>(p)), dmap::range(0, 65536)};
    const dmap::target_grid<2> rows({p, 1}, p), cols({1, p}, p);
    const auto cost = peak_of([&] {
      s = dmap::model_assignment(dmap::block<2>(cols), square, dmap::block<2>(rows), square, me, p);
    });
    const double base = cost_of([&] {
      peers.clear();
      for (int q = 0; q < p; ++q) peers.push_back(q);
    }).first;
    report("rows_to_columns", square.size(), cost, base, s);
  }
  {  // 3-D periodic halo
    const auto grid = dmap::target_grid<3>(dmap::target_grid<3>::balanced(p).shape(), p);
    const auto g = grid.shape();
    const dmap::rect<3> cube{dmap::range(0, 32 * g[0]), dmap::range(0, 32 * g[1]), dmap::range(0, 128 * g[2])};
    const auto cost = peak_of([&] {
      s = dmap::model_halo_update(dmap::stencil<3>(dmap::idx<3>{1, 1, 1}, {true, true, true}, grid), cube, me, p);
    });
    const double base = cost_of([&] {
      peers.clear();
      const auto c = grid.coords_of(me);
      for (int x = -1; x <= 1; ++x)
        for (int y = -1; y <= 1; ++y)
          for (int z = -1; z <= 1; ++z)
            if (x || y || z)
              peers.push_back(grid.locale_at({(c[0] + x + g[0]) % g[0], (c[1] + y + g[1]) % g[1], (c[2] + z + g[2]) % g[2]}));
    }).first;
    report("halo_3d", cube.size(), cost, base, s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env(argc, argv);
  weak_block_cyclic_to_block();
  weak_rows_to_columns();
  weak_halo_3d();
  if (dmap::here() == 0 && dmap::num_locales() == 1)
    for (int p : {1024, 4096, 16384, 65536}) modelled(p);
  return 0;
}
