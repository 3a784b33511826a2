// Test helpers for code that runs on every locale: checks agree across locales (a failure
// on one fails on all and names the locales), so no locale is left waiting in a collective.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../dmap.hpp"

namespace dmap::testing {

/// Collective: the locales on which `ok` is false, as text ("" when none).
inline std::string failing_locales(bool ok) {
  const auto all = dmap::all_gather(static_cast<int>(ok));
  std::string failed;
  for (std::size_t q = 0; q < all.size(); ++q)
    if (!all[q]) failed += (failed.empty() ? "" : ", ") + std::to_string(q);
  return failed;
}

}  // namespace dmap::testing

/// Collective CHECK: fails on every locale if `cond` is false on any; names them.
#define DMAP_CHECK_ALL(cond)                                                             \
  do {                                                                                   \
    const std::string dmap_failed_ = dmap::testing::failing_locales(static_cast<bool>(cond)); \
    INFO("check failed on locale(s): " << dmap_failed_ << " (this is locale "           \
                                       << dmap::here() << ")");                          \
    CHECK(dmap_failed_.empty());                                                         \
  } while (0)

/// Collective REQUIRE: stops the test case on every locale if `cond` is false on any.
#define DMAP_REQUIRE_ALL(cond)                                                           \
  do {                                                                                   \
    const std::string dmap_failed_ = dmap::testing::failing_locales(static_cast<bool>(cond)); \
    INFO("requirement failed on locale(s): " << dmap_failed_ << " (this is locale "     \
                                             << dmap::here() << ")");                    \
    REQUIRE(dmap_failed_.empty());                                                       \
  } while (0)
