// dmap::detail::linear_slabs, the algorithms layer's private position-cut map (scan's
// temporary, sort's working arrays), against a brute-force oracle: for the even cut, Block's
// cut and uneven cuts with empty locales, over 1-D rects (shifted, strided) and 2-D rects, every
// index lies on the locale whose [starts[q], starts[q + 1]) holds its row-major position, the
// locale's rects hold exactly those positions in order, and its storage follows them; equal
// cuts compare equal, other cuts do not.
#include "../support.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace test_linear_slabs {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::idx;
using dmap::index_t;
using dmap::range;
using dmap::rect;
using dmap::detail::linear_slabs;

/// Cuts of n positions to try: the even cut, Block's cut, everything on the last locale,
/// everything on locale 0, and a lopsided cut (the first half of the locales empty).
std::vector<std::vector<index_t>> cuts_of(index_t n) {
  const auto p = static_cast<std::size_t>(dmap::num_locales());
  std::vector<std::vector<index_t>> out{linear_slabs<1>::even(n).starts(), linear_slabs<1>::block(n).starts()};
  std::vector<index_t> last(p + 1, 0), first(p + 1, n), lopsided(p + 1, 0);
  last[p] = n;
  first[0] = 0;
  for (std::size_t q = p / 2 + 1; q <= p; ++q) lopsided[q] = n / 3 * static_cast<index_t>(q - p / 2) / static_cast<index_t>(p - p / 2);
  lopsided[p] = n;
  out.push_back(last);
  out.push_back(first);
  out.push_back(lopsided);
  return out;
}

/// Checks the domain of `whole` cut by `starts` against the oracle, and an array over it.
template <std::size_t N>
void check(const rect<N>& whole, const std::vector<index_t>& starts) {
  const linear_slabs<N> cut(starts);
  const dmap::domain<N> d(cut, whole);
  const int p = dmap::num_locales();
  const auto owner_of = [&](index_t pos) {  // the oracle: the last q with starts[q] at or before pos
    int q = 0;
    for (int r = 0; r < p; ++r)
      if (starts[static_cast<std::size_t>(r)] <= pos) q = r;
    return q;
  };
  // every index: its owner, from the descriptor and from the oracle
  for (index_t k = 0; k < whole.size(); ++k) {
    const idx<N> i = whole.index_at(k);
    REQUIRE(d.locale_of(i) == owner_of(k));
  }
  // every locale's rects: exactly its positions, in order
  for (int q = 0; q < p; ++q) {
    std::vector<index_t> got;
    for (const auto& r : d.local_subdomains(q))
      for (index_t k = 0; k < r.size(); ++k) got.push_back(whole.order_of(r.index_at(k)));
    std::vector<index_t> want;
    for (index_t k = starts[static_cast<std::size_t>(q)]; k < starts[static_cast<std::size_t>(q) + 1]; ++k)
      want.push_back(k);
    REQUIRE(got == want);
  }
  // this locale's storage: its positions, one after another
  dmap::array<index_t, N> a(d);
  dmap::forall(dmap::zip(d, a), [&](const idx<N>& i, index_t& x) { x = whole.order_of(i); });
  const auto me = static_cast<std::size_t>(dmap::here());
  const index_t count = starts[me + 1] - starts[me];
  REQUIRE(a.local_size() == count);
  const index_t* data = count > 0 ? a.local_data() : nullptr;
  for (index_t k = 0; k < count; ++k) REQUIRE(data[k] == starts[me] + k);
}

}  // namespace

TEST_CASE("linear_slabs places any cut of 1-D and 2-D rects as runs of positions in locale order",
          "[linear_slabs][sort][scan]") {
  for (index_t n : {0, 1, 2, 7, 37}) {
    for (const auto& starts : cuts_of(n)) {
      check<1>(rect<1>{range(0, n)}, starts);
      check<1>(rect<1>{range::counted(-5, n, 3)}, starts);  // shifted and strided
    }
  }
  const std::vector<std::array<index_t, 2>> shapes{{0, 3}, {1, 1}, {3, 7}, {7, 3}, {5, 5}};
  for (const auto& s : shapes) {
    const rect<2> box{range(2, 2 + s[0]), range::counted(-1, s[1], 2)};
    for (const auto& starts : cuts_of(box.size())) check<2>(box, starts);
  }
}

TEST_CASE("linear_slabs compares and names its cut, and refuses a malformed one", "[linear_slabs][sort][scan]") {
  const int p = dmap::num_locales();
  const index_t n = 37;
  CHECK(linear_slabs<1>::even(n) == linear_slabs<1>(linear_slabs<1>::even(n).starts()));
  CHECK(linear_slabs<1>::even(n).name() == linear_slabs<1>(linear_slabs<1>::even(n).starts()).name());
  CHECK_FALSE(linear_slabs<1>::even(n) == linear_slabs<1>::even(n + 1));
  std::vector<index_t> moved = linear_slabs<1>::even(n).starts();
  if (p > 1) {
    moved[1] += 1;
    CHECK_FALSE(linear_slabs<1>(moved) == linear_slabs<1>::even(n));
    CHECK(linear_slabs<1>(moved).name() != linear_slabs<1>::even(n).name());
  }
  // malformed: wrong count, not from 0, decreasing
  CHECK_THROWS_AS(linear_slabs<1>(std::vector<index_t>(static_cast<std::size_t>(p), 0)), dmap::argument_error);
  std::vector<index_t> from_one(static_cast<std::size_t>(p) + 1, 1);
  CHECK_THROWS_AS(linear_slabs<1>(from_one), dmap::argument_error);
  std::vector<index_t> down(static_cast<std::size_t>(p) + 1, 0);
  down[static_cast<std::size_t>(p) - 1] = 5;
  down[static_cast<std::size_t>(p)] = 4;
  CHECK_THROWS_AS(linear_slabs<1>(down), dmap::argument_error);
  // a domain reindexed to another size gets the even cut of that size
  dmap::domain<1> d(linear_slabs<1>::block(n), rect<1>{range(0, n)});
  d.set_indices(rect<1>{range(0, 11)});
  const auto even = linear_slabs<1>::even(11).starts();
  for (index_t k = 0; k < 11; ++k) {
    int q = 0;
    for (int r = 0; r < p; ++r)
      if (even[static_cast<std::size_t>(r)] <= k) q = r;
    REQUIRE(d.locale_of(idx<1>{k}) == q);
  }
}

}  // namespace test_linear_slabs
