// The machinery of error agreement (runtime/agreement.hpp): the reduction of agreement
// records, argument fingerprints, and rethrowing another locale's failure.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>

#include "../errors.hpp"
#include "mpi_calls.hpp"

namespace dmap::detail {

/// The reduction of agreement records (runtime/agreement.hpp): records of six 64-bit words,
/// the first five combined by minimum, the sixth by bitwise or.
inline void combine_agreement_records(void* in, void* inout, int* count, MPI_Datatype*) {
  const auto* a = static_cast<const std::uint64_t*>(in);
  auto* b = static_cast<std::uint64_t*>(inout);
  for (int k = 0; k + 6 <= *count; k += 6) {
    for (int w = 0; w < 5; ++w) b[k + w] = std::min(a[k + w], b[k + w]);
    b[k + 5] |= a[k + 5];
  }
}

/// Throws remote_failure of the family `kind`, carrying `message` first raised on `origin`.
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

/// A 64-bit fingerprint of a collective call's arguments (FNV-1a over their bytes), which
/// every locale compares: values, index sets, the identities of the arrays involved.
class fingerprint {
 public:
  /// Adds the bytes of `v` (a trivially copyable value).
  template <class V>
    requires std::is_trivially_copyable_v<V>
  fingerprint& add(const V& v) {
    return add_bytes(&v, sizeof(V));
  }
  /// Adds `n` bytes at `p`.
  fingerprint& add_bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t k = 0; k < n; ++k) h_ = (h_ ^ b[k]) * 1099511628211ull;
    return *this;
  }
  /// Adds an element value: its bytes when they say everything about it (arithmetic types,
  /// std::complex, types without padding); nothing for other types, whose padding bytes may
  /// differ between locales holding equal values.
  template <class V>
  fingerprint& add_value(const V& v) {
    if constexpr (std::is_arithmetic_v<V> || std::has_unique_object_representations_v<V> ||
                  std::is_same_v<V, std::complex<float>> || std::is_same_v<V, std::complex<double>>)
      return add_bytes(&v, sizeof(V));
    else
      return *this;
  }
  /// Adds `n` bytes at `p` quickly (eight bytes a step, four independent lanes): for large
  /// buffers such as a whole NumPy array every locale passes.
  fingerprint& add_buffer(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    std::uint64_t lane[4] = {h_, h_ ^ 0x9e3779b97f4a7c15ull, h_ ^ 0xc2b2ae3d27d4eb4full, h_ ^ 0x165667b19e3779f9ull};
    std::size_t k = 0;
    for (; k + 32 <= n; k += 32)
      for (int l = 0; l < 4; ++l) {
        std::uint64_t w;
        std::memcpy(&w, b + k + 8 * l, 8);
        lane[l] = (lane[l] ^ w) * 0xff51afd7ed558ccdull;
        lane[l] ^= lane[l] >> 32;
      }
    for (int l = 0; l < 4; ++l) add(lane[l]);
    add(n);
    return add_bytes(b + k, n - k);
  }
  /// Adds the characters of `text`.
  fingerprint& add(std::string_view text) { return add_bytes(text.data(), text.size()); }
  /// The fingerprint so far.
  std::uint64_t value() const noexcept { return h_; }

 private:
  std::uint64_t h_ = 1469598103934665603ull;
};

/// The first exception `f` throws, or null (a check whose failure a collective agrees on).
template <class F>
std::exception_ptr exception_of(F&& f) noexcept {
  try {
    f();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

/// The arguments of one collective call as this locale passed them: the call's name, their
/// fingerprint, and a description for the error when locales disagree.
struct call_arguments {
  const char* who = nullptr;                  ///< the call, e.g. "dmap::array::operator="
  std::uint64_t fingerprint = 0;              ///< of every argument that must agree
  std::function<std::string()> describe;      ///< this locale's arguments, in words
};

}  // namespace dmap::detail
