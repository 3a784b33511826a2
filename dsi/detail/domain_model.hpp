// The type erasure behind dmap::domain: any global domain descriptor that meets the DSI
// concepts, behind one virtual interface (called per loop or per plan, never per element).
#pragma once

#include <algorithm>
#include <cstddef>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "../../runtime/grid.hpp"
#include "../../runtime/precompiled.hpp"
#include "../concepts.hpp"
#include "../layout.hpp"
#include "../rect.hpp"
#include "directory.hpp"
#include "placement_query.hpp"

namespace dmap::detail {

/// Calls f(locale, rect) for every combination of one piece per dimension of `pieces` (per
/// dimension, (grid coordinate, range) pairs), in row-major order of the pieces.
template <std::size_t N, class F>
void for_each_combined_piece(const target_grid<N>& grid, const std::array<std::vector<std::pair<int, range>>, N>& pieces,
                             F&& f) {
  std::array<std::size_t, N> counts{};
  for (std::size_t d = 0; d < N; ++d) counts[d] = pieces[d].size();
  for_each_combination<N>(counts, [&](const std::array<std::size_t, N>& k) {
    std::array<int, N> c{};
    rect<N> r;
    for (std::size_t d = 0; d < N; ++d) {
      c[d] = pieces[d][k[d]].first;
      r.set_dim(d, pieces[d][k[d]].second);
    }
    f(grid.locale_at(c), r);
  });
}

/// Every combination of one piece per dimension of `pieces` (per dimension, (grid
/// coordinate, range) pairs grouped by coordinate) as (locale, rect) pairs of `grid`, sorted
/// by locale; each locale's rects in row-major order of its pieces.
template <std::size_t N>
std::vector<std::pair<int, rect<N>>> rects_of_product(const target_grid<N>& grid,
                                                      const std::array<std::vector<std::pair<int, range>>, N>& pieces) {
  std::vector<std::pair<int, rect<N>>> out;
  std::size_t total = 1;
  for (std::size_t d = 0; d < N; ++d) total *= pieces[d].size();
  out.reserve(total);
  for_each_combined_piece(grid, pieces, [&](int q, const rect<N>& r) { out.emplace_back(q, r); });
  const auto by_locale = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(out.begin(), out.end(), by_locale)) std::stable_sort(out.begin(), out.end(), by_locale);
  return out;
}

/// Calls f(locale, rect) for each pair rects_of_product(grid, pieces) lists, in its order. It
/// lists them only when that order needs a sort: on a grid of listed locales, or when a
/// dimension before the last has two pieces of one coordinate.
template <std::size_t N, class F>
void for_each_rect_of_product(const target_grid<N>& grid,
                              const std::array<std::vector<std::pair<int, range>>, N>& pieces, F&& f) {
  bool in_order = grid.contiguous();  // then row-major coordinates come in locale order
  for (std::size_t d = 0; d < N && in_order; ++d)
    for (std::size_t k = 1; k < pieces[d].size() && in_order; ++k)
      in_order = d + 1 == N ? pieces[d][k - 1].first <= pieces[d][k].first : pieces[d][k - 1].first < pieces[d][k].first;
  if (in_order) {
    for_each_combined_piece(grid, pieces, f);
    return;
  }
  for (const auto& [q, r] : rects_of_product(grid, pieces)) f(q, r);
}

/// A global domain descriptor seen through virtual calls.
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
  /// A copy of this model (the same descriptor, index set and placement), or nullptr when the
  /// descriptor cannot be copied. Lets a failed change of the index set be undone.
  virtual std::unique_ptr<domain_model_base> clone() const = 0;
  virtual const void* find_descriptor(const std::type_info& type) const noexcept = 0;
  /// When locales hold copies: the copy layer of each locale (empty: no copies).
  virtual std::vector<int> copy_layers() const = 0;
  /// For a map with ghost cells (its descriptor has `periodic()`): per dimension, whether
  /// ghost cells beyond the domain's edge hold the other edge's elements. Nothing otherwise.
  virtual std::optional<std::array<bool, N>> periodic() const = 0;
  /// True when the descriptor finishes (re)building its index set collectively (`build`).
  virtual bool builds_collectively() const noexcept = 0;
  /// Collective: commits the index set staged by construction or set_indices.
  virtual void build() = 0;
  /// The directory of a map no formula describes (nullptr for formula maps).
  virtual std::shared_ptr<const directory<N>> find_directory() const = 0;
  /// The target grid, when the descriptor's `targets()` is an N-D grid of locales.
  virtual std::optional<target_grid<N>> grid() const = 0;
  /// The locales that may own an index of `r`, sorted and distinct: the descriptor's
  /// `locales_meeting(r)`, else every locale.
  virtual std::vector<int> locales_meeting(const rect<N>& r) const = 0;
  /// Rects of `locale` that include all of its rects meeting `r`: the descriptor's
  /// `local_subdomains(locale, r)`, else all of them.
  virtual std::vector<rect<N>> subdomains_meeting(int locale, const rect<N>& r) const = 0;
  /// Both at once for every locale: (locale, rect) pairs by locale, each locale's rects as
  /// subdomains_meeting(locale, r) lists them. The descriptor's `subdomains_meeting(r)`, else
  /// the two questions above.
  virtual std::vector<std::pair<int, rect<N>>> all_subdomains_meeting(const rect<N>& r) const = 0;
  /// Calls f(locale, rect) for each pair all_subdomains_meeting(r) lists, in its order: the
  /// descriptor's `for_each_subdomain_meeting(r, f)`, else that list.
  virtual void for_each_subdomain_meeting(const rect<N>& r, detail::function_ref<void(int, const rect<N>&)> f) const = 0;
  /// Per dimension, how far any locale's layouts reach beyond its pieces (index units): the
  /// descriptor's `ghost_reach()`; nothing when it has none.
  virtual std::optional<std::array<index_t, N>> ghost_reach() const = 0;
  /// Per dimension, how the map deals it: the descriptor's `dimension_kinds()`; nothing when
  /// it declares none.
  virtual std::optional<std::array<dimension_kind, N>> dimension_kinds() const = 0;
  /// The order in which every locale stores its elements: the distribution's `order()`;
  /// row-major when it declares none.
  virtual dimension_order<N> storage_order_hint() const = 0;
};

/// The model of descriptor `Desc` made by distribution `Dist`.
template <std::size_t N, class Dist, class Desc>
class domain_model final : public domain_model_base<N> {
 public:
  domain_model(const Dist& dist, Desc desc) : dist_(dist), desc_(std::move(desc)) {}
  rect<N> indices() const override;
  void set_indices(const rect<N>& r) override;
  int locale_of(const idx<N>& i) const override;
  std::vector<rect<N>> local_subdomains(int locale) const override;
  std::vector<dense_layout<N>> local_layouts(int locale) const override;
  std::string name() const override;
  bool same_map(const domain_model_base<N>& other) const override;
  std::unique_ptr<domain_model_base<N>> with_indices(const rect<N>& r) const override;
  std::unique_ptr<domain_model_base<N>> clone() const override;
  std::vector<int> copy_layers() const override;
  std::optional<std::array<bool, N>> periodic() const override;
  const void* find_descriptor(const std::type_info& type) const noexcept override;
  bool builds_collectively() const noexcept override;
  void build() override;
  std::shared_ptr<const directory<N>> find_directory() const override;
  std::vector<int> locales_meeting(const rect<N>& r) const override;
  std::vector<rect<N>> subdomains_meeting(int locale, const rect<N>& r) const override;
  std::vector<std::pair<int, rect<N>>> all_subdomains_meeting(const rect<N>& r) const override;
  void for_each_subdomain_meeting(const rect<N>& r, detail::function_ref<void(int, const rect<N>&)> f) const override;
  std::optional<std::array<index_t, N>> ghost_reach() const override;
  std::optional<std::array<dimension_kind, N>> dimension_kinds() const override;
  std::optional<target_grid<N>> grid() const override;
  dimension_order<N> storage_order_hint() const override;

 private:
  Dist dist_;
  Desc desc_;
};

template <std::size_t N, class Dist, class Desc>
rect<N> domain_model<N, Dist, Desc>::indices() const {
  return desc_.indices();
}

template <std::size_t N, class Dist, class Desc>
void domain_model<N, Dist, Desc>::set_indices(const rect<N>& r) { desc_.set_indices(r); }

template <std::size_t N, class Dist, class Desc>
int domain_model<N, Dist, Desc>::locale_of(const idx<N>& i) const { return desc_.locale_of(i); }

template <std::size_t N, class Dist, class Desc>
std::vector<rect<N>> domain_model<N, Dist, Desc>::local_subdomains(int locale) const {
  return desc_.local_subdomains(locale);
}

template <std::size_t N, class Dist, class Desc>
std::vector<dense_layout<N>> domain_model<N, Dist, Desc>::local_layouts(int locale) const {
  return desc_.local_layouts(locale);
}

template <std::size_t N, class Dist, class Desc>
std::string domain_model<N, Dist, Desc>::name() const { return dist_.name(); }

template <std::size_t N, class Dist, class Desc>
bool domain_model<N, Dist, Desc>::same_map(const domain_model_base<N>& other) const {
  const auto* o = dynamic_cast<const domain_model*>(&other);
  return o != nullptr && o->dist_ == dist_;
}

template <std::size_t N, class Dist, class Desc>
std::unique_ptr<domain_model_base<N>> domain_model<N, Dist, Desc>::with_indices(const rect<N>& r) const {
  return std::make_unique<domain_model>(dist_, dist_.new_domain(r));
}

template <std::size_t N, class Dist, class Desc>
std::unique_ptr<domain_model_base<N>> domain_model<N, Dist, Desc>::clone() const {
  if constexpr (std::is_copy_constructible_v<Dist> && std::is_copy_constructible_v<Desc>)
    return std::make_unique<domain_model>(*this);
  else
    return nullptr;
}

template <std::size_t N, class Dist, class Desc>
std::vector<int> domain_model<N, Dist, Desc>::copy_layers() const {
  if constexpr (requires(const Desc& d) { d.copy_layers(); }) return desc_.copy_layers();
  else return {};
}

template <std::size_t N, class Dist, class Desc>
std::optional<std::array<bool, N>> domain_model<N, Dist, Desc>::periodic() const {
  if constexpr (requires(const Desc& d) { d.periodic(); }) return desc_.periodic();
  else return std::nullopt;
}

template <std::size_t N, class Dist, class Desc>
const void* domain_model<N, Dist, Desc>::find_descriptor(const std::type_info& type) const noexcept {
  return type == typeid(Desc) ? &desc_ : nullptr;
}

template <std::size_t N, class Dist, class Desc>
bool domain_model<N, Dist, Desc>::builds_collectively() const noexcept {
  return requires(Desc& d) { d.build(); };
}

template <std::size_t N, class Dist, class Desc>
void domain_model<N, Dist, Desc>::build() {
  if constexpr (requires(Desc& d) { d.build(); }) desc_.build();
}

template <std::size_t N, class Dist, class Desc>
std::shared_ptr<const directory<N>> domain_model<N, Dist, Desc>::find_directory() const {
  if constexpr (requires(const Desc& d) { d.directory(); }) return desc_.directory();
  else return nullptr;
}

template <std::size_t N, class Dist, class Desc>
std::vector<int> domain_model<N, Dist, Desc>::locales_meeting(const rect<N>& r) const {
  if constexpr (requires(const Desc& d) {
                  { d.locales_meeting(r) } -> std::convertible_to<std::vector<int>>;
                })
    return desc_.locales_meeting(r);
  else {
    std::vector<int> all(static_cast<std::size_t>(num_locales()));
    for (std::size_t q = 0; q < all.size(); ++q) all[q] = static_cast<int>(q);
    return all;
  }
}

template <std::size_t N, class Dist, class Desc>
std::vector<rect<N>> domain_model<N, Dist, Desc>::subdomains_meeting(int locale, const rect<N>& r) const {
  if constexpr (requires(const Desc& d) {
                  { d.local_subdomains(locale, r) } -> std::convertible_to<std::vector<rect<N>>>;
                })
    return desc_.local_subdomains(locale, r);
  else
    return desc_.local_subdomains(locale);
}

template <std::size_t N, class Dist, class Desc>
std::vector<std::pair<int, rect<N>>> domain_model<N, Dist, Desc>::all_subdomains_meeting(const rect<N>& r) const {
  if constexpr (requires(const Desc& d) {
                  { d.subdomains_meeting(r) } -> std::convertible_to<std::vector<std::pair<int, rect<N>>>>;
                })
    return desc_.subdomains_meeting(r);
  else {
    std::vector<std::pair<int, rect<N>>> out;
    for (int q : locales_meeting(r))
      for (const auto& s : subdomains_meeting(q, r)) out.emplace_back(q, s);
    return out;
  }
}

template <std::size_t N, class Dist, class Desc>
void domain_model<N, Dist, Desc>::for_each_subdomain_meeting(const rect<N>& r,
                                                             detail::function_ref<void(int, const rect<N>&)> f) const {
  if constexpr (requires(const Desc& d) { d.for_each_subdomain_meeting(r, f); })
    desc_.for_each_subdomain_meeting(r, f);
  else
    for (const auto& [q, s] : all_subdomains_meeting(r)) f(q, s);
}

template <std::size_t N, class Dist, class Desc>
std::optional<std::array<index_t, N>> domain_model<N, Dist, Desc>::ghost_reach() const {
  if constexpr (requires(const Desc& d) {
                  { d.ghost_reach() } -> std::convertible_to<std::array<index_t, N>>;
                })
    return desc_.ghost_reach();
  else
    return std::nullopt;
}

template <std::size_t N, class Dist, class Desc>
std::optional<std::array<dimension_kind, N>> domain_model<N, Dist, Desc>::dimension_kinds() const {
  if constexpr (requires(const Desc& d) {
                  { d.dimension_kinds() } -> std::convertible_to<std::array<dimension_kind, N>>;
                })
    return desc_.dimension_kinds();
  else
    return std::nullopt;
}

template <std::size_t N, class Dist, class Desc>
dimension_order<N> domain_model<N, Dist, Desc>::storage_order_hint() const {
  if constexpr (requires(const Dist& d) {
                  { d.order() } -> std::convertible_to<storage_order>;
                })
    return order_of<N>(dist_.order());
  else
    return row_major_order<N>();
}

template <std::size_t N, class Dist, class Desc>
std::optional<target_grid<N>> domain_model<N, Dist, Desc>::grid() const {
  if constexpr (std::is_convertible_v<decltype(desc_.targets()), target_grid<N>>) return desc_.targets();
  else return std::nullopt;
}

}  // namespace dmap::detail

namespace dmap::detail {

/// Every locale's regions of a domain's placement, asked of its model (kept alive here, so
/// the answers stay those of the placement at the time the query was made).
template <std::size_t N>
class model_query final : public placement_query<N> {
 public:
  explicit model_query(std::shared_ptr<const domain_model_base<N>> model) : model_(std::move(model)) {}
  std::vector<int> meeting(const rect<N>& r) const override;
  std::vector<held_region<N>> regions(int locale, const rect<N>& r) const override;
  std::vector<std::pair<int, held_region<N>>> regions_meeting(const rect<N>& r) const override;
  void for_each_region_meeting(const rect<N>& r,
                               function_ref<void(int, const held_region<N>&)> f) const override;
  std::vector<placed_block<N>> blocks(int locale) const override;
  idx<N> period() const override;
  dimension_order<N> storage_order_hint() const override { return model_->storage_order_hint(); }

 private:
  std::shared_ptr<const domain_model_base<N>> model_;
};

template <std::size_t N>
idx<N> model_query<N>::period() const {
  idx<N> out;
  const auto kinds = model_->dimension_kinds();
  const auto grid = model_->grid();
  if (!kinds || !grid) return out;
  for (std::size_t d = 0; d < N; ++d)
    if ((*kinds)[d].kind == dimension_kind::deal::cyclic && (*kinds)[d].block_size > 0 &&
        __builtin_mul_overflow((*kinds)[d].block_size, static_cast<index_t>(grid->extent(d)), &out[d]))
      out[d] = 0;
  return out;
}

template <std::size_t N>
std::vector<int> model_query<N>::meeting(const rect<N>& r) const {
  return model_->locales_meeting(r);
}

template <std::size_t N>
std::vector<held_region<N>> model_query<N>::regions(int locale, const rect<N>& r) const {
  std::vector<held_region<N>> out;
  for (const auto& s : model_->subdomains_meeting(locale, r)) out.push_back({s, {}});
  return out;
}

template <std::size_t N>
std::vector<std::pair<int, held_region<N>>> model_query<N>::regions_meeting(const rect<N>& r) const {
  const auto found = model_->all_subdomains_meeting(r);
  std::vector<std::pair<int, held_region<N>>> out;
  out.reserve(found.size());
  for (const auto& [q, s] : found) out.push_back({q, {s, {}}});
  return out;
}

template <std::size_t N>
void model_query<N>::for_each_region_meeting(const rect<N>& r,
                                             function_ref<void(int, const held_region<N>&)> f) const {
  model_->for_each_subdomain_meeting(r, [&](int q, const rect<N>& s) { f(q, held_region<N>{s, {}}); });
}

template <std::size_t N>
std::vector<placed_block<N>> model_query<N>::blocks(int locale) const {
  const auto owned = model_->local_subdomains(locale);
  const auto layouts = model_->local_layouts(locale);
  std::vector<placed_block<N>> out;
  for (std::size_t k = 0; k < owned.size() && k < layouts.size(); ++k) out.push_back({owned[k], layouts[k], {}});
  return out;
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp);
/// the models of the distributions are listed by the headers that define them.
#define DMAP_DOMAIN_MODEL_INSTANCES(N, how) how class model_query<N>;
DMAP_DECLARE_PRECOMPILED(DMAP_DOMAIN_MODEL_INSTANCES)

}  // namespace dmap::detail
