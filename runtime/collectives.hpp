// Typed wrappers of the MPI collectives dmap uses; each counts itself in the counters.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/messages.hpp"
#include "environment.hpp"

namespace dmap {

/// A value that can travel between locales as raw bytes.
template <class T>
concept transferable = std::is_trivially_copyable_v<T>;

namespace detail {

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, int>) return MPI_INT;
  else if constexpr (std::is_same_v<T, long>) return MPI_LONG;
  else if constexpr (std::is_same_v<T, long long>) return MPI_LONG_LONG;
  else if constexpr (std::is_same_v<T, unsigned>) return MPI_UNSIGNED;
  else if constexpr (std::is_same_v<T, unsigned long>) return MPI_UNSIGNED_LONG;
  else if constexpr (std::is_same_v<T, unsigned long long>) return MPI_UNSIGNED_LONG_LONG;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, long double>) return MPI_LONG_DOUBLE;
  else static_assert(sizeof(T) == 0, "dmap: no MPI datatype for this arithmetic type");
}

inline void count_collective() { ++env().counters().collectives; }

/// Marks the extent of one collective operation of dmap's public API (an assignment, a
/// loop, a resize, a file read, ...): when the outermost scope on a locale ends, the locale
/// publishes that it has completed one more operation, and one-sided reads of its memory by
/// locales that completed the same operation may proceed (the memory model,
/// docs/guide/memory-model.md). Every locale must open the same scopes in the same order;
/// nested scopes count once. Costs no message. Ignored on loop threads and for simulated
/// locales.
class collective_scope {
 public:
  collective_scope() : counted_(simulated == nullptr && current_environment != nullptr && env().on_main_thread()) {
    if (counted_) env().begin_collective();
  }
  collective_scope(const collective_scope&) = delete;
  collective_scope& operator=(const collective_scope&) = delete;
  ~collective_scope() {
    if (counted_ && current_environment != nullptr) current_environment->end_collective();
  }

 private:
  bool counted_;
};

/// Throws argument_error unless `root` names a locale (checked before any message, so a
/// root out of range on every locale fails everywhere alike).
inline void check_root(int root, const char* who) {
  if (root < 0 || root >= env().size())
    throw argument_error(std::string(who) + ": root is " + std::to_string(root) + "; it must be a locale in [0, " +
                         std::to_string(env().size()) + ")");
}

template <class T>
T all_reduce(T value, MPI_Op op, const char* name) {
  count_collective();
  T result{};
  check_mpi(MPI_Allreduce(&value, &result, 1, mpi_type<T>(), op, env().comm()), name);
  return result;
}

}  // namespace detail

/// Waits until every locale arrives.
inline void barrier() {
  detail::count_collective();
  detail::check_mpi(MPI_Barrier(detail::env().comm()), "MPI_Barrier");
}

/// The sum of `value` over all locales.
template <class T>
  requires std::is_arithmetic_v<T>
T all_reduce_sum(T value) { return detail::all_reduce(value, MPI_SUM, "MPI_Allreduce(sum)"); }
/// The minimum of `value` over all locales.
template <class T>
  requires std::is_arithmetic_v<T>
T all_reduce_min(T value) { return detail::all_reduce(value, MPI_MIN, "MPI_Allreduce(min)"); }
/// The maximum of `value` over all locales.
template <class T>
  requires std::is_arithmetic_v<T>
T all_reduce_max(T value) { return detail::all_reduce(value, MPI_MAX, "MPI_Allreduce(max)"); }
/// The bitwise or of `value` over all locales.
template <class T>
  requires std::is_integral_v<T> && std::is_unsigned_v<T>
T all_reduce_bit_or(T value) { return detail::all_reduce(value, MPI_BOR, "MPI_Allreduce(bor)"); }
/// The smallest and the largest `value` over all locales, {min, max}, from one reduction of
/// fixed size (the minima of `value` and of its complement).
inline std::pair<std::uint64_t, std::uint64_t> all_reduce_min_max(std::uint64_t value) {
  detail::count_collective();
  const std::uint64_t mine[2] = {value, ~value};
  std::uint64_t least[2] = {0, 0};
  detail::check_mpi(MPI_Allreduce(mine, least, 2, MPI_UINT64_T, MPI_MIN, detail::env().comm()),
                    "MPI_Allreduce(min, min)");
  return {least[0], ~least[1]};
}
/// True on every locale iff `value` is true on every locale.
inline bool all_of_locales(bool value) { return all_reduce_min(int{value}) != 0; }
/// True on every locale iff `value` is true on some locale.
inline bool any_of_locales(bool value) { return all_reduce_max(int{value}) != 0; }

/// Every locale's `value`, indexed by locale. O(P) memory and time per locale: agreement
/// checks use the fixed-size reductions above instead.
template <transferable T>
std::vector<T> all_gather(const T& value) {
  detail::count_collective();
  std::vector<T> result(static_cast<std::size_t>(num_locales()));
  detail::check_mpi(MPI_Allgather(&value, sizeof(T), MPI_BYTE, result.data(), sizeof(T), MPI_BYTE,
                                  detail::env().comm()),
                    "MPI_Allgather");
  return result;
}

/// Every locale's `values`, locale after locale (locale q's at [q * values.size(), (q + 1) *
/// values.size())). Every locale must pass the same number of values. One collective call;
/// O(P) memory per locale, like all_gather.
template <transferable T>
std::vector<T> all_gather_fixed(std::span<const T> values) {
  detail::count_collective();
  std::vector<T> result(values.size() * static_cast<std::size_t>(num_locales()));
  if (values.size_bytes() > static_cast<std::size_t>(INT32_MAX))
    throw unsupported_error("dmap::all_gather_fixed: " + std::to_string(values.size_bytes()) +
                            " bytes per locale exceed 2^31-1");
  const int bytes = static_cast<int>(values.size_bytes());
  detail::check_mpi(MPI_Allgather(values.data(), bytes, MPI_BYTE, result.data(), bytes, MPI_BYTE,
                                  detail::env().comm()),
                    "MPI_Allgather");
  return result;
}

/// Copies `value` from locale `root` to every locale. `root` must be in [0, num_locales())
/// (argument_error otherwise).
template <transferable T>
void broadcast(T& value, int root) {
  detail::check_root(root, "dmap::broadcast");
  detail::count_collective();
  detail::check_mpi(MPI_Bcast(&value, sizeof(T), MPI_BYTE, root, detail::env().comm()),
                    "MPI_Bcast");
}

/// Copies `bytes` bytes at `data` from locale `root` to every locale (counted as payload:
/// the root sends one message per other locale, each other locale receives one). `root`
/// must be in [0, num_locales()) (argument_error otherwise).
inline void broadcast_bytes(void* data, std::size_t bytes, int root) {
  auto& e = detail::env();
  detail::check_root(root, "dmap::broadcast_bytes");
  detail::count_collective();
  if (bytes > static_cast<std::size_t>(INT32_MAX))
    throw unsupported_error("dmap::broadcast_bytes: " + std::to_string(bytes) + " bytes exceed 2^31-1");
  detail::check_mpi(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, e.comm()), "MPI_Bcast");
  if (e.rank() == root) {
    e.counters().messages_sent += static_cast<std::uint64_t>(e.size() - 1);
    e.counters().bytes_sent += static_cast<std::uint64_t>(e.size() - 1) * bytes;
  } else {
    ++e.counters().messages_received;
    e.counters().bytes_received += bytes;
  }
}

/// Copies the string `text` from locale `root` to every locale (`root` in [0,
/// num_locales()); texts longer than 2^31 - 1 characters are an unsupported_error on every
/// locale).
inline void broadcast(std::string& text, int root) {
  detail::check_root(root, "dmap::broadcast");
  std::uint64_t length = text.size();
  broadcast(length, root);
  if (length > static_cast<std::uint64_t>(INT32_MAX))
    throw unsupported_error(std::string("dmap::broadcast: the text has ") + std::to_string(length) +
                            " characters; at most 2^31 - 1 travel in one broadcast");
  text.resize(length);
  detail::count_collective();
  detail::check_mpi(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root,
                              detail::env().comm()),
                    "MPI_Bcast");
}

/// One byte buffer per locale, indexed by locale: what a locale sends to / received from each.
using byte_buffers = std::vector<std::vector<std::byte>>;

/// The bytes of `values`, to put in a byte_buffers entry.
template <transferable T>
std::vector<std::byte> to_bytes(const std::vector<T>& values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}
/// The values of type T that to_bytes wrote into `bytes`.
template <transferable T>
std::vector<T> from_bytes(const std::vector<std::byte>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

/// Sends `outgoing[p]` to every locale p and returns what each locale sent here. Only
/// non-empty buffers travel: one message per peer and direction; the buffer to oneself is
/// moved without communication.
inline byte_buffers exchange(byte_buffers outgoing) {
  auto& e = detail::env();
  const int p = e.size();
  const int me = e.rank();
  if (static_cast<int>(outgoing.size()) != p)
    throw argument_error("dmap::exchange: outgoing has " + std::to_string(outgoing.size()) +
                         " buffers, must have one per locale (" + std::to_string(p) + ")");
  std::vector<std::uint64_t> send_sizes(p), recv_sizes(p);
  for (int q = 0; q < p; ++q) send_sizes[q] = outgoing[q].size();
  detail::count_collective();
  detail::check_mpi(MPI_Alltoall(send_sizes.data(), 1, MPI_UINT64_T, recv_sizes.data(), 1,
                                 MPI_UINT64_T, e.comm()),
                    "MPI_Alltoall");
  // The receive buffers are allocated before any message moves, and one collective tells
  // every locale whether some locale could not allocate (reported as 2^64-1 minus its id, so
  // the lowest failing locale is named). Messages over message_piece_bytes travel in pieces.
  constexpr std::uint64_t failed_mark = UINT64_MAX;
  byte_buffers incoming;
  std::exception_ptr failure;
  try {
    incoming.resize(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q)
      if (q != me) incoming[q].resize(recv_sizes[q]);
  } catch (...) {
    failure = std::current_exception();
  }
  const std::uint64_t worst = all_reduce_max(failure ? failed_mark - static_cast<std::uint64_t>(me) : 0);
  if (worst > failed_mark - static_cast<std::uint64_t>(p)) {
    if (failure) std::rethrow_exception(failure);
    throw runtime_error("dmap::exchange: locale " + std::to_string(failed_mark - worst) +
                        " could not allocate its receive buffers");
  }
  detail::message_batch batch(0x646d);
  for (int q = 0; q < p; ++q)
    if (q != me) batch.receive(q, incoming[q].data(), recv_sizes[q]);
  for (int q = 0; q < p; ++q)
    if (q != me) batch.send(q, outgoing[q].data(), send_sizes[q]);
  batch.wait();
  incoming[me] = std::move(outgoing[me]);
  return incoming;
}

}  // namespace dmap
