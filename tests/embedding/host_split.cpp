// Embedding: a host program that owns MPI splits MPI_COMM_WORLD into two halves and runs a
// separate dmap program on each, side by side (dmap::environment env{half}). Each half uses
// its own sizes, so a message crossing halves would give a wrong answer or a hang, which the
// ctest time limit catches. Checked on every rank: the locales are the half's ranks; loops,
// reductions, redistribution (A = B, Block -> Cyclic), misaligned zips, remote reads and error
// agreement work within the half; arrays created and freed by both halves at the same moment
// work (Open MPI's default one-sided component included); a host communicator that is null, or the environment of a
// host that has not initialised MPI, is refused with argument_error; without DMAP_NUM_THREADS
// the host's oneTBB parallelism limit is left alone; after the environment is destroyed MPI is
// still the host's and works. Prints "embedding: ok" on world rank 0 and exits 0 when all hold.
#include <dmap/dmap.hpp>

#include <mpi.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  std::printf("world rank %d: FAILED: %s\n", world_rank, what.c_str());
}

/// True when `f` throws E.
template <class E, class F>
bool throws(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const E&) {
    return true;
  } catch (...) {
    return false;
  }
  return false;
}

/// The dmap program each half runs over its `n` indices.
void half_program(int half_rank, int half_size, dmap::index_t n) {
  expect(dmap::here() == half_rank, "here() is the rank in the host's communicator");
  expect(dmap::num_locales() == half_size, "num_locales() is the size of the host's communicator");

  using dmap::idx;
  const dmap::rect<1> r{dmap::range(0, n)};
  dmap::domain<1> blocked(dmap::block<1>{}, r);
  dmap::domain<1> dealt(dmap::cyclic<1>{}, r);
  dmap::array<std::int64_t, 1> A(blocked), B(dealt), C(blocked);
  dmap::forall(blocked, [&](const idx<1>& i) { A.local(i) = i[0]; });
  const std::int64_t sum = n * (n - 1) / 2;
  expect(dmap::reduce(A, std::int64_t{0}) == sum, "reduce over a Block array of the half");

  B = A;  // redistribution within the half
  expect(dmap::reduce(B, std::int64_t{0}) == sum, "A = B from Block to Cyclic within the half");
  dmap::forall(dmap::zip(C, std::as_const(B)), [](std::int64_t& c, std::int64_t b) { c = 2 * b; });
  expect(dmap::reduce(C, std::int64_t{0}) == 2 * sum, "a misaligned zip within the half");
  expect(B[idx<1>{n - 1}] == n - 1, "a remote read within the half");

  // A failure on the half's last locale reaches every locale of the half, and only them.
  const bool agreed = throws<dmap::error>([&] {
    dmap::forall(blocked, [&](const idx<1>& i) {
      if (i[0] == n - 1) throw dmap::argument_error("thrown on purpose");
    });
  });
  expect(agreed, "a loop body's failure on one locale reaches every locale of the half");
  expect(dmap::reduce(A, std::int64_t{0}) == sum, "the half's dmap works after the failure");

  // Both halves create and free arrays at the same moment, small ones (an RMA window each)
  // and large ones (node-shared memory too): Open MPI names a window's shared file after its
  // communicator's context id, which the halves share, so creations must not overlap.
  const dmap::rect<1> big{dmap::range(0, 40000 + n)};
  dmap::domain<1> large(dmap::block<1>{}, big);
  bool churned = true;
  for (int k = 0; k < 30; ++k) {
    dmap::array<double, 1> small_one(dealt, static_cast<double>(k));
    dmap::array<double, 1> large_one(large, static_cast<double>(k));
    small_one[dmap::rect<1>{dmap::range(0, 1)}] = static_cast<double>(k + 1);
    churned = churned && small_one[idx<1>{0}] == k + 1 && large_one[idx<1>{big.size() - 1}] == k;
  }
  expect(churned, "arrays created and freed while the other half does the same");
}

}  // namespace

int main(int argc, char** argv) {
  // Before MPI starts, a host communicator cannot be attached to.
  expect(throws<dmap::argument_error>([] { dmap::environment early{MPI_COMM_WORLD}; }),
         "environment(host) before MPI_Init is an argument_error");

  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  expect(throws<dmap::argument_error>([] { dmap::environment null_host{MPI_COMM_NULL}; }),
         "environment(MPI_COMM_NULL) is an argument_error");

  // Halves: the lower ranks in order, the upper ranks in reverse order (so that locale ids are
  // not world ranks). One rank: a single half.
  const int colour = world_rank < (world_size + 1) / 2 ? 0 : 1;
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, colour, colour == 0 ? world_rank : -world_rank, &half);
  int half_rank = 0, half_size = 1;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);

  {
    // The host sets oneTBB's limit above the cores; without DMAP_NUM_THREADS dmap must leave it
    // alone (a limit of dmap's own would lower it: the smallest active limit wins).
    using oneapi::tbb::global_control;
    const std::size_t host_limit = static_cast<std::size_t>(oneapi::tbb::info::default_concurrency()) + 6;
    global_control host_cap(global_control::max_allowed_parallelism, host_limit);
    const bool threads_asked = std::getenv("DMAP_NUM_THREADS") != nullptr;
    try {
      dmap::environment env{half};
      expect(threads_asked || global_control::active_value(global_control::max_allowed_parallelism) == host_limit,
             "the host's oneTBB parallelism limit is left alone");
      half_program(half_rank, half_size, colour == 0 ? 1000 : 777);
      expect(throws<dmap::runtime_error>([&] { dmap::environment second{half}; }),
             "a second live environment is a runtime_error");
    } catch (const std::exception& e) {
      expect(false, std::string("the half's program threw: ") + e.what());
    }
  }

  // MPI is still the host's: not finalised, and usable on the whole world.
  int finalized = 0;
  MPI_Finalized(&finalized);
  expect(!finalized, "destroying the environment does not finalise the host's MPI");
  int worst = 0;
  MPI_Allreduce(&failures, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank == 0) std::printf(worst == 0 ? "embedding: ok on %d ranks\n" : "embedding: FAILED on %d ranks\n", world_size);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return worst == 0 ? 0 : 1;
}
