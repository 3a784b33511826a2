// The scale model: planning is a function of (maps, locale count, locale), so one process can
// compute the plan any locale of any machine would build (no messages, no other processes),
// and tests and benchmarks can check plans for locale counts they cannot run.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <utility>

#include "../dsi/detail/domain_model.hpp"
#include "../dsi/detail/locator.hpp"
#include "../runtime/environment.hpp"
#include "../runtime/errors.hpp"
#include "assignment_plan.hpp"
#include "halos.hpp"

namespace dmap {

namespace detail {
// Throws argument_error unless 0 <= locale < locales.
inline void check_model_locale(int locale, int locales, const char* who) {
  if (locales < 1 || locale < 0 || locale >= locales)
    throw argument_error(std::string(who) + ": locale " + std::to_string(locale) + " of " + std::to_string(locales) +
                         " locales; it needs locales >= 1 and 0 <= locale < locales");
}

// The model of `dist`'s domain over `indices` as locale here() (simulated) sees it, and
// its locator; unsupported_error for maps known through a directory.
template <std::size_t N, class Dist>
std::pair<std::shared_ptr<const domain_model_base<N>>, locator<N>> modelled(const Dist& dist, const rect<N>& indices,
                                                                              const char* who) {
  auto desc = dist.new_domain(indices);
  auto model = std::make_shared<const domain_model<N, Dist, decltype(desc)>>(dist, std::move(desc));
  if (model->builds_collectively() || model->find_directory())
    throw unsupported_error(std::string(who) + ": " + model->name() +
                            " is known through a directory built by all locales; the scale model covers maps given by "
                            "formulas");
  locator<N> l{indices, {}, std::make_shared<const model_query<N>>(model), nullptr, nullptr, {}};
  const auto owned = model->local_subdomains(here());
  const auto layouts = model->local_layouts(here());
  for (std::size_t k = 0; k < owned.size() && k < layouts.size(); ++k) l.mine.push_back({owned[k], layouts[k], {}});
  if (auto layers = model->copy_layers(); !layers.empty())
    l.layers = std::make_shared<const std::vector<int>>(std::move(layers));
  return {model, std::move(l)};
}
}  // namespace detail

/// The plan that locale `locale` of a machine of `locales` locales builds for `A = B`, where
/// A is over `to.new_domain(to_indices)` and B over `from.new_domain(from_indices)` (equal
/// shapes): computed here, alone, with no messages. The maps' target grids must hold
/// `locales` locales. Throws argument_error for a locale outside [0, locales) or unequal
/// shapes, unsupported_error for maps known through a directory (Hashed, Unstructured).
template <std::size_t N, class ToDist, class FromDist>
plan_summary model_assignment(const ToDist& to, const rect<N>& to_indices, const FromDist& from,
                              const rect<N>& from_indices, int locale, int locales) {
  detail::check_model_locale(locale, locales, "dmap::model_assignment");
  detail::check_assignment_shapes(from_indices, to_indices, "dmap::model_assignment");
  const detail::simulating as({locale, locales});
  const auto [to_model, to_where] = detail::modelled(to, to_indices, "dmap::model_assignment");
  auto [from_model, from_where] = detail::modelled(from, from_indices, "dmap::model_assignment");
  if (!(from_indices == to_indices)) from_where = detail::reindexed(from_where, to_indices);
  return detail::summarize(detail::plan_transfer(from_where, to_where));
}

/// The halo-update plan that locale `locale` of a machine of `locales` locales builds for
/// an array over `dist.new_domain(indices)` (a map with ghost cells: Stencil, Padded),
/// computed here alone. Errors as model_assignment; argument_error for a map with no ghost
/// cells. `shape` as in update_halos.
template <std::size_t N, class Dist>
plan_summary model_halo_update(const Dist& dist, const rect<N>& indices, int locale, int locales,
                               halo_shape shape = halo_shape::box) {
  detail::check_model_locale(locale, locales, "dmap::model_halo_update");
  const detail::simulating as({locale, locales});
  const auto [model, owners] = detail::modelled(dist, indices, "dmap::model_halo_update");
  const std::array<index_t, N> reach = detail::ghost_reach<N>(model);
  if (!model->periodic() && std::none_of(reach.begin(), reach.end(), [](index_t r) { return r > 0; }))
    throw argument_error("dmap::model_halo_update: " + model->name() + " keeps no ghost cells");
  const detail::ghost_query<N> ghost(owners.peers, indices, model->periodic().value_or(std::array<bool, N>{}), reach,
                                     shape);
  return detail::summarize(detail::transfer_plan<N>(locale, owners.mine, *owners.peers, ghost.ghosts_of(owners.mine), ghost));
}

}  // namespace dmap
