// Error agreement: an exception raised on one locale inside a collective operation
// reaches every locale with the original message, so no locale is left waiting.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "collectives.hpp"

namespace dmap {

/// The same failure, seen on a locale other than the one that raised it.
/// `what()` is the original message; `origin()` the locale that raised it.
template <class Base>
class remote_failure : public Base {
 public:
  /// The failure `message`, first raised on locale `origin`.
  remote_failure(const std::string& message, int origin) : Base(message), origin_(origin) {}
  /// The locale on which the error was first raised.
  int origin() const noexcept { return origin_; }

 private:
  int origin_;
};

namespace detail {
[[noreturn]] inline void throw_remote(error_kind kind, const std::string& message, int origin) {
  switch (kind) {
    case error_kind::argument: throw remote_failure<argument_error>(message, origin);
    case error_kind::shape: throw remote_failure<shape_error>(message, origin);
    case error_kind::not_local: throw remote_failure<not_local_error>(message, origin);
    case error_kind::out_of_bounds: throw remote_failure<out_of_bounds_error>(message, origin);
    case error_kind::unsupported: throw remote_failure<unsupported_error>(message, origin);
    case error_kind::runtime: throw remote_failure<runtime_error>(message, origin);
    case error_kind::io: throw remote_failure<io_error>(message, origin);
    case error_kind::format: throw remote_failure<format_error>(message, origin);
    case error_kind::generic: break;
  }
  throw remote_failure<error>(message, origin);
}
}  // namespace detail

/// Collective: if `failure` is set on any locale, the lowest such locale's error is thrown
/// on every locale: the original exception where it was raised, a `remote_failure` of the
/// same dmap error family with the same message elsewhere. Returns normally otherwise.
inline void agree(std::exception_ptr failure) {
  const int p = num_locales();
  if (p == 1) {
    if (failure) std::rethrow_exception(failure);
    return;
  }
  const int first_failed = all_reduce_min(failure ? here() : p);
  if (first_failed == p) return;
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

/// Collective: runs `local_part` (which must not communicate), then agrees on failure:
/// if it threw on any locale, every locale throws (see `agree`). Returns its result.
template <class F>
auto agreed(F&& local_part) -> std::invoke_result_t<F&> {
  using result = std::invoke_result_t<F&>;
  std::exception_ptr failure;
  if constexpr (std::is_void_v<result>) {
    try {
      local_part();
    } catch (...) {
      failure = std::current_exception();
    }
    agree(failure);
  } else {
    std::optional<result> value;
    try {
      value.emplace(local_part());
    } catch (...) {
      failure = std::current_exception();
    }
    agree(failure);
    return std::move(*value);
  }
}

}  // namespace dmap
