// Test helpers for code that runs on every locale: checks agree across locales (a failure
// on one fails on all and names the locales), so no locale is left waiting in a collective.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../dmap.hpp"
#include "../runtime/detail/byte_exchange.hpp"

namespace dmap::testing {

/// Sets the node-transfer settings for one scope and puts the previous ones back.
struct node_settings {
  dmap::node_transfer_settings saved = dmap::node_transfers();
  /// Node transfers on or off, from arrays of `min_bytes` up.
  explicit node_settings(bool on, std::uint64_t min_bytes = 0) { dmap::set_node_transfers({on, min_bytes}); }
  node_settings(const node_settings&) = delete;
  node_settings& operator=(const node_settings&) = delete;
  ~node_settings() { dmap::set_node_transfers(saved); }
};

/// Collective: the number of elements of `a`, on all locales, that differ from `want(i)`.
template <class T, std::size_t N, class Want>
index_t mismatches(const dmap::array<T, N>& a, Want&& want) {
  return dmap::reduce(dmap::zip(a, a.domain()), index_t{0}, std::plus<>{},
                      [&](const T& v, const idx<N>& i) { return v == want(i) ? index_t{0} : index_t{1}; });
}

/// Collective: the locales on which `ok` is false, as text ("" when none).
inline std::string failing_locales(bool ok) {
  const auto all = dmap::all_gather(static_cast<int>(ok));
  std::string failed;
  for (std::size_t q = 0; q < all.size(); ++q)
    if (!all[q]) failed += (failed.empty() ? "" : ", ") + std::to_string(q);
  return failed;
}

/// Collective: every locale's vector of trivially copyable values, indexed by locale.
template <class T>
std::vector<std::vector<T>> everyones(const std::vector<T>& mine) {
  dmap::detail::byte_buffers out(static_cast<std::size_t>(dmap::num_locales()), dmap::detail::to_bytes(mine));
  const auto in = dmap::detail::exchange(std::move(out));
  std::vector<std::vector<T>> all;
  for (const auto& bytes : in) all.push_back(dmap::detail::from_bytes<T>(bytes));
  return all;
}

/// Runs `f`: (true, what()) when it throws E, (false, a description) otherwise.
template <class E, class F>
std::pair<bool, std::string> throws_as(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return {true, e.what()};
  } catch (const std::exception& e) {
    return {false, std::string("another exception: ") + e.what()};
  }
  return {false, "no exception"};
}

/// Runs `f`: "" when it throws E with a message containing `needle`, a description of what
/// happened otherwise (for CHECK_NO_FAILURE, so a failure on any locale fails on all).
template <class E, class F>
std::string throws_with(F&& f, const std::string& needle) {
  const auto [thrown, what] = throws_as<E>(std::forward<F>(f));
  if (!thrown) return "expected an exception containing '" + needle + "', got " + what;
  if (what.find(needle) == std::string::npos) return "the message '" + what + "' lacks '" + needle + "'";
  return "";
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

/// Collective: the failure text `expr` returns must be empty on every locale (it is shown
/// when not).
#define CHECK_NO_FAILURE(expr)                 \
  do {                                         \
    const std::string dmap_failure_ = (expr);  \
    INFO("here: " << dmap_failure_);           \
    DMAP_CHECK_ALL(dmap_failure_.empty());     \
  } while (0)
