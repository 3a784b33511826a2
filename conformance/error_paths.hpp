// Error paths: a call that breaks a documented rule must throw dmap::argument_error on every
// locale, recorded as a named check of a conformance result.
#pragma once

#include <string>
#include <utility>

#include "../runtime/errors.hpp"
#include "detail/report.hpp"
#include "detail/text.hpp"
#include "result.hpp"

namespace dmap::conformance {

/// Collective: runs `attempt` on every locale and records in `into` the check `what`, which
/// passes when `attempt` threw dmap::argument_error on every locale. True when it passed.
template <class Attempt>
bool expect_argument_error(result& into, const std::string& what, Attempt&& attempt) {
  const std::string got = detail::thrown_by(std::forward<Attempt>(attempt));
  detail::local_report rep;
  if (!detail::is_argument_error(got)) rep.fail(detail::str("it threw ", got.empty() ? std::string("nothing") : got));
  detail::recorder b(into);
  b.add(what, rep);
  return b.flush();
}

}  // namespace dmap::conformance
