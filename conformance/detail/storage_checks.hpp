// 3. Storage through an array: elements start value-initialised, local blocks match the
// layouts, A.local(i) writes the element at local_layouts(here)[k].offset_of(i), and an index
// owned elsewhere is not local (not_local_error).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "../../dsi/array.hpp"
#include "../index_sets.hpp"
#include "ordered_rect.hpp"
#include "report.hpp"
#include "text.hpp"
#include "values.hpp"

namespace dmap::conformance::detail {

/// Check 3 through `A` (fresh over its domain, index set `w`); leaves A holding fval(i).
template <std::size_t N>
void check_storage(recorder& b, dmap::array<std::int64_t, N>& A, const ordered_rect<N>& w) {
  const auto& D = A.domain();
  const int me = dmap::here();
  local_report init, rw;
  guarded(init, [&] {
    const auto lays = D.local_layouts(me);
    const auto& blocks = A.local_blocks();
    if (blocks.size() != lays.size()) init.fail(str(blocks.size(), " local blocks, ", lays.size(), " layouts"));
    index_t span = 0;
    for (const auto& l : lays) span = std::max(span, l.end());
    if (A.local_size() != span) init.fail(str("local_size() is ", A.local_size(), ", the layouts need ", span));
    for (std::size_t k = 0; k < std::min(blocks.size(), lays.size()); ++k) {
      const auto& l = blocks[k].layout;
      if (!(l.indices == lays[k].indices) || l.strides != lays[k].strides || l.offset != lays[k].offset)
        init.fail(str("local_blocks()[", k, "].layout differs from local_layouts(here)[", k, "]"));
      for (const auto& i : indices_of(l.indices))
        if (blocks[k](i) != 0) init.fail(str("stored element ", i, " is ", blocks[k](i), ", not value-initialised"));
    }
  });
  guarded(rw, [&] {
    const auto subs = D.local_subdomains(me);
    const auto lays = D.local_layouts(me);
    for (const auto& s : subs)
      for (const auto& i : indices_of(s)) A.local(i) = fval(i);
    for (std::size_t k = 0; k < subs.size(); ++k)
      for (const auto& i : indices_of(subs[k])) {
        const std::int64_t got = A.local_blocks()[k].base[lays[k].offset_of(i)];
        if (got != fval(i))
          rw.fail(str("after A.local(", i, ") = ", fval(i), ", local_blocks()[", k, "] at offset ",
                      lays[k].offset_of(i), " holds ", got));
      }
    // An index of the domain owned elsewhere is not local.
    for (index_t k = 0; k < w.size; ++k) {
      const auto i = w.at(k);
      if (D.locale_of(i) == me) continue;
      std::string got;
      try {
        (void)A.local(i);
      } catch (const dmap::not_local_error&) {
        got = "not_local_error";
      }
      if (got.empty()) rw.fail(str("A.local(", i, ") of another locale's index did not throw not_local_error"));
      break;
    }
  });
  b.add("3. arrays start value-initialised; blocks match the layouts", init);
  b.add("3. A.local(i) writes the element at local_layouts()[k].offset_of(i)", rw);
}

}  // namespace dmap::conformance::detail
