// Loop checks against serial oracles:
//   5. follower order: forall(zip(T, C, D)) hands each element with its own index, visits each
//      owned index once, and within every chunk in row-major order (each element records a
//      per-thread tick, which must increase along each chunk's row-major order); a domain
//      leading, a domain alone, an array alone;
//   6. forall and zip fill arrays; reduce (sum, min, max, a domain reduce, a zip
//      transform-reduce) gives the oracle's result on every locale; dmap::view of the array and
//      of the domain and gather() equal the row-major oracle; A[i] reads any element, and ghost
//      copies hold the owner's values after a halo update.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "../../algorithms/halos.hpp"
#include "../../dsi/array.hpp"
#include "../../dsi/detail/chunks.hpp"
#include "../../iterators/forall.hpp"
#include "../../iterators/reduce.hpp"
#include "../../iterators/zip.hpp"
#include "../../runtime/collectives.hpp"
#include "../index_sets.hpp"
#include "element_checks.hpp"
#include "ordered_rect.hpp"
#include "report.hpp"
#include "text.hpp"
#include "values.hpp"

namespace dmap::conformance::detail {

/// The tick each visit of the follower-order check records, counted per thread.
inline thread_local std::int64_t visit_tick = 0;

/// Check 5 over the domain `D` of `A` (A holds fval(i) on the owned elements).
template <std::size_t N>
void check_follower_order(recorder& b, const dmap::domain<N>& D, const dmap::array<std::int64_t, N>& A) {
  dmap::array<std::int64_t, N> T(D), C(D);
  std::atomic<long> wrong_index{0};
  const std::string err5 = thrown_by([&] {
    dmap::forall(dmap::zip(T, C, D), [&](std::int64_t& t, std::int64_t& c, idx<N> i) {
      t = ++visit_tick;
      c += 1;
      if (&t != &T.local(i)) ++wrong_index;
    });
  });
  local_report order = threw("forall(zip(T, C, D))", err5), once;
  if (wrong_index.load() != 0) order.fail(str(wrong_index.load(), " elements came with another index"));
  check_local_values(once, C, [](const idx<N>&) { return std::int64_t{1}; }, "visits per owned index");
  guarded(order, [&] {
    std::vector<dmap::dense_rect<N>> pieces;
    for (const auto& s : D.local_subdomains()) pieces.push_back(dmap::densify(D.indices(), s));
    for (const auto& c : dmap::detail::cut_into_chunks(pieces, dmap::num_threads())) {
      std::int64_t previous = 0;
      idx<N> previous_index{};
      bool first = true;
      for (const auto& i : indices_of(dmap::undensify(D.indices(), c.orders))) {
        const std::int64_t t = T.local(i);
        if (!first && t <= previous) {
          order.fail(str("within a chunk, ", i, " was visited (tick ", t, ") before ", previous_index, " (tick ",
                         previous, "), which precedes it in row-major order"));
          break;
        }
        first = false;
        previous = t;
        previous_index = i;
      }
    }
  });
  b.add("5. forall(zip(T, C, D)): each element with its own index, row-major within each chunk", order);
  b.add("5. forall(zip(T, C, D)) visits each owned index once", once);

  // The domain leads; a domain alone; an array alone.
  std::atomic<long> wrong{0}, off_owner{0};
  const std::string err5b = thrown_by([&] {
    dmap::forall(dmap::zip(D, A), [&](idx<N> i, const std::int64_t& a) {
      if (a != fval(i)) ++wrong;
    });
    dmap::forall(D, [&](idx<N> i) {
      C.local(i) += 1;
      if (D.locale_of(i) != dmap::here()) ++off_owner;
    });
    dmap::forall(C, [](std::int64_t& v) { v = 3 * v + 1; });
  });
  local_report lead = threw("a loop", err5b);
  if (wrong.load() != 0) lead.fail(str("forall(zip(D, A)): ", wrong.load(), " elements differ from f(i)"));
  if (off_owner.load() != 0) lead.fail(str("forall(D): ", off_owner.load(), " indices ran off their owner"));
  check_local_values(lead, C, [](const idx<N>&) { return std::int64_t{7}; }, "forall(D) then forall(C)");
  b.add("5. a domain leading, a domain alone, an array alone", lead);
}

/// The results of the reductions of one case (gathered from every locale at once).
struct reductions {
  std::int64_t sum = 0, lo = 0, hi = 0, dsum = 0;
  double dot = 0, bsum = 0;
  friend bool operator==(const reductions&, const reductions&) = default;
  friend std::ostream& operator<<(std::ostream& os, const reductions& r) {
    return os << "sum " << r.sum << ", min " << r.lo << ", max " << r.hi << ", domain sum " << r.dsum
              << ", zip dot " << r.dot << ", double sum " << r.bsum;
  }
};

/// Check 6 over `A` and `B` of one domain (index set `w`); `ghosts`: the map keeps ghost
/// cells, refreshed by a halo update before they are read. Leaves A holding fval(i) and B
/// gval(fval(i)).
template <std::size_t N>
void check_loops(recorder& b, dmap::array<std::int64_t, N>& A, dmap::array<double, N>& B, const ordered_rect<N>& w,
                 bool ghosts) {
  const auto& D = A.domain();
  const int me = dmap::here();
  const std::string err6 = thrown_by([&] {
    dmap::forall(A, [](std::int64_t& a) { a = 0; });
    dmap::forall(dmap::zip(A, D), [](std::int64_t& a, idx<N> i) { a = fval(i); });
    dmap::forall(dmap::zip(B, std::as_const(A)), [](double& x, const std::int64_t& a) { x = gval(a); });
  });
  local_report filled = threw("the fill loops", err6);
  check_local_values(filled, A, [](const idx<N>& i) { return fval(i); }, "A after forall(zip(A, D))");
  check_local_values(filled, B, [](const idx<N>& i) { return gval(fval(i)); }, "B after forall(zip(B, A))");
  b.add("6. forall(zip(A, D)) and forall(zip(B, A)) fill the owned elements", filled);

  reductions want{0, std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(), 0, 0, 0};
  for (index_t k = 0; k < w.size; ++k) {
    const auto i = w.at(k);
    want.sum += fval(i);
    want.lo = std::min(want.lo, fval(i));
    want.hi = std::max(want.hi, fval(i));
    want.dsum += hval(i);
    want.dot += static_cast<double>(fval(i) % 7) * gval(fval(i));
    want.bsum += gval(fval(i));
  }
  reductions got{-1, -1, -1, -1, -1, -1};
  const std::string errr = thrown_by([&] {
    got.sum = dmap::reduce(A, std::int64_t{0}, std::plus<>{});
    got.lo = dmap::reduce(A, std::numeric_limits<std::int64_t>::max(), dmap::minimum{});
    got.hi = dmap::reduce(std::as_const(A), std::numeric_limits<std::int64_t>::min(), dmap::maximum{});
    got.dsum = dmap::reduce(D, std::int64_t{0}, std::plus<>{}, [](idx<N> i) { return hval(i); });
    got.dot = dmap::reduce(dmap::zip(A, B), 0.0, std::plus<>{},
                           [](std::int64_t a, double x) { return static_cast<double>(a % 7) * x; });
    got.bsum = dmap::reduce(B, 0.0, std::plus<>{});
  });
  local_report reduced = threw("a reduction", errr);
  const auto everywhere = dmap::all_gather(got);
  for (std::size_t q = 0; q < everywhere.size(); ++q)
    if (!(everywhere[q] == got)) reduced.fail(str("locale ", q, " reduced to ", everywhere[q], ", here ", got));
  if (!(got == want)) reduced.fail(str("reduced to ", got, ", expected ", want));
  b.add("6. reduce sum/min/max over A, over D, over zip(A, B), over B: the oracle's result, on every locale",
        reduced);
  check_global_values(b, A, w, [](const idx<N>& i) { return fval(i); }, "6. ");

  // A[i] (local, ghost copy or remote element) at a few indices; ghost copies are as fresh as
  // the last halo update.
  local_report access;
  const std::string errh = thrown_by([&] {
    if (ghosts) dmap::update_halos(A);
  });
  if (!errh.empty()) access.fail("update_halos threw " + errh);
  guarded(access, [&] {
    for (index_t k = 0; k < w.size; k += std::max<index_t>(1, w.size / 5)) {
      const auto i = w.at(k);
      const std::int64_t value = A[i];
      if (value != fval(i)) access.fail(str("A[", i, "] is ", value, ", expected ", fval(i)));
    }
    // Stored copies of other locales' indices (ghost cells) hold the owner's value.
    const auto subs = D.local_subdomains(me);
    const auto& blocks = A.local_blocks();
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const ordered_rect<N> own(subs[k]);
      for (const auto& i : indices_of(blocks[k].layout.indices))
        if (own.order(i) < 0 && w.order(i) >= 0 && blocks[k](i) != fval(i))
          access.fail(str("the stored copy of ", i, " holds ", blocks[k](i), ", expected ", fval(i)));
    }
  });
  b.add("6. A[i] reads any element; ghost copies hold the owner's values after update_halos", access);
}

}  // namespace dmap::conformance::detail
