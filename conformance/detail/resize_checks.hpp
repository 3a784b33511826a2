// 7. Resize and assignment: set_indices (grow, shrink, shift, or an unrelated index set)
// keeps surviving values and value-initialises new ones, and the placement checks hold for
// the new index set; a refused resize leaves the domain and its arrays untouched; B = A to a
// Block array over the same indices and back gives the same values; zipping with it runs.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../dists/block.hpp"
#include "../../dsi/array.hpp"
#include "../../dsi/domain.hpp"
#include "../../iterators/forall.hpp"
#include "../../iterators/zip.hpp"
#include "../../runtime/collectives.hpp"
#include "../options.hpp"
#include "case_plan.hpp"
#include "element_checks.hpp"
#include "ordered_rect.hpp"
#include "placement.hpp"
#include "report.hpp"
#include "text.hpp"
#include "values.hpp"

namespace dmap::conformance::detail {

/// Collective. Check 7: resizes D (its descriptor described by `facts`, index set `w`, arrays A holding
/// fval(i) and B holding gval(fval(i))) to each of the plan's resizes in turn.
template <std::size_t N>
void check_resizes(recorder& b, dmap::domain<N>& D, dmap::array<std::int64_t, N>& A, dmap::array<double, N>& B,
                   const ordered_rect<N>& w, const case_plan<N>& plan, const owner_rule<N>& owner,
                   const descriptor_facts<N>& facts) {
  const std::string context = b.context();
  std::vector<ordered_rect<N>> history{w};
  for (std::size_t step = 0; step < plan.resizes.size(); ++step) {
    const rect<N>& r2 = plan.resizes[step];
    const ordered_rect<N> w2(r2);
    const auto alive = [&](const idx<N>& i) {
      for (const auto& h : history)
        if (h.order(i) < 0) return false;
      return true;
    };
    const auto want_a = [&](const idx<N>& i) { return alive(i) ? fval(i) : std::int64_t{0}; };
    const auto want_b = [&](const idx<N>& i) { return alive(i) ? gval(fval(i)) : 0.0; };
    b.set_context(str(context, ", resized from ", D.indices(), " to ", r2));
    const bool refuse2 = plan.resize_refused[step];
    const std::string err7 = thrown_by([&] { D.set_indices(r2); });
    if (refuse2) {
      local_report r;
      if (!is_argument_error(err7)) r.fail(err7.empty() ? std::string("set_indices threw nothing") : err7);
      b.add("7. resize: an index set the map documents as refused throws argument_error on every locale", r);
      if (!b.flush()) return;
      // Nothing changed.
      local_report unchanged;
      if (!(D.indices() == history.back().r)) unchanged.fail(str("the domain is now ", D.indices()));
      check_local_values(unchanged, A, want_a, "A after a refused resize");
      b.add("7. resize: a refused resize leaves the domain and its arrays as they were", unchanged);
      continue;
    }
    b.add("7. resize: set_indices to an accepted index set", threw("set_indices", err7));
    if (!b.flush()) return;
    history.push_back(w2);
    check_placement(b, D, w2, owner, plan.gaps_allowed, facts);
    // The steps below rely on a valid placement.
    if (!b.flush()) return;
    local_report kept;
    check_local_values(kept, A, want_a, "A after resize");
    check_local_values(kept, B, want_b, "B after resize");
    b.add("7. resize: surviving values kept, new ones value-initialised", kept);
    check_global_values(b, A, w2, want_a, "7. after a resize: ");

    // Assignment to a Block array over the same indices, and back.
    dmap::domain<N> DB{dmap::block<N>{}, r2};
    dmap::array<std::int64_t, N> X(DB);
    std::string erra = thrown_by([&] { X = A; });
    local_report copied = threw("assignment to Block", erra);
    check_local_values(copied, X, want_a, "X = A");
    b.add("7. resize: X = A to a Block array over the same indices", copied);
    // Zipping with an array of another distribution: it runs (the follower is staged when it
    // is not aligned), except under a leader kept in a directory, which cannot stage followers:
    // then it runs only when aligned and is refused with unsupported_error everywhere otherwise.
    std::atomic<long> differ{0};
    const std::string errz = thrown_by([&] {
      dmap::forall(dmap::zip(A, std::as_const(X)), [&](const std::int64_t& a, const std::int64_t& x) {
        if (a != x) ++differ;
      });
    });
    local_report zipped;
    const bool leader_in_directory = facts.in_directory;
    if (!errz.empty() && (!leader_in_directory || errz.rfind("unsupported_error: ", 0) != 0))
      zipped.fail("forall(zip(A, X)) threw " + errz);
    if (differ.load() != 0) zipped.fail(str("forall(zip(A, X)): ", differ.load(), " elements differ"));
    const auto refused = dmap::all_gather(static_cast<int>(!errz.empty()));
    if (std::count(refused.begin(), refused.end(), refused.front()) != static_cast<std::ptrdiff_t>(refused.size()))
      zipped.fail("forall(zip(A, X)) was refused on some locales only");
    b.add("7. resize: forall(zip(A, X)) with X over Block: runs with equal elements (a directory leader: or is "
          "refused everywhere)",
          zipped);
    erra = thrown_by([&] {
      dmap::forall(A, [](std::int64_t& a) { a = -5; });
      A = X;
    });
    local_report back = threw("assignment from Block", erra);
    check_local_values(back, A, want_a, "A = X");
    b.add("7. resize: and back (A = X) gives the same values", back);
  }
  b.set_context(context);
}

}  // namespace dmap::conformance::detail
