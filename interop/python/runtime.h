// The module's runtime: the one dmap::environment (attached to an mpi4py communicator),
// the registry of live dmap objects, the deferred, agreed release of dead ones, and the
// translation of dmap's exceptions into the Python classes dmap.Error, dmap.ArgumentError, ...
//
// Why releases are deferred: freeing an array frees its MPI window, a collective call. Python
// frees objects when their last reference goes, which is the same point on every rank in an
// SPMD program, but not always (reference cycles freed by the garbage collector, a traceback
// one rank keeps longer). So an object Python drops is only moved to a list of dead objects;
// the module frees, in creation order, the ones dead on every locale, at its next creation of
// a domain or array (collective anyway), at dmap.collect() and at dmap.finalize(). Every
// locale creates the same objects in the same order, so creation serials name them alike.
//
// Arrays a NumPy expression makes and drops (temporaries) are frequent, and making one costs
// far more than its elements' pass (an MPI window, page faults, a zero fill): the newest
// dead arrays wait in a small pool, and a new array of the same domain, dtype and rank takes
// one over (zeroed) instead. dmap.collect() empties the pool.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common.h"

namespace dmap::python {

/// What a released array's storage may serve again: an array of the same element type and
/// rank over the same domain (`domain`, a domain_handle, kept alive while the storage waits).
struct reuse_key {
  std::shared_ptr<void> domain;
  int dtype = -1;
  std::size_t rank = 0;
};

/// An object of the module that owns dmap state (a domain or an array): registered while
/// it lives, its state released by the registry (see the header comment).
class releasable {
 public:
  releasable();
  releasable(const releasable&) = delete;
  releasable& operator=(const releasable&) = delete;
  virtual ~releasable();
  /// The creation serial (the same object has the same serial on every locale).
  std::uint64_t serial() const noexcept { return serial_; }
  /// Moves the dmap state out (null when already released).
  virtual std::shared_ptr<void> take() noexcept = 0;

 protected:
  /// Hands the state to the registry (derived destructors call this): released at the next
  /// agreed sweep.
  void bury() noexcept;
  /// As bury(), but once it is dead on every locale the state waits in the reuse pool
  /// (take_reusable) instead of being freed, up to reuse_pool_limit states.
  void bury_reusable(reuse_key key) noexcept;

 private:
  std::uint64_t serial_;
};

/// Starts dmap on `comm` (an mpi4py communicator; None: MPI.COMM_WORLD). Collective.
/// argument_error when dmap already runs.
void init(py::object comm);
/// Starts dmap on MPI.COMM_WORLD unless it runs. Collective when it starts it.
void ensure_started();
/// True while dmap runs.
bool started() noexcept;
/// Releases every dmap object (live ones become unusable), then ends the environment; MPI
/// stays mpi4py's. Collective. A no-op when dmap does not run.
void finalize();
/// Collective: frees the objects Python dropped on every locale, except arrays that go to the
/// reuse pool (the newest reuse_pool_limit of them; `drain`: none, and the pool is emptied).
/// Returns how many states were freed.
std::size_t collect(bool drain = false);
/// The most released arrays whose storage waits for reuse: a new array of the same domain,
/// dtype and rank takes the oldest one (zeroed) instead of allocating and registering storage.
inline constexpr std::size_t reuse_pool_limit = 4;
/// The state of a released array waiting for reuse under (domain, dtype, rank), taken out of
/// the pool; null when none. Not collective: the pool is the same on every locale, since
/// arrays enter it at the agreed sweep of collect().
std::shared_ptr<void> take_reusable(const void* domain, int dtype, std::size_t rank);
/// Registers the exception classes in `m` and the translator of dmap's exceptions.
void register_exceptions(py::module_& m);
/// Throws runtime_error "released" for `who` when dmap no longer runs.
void check_running(const char* who);

}  // namespace dmap::python
