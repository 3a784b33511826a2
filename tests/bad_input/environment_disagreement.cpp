// Node settings (DMAP_NODE_TRANSFERS, DMAP_NODE_MIN_BYTES, DMAP_NODE_SIZE, dmap::set_node_transfers)
// that differ between locales must be an argument_error on every locale, never a crash or a
// hang: every array's storage is chosen collectively from them. So must a malformed setting
// on one locale when MPI already runs. The last locale is given other settings than the
// rest. Modes:
//   embedded  the program starts MPI, hands dmap MPI_COMM_WORLD, and after the refusal
//             creates the environment again with agreeing settings (MPI stays the host's);
//   owned     dmap starts MPI (the last locale is found from the launcher's variables);
//             after the refusal MPI is finalised and the program ends cleanly.
// Prints "settings agreed" on locale 0 and exits 0 when every check held.
#include <dmap/dmap.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace {

// "" when `make` throws argument_error whose message holds `rule` (by default: the settings
// must agree), or what happened.
template <class F>
std::string refused(F&& make, const char* rule = "must be the same on every locale") {
  try {
    make();
    return "accepted";
  } catch (const dmap::argument_error& e) {
    if (std::strstr(e.what(), rule) == nullptr) return std::string("argument_error of another rule: ") + e.what();
    return "";
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
}

// The launcher's rank and size variables (Open MPI, MPICH/Hydra), for the owned mode.
int launcher_value(const char* open_mpi, const char* hydra, int fallback) {
  for (const char* name : {open_mpi, hydra})
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return std::atoi(v);
  return fallback;
}

int embedded() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool odd_one = size > 1 && rank == size - 1;
  std::string failure;
  // The environment variables, one at a time, set apart on the last locale.
  for (const char* setting : {"DMAP_NODE_TRANSFERS=0", "DMAP_NODE_MIN_BYTES=1", "DMAP_NODE_SIZE=1"}) {
    const std::string text = setting;
    const auto eq = text.find('=');
    if (odd_one) setenv(text.substr(0, eq).c_str(), text.substr(eq + 1).c_str(), 1);
    const std::string why = refused([] { dmap::environment env(MPI_COMM_WORLD); });
    if (size > 1 && !why.empty()) failure += std::string(setting) + " on the last locale only: " + why + "\n";
    if (size == 1 && why != "accepted") failure += std::string(setting) + " at one locale: " + why + "\n";
    unsetenv(text.substr(0, eq).c_str());
  }
  // A malformed setting on the last locale only: refused there before MPI is touched, and
  // agreed over the host's locales, so the others throw too instead of waiting in MPI.
  for (const char* setting :
       {"DMAP_NUM_THREADS=0", "DMAP_NODE_TRANSFERS=yes", "DMAP_NODE_MIN_BYTES=-1", "DMAP_NODE_SIZE=0"}) {
    const std::string text = setting;
    const auto eq = text.find('=');
    const bool here = size == 1 || odd_one;
    if (here) setenv(text.substr(0, eq).c_str(), text.substr(eq + 1).c_str(), 1);
    const std::string rule = text.substr(0, eq) + "=";
    const std::string why = refused([] { dmap::environment env(MPI_COMM_WORLD); }, rule.c_str());
    if (!why.empty()) failure += std::string(setting) + " on the last locale only: " + why + "\n";
    if (here) unsetenv(text.substr(0, eq).c_str());
  }
  {
    // The environment again, agreeing; then set_node_transfers set apart on the last locale.
    dmap::environment env(MPI_COMM_WORLD);
    const auto before = dmap::node_transfers();
    auto other = before;
    other.min_bytes = before.min_bytes + 1;
    const std::string why = refused([&] { dmap::set_node_transfers(odd_one ? other : before); });
    if (size > 1 && !why.empty()) failure += "set_node_transfers on the last locale only: " + why + "\n";
    if (size > 1 && !(dmap::node_transfers() == before)) failure += "a refused set_node_transfers changed the settings\n";
    dmap::set_node_transfers(before);  // agreeing: accepted everywhere
    dmap::domain<1> D(dmap::block<1>{}, dmap::rect<1>{dmap::range(0, 100001)});
    dmap::array<double, 1> A(D, 1.0);
    if (dmap::reduce(A, 0.0, std::plus<>{}) != 100001.0) failure += "the library fails after the refusals\n";
  }
  int bad = failure.empty() ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) std::printf("locale %d: %s", rank, failure.c_str());
  if (!any && rank == 0) std::printf("settings agreed (embedded, %d locales)\n", size);
  MPI_Finalize();
  return any;
}

int owned() {
  const int rank = launcher_value("OMPI_COMM_WORLD_RANK", "PMI_RANK", 0);
  const int size = launcher_value("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", 1);
  if (size > 1 && rank == size - 1) setenv("DMAP_NODE_TRANSFERS", "0", 1);
  const std::string why = refused([] { dmap::environment env; });
  if (size > 1 && !why.empty()) {
    std::printf("locale %d: DMAP_NODE_TRANSFERS=0 on the last locale only: %s\n", rank, why.c_str());
    return 1;
  }
  if (size == 1 && why != "accepted") {
    std::printf("one locale: %s\n", why.c_str());
    return 1;
  }
  if (rank == 0) std::printf("settings agreed (owned, %d locales)\n", size);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "embedded") return embedded();
  if (mode == "owned") return owned();
  std::printf("usage: %s embedded|owned\n", argv[0]);
  return 2;
}
