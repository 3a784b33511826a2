// What one locale's part of a communication plan moves (peers, messages, bytes, runs): the
// summary that assignment plans and the scale model report.
#pragma once

#include <cstddef>
#include <vector>

#include "../dsi/index_type.hpp"

namespace dmap {

/// What one locale's part of a plan moves: its peers, its messages and their payload, and
/// the elements it copies within itself. Equal on every run of the plan.
struct plan_summary {
  std::vector<int> send_peers;         ///< locales this locale sends to, increasing
  std::vector<int> receive_peers;      ///< locales it receives from, increasing
  index_t elements_sent = 0;           ///< elements in its messages
  index_t elements_received = 0;       ///< elements in the messages it receives
  index_t elements_copied = 0;         ///< elements copied within this locale
  std::size_t parts = 0;               ///< rect parts its messages and copies list (one repeated part, or one repeated at a run of peers, counts once)
  index_t local_runs = 0;              ///< contiguous or constant-step runs its own copies make
  index_t message_runs = 0;            ///< runs its messages are packed from and unpacked into
  std::size_t plan_bytes = 0;          ///< memory the plan holds on this locale (approximate)
  std::size_t node_copy_bytes = 0;     ///< of plan_bytes, what its copies into node peers' storage hold

  /// Messages this locale sends per run (one per send peer).
  std::size_t messages_sent() const noexcept { return send_peers.size(); }
  /// Messages it receives per run.
  std::size_t messages_received() const noexcept { return receive_peers.size(); }
  friend bool operator==(const plan_summary&, const plan_summary&) = default;
};

}  // namespace dmap
