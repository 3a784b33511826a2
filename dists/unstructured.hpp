// Unstructured: each locale lists the global indices it stores, in the order it stores them
// (DAP dist_type 'u': element k of the local buffer is the k-th listed index). With
// `one_to_one` every index is listed once; otherwise the lowest locale listing an index owns
// it and the others hold copies, read locally and refreshed from the owner by
// `update_copies(A)`. Owners and offsets are kept in a distributed directory
// (dsi/directory.hpp), built collectively when a domain is made: no locale stores the map.
//
// A new domain needs lists that cover its index set exactly. Resizing keeps every stored
// index that survives where it is; indices new to the domain go to their directory home
// (locale h takes the new indices among orders [h n / P, (h + 1) n / P)).
#pragma once

#include <cstddef>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/locator.hpp"
#include "../runtime/agreement.hpp"
#include "directory_map.hpp"

namespace dmap {

template <std::size_t N>
class unstructured_domain;

/// The Unstructured distribution: this locale's list of stored indices (each locale passes
/// its own).
template <std::size_t N>
class unstructured {
 public:
  /// `mine`: the indices this locale stores, in storage order. `one_to_one`: no index is
  /// listed by two locales (checked when a domain is made).
  explicit unstructured(std::vector<idx<N>> mine, bool one_to_one = true)
      : mine_(std::make_shared<const std::vector<idx<N>>>(std::move(mine))), one_to_one_(one_to_one) {}
  /// 1-D: the indices as integers.
  explicit unstructured(const std::vector<index_t>& mine, bool one_to_one = true)
    requires(N == 1)
      : unstructured(as_indices(mine), one_to_one) {}

  /// All locales.
  int targets() const { return num_locales(); }
  /// "unstructured(one_to_one; 4 locales)" or "unstructured(with copies; 4 locales)".
  std::string name() const {
    return std::string("unstructured(") + (one_to_one_ ? "one_to_one" : "with copies") + "; " +
           std::to_string(targets()) + " locales)";
  }
  /// A global domain descriptor over `indices` (built collectively by dmap::domain).
  unstructured_domain<N> new_domain(const rect<N>& indices) const { return unstructured_domain<N>(*this, indices); }
  /// The indices this locale listed.
  const std::vector<idx<N>>& listed() const noexcept { return *mine_; }
  /// True when every index is listed by one locale only.
  bool one_to_one() const noexcept { return one_to_one_; }
  /// Copies of one distribution are equal; separately made ones are not (their lists may
  /// differ on some locale).
  friend bool operator==(const unstructured& a, const unstructured& b) noexcept {
    return a.mine_ == b.mine_ && a.one_to_one_ == b.one_to_one_;
  }

 private:
  static std::vector<idx<N>> as_indices(const std::vector<index_t>& v) {
    std::vector<idx<N>> out;
    out.reserve(v.size());
    for (index_t i : v) out.push_back(idx<N>{i});
    return out;
  }

  std::shared_ptr<const std::vector<idx<N>>> mine_;
  bool one_to_one_;
};

/// The global descriptor of an Unstructured domain.
template <std::size_t N>
class unstructured_domain : public directory_domain_base<N> {
 public:
  unstructured_domain(const unstructured<N>& dist, const rect<N>& indices)
      : directory_domain_base<N>("dmap::unstructured", indices), dist_(dist) {}

  /// Stages a new index set: surviving indices stay, new ones go to their directory home.
  void set_indices(const rect<N>& indices) {
    directory_domain_base<N>::set_indices(indices);
    resized_ = true;
  }

  /// True when every index is listed by one locale only.
  bool one_to_one() const noexcept { return dist_.one_to_one(); }
  /// The owner of `i`: here when this locale owns it, else one lookup in the directory.
  int locale_of(const idx<N>& i) const {
    const auto& dir = *this->directory();
    const index_t o = this->indices().order_of(i);
    if (const auto stored = dir.find_stored(o); stored && stored->second) return here();
    return dir.lookup(o).locale;
  }

  /// Collective: builds the directory from this locale's list (the first time: every listed
  /// index must be in the index set, and the lists must cover it; after a resize: what this
  /// locale stored and survives).
  void build() {
    const rect<N>& next = this->staged();
    std::vector<index_t> orders;
    agreed([&] {
      if (!resized_) {
        for (const auto& i : dist_.listed()) {
          const index_t o = next.order_of(i);
          if (o < 0) {
            std::ostringstream s;
            s << "dmap::unstructured: locale " << here() << " lists index " << i << ", which is not in the domain "
              << next << "; every listed index must be an index of the domain";
            throw argument_error(s.str());
          }
          orders.push_back(o);
        }
        return;
      }
      const auto& before = *this->directory();
      for (index_t o : before.stored())
        if (const index_t o2 = next.order_of(before.whole().index_at(o)); o2 >= 0) orders.push_back(o2);
    });
    this->commit(std::move(orders), dist_.one_to_one(),
                 resized_ ? unlisted_indices::home : unlisted_indices::refuse);
  }

 private:
  unstructured<N> dist_;
  bool resized_ = false;
};

/// Collective. Refreshes every copy of `a`'s elements (an Unstructured map that is not
/// one_to_one) from its owner: one message per pair of locales that share indices; the plan
/// is made once per index set and reused.
template <class T, std::size_t N>
void update_copies(array<T, N>& a) {
  const auto& st = a.domain().state();
  if (a.domain().template descriptor<unstructured_domain<N>>() == nullptr)
    throw argument_error("dmap::update_copies: the array is distributed by " + a.domain().name() +
                         "; only Unstructured maps hold copies");
  auto entry = st->cached_plan;
  if (!entry || entry->generation != st->generation) {
    const auto& dir = *st->dir;
    std::vector<placed_block<N>> copies;
    for (std::size_t k = 0; k < dir.stored().size(); ++k)
      if (!dir.owns_stored(k)) {
        const idx<N> i = dir.whole().index_at(dir.stored()[k]);
        rect<N> one;
        for (std::size_t d = 0; d < N; ++d) one.set_dim(d, range::counted(i[d], 1, dir.whole().dim(d).stride()));
        copies.push_back({one, dense_layout<N>::make(one, static_cast<index_t>(k)), {}});
      }
    auto plan = std::make_shared<const transfer_plan<N>>(detail::element_plan<N>(
        copies, dir.whole(), true, [&](const std::vector<index_t>& orders) { return dir.lookup(orders); }));
    entry = std::make_shared<detail::cached_plan_entry<N>>(detail::cached_plan_entry<N>{st->generation, plan});
    st->cached_plan = entry;
  }
  pending_transfer<T, N>(*entry->plan, a.local_data(), a.local_data()).finish();
}

}  // namespace dmap
