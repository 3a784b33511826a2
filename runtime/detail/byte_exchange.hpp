// Byte-level plumbing of the library's collectives: buffers of bytes per locale, values to
// and from bytes, a broadcast of raw bytes and the all-to-all exchange of byte buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../agreement.hpp"
#include "../collectives.hpp"
#include "collective_calls.hpp"
#include "messages.hpp"

namespace dmap::detail {

/// Copies `bytes` bytes at `data` from locale `root` to every locale (counted as payload:
/// the root sends one message per other locale, each other locale receives one). `root`
/// must be in [0, num_locales()) (argument_error otherwise).
inline void broadcast_bytes(void* data, std::size_t bytes, int root) {
  auto& e = env();
  check_root(root, "dmap::detail::broadcast_bytes");
  count_collective();
  if (bytes > static_cast<std::size_t>(INT32_MAX))
    throw unsupported_error("dmap::detail::broadcast_bytes: " + std::to_string(bytes) + " bytes exceed 2^31-1");
  check_mpi(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, e.comm()), "MPI_Bcast");
  if (e.rank() == root) {
    e.counters().messages_sent += static_cast<std::uint64_t>(e.size() - 1);
    e.counters().bytes_sent += static_cast<std::uint64_t>(e.size() - 1) * bytes;
  } else {
    ++e.counters().messages_received;
    e.counters().bytes_received += bytes;
  }
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

/// Sends the bytes `outgoing[p]` (which stay where they are, valid until it returns) to every
/// other locale p and leaves in `incoming[p]` what each other locale sent here (`incoming` is
/// resized to one buffer per locale; entry here() is left alone, and what `outgoing[here()]`
/// names is not copied). Only non-empty spans travel: one message per peer and direction. One
/// all-to-all of sizes and one all-reduce that agrees on the receive buffers' allocation. The
/// receive buffers keep their capacity (resized, not made anew): a caller that keeps them from
/// call to call allocates, and faults pages in, only when its messages grow. `Buffers` is a
/// vector of byte vectors (of any allocator: pooled_vector<std::byte> receives into the pool).
/// `before` is a failure this locale had while making its messages (then it sends nothing): the
/// same all-reduce carries it, and when any locale failed, before or allocating, no message
/// travels and every locale throws the failure through agree() (the first failing locale's).
/// A caller whose messages may fail to be made thus needs no agreement of its own first.
template <class Buffers = byte_buffers>
void exchange_spans_into(const std::vector<std::span<const std::byte>>& outgoing, Buffers& incoming,
                         std::exception_ptr before = nullptr) {
  auto& e = env();
  const int p = e.size();
  const int me = e.rank();
  if (static_cast<int>(outgoing.size()) != p)
    throw argument_error("dmap::detail::exchange: outgoing has " + std::to_string(outgoing.size()) +
                         " buffers, must have one per locale (" + std::to_string(p) + ")");
  std::vector<std::uint64_t> send_sizes(p), recv_sizes(p);
  for (int q = 0; q < p; ++q) send_sizes[q] = q == me || before ? 0 : outgoing[q].size();
  count_collective();
  check_mpi(MPI_Alltoall(send_sizes.data(), 1, MPI_UINT64_T, recv_sizes.data(), 1,
                                 MPI_UINT64_T, e.comm()),
                    "MPI_Alltoall");
  // The receive buffers are allocated before any message moves, and one collective tells
  // every locale whether some locale failed, before the exchange or allocating them; then
  // agree() throws the failure everywhere. Messages over message_piece_bytes travel in pieces.
  std::exception_ptr failure = before;
  if (!failure) {
    try {
      incoming.resize(static_cast<std::size_t>(p));
      for (int q = 0; q < p; ++q)
        if (q != me) incoming[q].resize(recv_sizes[q]);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (all_reduce_max(std::uint64_t{failure ? 1u : 0u}) != 0) {
    agree(failure);  // throws on every locale
    throw runtime_error("dmap::detail::exchange: a locale failed, yet the agreement found no failure");
  }
  message_batch batch(0x646d);
  for (int q = 0; q < p; ++q)
    if (q != me) batch.receive(q, incoming[q].data(), recv_sizes[q]);
  for (int q = 0; q < p; ++q)
    if (q != me) batch.send(q, outgoing[q].data(), send_sizes[q]);
  batch.wait();
}

/// exchange_spans_into into new buffers: returns what each other locale sent here (entry
/// here() empty).
inline byte_buffers exchange_spans(const std::vector<std::span<const std::byte>>& outgoing) {
  byte_buffers incoming;
  exchange_spans_into(outgoing, incoming);
  return incoming;
}

/// Sends `outgoing[p]` to every locale p and leaves in `incoming[p]` what each locale sent
/// here (see exchange_spans_into: the buffers keep their capacity, and a failure `before` of
/// any locale is thrown on every locale); the buffer to oneself is swapped with
/// incoming[here()] without communication.
inline void exchange_into(byte_buffers& outgoing, byte_buffers& incoming, std::exception_ptr before = nullptr) {
  // (After a failure `outgoing` may not be whole: nothing of it travels.)
  std::vector<std::span<const std::byte>> spans(before ? static_cast<std::size_t>(env().size()) : outgoing.size());
  if (!before)
    for (std::size_t q = 0; q < outgoing.size(); ++q) spans[q] = outgoing[q];
  exchange_spans_into(spans, incoming, before);
  std::swap(incoming[static_cast<std::size_t>(env().rank())], outgoing[static_cast<std::size_t>(env().rank())]);
}

/// Sends `outgoing[p]` to every locale p and returns what each locale sent here (see
/// exchange_into); the buffer to oneself is moved without communication.
inline byte_buffers exchange(byte_buffers outgoing) {
  byte_buffers incoming;
  exchange_into(outgoing, incoming);
  return incoming;
}

}  // namespace dmap::detail
