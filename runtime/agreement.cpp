// The compiled part of runtime/agreement.hpp: the one reduction every agreement makes.
#include "agreement.hpp"

namespace dmap {

std::uint64_t agree(std::exception_ptr failure, const detail::call_arguments& args, std::uint64_t bits) {
  const int p = num_locales();
  if (p == 1) {
    if (failure) std::rethrow_exception(failure);
    return bits;
  }
  // Every agreement is one reduction of the same record: the lowest failing locale, the
  // least and greatest number of collective operations the locales have completed (equal at
  // every collective call, else some one-sided read would wait for an operation that never
  // completes), the least and greatest argument fingerprint, and the callers' flags. Two
  // locales that reach different agreements (a call on one, another on the other) still
  // pair them up, and see different fingerprints instead of waiting for each other.
  auto& e = detail::env();
  const std::uint64_t done = e.collectives_completed();
  const std::uint64_t mine[6] = {static_cast<std::uint64_t>(failure ? here() : p), done, ~done, args.fingerprint,
                                 ~args.fingerprint, bits};
  std::uint64_t all[6] = {0, 0, 0, 0, 0, 0};
  detail::count_collective();
  detail::check_mpi(MPI_Allreduce(mine, all, 6, MPI_UINT64_T, e.agreement_op(), e.comm()), "MPI_Allreduce(agreement)");
  if (all[1] != ~all[2])
    throw runtime_error("dmap: the locales have completed different numbers of collective operations (from " +
                        std::to_string(all[1]) + " to " + std::to_string(~all[2]) +
                        ") at an agreement: a collective operation of dmap's was not entered by every locale "
                        "(this is a bug in dmap; please report it)");
  const int first_failed = static_cast<int>(all[0]);
  if (first_failed == p) {
    if (all[3] != ~all[4]) {
      // Only on this error path: who differs from locale 0.
      std::uint64_t first = args.fingerprint;
      broadcast(first, 0);
      const int q = all_reduce_min(args.fingerprint != first ? here() : p);
      std::string message = std::string(args.who ? args.who : "dmap") + ": locales 0 and " + std::to_string(q) +
                            " passed different arguments";
      if (args.describe) message += " (here, on locale " + std::to_string(here()) + ": " + args.describe() + ")";
      message += "; it is a collective call and every locale must pass the same arguments";
      throw argument_error(message);
    }
    return all[5];
  }
  std::string message;
  auto kind = static_cast<std::int32_t>(error_kind::generic);
  if (here() == first_failed) {
    try {
      std::rethrow_exception(failure);
    } catch (const error& e) {
      message = e.what();
      kind = static_cast<std::int32_t>(e.kind());
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "unknown exception (not derived from std::exception)";
    }
  }
  broadcast(kind, first_failed);
  broadcast(message, first_failed);
  if (here() == first_failed) std::rethrow_exception(failure);
  detail::throw_remote(static_cast<error_kind>(kind), message, first_failed);
}

}  // namespace dmap
