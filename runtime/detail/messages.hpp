// message_batch: point-to-point messages whose sizes both sides know in advance, posted
// together and completed together (no collective). Counted in the communication counters.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../environment.hpp"

namespace dmap::detail {

/// The largest MPI message a message_batch posts: longer messages travel as several pieces
/// of this size (the last one shorter), which both sides cut alike and MPI delivers in order
/// (same source, tag and communicator). 2^30 bytes, under MPI's int count; tests lower it to
/// cut ordinary transfers.
inline std::size_t message_piece_bytes = std::size_t{1} << 30;

/// A set of non-blocking sends and receives completed by one `wait()`.
class message_batch {
 public:
  message_batch() = default;
  /// A batch whose messages carry `tag` (so that they never match another protocol's
  /// messages in flight between the same locales).
  explicit message_batch(int tag) : tag_(tag) {}
  message_batch(const message_batch&) = delete;
  message_batch& operator=(const message_batch&) = delete;
  message_batch(message_batch&& other) noexcept : requests_(std::move(other.requests_)), tag_(other.tag_) {}
  message_batch& operator=(message_batch&& other) noexcept {
    wait_quietly();
    requests_ = std::move(other.requests_);
    tag_ = other.tag_;
    return *this;
  }
  /// Completes what is still pending (errors are not reported from a destructor).
  ~message_batch() { wait_quietly(); }

  /// Posts the receive of `bytes` bytes from locale `from` into `buffer` (in pieces of at
  /// most message_piece_bytes).
  void receive(int from, void* buffer, std::size_t bytes) {
    auto& c = env().counters();
    for_each_piece(bytes, [&](std::size_t done, int piece, MPI_Request* request) {
      check_mpi(MPI_Irecv(static_cast<std::byte*>(buffer) + done, piece, MPI_BYTE, from, tag_, env().comm(), request),
                "MPI_Irecv");
      ++c.messages_received;
      c.bytes_received += static_cast<std::uint64_t>(piece);
    });
  }
  /// Posts the send of `bytes` bytes at `buffer` to locale `to` (in pieces of at most
  /// message_piece_bytes); the buffer must stay valid until wait().
  void send(int to, const void* buffer, std::size_t bytes) {
    auto& c = env().counters();
    for_each_piece(bytes, [&](std::size_t done, int piece, MPI_Request* request) {
      check_mpi(MPI_Isend(static_cast<const std::byte*>(buffer) + done, piece, MPI_BYTE, to, tag_, env().comm(), request),
                "MPI_Isend");
      ++c.messages_sent;
      c.bytes_sent += static_cast<std::uint64_t>(piece);
    });
  }
  /// Completes every posted message.
  void wait() {
    if (requests_.empty()) return;
    const int code = MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(),
                                 MPI_STATUSES_IGNORE);
    requests_.clear();
    check_mpi(code, "MPI_Waitall");
  }

 private:
  // Calls `post(offset, length, request)` for each piece of a message of `bytes` bytes, in
  // order, with a new request slot: pieces of message_piece_bytes (within [1, 2^31 - 1]), the
  // last one shorter. Both sides cut a message alike, and MPI delivers the pieces in order.
  template <class Post>
  void for_each_piece(std::size_t bytes, Post&& post) {
    const std::size_t most = std::clamp<std::size_t>(message_piece_bytes, 1, static_cast<std::size_t>(INT32_MAX));
    for (std::size_t done = 0; done < bytes;) {
      const std::size_t piece = std::min(bytes - done, most);
      requests_.emplace_back();
      post(done, static_cast<int>(piece), &requests_.back());
      done += piece;
    }
  }
  void wait_quietly() noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!requests_.empty() && !finalized)
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
  }

  std::vector<MPI_Request> requests_;
  int tag_ = 0x6d70;
};

/// Sends `outgoing[q]` to every other locale q and receives `expected[q]` bytes from each,
/// where both sides know every size in advance (answers to queries whose counts they
/// share): one message per peer and direction that carries bytes, no size exchange and no
/// collective call. `outgoing[here()]` is returned as what this locale "received" from
/// itself.
inline std::vector<std::vector<std::byte>> exchange_known_sizes(std::vector<std::vector<std::byte>> outgoing,
                                                                const std::vector<std::size_t>& expected) {
  const int p = static_cast<int>(outgoing.size()), me = env().rank();
  std::vector<std::vector<std::byte>> incoming(outgoing.size());
  message_batch batch;
  for (int q = 0; q < p; ++q) {
    const auto k = static_cast<std::size_t>(q);
    if (q == me) continue;
    incoming[k].resize(expected[k]);
    batch.receive(q, incoming[k].data(), incoming[k].size());
    batch.send(q, outgoing[k].data(), outgoing[k].size());
  }
  batch.wait();
  incoming[static_cast<std::size_t>(me)] = std::move(outgoing[static_cast<std::size_t>(me)]);
  return incoming;
}

/// What a zero-byte signal between two locales of one node says: "my storage is ready for
/// your direct copy" or "my direct copy into your storage is done".
enum class signal_kind { ready = 1, done = 2 };

/// Zero-byte messages that order direct copies between locales of one node: signals sent,
/// and signals expected whose arrivals can be handled one by one. A fence on each side makes
/// the copies before a signal visible after it arrives. Counted in `signals` (sent).
class signal_batch {
 public:
  signal_batch() = default;
  signal_batch(const signal_batch&) = delete;
  signal_batch& operator=(const signal_batch&) = delete;
  /// Takes over `other`'s pending signals.
  signal_batch(signal_batch&& other) noexcept
      : requests_(std::move(other.requests_)), expected_(std::move(other.expected_)) {}
  /// Completes what is still pending (errors are not reported from a destructor).
  ~signal_batch() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!requests_.empty() && !finalized)
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }

  /// Sends signal `kind` to locale `to`.
  void send(int to, signal_kind kind) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    auto& e = env();
    requests_.emplace_back();
    check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, to, tag(kind), e.comm(), &requests_.back()), "MPI_Isend(signal)");
    ++e.counters().signals;
  }
  /// Receives signal `kind` from locale `from` (complete after wait()).
  void receive(int from, signal_kind kind) {
    requests_.emplace_back();
    check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, from, tag(kind), env().comm(), &requests_.back()),
              "MPI_Irecv(signal)");
  }
  /// Expects signal `kind` from locale `from`, handled by on_arrival(); returns its number
  /// among the expected ones.
  std::size_t expect(int from, signal_kind kind) {
    requests_.emplace_back();
    check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, from, tag(kind), env().comm(), &requests_.back()),
              "MPI_Irecv(signal)");
    expected_.push_back(requests_.size() - 1);
    return expected_.size() - 1;
  }
  /// Calls `f(k)` for each expected signal k as it arrives, until all have.
  template <class F>
  void on_arrival(F&& f) {
    std::vector<MPI_Request> waiting;
    for (std::size_t k : expected_) waiting.push_back(requests_[k]);
    std::vector<int> arrived(waiting.size());
    std::size_t left = waiting.size();
    while (left > 0) {
      int count = 0;
      check_mpi(MPI_Waitsome(static_cast<int>(waiting.size()), waiting.data(), &count, arrived.data(),
                             MPI_STATUSES_IGNORE),
                "MPI_Waitsome(signal)");
      std::atomic_thread_fence(std::memory_order_seq_cst);
      for (int j = 0; j < count; ++j) f(static_cast<std::size_t>(arrived[static_cast<std::size_t>(j)]));
      left -= static_cast<std::size_t>(count);
    }
    for (std::size_t k : expected_) requests_[k] = MPI_REQUEST_NULL;
    expected_.clear();
  }
  /// Completes every signal sent and expected.
  void wait() {
    if (requests_.empty()) return;
    const int code = MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    expected_.clear();
    std::atomic_thread_fence(std::memory_order_seq_cst);
    check_mpi(code, "MPI_Waitall(signal)");
  }

 private:
  static int tag(signal_kind kind) { return 0x6d70 + static_cast<int>(kind); }
  std::vector<MPI_Request> requests_;
  std::vector<std::size_t> expected_;  // positions in requests_ of the signals on_arrival handles
};

}  // namespace dmap::detail
