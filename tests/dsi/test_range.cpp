// dmap::range, densify and undensify against an independent brute-force oracle.
//
// The oracle never calls the code under test: a range [lo, hi) by s aligned to a is the list
// of the integers i in [lo, hi) with (i - a) mod |s| == 0, ascending for s > 0 and descending
// for s < 0, found by scanning every integer of [lo, hi). A result range is read back through
// its four accessors (lo, hi, stride, alignment), which the first test case pins to the
// constructor's arguments.
//
// The exhaustive loops make millions of comparisons; ORACLE_CHECK counts them and hands only
// failures to Catch (at most a few per test case), so the file stays fast.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../dsi/range.hpp"
#include "../oracle.hpp"

namespace test_range {  // one per file: the tests also build as unity batches (docs/testing.md)

namespace {

using dmap::index_t;
using dmap::range;

// ------------------------------------------------------------------------------- oracle

using dmap::testing::oracle::iabs;
using dmap::testing::oracle::pmod;
using dmap::testing::oracle::tally;

/// A short index list with inline storage (the exhaustive loops would otherwise spend their
/// time in the allocator).
struct seq {
  std::array<index_t, 64> v{};
  std::size_t n = 0;

  void push_back(index_t x) {
    if (n == v.size()) throw std::length_error("test oracle: sequence longer than 64");
    v[n++] = x;
  }
  std::size_t size() const { return n; }
  bool empty() const { return n == 0; }
  index_t operator[](std::size_t k) const { return v[k]; }
  index_t* begin() { return v.data(); }
  index_t* end() { return v.data() + n; }
  const index_t* begin() const { return v.data(); }
  const index_t* end() const { return v.data() + n; }
  bool has(index_t x) const { return std::find(begin(), end(), x) != end(); }
  void reverse() { std::reverse(begin(), end()); }
  friend bool operator==(const seq& a, const seq& b) {
    return a.n == b.n && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const seq& a, const seq& b) { return !(a == b); }
  friend std::ostream& operator<<(std::ostream& os, const seq& s) {
    os << '[';
    for (std::size_t k = 0; k < s.n; ++k) os << (k ? ", " : "") << s.v[k];
    return os << ']';
  }
};

/// The indices of [lo, hi) by s aligned to a, by scanning every integer of [lo, hi).
seq brute(index_t lo, index_t hi, index_t s, index_t a) { return dmap::testing::oracle::brute<seq>(lo, hi, s, a); }
/// The sequence a range object represents, read through its accessors.
seq seq_of(const range& r) { return dmap::testing::oracle::seq_of<seq>(r); }
/// The arithmetic progression first, first + step, ... (count terms).
seq progression(index_t first, index_t count, index_t step) {
  seq out;
  for (index_t j = 0; j < count; ++j) out.push_back(first + j * step);
  return out;
}

/// The arguments a range was built from, with the oracle's answer for them.
struct sample {
  index_t lo, hi, stride, align;
  range r;
  seq s;
};
std::ostream& operator<<(std::ostream& os, const sample& x) {
  return os << "range{" << x.lo << ", " << x.hi << ", " << x.stride << ", " << x.align << "}";
}

/// Every range{lo, hi, s, a} with lo, hi in [lo_min, hi_max], 0 < |s| <= max_stride and a in
/// [-6, 6]. The small variant (for pairs) keeps a in [0, |s|) and hi >= lo - 1: other
/// alignments and bounds only repeat sequences, and the single-range tests cover them.
std::vector<sample> samples(index_t lo_min, index_t hi_max, index_t max_stride, bool small) {
  std::vector<sample> out;
  for (index_t lo = lo_min; lo <= hi_max; ++lo)
    for (index_t hi = small ? lo - 1 : lo_min; hi <= hi_max; ++hi)
      for (index_t s = -max_stride; s <= max_stride; ++s) {
        if (s == 0) continue;
        const index_t from = small ? 0 : -6, to = small ? iabs(s) - 1 : 6;
        for (index_t a = from; a <= to; ++a)
          out.push_back({lo, hi, s, a, range{lo, hi, s, a}, brute(lo, hi, s, a)});
      }
  return out;
}

}  // namespace

// ------------------------------------------------------------------------------- constexpr

static_assert(range{0, 10, 2}.size() == 5);
static_assert(range{0, 10, -3}.first() == 9 && range{0, 10, -3}.last() == 0);
static_assert(range{1, 21, 3}.order_of(19) == 6);
static_assert(dmap::densify(range{1, 21, 3}, range{7, 20, 6}) == range{2, 7, 2});

// ------------------------------------------------------------------------------- range

TEST_CASE("range: constructors store bounds, stride and normalised alignment", "[serial][range]") {
  tally t;
  for (const auto& x : samples(-7, 8, 5, false)) {
    ORACLE_CHECK(t, x.r.lo() == x.lo && x.r.hi() == x.hi && x.r.stride() == x.stride, x);
    ORACLE_CHECK(t, x.r.alignment() == pmod(x.align, iabs(x.stride)),
                 x << " alignment " << x.r.alignment());
    // The three-argument form aligns to the first bound in iteration order.
    const range d{x.lo, x.hi, x.stride};
    const index_t natural = x.stride > 0 ? x.lo : x.hi - 1;
    ORACLE_CHECK(t, d.lo() == x.lo && d.hi() == x.hi && d.stride() == x.stride, x);
    ORACLE_CHECK(t, d.alignment() == pmod(natural, iabs(x.stride)),
                 x << " default alignment " << d.alignment());
    if (x.stride == 1) {
      const range u{x.lo, x.hi};
      ORACLE_CHECK(t, u.lo() == x.lo && u.hi() == x.hi && u.stride() == 1 && u.alignment() == 0, x);
    }
  }
  ORACLE_DONE(t);

  const range e;
  CHECK(e.lo() == 0);
  CHECK(e.hi() == 0);
  CHECK(e.stride() == 1);
  CHECK(e.empty());
  CHECK(e.size() == 0);
}

TEST_CASE("range: size, empty, first, last, aligned_low, aligned_high", "[serial][range]") {
  tally t;
  for (const auto& x : samples(-7, 8, 5, false)) {
    const seq& s = x.s;
    ORACLE_CHECK(t, x.r.size() == static_cast<index_t>(s.size()),
                 x << " size " << x.r.size() << " oracle " << s);
    ORACLE_CHECK(t, x.r.empty() == s.empty(), x);
    // Chapel: alignedLow is the smallest aligned integer >= lo, alignedHigh the largest <= hi - 1,
    // whether or not the range is empty. Found here by scanning.
    index_t low = x.lo;
    while (pmod(low - x.align, iabs(x.stride)) != 0) ++low;
    index_t high = x.hi - 1;
    while (pmod(high - x.align, iabs(x.stride)) != 0) --high;
    ORACLE_CHECK(t, x.r.aligned_low() == low,
                 x << " aligned_low " << x.r.aligned_low() << " oracle " << low);
    ORACLE_CHECK(t, x.r.aligned_high() == high,
                 x << " aligned_high " << x.r.aligned_high() << " oracle " << high);
    if (!s.empty()) {
      ORACLE_CHECK(t, x.r.first() == s[0], x << " first " << x.r.first() << " oracle " << s);
      ORACLE_CHECK(t, x.r.last() == s[s.size() - 1],
                   x << " last " << x.r.last() << " oracle " << s);
      ORACLE_CHECK(t, x.r.aligned_low() == *std::min_element(s.begin(), s.end()), x);
      ORACLE_CHECK(t, x.r.aligned_high() == *std::max_element(s.begin(), s.end()), x);
    }
  }
  ORACLE_DONE(t);
}

TEST_CASE("range: contains(index), order_of, index_at", "[serial][range]") {
  tally t;
  long throws = 0;
  for (const auto& x : samples(-7, 8, 5, false)) {
    const seq& s = x.s;
    for (index_t i = -10; i <= 11; ++i) {
      const auto pos = std::find(s.begin(), s.end(), i);
      const index_t want = pos == s.end() ? -1 : static_cast<index_t>(pos - s.begin());
      ORACLE_CHECK(t, x.r.contains(i) == (want >= 0), x << " contains(" << i << ")");
      ORACLE_CHECK(t, x.r.order_of(i) == want,
                   x << " order_of(" << i << ") = " << x.r.order_of(i) << ", oracle " << want);
    }
    for (std::size_t k = 0; k < s.size(); ++k)
      ORACLE_CHECK(t, x.r.index_at(static_cast<index_t>(k)) == s[k],
                   x << " index_at(" << k << ") oracle " << s);
    // Orders outside [0, size) throw (only on normalised alignments: exceptions are slow).
    if (x.align >= 0 && x.align < iabs(x.stride)) {
      for (const index_t k :
           {index_t{-1}, static_cast<index_t>(s.size()), static_cast<index_t>(s.size()) + 3}) {
        bool threw = false;
        try {
          (void)x.r.index_at(k);
        } catch (const dmap::out_of_bounds_error&) {
          threw = true;
        }
        ++throws;
        ORACLE_CHECK(t, threw, x << " index_at(" << k << ") did not throw out_of_bounds_error");
      }
    }
  }
  CHECK(throws > 1000);
  ORACLE_DONE(t);

  CHECK_THROWS_AS(range{}.index_at(0), dmap::out_of_bounds_error);
  CHECK_THROWS_AS((range{0, 10, 3}.index_at(4)), dmap::out_of_bounds_error);
  CHECK_THROWS_AS((range{0, 10, -3}.index_at(-1)), dmap::out_of_bounds_error);
  CHECK((range{0, 10, -3}.index_at(3)) == 0);
}

TEST_CASE("range: counted", "[serial][range]") {
  tally t;
  for (index_t first = -6; first <= 6; ++first)
    for (index_t count = 0; count <= 7; ++count)
      for (index_t s = -5; s <= 5; ++s) {
        if (s == 0) continue;
        const range r = range::counted(first, count, s);
        ORACLE_CHECK(t, seq_of(r) == progression(first, count, s),
                     "counted(" << first << ", " << count << ", " << s << ") = " << r);
        ORACLE_CHECK(t, r.stride() == s,
                     "counted(" << first << ", " << count << ", " << s << ") = " << r);
      }
  ORACLE_DONE(t);
  CHECK(seq_of(range::counted(3, 4)) == progression(3, 4, 1));
  CHECK_THROWS_AS(range::counted(0, -1), dmap::argument_error);
  CHECK_THROWS_AS(range::counted(5, -3, -2), dmap::argument_error);
  CHECK_THROWS_AS(range::counted(0, 3, 0), dmap::argument_error);
  CHECK_THROWS_AS(range::counted(0, 0, 0), dmap::argument_error);
}

TEST_CASE("range: normalized keeps the sequence and tightens the bounds", "[serial][range]") {
  tally t;
  for (const auto& x : samples(-7, 8, 5, false)) {
    const range n = x.r.normalized();
    ORACLE_CHECK(t, seq_of(n) == x.s, x << " normalized " << n);
    ORACLE_CHECK(t, n.stride() == x.stride, x << " normalized " << n);
    if (!x.s.empty()) {
      ORACLE_CHECK(t, n.lo() == *std::min_element(x.s.begin(), x.s.end()),
                   x << " normalized " << n);
      ORACLE_CHECK(t, n.hi() == *std::max_element(x.s.begin(), x.s.end()) + 1,
                   x << " normalized " << n);
      ORACLE_CHECK(t, n.alignment() == pmod(x.align, iabs(x.stride)), x << " normalized " << n);
    }
    ORACLE_CHECK(t, n == x.r, x << " normalized " << n);
  }
  ORACLE_DONE(t);
}

TEST_CASE("range: translated and expanded", "[serial][range]") {
  tally t;
  for (const auto& x : samples(-7, 8, 5, false)) {
    for (index_t off = -3; off <= 3; ++off) {
      seq moved;
      for (const index_t i : x.s) moved.push_back(i + off);
      const range tr = x.r.translated(off);
      ORACLE_CHECK(t, seq_of(tr) == moved, x << " translated(" << off << ") = " << tr);
      ORACLE_CHECK(t, tr.stride() == x.stride, x << " translated(" << off << ") = " << tr);
      // Same stride and alignment, bounds moved apart by `off` on each side.
      const range ex = x.r.expanded(off);
      ORACLE_CHECK(t, seq_of(ex) == brute(x.lo - off, x.hi + off, x.stride, x.align),
                   x << " expanded(" << off << ") = " << ex);
      ORACLE_CHECK(t,
                   ex.lo() == x.lo - off && ex.hi() == x.hi + off && ex.stride() == x.stride &&
                       ex.alignment() == pmod(x.align, iabs(x.stride)),
                   x << " expanded(" << off << ") = " << ex);
    }
  }
  ORACLE_DONE(t);
}

TEST_CASE("range: interior and exterior (Chapel semantics)", "[serial][range]") {
  tally t;
  for (const auto& x : samples(-7, 8, 5, false)) {
    // Width 0 keeps the range unchanged, as Chapel's range.interior(0) and exterior(0) do.
    ORACLE_CHECK(t, seq_of(x.r.interior(0)) == x.s, x << " interior(0) = " << x.r.interior(0));
    ORACLE_CHECK(t, seq_of(x.r.exterior(0)) == x.s, x << " exterior(0) = " << x.r.exterior(0));
    for (index_t w = -9; w <= 9; ++w) {
      if (w == 0) continue;
      // interior: the range's own indices within |w| of hi (w > 0) or of lo (w < 0), same order.
      seq inner;
      for (const index_t i : x.s)
        if (w > 0 ? i >= x.hi - w : i < x.lo - w) inner.push_back(i);
      const range in = x.r.interior(w);
      ORACLE_CHECK(t, seq_of(in) == inner,
                   x << " interior(" << w << ") = " << in << ", oracle " << inner);
      ORACLE_CHECK(t, in.stride() == x.stride && in.alignment() == pmod(x.align, iabs(x.stride)),
                   x << " interior(" << w << ") = " << in);
      // exterior: [hi, hi + w) (w > 0) or [lo + w, lo) (w < 0), same stride and alignment.
      const seq outer = w > 0 ? brute(x.hi, x.hi + w, x.stride, x.align)
                              : brute(x.lo + w, x.lo, x.stride, x.align);
      const range out = x.r.exterior(w);
      ORACLE_CHECK(t, seq_of(out) == outer,
                   x << " exterior(" << w << ") = " << out << ", oracle " << outer);
      ORACLE_CHECK(t, out.stride() == x.stride && out.alignment() == pmod(x.align, iabs(x.stride)),
                   x << " exterior(" << w << ") = " << out);
    }
  }
  ORACLE_DONE(t);
  // Chapel's documented examples: 0..9.interior(2) == 8..9, 0..9.exterior(-2) == -2..-1.
  CHECK(range{0, 10}.interior(2) == range{8, 10});
  CHECK(range{0, 10}.interior(-1) == range{0, 1});
  CHECK(range{0, 10}.exterior(1) == range{10, 11});
  CHECK(range{0, 10}.exterior(-2) == range{-2, 0});
}

TEST_CASE("range: operator== compares sequences", "[serial][range]") {
  tally t;
  const auto all = samples(-4, 5, 4, true);
  for (const auto& a : all)
    for (const auto& b : all)
      ORACLE_CHECK(t, (a.r == b.r) == (a.s == b.s), a << " == " << b << " gave " << (a.r == b.r));
  ORACLE_DONE(t);
  CHECK(range{} == range(5, 2, -3));            // all empty ranges are equal
  CHECK(range{0, 1, 1} == range(-1, 2, 2, 0));  // {0} by any stride
  CHECK_FALSE(range{0, 10, 2} == range(0, 10, -2, 0));
  CHECK(range(0, 10, -2, 0) == range(0, 9, -2));
}

TEST_CASE("range: contains(range), intersect, slicing", "[serial][range]") {
  tally t;
  const auto all = samples(-4, 5, 4, true);
  for (const auto& a : all)
    for (const auto& b : all) {
      bool subset = true;
      seq both;
      for (const index_t i : b.s) subset = subset && a.s.has(i);
      for (const index_t i : a.s)
        if (b.s.has(i)) both.push_back(i);  // in a's order
      ORACLE_CHECK(t, a.r.contains(b.r) == subset, a << ".contains(" << b << ")");
      const range meet = a.r.intersect(b.r);
      ORACLE_CHECK(t, seq_of(meet) == both,
                   a << ".intersect(" << b << ") = " << meet << ", oracle " << both);
      ORACLE_CHECK(t, both.size() < 2 || (meet.stride() > 0) == (a.stride > 0),
                   a << ".intersect(" << b << ") = " << meet);
      seq sliced = both;
      if (b.stride < 0) sliced.reverse();  // ascending iff the strides' signs agree
      const range sl = a.r[b.r];
      ORACLE_CHECK(t, seq_of(sl) == sliced, a << "[" << b << "] = " << sl << ", oracle " << sliced);
    }
  ORACLE_DONE(t);

  // Chapel: (1..20 by 3)[7..19 by 6] == 7..19 by 6; (0..<10)[0..<10 by -2] is descending.
  CHECK((range{1, 21, 3}[range{7, 20, 6}]) == range(7, 20, 6));
  CHECK(seq_of(range{0, 10}[range{0, 10, -2}]) == progression(9, 5, -2));
  CHECK(seq_of(range{0, 10, -1}[range{0, 10, -2}]) == progression(1, 5, 2));  // 9, 7, .. sliced
  CHECK(seq_of(range{0, 10, -1}.intersect(range{0, 10, 2})) == progression(8, 5, -2));
}

TEST_CASE("range: intersect with large strides and alignments", "[serial][range]") {
  std::mt19937_64 gen(20240611);
  const auto uniform = [&](index_t lo, index_t hi) {  // in [lo, hi]
    return lo + static_cast<index_t>(gen() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  // The indices of [lo, hi) by s aligned to a, stepping from the smallest one.
  const auto stepped = [](index_t lo, index_t hi, index_t s, index_t a) {
    std::vector<index_t> out;
    const index_t m = iabs(s);
    index_t i = lo + pmod(a - lo, m);
    for (; i < hi; i += m) out.push_back(i);
    return out;
  };
  tally t;
  long nonempty = 0;
  for (int c = 0; c < 600; ++c) {
    index_t s1, s2;
    if (c % 3 == 2) {  // unrelated strides: mostly empty, lcm up to ~1e18 (still fits)
      s1 = uniform(1, 1000000000);
      s2 = uniform(1, 1000000000);
    } else {  // a common factor, so that the lcm fits in the window and the meet is nonempty
      const index_t g = uniform(1, 50000000);
      s1 = g * uniform(1, 20);
      s2 = g * uniform(1, 20);
    }
    const index_t common = uniform(-1000000000000, 1000000000000);
    const index_t a1 =
        c % 4 == 3 ? uniform(-4000000000, 4000000000) : common + s1 * uniform(-50, 50);
    const index_t a2 =
        c % 5 == 4 ? uniform(-4000000000, 4000000000) : common + s2 * uniform(-50, 50);
    const index_t window = std::min(s1, s2) * 300;
    const index_t lo1 = common - uniform(0, window / 2), hi1 = common + uniform(0, window / 2);
    const index_t lo2 = common - uniform(0, window / 2), hi2 = common + uniform(0, window / 2);
    if (gen() & 1) s1 = -s1;
    if (gen() & 1) s2 = -s2;
    const range r1{lo1, hi1, s1, a1}, r2{lo2, hi2, s2, a2};

    // Step through the sequence with fewer indices, keep those the other one has.
    const bool one_is_shorter = (hi1 - lo1) / iabs(s1) <= (hi2 - lo2) / iabs(s2);
    std::vector<index_t> both;
    for (const index_t i : one_is_shorter ? stepped(lo1, hi1, s1, a1) : stepped(lo2, hi2, s2, a2)) {
      const bool in1 = lo1 <= i && i < hi1 && pmod(i - a1, iabs(s1)) == 0;
      const bool in2 = lo2 <= i && i < hi2 && pmod(i - a2, iabs(s2)) == 0;
      if (in1 && in2) both.push_back(i);
    }
    if (!both.empty()) ++nonempty;
    const auto describe = [&](std::ostream& os) -> std::ostream& {
      return os << "range{" << lo1 << ", " << hi1 << ", " << s1 << ", " << a1 << "} with range{"
                << lo2 << ", " << hi2 << ", " << s2 << ", " << a2 << "}";
    };
    for (const bool slicing : {false, true}) {
      const range m = slicing ? r1[r2] : r1.intersect(r2);
      const bool ascending = slicing ? ((s1 > 0) == (s2 > 0)) : s1 > 0;
      std::vector<index_t> want = both;
      if (!ascending) std::reverse(want.begin(), want.end());
      std::ostringstream what;
      describe(what) << (slicing ? " sliced: " : " intersected: ") << m << ", oracle size "
                     << want.size();
      ORACLE_CHECK(t, m.size() == static_cast<index_t>(want.size()), what.str());
      if (m.size() != static_cast<index_t>(want.size())) continue;
      for (std::size_t k = 0; k < want.size(); ++k) {
        ORACLE_CHECK(t, m.index_at(static_cast<index_t>(k)) == want[k],
                     what.str() << " at order " << k);
        ORACLE_CHECK(t, m.contains(want[k]), what.str() << " contains " << want[k]);
      }
      // Bounds stay those of the overlap, so no index outside both ranges can slip in.
      ORACLE_CHECK(t,
                   want.empty() || (m.lo() >= std::max(lo1, lo2) && m.hi() <= std::min(hi1, hi2)),
                   what.str());
    }
  }
  CHECK(nonempty > 200);
  ORACLE_DONE(t);

  // Coprime strides near 2^31.5: the lcm either just fits in 64 bits or just does not.
  const index_t big = index_t{1} << 62;
  const index_t a = 3037000499, b = 3037000500;  // a * b = 9223372033963249500 <= INT64_MAX
  {
    const range m = range{0, big, a}.intersect(range{0, big, b});
    CHECK(m.size() == 1);
    CHECK(m.first() == 0);
    CHECK(m.stride() == a * b);
  }
  // Past 64 bits the lcm exceeds any range's span: the meet holds at most one index.
  const index_t c = 3037000501;  // b * c = 9223372040037250500 > INT64_MAX
  {
    const range m = range(0, big, b).intersect(range{0, big, c});
    CHECK(m.size() == 1);
    CHECK(m.first() == 0);
    CHECK(range(1, big, b).intersect(range{1, big, c}).size() == 1);  // 1 is aligned in both
    const range shifted = range(2, big, b).intersect(range{1, big, c});  // x = 2 (mod b), x = 1 (mod c = b + 1)
    CHECK(shifted.size() == 1);
    CHECK(shifted.first() == b + 2);
    CHECK(range(b + 3, big, b, 2).intersect(range{1, big, c}).empty());  // the next one is b + 2 + b * c > 2^62
  }
  // Descending from 2^62 - 1 by c: x = 0 (mod b) and x = 2^62 - 1 (mod c) first at 4832588618457673500.
  CHECK((range{0, big, b}[range{0, big, -c}]).empty());
  CHECK((range{0, big, b}[range(0, big, -c, 0)]).size() == 1);
  {
    // x = 0 (mod 2^40) and x = -2^62 (mod 2^40 - 1) within [-2^62, 2^62 - 1): only -2^62.
    const range m = range(-big, big - 1, index_t{1} << 40).intersect(range{-big, big - 1, (index_t{1} << 40) - 1});
    CHECK(m.size() == 1);
    CHECK(m.first() == -big);
    const range n = range(-big + 1, big - 1, index_t{1} << 40).intersect(range{-big, big - 1, (index_t{1} << 40) - 1});
    CHECK(n.empty());
  }

  // Two primes near 1e9: the lcm (their product) fits; the bounds hold a few common indices.
  // Checked without the CRT: every index satisfies both congruences, the stride is the product,
  // and no common index lies just before the first or just after the last one.
  const index_t p = 1000000007, q = 1000000009, l = p * q;
  for (int k = 0; k < 50; ++k) {
    const index_t lo = uniform(-2000000000000000000, 0), hi = lo + uniform(l, 4 * l);
    const index_t ap = uniform(-p, p), aq = uniform(-q, q);
    const range m = range{lo, hi, p, ap}.intersect(range{lo, hi, -q, aq});
    REQUIRE(m.size() >= 1);
    CHECK(m.stride() == l);
    for (index_t j = 0; j < m.size(); ++j) {
      const index_t i = m.index_at(j);
      CHECK((lo <= i && i < hi && pmod(i - ap, p) == 0 && pmod(i - aq, q) == 0));
    }
    CHECK(m.first() - l < lo);
    CHECK(m.last() + l >= hi);
  }
}

TEST_CASE("range: stride 0 is an argument_error naming the stride", "[serial][range]") {
  const auto message = [](auto make) -> std::string {
    try {
      make();
    } catch (const dmap::argument_error& e) {
      return e.what();
    }
    return "(no dmap::argument_error thrown)";
  };
  CHECK_THAT(message([] { return range(0, 10, 0); }), Catch::Contains("stride"));
  CHECK_THAT(message([] { return range(-3, 4, 0, 1); }), Catch::Contains("stride"));
  CHECK_THAT(message([] { return range::counted(2, 5, 0); }), Catch::Contains("stride"));
  CHECK_THROWS_AS(range(0, 10, 0), dmap::argument_error);
  CHECK_THROWS_AS(range(0, 10, 0), dmap::error);  // the common base
}

TEST_CASE("range: operator<< prints Chapel notation", "[serial][range]") {
  const auto text = [](const range& r) {
    std::ostringstream os;
    os << r;
    return os.str();
  };
  CHECK(text(range{0, 10}) == "0..<10");
  CHECK(text(range{}) == "0..<0");
  CHECK(text(range{-3, 4}) == "-3..<4");
  CHECK(text(range{0, 10, 2}) == "0..<10 by 2");
  CHECK(text(range{0, 10, 2, 1}) == "0..<10 by 2 align 1");
  CHECK(text(range{0, 10, 3, 6}) == "0..<10 by 3");  // 6 = 0 (mod 3): the default
  CHECK(text(range{0, 10, -1}) == "0..<10 by -1");
  CHECK(text(range{0, 10, -2}) == "0..<10 by -2");  // aligned to 9
  CHECK(text(range{0, 10, -2, 0}) == "0..<10 by -2 align 0");
  CHECK(text(range{1, 21, 3}) == "1..<21 by 3");
  CHECK(text(range{0, 10, 1, 7}) == "0..<10");  // unit stride: alignment is meaningless
}

// ------------------------------------------------------------------------------- densify

TEST_CASE("densify/undensify: Chapel's worked example", "[serial][densify]") {
  const range w{1, 21, 3};  // 1..20 by 3 = 1, 4, ..., 19
  const range s{7, 20, 6};  // 7..19 by 6 = 7, 13, 19
  const range d = dmap::densify(w, s);
  CHECK(seq_of(d) == progression(2, 3, 2));  // 2..6 by 2
  CHECK(d == range(2, 7, 2));
  CHECK(seq_of(dmap::undensify(w, d)) == progression(7, 3, 6));
  CHECK(dmap::undensify(w, d) == s);
  CHECK(dmap::densify(w, 19) == 6);
  CHECK(dmap::undensify(w, 6) == 19);
  CHECK(dmap::densify(w, 20) == -1);
  // The same with both directions reversed: s descending inside w descending.
  const range wr{1, 21, -3, 1};  // 19, 16, ..., 1
  const range sr{7, 20, -6};
  CHECK(seq_of(dmap::densify(wr, sr)) == progression(0, 3, 2));  // 19 is order 0 of wr
  CHECK(dmap::undensify(wr, dmap::densify(wr, sr)) == sr);
  CHECK(seq_of(dmap::densify(w, sr)) == progression(6, 3, -2));
}

TEST_CASE("densify/undensify: every sub-range of every whole range", "[serial][densify]") {
  tally t;
  long subs = 0;
  for (index_t lo = -6; lo <= 6; ++lo)
    for (index_t hi = lo - 1; hi <= 8; ++hi)
      for (index_t ws = -4; ws <= 4; ++ws) {
        if (ws == 0) continue;
        for (index_t wa = 0; wa < iabs(ws); ++wa) {
          const range w{lo, hi, ws, wa};
          const seq ws_seq = brute(lo, hi, ws, wa);
          const auto n = static_cast<index_t>(ws_seq.size());
          const auto whole = [&] {  // for failure messages only
            std::ostringstream os;
            os << "whole range{" << lo << ", " << hi << ", " << ws << ", " << wa
               << "} = " << ws_seq;
            return os.str();
          };

          // Empty subsets, wherever they sit.
          for (const range e : {range{}, range{3, 3}, range{5, 2, -2}, range{lo, lo, ws, wa},
                                range{hi, hi + 1, 3, hi + 1}}) {
            const range d = dmap::densify(w, e);
            ORACLE_CHECK(t, d.empty(), whole() << ", empty sub " << e << ": densify " << d);
            ORACLE_CHECK(t, dmap::undensify(w, d).empty(), whole() << ", empty sub " << e);
            ++subs;
          }

          // The elements of w at orders k0, k0 + q, ..., k0 + (c - 1) q: a range with stride ws *
          // q.
          for (index_t k0 = 0; k0 < n; ++k0)
            for (index_t q = -(n - 1); q <= n - 1; ++q)
              for (index_t c = 1; c <= n; ++c) {
                if ((q == 0) != (c == 1)) continue;  // one element: q irrelevant, use q = 0 only
                const index_t k_last = k0 + (c - 1) * q;
                if (k_last < 0 || k_last >= n) break;
                seq elems;
                for (index_t j = 0; j < c; ++j)
                  elems.push_back(ws_seq[static_cast<std::size_t>(k0 + j * q)]);
                const seq orders = progression(k0, c, q);
                const index_t ss = c == 1 ? (k0 % 2 ? 1 : -2) : ws * q;
                const index_t min = *std::min_element(elems.begin(), elems.end());
                const index_t max = *std::max_element(elems.begin(), elems.end());
                // The same subset written several ways: tight or loose bounds, any alignment
                // representative, default or explicit alignment.
                for (const index_t slack_lo : {index_t{0}, iabs(ss) - 1})
                  for (const index_t slack_hi : {index_t{0}, iabs(ss) - 1})
                    for (const int form : {0, 1}) {
                      const index_t slo = min - slack_lo, shi = max + 1 + slack_hi;
                      if (form == 0 && (ss > 0 ? slack_lo : slack_hi) != 0)
                        continue;  // default align
                      const range s =
                          form == 0 ? range{slo, shi, ss} : range{slo, shi, ss, elems[0] + 3 * ss};
                      if (seq_of(s) != elems) {  // a broken test, not a broken library
                        FAIL("test generator built " << s << " for " << elems);
                      }
                      ++subs;
                      const range d = dmap::densify(w, s);
                      ORACLE_CHECK(t, seq_of(d) == orders,
                                   whole() << ", sub " << s << " = " << elems << ": densify " << d
                                           << ", oracle " << orders);
                      const range back = dmap::undensify(w, d);
                      ORACLE_CHECK(t, seq_of(back) == elems && back == s,
                                   whole() << ", sub " << s << " = " << elems
                                           << ": undensify(densify) = " << back);
                    }
                // undensify alone, from dense ranges written several ways.
                const index_t dmin = std::min(k0, k_last), dmax = std::max(k0, k_last);
                const index_t dq = c == 1 ? 1 : q;
                for (const index_t slack : {index_t{0}, iabs(dq) - 1}) {
                  const range d{dmin - slack, dmax + 1 + slack, dq, k0 - 5 * dq};
                  const range u = dmap::undensify(w, d);
                  ORACLE_CHECK(t, seq_of(u) == elems,
                               whole()
                                   << ": undensify(" << d << ") = " << u << ", oracle " << elems);
                }
              }
        }
      }
  CHECK(subs > 10000);
  ORACLE_DONE(t);
}

TEST_CASE("densify/undensify of single indices", "[serial][densify]") {
  tally t;
  for (const auto& x : samples(-7, 8, 5, true)) {
    for (index_t i = -9; i <= 10; ++i) {
      const auto pos = std::find(x.s.begin(), x.s.end(), i);
      const index_t want = pos == x.s.end() ? -1 : static_cast<index_t>(pos - x.s.begin());
      ORACLE_CHECK(t, dmap::densify(x.r, i) == want, x << " densify(" << i << ")");
    }
    for (std::size_t k = 0; k < x.s.size(); ++k)
      ORACLE_CHECK(t, dmap::undensify(x.r, static_cast<index_t>(k)) == x.s[k],
                   x << " undensify(" << k << ")");
  }
  ORACLE_DONE(t);
  CHECK_THROWS_AS(dmap::undensify(range{1, 21, 3}, 7), dmap::out_of_bounds_error);
  CHECK_THROWS_AS(dmap::undensify(range{1, 21, 3}, -1), dmap::out_of_bounds_error);
  CHECK_THROWS_AS(dmap::undensify(range{}, 0), dmap::out_of_bounds_error);
}

TEST_CASE("densify rejects non-subsets, undensify rejects orders outside the whole",
          "[serial][densify]") {
  tally t;
  long rejected = 0;
  const auto all = samples(-2, 3, 3, true);
  for (const auto& w : all)
    for (const auto& s : all) {
      bool subset = true;
      for (const index_t i : s.s) subset = subset && w.s.has(i);
      bool threw = false;
      try {
        (void)dmap::densify(w.r, s.r);
      } catch (const dmap::argument_error&) {
        threw = true;
      }
      rejected += threw;
      ORACLE_CHECK(t, threw == !subset,
                   "densify(" << w << ", " << s << ") threw " << threw << ", subset " << subset);
    }
  CHECK(rejected > 1000);

  long outside = 0;
  for (const auto& w : samples(-3, 4, 3, true)) {
    const auto n = static_cast<index_t>(w.s.size());
    for (index_t lo = -2; lo <= n + 1; ++lo)
      for (index_t hi = lo; hi <= n + 2; ++hi)
        for (const index_t q : {index_t{1}, index_t{-1}, index_t{2}, index_t{-3}}) {
          const seq orders = brute(lo, hi, q, lo + 1);
          bool inside = true;
          for (const index_t k : orders) inside = inside && 0 <= k && k < n;
          bool threw = false;
          range u;
          try {
            u = dmap::undensify(w.r, range{lo, hi, q, lo + 1});
          } catch (const dmap::out_of_bounds_error&) {
            threw = true;
          }
          outside += threw;
          ORACLE_CHECK(
              t, threw == !inside,
              "undensify(" << w << ", " << range(lo, hi, q, lo + 1) << ") threw " << threw);
          if (!threw && inside) {
            seq want;
            for (const index_t k : orders) want.push_back(w.s[static_cast<std::size_t>(k)]);
            ORACLE_CHECK(t, seq_of(u) == want,
                         "undensify(" << w << ", " << range(lo, hi, q, lo + 1) << ") = " << u);
          }
        }
  }
  CHECK(outside > 1000);
  ORACLE_DONE(t);

  CHECK_THROWS_AS(dmap::densify(range{1, 21, 3}, range{8, 20, 3}), dmap::argument_error);
  CHECK_THROWS_AS(dmap::densify(range{1, 21, 3}, range{19, 23, 3}), dmap::argument_error);
  CHECK_THROWS_AS(dmap::undensify(range{1, 21, 3}, range{5, 8}), dmap::out_of_bounds_error);
}

}  // namespace test_range
