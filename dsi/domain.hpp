// domain<N>: the user-facing distributed domain, a handle to any global domain descriptor
// that meets the dsi concepts, plus the arrays declared over it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "../runtime/agreement.hpp"
#include "concepts.hpp"
#include "rect.hpp"
#include "directory.hpp"
#include "locator.hpp"
#include "transfer.hpp"

namespace dmap {

template <std::size_t N>
class domain;

namespace detail {

/// Implemented by every array's storage, so a domain can reallocate its arrays.
template <std::size_t N>
class array_hook {
 public:
  virtual ~array_hook() = default;
  /// Collective: move to the new placement, keeping the values of surviving indices.
  virtual void reallocate(const locator<N>& before, const locator<N>& after) = 0;
};

/// A global domain descriptor behind a virtual interface (called per loop, not per element).
template <std::size_t N>
class domain_model_base {
 public:
  virtual ~domain_model_base() = default;
  virtual rect<N> indices() const = 0;
  virtual void set_indices(const rect<N>& r) = 0;
  virtual int locale_of(const idx<N>& i) const = 0;
  virtual std::vector<rect<N>> local_subdomains(int locale) const = 0;
  virtual std::vector<dense_layout<N>> local_layouts(int locale) const = 0;
  virtual std::string name() const = 0;
  virtual bool same_map(const domain_model_base& other) const = 0;
  virtual std::unique_ptr<domain_model_base> with_indices(const rect<N>& r) const = 0;
  virtual const void* find_descriptor(const std::type_info& type) const noexcept = 0;
  /// When locales hold copies: the copy layer of each locale (empty: no copies).
  virtual std::vector<int> copy_layers() const = 0;
  /// True when the descriptor finishes (re)building its index set collectively (`build`).
  virtual bool builds_collectively() const noexcept = 0;
  /// Collective: commits the index set staged by construction or set_indices.
  virtual void build() = 0;
  /// The directory of a map no formula describes (nullptr for formula maps).
  virtual std::shared_ptr<const directory<N>> find_directory() const = 0;
};

template <std::size_t N, class Dist, class Desc>
class domain_model final : public domain_model_base<N> {
 public:
  domain_model(const Dist& dist, Desc desc) : dist_(dist), desc_(std::move(desc)) {}
  rect<N> indices() const override { return desc_.indices(); }
  void set_indices(const rect<N>& r) override { desc_.set_indices(r); }
  int locale_of(const idx<N>& i) const override { return desc_.locale_of(i); }
  std::vector<rect<N>> local_subdomains(int locale) const override {
    return desc_.local_subdomains(locale);
  }
  std::vector<dense_layout<N>> local_layouts(int locale) const override {
    return desc_.local_layouts(locale);
  }
  std::string name() const override { return dist_.name(); }
  bool same_map(const domain_model_base<N>& other) const override {
    const auto* o = dynamic_cast<const domain_model*>(&other);
    return o != nullptr && o->dist_ == dist_;
  }
  std::unique_ptr<domain_model_base<N>> with_indices(const rect<N>& r) const override {
    return std::make_unique<domain_model>(dist_, dist_.new_domain(r));
  }
  std::vector<int> copy_layers() const override {
    if constexpr (requires(const Desc& d) { d.copy_layers(); }) return desc_.copy_layers();
    else return {};
  }
  const void* find_descriptor(const std::type_info& type) const noexcept override {
    return type == typeid(Desc) ? &desc_ : nullptr;
  }
  bool builds_collectively() const noexcept override { return requires(Desc& d) { d.build(); }; }
  void build() override {
    if constexpr (requires(Desc& d) { d.build(); }) desc_.build();
  }
  std::shared_ptr<const directory<N>> find_directory() const override {
    if constexpr (requires(const Desc& d) { d.directory(); }) return desc_.directory();
    else return nullptr;
  }

 private:
  Dist dist_;
  Desc desc_;
};

/// A communication plan kept for the domain's current index set.
template <std::size_t N>
struct cached_plan_entry {
  std::uint64_t generation;                         // the domain generation it was built for
  std::shared_ptr<const transfer_plan<N>> plan;
};

/// What all handles of one domain share.
template <std::size_t N>
struct domain_state {
  std::unique_ptr<domain_model_base<N>> model;
  rect<N> whole;                           // cached model->indices()
  std::vector<rect<N>> my_subdomains;      // this locale's pieces
  std::vector<dense_layout<N>> my_layouts; // and their storage, piece by piece
  index_t my_size = 0;
  // True when this locale's storage holds exactly its owned indices, each once, filling
  // [0, my_size) (no ghost cells, no gaps): loops over arrays of this domain alone may then
  // walk the storage as one contiguous span, in any order.
  bool dense_storage = false;
  // When locales hold copies (Replicated, replicated dimensions): the copy layer of each
  // locale; the locales of one layer hold every index once. Data moves from the source's
  // layer of the destination, and reductions see the reducing locale's layer. Null: no copies.
  std::shared_ptr<const std::vector<int>> layers;
  // True when every locale is a layer of its own (it holds the whole index set).
  bool replicated = false;
  // The directory of a map no formula describes (Hashed, Unstructured); null otherwise.
  std::shared_ptr<const directory<N>> dir;
  index_t storage_size = 0;                // elements each array keeps here (with ghosts, copies)
  std::vector<array_hook<N>*> arrays;      // arrays declared over the domain
  std::uint64_t generation = 0;            // bumps on every set_indices
  mutable std::shared_ptr<const placement<N>> all_blocks;  // every locale's blocks, on demand
  std::shared_ptr<cached_plan_entry<N>> cached_plan; // e.g. the ghost-cell update of a stencil
  std::shared_ptr<void> staging;           // the loop engine's staging of this domain's arrays
  std::shared_ptr<void> assignment_plans;  // plans of assignments into this domain's arrays

  void refresh() {
    whole = model->indices();
    my_subdomains = model->local_subdomains(here());
    my_layouts = model->local_layouts(here());
    if (my_layouts.size() != my_subdomains.size())
      throw runtime_error("dmap::domain: the distribution " + model->name() + " gives " +
                          std::to_string(my_subdomains.size()) + " subdomains but " +
                          std::to_string(my_layouts.size()) +
                          " layouts; it must give one layout per subdomain");
    my_size = 0;
    index_t span = 0;
    dense_storage = true;
    for (std::size_t k = 0; k < my_subdomains.size(); ++k) {
      my_size += my_subdomains[k].size();
      span = std::max(span, my_layouts[k].end());
      dense_storage = dense_storage && my_layouts[k].indices == my_subdomains[k];
    }
    dir = model->find_directory();
    storage_size = std::max(span, dir ? static_cast<index_t>(dir->stored().size()) : 0);
    dense_storage = dense_storage && span == my_size && storage_size == my_size;
    auto l = model->copy_layers();
    layers = l.empty() ? nullptr : std::make_shared<const std::vector<int>>(std::move(l));
    replicated = false;
    if (layers) {
      std::vector<int> sorted = *layers;
      std::sort(sorted.begin(), sorted.end());
      replicated = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    }
    all_blocks.reset();
    ++generation;
  }
  /// Every locale's owned rects with their storage layouts (maps given by formulas only).
  const placement<N>& blocks_of_all() const {
    if (dir)
      throw unsupported_error("dmap::domain: " + model->name() +
                              " is known through a directory; no locale knows every other locale's blocks");
    if (!all_blocks) {
      auto p = std::make_shared<placement<N>>(static_cast<std::size_t>(num_locales()));
      for (int q = 0; q < num_locales(); ++q) {
        const auto owned = model->local_subdomains(q);
        const auto layouts = model->local_layouts(q);
        for (std::size_t k = 0; k < owned.size() && k < layouts.size(); ++k)
          (*p)[q].push_back({owned[k], layouts[k], {}});
      }
      all_blocks = std::move(p);
    }
    return *all_blocks;
  }
  /// Where the elements live, as this locale can tell (kept valid by its shared parts
  /// after the domain changes).
  locator<N> locate() const {
    locator<N> l{whole, {}, {}, dir, layers, {}};
    for (std::size_t k = 0; k < my_subdomains.size(); ++k) l.mine.push_back({my_subdomains[k], my_layouts[k], {}});
    if (!dir) {
      (void)blocks_of_all();
      l.all = all_blocks;
    }
    return l;
  }
  /// Collective: `make()` builds a model locally (its index set staged); it becomes the
  /// model, built collectively when it needs to be, and this locale's view is refreshed.
  /// A failure anywhere reaches every locale and leaves the state as it was.
  template <class Make>
  void install(Make&& make) {
    std::unique_ptr<domain_model_base<N>> next;
    agreed([&] {
      next = make();
      if (next->builds_collectively()) return;
      model = std::move(next);
      refresh();
    });
    if (!next) return;
    next->build();
    agreed([&] {
      model = std::move(next);
      refresh();
    });
  }
  /// Collective: changes the model's index set (set_indices, then build when the model
  /// builds collectively) and refreshes this locale's view.
  void change_indices(const rect<N>& indices) {
    agreed([&] {
      model->set_indices(indices);
      if (!model->builds_collectively()) refresh();
    });
    if (!model->builds_collectively()) return;
    model->build();
    agreed([&] { refresh(); });
  }
};

/// A 64-bit fingerprint of a rect and a map name, to check that all locales agree.
template <std::size_t N>
std::uint64_t fingerprint(const rect<N>& r, const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
  };
  for (const auto& d : r.dims()) {
    mix(static_cast<std::uint64_t>(d.lo()));
    mix(static_cast<std::uint64_t>(d.hi()));
    mix(static_cast<std::uint64_t>(d.stride()));
    mix(static_cast<std::uint64_t>(d.alignment()));
  }
  for (char c : name) mix(static_cast<unsigned char>(c));
  return h;
}

/// Collective: throws on every locale unless all passed the same (rect, map).
template <std::size_t N>
void check_same_on_all_locales(const char* what, const rect<N>& r, const std::string& name) {
  const auto mine = fingerprint(r, name);
  const auto all = all_gather(mine);
  for (int q = 0; q < static_cast<int>(all.size()); ++q)
    if (all[q] != all[0]) {
      std::ostringstream s;
      s << what << ": locales 0 and " << q
        << " passed different index sets or distributions (here: " << r << " over " << name
        << "); it is a collective call and every locale must pass the same arguments";
      throw argument_error(s.str());
    }
}

}  // namespace detail

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
  const rect<N>& indices() const noexcept { return state_->whole; }
  /// The ranges, one per dimension (Chapel's dsiDims).
  const std::array<range, N>& dims() const noexcept { return indices().dims(); }
  /// The range of dimension d.
  const range& dim(std::size_t d) const noexcept { return indices().dim(d); }
  /// Lower bounds (Chapel's dsiLow).
  idx<N> low() const noexcept { return indices().low(); }
  /// Upper (exclusive) bounds.
  idx<N> high() const noexcept { return indices().high(); }
  /// Strides.
  idx<N> stride() const noexcept { return indices().stride(); }
  /// Indices per dimension.
  std::array<index_t, N> shape() const noexcept { return indices().shape(); }
  /// The number of indices (Chapel's dsiNumIndices).
  index_t size() const noexcept { return indices().size(); }
  /// True when `i` is an index of the domain (Chapel's dsiMember).
  bool contains(const idx<N>& i) const noexcept { return indices().contains(i); }

  /// The locale owning index `i`; throws out_of_bounds_error when `i` is not an index.
  int locale_of(const idx<N>& i) const {
    if (!contains(i)) {
      std::ostringstream s;
      s << "dmap::domain::locale_of: index " << i << " is not in the domain " << indices();
      throw out_of_bounds_error(s.str());
    }
    return state_->model->locale_of(i);
  }
  /// The owners of many indices at once (throws out_of_bounds_error for a non-index). Maps
  /// given by formulas answer here; maps known through a directory ask it, in one message
  /// per locale keeping some of the entries. Not collective.
  std::vector<int> locales_of(const std::vector<idx<N>>& indices) const {
    std::vector<int> out;
    out.reserve(indices.size());
    if (!state_->dir) {
      for (const auto& i : indices) out.push_back(locale_of(i));
      return out;
    }
    std::vector<index_t> orders;
    orders.reserve(indices.size());
    for (const auto& i : indices) {
      if (!contains(i)) (void)locale_of(i);  // throws, naming the index
      orders.push_back(this->indices().order_of(i));
    }
    for (const auto& l : state_->dir->lookup(orders)) out.push_back(l.locale);
    return out;
  }
  /// The rects locale `locale` owns (Chapel's dsiLocalSubdomains); this locale by default.
  std::vector<rect<N>> local_subdomains(int locale) const {
    check_locale(locale);
    return locale == here() ? state_->my_subdomains : state_->model->local_subdomains(locale);
  }
  /// The rects this locale owns.
  const std::vector<rect<N>>& local_subdomains() const noexcept { return state_->my_subdomains; }
  /// The one rect this locale owns (empty if none); throws when it owns several.
  rect<N> local_subdomain() const {
    const auto& s = state_->my_subdomains;
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
  /// How locale `locale` stores its indices: one layout per subdomain (a layout may hold
  /// more indices than its subdomain, e.g. ghost cells).
  std::vector<dense_layout<N>> local_layouts(int locale) const {
    check_locale(locale);
    return state_->model->local_layouts(locale);
  }
  /// The number of indices this locale owns.
  index_t local_size() const noexcept { return state_->my_size; }
  /// The distribution's description, e.g. "block(grid 2x1)".
  std::string name() const { return state_->model->name(); }
  /// True when both domains are placed by equal distributions.
  bool same_map(const domain& other) const { return state_->model->same_map(*other.state_->model); }

  /// Collective: replaces the index set; every array over the domain is reallocated and
  /// keeps the values of the indices that survive (Chapel's dsiSetIndices/dsiReallocate).
  void set_indices(const rect<N>& indices) {
    detail::check_same_on_all_locales("dmap::domain::set_indices", indices, name());
    const locator<N> before = state_->locate();
    state_->change_indices(indices);
    const locator<N> after = state_->locate();
    for (auto* a : state_->arrays) a->reallocate(before, after);
  }

  /// Collective: a new domain with the same distribution over other indices.
  domain with_indices(const rect<N>& indices) const {
    detail::check_same_on_all_locales("dmap::domain::with_indices", indices, name());
    domain d{empty_tag{}};
    d.state_->install([&] { return state_->model->with_indices(indices); });
    return d;
  }

  /// The global descriptor when it has type `Desc` (whatever distribution type made it);
  /// nullptr otherwise. For distribution-specific operations (halo updates, DAP export).
  template <class Desc>
  const Desc* descriptor() const noexcept {
    return static_cast<const Desc*>(state_->model->find_descriptor(typeid(Desc)));
  }

  /// Both handles name the same domain.
  friend bool operator==(const domain& a, const domain& b) noexcept { return a.state_ == b.state_; }

  /// Locale 0 writes the index set in Chapel notation, other locales nothing (call it on
  /// every locale, like the array's operator<<).
  friend std::ostream& operator<<(std::ostream& os, const domain& d) {
    if (here() == 0) os << d.indices();
    return os;
  }

  /// The shared state (for the iteration engine and arrays; not for users).
  const std::shared_ptr<detail::domain_state<N>>& state() const noexcept { return state_; }

 private:
  struct empty_tag {};
  explicit domain(empty_tag) : state_(std::make_shared<detail::domain_state<N>>()) {}
  static void check_locale(int locale) {
    if (locale < 0 || locale >= num_locales())
      throw argument_error("dmap::domain: locale " + std::to_string(locale) + " is outside [0, " +
                           std::to_string(num_locales()) + ")");
  }

  std::shared_ptr<detail::domain_state<N>> state_;
};

}  // namespace dmap
