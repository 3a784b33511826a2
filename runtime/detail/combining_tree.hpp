// The fixed combining tree of reductions across locales: a binomial tree over a group's
// members in locale order, so the grouping depends only on the group's size and the result
// is bit-identical from run to run. O(log n) messages per member, O(1) memory.
#pragma once

#include <array>
#include <bit>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../collectives.hpp"

namespace dmap::detail {

/// The locales taking part in one combining tree, in increasing locale order: every locale,
/// or a listed subset (the locales of one copy layer).
class locale_group {
 public:
  /// Every locale.
  locale_group() = default;
  /// The locales `members` (increasing; this locale among them).
  explicit locale_group(std::vector<int> members) : members_(std::move(members)), listed_(true) {}

  /// The number of members.
  int size() const { return listed_ ? static_cast<int>(members_.size()) : env().size(); }
  /// The locale at position `k` in [0, size()).
  int locale(int k) const { return listed_ ? members_[static_cast<std::size_t>(k)] : k; }
  /// This locale's position.
  int position_here() const {
    if (!listed_) return env().rank();
    int k = 0;
    while (members_[static_cast<std::size_t>(k)] != env().rank()) ++k;
    return k;
  }

 private:
  std::vector<int> members_;
  bool listed_ = false;
};

constexpr int combining_tree_tag = 0x7472;

template <class T>
void tree_send(const T& value, int to) {
  auto& e = env();
  check_mpi(MPI_Send(&value, static_cast<int>(sizeof(T)), MPI_BYTE, to, combining_tree_tag, e.comm()),
            "MPI_Send");
  ++e.counters().messages_sent;
  e.counters().bytes_sent += sizeof(T);
}

template <class T>
T tree_receive(int from) {
  auto& e = env();
  std::array<std::byte, sizeof(T)> raw;  // T need not be default-constructible
  check_mpi(MPI_Recv(raw.data(), static_cast<int>(sizeof(T)), MPI_BYTE, from, combining_tree_tag, e.comm(),
                     MPI_STATUS_IGNORE),
            "MPI_Recv");
  ++e.counters().messages_received;
  e.counters().bytes_received += sizeof(T);
  return std::bit_cast<T>(raw);
}

/// Collective over `group`: combines the members' values along the binomial tree; the
/// result is at position 0 (elsewhere, the partial value this member passed up). In round s
/// (s = 0, 1, ...) the member at position k with bit s set sends its value to k - 2^s and
/// drops out; a member with bit s clear receives from k + 2^s, if there is one, and keeps
/// `combine(its value, received)`: lower positions always on the left. So the result is
/// T(0, n), with T(a, 1) the value at a and T(a, m) = combine(T(a, h), T(a + h, m - h)), h the
/// largest power of two below m. A member sends at most one message and receives at most
/// ceil(log2 n). `combine` must not throw (the members above would wait for ever).
template <transferable T, class Combine>
T tree_combine(T value, const locale_group& group, Combine&& combine) {
  static_assert(sizeof(T) <= INT_MAX, "dmap: a value travels in one message of at most 2^31-1 bytes");
  const int n = group.size();
  const int k = group.position_here();
  for (std::int64_t step = 1; step < n; step *= 2) {
    if (k & step) {
      tree_send(value, group.locale(k - static_cast<int>(step)));
      break;
    }
    if (k + step < n) value = combine(std::as_const(value), tree_receive<T>(group.locale(k + static_cast<int>(step))));
  }
  return value;
}

/// Collective over `group`: copies `value` from position 0 to every member along the tree of
/// tree_combine in reverse: each member but the first receives one message, from the member
/// it sent to there, and forwards the value to the members it received from there.
template <transferable T>
void tree_broadcast(T& value, const locale_group& group) {
  const int n = group.size();
  const int k = group.position_here();
  // The lowest set bit of k (the round in which k sent), or the first power of two >= n at 0.
  std::int64_t top = 1;
  if (k == 0)
    while (top < n) top *= 2;
  else
    top = k & -k;
  if (k != 0) value = tree_receive<T>(group.locale(k - static_cast<int>(top)));
  for (std::int64_t step = top / 2; step >= 1; step /= 2)
    if (k + step < n) tree_send(value, group.locale(k + static_cast<int>(step)));
}

}  // namespace dmap::detail
