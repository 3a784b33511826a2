// The machinery behind plan_model.hpp (not part of the API): check_model_locale, modelled.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <utility>

#include "../../dsi/detail/domain_model.hpp"
#include "../../dsi/detail/locator.hpp"
#include "../../runtime/environment.hpp"
#include "../../runtime/errors.hpp"
#include "../assignment_plan.hpp"
#include "../halos.hpp"

namespace dmap::detail {

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

}  // namespace dmap::detail
