// Staging of zip operands that are not aligned with the leader: each locale gets, in a
// staging array, the follower's elements of exactly the leader's local pieces (the k-th
// index of the leader's index set pairs with the k-th of the follower's), so the loop runs
// as if aligned; a follower the loop may write is copied back afterwards. Leaders and
// followers may be arrays or array views. The staging domain, array and both transfer plans
// are built once per (leader, follower, operand position, element type) and reused while
// neither domain changes: plan_statistics() counts builds and reuses. Plans are the
// library's transfers: one message per pair of locales that share elements, each way,
// exactly the elements needed. A leader kept in a directory (Hashed, Unstructured) stages
// its followers onto a domain of its listed pieces (dsi/detail/listed_pieces.hpp), known
// through a directory too; those plans pair elements.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../dsi/detail/listed_pieces.hpp"
#include "../../dsi/detail/locator.hpp"
#include "../../dsi/detail/plan_cache.hpp"
#include "../../dsi/domain.hpp"
#include "../../dsi/local_domain.hpp"
#include "../../runtime/precompiled.hpp"

namespace dmap::detail {

template <std::size_t N>
class staging_desc;

/// The distribution of a staging domain: the leader's pieces (asked of its placement query)
/// named by the follower's indices, each locale storing its pieces compactly (row-major, in
/// the order the query gives them), and the leader's copy layers, if any. Internal to the
/// engine.
template <std::size_t N>
class staging_map {
 public:
  staging_map(std::shared_ptr<const placement_query<N>> leader, const rect<N>& leader_whole,
              const rect<N>& follower_whole, std::vector<int> layers, std::string name)
      : leader_(std::move(leader)), leader_whole_(leader_whole), follower_whole_(follower_whole),
        layers_(std::move(layers)), name_(std::move(name)) {}
  int targets() const { return num_locales(); }
  std::string name() const { return name_; }
  staging_desc<N> new_domain(const rect<N>& r) const { return staging_desc<N>(*this, r); }
  const std::vector<int>& layers() const noexcept { return layers_; }
  /// The locales whose pieces may meet `r` (follower indices).
  std::vector<int> meeting(const rect<N>& r) const { return leader_->meeting(to_leader(r)); }
  /// Locale q's pieces that may meet `r` (follower indices), in its storage order when `r`
  /// is the whole index set.
  std::vector<rect<N>> pieces(int q, const rect<N>& r) const;
  const rect<N>& whole() const noexcept { return follower_whole_; }
  friend bool operator==(const staging_map& a, const staging_map& b) noexcept {
    return a.leader_ == b.leader_ && a.follower_whole_ == b.follower_whole_;
  }

 private:
  rect<N> to_leader(const rect<N>& r) const { return reindex(r, follower_whole_, leader_whole_); }
  std::shared_ptr<const placement_query<N>> leader_;
  rect<N> leader_whole_, follower_whole_;
  std::vector<int> layers_;
  std::string name_;
};

template <std::size_t N>
std::vector<rect<N>> staging_map<N>::pieces(int q, const rect<N>& r) const {
  std::vector<rect<N>> out;
  for (const auto& g : leader_->regions(q, to_leader(r))) {
    const rect<N> within = g.owned.intersect(leader_whole_);
    if (!within.empty()) out.push_back(reindex(within, leader_whole_, follower_whole_));
  }
  return out;
}

/// The global descriptor of a staging domain.
template <std::size_t N>
class staging_desc {
 public:
  staging_desc(const staging_map<N>& map, const rect<N>& whole)
      : map_(map), whole_(whole), local_(local_subdomains(here()), local_layouts(here())) {}
  const rect<N>& indices() const noexcept { return whole_; }
  void set_indices(const rect<N>&) {
    throw unsupported_error("dmap: a staging domain of the loop engine cannot change its indices");
  }
  int locale_of(const idx<N>& i) const;
  std::vector<int> locales_meeting(const rect<N>& r) const { return map_.meeting(r); }
  std::vector<rect<N>> local_subdomains(int q, const rect<N>& r) const { return map_.pieces(q, r); }
  std::vector<rect<N>> local_subdomains(int q) const { return map_.pieces(q, whole_); }
  std::vector<dense_layout<N>> local_layouts(int q) const;
  const pieces_local_domain<N>& local() const noexcept { return local_; }
  int targets() const { return num_locales(); }
  std::vector<int> copy_layers() const { return map_.layers(); }

 private:
  staging_map<N> map_;
  rect<N> whole_;
  pieces_local_domain<N> local_;
};

template <std::size_t N>
int staging_desc<N>::locale_of(const idx<N>& i) const {
  const auto& layers = map_.layers();
  const rect<N> point = point_rect(i);
  for (int q : map_.meeting(point)) {
    if (!layers.empty() && layers[static_cast<std::size_t>(q)] != layers[static_cast<std::size_t>(here())]) continue;
    for (const auto& r : map_.pieces(q, point))
      if (r.contains(i)) return q;
  }
  return here();
}

template <std::size_t N>
std::vector<dense_layout<N>> staging_desc<N>::local_layouts(int q) const {
  return packed_layouts(local_subdomains(q));
}

/// One staged operand, kept between loops.
template <class T, std::size_t N>
struct staging_entry {
  placement_key leader;                          // the leader's placement
  placement_key follower;                        // the follower's
  std::size_t slot = 0;                          // operand position in the zip
  std::shared_ptr<dmap::array<T, N>> array;      // over the staging domain
  std::shared_ptr<const transfer_plan<N>> in;    // follower -> staging
  std::shared_ptr<const transfer_plan<N>> out;   // staging -> follower
};

/// The staging entries of one follower domain for elements of type T (its cache of this type).
template <class T, std::size_t N>
struct staging_cache {
  std::vector<staging_entry<T, N>> entries;
  /// Entries kept per follower domain; the oldest goes first.
  static constexpr std::size_t capacity = 32;
};

/// Collective. The domain over `follower_whole` whose pieces on each locale are the
/// leader's, renamed: a staging_map when every locale's pieces are known (maps given by
/// formulas), else a domain of this locale's listed pieces, known through a directory (a
/// leader kept in a directory; its plans then pair elements).
template <std::size_t N>
dmap::domain<N> staging_domain_for(const locator<N>& leader, const rect<N>& follower_whole, const std::string& name) {
  if (leader.peers)
    return dmap::domain<N>(staging_map<N>(leader.peers, leader.whole, follower_whole,
                                          leader.layers ? *leader.layers : std::vector<int>{}, name),
                           follower_whole);
  std::vector<rect<N>> mine;
  for (const auto& b : leader.mine) mine.push_back(reindex(b.owned, leader.whole, follower_whole));
  return dmap::domain<N>(listed_pieces<N>(std::move(mine), name), follower_whole);
}

/// Collective. The staging entry of the follower named `follower_key` (index set
/// `follower_whole`, at position `slot`) for the loop led by `leader_key`, from `cache` (the
/// follower domain's): built on first use (`locate_leader`, `locate_follower` and `name`
/// are called then), then reused.
template <class T, std::size_t N>
const staging_entry<T, N>& staging_for(staging_cache<T, N>& cache, const placement_key& leader_key,
                                       const placement_key& follower_key, std::size_t slot,
                                       const rect<N>& follower_whole,
                                       const std::function<locator<N>()>& locate_leader,
                                       const std::function<locator<N>()>& locate_follower,
                                       const std::function<std::string()>& name) {
  using entry = staging_entry<T, N>;
  // Every locale searches the same cache in the same order: hits and misses agree.
  return find_or_build(
      cache.entries, staging_cache<T, N>::capacity,
      [&](const entry& e) { return e.leader.same_as(leader_key) && e.follower.same_as(follower_key) && e.slot == slot; },
      [&](const entry& e) {
        return e.leader.expired() || e.follower.expired() ||
               (e.slot == slot && e.leader.same_place(leader_key) && e.follower.same_place(follower_key));
      },
      [&] {
        const locator<N> leader_where = locate_leader();
        const dmap::domain<N> staging_domain = staging_domain_for(leader_where, follower_whole, name());
        entry e;
        e.leader = leader_key;
        e.follower = follower_key;
        e.slot = slot;
        e.array = std::make_shared<dmap::array<T, N>>(staging_domain);
        const locator<N> follower_where = locate_follower();
        const locator<N> staging_where = state_of(e.array->domain())->locate();
        e.in = std::make_shared<const transfer_plan<N>>(plan_transfer(follower_where, staging_where));
        e.out = std::make_shared<const transfer_plan<N>>(plan_transfer(staging_where, follower_where));
        return e;
      });
}

/// Collective. The staging of follower operand `f` (at position `slot`) for the loop led by
/// operand `lead`: an array over the leader's pieces named by f's indices, and the plans
/// that fill it from f and copy it back; built on first use, then reused.
template <class Lead, class Follower>
const auto& staged(const Lead& lead, const Follower& f, std::size_t slot) {
  using T = typename Follower::value_type;
  constexpr std::size_t N = Follower::rank;
  return staging_for<T, N>(
      f.follower_state().caches.template get<staging_cache<T, N>>(), lead.key(), f.key(), slot, f.whole(),
      [&] { return lead.locate(); }, [&] { return f.locate(); },
      [&] { return "staging of " + f.describe() + " for " + lead.describe(); });
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_STAGING_ELEMENT_INSTANCES(T, N, how)                                              \
  how const staging_entry<T, N>& staging_for<T, N>(                                           \
      staging_cache<T, N>&, const placement_key&, const placement_key&, std::size_t,          \
      const rect<N>&, const std::function<locator<N>()>&, const std::function<locator<N>()>&,   \
      const std::function<std::string()>&);
#define DMAP_STAGING_INSTANCES(N, how)                                                        \
  how class staging_map<N>;                                                                   \
  how class staging_desc<N>;                                                                  \
  how class domain_model<N, staging_map<N>, staging_desc<N>>;                                 \
  how dmap::domain<N> staging_domain_for<N>(const locator<N>&, const rect<N>&, const std::string&); \
  DMAP_PRECOMPILED_ELEMENTS(DMAP_STAGING_ELEMENT_INSTANCES, N, how)
DMAP_DECLARE_PRECOMPILED(DMAP_STAGING_INSTANCES)

}  // namespace dmap::detail
