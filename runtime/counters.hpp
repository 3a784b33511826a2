// Communication counters: exact, machine-independent totals of what this locale moved.
#pragma once

#include <cstdint>

namespace dmap {

/// Totals of the communication one locale performed since the last reset.
/// `messages_*`/`bytes_*` count payload moved between distinct locales (exchanges,
/// remote element access, gathers); a message to oneself is not counted. Synchronising
/// collectives (error agreement, scalar reductions, count exchanges) are counted in
/// `collectives` only. Locales of one node move elements into each other's node-shared
/// storage without messages: counted in `node_copies` and `node_bytes` by the locale that
/// copies, with the zero-byte `signals` that order each copy. Before a one-sided read or write
/// of a peer's memory, a locale checks once per collective operation that the peer has
/// finished the operations it has (`progress_checks`, when that takes a message).
struct comm_counters {
  std::uint64_t messages_sent = 0;      ///< point-to-point messages and RMA puts issued
  std::uint64_t bytes_sent = 0;         ///< payload bytes of those messages
  std::uint64_t messages_received = 0;  ///< point-to-point messages received and RMA gets issued
  std::uint64_t bytes_received = 0;     ///< payload bytes of those messages
  std::uint64_t collectives = 0;        ///< collective calls (barrier, allreduce, allgather, ...)
  std::uint64_t node_copies = 0;        ///< direct copies into or out of another locale's memory on this node
  std::uint64_t node_bytes = 0;         ///< bytes those copies moved (not in bytes_sent / bytes_received)
  std::uint64_t signals = 0;            ///< zero-byte messages sent to order direct copies with their peers
  std::uint64_t progress_checks = 0;    ///< 8-byte one-sided reads of a peer's progress before reading its memory

  friend bool operator==(const comm_counters&, const comm_counters&) = default;
};

/// How often this locale built a communication plan (for a loop over operands that are not
/// aligned, or for an assignment between arrays or views), and how often it reused one (the
/// same loop or assignment again: no new plan).
struct plan_counters {
  std::uint64_t built = 0;   ///< plans built (staging of misaligned zip operands, assignments)
  std::uint64_t reused = 0;  ///< loops and assignments that found their plan already built

  friend bool operator==(const plan_counters&, const plan_counters&) = default;
};

/// The file input and output one locale performed since the last reset (dmap's .npy and HDF5
/// readers and writers): the calls it made and the bytes it handed to them or got from them,
/// headers included. Exact: what the library asked of MPI-IO or HDF5 for this locale.
struct file_counters {
  std::uint64_t writes = 0;         ///< write calls (collective or not) this locale made
  std::uint64_t bytes_written = 0;  ///< bytes this locale passed to those calls
  std::uint64_t reads = 0;          ///< read calls this locale made
  std::uint64_t bytes_read = 0;     ///< bytes this locale received from those calls
  friend bool operator==(const file_counters&, const file_counters&) = default;
};

/// The difference `later - earlier`, field by field.
inline file_counters operator-(const file_counters& later, const file_counters& earlier) {
  return {later.writes - earlier.writes, later.bytes_written - earlier.bytes_written, later.reads - earlier.reads,
          later.bytes_read - earlier.bytes_read};
}

/// The difference `later - earlier`, field by field.
inline comm_counters operator-(const comm_counters& later, const comm_counters& earlier) {
  return {later.messages_sent - earlier.messages_sent, later.bytes_sent - earlier.bytes_sent,
          later.messages_received - earlier.messages_received,
          later.bytes_received - earlier.bytes_received, later.collectives - earlier.collectives,
          later.node_copies - earlier.node_copies, later.node_bytes - earlier.node_bytes,
          later.signals - earlier.signals, later.progress_checks - earlier.progress_checks};
}

}  // namespace dmap
