// Associative domains: 2^21 random 64-bit keys in all (drawn from 2^20 values, so about 40%
// repeat), spread over the locales, against hand-written MPI + std::unordered_map code in the
// same run (owners from the same placement function, MPI_Alltoall of counts, MPI_Alltoallv of
// the keys, inserts at the owner):
//   assoc_add         D.add(keys) into an empty domain       vs  route + unordered_set inserts
//   assoc_accumulate  A.accumulate(keys, ones) (word count)  vs  route (key, 1) + map[key] += 1
//   assoc_get         A.get(keys) (values in the caller's order)  vs  route, look up, route back
//   assoc_reduce      reduce(A)                              vs  a sum over the map's values
//   mpirun -n P --bind-to none ./bench_associative [log2_keys=21] [repetitions=7]
#include <dmap/dmap.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "timing.hpp"

namespace {

using key = std::int64_t;

// Hand-written routing: each item to the locale `owner(item)` names, with MPI_Alltoall(v).
template <class Item, class Owner>
std::vector<Item> route(const std::vector<Item>& items, Owner&& owner, std::vector<int>* order = nullptr) {
  const int p = dmap::num_locales();
  std::vector<int> counts(static_cast<std::size_t>(p), 0), incoming(static_cast<std::size_t>(p));
  std::vector<int> to(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) ++counts[static_cast<std::size_t>(to[k] = owner(items[k]))];
  std::vector<int> sdispl(static_cast<std::size_t>(p), 0), rdispl(static_cast<std::size_t>(p), 0);
  for (int q = 1; q < p; ++q) sdispl[static_cast<std::size_t>(q)] = sdispl[static_cast<std::size_t>(q - 1)] + counts[static_cast<std::size_t>(q - 1)];
  std::vector<Item> packed(items.size());
  std::vector<int> fill = sdispl;
  if (order) order->resize(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) {
    const int at = fill[static_cast<std::size_t>(to[k])]++;
    packed[static_cast<std::size_t>(at)] = items[k];
    if (order) (*order)[static_cast<std::size_t>(at)] = static_cast<int>(k);
  }
  MPI_Alltoall(counts.data(), 1, MPI_INT, incoming.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  std::vector<int> sbytes(static_cast<std::size_t>(p)), sb_displ(static_cast<std::size_t>(p)), rbytes(static_cast<std::size_t>(p)),
      rb_displ(static_cast<std::size_t>(p));
  for (int q = 0; q < p; ++q) {
    const auto u = static_cast<std::size_t>(q);
    rdispl[u] = total;
    total += incoming[u];
    sbytes[u] = counts[u] * static_cast<int>(sizeof(Item)), sb_displ[u] = sdispl[u] * static_cast<int>(sizeof(Item));
    rbytes[u] = incoming[u] * static_cast<int>(sizeof(Item)), rb_displ[u] = rdispl[u] * static_cast<int>(sizeof(Item));
  }
  std::vector<Item> received(static_cast<std::size_t>(total));
  MPI_Alltoallv(packed.data(), sbytes.data(), sb_displ.data(), MPI_BYTE, received.data(), rbytes.data(), rb_displ.data(),
                MPI_BYTE, MPI_COMM_WORLD);
  return received;
}

}  // namespace

int main(int argc, char** argv) {
  dmap::environment env{argc, argv};
  const int log2_keys = argc > 1 ? std::atoi(argv[1]) : 21;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 7;
  const int p = dmap::num_locales();
  const std::int64_t total = std::int64_t{1} << log2_keys;
  std::vector<key> keys;
  {
    std::mt19937_64 gen(static_cast<std::uint64_t>(77 + dmap::here()));
    for (std::int64_t k = 0; k < total / p; ++k) keys.push_back(static_cast<key>(gen() % static_cast<std::uint64_t>(total / 2)));
  }
  const dmap::hash_placement<dmap::key_hash<key>> place{};
  const auto owner = [&](key k) { return place(k, p); };
  std::uint64_t sent_by_0 = 0, asked_of_0 = 0;  // keys locale 0 sends; keys others ask of it
  for (key k : keys) {
    if (dmap::here() == 0) sent_by_0 += owner(k) != 0;
    else asked_of_0 += owner(k) == 0;
  }
  asked_of_0 = dmap::all_reduce_sum(asked_of_0);

  // assoc_add
  std::int64_t dmap_size = 0, base_size = 0;
  const auto add_dmap = [&] {
    dmap::associative_domain<key> d;
    d.add(keys);
    dmap_size = d.size();
  };
  const auto add_base = [&] {
    const auto mine = route(keys, owner);
    std::unordered_set<key> set(mine.begin(), mine.end());
    base_size = dmap::all_reduce_sum(static_cast<std::int64_t>(set.size()));
  };
  auto [t_add, b_add] = bench::median_times(reps, add_dmap, add_base);
  bench::print_seconds("assoc_add", total, t_add, b_add, bench::counters_of_repeat(add_dmap), sent_by_0 * sizeof(key));

  // assoc_accumulate: a word count of the keys.
  dmap::associative_domain<key> d;
  d.add(keys);
  dmap::associative_array<std::int64_t, key> counts(d, 0);
  const std::vector<std::int64_t> ones(keys.size(), 1);
  std::unordered_map<key, std::int64_t> base_counts;
  const auto acc_dmap = [&] { counts.accumulate(keys, ones); };
  const auto acc_base = [&] {
    struct item {
      key k;
      std::int64_t v;
    };
    std::vector<item> items(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) items[k] = {keys[k], 1};
    for (const item& i : route(items, [&](const item& i) { return owner(i.k); })) base_counts[i.k] += i.v;
  };
  auto [t_acc, b_acc] = bench::median_times(reps, acc_dmap, acc_base);
  bench::print_seconds("assoc_accumulate", total, t_acc, b_acc, bench::counters_of_repeat(acc_dmap), sent_by_0 * (sizeof(key) + 8));

  // assoc_get: every locale reads the counts of its keys, in its order.
  std::vector<std::int64_t> got, got_base;
  const auto get_dmap = [&] { got = counts.get(keys); };
  const auto get_base = [&] {
    std::vector<int> order;
    const auto asked = route(keys, owner, &order);
    // Answers go back the way the questions came: the same counts, reversed.
    std::vector<std::int64_t> answers(asked.size());
    for (std::size_t k = 0; k < asked.size(); ++k) answers[k] = base_counts[asked[k]];
    // How many questions each locale sent and received, for the reverse Alltoallv.
    std::vector<int> sent(static_cast<std::size_t>(p), 0), arrived(static_cast<std::size_t>(p));
    for (key k : keys) ++sent[static_cast<std::size_t>(owner(k))];
    MPI_Alltoall(sent.data(), 1, MPI_INT, arrived.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> ab(static_cast<std::size_t>(p)), ad(static_cast<std::size_t>(p)), sbk(static_cast<std::size_t>(p)),
        sd(static_cast<std::size_t>(p));
    int a = 0, s = 0;
    for (int q = 0; q < p; ++q) {
      const auto u = static_cast<std::size_t>(q);
      ab[u] = arrived[u] * 8, ad[u] = a, a += ab[u];
      sbk[u] = sent[u] * 8, sd[u] = s, s += sbk[u];
    }
    std::vector<std::int64_t> replies(keys.size());
    MPI_Alltoallv(answers.data(), ab.data(), ad.data(), MPI_BYTE, replies.data(), sbk.data(), sd.data(), MPI_BYTE,
                  MPI_COMM_WORLD);
    got_base.resize(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) got_base[static_cast<std::size_t>(order[k])] = replies[k];
  };
  auto [t_get, b_get] = bench::median_times(reps, get_dmap, get_base);
  bench::print_seconds("assoc_get", total, t_get, b_get, bench::counters_of_repeat(get_dmap),
        sent_by_0 * sizeof(key) + asked_of_0 * sizeof(std::int64_t));

  // assoc_reduce
  std::int64_t sum_dmap = 0, sum_base = 0;
  auto [t_red, b_red] = bench::median_times(
      reps, [&] { sum_dmap = dmap::reduce(counts, std::int64_t{0}); },
      [&] {
        std::int64_t local = 0;
        for (const auto& [k, v] : base_counts) local += v;
        sum_base = dmap::all_reduce_sum(local);
      });
  bench::print_seconds("assoc_reduce", dmap_size, t_red, b_red, bench::counters_of_repeat([&] { (void)dmap::reduce(counts, std::int64_t{0}); }), 0);

  // The two sides must agree: one word count each, read back by every locale.
  dmap::associative_array<std::int64_t, key> once(d, 0);
  once.accumulate(keys, ones);
  const auto counted = once.get(keys);
  base_counts.clear();
  acc_base();
  get_base();
  std::int64_t base_total = 0;
  for (const auto& [k, v] : base_counts) base_total += v;
  const bool ok = dmap_size == base_size && counted == got_base &&
                  dmap::reduce(once, std::int64_t{0}) == dmap::all_reduce_sum(base_total) &&
                  dmap::reduce(once, std::int64_t{0}) == total;
  (void)sum_dmap, (void)sum_base, (void)got;
  if (dmap::here() == 0 && !ok)
    std::printf("# MISMATCH: sizes %lld / %lld, sums %lld / %lld\n", static_cast<long long>(dmap_size),
                static_cast<long long>(base_size), static_cast<long long>(sum_dmap), static_cast<long long>(sum_base));
  return dmap::all_of_locales(ok) ? 0 : 1;
}
