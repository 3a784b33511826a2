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
std::uint64_t agree(std::exception_ptr failure, const detail::call_arguments& args = {}, std::uint64_t bits = 0);

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
