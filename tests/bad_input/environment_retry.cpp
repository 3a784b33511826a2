// A rejected setting (DMAP_NUM_THREADS, DMAP_NODE_TRANSFERS, DMAP_NODE_MIN_BYTES or DMAP_NODE_SIZE, from the
// ctest environment) must throw argument_error before MPI starts, so the program can correct
// it, create the environment again and end cleanly (an MPI job whose processes never finalise
// ends "exited improperly"). Exit 0 on success.
#include <dmap/dmap.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  try {
    dmap::environment rejected(argc, argv);
    std::printf("the bad setting was accepted; it must be refused\n");
    return 1;
  } catch (const dmap::argument_error& e) {
    std::printf("refused as it must be: %s\n", e.what());
  }
  unsetenv("DMAP_NODE_TRANSFERS");
  unsetenv("DMAP_NODE_MIN_BYTES");
  unsetenv("DMAP_NODE_SIZE");
  setenv("DMAP_NUM_THREADS", "2", 1);
  dmap::environment env(argc, argv);
  dmap::domain<1> D(dmap::block<1>{}, dmap::rect<1>{dmap::range(0, 1001)});
  const auto sum = dmap::reduce(D, std::int64_t{0}, std::plus<>{}, [](const dmap::idx<1>& i) { return i[0]; });
  if (sum != 1000 * 1001 / 2 || dmap::num_threads() != 2) {
    std::printf("after the retry: sum %lld, %d threads\n", static_cast<long long>(sum), dmap::num_threads());
    return 1;
  }
  if (dmap::here() == 0) std::printf("environment retried: %d locales, 2 threads, sum right\n", dmap::num_locales());
  return 0;
}
