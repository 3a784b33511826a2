// forall over a 2-D array of each distribution against a raw oneTBB loop over the same local
// memory, and locale_of throughput against the hand-written owner formula (for a map kept
// in a directory: batched locales_of against a table of the whole map), in the same run.
//   mpirun -n P --bind-to none ./bench_dists [n=4096] [repetitions=9]
#include <dmap/dmap.hpp>
#include <dmap/runtime/detail/thread_pool.hpp>

#include "timing.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using dmap::idx;
using dmap::index_t;

using bench::median_times;

void line(const std::string& name, index_t n, double dmap_rate, double base_rate, const char* unit,
          const dmap::comm_counters& c) {
  if (dmap::here() != 0) return;
  std::printf("bench %s ranks=%d threads=%d transfers=%s n=%lld dmap=%.1f baseline=%.1f unit=%s ratio=%.3f msgs=%llu "
              "bytes=%llu min_bytes=0\n",
              name.c_str(), dmap::num_locales(), dmap::num_threads(), bench::transfers_field(), static_cast<long long>(n), dmap_rate,
              base_rate, unit, dmap_rate / base_rate, static_cast<unsigned long long>(c.messages_sent),
              static_cast<unsigned long long>(c.bytes_sent));
}

// forall(zip(B, A), b = s*a + 1) against the same update as a flat oneTBB loop over the
// locale's whole buffers (every owned element, in storage order).
void forall_case(const std::string& name, const dmap::domain<2>& D, int reps) {
  dmap::array<double, 2> A{D, 1.0}, B{D};
  const double s = 1.0001;
  double* b = B.local_blocks().empty() ? nullptr : B.local_blocks().front().base;
  const double* a = A.local_blocks().empty() ? nullptr : A.local_blocks().front().base;
  const auto count = static_cast<std::size_t>(B.local_size());  // dense local arrays: no gaps
  dmap::reset_counters();
  dmap::forall(dmap::zip(B, std::as_const(A)), [s](double& y, const double& x) { y = s * x + 1.0; });
  const auto counters = dmap::counters();
  const auto [td, tb] = median_times(
      reps,
      [&] { dmap::forall(dmap::zip(B, std::as_const(A)), [s](double& y, const double& x) { y = s * x + 1.0; }); },
      [&] {
        dmap::detail::locale_arena().execute([&] {
          oneapi::tbb::parallel_for(
              oneapi::tbb::blocked_range<std::size_t>(0, count, std::max<std::size_t>(1, count / dmap::num_threads())),
              [&](const oneapi::tbb::blocked_range<std::size_t>& r) {
                double* __restrict pb = b;
                const double* __restrict pa = a;
                for (std::size_t i = r.begin(); i < r.end(); ++i) pb[i] = s * pa[i] + 1.0;
              },
              oneapi::tbb::static_partitioner{});
        });
      });
  const double elements = static_cast<double>(D.size());
  line("dists_forall_" + name, D.size(), elements / td / 1e6, elements / tb / 1e6, "Melem/s", counters);
}

// 2^20 random indices of D, the same on every locale and in every case.
std::vector<idx<2>> random_points(const dmap::domain<2>& D) {
  std::mt19937_64 gen(7);
  std::vector<idx<2>> points(1 << 20);
  for (auto& p : points)
    p = idx<2>{D.dim(0).index_at(static_cast<index_t>(gen() % static_cast<std::uint64_t>(D.dim(0).size()))),
               D.dim(1).index_at(static_cast<index_t>(gen() % static_cast<std::uint64_t>(D.dim(1).size())))};
  return points;
}

// locale_of over a fixed list of random indices against a hand-written formula.
template <class Formula>
void locale_of_case(const std::string& name, const dmap::domain<2>& D, Formula formula, int reps) {
  const std::vector<idx<2>> points = random_points(D);
  long long sum_dmap = 0, sum_base = 0;
  const auto [td, tb] = median_times(
      reps,
      [&] {
        long long s = 0;
        for (const auto& p : points) s += D.locale_of(p);
        sum_dmap = s;
      },
      [&] {
        long long s = 0;
        for (const auto& p : points) s += formula(p);
        sum_base = s;
      });
  if (sum_dmap != sum_base) {
    std::fprintf(stderr, "bench_dists: locale_of of %s disagrees with the formula\n", name.c_str());
    std::exit(1);
  }
  const double m = static_cast<double>(points.size());
  line("dists_locale_of_" + name, static_cast<index_t>(points.size()), m / td / 1e6, m / tb / 1e6, "Mlookups/s",
       dmap::comm_counters{});
}

// locales_of over the same random indices through the directory of a map no formula
// describes, against a lookup in a table of the whole map held by every locale (what one
// writes by hand when memory allows). msgs/bytes: the one-sided directory reads issued.
void directory_lookup_case(const std::string& name, const dmap::domain<2>& D, const std::vector<int>& owner_table,
                           int reps) {
  const std::vector<idx<2>> points = random_points(D);
  long long sum_dmap = 0, sum_base = 0;
  dmap::reset_counters();
  (void)D.locales_of(points);
  const auto once = dmap::counters();
  const auto [td, tb] = median_times(
      reps,
      [&] {
        long long s = 0;
        for (int q : D.locales_of(points)) s += q;
        sum_dmap = s;
      },
      [&] {
        long long s = 0;
        for (const auto& p : points) s += owner_table[static_cast<std::size_t>(D.indices().order_of(p))];
        sum_base = s;
      });
  if (sum_dmap != sum_base) {
    std::fprintf(stderr, "bench_dists: locales_of of %s disagrees with the table\n", name.c_str());
    std::exit(1);
  }
  const double m = static_cast<double>(points.size());
  dmap::comm_counters reads{};
  reads.messages_sent = once.messages_received;
  reads.bytes_sent = once.bytes_received;
  line("dists_locales_of_" + name, static_cast<index_t>(points.size()), m / td / 1e6, m / tb / 1e6, "Mlookups/s",
       reads);
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const index_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 9;
  const dmap::rect<2> space{{0, n}, {0, n}};
  const dmap::target_grid<2> grid;
  const int p0 = grid.extent(0), p1 = grid.extent(1);

  const dmap::domain<2> block{dmap::block<2>{grid}, space};
  const dmap::domain<2> cyclic{dmap::cyclic<2>{std::nullopt, grid}, space};
  const dmap::domain<2> bc64{dmap::block_cyclic<2>{{64, 64}, grid}, space};
  const dmap::domain<2> bc8{dmap::block_cyclic<2>{{8, 8}, grid}, space};
  std::vector<index_t> cuts0, cuts1;
  for (int k = 1; k < p0; ++k) cuts0.push_back(n * k * k / (p0 * p0));  // deliberately uneven
  for (int k = 1; k < p1; ++k) cuts1.push_back(n * k / p1);
  const dmap::domain<2> irregular{dmap::irregular_block<2>{{cuts0, cuts1}, grid}, space};

  forall_case("block", block, reps);
  forall_case("cyclic", cyclic, reps);
  forall_case("block_cyclic_64", bc64, reps);
  forall_case("block_cyclic_8", bc8, reps);
  forall_case("irregular", irregular, reps);
  // Maps kept in a directory: rows of 16 dealt by a mapper, and whole rows listed per locale
  // in shuffled order (both store runs of a row, so pieces stay few).
  const int p = dmap::num_locales();
  const auto stripes = [](const idx<2>& i, int locales) { return static_cast<int>((i[0] / 16) % locales); };
  const dmap::domain<2> hashed{dmap::hashed<2, decltype(stripes)>{stripes, "stripes16"}, space};
  std::vector<index_t> row_order(static_cast<std::size_t>(n));
  for (index_t r = 0; r < n; ++r) row_order[static_cast<std::size_t>(r)] = r;
  std::shuffle(row_order.begin(), row_order.end(), std::mt19937_64(11));
  std::vector<int> row_owner(static_cast<std::size_t>(n));
  std::vector<idx<2>> mine;
  for (index_t k = 0; k < n; ++k) {
    const index_t r = row_order[static_cast<std::size_t>(k)];
    row_owner[static_cast<std::size_t>(r)] = static_cast<int>(k % p);
    if (k % p == dmap::here())
      for (index_t c = 0; c < n; ++c) mine.push_back(idx<2>{r, c});
  }
  const dmap::domain<2> unstructured{dmap::unstructured<2>{std::move(mine)}, space};
  forall_case("hashed_stripes16", hashed, reps);
  forall_case("unstructured_rows", unstructured, reps);

  locale_of_case("block", block, [&](const idx<2>& i) {
    return static_cast<int>(i[0] * p0 / n) * p1 + static_cast<int>(i[1] * p1 / n);
  }, reps);
  locale_of_case("cyclic", cyclic, [&](const idx<2>& i) {
    return static_cast<int>(i[0] % p0) * p1 + static_cast<int>(i[1] % p1);
  }, reps);
  locale_of_case("block_cyclic_64", bc64, [&](const idx<2>& i) {
    return static_cast<int>((i[0] / 64) % p0) * p1 + static_cast<int>((i[1] / 64) % p1);
  }, reps);
  locale_of_case("irregular", irregular, [&](const idx<2>& i) {
    const int r = static_cast<int>(std::upper_bound(cuts0.begin(), cuts0.end(), i[0]) - cuts0.begin());
    const int c = static_cast<int>(std::upper_bound(cuts1.begin(), cuts1.end(), i[1]) - cuts1.begin());
    return r * p1 + c;
  }, reps);
  locale_of_case("hashed_stripes16", hashed, [&](const idx<2>& i) { return stripes(i, p); }, reps);
  std::vector<int> table(static_cast<std::size_t>(n * n));
  for (index_t r = 0; r < n; ++r)
    std::fill_n(table.begin() + r * n, n, row_owner[static_cast<std::size_t>(r)]);
  directory_lookup_case("unstructured_rows", unstructured, table, reps);
  return 0;
}
