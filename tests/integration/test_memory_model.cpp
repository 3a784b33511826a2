// The memory model (docs/guide/memory-model.md): once a collective operation that writes
// elements has returned on a locale, every read of any element from that locale sees what the
// operation wrote, with no barrier. Each case runs rounds of "write with the collective, then
// read elements of other locales at once" and counts stale reads (a value older than the
// round), through A[i] and fetch, with node-shared storage (direct loads) and without (MPI
// one-sided reads).
#include "../support.hpp"

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

namespace test_memory_model {

namespace {

// Rounds per case: 2,000 by default, unless DMAP_MEMORY_MODEL_ROUNDS says otherwise.
int rounds() {
  const char* v = std::getenv("DMAP_MEMORY_MODEL_ROUNDS");
  return v != nullptr ? std::atoi(v) : 2000;
}

// Rounds of a slow case (resizes, files, scans): rounds() / divisor in the suite, all of
// rounds() with DMAP_MEMORY_MODEL_FULL=1 (the full check, run by hand: docs/testing.md).
int slow_rounds(int divisor) {
  const char* full = std::getenv("DMAP_MEMORY_MODEL_FULL");
  return std::max(1, full != nullptr && std::string(full) == "1" ? rounds() : rounds() / divisor);
}

// The node-transfer settings of a case: node-shared storage for every array, or none.
struct storage_mode {
  const char* name;
  dmap::node_transfer_settings settings;
};
const storage_mode storage_modes[] = {{"node-shared storage", {true, 0}}, {"private storage", {false, 0}}};

// Sets the node-transfer settings for the arrays a case makes, and restores them after.
class with_settings {
 public:
  explicit with_settings(const dmap::node_transfer_settings& s) : saved_(dmap::node_transfers()) {
    dmap::set_node_transfers(s);
  }
  ~with_settings() { dmap::set_node_transfers(saved_); }
  with_settings(const with_settings&) = delete;
  with_settings& operator=(const with_settings&) = delete;

 private:
  dmap::node_transfer_settings saved_;
};

// Reads `probes` (indices owned by other locales) of `a` through A[i] and through fetch, and
// counts the values below `round` (stale) or not whole rounds at all (garbage).
template <class Array, std::size_t N>
std::int64_t stale_reads(const Array& a, const std::vector<dmap::idx<N>>& probes, double round) {
  std::int64_t stale = 0;
  for (const auto& i : probes) {
    const double v = a[i];
    if (v < round || v != static_cast<double>(static_cast<std::int64_t>(v))) {
      if (stale < 3) UNSCOPED_INFO("locale " << dmap::here() << " read " << v << " at " << i << " in round " << round);
      ++stale;
    }
  }
  if (!probes.empty()) {
    std::vector<dmap::index_t> orders;
    for (const auto& i : probes) orders.push_back(a.domain().indices().order_of(i));
    std::vector<double> got(orders.size());
    a.fetch(orders, got.data());
    for (const double v : got)
      if (v < round) ++stale;
  }
  return stale;
}

// Up to `count` indices of `d` owned by the next locale (and the one after), spread over its part.
template <std::size_t N>
std::vector<dmap::idx<N>> probes_of(const dmap::domain<N>& d, int count) {
  std::vector<dmap::idx<N>> out;
  const int p = dmap::num_locales();
  if (p == 1) return out;
  for (int step = 1; step <= std::min(2, p - 1); ++step) {
    const int q = (dmap::here() + step) % p;
    std::vector<dmap::idx<N>> theirs;
    for (dmap::index_t k = 0; k < d.size(); ++k) {
      const auto i = d.indices().index_at(k);
      if (d.locale_of(i) == q) theirs.push_back(i);
    }
    for (int k = 0; k < count && !theirs.empty(); ++k)
      out.push_back(theirs[static_cast<std::size_t>(k) * theirs.size() / static_cast<std::size_t>(count)]);
  }
  return out;
}

// Runs `write(round)` and then the reads of `read(round)` for every round; every locale checks
// that no read was stale.
void check_rounds(const std::function<void(int)>& write, const std::function<std::int64_t(int)>& read) {
  std::int64_t stale = 0;
  const int n = rounds();
  for (int round = 1; round <= n; ++round) {
    write(round);
    stale += read(round);
  }
  INFO("stale reads on this locale: " << stale << " of " << n << " rounds");
  DMAP_CHECK_ALL(stale == 0);
}

}  // namespace

TEST_CASE("reads after A = B between Block and Cyclic are never stale", "[memory_model]") {
  for (const auto& mode : storage_modes) {
    DYNAMIC_SECTION(mode.name) {
      const with_settings s(mode.settings);
      const dmap::rect<1> r{dmap::range{0, 203}};
      dmap::domain Db{dmap::block<1>{}, r};
      dmap::domain Dc{dmap::cyclic<1>{}, r};
      dmap::array<double, 1> A{Db}, B{Dc};
      const auto probes = probes_of(Db, 4);
      check_rounds(
          [&](int round) {
            dmap::forall(B, [round](double& b) { b = round; });
            A = B;
          },
          [&](int round) { return stale_reads<decltype(A), 1>(A, probes, round); });
    }
  }
}

TEST_CASE("reads after rows are assigned from columns are never stale", "[memory_model]") {
  for (const auto& mode : storage_modes) {
    DYNAMIC_SECTION(mode.name) {
      const with_settings s(mode.settings);
      const int p = dmap::num_locales();
      const dmap::rect<2> r{{0, 13}, {0, 17}};
      dmap::domain Rows{dmap::block<2>{dmap::target_grid<2>({p, 1})}, r};
      dmap::domain Cols{dmap::block<2>{dmap::target_grid<2>({1, p})}, r};
      dmap::array<double, 2> A{Rows}, B{Cols};
      const auto probes = probes_of(Rows, 4);
      check_rounds(
          [&](int round) {
            dmap::forall(B, [round](double& b) { b = round; });
            A = B;
          },
          [&](int round) { return stale_reads<decltype(A), 2>(A, probes, round); });
    }
  }
}

TEST_CASE("reads after a view is assigned a value or another view are never stale", "[memory_model]") {
  for (const auto& mode : storage_modes) {
    DYNAMIC_SECTION(mode.name) {
      const with_settings s(mode.settings);
      const dmap::rect<2> r{{0, 11}, {0, 9}};
      dmap::domain D{dmap::block<2>{}, r};
      dmap::domain C{dmap::cyclic<2>{}, r};
      dmap::array<double, 2> A{D}, B{C};
      const auto probes = probes_of(D, 4);
      check_rounds([&](int round) { A[r] = round; },
                   [&](int round) { return stale_reads<decltype(A), 2>(A, probes, round); });
      const dmap::rect<2> top{{0, 10}, {0, 9}}, bottom{{1, 11}, {0, 9}};
      check_rounds(
          [&](int round) {
            B[r] = round;
            A[bottom] = B[top];
            A[{{0, 1}, {0, 9}}] = round;
          },
          [&](int round) { return stale_reads<decltype(A), 2>(A, probes, round); });
    }
  }
}

TEST_CASE("reads after forall bodies write elements are never stale", "[memory_model]") {
  for (const auto& mode : storage_modes) {
    DYNAMIC_SECTION(mode.name) {
      const with_settings s(mode.settings);
      const dmap::rect<1> r{dmap::range{0, 157}};
      dmap::domain D{dmap::block<1>{}, r};
      dmap::domain C{dmap::cyclic<1>{}, r};
      dmap::array<double, 1> A{D}, B{C};
      const auto probes = probes_of(D, 4);
      // Writes through captures (the engine cannot see them), then a zip with a staged follower.
      check_rounds([&](int round) { dmap::forall(D, [&](dmap::idx<1> i) { A.local(i) = round; }); },
                   [&](int round) { return stale_reads<decltype(A), 1>(A, probes, round); });
      const auto probes_c = probes_of(C, 4);
      check_rounds([&](int round) { dmap::forall(dmap::zip(A, B), [round](const double&, double& b) { b = round; }); },
                   [&](int round) { return stale_reads<decltype(B), 1>(B, probes_c, round); });
    }
  }
}

TEST_CASE("reads after set_indices are never stale", "[memory_model]") {
  for (const auto& mode : storage_modes) {
    DYNAMIC_SECTION(mode.name) {
      const with_settings s(mode.settings);
      dmap::domain D{dmap::block<1>{}, dmap::rect<1>{dmap::range{0, 64}}};
      dmap::array<double, 1> A{D};
      const int n = slow_rounds(10);  // a resize recreates windows: fewer rounds
      std::int64_t stale = 0;
      for (int round = 1; round <= n; ++round) {
        dmap::forall(A, [round](double& a) { a = round; });
        D.set_indices(dmap::rect<1>{dmap::range{round % 2 == 0 ? 0 : -7, 64 + round % 5}});
        // The survivors [0, 64) keep the round's value wherever they moved.
        std::vector<dmap::idx<1>> probes;
        for (const auto& i : probes_of(D, 4))
          if (i[0] >= 0 && i[0] < 64) probes.push_back(i);
        stale += stale_reads<decltype(A), 1>(A, probes, round);
      }
      DMAP_CHECK_ALL(stale == 0);
    }
  }
}

TEST_CASE("reads after a file is read into an array are never stale", "[memory_model]") {
  const std::string path = (std::filesystem::temp_directory_path() / "dmap_memory_model.npy").string();
  const dmap::rect<1> r{dmap::range{0, 97}};
  dmap::domain C{dmap::cyclic<1>{}, r};
  dmap::domain D{dmap::block<1>{}, r};
  dmap::array<double, 1> Src{C}, A{D};
  const auto probes = probes_of(D, 4);
  const int n = slow_rounds(20);  // files: fewer rounds
  std::int64_t stale = 0;
  for (int round = 1; round <= n; ++round) {
    dmap::forall(Src, [round](double& a) { a = round; });
    dmap::write_npy(path, Src);
    dmap::read_npy(path, A);
    stale += stale_reads<decltype(A), 1>(A, probes, round);
  }
  DMAP_CHECK_ALL(stale == 0);
  if (dmap::here() == 0) std::filesystem::remove(path);
}

TEST_CASE("reads after scans and halo reductions are never stale", "[memory_model]") {
  const dmap::rect<1> r{dmap::range{0, 131}};
  dmap::domain D{dmap::block<1>{}, r};
  dmap::domain C{dmap::cyclic<1>{}, r};
  dmap::array<double, 1> In{D}, Out{C};
  dmap::forall(In, [](double& a) { a = 0; });
  const auto probes = probes_of(C, 4);
  const int n = slow_rounds(4);
  std::int64_t stale = 0;
  for (int round = 1; round <= n; ++round) {
    // The running maximum of a constant array is the constant everywhere.
    dmap::forall(In, [round](double& a) { a = round; });
    dmap::inclusive_scan(In, Out, dmap::maximum{});
    stale += stale_reads<decltype(Out), 1>(Out, probes, round);
  }
  DMAP_CHECK_ALL(stale == 0);

  // Halo reductions write owned elements: the sum of a ghost frame of zeros leaves the round.
  dmap::domain S{dmap::stencil<1>{dmap::idx<1>{1}}, r};
  dmap::array<double, 1> H{S};
  // Indices in this locale's ghost frame read the local ghost copy (a cache refreshed by halo
  // updates, as Chapel's Stencil does): probe beyond it.
  std::vector<dmap::idx<1>> probes_s;
  for (const auto& i : probes_of(S, 8))
    if (!H.local_blocks().front().layout.indices.contains(i)) probes_s.push_back(i);
  stale = 0;
  for (int round = 1; round <= n; ++round) {
    H[r] = round;
    for (const auto& b : H.local_blocks())
      for (dmap::index_t k = b.layout.indices.dim(0).lo(); k < b.layout.indices.dim(0).hi(); ++k)
        if (!S.local_subdomains().front().contains(dmap::idx<1>{k})) b({k}) = 0;
    dmap::reduce_halos(H);
    stale += stale_reads<decltype(H), 1>(H, probes_s, round);
  }
  DMAP_CHECK_ALL(stale == 0);
}

TEST_CASE("reads after sparse and associative collectives are never stale", "[memory_model]") {
  const int n = slow_rounds(4);
  const int p = dmap::num_locales();
  // Sparse: every third index of a Block parent; a loop writes the values, then set() from
  // locale 0 alone (the others pass empty lists), then an assignment from another sparse domain.
  const dmap::rect<2> r{{0, 9}, {0, 8}};
  dmap::domain D{dmap::block<2>{}, r};
  dmap::domain C{dmap::cyclic<2>{}, r};
  std::vector<dmap::idx<2>> members;
  for (dmap::index_t k = 0; k < r.size(); ++k)
    if (k % 3 == 0) members.push_back(r.index_at(k));
  dmap::sparse_domain<2> S{D, dmap::csr_layout<2>{}}, T{C, dmap::coo_layout<2>{}};
  S.add(dmap::here() == 0 ? std::span<const dmap::idx<2>>(members) : std::span<const dmap::idx<2>>());
  T.add(dmap::here() == 0 ? std::span<const dmap::idx<2>>(members) : std::span<const dmap::idx<2>>());
  dmap::sparse_array<double, 2> A{S, 0.0}, B{T, 0.0};
  std::vector<dmap::idx<2>> probes;
  for (const auto& i : members)
    if (p > 1 && D.locale_of(i) == (dmap::here() + 1) % p && probes.size() < 4) probes.push_back(i);
  std::int64_t stale = 0;
  const auto read = [&](double round) {
    for (const auto& i : probes)
      if (static_cast<double>(A[i]) < round) ++stale;
  };
  for (int round = 1; round <= n; ++round) {
    dmap::forall(A, [round](double& a) { a = 3.0 * round - 2; });
    read(3.0 * round - 2);
    const std::vector<double> values(dmap::here() == 0 ? members.size() : 0, 3.0 * round - 1);
    A.set(dmap::here() == 0 ? std::span<const dmap::idx<2>>(members) : std::span<const dmap::idx<2>>(),
          std::span<const double>(values));
    read(3.0 * round - 1);
    dmap::forall(B, [round](double& b) { b = 3.0 * round; });
    A = B;
    read(3.0 * round);
  }
  DMAP_CHECK_ALL(stale == 0);

  // Associative: keys 0..99 (added by locale 0), written by a loop, then by set() from locale 0,
  // then accumulated; read one-sidedly from the keys' owners.
  dmap::associative_domain<std::int64_t> K;
  std::vector<std::int64_t> keys;
  for (std::int64_t k = 0; k < 100; ++k) keys.push_back(k);
  K.add(dmap::here() == 0 ? std::span<const std::int64_t>(keys) : std::span<const std::int64_t>());
  dmap::associative_array<double, std::int64_t> V{K, 0.0};
  std::vector<std::int64_t> remote_keys;
  for (const auto k : keys)
    if (p > 1 && K.locale_of(k) != dmap::here() && remote_keys.size() < 4) remote_keys.push_back(k);
  stale = 0;
  const auto read_keys = [&](double round) {
    for (const auto k : remote_keys)
      if (static_cast<double>(V[k]) < round) ++stale;
  };
  for (int round = 1; round <= n; ++round) {
    dmap::forall(V, [round](double& v) { v = 3.0 * round - 2; });
    read_keys(3.0 * round - 2);
    const std::vector<double> values(dmap::here() == 0 ? keys.size() : 0, 3.0 * round - 1);
    V.set(dmap::here() == 0 ? std::span<const std::int64_t>(keys) : std::span<const std::int64_t>(),
          std::span<const double>(values));
    read_keys(3.0 * round - 1);
    const std::vector<double> ones(dmap::here() == 0 ? keys.size() : 0, 1.0);
    V.accumulate(dmap::here() == 0 ? std::span<const std::int64_t>(keys) : std::span<const std::int64_t>(),
                 std::span<const double>(ones));
    read_keys(3.0 * round);
  }
  DMAP_CHECK_ALL(stale == 0);
}

}  // namespace test_memory_model
