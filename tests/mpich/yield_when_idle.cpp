// Preloaded into ctest's MPI jobs under DMAP_MPI=mpich (CMake option DMAP_MPICH_YIELD): a rank
// waiting in MPI gives its core away, as Open MPI's ranks do with mpi_yield_when_idle. MPICH 4.0's
// ch4 device polls without yielding and has no setting that makes it yield
// (MPIR_CVAR_POLLS_BEFORE_YIELD is the ch3 device's): with more ranks than cores, a waiting rank
// spins through its time slice while the rank it waits for is not running, and every collective
// takes about a scheduler tick (docs/building.md, "MPI implementations"). Debian's MPICH is built
// for ch4:ucx, whose progress loop calls UCX's ucp_worker_progress once per poll; this definition
// of it calls UCX's and, when the poll found nothing to do, yields the core, and after many such
// polls in a row sleeps for a moment: with twice as many ranks as cores, yielding alone left the
// unit suite at 4 locales over 280 s, sleeping too took it to 113 s (2026-11-28). Test support
// only: no program of dmap's needs it, and with another MPI or device it is never called.
#include <dlfcn.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>

extern "C" {
struct ucp_worker;
/// UCX's ucp_worker_progress; when it progressed nothing, sched_yield(), or a short sleep after
/// idle_polls_before_sleep such polls in a row on this thread.
unsigned ucp_worker_progress(ucp_worker* worker);
}

namespace {
using progress_function = unsigned (*)(ucp_worker*);
constexpr unsigned idle_polls_before_sleep = 64;
thread_local unsigned idle_polls = 0;

// UCX's own ucp_worker_progress: the next definition after this library's, or, when libucp was
// loaded into a local scope (Python loads mpi4py's and dmap's modules with RTLD_LOCAL, and the
// MPI library and UCX with them), the one of the libucp already loaded. Looked up at the first
// call, when MPI runs and UCX is loaded.
progress_function ucx_progress() {
  static const progress_function next = [] {
    if (void* found = dlsym(RTLD_NEXT, "ucp_worker_progress")) return reinterpret_cast<progress_function>(found);
    void* ucp = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD);
    return ucp != nullptr ? reinterpret_cast<progress_function>(dlsym(ucp, "ucp_worker_progress")) : nullptr;
  }();
  return next;
}
}  // namespace

extern "C" unsigned ucp_worker_progress(ucp_worker* worker) {
  const progress_function next = ucx_progress();
  if (next == nullptr) {  // MPI would never progress: say so rather than hang
    static const char why[] = "yield_when_idle: UCX's ucp_worker_progress not found; unset LD_PRELOAD\n";
    (void)!write(2, why, sizeof why - 1);
    std::abort();
  }
  const unsigned progressed = next(worker);
  if (progressed != 0) {
    idle_polls = 0;
  } else if (++idle_polls < idle_polls_before_sleep) {
    sched_yield();
  } else {
    idle_polls = 0;
    const timespec moment{0, 1000};
    nanosleep(&moment, nullptr);
  }
  return progressed;
}
