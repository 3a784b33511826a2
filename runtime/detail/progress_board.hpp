// progress_board: how many collective operations each locale has completed, readable by every
// other locale without its help. It is what makes one-sided reads never stale: a locale that
// returned from its k-th collective operation reads another locale's memory only once that
// locale has completed k operations too, so every element a collective wrote is in place. The
// owner publishes with one store (no message, no collective; an MPI_Win_sync only under MPI's
// separate memory model); a reader checks once per peer and collective operation, by a load
// from node-shared memory or one 8-byte MPI_Get.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include <mpi.h>

#include "../errors.hpp"
#include "window_lock.hpp"

namespace dmap::detail {

/// Every locale's count of completed collective operations, published by each and read
/// one-sidedly by the others. Made and freed collectively by the environment.
class progress_board {
 public:
  /// Collective over `comm`: one slot per locale, in a node-shared window over `node_comm`
  /// (read directly by the node's locales) exposed to the others through an RMA window.
  /// `node_locales` are the ids of this node's locales by increasing id; `machine_leader` is
  /// true on the lowest-ranked locale of this machine, `node_turns` and `node_turn` place the
  /// simulated nodes of a machine (see environment::machine_leader and create_node_window).
  progress_board(MPI_Comm comm, MPI_Comm node_comm, const std::vector<int>& node_locales, int rank, int size,
                 bool machine_leader, int node_turns, int node_turn)
      : rank_(rank), comm_(comm), seen_(static_cast<std::size_t>(size)), node_slots_(static_cast<std::size_t>(size), nullptr) {
    const bool leader = node_locales.front() == rank;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    void* base = nullptr;
    int code = MPI_SUCCESS;
    create_node_window(comm, node_comm, leader, machine_leader, node_turns, node_turn, [&] {
      code = MPI_Win_allocate_shared(slot_bytes, 1, info, node_comm, &base, &node_win_);
    });
    MPI_Info_free(&info);
    if (code != MPI_SUCCESS) throw runtime_error("dmap: MPI_Win_allocate_shared (progress board) failed");
    mine_ = static_cast<std::uint64_t*>(base);
    std::atomic_ref<std::uint64_t>(*mine_).store(0, std::memory_order_release);
    for (std::size_t r = 0; r < node_locales.size(); ++r) {
      MPI_Aint bytes = 0;
      int unit = 0;
      void* peer = nullptr;
      if (MPI_Win_shared_query(node_win_, static_cast<int>(r), &bytes, &unit, &peer) != MPI_SUCCESS)
        throw runtime_error("dmap: MPI_Win_shared_query (progress board) failed");
      node_slots_[static_cast<std::size_t>(node_locales[r])] = static_cast<std::uint64_t*>(peer);
    }
    create_window_exclusively(comm, machine_leader, [&] {
      code = MPI_Win_create(mine_, slot_bytes, 1, MPI_INFO_NULL, comm, &win_);
    });
    if (code != MPI_SUCCESS) throw runtime_error("dmap: MPI_Win_create (progress board) failed");
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
    // Under the unified memory model a store to the window is eventually seen by MPI_Get
    // without any RMA call (MPI 3.1, section 11.4): complete_one then needs no MPI_Win_sync,
    // which under Open MPI's osc/rdma enters MPI progress (and, with yield_when_idle, gives the
    // core away: 10-25 us per collective operation with 4 ranks on 2 cores).
    int* model = nullptr;
    int has_model = 0;
    MPI_Win_get_attr(win_, MPI_WIN_MODEL, &model, &has_model);
    sync_after_store_ = !(has_model && model != nullptr && *model == MPI_WIN_UNIFIED);
    // Every slot is zero before anyone reads one.
    MPI_Barrier(comm);
  }
  progress_board(const progress_board&) = delete;
  progress_board& operator=(const progress_board&) = delete;
  /// Collective (frees both windows).
  ~progress_board() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (win_ != MPI_WIN_NULL) {
      MPI_Win_unlock_all(win_);
      MPI_Win_free(&win_);
    }
    if (node_win_ != MPI_WIN_NULL) MPI_Win_free(&node_win_);
  }

  /// The number of collective operations this locale has completed.
  std::uint64_t completed() const noexcept { return completed_.load(std::memory_order_relaxed); }

  /// Publishes one more completed collective operation (its element writes are all done).
  void complete_one() noexcept {
    const std::uint64_t now = completed_.load(std::memory_order_relaxed) + 1;
    completed_.store(now, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(*mine_).store(now, std::memory_order_release);
    if (win_ != MPI_WIN_NULL && sync_after_store_) MPI_Win_sync(win_);
  }

  /// Returns once locale `locale` has completed at least as many collective operations as
  /// this one. `direct` says whether a node peer's slot may be loaded directly (node
  /// transfers on); `mpi_lock` serialises the MPI calls with other threads. Returns how many
  /// remote reads of the slot it made (0 when the last one seen already sufficed). A caller
  /// that may not call MPI (a loop thread under MPI_THREAD_FUNNELED) passes `may_call_mpi`
  /// false and `direct` true; reaching a slot off the node is then an unsupported_error.
  template <class Lock>
  std::uint64_t await(int locale, bool direct, bool may_call_mpi, Lock&& mpi_lock) {
    const std::uint64_t needed = completed();
    auto& seen = seen_[static_cast<std::size_t>(locale)];
    if (locale == rank_ || seen.load(std::memory_order_acquire) >= needed) return 0;
    std::uint64_t reads = 0;
    for (int round = 0;; ++round) {
      std::uint64_t theirs = 0;
      if (std::uint64_t* slot = node_slots_[static_cast<std::size_t>(locale)]; direct && slot != nullptr) {
        theirs = std::atomic_ref<std::uint64_t>(*slot).load(std::memory_order_acquire);
      } else {
        if (!may_call_mpi)
          throw unsupported_error(
              "dmap: remote element access from a loop body needs MPI_THREAD_SERIALIZED; this MPI provides only "
              "MPI_THREAD_FUNNELED (run with DMAP_NUM_THREADS=1 or read the element outside the loop)");
        const auto guard = mpi_lock();
        int code = MPI_Get(&theirs, 8, MPI_BYTE, locale, 0, 8, MPI_BYTE, win_);
        if (code == MPI_SUCCESS) code = MPI_Win_flush(locale, win_);
        if (code != MPI_SUCCESS) throw runtime_error("dmap: MPI_Get (progress board) failed");
        ++reads;
      }
      if (theirs >= needed) {
        std::uint64_t known = seen.load(std::memory_order_relaxed);
        while (known < theirs && !seen.compare_exchange_weak(known, theirs, std::memory_order_release)) {
        }
        std::atomic_thread_fence(std::memory_order_acquire);
        return reads;
      }
      // The peer is still finishing an operation this locale has left: let MPI progress
      // (messages the peer may still need from here) and give the core away.
      if (may_call_mpi && round % 64 == 63) {
        const auto guard = mpi_lock();
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, MPI_STATUS_IGNORE);
      }
      std::this_thread::yield();
    }
  }

 private:
  static constexpr MPI_Aint slot_bytes = 64;  // one cache line per locale
  int rank_ = 0;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::atomic<std::uint64_t> completed_{0};
  std::uint64_t* mine_ = nullptr;
  std::vector<std::atomic<std::uint64_t>> seen_;   // the largest count read from each locale
  std::vector<std::uint64_t*> node_slots_;         // node peers' slots, by locale id (null off node)
  MPI_Win node_win_ = MPI_WIN_NULL;
  MPI_Win win_ = MPI_WIN_NULL;
  bool sync_after_store_ = true;  // the separate memory model: a store is published by MPI_Win_sync
};

}  // namespace dmap::detail
