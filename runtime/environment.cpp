// The compiled part of runtime/environment.hpp: starting and stopping MPI and the oneTBB arena,
// the settings, the node split.
#include "environment.hpp"

#include "detail/collective_calls.hpp"
#include "detail/thread_pool.hpp"

#include <array>
#include <climits>

namespace dmap {

environment::environment(int& argc, char**& argv) { start(&argc, &argv, MPI_COMM_WORLD, false); }

environment::environment() { start(nullptr, nullptr, MPI_COMM_WORLD, false); }

environment::environment(MPI_Comm host) { start(nullptr, nullptr, host, true); }

environment::~environment() {
  // Attachments may hold MPI objects (BLACS grids): released while MPI still runs.
  while (!attachments_.empty()) attachments_.pop_back();
  stop_mpi();
  detail::current_environment = nullptr;
}

void environment::await_peer(int locale) {
  if (!progress_) return;
  const bool may_call_mpi = thread_level_ >= MPI_THREAD_SERIALIZED || on_main_thread();
  const std::uint64_t reads = progress_->await(locale, node_transfers_.enabled || !may_call_mpi, may_call_mpi,
                                               [this] { return std::unique_lock<std::mutex>(mpi_mutex_); });
  if (reads != 0) {
    const std::lock_guard<std::mutex> guard(mpi_mutex_);
    counters_.progress_checks += reads;
  }
}

void environment::set_node_transfers(const node_transfer_settings& s) {
  check_same_everywhere(s, "dmap::set_node_transfers: the settings");
  node_transfers_ = s;
}

void environment::start(int* argc, char*** argv, MPI_Comm locales, bool embedded) {
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
    node_size_ = node_size_asked(std::getenv("DMAP_NODE_SIZE"));
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
    // Each locale read its own environment variables; the nodes and the storage of every array
    // are chosen collectively from them, so they must agree (a per-node job script may set them
    // apart).
    check_settings_agree();
    find_node();
    detail::check_mpi(MPI_Op_create(&detail::combine_agreement_records, 1, &agreement_op_), "MPI_Op_create");
    if (size_ > 1) progress_ = std::make_unique<detail::progress_board>(comm_, node_comm_, node_locales_, rank_, size_,
                                                                        machine_leader_, node_turns_, node_turn_);
    // Lets the arena have more workers than cores when DMAP_NUM_THREADS asks for them; without
    // it, the process-wide limit stays whatever the program (or a host) set.
    pool_ = std::make_unique<detail::thread_pool>();
    if (threads_setting != nullptr && *threads_setting != '\0')
      pool_->parallelism = std::make_unique<oneapi::tbb::global_control>(
          oneapi::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads_));
    pool_->arena = std::make_unique<oneapi::tbb::task_arena>(threads_);
  } catch (...) {
    stop_mpi();
    throw;
  }
  detail::current_environment = this;
}

void environment::find_node() {
  detail::check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_comm_),
                    "MPI_Comm_split_type");
  MPI_Comm_set_errhandler(node_comm_, MPI_ERRORS_RETURN);
  int machine_rank = 0;
  MPI_Comm_rank(node_comm_, &machine_rank);
  machine_leader_ = machine_rank == 0;
  if (node_size_ > 0) {  // simulated nodes: consecutive groups of node_size_ locales of this machine
    int machine_size = 1;
    MPI_Comm_size(node_comm_, &machine_size);
    node_turn_ = machine_rank / node_size_;
    const int turns = (machine_size - 1) / node_size_ + 1;
    detail::check_mpi(MPI_Allreduce(&turns, &node_turns_, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce(node turns)");
    MPI_Comm machine = node_comm_;
    node_comm_ = MPI_COMM_NULL;
    const int code = MPI_Comm_split(machine, machine_rank / node_size_, machine_rank, &node_comm_);
    MPI_Comm_free(&machine);
    detail::check_mpi(code, "MPI_Comm_split(simulated nodes)");
    MPI_Comm_set_errhandler(node_comm_, MPI_ERRORS_RETURN);
  }
  int members = 0;
  MPI_Comm_size(node_comm_, &members);
  node_locales_.resize(static_cast<std::size_t>(members));
  detail::check_mpi(MPI_Allgather(&rank_, 1, MPI_INT, node_locales_.data(), 1, MPI_INT, node_comm_),
                    "MPI_Allgather(node locales)");
  detail::check_mpi(MPI_Allreduce(&members, &largest_node_, 1, MPI_INT, MPI_MAX, comm_),
                    "MPI_Allreduce(largest node)");
}

void environment::agree_rejection(MPI_Comm locales, const std::exception_ptr& rejected) {
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

namespace {

// The least and the greatest value one setting has over the locales.
struct value_range {
  std::uint64_t low = 0, high = 0;
  bool one() const noexcept { return low == high; }
  std::string text() const {
    return one() ? std::to_string(low) : std::to_string(low) + " on some, " + std::to_string(high) + " on others";
  }
};

// Collective over `comm`: the range of each of `values` over its locales, in one all-reduce of
// the values and their complements by minimum (as signed in the same order:
// detail::in_signed_order).
template <std::size_t K>
std::array<value_range, K> ranges_over(MPI_Comm comm, const std::array<std::uint64_t, K>& values) {
  std::array<std::int64_t, 2 * K> mine{}, all{};
  for (std::size_t k = 0; k < K; ++k) {
    mine[k] = detail::in_signed_order(values[k]);
    mine[K + k] = detail::in_signed_order(~values[k]);
  }
  detail::check_mpi(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(2 * K), MPI_INT64_T, MPI_MIN, comm),
                    "MPI_Allreduce(settings)");
  std::array<value_range, K> out;
  for (std::size_t k = 0; k < K; ++k)
    out[k] = {detail::from_signed_order(all[k]), ~detail::from_signed_order(all[K + k])};
  return out;
}

// Throws argument_error (`what` must be the same everywhere) unless both node-transfer settings
// have one value.
void require_same_transfers(const value_range& enabled, const value_range& min_bytes, const char* what) {
  if (!enabled.one() || !min_bytes.one())
    throw argument_error(std::string(what) + " must be the same on every locale (node transfers on: " +
                         enabled.text() + "; min bytes: " + min_bytes.text() + ")");
}

}  // namespace

void environment::check_same_everywhere(const node_transfer_settings& s, const char* what) const {
  if (size_ == 1) return;
  const auto r = ranges_over<2>(comm_, {s.enabled ? 1u : 0u, s.min_bytes});
  require_same_transfers(r[0], r[1], what);
}

void environment::check_settings_agree() const {
  if (size_ == 1) return;
  const auto r = ranges_over<3>(comm_, {node_transfers_.enabled ? 1u : 0u, node_transfers_.min_bytes,
                                        static_cast<std::uint64_t>(node_size_)});
  require_same_transfers(r[0], r[1], "dmap::environment: DMAP_NODE_TRANSFERS and DMAP_NODE_MIN_BYTES");
  if (!r[2].one())
    throw argument_error("dmap::environment: DMAP_NODE_SIZE must be the same on every locale (" + r[2].text() +
                         "; 0: unset)");
}

void environment::stop_mpi() noexcept {
  progress_.reset();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (agreement_op_ != MPI_OP_NULL && !finalized) MPI_Op_free(&agreement_op_);
  if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  if (owns_mpi_ && !finalized) MPI_Finalize();
}

void environment::check_host(MPI_Comm host, int initialized) {
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

int environment::threads_asked(const char* text) {
  if (text == nullptr || *text == '\0') return oneapi::tbb::info::default_concurrency();
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 1 || value > 4096)
    throw argument_error(std::string("dmap::environment: DMAP_NUM_THREADS='") + text +
                         "' must be an integer in [1, 4096]");
  return static_cast<int>(value);
}

int environment::node_size_asked(const char* text) {
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 1 || value > INT_MAX)
    throw argument_error(std::string("dmap::environment: DMAP_NODE_SIZE='") + text +
                         "' must be an integer in [1, 2147483647]");
  return static_cast<int>(value);
}

auto environment::node_transfers_asked(const char* on, const char* min_bytes) -> node_transfer_settings {
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

}  // namespace dmap
