// domain<N>: the user-facing distributed domain, a handle to any global domain descriptor
// that meets the DSI concepts, plus the arrays declared over it.
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "../runtime/agreement.hpp"
#include "../runtime/precompiled.hpp"
#include "concepts.hpp"
#include "detail/access.hpp"
#include "detail/domain_model.hpp"
#include "detail/domain_state.hpp"
#include "detail/same_on_all_locales.hpp"
#include "rect.hpp"

namespace dmap {

/// A distributed index set: a rect placed on locales by a distribution. Copies are handles
/// to the same domain. Creating one and changing its indices are collective.
template <std::size_t N>
class domain {
 public:
  /// Collective: the domain of `indices` distributed by `dist` (any type meeting
  /// dmap::distribution).
  template <class Dist>
    requires distribution<Dist, N>
  domain(const Dist& dist, const rect<N>& indices) : state_(std::make_shared<detail::domain_state<N>>()) {
    detail::check_same_on_all_locales("dmap::domain", indices, dist.name());
    using desc_t = decltype(dist.new_domain(indices));
    // A failure on any locale (bad arguments, a distribution answering inconsistently)
    // reaches all of them.
    state_->install([&]() -> std::unique_ptr<detail::domain_model_base<N>> {
      return std::make_unique<detail::domain_model<N, Dist, desc_t>>(dist, dist.new_domain(indices));
    });
  }

  /// The whole index set.
  const rect<N>& indices() const { return live().whole; }
  /// The ranges, one per dimension (Chapel's dsiDims).
  const std::array<range, N>& dims() const { return indices().dims(); }
  /// The range of dimension d.
  const range& dim(std::size_t d) const { return indices().dim(d); }
  /// Lower bounds (Chapel's dsiLow).
  idx<N> low() const { return indices().low(); }
  /// Upper (exclusive) bounds.
  idx<N> high() const { return indices().high(); }
  /// Strides.
  idx<N> stride() const { return indices().stride(); }
  /// Indices per dimension.
  std::array<index_t, N> shape() const { return indices().shape(); }
  /// The number of indices (Chapel's dsiNumIndices).
  index_t size() const { return indices().size(); }
  /// True when `i` is an index of the domain (Chapel's dsiMember). Not collective.
  bool contains(const idx<N>& i) const { return indices().contains(i); }
  /// True when `i` is an index of the domain that this locale owns (`A.local(i)` reaches it
  /// for every array A over the domain; a locale of a map with copies owns its copy). No
  /// messages, not collective.
  bool local_contains(const idx<N>& i) const;

  /// The locale owning index `i`; throws out_of_bounds_error when `i` is not an index.
  int locale_of(const idx<N>& i) const;
  /// The owners of many indices at once (throws out_of_bounds_error for a non-index). Maps
  /// given by formulas answer here; maps known through a directory ask it, in one message
  /// per locale keeping some of the entries. Not collective.
  std::vector<int> locales_of(const std::vector<idx<N>>& indices) const;
  /// The rects locale `locale` owns (Chapel's dsiLocalSubdomains); this locale by default.
  std::vector<rect<N>> local_subdomains(int locale) const;
  /// The rects this locale owns.
  const std::vector<rect<N>>& local_subdomains() const { return live().my_subdomains; }
  /// The one rect this locale owns (empty if none); throws when it owns several.
  rect<N> local_subdomain() const;
  /// How locale `locale` stores its indices: one layout per subdomain (a layout may hold
  /// more indices than its subdomain, such as ghost cells).
  std::vector<dense_layout<N>> local_layouts(int locale) const;
  /// The number of indices this locale owns.
  index_t local_size() const { return live().my_size; }
  /// The distribution's description, such as "block(grid 2x1)".
  std::string name() const { return live().model->name(); }
  /// True when both domains are placed by equal distributions.
  bool same_map(const domain& other) const { return live().model->same_map(*other.live().model); }

  /// Collective: replaces the index set; every array over the domain is reallocated and
  /// keeps the values of the indices that survive (Chapel's dsiSetIndices/dsiReallocate).
  /// When a locale cannot allocate its new storage, every locale throws and the domain and
  /// its arrays stay as they were.
  void set_indices(const rect<N>& indices);

  /// Collective: a new domain with the same distribution over other indices.
  domain with_indices(const rect<N>& indices) const;

  /// The global descriptor when it has type `Desc` (whatever distribution type made it);
  /// nullptr otherwise. For distribution-specific operations (halo updates, DAP export).
  template <class Desc>
  const Desc* descriptor() const {
    return static_cast<const Desc*>(live().model->find_descriptor(typeid(Desc)));
  }

  /// Both handles name the same domain.
  friend bool operator==(const domain& a, const domain& b) noexcept { return a.state_ == b.state_; }

  /// Writes the index set in Chapel notation, on the calling locale (not collective).
  friend std::ostream& operator<<(std::ostream& os, const domain& d) { return os << d.indices(); }

 private:
  friend struct detail::access;
  struct empty_tag {};
  explicit domain(empty_tag) : state_(std::make_shared<detail::domain_state<N>>()) {}
  // The shared state; argument_error when this handle was moved from.
  const detail::domain_state<N>& live() const {
    if (!state_)
      throw argument_error("dmap::domain: the domain (or the array holding it) was moved from; a moved-from domain "
                           "or array may only be assigned to or destroyed");
    return *state_;
  }
  static void check_locale(int locale);

  std::shared_ptr<detail::domain_state<N>> state_;
};

template <std::size_t N>
bool domain<N>::local_contains(const idx<N>& i) const {
  const auto& s = live();
  if (!s.whole.contains(i)) return false;
  if (s.dir) {
    const auto stored = s.dir->find_stored(s.whole.order_of(i));
    return stored && stored->second;
  }
  for (const auto& r : s.my_subdomains)
    if (r.contains(i)) return true;
  return false;
}

template <std::size_t N>
int domain<N>::locale_of(const idx<N>& i) const {
  if (!contains(i)) {
    std::ostringstream s;
    s << "dmap::domain::locale_of: index " << i << " is not in the domain " << indices();
    throw out_of_bounds_error(s.str());
  }
  return live().model->locale_of(i);
}

template <std::size_t N>
auto domain<N>::locales_of(const std::vector<idx<N>>& indices) const -> std::vector<int> {
  std::vector<int> out;
  out.reserve(indices.size());
  if (!live().dir) {
    for (const auto& i : indices) out.push_back(locale_of(i));
    return out;
  }
  std::vector<index_t> orders;
  orders.reserve(indices.size());
  for (const auto& i : indices) {
    if (!contains(i)) (void)locale_of(i);  // throws, naming the index
    orders.push_back(this->indices().order_of(i));
  }
  for (const auto& l : live().dir->lookup(orders)) out.push_back(l.locale);
  return out;
}

template <std::size_t N>
auto domain<N>::local_subdomains(int locale) const -> std::vector<rect<N>> {
  check_locale(locale);
  return locale == here() ? live().my_subdomains : live().model->local_subdomains(locale);
}

template <std::size_t N>
auto domain<N>::local_subdomain() const -> rect<N> {
  const auto& s = live().my_subdomains;
  if (s.size() > 1)
    throw unsupported_error("dmap::domain::local_subdomain: this locale owns " +
                            std::to_string(s.size()) +
                            " rects under " + name() + "; use local_subdomains()");
  if (s.empty()) {
    rect<N> none = indices();
    for (std::size_t d = 0; d < N; ++d) none.set_dim(d, range(0, 0));
    return none;
  }
  return s.front();
}

template <std::size_t N>
auto domain<N>::local_layouts(int locale) const -> std::vector<dense_layout<N>> {
  check_locale(locale);
  return live().model->local_layouts(locale);
}

template <std::size_t N>
void domain<N>::set_indices(const rect<N>& indices) {
  const auto moved_from = detail::exception_of([&] { (void)live(); });
  detail::check_same_on_all_locales("dmap::domain::set_indices", indices, moved_from ? std::string() : name(),
                                    moved_from);
  state_->reindex(indices);  // the agreement checked the handle
}

template <std::size_t N>
auto domain<N>::with_indices(const rect<N>& indices) const -> domain {
  const auto moved_from = detail::exception_of([&] { (void)live(); });
  detail::check_same_on_all_locales("dmap::domain::with_indices", indices, moved_from ? std::string() : name(),
                                    moved_from);
  domain d{empty_tag{}};
  d.state_->install([&] { return live().model->with_indices(indices); });
  return d;
}

template <std::size_t N>
void domain<N>::check_locale(int locale) {
  if (locale < 0 || locale >= num_locales())
    throw argument_error("dmap::domain: locale " + std::to_string(locale) + " is outside [0, " +
                         std::to_string(num_locales()) + ")");
}


/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_DOMAIN_INSTANCES(N, how) how class domain<N>;
DMAP_DECLARE_PRECOMPILED(DMAP_DOMAIN_INSTANCES)

}  // namespace dmap
