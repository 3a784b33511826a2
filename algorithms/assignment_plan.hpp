// Plans as objects (Tpetra's Import): the communication plan of `dst = src` built once, run
// many times, split into start and finish so computation can overlap the messages, and
// asked what it moves (peers, messages, bytes). `dst = src` keeps using the same plans
// through the destination domain's cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/array_view.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/detail/assignment.hpp"
#include "../runtime/agreement.hpp"
#include "detail/assignment_plan.hpp"
#include "plan_summary.hpp"

namespace dmap {

/// The plan of `dst = src` between two arrays or array views of the same shape (any maps,
/// any index sets), made by plan_assignment. Holds references to both sides: they must
/// outlive it. Running it after either side's domain changed its indices, or after an array
/// was moved from, throws argument_error on every locale.
template <class T, std::size_t N>
class assignment_plan {
 public:
  /// Collective: copies every element of the source into the destination (start + finish).
  void run() {
    start();
    finish();
  }
  /// Collective: posts the messages and makes this locale's own copies. Until finish(),
  /// the source must not be written and the destination not be read or written (messages
  /// may be sent from and received into them directly). Throws argument_error when a run
  /// is already in flight.
  void start() {
    const detail::collective_scope scope;  // its own copies land in the destination now
    if (pending_)
      throw argument_error("dmap::assignment_plan::start: a run is already in flight; call finish() first");
    // One fixed-size agreement: a side that changed on one locale fails every locale.
    const auto [from, to] = agreed([&] {
      return std::pair{current(from_, from_key_, "source"), current(to_, to_key_, "destination")};
    });
    const T* source = from.data;
    before_.clear();
    if (from.data == to.data && from.data != nullptr) {  // both sides in one buffer: read a copy
      before_.assign(from.data, from.data + from.local_size);
      source = before_.data();
    }
    pending_.emplace(*plan_, source, to.data, true, to.node);
  }
  /// Waits for the messages of the run in flight and stores what arrived (argument_error
  /// when none is in flight).
  void finish() {
    const detail::collective_scope scope;
    if (!pending_) throw argument_error("dmap::assignment_plan::finish: no run is in flight; call start() first");
    auto running = std::move(*pending_);
    pending_.reset();
    running.finish();
    before_.clear();
  }
  /// True between start() and finish().
  bool in_flight() const noexcept { return pending_.has_value(); }
  /// What this locale's part of the plan moves per run.
  plan_summary summary() const { return detail::summarize(*plan_); }
  /// Bytes this locale sends per run.
  std::uint64_t bytes_sent() const { return static_cast<std::uint64_t>(summary().elements_sent) * sizeof(T); }
  /// Bytes this locale receives per run.
  std::uint64_t bytes_received() const { return static_cast<std::uint64_t>(summary().elements_received) * sizeof(T); }

  /// Moves a plan (and a run in flight with it).
  assignment_plan(assignment_plan&&) noexcept = default;
  /// Finishes a run left in flight (errors are not reported from a destructor).
  ~assignment_plan() {
    if (!pending_) return;
    try {
      finish();
    } catch (...) {
    }
  }

 private:
  template <class Dst, class Src>
  friend auto plan_assignment(Dst& dst, const Src& src);
  using side = std::function<detail::placed_elements<T, N>()>;

  assignment_plan(side from, side to) : from_(std::move(from)), to_(std::move(to)) {
    const auto f = from_(), t = to_();
    from_key_ = f.key;
    to_key_ = t.key;
    const auto locate_from = [&] {
      detail::locator<N> l = f.locate();
      return l.whole == t.whole ? l : detail::reindexed(l, t.whole);
    };
    plan_ = detail::cached_transfer_plan<N>(*t.plans, f.key, t.key, locate_from, t.locate);
  }
  // The side as it is now; argument_error when its placement is not the one planned for.
  detail::placed_elements<T, N> current(const side& s, const detail::placement_key& planned, const char* which) const {
    auto now = s();
    if (!now.key.same_as(planned))
      throw argument_error(std::string("dmap::assignment_plan: the ") + which +
                           "'s domain changed its indices (or was destroyed) since the plan was made; make a new "
                           "plan with dmap::plan_assignment");
    return now;
  }

  side from_, to_;
  detail::placement_key from_key_, to_key_;
  std::shared_ptr<const detail::transfer_plan<N>> plan_;
  std::optional<detail::pending_transfer<T, N>> pending_;
  std::vector<T> before_;
};

/// Collective: the plan of `dst = src` (arrays or array views of equal shape; the k-th index
/// in row-major order of `src` gives its value to the k-th of `dst`), built once (or taken
/// from the destination domain's plan cache, shared with `dst = src`). Throws shape_error
/// when the shapes differ and argument_error for a moved-from array.
template <class Dst, class Src>
auto plan_assignment(Dst& dst, const Src& src) {
  using dst_side = detail::assignable_side<std::remove_cvref_t<Dst>>;
  using src_side = detail::assignable_side<std::remove_cvref_t<Src>>;
  using T = typename dst_side::value_type;
  constexpr std::size_t N = dst_side::rank;
  static_assert(std::is_same_v<T, typename src_side::value_type> && N == src_side::rank,
                "dmap::plan_assignment: both sides need the same element type and rank");
  // One agreement: both sides whole and of one shape, and every locale plans the same two
  // (the identities `dst = src` agrees on).
  std::optional<detail::placed_elements<T, N>> from, to;
  const auto checked = detail::exception_of([&] {
    dst_side::check(dst, "dmap::plan_assignment (destination)");
    src_side::check(src, "dmap::plan_assignment (source)");
    detail::check_assignment_shapes(src_side::indices(src), dst_side::indices(dst), "dmap::plan_assignment");
    from.emplace(src_side::reader(src)());
    to.emplace(dst_side::reader(dst)());
  });
  agree(checked, checked ? detail::call_arguments{} : detail::assignment_arguments(*from, *to, "dmap::plan_assignment"));
  return assignment_plan<T, N>(src_side::reader(src), dst_side::reader(dst));
}

}  // namespace dmap
