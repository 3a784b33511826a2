// The program environment: MPI (locales), the oneTBB arena of this locale, counters.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "counters.hpp"
#include "detail/agreement.hpp"
#include "detail/current_environment.hpp"
#include "detail/mpi_calls.hpp"
#include "detail/progress_board.hpp"
#include "detail/simulated_locale.hpp"
#include "errors.hpp"

namespace dmap {

class environment;

/// How locales on one node move data between them (see dmap::set_node_transfers).
struct node_transfer_settings {
  /// Arrays allocated from now on keep their elements in node-shared memory, and transfers
  /// into such arrays from locales of the same node copy directly instead of sending messages.
  bool enabled = true;
  /// Arrays smaller than this (all locales' elements, in bytes) keep private storage.
  std::uint64_t min_bytes = 65536;
  friend bool operator==(const node_transfer_settings&, const node_transfer_settings&) = default;
};

/// Starts MPI and a oneTBB arena for this locale; one at a time per process, created before
/// any other dmap object. Without mpirun the program is one locale. The arena width is
/// DMAP_NUM_THREADS if set, else the cores this process may use; only a DMAP_NUM_THREADS
/// setting changes oneTBB's process-wide parallelism limit. MPI is asked for
/// MPI_THREAD_SERIALIZED so that remote element access works from loop bodies on any thread
/// (serialised by a lock); MPI_THREAD_FUNNELED is accepted, and then only the main thread may
/// access remote elements. An MPI the host initialised is attached to and never finalised.
class environment {
 public:
  /// Starts the environment with the command-line arguments of main (MPI may remove its own);
  /// the locales are the ranks of MPI_COMM_WORLD.
  environment(int& argc, char**& argv);
  /// Starts the environment without command-line arguments, over MPI_COMM_WORLD.
  environment();
  /// Embedding: runs dmap inside a host program that has initialised MPI, on the ranks of the
  /// host's intra-communicator `host` (rank r of `host` is locale r). dmap works on its own
  /// duplicate of `host`, so its messages never meet the host's; MPI stays the host's to
  /// finalise, after this environment is destroyed.
  explicit environment(MPI_Comm host);
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

  ~environment();

  /// This locale's id (its rank in the library's communicator).
  int rank() const noexcept { return rank_; }
  /// The number of locales.
  int size() const noexcept { return size_; }
  /// The number of threads this locale's arena runs.
  int threads() const noexcept { return threads_; }
  /// The library's private communicator (a duplicate of MPI_COMM_WORLD or of the host's).
  MPI_Comm comm() const noexcept { return comm_; }
  /// The oneTBB arena every parallel loop of this locale runs in (its type is complete in
  /// runtime/detail/thread_pool.hpp, so that programs that run no oneTBB algorithm of their own
  /// never parse oneTBB's headers).
  detail::thread_pool& pool() noexcept { return *pool_; }
  /// The live communication counters of this locale.
  comm_counters& counters() noexcept { return counters_; }
  /// The live plan statistics of this locale.
  plan_counters& plans() noexcept { return plans_; }
  /// The live file counters of this locale.
  file_counters& files() noexcept { return files_; }
  /// The MPI thread level provided.
  int thread_level() const noexcept { return thread_level_; }
  /// Serialises MPI calls made from loop bodies (remote element access).
  std::mutex& mpi_mutex() noexcept { return mpi_mutex_; }
  /// True on the thread that created the environment.
  bool on_main_thread() const noexcept { return std::this_thread::get_id() == main_thread_; }
  /// The locales on this locale's node, by increasing id: MPI's shared-memory split, cut into
  /// nodes of at most DMAP_NODE_SIZE locales when that is set (see dmap::node_locales).
  const std::vector<int>& node_locales() const noexcept { return node_locales_; }
  /// True on the lowest-ranked locale of this machine's shared-memory domain (the process that
  /// names Open MPI's window files); with simulated nodes one machine holds several nodes.
  bool machine_leader() const noexcept { return machine_leader_; }
  /// The most nodes any machine holds (1 unless DMAP_NODE_SIZE splits machines; the same on
  /// every locale; see detail::create_node_window).
  int node_turns() const noexcept { return node_turns_; }
  /// This node's place among its machine's nodes, from 0 (see detail::create_node_window).
  int node_turn() const noexcept { return node_turn_; }
  /// The communicator of this locale's node (a split of comm()).
  MPI_Comm node_comm() const noexcept { return node_comm_; }
  /// The most locales any node holds (the same on every locale).
  int largest_node() const noexcept { return largest_node_; }
  /// The rank of `locale` within this locale's node, or -1 when it lives on another node.
  int node_rank_of(int locale) const noexcept {
    const auto it = std::lower_bound(node_locales_.begin(), node_locales_.end(), locale);
    return it != node_locales_.end() && *it == locale ? static_cast<int>(it - node_locales_.begin()) : -1;
  }
  /// The MPI reduction of agreement records (see detail::combine_agreement_records).
  MPI_Op agreement_op() const noexcept { return agreement_op_; }
  /// The number of collective operations this locale has completed (see
  /// detail::collective_scope): every locale counts the same operations.
  std::uint64_t collectives_completed() const noexcept {
    return progress_ ? progress_->completed() : completed_alone_;
  }
  /// Waits until locale `locale` has completed every collective operation this locale has
  /// completed, so that a one-sided read of its memory sees what they wrote (the memory
  /// model: docs/guide/memory-model.md). Not collective; callable from loop threads.
  void await_peer(int locale);
  /// A new number for an object made collectively (arrays): every locale numbers them alike,
  /// so locales can check they name the same one.
  std::uint64_t new_serial() noexcept { return ++serials_; }
  /// Enters a collective operation (see detail::collective_scope); nested ones count once.
  void begin_collective() noexcept { ++collective_depth_; }
  /// Leaves a collective operation; leaving the outermost publishes it as completed.
  void end_collective() noexcept {
    if (--collective_depth_ != 0) return;
    if (progress_) progress_->complete_one();
    else ++completed_alone_;
  }
  /// The node-transfer settings in force (see dmap::set_node_transfers).
  const node_transfer_settings& node_transfers() const noexcept { return node_transfers_; }
  /// Collective: replaces the node-transfer settings (see dmap::set_node_transfers); settings
  /// that differ between locales are an argument_error on every locale, and change nothing.
  void set_node_transfers(const node_transfer_settings& s);
  /// The state an optional component keeps for this environment (interop/scalapack.hpp's
  /// BLACS grids), one per type: made as `State{}` on first use, destroyed with the
  /// environment, the latest made first, before MPI stops. Its destructor must not throw;
  /// it runs on every locale at the same point, so it may free collective MPI objects.
  template <class State>
  State& attachment() {
    for (auto& [type, state] : attachments_)
      if (type == std::type_index(typeid(State))) return *static_cast<State*>(state.get());
    auto made = std::make_shared<State>();
    State& result = *made;
    attachments_.emplace_back(std::type_index(typeid(State)), std::move(made));
    return result;
  }

 private:
  void start(int* argc, char*** argv, MPI_Comm locales, bool embedded);

  // Collective: splits the locales by node (MPI_COMM_TYPE_SHARED, then into groups of
  // node_size_ consecutive locales when it is set): this node's locales and the largest
  // node's size.
  void find_node();

  // Collective over the host's `locales`: when some locale rejected its settings (`rejected`),
  // throws on every locale: the original where it was raised, an argument_error naming the
  // lowest such locale and carrying its message elsewhere. MPI's collectives over `locales` are
  // apart from the host's point-to-point messages, so this meets none of them.
  static void agree_rejection(MPI_Comm locales, const std::exception_ptr& rejected);

  // Collective: throws argument_error on every locale (the same message) when `s` differs
  // between locales; `what` names the settings. One all-reduce of the settings and their
  // complements by minimum gives each field's least and greatest value.
  void check_same_everywhere(const node_transfer_settings& s, const char* what) const;

  // Collective: throws argument_error on every locale (the same message) when the settings read
  // from the environment (node transfers, DMAP_NODE_SIZE) differ between locales; one all-reduce.
  void check_settings_agree() const;

  // Frees the library's communicators and finalises MPI when this environment started it.
  void stop_mpi() noexcept;

  // An embedding host's MPI must be running and `host` an intra-communicator of it.
  static void check_host(MPI_Comm host, int initialized);

  // The arena width: `text` (DMAP_NUM_THREADS) when set, an integer in [1, 4096]; else the
  // cores this process may use.
  static int threads_asked(const char* text);

  // The node-transfer settings from DMAP_NODE_TRANSFERS ("0"/"1") and DMAP_NODE_MIN_BYTES (an
  // integer >= 0), defaults where unset.
  static node_transfer_settings node_transfers_asked(const char* on, const char* min_bytes);

  // The simulated node size from DMAP_NODE_SIZE (an integer in [1, 2^31 - 1]); 0 where unset.
  static int node_size_asked(const char* text);

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm node_comm_ = MPI_COMM_NULL;
  MPI_Op agreement_op_ = MPI_OP_NULL;
  std::vector<int> node_locales_;
  int largest_node_ = 1;
  int node_size_ = 0;  // DMAP_NODE_SIZE, 0: the machine is the node
  bool machine_leader_ = true;
  int node_turns_ = 1;
  int node_turn_ = 0;
  node_transfer_settings node_transfers_;
  bool owns_mpi_ = false;
  int rank_ = 0;
  int size_ = 1;
  int threads_ = 1;
  std::unique_ptr<detail::thread_pool> pool_;
  comm_counters counters_;
  plan_counters plans_;
  file_counters files_;
  std::unique_ptr<detail::progress_board> progress_;  // null on one locale
  std::uint64_t completed_alone_ = 0;                 // the count on one locale
  int collective_depth_ = 0;
  std::uint64_t serials_ = 0;
  int thread_level_ = MPI_THREAD_SINGLE;
  std::thread::id main_thread_;
  std::mutex mpi_mutex_;
  std::vector<std::pair<std::type_index, std::shared_ptr<void>>> attachments_;
};

/// This locale's id, 0 <= here() < num_locales().
inline int here() { return detail::simulated ? detail::simulated->locale : detail::env().rank(); }
/// The number of locales the program runs on.
inline int num_locales() { return detail::simulated ? detail::simulated->locales : detail::env().size(); }
/// The number of threads a parallel loop uses on this locale.
inline int num_threads() { return detail::env().threads(); }

/// A copy of this locale's communication counters.
inline comm_counters counters() { return detail::env().counters(); }
/// Sets this locale's communication counters to zero.
inline void reset_counters() { detail::env().counters() = {}; }
/// A copy of this locale's plan statistics (plans built and reused by loops over operands
/// that are not aligned and by assignments).
inline plan_counters plan_statistics() { return detail::env().plans(); }
/// Sets this locale's plan statistics to zero.
inline void reset_plan_statistics() { detail::env().plans() = {}; }
/// A copy of this locale's file counters (reads and writes of .npy and HDF5 files).
inline file_counters file_statistics() { return detail::env().files(); }
/// Sets this locale's file counters to zero.
inline void reset_file_statistics() { detail::env().files() = {}; }

/// The locales that share this locale's node, by increasing id (here() among them): node-aware
/// transfers copy between them without messages. A node is a machine's shared-memory domain;
/// DMAP_NODE_SIZE=k cuts each machine's locales, in rank order, into nodes of k (the last may
/// hold fewer), so that one machine runs the mixed traffic of a cluster (simulated nodes, the
/// same value on every locale).
inline const std::vector<int>& node_locales() { return detail::env().node_locales(); }

/// The node-transfer settings in force: by default on, for arrays of 64 KiB and more;
/// DMAP_NODE_TRANSFERS=0 and DMAP_NODE_MIN_BYTES=n (bytes) change the defaults.
inline node_transfer_settings node_transfers() { return detail::env().node_transfers(); }
/// Switches node-aware storage and transfers on or off for arrays made (or resized) from now
/// on. Collective: every locale makes the same call at the same point of the program (each
/// array's storage is chosen collectively); settings that differ between locales are an
/// argument_error on every locale and change nothing. Arrays already in node-shared memory stay
/// there, but a transfer into one copies directly only while the setting is on.
inline void set_node_transfers(const node_transfer_settings& s) { detail::env().set_node_transfers(s); }

}  // namespace dmap
