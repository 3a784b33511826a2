// Moving elements between two placements of the same indices (which locale owns which
// rect, and where it stores it): every locale sends each peer the intersections of its
// blocks with the peer's, in one message per peer. Used by resize, gathers, array
// assignment and halo updates.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/buffers.hpp"
#include "../../runtime/detail/messages.hpp"
#include "../layout.hpp"
#include "../rect.hpp"
#include "chunks.hpp"

namespace dmap::detail {

/// One block of a placement: the indices it holds (`owned`) and where: the element of
/// index i lives at `layout.offset_of(i + shift)` (a nonzero shift stores indices under
/// other names, as periodic ghost cells do).
template <std::size_t N>
struct placed_block {
  rect<N> owned;
  dense_layout<N> layout;
  idx<N> shift{};
};

/// Where every locale keeps its indices: placement[q] lists locale q's blocks.
template <std::size_t N>
using placement = std::vector<std::vector<placed_block<N>>>;


/// Calls `f(offset, step, count)` for each row (run along the last dimension) of `part`,
/// a subset of `layout.indices`, in row-major order of `part`.
template <std::size_t N, class F>
void for_each_run(const rect<N>& part, const dense_layout<N>& layout, F&& f) {
  for_each_run(part, layout, idx<N>{}, std::forward<F>(f));
}
/// The same for the indices of `part` moved by `shift` (`part` + shift within the layout).
template <std::size_t N, class F>
void for_each_run(const rect<N>& part, const dense_layout<N>& layout, const idx<N>& shift, F&& f) {
  if (part.empty()) return;
  std::array<index_t, N> step{};
  for (std::size_t d = 0; d < N; ++d)
    step[d] = part.dim(d).size() == 1
                  ? 0
                  : part.dim(d).stride() / layout.indices.dim(d).stride() * layout.strides[d];
  const index_t base = layout.offset_of(part.first() + shift);
  const auto extents = part.shape();
  for_each_row_start<N>(extents, [&](const std::array<index_t, N>& k) {
    index_t offset = base;
    for (std::size_t d = 0; d + 1 < N; ++d) offset += k[d] * step[d];
    f(offset, step[N - 1], extents[N - 1]);
  });
}

/// Copies the elements of `part` from one block to another (both hold `part`).
template <class T, std::size_t N>
void copy_part(const rect<N>& part, const placed_block<N>& from, const T* from_base,
               const placed_block<N>& to, T* to_base) {
  std::vector<std::array<index_t, 2>> runs;
  for_each_run(part, to.layout, to.shift,
               [&](index_t offset, index_t step, index_t) { runs.push_back({offset, step}); });
  std::size_t row = 0;
  for_each_run(part, from.layout, from.shift, [&](index_t offset, index_t step, index_t count) {
    const auto [to_offset, to_step] = runs[row++];
    if (step == 1 && to_step == 1) {
      std::copy(from_base + offset, from_base + offset + count, to_base + to_offset);
      return;
    }
    for (index_t k = 0; k < count; ++k) to_base[to_offset + k * to_step] = from_base[offset + k * step];
  });
}

/// The bounds [lo, hi] (inclusive) of a nonempty range, whatever its direction.
inline std::pair<index_t, index_t> bounds_of(const range& r) {
  return {std::min(r.first(), r.last()), std::max(r.first(), r.last())};
}

/// Calls emit(a, b, part) for every pair of blocks a of `as` and b of `bs` whose indices meet
/// (part: the common indices), in the order of a loop over a then b. `bs` is indexed by bands
/// of equal bounds along the first dimension, each sorted along the last one, so maps made of
/// products of per-dimension pieces (BlockCyclic, Dimensional) pair in about
/// O(|as| (bands + log |bs|) + pairs) instead of O(|as| |bs|).
template <std::size_t N, class Emit>
void for_each_meeting(const std::vector<placed_block<N>>& as, const std::vector<placed_block<N>>& bs, Emit&& emit) {
  std::vector<std::size_t> hits;
  if (as.size() * bs.size() <= 256) {
    for (std::size_t a = 0; a < as.size(); ++a)
      for (std::size_t b = 0; b < bs.size(); ++b) {
        const rect<N> part = as[a].owned.intersect(bs[b].owned);
        if (!part.empty()) emit(a, b, part);
      }
    return;
  }
  struct band {
    std::pair<index_t, index_t> first_dim;  // bounds along dimension 0
    std::vector<std::size_t> members;       // sorted by their low bound along dimension N - 1
    bool ordered = true;                    // their high bounds along N - 1 increase too
  };
  std::vector<band> bands;
  {
    std::vector<std::size_t> order;
    for (std::size_t b = 0; b < bs.size(); ++b)
      if (!bs[b].owned.empty()) order.push_back(b);
    const auto key = [&](std::size_t b) {
      return std::tuple(bounds_of(bs[b].owned.dim(0)), bounds_of(bs[b].owned.dim(N - 1)).first, b);
    };
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return key(x) < key(y); });
    for (std::size_t b : order) {
      const auto d0 = bounds_of(bs[b].owned.dim(0));
      if (bands.empty() || bands.back().first_dim != d0) bands.push_back({d0, {}, true});
      auto& m = bands.back().members;
      if (!m.empty() &&
          bounds_of(bs[b].owned.dim(N - 1)).second < bounds_of(bs[m.back()].owned.dim(N - 1)).second)
        bands.back().ordered = false;
      m.push_back(b);
    }
  }
  for (std::size_t a = 0; a < as.size(); ++a) {
    const rect<N>& ra = as[a].owned;
    if (ra.empty()) continue;
    const auto a0 = bounds_of(ra.dim(0)), al = bounds_of(ra.dim(N - 1));
    hits.clear();
    for (const auto& bd : bands) {
      if (bd.first_dim.first > a0.second) break;
      if (bd.first_dim.second < a0.first) continue;
      auto it = bd.members.begin();
      if (bd.ordered)  // the first member whose high bound reaches a's low bound
        it = std::partition_point(bd.members.begin(), bd.members.end(), [&](std::size_t b) {
          return bounds_of(bs[b].owned.dim(N - 1)).second < al.first;
        });
      for (; it != bd.members.end(); ++it) {
        const auto bl = bounds_of(bs[*it].owned.dim(N - 1));
        if (bl.first > al.second) break;
        if (bl.second >= al.first) hits.push_back(*it);
      }
    }
    std::sort(hits.begin(), hits.end());
    for (std::size_t b : hits) {
      const rect<N> part = ra.intersect(bs[b].owned);
      if (!part.empty()) emit(a, b, part);
    }
  }
}

/// What one locale sends, receives and copies locally to move the indices present in two
/// placements from the first to the second: per peer, the parts (rect pieces) in message
/// order, computed by intersecting blocks (O(blocks), never per element). Maps known only
/// through a directory add element lists: offsets packed after the rect pieces, in the
/// same order on both sides (see dsi/locator.hpp). Reusable.
template <std::size_t N>
class transfer_plan {
 public:
  /// One piece of a message: `part` moves from block `from` to block `to`.
  struct piece {
    rect<N> part;
    placed_block<N> from;
    placed_block<N> to;
  };

  /// The plan of this locale for moving `from` to `to`. When `from` holds copies, `layers`
  /// gives each locale's copy layer and a destination receives only from the source
  /// locales of its own layer (a replicated array: each locale from its own copy).
  transfer_plan(const placement<N>& from, const placement<N>& to, const std::vector<int>* layers = nullptr) {
    const int p = num_locales(), me = here();
    sends_.resize(static_cast<std::size_t>(p));
    receives_.resize(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) {
      if (layers && (*layers)[static_cast<std::size_t>(q)] != (*layers)[static_cast<std::size_t>(me)]) continue;
      // Both sides list a message's pieces in the same order: by source block, then
      // destination block.
      auto& mine = q == me ? local_ : sends_[q];
      for_each_meeting<N>(from[me], to[q], [&](std::size_t f, std::size_t t, const rect<N>& part) {
        mine.push_back({part, from[me][f], to[q][t]});
      });
      if (q == me) continue;
      for_each_meeting<N>(from[q], to[me], [&](std::size_t f, std::size_t t, const rect<N>& part) {
        receives_[q].push_back({part, from[q][f], to[me][t]});
      });
    }
  }

  /// Pieces sent to each locale, in message order.
  const std::vector<std::vector<piece>>& sends() const noexcept { return sends_; }
  /// Pieces received from each locale, in message order.
  const std::vector<std::vector<piece>>& receives() const noexcept { return receives_; }
  /// Pieces copied within this locale.
  const std::vector<piece>& local() const noexcept { return local_; }
  /// The number of elements sent to locale q.
  index_t send_count(int q) const {
    return count(sends_[static_cast<std::size_t>(q)]) + element_count(send_offsets_, q);
  }
  /// The number of elements received from locale q.
  index_t receive_count(int q) const {
    return count(receives_[static_cast<std::size_t>(q)]) + element_count(receive_offsets_, q);
  }

  /// A plan of element lists only: `sends[q]` are the source offsets packed for locale q,
  /// `receives[q]` the destination offsets of what q sends, `local` (source, destination)
  /// pairs copied here.
  static transfer_plan of_elements(std::vector<std::vector<index_t>> sends,
                                   std::vector<std::vector<index_t>> receives,
                                   std::vector<std::pair<index_t, index_t>> local) {
    transfer_plan plan;
    const auto p = static_cast<std::size_t>(num_locales());
    plan.sends_.resize(p);
    plan.receives_.resize(p);
    plan.send_offsets_ = std::move(sends);
    plan.receive_offsets_ = std::move(receives);
    plan.local_offsets_ = std::move(local);
    return plan;
  }
  /// Source offsets sent to each locale after its rect pieces (element-list plans).
  const std::vector<std::vector<index_t>>& send_offsets() const noexcept { return send_offsets_; }
  /// Destination offsets of what each locale sends after its rect pieces.
  const std::vector<std::vector<index_t>>& receive_offsets() const noexcept { return receive_offsets_; }
  /// (source, destination) offsets copied within this locale.
  const std::vector<std::pair<index_t, index_t>>& local_offsets() const noexcept { return local_offsets_; }

 private:
  transfer_plan() = default;
  static index_t count(const std::vector<piece>& pieces) {
    index_t n = 0;
    for (const auto& pc : pieces) n += pc.part.size();
    return n;
  }
  static index_t element_count(const std::vector<std::vector<index_t>>& lists, int q) {
    return lists.empty() ? 0 : static_cast<index_t>(lists[static_cast<std::size_t>(q)].size());
  }

  std::vector<std::vector<piece>> sends_, receives_;
  std::vector<piece> local_;
  std::vector<std::vector<index_t>> send_offsets_, receive_offsets_;
  std::vector<std::pair<index_t, index_t>> local_offsets_;
};

/// A transfer in flight: messages posted and local copies done; `finish()` waits for the
/// messages and stores what arrived. Computation may run in between.
template <transferable T, std::size_t N>
class pending_transfer {
 public:
  /// Packs and posts every message of `plan` and makes the local copies. With `direct`, a
  /// message that is one contiguous run of the source is sent from it without packing, and
  /// one that lands in one contiguous run of the destination is received there: the caller
  /// then leaves both unchanged until finish() (transfers that finish at once).
  pending_transfer(const transfer_plan<N>& plan, const T* from_base, T* to_base, bool direct = false)
      : plan_(&plan), to_base_(to_base) {
    const int p = num_locales();
    outgoing_.resize(static_cast<std::size_t>(p));
    incoming_.resize(static_cast<std::size_t>(p));
    received_in_place_.assign(static_cast<std::size_t>(p), false);
    for (int q = 0; q < p; ++q) {
      const auto n = static_cast<std::size_t>(plan.receive_count(q));
      if (n == 0) continue;
      if (direct && plan.receive_offsets().empty()) {
        if (const auto run = single_run(plan.receives()[q], false)) {
          received_in_place_[q] = true;
          batch_.receive(q, to_base + *run, n * sizeof(T));
          continue;
        }
      }
      incoming_[q] = message_buffers().take(n * sizeof(T));
      batch_.receive(q, incoming_[q].template as<T>(), n * sizeof(T));
    }
    for (int q = 0; q < p; ++q) {
      const auto n = static_cast<std::size_t>(plan.send_count(q));
      if (n == 0) continue;
      if (direct && plan.send_offsets().empty()) {
        if (const auto run = single_run(plan.sends()[q], true)) {
          batch_.send(q, from_base + *run, n * sizeof(T));
          continue;
        }
      }
      outgoing_[q] = message_buffers().take(n * sizeof(T));
      T* out = outgoing_[q].template as<T>();
      std::size_t at = 0;
      for (const auto& pc : plan.sends()[q])
        for_each_run(pc.part, pc.from.layout, pc.from.shift,
                             [&](index_t offset, index_t step, index_t count) {
                               const T* in = from_base + offset;
                               if (step == 1) {
                                 std::copy(in, in + count, out + at);
                                 at += static_cast<std::size_t>(count);
                               } else {
                                 for (index_t k = 0; k < count; ++k) out[at++] = in[k * step];
                               }
                             });
      if (!plan.send_offsets().empty())
        for (index_t offset : plan.send_offsets()[q]) out[at++] = from_base[offset];
      batch_.send(q, out, n * sizeof(T));
    }
    for (const auto& pc : plan.local()) copy_part(pc.part, pc.from, from_base, pc.to, to_base);
    for (const auto& [from, to] : plan.local_offsets()) to_base[to] = from_base[from];
  }
  pending_transfer(pending_transfer&&) noexcept = default;

  /// Waits for the messages and unpacks them into their blocks.
  void finish() {
    batch_.wait();
    for (std::size_t q = 0; q < incoming_.size(); ++q) {
      if (received_in_place_[q] || plan_->receive_count(static_cast<int>(q)) == 0) continue;
      const T* in = incoming_[q].template as<T>();
      std::size_t at = 0;
      for (const auto& pc : plan_->receives()[q])
        for_each_run(pc.part, pc.to.layout, pc.to.shift,
                             [&](index_t offset, index_t step, index_t count) {
                               T* out = to_base_ + offset;
                               if (step == 1) {
                                 std::copy(in + at, in + at + count, out);
                                 at += static_cast<std::size_t>(count);
                               } else {
                                 for (index_t k = 0; k < count; ++k) out[k * step] = in[at++];
                               }
                             });
      if (!plan_->receive_offsets().empty())
        for (index_t offset : plan_->receive_offsets()[q]) to_base_[offset] = in[at++];
    }
    incoming_.clear();
  }

 private:
  // The offset of the one contiguous run (in row-major order of the pieces) that a message
  // occupies in the source (`source`) or destination storage, if it is one.
  static std::optional<index_t> single_run(const std::vector<typename transfer_plan<N>::piece>& pieces, bool source) {
    std::optional<index_t> first;
    index_t next = 0;
    bool contiguous = true;
    for (const auto& pc : pieces) {
      const placed_block<N>& b = source ? pc.from : pc.to;
      for_each_run(pc.part, b.layout, b.shift, [&](index_t offset, index_t step, index_t count) {
        if (!contiguous) return;
        if (!first) first = offset, next = offset;
        contiguous = offset == next && (step == 1 || count == 1);
        next = offset + count;
      });
      if (!contiguous) return std::nullopt;
    }
    return first;
  }

  const transfer_plan<N>* plan_;
  T* to_base_;
  std::vector<bool> received_in_place_;
  std::vector<pooled_buffer> outgoing_, incoming_;
  message_batch batch_;
};

/// Collective. Copies every index present in both placements from `from` (elements at
/// `from_base`) to `to` (elements at `to_base`): one message per pair of locales that share
/// indices, exactly the shared elements, and no collective call. A source with copies is
/// read from each destination's own copy layer (`layers`, see transfer_plan).
template <transferable T, std::size_t N>
void transfer(const placement<N>& from, const T* from_base, const placement<N>& to, T* to_base,
              const std::vector<int>* layers = nullptr) {
  const transfer_plan<N> plan(from, to, layers);
  pending_transfer<T, N>(plan, from_base, to_base, from_base != to_base).finish();
}

}  // namespace dmap::detail
