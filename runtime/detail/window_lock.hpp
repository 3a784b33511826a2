// Creating MPI windows one environment at a time per node. Open MPI names the shared-memory
// file behind a window after the context id of the window's communicator and the node
// (osc/rdma: "window_<cid>.<node>", osc/sm likewise), and two disjoint communicators may hold
// the same context id: two dmap environments on halves of one job, creating windows at the
// same moment, then open each other's file and fail (MPI_ERR_WIN, "open(2)"). A node-wide file
// lock around each creation keeps them apart; it is taken with a try-lock and an agreement, so
// environments spanning several nodes cannot deadlock by holding one node's lock each.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <thread>

#include <mpi.h>

#include "../errors.hpp"

namespace dmap::detail {

/// The node-wide lock file window creations take (one per user, in /tmp).
inline std::string window_lock_path() { return "/tmp/dmap-mpi-windows-" + std::to_string(::getuid()) + ".lock"; }

/// Runs `create` (a collective window creation over `comm`) while no other dmap environment
/// of this node creates one. Collective over `comm`. `node_leader` is true on exactly one
/// member of `comm` per machine (the one with the lowest rank there, which is the process that
/// names Open MPI's file; environment::machine_leader for a communicator over several nodes,
/// the lowest member for one inside a node, which simulated nodes may share a machine with).
/// Without a usable lock file the creation runs unguarded.
template <class Create>
void create_window_exclusively(MPI_Comm comm, bool node_leader, Create&& create) {
  int comm_size = 1;
  MPI_Comm_size(comm, &comm_size);
  if (comm_size == 1) {
    create();
    return;
  }
  int fd = -1;
  if (node_leader) fd = ::open(window_lock_path().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  std::minstd_rand jitter(static_cast<std::uint32_t>(::getpid()));
  for (int attempt = 0;; ++attempt) {
    // 1 where this locale holds its node's lock (or needs none), 0 where another
    // environment holds it; everyone creates only when every node leader holds its lock.
    int held = 1;
    if (fd >= 0) {
      int r = 0;
      do r = ::flock(fd, LOCK_EX | LOCK_NB);
      while (r != 0 && errno == EINTR);
      if (r != 0 && errno != EWOULDBLOCK) {  // no locks on this file system: go unguarded
        ::close(fd);
        fd = -1;
      }
      held = r == 0 || fd < 0 ? 1 : 0;
    }
    int all_held = 0;
    const int code = MPI_Allreduce(&held, &all_held, 1, MPI_INT, MPI_MIN, comm);
    if (code != MPI_SUCCESS) {
      if (fd >= 0) ::close(fd);
      throw runtime_error("dmap: MPI_Allreduce (window creation lock) failed");
    }
    if (all_held) break;
    if (held && fd >= 0) ::flock(fd, LOCK_UN);
    // Back off a random while (growing to about 10 ms), so that two environments stop
    // taking turns at failing.
    const int cap = 1 << std::min(attempt, 13);
    std::this_thread::sleep_for(std::chrono::microseconds(1 + static_cast<int>(jitter() % static_cast<unsigned>(cap))));
  }
  try {
    create();
  } catch (...) {
    if (fd >= 0) ::close(fd);  // closing releases the lock
    throw;
  }
  // Once create() returned here, the lowest-ranked process of this node has unlinked the
  // file it named, so another environment may create one of the same name.
  if (fd >= 0) ::close(fd);
}

/// Runs `create`, a collective window creation over this locale's node communicator
/// `node_comm`, in a step every locale of `comm` takes at the same point (array storage, the
/// progress board). When one machine holds several simulated nodes (DMAP_NODE_SIZE; `turns`,
/// agreed over `comm`, is the most nodes any machine holds, `turn` this node's place on its
/// machine), their communicators may share Open MPI's file names and a lock taken per node
/// would let one node hold the machine's lock while it waits for another in `comm`: then the
/// machine leaders take the lock with an agreement over all of `comm`, and the nodes of a
/// machine create their windows one after another. `create` must report failures in a value,
/// not throw. Otherwise this is create_window_exclusively over `node_comm`.
template <class Create>
void create_node_window(MPI_Comm comm, MPI_Comm node_comm, bool node_leader, bool machine_leader, int turns,
                        int turn, Create&& create) {
  if (turns <= 1) {
    create_window_exclusively(node_comm, node_leader, create);
    return;
  }
  create_window_exclusively(comm, machine_leader, [&] {
    for (int t = 0; t < turns; ++t) {
      if (t == turn) create();
      if (MPI_Barrier(comm) != MPI_SUCCESS) throw runtime_error("dmap: MPI_Barrier (node window turns) failed");
    }
  });
}

}  // namespace dmap::detail
