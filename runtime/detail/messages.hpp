// message_batch: point-to-point messages whose sizes both sides know in advance, posted
// together and completed together (no collective). Counted in the communication counters.
#pragma once

#include <cstddef>
#include <vector>

#include "../environment.hpp"

namespace dmap::detail {

/// A set of non-blocking sends and receives completed by one `wait()`.
class message_batch {
 public:
  message_batch() = default;
  message_batch(const message_batch&) = delete;
  message_batch& operator=(const message_batch&) = delete;
  message_batch(message_batch&& other) noexcept : requests_(std::move(other.requests_)) {}
  message_batch& operator=(message_batch&& other) noexcept {
    wait_quietly();
    requests_ = std::move(other.requests_);
    return *this;
  }
  /// Completes what is still pending (errors are not reported from a destructor).
  ~message_batch() { wait_quietly(); }

  /// Posts the receive of `bytes` bytes from locale `from` into `buffer`.
  void receive(int from, void* buffer, std::size_t bytes) {
    if (bytes == 0) return;
    auto& e = env();
    requests_.emplace_back();
    check_mpi(MPI_Irecv(buffer, checked_count(bytes), MPI_BYTE, from, tag, e.comm(),
                                &requests_.back()),
                      "MPI_Irecv");
    ++e.counters().messages_received;
    e.counters().bytes_received += bytes;
  }
  /// Posts the send of `bytes` bytes at `buffer` to locale `to`; the buffer must stay valid
  /// until wait().
  void send(int to, const void* buffer, std::size_t bytes) {
    if (bytes == 0) return;
    auto& e = env();
    requests_.emplace_back();
    check_mpi(MPI_Isend(buffer, checked_count(bytes), MPI_BYTE, to, tag, e.comm(),
                                &requests_.back()),
                      "MPI_Isend");
    ++e.counters().messages_sent;
    e.counters().bytes_sent += bytes;
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
  static constexpr int tag = 0x6d70;
  static int checked_count(std::size_t bytes) {
    if (bytes > static_cast<std::size_t>(INT32_MAX))
      throw unsupported_error("dmap::message_batch: a message of " + std::to_string(bytes) +
                              " bytes exceeds 2^31-1 bytes");
    return static_cast<int>(bytes);
  }
  void wait_quietly() noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!requests_.empty() && !finalized)
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
  }

  std::vector<MPI_Request> requests_;
};

}  // namespace dmap::detail
