// The random cases: index sets with strides 1, 2 and -1, loose or tight bounds, empty in three
// forms, often fewer indices than locales; every factorisation of the locale count as a grid;
// resizes that grow, shrink, shift or replace an index set; one large case per dimension
// count. Every draw comes from one generator seeded alike on every locale, and no draw
// depends on the locale, so every locale builds the same cases in the same order.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../../dsi/range.hpp"
#include "../../dsi/rect.hpp"
#include "../options.hpp"

namespace dmap::conformance::detail {

/// A uniform draw from [lo, hi].
inline index_t draw(random_engine& g, index_t lo, index_t hi) {
  return lo + static_cast<index_t>(g() % static_cast<std::uint64_t>(hi - lo + 1));
}

/// The generator of one run: the seed mixed with the subject's name and the dimension count.
inline random_engine engine_for(std::uint64_t seed, const std::string& subject, std::size_t n) {
  std::uint64_t salt = 0;
  for (char c : subject) salt = salt * 131 + static_cast<unsigned char>(c);
  return random_engine(seed ^ (salt * 0x9E3779B97F4A7C15ULL) ^ (n * 0x2545F4914F6CDD1DULL));
}

/// Every ordered factorisation of p into N extents.
template <std::size_t N>
std::vector<std::array<int, N>> factorisations(int p) {
  std::vector<std::array<int, N>> out;
  std::array<int, N> s{};
  const std::function<void(std::size_t, int)> rec = [&](std::size_t d, int rest) {
    if (d == N - 1) {
      s[d] = rest;
      out.push_back(s);
      return;
    }
    for (int f = 1; f <= rest; ++f)
      if (rest % f == 0) {
        s[d] = f;
        rec(d + 1, rest / f);
      }
  };
  rec(0, p);
  return out;
}

/// A range of `count` indices with stride s from `lo`, bounds loose or tight; count 0 gives
/// one of three empty forms.
inline range random_range(random_engine& g, index_t count, index_t s, index_t lo) {
  if (count == 0) {
    switch (g() % 3) {
      case 0: return range(lo, lo, s);
      case 1: return range(lo, lo - draw(g, 1, 3), s);
      default: return range(lo, lo + 1, 2, lo + 1);  // bounds hold an integer, but no index
    }
  }
  if (s < 0) return range(lo, lo + (count - 1) * -s + 1, s);
  const index_t last = lo + (count - 1) * s;
  const index_t slack_low = draw(g, 0, s - 1), slack_high = draw(g, 0, s - 1);
  return range(lo - slack_low, last + 1 + slack_high, s, lo);
}

/// A random rect: extents 0..25 (often 0 or at most the locale count p), strides 1, 2, -1;
/// at most 4000 indices.
template <std::size_t N>
rect<N> random_rect(random_engine& g, int p) {
  std::array<index_t, N> count{};
  for (std::size_t d = 0; d < N; ++d) {
    const auto roll = g() % 8;
    count[d] = roll == 0 ? 0 : roll <= 2 ? draw(g, 1, p) : draw(g, 0, 25);
  }
  while (true) {
    index_t total = 1;
    for (auto c : count) total *= c;
    if (total <= 4000) break;
    *std::max_element(count.begin(), count.end()) /= 2;
  }
  rect<N> r;
  for (std::size_t d = 0; d < N; ++d) {
    static constexpr index_t strides[] = {1, 1, 2, -1};
    const index_t s = strides[g() % 4];
    r.set_dim(d, random_range(g, count[d], s, draw(g, -12, 12)));
  }
  return r;
}

/// The large case: unit stride, 36000 indices from -3 on (36000, 200 x 180, 40 x 30 x 30, then
/// extent 1), so that pieces are cut into several chunks.
template <std::size_t N>
rect<N> large_rect() {
  static constexpr index_t extents[3][3] = {{36000, 1, 1}, {200, 180, 1}, {40, 30, 30}};
  constexpr std::size_t row = N < 3 ? N - 1 : 2;
  rect<N> r;
  for (std::size_t d = 0; d < N; ++d) r.set_dim(d, range(-3, -3 + (d < 3 ? extents[row][d] : 1)));
  return r;
}

/// A new index set for a resize: kind 0 grows, 1 shrinks, 2 shifts, 3 draws an unrelated one.
template <std::size_t N>
rect<N> resized(random_engine& g, const rect<N>& r, int kind, int p) {
  if (kind == 3) return random_rect<N>(g, p);
  rect<N> out = r;
  for (std::size_t d = 0; d < N; ++d) {
    const range& x = r.dim(d);
    const index_t s = x.stride() < 0 ? -x.stride() : x.stride();
    const index_t a = draw(g, 0, 3), b = draw(g, 0, 3);
    if (kind == 0) {
      if (x.empty()) out.set_dim(d, range(x.lo(), x.lo() + draw(g, 1, 5), x.stride()));
      else out.set_dim(d, range(x.lo() - a * s, x.hi() + b * s, x.stride(), x.alignment()));
    } else if (kind == 1) {
      out.set_dim(d, range(x.lo() + a * s, x.hi() - b * s, x.stride(), x.alignment()));
    } else {
      const index_t t = draw(g, -4, 4) * s + (g() % 4 == 0 ? 1 : 0);  // sometimes off the lattice
      out.set_dim(d, x.translated(t));
    }
  }
  return out;
}

}  // namespace dmap::conformance::detail
