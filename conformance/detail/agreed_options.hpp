// The options every locale must pass alike, checked before any case runs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../runtime/collectives.hpp"
#include "../../runtime/errors.hpp"
#include "../options.hpp"
#include "text.hpp"

namespace dmap::conformance::detail {

/// Collective: every locale passed the same options, and they are valid (else argument_error
/// on every locale).
template <std::size_t N>
void check_options_agree(const options<N>& opts) {
  struct fingerprint {
    std::uint64_t seed;
    int cases;
    int large;
    int gaps;
    bool operator==(const fingerprint&) const = default;
  };
  const fingerprint mine{opts.seed, opts.random_cases, opts.large_case ? 1 : 0, opts.gaps_allowed ? 1 : 0};
  const auto all = dmap::all_gather(mine);
  for (std::size_t q = 0; q < all.size(); ++q)
    if (!(all[q] == all.front()))
      throw argument_error(str("dmap::conformance::check: locale ", q, " passed seed ", all[q].seed, ", ",
                               all[q].cases, " random cases, large case ", all[q].large, ", gaps allowed ", all[q].gaps,
                               "; locale 0 passed ", all.front().seed, ", ", all.front().cases, ", ",
                               all.front().large, ", ", all.front().gaps,
                               "; every locale must pass the same options"));
  if (opts.random_cases < 0)
    throw argument_error(str("dmap::conformance::check: options.random_cases is ", opts.random_cases,
                             "; it must be 0 or more"));
}

}  // namespace dmap::conformance::detail
