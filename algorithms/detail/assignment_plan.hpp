// The machinery behind assignment_plan.hpp (not part of the API): the summary of a transfer
// plan, and what plan_assignment needs to know of each side (array or array view).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../dsi/array_view.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/detail/assignment.hpp"
#include "../plan_summary.hpp"

namespace dmap {

namespace detail {
/// The summary of this locale's transfer plan.
template <std::size_t N>
plan_summary summarize(const transfer_plan<N>& plan) {
  plan_summary s;
  s.plan_bytes = sizeof(plan) + plan.parts_bytes();
  const auto add = [&](const auto& messages, std::vector<int>& peers, index_t& elements) {
    peers.reserve(messages_in(messages));
    for (const auto& m : messages) {
      for_each_peer_of(m, [&](int peer, index_t) { peers.push_back(peer); });
      elements += m.count * m.again.count;
      s.parts += m.parts.size();
      index_t runs = static_cast<index_t>(m.offsets.size());
      for (const auto& pc : m.parts)
        if constexpr (N == 1) runs += pc.again.total();  // a 1-D part is one run
        else runs += run_cursor<N>(pc.indices, pc.block->layout, pc.block->shift, m.order).runs() * pc.again.total();
      s.message_runs += runs * m.again.count;
      s.plan_bytes += sizeof(m) + m.offsets.capacity() * sizeof(index_t);
    }
  };
  for (const auto& [peer, copies] : plan.direct()) {
    const std::size_t bytes = copies.capacity() * sizeof(typename transfer_plan<N>::copy);
    s.plan_bytes += bytes;
    s.node_copy_bytes += bytes;
  }
  add(plan.sends(), s.send_peers, s.elements_sent);
  add(plan.receives(), s.receive_peers, s.elements_received);
  s.elements_copied = plan.local_count();
  s.parts += plan.local().size();
  for (const auto& c : plan.local()) {
    index_t runs = 0;
    for_each_paired_run(c.part, c.from, c.to, [&](index_t, index_t, index_t, index_t, index_t) { ++runs; });
    s.local_runs += runs * c.again.total();
  }
  s.local_runs += static_cast<index_t>(plan.local_offsets().size());
  s.plan_bytes += plan.local().capacity() * sizeof(typename transfer_plan<N>::copy) +
                  plan.local_offsets().capacity() * sizeof(std::pair<index_t, index_t>);
  return s;
}

template <class X>
struct assignable_side;
template <transferable T, std::size_t N>
struct assignable_side<array<T, N>> {
  using value_type = T;
  static constexpr std::size_t rank = N;
  static rect<N> indices(const array<T, N>& a) { return a.domain().indices(); }
  static void check(const array<T, N>& a, const char* who) {
    check_array_live(a, who, "it has no elements to move");
  }
  static auto reader(const array<T, N>& a) {
    return [p = &a] {
      check(*p, "dmap::assignment_plan");
      return access::placed_elements_of(*p);
    };
  }
};
template <class U, std::size_t N, std::size_t M>
struct assignable_side<array_view<U, N, M>> {
  using value_type = std::remove_const_t<U>;
  static constexpr std::size_t rank = N;
  static rect<N> indices(const array_view<U, N, M>& v) { return v.indices(); }
  static void check(const array_view<U, N, M>&, const char*) {}
  static auto reader(const array_view<U, N, M>& v) {
    return [v] { return access::placed_elements_of(v); };
  }
};
}  // namespace detail

}  // namespace dmap
