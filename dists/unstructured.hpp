// Unstructured: each locale lists the global indices it stores, in the order it stores them
// (DAP dist_type 'u': element k of the local buffer is the k-th listed index). With
// `one_to_one` every index is listed once; otherwise the lowest locale listing an index owns
// it and the others hold copies, read locally and refreshed from the owner by
// `update_copies(A)` (algorithms/copies.hpp). Owners and offsets are kept in a distributed
// directory (dsi/detail/directory.hpp), built collectively when a domain is made: no locale
// stores the map.
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

#include "../dsi/concepts.hpp"
#include "../dsi/detail/directory_domain.hpp"
#include "../dsi/index.hpp"
#include "../runtime/agreement.hpp"

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
class unstructured_domain : public detail::directory_domain_base<N> {
 public:
  /// The descriptor of the indices `indices` distributed by `dist`, complete once build() has run.
  unstructured_domain(const unstructured<N>& dist, const rect<N>& indices)
      : detail::directory_domain_base<N>("dmap::unstructured", indices), dist_(dist) {}

  /// Stages a new index set: surviving indices stay, new ones go to their directory home.
  void set_indices(const rect<N>& indices) {
    detail::directory_domain_base<N>::set_indices(indices);
    resized_ = true;
  }

  /// True when every index is listed by one locale only.
  bool one_to_one() const noexcept { return dist_.one_to_one(); }
  /// Every dimension is listed, one to one or not (the DSI's optional `dimension_kinds()`).
  std::array<dimension_kind, N> dimension_kinds() const noexcept {
    std::array<dimension_kind, N> out;
    out.fill(dimension_kind::listed(dist_.one_to_one()));
    return out;
  }
  /// The owner of `i`: here when this locale owns it, else one lookup in the directory.
  int locale_of(const idx<N>& i) const { return this->owner_of(i); }

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
                 resized_ ? detail::unlisted_indices::home : detail::unlisted_indices::refuse);
  }

 private:
  unstructured<N> dist_;
  bool resized_ = false;
};

}  // namespace dmap
