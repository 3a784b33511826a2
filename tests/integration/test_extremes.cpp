// Valid inputs at the edges: empty index sets, fewer indices than locales, one index, and
// index sets at the int64 limits (the smallest index INT64_MIN, the largest INT64_MAX - 1,
// strides that reach across most of int64), under every distribution. Each map must place,
// loop over, reduce, gather, fetch and redistribute them like any other index set; a
// Stencil map must update its halos there. Values are a hash of the index (uint64 with
// wrapping arithmetic, so the sums are exact whatever the indices).
#include "../maps_1d.hpp"
#include "../support.hpp"

#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace test_extremes {  // one per file: the tests also build as unity batches (docs/testing.md)

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;

namespace {

constexpr index_t lowest = std::numeric_limits<index_t>::min();
constexpr index_t highest = std::numeric_limits<index_t>::max();

/// The value stored at index i: a hash, so that a misplaced element shows.
template <std::size_t N>
std::uint64_t value_of(const idx<N>& i) {
  std::uint64_t h = 0x5bd1e995u;
  for (std::size_t d = 0; d < N; ++d) h = (h ^ static_cast<std::uint64_t>(i[d])) * 0x9E3779B97F4A7C15ull;
  return h;
}

using dmap::testing::maps::all_maps;
using dmap::testing::maps::domain_of;
using dmap::testing::maps::map_kind;
using dmap::testing::maps::name_of;

/// True when a Stencil of ghost width 1 can hold `r`: at least two indices per locale, and
/// the whole set plus one ghost position on each side spans at most 2^63 - 1 integers (the
/// frame of a chunk must be a valid range). Conservative: a chunk is at most the whole set.
bool stencil_can_hold(const rect<1>& r) {
  const range& d = r.dim(0);
  if (d.size() < 2 * dmap::num_locales()) return false;
  using dmap::detail::wide_int;
  const wide_int span = wide_int{std::max(d.first(), d.last())} - std::min(d.first(), d.last()) +
                        2 * wide_int{dmap::detail::abs_index(d.stride())} + 1;
  return span <= highest;
}

/// The index sets: empty, one index, fewer indices than locales, uneven counts at both
/// int64 limits, strides reaching across most of int64, descending order.
std::vector<std::pair<std::string, rect<1>>> edge_sets() {
  const index_t p = dmap::num_locales();
  return {
      {"empty at 0", rect<1>{range(0, 0)}},
      {"empty at INT64_MAX", rect<1>{range(highest, highest)}},
      {"one index, INT64_MIN", rect<1>{range(lowest, lowest + 1)}},
      {"one index, INT64_MAX - 1", rect<1>{range(highest - 1, highest)}},
      {"fewer indices than locales", rect<1>{range(-2, -2 + std::max<index_t>(p - 1, 1))}},
      {"3P + 1 indices from INT64_MIN", rect<1>{range(lowest, lowest + 3 * p + 1)}},
      {"3P + 2 indices up to INT64_MAX - 1", rect<1>{range(highest - (3 * p + 2), highest)}},
      {"stride 7 from INT64_MIN", rect<1>{range(lowest, lowest + 7 * (2 * p + 1) - 3, 7)}},
      {"stride -5 down from INT64_MAX - 1", rect<1>{range(highest - 5 * (2 * p) - 1, highest, -5)}},
      {"stride 2^61 across 2^63 - 1 integers", rect<1>{range(-(index_t{1} << 62), (index_t{1} << 62) - 1, index_t{1} << 61)}},
      {"stride 2^62 + 1 from INT64_MIN", rect<1>{range(lowest, -1, (index_t{1} << 62) + 1)}},
      {"2^63 - 1 integers by 2^62 from INT64_MIN", rect<1>{range(lowest, -1, index_t{1} << 62)}},
      {"2^63 - 1 integers by 2^61 up to INT64_MAX - 1", rect<1>{range(0, highest, index_t{1} << 61)}},
  };
}

/// What `a` holds wrong against value_of over `r` on locale 0 after a gather, as text.
template <std::size_t N>
std::string gathered_mismatch(const dmap::array<std::uint64_t, N>& a, const rect<N>& r, const std::string& what) {
  const std::vector<std::uint64_t> all = a.gather();
  if (dmap::here() != 0) return "";
  if (static_cast<index_t>(all.size()) != r.size())
    return what + ": gather gave " + std::to_string(all.size()) + " values for " + std::to_string(r.size()) + " indices";
  for (index_t k = 0; k < r.size(); ++k)
    if (all[static_cast<std::size_t>(k)] != value_of(r.index_at(k))) {
      std::ostringstream s;
      s << what << ": gather position " << k << " (index " << r.index_at(k) << ") holds a wrong value";
      return s.str();
    }
  return "";
}

/// Collective: every operation on `r` under map `k` gives the right answer; "" or what
/// went wrong (an exception is reported, not rethrown: the maps agree on failures).
std::string exercise(map_kind k, const rect<1>& r) {
  try {
    dmap::domain<1> D = domain_of(k, r);
    if (D.size() != r.size()) return "size " + std::to_string(D.size());
    if (!(D.indices() == r)) return "indices differ";
    dmap::array<std::uint64_t, 1> A(D);
    dmap::forall(dmap::zip(A, D), [](std::uint64_t& a, const idx<1>& i) { a = value_of(i); });

    // Reduction (wrapping sum: exact whatever the values) and count.
    std::uint64_t want_sum = 0;
    for (index_t q = 0; q < r.size(); ++q) want_sum += value_of(r.index_at(q));
    const auto wrapping_sum = [](std::uint64_t x, std::uint64_t y) { return x + y; };
    const std::uint64_t sum = dmap::reduce(A, std::uint64_t{0}, wrapping_sum);
    if (sum != want_sum) return "reduce gave a wrong sum";
    const index_t count = dmap::reduce(D, index_t{0}, std::plus<>{}, [](const idx<1>&) { return index_t{1}; });
    if (count != r.size()) return "counting reduce gave " + std::to_string(count);

    if (auto m = gathered_mismatch(A, r, "gather"); !m.empty()) return m;

    // Every element, fetched by position from every locale (not collective).
    std::vector<std::uint64_t> fetched(static_cast<std::size_t>(r.size()));
    A.fetch(0, r.size(), fetched.data());
    for (index_t q = 0; q < r.size(); ++q)
      if (fetched[static_cast<std::size_t>(q)] != value_of(r.index_at(q)))
        return "fetch position " + std::to_string(q) + " holds a wrong value";
    dmap::barrier();

    // Redistribution to every map and back.
    for (const map_kind to : all_maps) {
      if (to == map_kind::stencil && !stencil_can_hold(r)) continue;
      dmap::domain<1> E = domain_of(to, r);
      dmap::array<std::uint64_t, 1> B(E);
      B = A;
      if (auto m = gathered_mismatch(B, r, std::string("assignment to ") + name_of(to)); !m.empty()) return m;
      dmap::array<std::uint64_t, 1> C(D);
      C = B;
      if (auto m = gathered_mismatch(C, r, std::string("assignment back from ") + name_of(to)); !m.empty()) return m;
    }
    return "";
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
}

}  // namespace

TEST_CASE("extremes: every map places, loops, reduces, gathers, fetches and redistributes edge index sets",
          "[extremes]") {
  for (const auto& [label, r] : edge_sets()) {
    for (const map_kind k : all_maps) {
      if (k == map_kind::stencil && !stencil_can_hold(r)) continue;
      INFO(name_of(k) << " over " << label << ": " << r);
      CHECK_NO_FAILURE(exercise(k, r));
    }
  }
}

TEST_CASE("extremes: a Stencil frame past 2^63 - 1 integers is an argument_error on every locale", "[extremes]") {
  // Four indices 2^61 apart: at one locale the chunk with a ghost on each side spans 2^63 + 2^61.
  const rect<1> r{range(-(index_t{1} << 62), (index_t{1} << 62) - 1, index_t{1} << 61)};
  if (dmap::num_locales() == 1) {
    CHECK_THROWS_AS(dmap::domain<1>(dmap::stencil<1>{idx<1>{1}}, r), dmap::argument_error);
  } else {
    CHECK_NO_FAILURE(exercise(map_kind::stencil, r));  // smaller chunks: their frames fit
  }
  CHECK_NO_FAILURE(exercise(map_kind::block, rect<1>{range(0, 10 * dmap::num_locales())}));
}

TEST_CASE("extremes: 2-D Block, Cyclic and Stencil at the int64 corners, strided and descending", "[extremes]") {
  const index_t p = dmap::num_locales();
  const rect<2> sets[] = {
      rect<2>{range(lowest, lowest + 2 * p + 1), range(highest - (2 * p + 3), highest)},
      rect<2>{range(highest - 3 * (2 * p + 1), highest, -3), range(lowest, lowest + 4 * p + 5, 2)},
      rect<2>{range(lowest, lowest), range(highest - 5, highest)},
  };
  for (const rect<2>& r : sets) {
    INFO("indices " << r);
    const auto run = [&](auto dist) -> std::string {
      try {
        dmap::domain<2> D(dist, r);
        dmap::array<std::uint64_t, 2> A(D);
        dmap::forall(dmap::zip(A, D), [](std::uint64_t& a, const idx<2>& i) { a = value_of(i); });
        if (auto m = gathered_mismatch(A, r, "gather"); !m.empty()) return m;
        dmap::domain<2> C(dmap::cyclic<2>{}, r);
        dmap::array<std::uint64_t, 2> B(C);
        B = A;
        if (auto m = gathered_mismatch(B, r, "assignment to Cyclic"); !m.empty()) return m;
        // A slice at the corner: its first row only.
        if (!r.empty()) {
          rect<2> row = r;
          row.set_dim(0, range::counted(r.dim(0).first(), 1, r.dim(0).stride()));
          dmap::array<std::uint64_t, 2> Z(D);
          Z[row] = B[row];
          const auto all = Z.gather();
          if (dmap::here() == 0)
            for (index_t q = 0; q < row.size(); ++q)
              if (all[static_cast<std::size_t>(r.order_of(row.index_at(q)))] != value_of(row.index_at(q)))
                return "slice assignment misplaced position " + std::to_string(q);
        }
        return "";
      } catch (const std::exception& e) {
        return std::string("threw: ") + e.what();
      }
    };
    {
      INFO("block");
      CHECK_NO_FAILURE(run(dmap::block<2>{}));
    }
    {
      INFO("cyclic");
      CHECK_NO_FAILURE(run(dmap::cyclic<2>{}));
    }
    if (r.dim(0).size() >= 2 * p && r.dim(1).size() >= 2 * p) {
      INFO("stencil");
      CHECK_NO_FAILURE(run(dmap::stencil<2>{idx<2>{1, 1}}));
    }
  }
}

TEST_CASE("extremes: Stencil halos next to INT64_MIN and INT64_MAX, periodic and not", "[extremes][stencil]") {
  const index_t p = dmap::num_locales();
  const index_t n = 3 * p + 1;
  struct stencil_case {
    const char* label;
    rect<1> r;
    bool periodic;
  };
  const stencil_case cases[] = {
      {"from INT64_MIN", rect<1>{range(lowest, lowest + n)}, false},
      {"up to INT64_MAX - 1", rect<1>{range(highest - n, highest)}, false},
      {"stride 3 up to INT64_MAX - 1", rect<1>{range(highest - 3 * n, highest, 3)}, false},
      // Periodic: one period plus the ghost width must stay inside int64.
      {"periodic near INT64_MIN", rect<1>{range(lowest + n + 1, lowest + 2 * n + 1)}, true},
      {"periodic near INT64_MAX", rect<1>{range(highest - 2 * n - 2, highest - n - 2)}, true},
  };
  for (const auto& c : cases) {
    INFO(c.label << ": " << c.r << (c.periodic ? " periodic" : ""));
    std::string failure;
    try {
      dmap::stencil<1> dist(idx<1>{1}, std::array<bool, 1>{c.periodic});
      dmap::domain<1> D(dist, c.r);
      dmap::array<std::uint64_t, 1> A(D), B(D);
      dmap::forall(dmap::zip(A, D), [](std::uint64_t& a, const idx<1>& i) { a = value_of(i); });
      dmap::update_halos(A);
      // Interior (or everything when periodic): b = left + right neighbour.
      const rect<1> inner = c.periodic ? c.r : rect<1>{c.r.dim(0).interior(-(n - 1)).interior(n - 2)};
      dmap::forall(dmap::zip(B[inner], dmap::neighbors(std::as_const(A)[inner], 1)),
                   [](std::uint64_t& b, const auto& a) { b = a(-1) + a(1); });
      const auto all = B.gather();
      if (dmap::here() == 0) {
        const range& dim = c.r.dim(0);
        for (index_t q = 0; q < dim.size() && failure.empty(); ++q) {
          if (!inner.contains(idx<1>{dim.index_at(q)})) continue;
          const index_t left = q == 0 ? n - 1 : q - 1, right = q == n - 1 ? 0 : q + 1;
          const std::uint64_t want = value_of(idx<1>{dim.index_at(left)}) + value_of(idx<1>{dim.index_at(right)});
          if (all[static_cast<std::size_t>(q)] != want) failure = "position " + std::to_string(q) + " is wrong";
        }
      }
    } catch (const std::exception& e) {
      failure = std::string("threw: ") + e.what();
    }
    CHECK_NO_FAILURE(failure);
  }
}

}  // namespace test_extremes
