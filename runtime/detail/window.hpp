// rma_window: one-sided access to another locale's memory (MPI passive-target RMA), used
// for single remote elements and bulk fetches of scattered elements; loads and stores
// straight into node-shared memory for locales of the same node. The window stays in
// one shared-lock epoch for its whole life (MPI_Win_lock_all); each access completes with
// MPI_Win_flush, so accesses from several threads only need to be serialised. Before the
// first access to a locale after a collective operation, the reader waits until that locale
// has completed it too (environment::await_peer), so no access sees memory an operation the
// reader has left is still writing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "../collectives.hpp"
#include "node_segment.hpp"
#include "window_lock.hpp"

namespace dmap::detail {

/// A run of contiguous elements in a remote buffer: first element and count.
struct element_run {
  std::int64_t first = 0;
  std::int64_t count = 0;
};

/// Exposes a buffer of this locale to one-sided reads and writes by every locale.
/// Creating and destroying a window is collective. With one locale there is nothing
/// remote and no MPI window is made.
class rma_window {
 public:
  rma_window() = default;
  /// Collective: exposes `bytes` bytes at `base`, elements of `element_size` bytes. When
  /// the buffer is `node`'s part of a node-shared segment, accesses to locales of this node
  /// load and store directly (no message).
  rma_window(void* base, std::size_t bytes, std::size_t element_size, const node_segment* node = nullptr)
      : element_size_(element_size), node_(node) {
    if (num_locales() == 1) return;
    count_collective();
    auto& e = env();
    int code = MPI_SUCCESS;
    create_window_exclusively(e.comm(), e.machine_leader(), [&] {
      code = MPI_Win_create(base, static_cast<MPI_Aint>(bytes), static_cast<int>(element_size), MPI_INFO_NULL,
                            e.comm(), &win_);
    });
    check_mpi(code, "MPI_Win_create");
    check_mpi(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  }
  rma_window(const rma_window&) = delete;
  rma_window& operator=(const rma_window&) = delete;
  rma_window(rma_window&& other) noexcept { swap(other); }
  rma_window& operator=(rma_window&& other) noexcept {
    rma_window moved(std::move(other));
    swap(moved);
    return *this;
  }
  /// Collective (frees the MPI window).
  ~rma_window() { release(); }

  /// Copies `runs` of the buffer of `locale` (element units) into `out`, contiguously, in
  /// one message.
  void get(int locale, const std::vector<element_run>& runs, void* out) const {
    if (runs.empty()) return;
    env().await_peer(locale);
    if (const std::byte* theirs = node_data(locale)) {
      auto* to = static_cast<std::byte*>(out);
      std::uint64_t bytes = 0;
      for (const auto& r : runs) {
        const auto n = static_cast<std::size_t>(r.count) * element_size_;
        std::memcpy(to, theirs + static_cast<std::size_t>(r.first) * element_size_, n);
        to += n, bytes += n;
      }
      count_node_copy(bytes);
      return;
    }
    if (runs.size() == 1) {  // one run (a single element, a contiguous fetch): no derived datatype
      const auto& r = runs.front();
      const std::int64_t bytes = r.count * static_cast<std::int64_t>(element_size_);
      const auto guard = access(locale);
      // The target displacement counts elements (the window's displacement unit).
      int code = MPI_Get(out, static_cast<int>(bytes), MPI_BYTE, locale, static_cast<MPI_Aint>(r.first),
                         static_cast<int>(bytes), MPI_BYTE, win_);
      if (code == MPI_SUCCESS) code = MPI_Win_flush(locale, win_);
      check_mpi(code, "MPI_Get");
      auto& c = env().counters();
      ++c.messages_received;
      c.bytes_received += static_cast<std::uint64_t>(bytes);
      return;
    }
    std::vector<int> lengths;
    std::vector<MPI_Aint> displacements;
    std::int64_t total = 0;
    for (const auto& r : runs) {
      lengths.push_back(static_cast<int>(r.count * static_cast<std::int64_t>(element_size_)));
      displacements.push_back(static_cast<MPI_Aint>(r.first * static_cast<std::int64_t>(element_size_)));
      total += r.count;
    }
    const std::int64_t bytes = total * static_cast<std::int64_t>(element_size_);
    MPI_Datatype target_type;
    check_mpi(MPI_Type_create_hindexed(static_cast<int>(runs.size()), lengths.data(),
                                               displacements.data(), MPI_BYTE, &target_type),
                      "MPI_Type_create_hindexed");
    MPI_Type_commit(&target_type);
    const auto guard = access(locale);
    int code = MPI_Get(out, static_cast<int>(bytes), MPI_BYTE, locale, 0, 1, target_type, win_);
    if (code == MPI_SUCCESS) code = MPI_Win_flush(locale, win_);
    MPI_Type_free(&target_type);
    check_mpi(code, "MPI_Get");
    auto& c = env().counters();
    ++c.messages_received;
    c.bytes_received += static_cast<std::uint64_t>(bytes);
  }
  /// Copies one element at element offset `offset` of `locale` into `out`.
  void get(int locale, std::int64_t offset, void* out) const {
    get(locale, std::vector<element_run>{{offset, 1}}, out);
  }
  /// Writes one element from `in` to element offset `offset` of `locale`; complete at
  /// the target when the call returns.
  void put(int locale, std::int64_t offset, const void* in) const {
    env().await_peer(locale);
    if (std::byte* theirs = node_data(locale)) {
      std::memcpy(theirs + static_cast<std::size_t>(offset) * element_size_, in, element_size_);
      count_node_copy(element_size_);
      return;
    }
    const auto guard = access(locale);
    int code = MPI_Put(in, static_cast<int>(element_size_), MPI_BYTE, locale,
                       static_cast<MPI_Aint>(offset), static_cast<int>(element_size_), MPI_BYTE,
                       win_);
    if (code == MPI_SUCCESS) code = MPI_Win_flush(locale, win_);
    check_mpi(code, "MPI_Put");
    auto& c = env().counters();
    ++c.messages_sent;
    c.bytes_sent += element_size_;
  }

 private:
  // Locale `locale`'s buffer when it is on this node and node transfers are on, else null.
  std::byte* node_data(int locale) const {
    return node_ != nullptr && env().node_transfers().enabled ? node_->data_of(locale) : nullptr;
  }
  // Checks the access is possible from this thread and serialises it with other threads.
  std::unique_lock<std::mutex> access(int locale) const {
    auto& e = env();
    if (win_ == MPI_WIN_NULL)
      throw runtime_error("dmap::rma_window: no window to access locale " + std::to_string(locale));
    if (e.thread_level() < MPI_THREAD_SERIALIZED && !e.on_main_thread())
      throw unsupported_error(
          "dmap: remote element access from a loop body needs MPI_THREAD_SERIALIZED; this MPI "
          "provides only MPI_THREAD_FUNNELED (run with DMAP_NUM_THREADS=1 or read the element "
          "outside the loop)");
    return std::unique_lock<std::mutex>(e.mpi_mutex());
  }
  void release() noexcept {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (win_ != MPI_WIN_NULL && !finalized) {
      if (current_environment) count_collective();
      MPI_Win_unlock_all(win_);
      MPI_Win_free(&win_);
    }
    win_ = MPI_WIN_NULL;
  }
  void swap(rma_window& other) noexcept {
    std::swap(win_, other.win_);
    std::swap(element_size_, other.element_size_);
    std::swap(node_, other.node_);
  }

  MPI_Win win_ = MPI_WIN_NULL;
  std::size_t element_size_ = 1;
  const node_segment* node_ = nullptr;
};

}  // namespace dmap::detail
