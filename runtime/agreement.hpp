// Error agreement: an exception raised on one locale inside a collective operation
// reaches every locale with the original message, so no locale is left waiting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "collectives.hpp"
#include "detail/agreement.hpp"

namespace dmap {

/// Collective: if `failure` is set on any locale, the lowest such locale's error is thrown
/// on every locale: the original exception where it was raised, a `remote_failure` of the
/// same dmap error family with the same message elsewhere. Returns normally otherwise.
/// When `args` names a call, every locale's argument fingerprint is compared in the same
/// reduction: when no locale failed, locales that passed different arguments throw
/// argument_error on every locale (naming the call, the lowest locale that differs from locale
/// 0 and this locale's arguments). A failure comes first: its message is the more precise. Returns the bitwise or of every locale's
/// `bits` (flags a caller agrees on in the same reduction).
inline std::uint64_t agree(std::exception_ptr failure, const detail::call_arguments& args = {},
                           std::uint64_t bits = 0) {
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

/// Collective: agreed(local_part), comparing the call's `args` in the same reduction (see
/// agree): different arguments on some locale are an argument_error on every locale. `args` is
/// read after `local_part` ran, so `local_part` may complete its fingerprint (of data it reads).
template <class F>
auto agreed(const detail::call_arguments& args, F&& local_part) -> std::invoke_result_t<F&> {
  using result = std::invoke_result_t<F&>;
  std::exception_ptr failure;
  if constexpr (std::is_void_v<result>) {
    try {
      local_part();
    } catch (...) {
      failure = std::current_exception();
    }
    agree(failure, args);
  } else {
    std::optional<result> value;
    try {
      value.emplace(local_part());
    } catch (...) {
      failure = std::current_exception();
    }
    agree(failure, args);
    return std::move(*value);
  }
}

/// Collective: runs `local_part` (which must not communicate), then agrees on failure:
/// if it threw on any locale, every locale throws (see `agree`). Returns its result.
template <class F>
auto agreed(F&& local_part) -> std::invoke_result_t<F&> {
  return agreed(detail::call_arguments{}, std::forward<F>(local_part));
}

}  // namespace dmap
