// node_segment: memory of one locale that the other locales of its node load and store
// directly (an MPI-3 shared-memory window over the node's communicator). Arrays keep their
// elements in one when node transfers are on, so that copies between locales of one node
// need no messages.
#pragma once

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../collectives.hpp"
#include "window_lock.hpp"

namespace dmap::detail {

/// A buffer of this locale in node-shared memory, with the addresses of the other node
/// locales' buffers of the same segment. Making and freeing one is collective over the node.
class node_segment {
 public:
  /// Where every part starts: a cache line, so that pieces of one line that different
  /// locales write never share a line (MPI's shared windows start a part wherever the
  /// implementation puts it: Open MPI 4.1's at 8 bytes past a line).
  static constexpr std::size_t alignment = 64;

  /// Collective (every locale makes one at the same point; see create_node_window), over this
  /// locale's node: allocates `bytes` bytes here (aligned to a cache line, `alignment`) and
  /// learns where each node peer's part lies in this process.
  explicit node_segment(std::size_t bytes) {
    auto& e = env();
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    void* base = nullptr;
    int code = MPI_SUCCESS;
    create_node_window(e.comm(), e.node_comm(), e.node_locales().front() == e.rank(), e.machine_leader(),
                       e.node_turns(), e.node_turn(), [&] {
      code = MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes > 0 ? bytes + alignment - 1 : 0), 1, info,
                                     e.node_comm(), &base, &win_);
    });
    MPI_Info_free(&info);
    check_mpi(code, "MPI_Win_allocate_shared");
    const auto& members = e.node_locales();
    bases_.resize(members.size());
    for (std::size_t r = 0; r < members.size(); ++r) {
      MPI_Aint size = 0;
      int unit = 0;
      void* peer = nullptr;
      check_mpi(MPI_Win_shared_query(win_, static_cast<int>(r), &size, &unit, &peer), "MPI_Win_shared_query");
      bases_[r] = size > 0 ? aligned(peer) : nullptr;
    }
    mine_ = bytes > 0 ? aligned(base) : static_cast<std::byte*>(base);
  }
  node_segment(const node_segment&) = delete;
  node_segment& operator=(const node_segment&) = delete;
  /// Collective over the node (frees the window).
  ~node_segment() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (win_ != MPI_WIN_NULL && !finalized) MPI_Win_free(&win_);
  }

  /// This locale's part.
  std::byte* data() const noexcept { return mine_; }
  /// Locale `locale`'s part as seen from this process, or null when it lives on another node
  /// (or holds nothing).
  std::byte* data_of(int locale) const noexcept {
    const int r = env().node_rank_of(locale);
    return r < 0 ? nullptr : bases_[static_cast<std::size_t>(r)];
  }

 private:
  // The first cache line at or after `p`. Shared memory is mapped by whole pages in every
  // process, so a part's offset within its line is the same in each of them.
  static std::byte* aligned(void* p) noexcept {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return reinterpret_cast<std::byte*>((a + alignment - 1) / alignment * alignment);
  }

  MPI_Win win_ = MPI_WIN_NULL;
  std::byte* mine_ = nullptr;
  std::vector<std::byte*> bases_;  // by node rank
};

/// Bytes this node can still give to shared memory: the free space of the file system that
/// backs MPI's shared windows and the free physical memory, the smaller.
inline std::uint64_t node_memory_free() noexcept {
  std::uint64_t free = UINT64_MAX;
  struct statvfs fs {};
  if (statvfs("/dev/shm", &fs) == 0) free = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) free = std::min(free, static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page));
  return free;
}

/// Whether node-shared storage may apply to an array (the same answer on every locale) and
/// whether this locale's part fits.
struct node_storage_ask {
  bool may = false;   ///< the settings, the nodes and the size allow it
  bool fits = false;  ///< this locale's part fits in half of what its node has free
};

/// Not collective: use_node_storage's question for an array of `total_bytes` bytes over all
/// locales, `local_bytes` on this one, before the fit is agreed.
inline node_storage_ask node_storage_asked(std::uint64_t total_bytes, std::uint64_t local_bytes) {
  auto& e = env();
  if (simulated || !e.node_transfers().enabled || e.largest_node() < 2 || total_bytes < e.node_transfers().min_bytes)
    return {};
  return {true, local_bytes <= node_memory_free() / 2};
}

/// Collective when it may apply: whether an array of `total_bytes` bytes over all locales
/// (`local_bytes` on this one) keeps its elements in node-shared memory: node transfers are
/// on, some node holds two locales or more, the array has at least the settings' minimum
/// size, and every locale's part fits in half of what its node has free (else the array
/// keeps private storage, whose allocation reports a shortage as std::bad_alloc).
inline bool use_node_storage(std::uint64_t total_bytes, std::uint64_t local_bytes) {
  const node_storage_ask ask = node_storage_asked(total_bytes, local_bytes);
  if (!ask.may) return false;
  return all_reduce_min(ask.fits ? 1 : 0) == 1;
}

/// Counts one direct copy of `bytes` bytes into or out of a node peer's memory.
inline void count_node_copy(std::uint64_t bytes) {
  auto& c = env().counters();
  ++c.node_copies;
  c.node_bytes += bytes;
}

/// The element buffer of locale `locale` in `segment` (null without a segment, or when the
/// locale is on another node).
template <class T>
T* node_data_of(const node_segment* segment, int locale) noexcept {
  return segment ? reinterpret_cast<T*>(segment->data_of(locale)) : nullptr;
}

}  // namespace dmap::detail
