// The conformance kit: the checks every dmap distribution passes, for a map of your own.
// One collective call checks a distribution on random index sets against brute-force oracles:
//
//   #include <dmap/conformance/conformance.hpp>
//   const auto result = dmap::conformance::check<2>("weighted_block",
//       [](const dmap::rect<2>& /*whole*/, dmap::conformance::random_engine& /*random*/) {
//         return custom_dist::weighted_block<2>::increasing();
//       });
//   if (dmap::here() == 0) std::cout << result;   // which checks passed, what failed where
//   return result.ok() ? 0 : 1;
//
// The factory makes the map for each index set (`whole`), drawing any parameters from `random`;
// one that also takes a `const dmap::target_grid<N>&` is given a grid drawn from every
// factorisation of the locale count (or the default grid). The options add the map's documented
// owner rule and the index sets it documents as refused (options.hpp). For every case, by
// number in the result:
//   0. the factory makes a map on every locale, and its rules answer alike everywhere; an index
//      set the map documents as refused throws argument_error on every locale, any other is
//      accepted; a map equals its copy;
//   1. exact cover: each index is in exactly one locale's local_subdomains (as each locale
//      reports its own), nothing else is; local_subdomains(q) / local_layouts(q) answer
//      what locale q reports (maps kept in a directory refuse with unsupported_error);
//   2. locale_of agrees with the cover, and with the documented owner rule when given;
//   3. storage: the rules of a local layout (dsi/local_layout.hpp, layout_rules.hpp):
//      local_layouts(q)[k] holds local_subdomains(q)[k]; offset_of(i) is the offset plus the
//      positions (in each dimension's iteration order) times the strides, inside the buffer,
//      distinct, compact (unless options.gaps_allowed: padded rows); arrays start value-initialised; A.local(i) writes the element
//      local_blocks()[k] holds at that offset; the local() descriptor agrees;
//   4. chunks: the local pieces densified, cut for 1, 2, 3 and 7 threads and undensified cover
//      the local part exactly once, each chunk inside its piece;
//   5. follower order: forall(zip(T, C, D)) hands each element with its own index, visits each
//      owned index once, row-major within every chunk; a domain leading, alone; an array alone;
//   6. forall, zip and reduce (sum, min, max, a domain reduce, a zip transform-reduce) against
//      serial oracles, the same on every locale; dmap::view of the array and of the domain and
//      gather() equal the row-major oracle; A[i] reads any element, ghost cells after a halo
//      update hold the owner's values;
//   7. resize: set_indices (grow, shrink, shift, an unrelated index set) keeps surviving values,
//      value-initialises new ones, and 1-3 hold again (a refused resize changes nothing);
//      assignment to a Block array over the same indices and back, and a zip with it.
// A case stops at the first group of checks that fails (the later ones trust it), and the run
// goes on with the next case. The cases: a random engine seeded alike on every locale draws
// index sets of 0..25 indices per dimension (at most 4000 in all; empty ones in three forms,
// often fewer indices than locales) with strides 1, 2 and -1 and loose or tight bounds, each
// resized once or twice; then one large unit-stride index set (36000 indices) whose pieces are
// cut into several chunks. Every check is agreed collectively: all locales return the same
// result, which names the locales where a check failed and the first failure's message.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../dsi/concepts.hpp"
#include "../dsi/rect.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/errors.hpp"
#include "../runtime/grid.hpp"
#include "detail/agreed_options.hpp"
#include "detail/case_plan.hpp"
#include "detail/made_map.hpp"
#include "detail/one_case.hpp"
#include "detail/ordered_rect.hpp"
#include "detail/random_cases.hpp"
#include "detail/report.hpp"
#include "detail/text.hpp"
#include "error_paths.hpp"
#include "index_sets.hpp"
#include "layout_rules.hpp"
#include "options.hpp"
#include "result.hpp"

/// \namespace dmap::conformance
/// The conformance kit: the checks every dmap distribution passes (exact cover, locale_of,
/// storage, chunks, loops, reductions, views, resize, assignment), runnable on a map of your own.

namespace dmap::conformance {

/// Collective: checks the distributions `make` returns against brute-force oracles on
/// `opts.random_cases` random N-D index sets (and one large one), and returns the agreed result.
/// `make(whole, random)`, or `make(whole, random, grid)` to be given a grid drawn from every
/// factorisation of the locale count, returns a distribution for the index set `whole` or a
/// map_with_rules; it is called on every locale with the same arguments and must draw its
/// parameters from `random` only (if it throws, the run stops there and the result says so).
template <std::size_t N, class Factory>
result check(const std::string& subject, Factory&& make, const options<N>& opts = {}) {
  constexpr bool takes_grid = std::is_invocable_v<Factory&, const rect<N>&, random_engine&, const target_grid<N>&>;
  static_assert(takes_grid || std::is_invocable_v<Factory&, const rect<N>&, random_engine&>,
                "dmap::conformance::check: the factory must be callable as make(const dmap::rect<N>& whole, "
                "dmap::conformance::random_engine& random) or make(whole, random, const dmap::target_grid<N>& grid)");
  using made_t = std::remove_cvref_t<typename std::conditional_t<
      takes_grid, std::invoke_result<Factory&, const rect<N>&, random_engine&, const target_grid<N>&>,
      std::invoke_result<Factory&, const rect<N>&, random_engine&>>::type>;
  using rules = detail::rules_of<made_t>;
  using dist_t = typename rules::map_type;
  static_assert(distribution<dist_t, N>,
                "dmap::conformance::check: the factory must return a dmap::distribution<D, N> (or a "
                "dmap::conformance::map_with_rules of one)");

  detail::check_options_agree(opts);
  const int p = num_locales();
  const auto grids = detail::factorisations<N>(p);
  random_engine g = detail::engine_for(opts.seed, subject, N);
  result out(subject);
  detail::recorder b(out);
  const int cases = opts.random_cases + (opts.large_case ? 1 : 0);
  for (int c = 0; c < cases; ++c) {
    detail::case_plan<N> plan;
    plan.large = c == opts.random_cases;
    plan.gaps_allowed = opts.gaps_allowed;
    plan.whole = plan.large ? detail::large_rect<N>() : detail::random_rect<N>(g, p);
    std::string grid_text = " (default grid)";
    std::optional<std::array<int, N>> shape;
    if (takes_grid && !plan.large) {
      const auto k = static_cast<std::size_t>(g() % (grids.size() + 1));
      if (k < grids.size()) {
        shape = grids[k];
        grid_text = detail::str(" (explicit grid ", detail::shape_text<N>(grids[k]), ")");
      }
    }
    const std::string where = detail::str("case ", c, plan.large ? " (large)" : "", ", ", N, "-D ", plan.whole);
    b.set_context(where);

    // The factory and the map's rules, on every locale; the case runs only when they worked
    // everywhere and the rules predict the same refusals everywhere (else the run stops: the
    // locales' random draws may have parted).
    std::optional<made_t> made;
    owner_rule<N> owner;
    std::string name;
    detail::local_report ready;
    detail::guarded(ready, [&] {
      const target_grid<N> grid = shape ? target_grid<N>(*shape) : target_grid<N>{};
      if constexpr (takes_grid) made.emplace(make(plan.whole, g, grid));
      else made.emplace(make(plan.whole, g));
      owner = rules::template owner<N>(*made);
      if (!owner) owner = opts.owner;
      refusal_rule<N> refuses = rules::template refuses<N>(*made);
      if (!refuses) refuses = opts.refuses;
      if (!plan.large) {
        // Grow, shrink, shift and unrelated in turn; every third case resizes twice.
        plan.resizes.push_back(detail::resized<N>(g, plan.whole, c % 4, p));
        if (c % 3 == 0) plan.resizes.push_back(detail::resized<N>(g, plan.resizes.back(), (c + 1) % 4, p));
      }
      plan.refused = refuses && refuses(plan.whole);
      for (const auto& r : plan.resizes) plan.resize_refused.push_back(refuses && refuses(r));
      name = rules::map(*made).name();
    });
    // The refusals predicted here (a leading 1 bit, then one bit per index set), or 0 when the
    // factory or a rule threw here; every locale where they worked must predict the same.
    std::uint64_t predicted = plan.refused ? 3 : 2;
    for (bool refused : plan.resize_refused) predicted = predicted * 2 + (refused ? 1 : 0);
    const auto everyone = dmap::all_gather(ready.ok() ? predicted : std::uint64_t{0});
    const auto first_ok = std::find_if(everyone.begin(), everyone.end(), [](std::uint64_t v) { return v != 0; });
    if (ready.ok() && *first_ok != predicted)
      ready.fail(detail::str("the refusal rule answered differently here than on locale ", first_ok - everyone.begin(),
                             "; the factory and the rules must not depend on the locale"));
    b.add("0. the factory makes a map, and its rules answer alike on every locale", ready);
    if (!b.flush()) break;

    b.set_context(where + " over " + name + (takes_grid ? grid_text : std::string()));
    const std::string err = detail::thrown_by([&] {
      const detail::ordered_rect<N> w(plan.whole);
      detail::check_case<N>(b, rules::map(*made), w, plan, owner);
    });
    b.set_context(where);
    b.add("the case runs to its end without an exception", detail::threw("the case", err));
    b.flush();
    out.count_case();
  }
  return out;
}

}  // namespace dmap::conformance
