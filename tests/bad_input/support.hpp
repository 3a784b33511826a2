// The bad-input suite's checks: a bad input must raise the named dmap error on every locale
// (the original exception where it was raised, a remote_failure of the same family
// elsewhere), and the library must work afterwards. Every input is counted under its own
// name, so the census (test_census.cpp) can tell how many distinct inputs ran.
#pragma once

#include <catch2/catch.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "../support.hpp"

namespace dmap::bad_input {

/// A user's own exception type, not a dmap error (what a throwing user operation raises).
struct user_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Collective: `f` throws `Original` on locale `origin` and a remote_failure of family
/// `Family` carrying the same message on every other locale. "" or what went wrong.
template <class Original, class Family = dmap::error, class F>
std::string fails_from(int origin, F&& f) {
  std::string seen;
  try {
    f();
    seen = "threw nothing";
  } catch (const dmap::remote_failure<Family>& e) {
    if (dmap::here() == origin) seen = "got a remote_failure on the origin locale: " + std::string(e.what());
    else if (e.origin() != origin) seen = "remote_failure names origin " + std::to_string(e.origin());
  } catch (const Original& e) {
    if (dmap::here() != origin) seen = std::string("got the original exception away from the origin: ") + e.what();
  } catch (const std::exception& e) {
    seen = std::string("threw another exception: ") + e.what();
  }
  return seen;
}

/// Collective: what `f()` returns when run while locale `origin` may grow its address space by
/// only `slack` bytes beyond what it maps now (RLIMIT_AS); the limit is lifted afterwards, also
/// when `f` throws. (An allocation larger than any free block left in the heap then fails.)
template <class F>
auto with_memory_cap(int origin, std::size_t slack, F&& f) {
  struct cap {
    int origin;
    rlimit old{};
    cap(int o, std::size_t slack) : origin(o) {
      getrlimit(RLIMIT_AS, &old);
      if (dmap::here() != origin) return;
      unsigned long pages = 0;
      if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(statm, "%lu", &pages) != 1) pages = 0;
        std::fclose(statm);
      }
      rlimit tight = old;
      tight.rlim_cur = pages * static_cast<unsigned long>(::sysconf(_SC_PAGESIZE)) + slack;
      setrlimit(RLIMIT_AS, &tight);
    }
    ~cap() {
      if (dmap::here() == origin) setrlimit(RLIMIT_AS, &old);
    }
  } const capped(origin, slack);
  return f();
}

inline constexpr index_t int64_min = std::numeric_limits<index_t>::min();
inline constexpr index_t int64_max = std::numeric_limits<index_t>::max();

/// The names of the bad inputs checked so far in this run (each name once).
inline std::set<std::string>& census() {
  static std::set<std::string> names;
  return names;
}

/// What `f` threw, as text: "" when it threw an E, a description otherwise.
template <class E, class F>
std::string mismatch(F&& f) {
  try {
    f();
  } catch (const E&) {
    return "";
  } catch (const std::exception& e) {
    return std::string("threw another exception (") + typeid(e).name() + "): " + e.what();
  } catch (...) {
    return "threw something not derived from std::exception";
  }
  return "threw nothing";
}

/// Collective: a fresh domain, a loop, a reduction and a redistribution (Block to Cyclic,
/// uneven size) work and give the right answer. Returns "" or what went wrong.
inline std::string library_still_works() {
  try {
    const index_t n = 3 * num_locales() + 2;
    dmap::domain<1> D(dmap::block<1>{}, rect<1>{range(0, n)});
    dmap::array<std::int64_t, 1> A(D);
    dmap::forall(D, [&](const idx<1>& i) { A.local(i) = i[0]; });
    const std::int64_t sum = dmap::reduce(A, std::int64_t{0});
    dmap::domain<1> C(dmap::cyclic<1>{}, rect<1>{range(0, n)});
    dmap::array<std::int64_t, 1> B(C);
    B = A;
    const std::int64_t moved = dmap::reduce(B, std::int64_t{0}, dmap::maximum{});
    if (sum != n * (n - 1) / 2) return "reduce gave " + std::to_string(sum);
    if (moved != n - 1) return "redistribution gave max " + std::to_string(moved);
    return "";
  } catch (const std::exception& e) {
    return std::string("the library failed afterwards: ") + e.what();
  }
}

}  // namespace dmap::bad_input

/// Collective check of one bad input named `name` (distinct across the suite): `expr`
/// (run on every locale) throws an `E` on every locale, and the library works afterwards.
#define BAD_INPUT(name, E, ...)                                                                  \
  do {                                                                                           \
    const std::string dmap_bad_name_ = (name);                                                   \
    INFO("bad input: " << dmap_bad_name_);                                                       \
    CHECK(dmap::bad_input::census().insert(dmap_bad_name_).second);                              \
    CHECK_NO_FAILURE(dmap::bad_input::mismatch<E>([&] { (void)(__VA_ARGS__); }));                \
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());                                    \
  } while (0)

/// The same for a statement block: BAD_INPUT_DO(name, E, { statements; }).
#define BAD_INPUT_DO(name, E, ...)                                                               \
  do {                                                                                           \
    const std::string dmap_bad_name_ = (name);                                                   \
    INFO("bad input: " << dmap_bad_name_);                                                       \
    CHECK(dmap::bad_input::census().insert(dmap_bad_name_).second);                              \
    CHECK_NO_FAILURE(dmap::bad_input::mismatch<E>([&] __VA_ARGS__));                             \
    CHECK_NO_FAILURE(dmap::bad_input::library_still_works());                                    \
  } while (0)
