// Reverse halos: what a locale wrote into its ghost cells (finite-element assembly, particle
// deposition) combined into the owners' elements, by any operation. The halo update's plan
// run backwards: each locale sends the ghost cells it would have received, in the same
// message order, to the locale that would have sent them, and that owner combines them into
// its elements; one aggregated message per neighbouring locale, no collective call.
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/detail/transfer.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/detail/buffers.hpp"
#include "../runtime/detail/messages.hpp"
#include "halos.hpp"

namespace dmap {

/// An operation a halo reduction combines with: `op(owned, contribution)` gives the owned
/// element's new value.
template <class Op, class T>
concept halo_combiner = std::invocable<Op&, const T&, const T&> &&
                        std::convertible_to<std::invoke_result_t<Op&, const T&, const T&>, T>;

/// A halo reduction in flight (see start_halo_reduction): the ghost cells have left in
/// messages; `finish()` combines every contribution into its owner's element. Dropping it
/// unfinished loses the contributions. Movable, not copyable.
template <class T, std::size_t N, halo_combiner<T> Op>
class [[nodiscard]] halo_reduction {
 public:
  /// Waits for the neighbours' contributions and combines them, and this locale's own
  /// (periodic images it holds of its elements), into the owned elements: the owned value
  /// first, then the contributions by increasing source locale (one source's in the plan's
  /// fixed order); then sets every ghost cell to the reset value, if one was given. An
  /// operation that may throw (not noexcept) costs one fixed-size agreement, so that its
  /// failure on one locale is thrown on every locale; a noexcept one, none. Throws
  /// argument_error when the reduction was already finished (or moved from).
  void finish() {
    const detail::collective_scope scope;
    if (!plan_)
      throw argument_error(
          "dmap::halo_reduction::finish: this reduction was already finished or moved from; each "
          "start_halo_reduction is finished once");
    const auto plan = std::move(plan_);
    batch_.wait();
    if constexpr (std::is_nothrow_invocable_v<Op&, const T&, const T&>) {
      combine(*plan);
    } else {
      agreed([&] { combine(*plan); });
    }
    incoming_.clear();
    outgoing_.clear();
  }

  /// Moves a reduction in flight.
  halo_reduction(halo_reduction&&) noexcept = default;

 private:
  template <class U, std::size_t M, halo_combiner<U> O>
  friend halo_reduction<U, M, O> start_halo_reduction(array<U, M>& a, O op, halo_shape shape,
                                                      std::type_identity_t<std::optional<U>> reset);

  // Posts the receives of the owners' side (the halo update's sends) and the sends of the
  // ghost cells (its receives), sent straight from the storage when they are one run of it.
  halo_reduction(std::shared_ptr<const detail::transfer_plan<N>> plan, T* data, Op op, std::optional<T> reset,
                 std::vector<std::pair<rect<N>, dense_layout<N>>> ghosts)
      : plan_(std::move(plan)), data_(data), op_(std::move(op)), reset_(std::move(reset)), ghosts_(std::move(ghosts)) {
    const auto& owners = plan_->sends();
    incoming_.resize(detail::messages_in(owners));
    std::size_t m = 0;  // the message (one peer's) among those the plan's messages stand for
    for (const auto& msg : owners)
      detail::for_each_peer_of(msg, [&](int peer, index_t) {
        const std::size_t bytes = static_cast<std::size_t>(msg.count) * sizeof(T);
        incoming_[m] = detail::message_buffers().take(bytes);
        batch_.receive(peer, incoming_[m++].template as<T>(), bytes);
      });
    const auto& holders = plan_->receives();
    outgoing_.resize(detail::messages_in(holders));
    m = 0;
    for (const auto& msg : holders)
      detail::for_each_peer_of(msg, [&](int peer, index_t moved) {
        const std::size_t bytes = static_cast<std::size_t>(msg.count) * sizeof(T);
        if (msg.offsets.empty())
          if (const auto run = msg.line) {
            batch_.send(peer, data_ + (*run + moved), bytes);
            ++m;
            return;
          }
        outgoing_[m] = detail::message_buffers().take(bytes);
        detail::pack_message(msg, data_, outgoing_[m].template as<T>(), moved);
        batch_.send(peer, outgoing_[m++].template as<T>(), bytes);
      });
  }

  // The contributions into the owned elements, by increasing source locale (this locale's own
  // ghost cells at its place), then the reset of the ghost cells.
  void combine(const detail::transfer_plan<N>& plan) {
    const auto store = [this](T& owned, const T& contribution) { owned = op_(std::as_const(owned), contribution); };
    const auto& owners = plan.sends();
    const int me = here();
    bool own_done = false;
    const auto own = [&] {
      own_done = true;
      for (const auto& c : plan.local())  // from: the owned block, to: the ghost block
        detail::for_each_repeat(c.again, [&](index_t owned_moved, index_t ghost_moved) {
          detail::for_each_paired_run(c.part, c.to, c.from, [&](index_t g, index_t gs, index_t o, index_t os, index_t n) {
            g += ghost_moved, o += owned_moved;
            for (index_t k = 0; k < n; ++k) store(data_[o + k * os], data_[g + k * gs]);
          });
        });
      for (const auto& [owned, ghost] : plan.local_offsets()) store(data_[owned], data_[ghost]);
    };
    std::size_t m = 0;
    for (const auto& msg : owners)
      detail::for_each_peer_of(msg, [&](int peer, index_t moved) {
        if (!own_done && peer > me) own();
        detail::unpack_message(msg, static_cast<const T*>(incoming_[m++].template as<T>()), data_, store, moved);
      });
    if (!own_done) own();
    if (reset_)
      for (const auto& g : ghosts_)
        detail::for_each_run(g.first, g.second, [&](index_t offset, index_t step, index_t count) {
          for (index_t k = 0; k < count; ++k) data_[offset + k * step] = *reset_;
        });
  }

  std::shared_ptr<const detail::transfer_plan<N>> plan_;
  T* data_;
  Op op_;
  std::optional<T> reset_;
  std::vector<std::pair<rect<N>, dense_layout<N>>> ghosts_;
  std::vector<detail::pooled_buffer> incoming_, outgoing_;
  detail::message_batch batch_;
};

/// Collective: starts combining every ghost cell of `a` into the element it stands for, at
/// its owner: `owned = op(owned, ghost)` for each ghost cell of every locale (a cell that is a
/// ghost on several locales, or several periodic images on one, gives each contribution;
/// ghost cells beyond a non-periodic edge stand for no element and give nothing). With
/// halo_shape::box (the default) every ghost cell contributes, with halo_shape::star only the
/// faces (beyond the owned chunk along exactly one dimension). The messages leave now: one
/// per neighbouring locale, the halo update's messages in reverse (the same plan, kept by the
/// domain), and no collective call. Until `finish()`, ghost cells must not be written (they
/// may be sent from directly); owned elements may be computed on, the contributions are
/// combined into their values at `finish()`. Ghost cells keep their values unless `reset` is
/// given: then finish() sets every ghost cell of this locale (whatever the shape) to it, ready
/// for the next deposition. Throws argument_error on every locale when the array's map holds
/// no ghost cells or the array was moved from.
template <class T, std::size_t N, halo_combiner<T> Op>
[[nodiscard]] halo_reduction<T, N, Op> start_halo_reduction(array<T, N>& a, Op op, halo_shape shape,
                                                            std::type_identity_t<std::optional<T>> reset) {
  auto plan = detail::cached_halo_plan(a, shape, "dmap::start_halo_reduction");
  std::vector<std::pair<rect<N>, dense_layout<N>>> ghosts;
  if (reset) {
    const auto& st = *detail::state_of(a.domain());
    for (std::size_t k = 0; k < st.my_layouts.size(); ++k)
      for (const rect<N>& slab : difference(st.my_layouts[k].indices, st.my_subdomains[k]))
        ghosts.emplace_back(slab, st.my_layouts[k]);
  }
  return halo_reduction<T, N, Op>(std::move(plan), a.local_data(), std::move(op), std::move(reset), std::move(ghosts));
}

/// Collective: start_halo_reduction(a, op, shape, no reset).
template <class T, std::size_t N, halo_combiner<T> Op>
[[nodiscard]] halo_reduction<T, N, Op> start_halo_reduction(array<T, N>& a, Op op, halo_shape shape) {
  return start_halo_reduction(a, std::move(op), shape, std::optional<T>{});
}

/// Collective: start_halo_reduction(a, op, halo_shape::box, no reset).
template <class T, std::size_t N, halo_combiner<T> Op>
[[nodiscard]] halo_reduction<T, N, Op> start_halo_reduction(array<T, N>& a, Op op) {
  return start_halo_reduction(a, std::move(op), halo_shape::box, std::optional<T>{});
}

/// Collective: start_halo_reduction(a, std::plus<>{}, halo_shape::box, no reset): the sum.
template <class T, std::size_t N>
[[nodiscard]] halo_reduction<T, N, std::plus<>> start_halo_reduction(array<T, N>& a) {
  return start_halo_reduction(a, std::plus<>{}, halo_shape::box, std::optional<T>{});
}

/// Collective: combines every ghost cell of `a` into its owner's element with `op` (the sum
/// by default): start_halo_reduction(a, op, shape, reset).finish().
template <class T, std::size_t N, halo_combiner<T> Op = std::plus<>>
void reduce_halos(array<T, N>& a, Op op = {}, halo_shape shape = halo_shape::box,
                  std::type_identity_t<std::optional<T>> reset = std::nullopt) {
  start_halo_reduction(a, std::move(op), shape, std::move(reset)).finish();
}

}  // namespace dmap
