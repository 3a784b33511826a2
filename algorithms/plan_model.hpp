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
#include "detail/plan_model.hpp"
#include "halos.hpp"

namespace dmap {

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
