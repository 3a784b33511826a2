// The program environment: MPI (locales), the oneTBB arena of this locale, counters.
#pragma once

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_arena.h>

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
  environment(int& argc, char**& argv) { start(&argc, &argv, MPI_COMM_WORLD, false); }
  /// Starts the environment without command-line arguments, over MPI_COMM_WORLD.
  environment() { start(nullptr, nullptr, MPI_COMM_WORLD, false); }
  /// Embedding: runs dmap inside a host program that has initialised MPI, on the ranks of the
  /// host's intra-communicator `host` (rank r of `host` is locale r). dmap works on its own
  /// duplicate of `host`, so its messages never meet the host's; MPI stays the host's to
  /// finalise, after this environment is destroyed.
  explicit environment(MPI_Comm host) { start(nullptr, nullptr, host, true); }
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

  ~environment() {
    // Attachments may hold MPI objects (BLACS grids): released while MPI still runs.
    while (!attachments_.empty()) attachments_.pop_back();
    stop_mpi();
    detail::current_environment = nullptr;
  }

  /// This locale's id (its rank in the library's communicator).
  int rank() const noexcept { return rank_; }
  /// The number of locales.
  int size() const noexcept { return size_; }
  /// The number of threads this locale's arena runs.
  int threads() const noexcept { return threads_; }
  /// The library's private communicator (a duplicate of MPI_COMM_WORLD or of the host's).
  MPI_Comm comm() const noexcept { return comm_; }
  /// The oneTBB arena every parallel loop of this locale runs in.
  oneapi::tbb::task_arena& arena() noexcept { return *arena_; }
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
  /// The locales on this locale's node (MPI's shared-memory split), by increasing id.
  const std::vector<int>& node_locales() const noexcept { return node_locales_; }
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
  void await_peer(int locale) {
    if (!progress_) return;
    const bool may_call_mpi = thread_level_ >= MPI_THREAD_SERIALIZED || on_main_thread();
    const std::uint64_t reads = progress_->await(locale, node_transfers_.enabled || !may_call_mpi, may_call_mpi,
                                                 [this] { return std::unique_lock<std::mutex>(mpi_mutex_); });
    if (reads != 0) {
      const std::lock_guard<std::mutex> guard(mpi_mutex_);
      counters_.progress_checks += reads;
    }
  }
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
  void set_node_transfers(const node_transfer_settings& s) {
    check_same_everywhere(s, "dmap::set_node_transfers: the settings");
    node_transfers_ = s;
  }
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
  void start(int* argc, char*** argv, MPI_Comm locales, bool embedded) {
    if (detail::current_environment != nullptr)
      throw runtime_error("dmap::environment: an environment already exists; create exactly one");
    // The settings are checked before MPI starts: a rejected one leaves nothing to finalise,
    // and the program may correct it and create the environment again. When MPI already runs
    // (a host started it), a setting rejected on some locales only is agreed over the host's
    // locales first, so every locale throws. (Node-transfer settings that differ between
    // locales are found once MPI runs, below.)
    const char* threads_setting = std::getenv("DMAP_NUM_THREADS");
    int initialized = 0;
    MPI_Initialized(&initialized);
    std::exception_ptr rejected;
    try {
      threads_ = threads_asked(threads_setting);
      node_transfers_ = node_transfers_asked(std::getenv("DMAP_NODE_TRANSFERS"), std::getenv("DMAP_NODE_MIN_BYTES"));
    } catch (...) {
      if (!initialized) throw;
      rejected = std::current_exception();
    }
    if (embedded) check_host(locales, initialized);
    if (initialized) agree_rejection(locales, rejected);
    int provided = 0;
    if (!initialized) {
      detail::check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided),
                        "MPI_Init_thread");
      owns_mpi_ = true;
    } else {
      MPI_Query_thread(&provided);
    }
    // A failure from here on finalises what was started, so the job still ends cleanly.
    try {
      if (provided < MPI_THREAD_FUNNELED)
        throw runtime_error("dmap::environment: MPI provides thread level " + std::to_string(provided) +
                            ", dmap needs MPI_THREAD_FUNNELED or higher");
      thread_level_ = provided;
      main_thread_ = std::this_thread::get_id();
      detail::check_mpi(MPI_Comm_dup(locales, &comm_), "MPI_Comm_dup");
      MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
      MPI_Comm_rank(comm_, &rank_);
      MPI_Comm_size(comm_, &size_);
      find_node();
      // Each locale read its own environment variables; the storage of every array is chosen
      // collectively from them, so they must agree (a per-node job script may set them apart).
      check_same_everywhere(node_transfers_, "dmap::environment: DMAP_NODE_TRANSFERS and DMAP_NODE_MIN_BYTES");
      detail::check_mpi(MPI_Op_create(&detail::combine_agreement_records, 1, &agreement_op_), "MPI_Op_create");
      if (size_ > 1) progress_ = std::make_unique<detail::progress_board>(comm_, node_comm_, node_locales_, rank_, size_);
      // Lets the arena have more workers than cores when DMAP_NUM_THREADS asks for them; without
      // it, the process-wide limit stays whatever the program (or a host) set.
      if (threads_setting != nullptr && *threads_setting != '\0')
        parallelism_ = std::make_unique<oneapi::tbb::global_control>(
            oneapi::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads_));
      arena_ = std::make_unique<oneapi::tbb::task_arena>(threads_);
    } catch (...) {
      stop_mpi();
      throw;
    }
    detail::current_environment = this;
  }

  // Splits the locales by node (MPI_COMM_TYPE_SHARED): this node's locales and the largest
  // node's size.
  void find_node() {
    detail::check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_comm_),
                      "MPI_Comm_split_type");
    MPI_Comm_set_errhandler(node_comm_, MPI_ERRORS_RETURN);
    int members = 0;
    MPI_Comm_size(node_comm_, &members);
    node_locales_.resize(static_cast<std::size_t>(members));
    detail::check_mpi(MPI_Allgather(&rank_, 1, MPI_INT, node_locales_.data(), 1, MPI_INT, node_comm_),
                      "MPI_Allgather(node locales)");
    detail::check_mpi(MPI_Allreduce(&members, &largest_node_, 1, MPI_INT, MPI_MAX, comm_),
                      "MPI_Allreduce(largest node)");
  }

  // Collective over the host's `locales`: when some locale rejected its settings (`rejected`),
  // throws on every locale: the original where it was raised, an argument_error naming the
  // lowest such locale and carrying its message elsewhere. MPI's collectives over `locales` are
  // apart from the host's point-to-point messages, so this meets none of them.
  static void agree_rejection(MPI_Comm locales, const std::exception_ptr& rejected) {
    int rank = 0, size = 1;
    detail::check_mpi(MPI_Comm_rank(locales, &rank), "MPI_Comm_rank");
    detail::check_mpi(MPI_Comm_size(locales, &size), "MPI_Comm_size");
    int first = size;
    const int mine = rejected ? rank : size;
    detail::check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, locales), "MPI_Allreduce(settings)");
    if (first == size) return;
    std::string message;
    if (rank == first) {
      try {
        std::rethrow_exception(rejected);
      } catch (const std::exception& e) {
        message = e.what();
      } catch (...) {
        message = "an unknown exception";
      }
    }
    int length = static_cast<int>(std::min<std::size_t>(message.size(), 4096));
    detail::check_mpi(MPI_Bcast(&length, 1, MPI_INT, first, locales), "MPI_Bcast(settings)");
    message.resize(static_cast<std::size_t>(length));
    detail::check_mpi(MPI_Bcast(message.data(), length, MPI_CHAR, first, locales), "MPI_Bcast(settings)");
    if (rank == first) std::rethrow_exception(rejected);
    throw argument_error("dmap::environment: locale " + std::to_string(first) + " rejected its settings: " + message);
  }

  // Collective: throws argument_error on every locale (the same message) when `s` differs
  // between locales; `what` names the settings. One all-reduce of the settings and their
  // complements by minimum gives each field's least and greatest value.
  void check_same_everywhere(const node_transfer_settings& s, const char* what) const {
    if (size_ == 1) return;
    const std::uint64_t enabled = s.enabled ? 1 : 0;
    const std::uint64_t mine[4] = {enabled, s.min_bytes, ~enabled, ~s.min_bytes};
    std::uint64_t all[4] = {};
    detail::check_mpi(MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_MIN, comm_), "MPI_Allreduce(node-transfer settings)");
    const auto range = [](std::uint64_t low, std::uint64_t high) {
      return low == high ? std::to_string(low) : std::to_string(low) + " on some, " + std::to_string(high) + " on others";
    };
    if (all[0] != ~all[2] || all[1] != ~all[3])
      throw argument_error(std::string(what) + " must be the same on every locale (node transfers on: " +
                           range(all[0], ~all[2]) + "; min bytes: " + range(all[1], ~all[3]) + ")");
  }

  // Frees the library's communicators and finalises MPI when this environment started it.
  void stop_mpi() noexcept {
    progress_.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (agreement_op_ != MPI_OP_NULL && !finalized) MPI_Op_free(&agreement_op_);
    if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    if (owns_mpi_ && !finalized) MPI_Finalize();
  }

  // An embedding host's MPI must be running and `host` an intra-communicator of it.
  static void check_host(MPI_Comm host, int initialized) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
      throw argument_error("dmap::environment(host): MPI must be initialised, and not finalised, by the host "
                           "before it hands dmap a communicator");
    if (host == MPI_COMM_NULL) throw argument_error("dmap::environment(host): host is MPI_COMM_NULL");
    int inter = 0;
    detail::check_mpi(MPI_Comm_test_inter(host, &inter), "MPI_Comm_test_inter");
    if (inter) throw argument_error("dmap::environment(host): host is an inter-communicator; dmap needs an intra-communicator");
  }

  // The arena width: `text` (DMAP_NUM_THREADS) when set, an integer in [1, 4096]; else the
  // cores this process may use.
  static int threads_asked(const char* text) {
    if (text == nullptr || *text == '\0') return oneapi::tbb::info::default_concurrency();
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < 1 || value > 4096)
      throw argument_error(std::string("dmap::environment: DMAP_NUM_THREADS='") + text +
                           "' must be an integer in [1, 4096]");
    return static_cast<int>(value);
  }

  // The node-transfer settings from DMAP_NODE_TRANSFERS ("0"/"1") and DMAP_NODE_MIN_BYTES (an
  // integer >= 0), defaults where unset.
  static node_transfer_settings node_transfers_asked(const char* on, const char* min_bytes) {
    node_transfer_settings s;
    if (on != nullptr && *on != '\0') {
      const std::string v = on;
      if (v != "0" && v != "1")
        throw argument_error("dmap::environment: DMAP_NODE_TRANSFERS='" + v + "' must be 0 or 1");
      s.enabled = v == "1";
    }
    if (min_bytes != nullptr && *min_bytes != '\0') {
      char* end = nullptr;
      errno = 0;
      const long long value = std::strtoll(min_bytes, &end, 10);
      if (errno != 0 || *end != '\0' || value < 0)
        throw argument_error(std::string("dmap::environment: DMAP_NODE_MIN_BYTES='") + min_bytes +
                             "' must be an integer in [0, 2^63 - 1]");
      s.min_bytes = static_cast<std::uint64_t>(value);
    }
    return s;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm node_comm_ = MPI_COMM_NULL;
  MPI_Op agreement_op_ = MPI_OP_NULL;
  std::vector<int> node_locales_;
  int largest_node_ = 1;
  node_transfer_settings node_transfers_;
  bool owns_mpi_ = false;
  int rank_ = 0;
  int size_ = 1;
  int threads_ = 1;
  std::unique_ptr<oneapi::tbb::global_control> parallelism_;
  std::unique_ptr<oneapi::tbb::task_arena> arena_;
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
