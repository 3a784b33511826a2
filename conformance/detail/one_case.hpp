// One case: every check for one distribution over one index set, then its resizes. Each
// group of checks is agreed before the next that relies on it runs (a map that fails the
// placement checks is not run through loops, which would trust its placement).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../dsi/concepts.hpp"
#include "../../dsi/domain.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/precompiled.hpp"
#include "../options.hpp"
#include "case_plan.hpp"
#include "chunk_checks.hpp"
#include "loop_checks.hpp"
#include "ordered_rect.hpp"
#include "placement.hpp"
#include "report.hpp"
#include "resize_checks.hpp"
#include "storage_checks.hpp"

namespace dmap::conformance::detail {

/// Collective: true when some locale's layouts hold indices beyond its subdomains (ghost
/// cells), or the descriptor marks ghost cells with periodic(); false for directory maps.
template <std::size_t N>
bool keeps_ghost_cells(const dmap::domain<N>& D, const descriptor_facts<N>& facts) {
  if (facts.periodic) return true;
  if (facts.in_directory) return false;
  bool mine = false;
  try {
    const auto subs = D.local_subdomains(dmap::here());
    const auto lays = D.local_layouts(dmap::here());
    for (std::size_t k = 0; k < subs.size() && k < lays.size(); ++k) mine = mine || !(lays[k].indices == subs[k]);
  } catch (...) {
    mine = false;  // the placement checks report it
  }
  return dmap::any_of_locales(mine);
}

/// Collective. All checks for `dist` over the index set `w` (plan.whole), then the plan's
/// resizes (none for the large case).
template <std::size_t N, class Dist>
void check_case(recorder& b, const Dist& dist, const ordered_rect<N>& w, const case_plan<N>& plan,
                const owner_rule<N>& owner) {
  using desc_t = std::remove_cvref_t<decltype(dist.new_domain(w.r))>;
  const bool large = plan.large;

  // Creation: refused exactly when the map documents it, then with argument_error everywhere.
  std::optional<dmap::domain<N>> made_domain;
  const std::string err = thrown_by([&] { made_domain.emplace(dist, w.r); });
  if (plan.refused) {
    local_report r;
    if (!is_argument_error(err)) r.fail(err.empty() ? std::string("creation threw nothing") : err);
    b.add("0. an index set the map documents as refused throws argument_error on every locale", r);
    b.flush();
    return;
  }
  b.add("0. a domain over an accepted index set is created", threw("the domain's constructor", err));
  if (!b.flush()) return;
  dmap::domain<N>& D = *made_domain;
  {
    local_report r;
    guarded(r, [&] {
      if (!D.same_map(D) || !(dist == Dist(dist))) r.fail("a map is not equal to its copy");
    });
    b.add("0. same_map / operator== of copies", r);
  }

  const descriptor_facts<N> facts = facts_of<desc_t, N>();
  check_placement(b, D, w, owner, plan.gaps_allowed, facts);
  check_chunks(b, D, w);
  // The checks below trust the placement.
  if (!b.flush()) return;
  // The per-element checks below search the pieces linearly: too slow for many large pieces.
  if (large && dmap::all_reduce_max(static_cast<int>(D.local_subdomains().size())) > 64) return;

  dmap::array<std::int64_t, N> A(D);
  check_storage(b, A, w);
  check_follower_order(b, D, A);
  const bool ghosts = keeps_ghost_cells(D, facts);
  dmap::array<double, N> B(D);
  check_loops(b, A, B, w, ghosts);
  if (!b.flush() || large) return;

  check_resizes(b, D, A, B, w, plan, owner, facts);
  b.flush();
}

/// The instantiations the compiled library holds (runtime/precompiled.hpp): every check that
/// check_case calls, which work on domains and arrays whatever the map (check_case alone
/// depends on the map's type).
#define DMAP_CONFORMANCE_INSTANCES(N, how)                                                                 \
  how void check_placement<N>(recorder&, const dmap::domain<N>&, const ordered_rect<N>&, const owner_rule<N>&, \
                              bool, const descriptor_facts<N>&);                                          \
  how void check_chunks<N>(recorder&, const dmap::domain<N>&, const ordered_rect<N>&);                    \
  how void check_storage<N>(recorder&, dmap::array<std::int64_t, N>&, const ordered_rect<N>&);            \
  how void check_follower_order<N>(recorder&, const dmap::domain<N>&, const dmap::array<std::int64_t, N>&); \
  how void check_loops<N>(recorder&, dmap::array<std::int64_t, N>&, dmap::array<double, N>&,              \
                          const ordered_rect<N>&, bool);                                                  \
  how void check_resizes<N>(recorder&, dmap::domain<N>&, dmap::array<std::int64_t, N>&,                   \
                            dmap::array<double, N>&, const ordered_rect<N>&, const case_plan<N>&,         \
                            const owner_rule<N>&, const descriptor_facts<N>&);                            \
  how bool keeps_ghost_cells<N>(const dmap::domain<N>&, const descriptor_facts<N>&);
// DMAP_CONFORMANCE_IN_PROGRAM: a library built without them (DMAP_PRECOMPILE_CONFORMANCE=OFF).
#if !defined(DMAP_CONFORMANCE_IN_PROGRAM)
DMAP_DECLARE_PRECOMPILED(DMAP_CONFORMANCE_INSTANCES)
#endif

}  // namespace dmap::conformance::detail
