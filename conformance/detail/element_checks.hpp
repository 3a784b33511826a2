// Element checks against an oracle of values: a locale's owned elements read through its
// local blocks, and the serial views (of the array and of its domain) and gather().
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../iterators/views.hpp"
#include "../index_sets.hpp"
#include "ordered_rect.hpp"
#include "report.hpp"
#include "text.hpp"

namespace dmap::conformance::detail {

/// Every owned element of `A`, read through local_blocks and the layouts, against `want(i)`.
template <class T, std::size_t N, class Want>
void check_local_values(local_report& rep, const dmap::array<T, N>& A, Want want, const char* what) {
  guarded(rep, [&] {
    const auto& D = A.domain();
    const auto subs = D.local_subdomains(dmap::here());
    const auto& blocks = A.local_blocks();
    if (blocks.size() != subs.size()) {
      rep.fail(str(what, ": ", blocks.size(), " local blocks for ", subs.size(), " subdomains"));
      return;
    }
    for (std::size_t k = 0; k < subs.size(); ++k)
      for (const auto& i : indices_of(subs[k])) {
        const T got = blocks[k].base[blocks[k].layout.offset_of(i)];
        const T expected = want(i);
        if (!(got == expected)) rep.fail(str(what, ": element ", i, " is ", got, ", expected ", expected));
      }
  });
}

/// Collective: the serial view of `A` and gather() against want(w.at(k)); the view of the
/// domain against w's row-major order. Check names start with `prefix`.
template <class T, std::size_t N, class Want>
void check_global_values(recorder& b, const dmap::array<T, N>& A, const ordered_rect<N>& w, Want want,
                         const std::string& prefix) {
  local_report view, gathered, dview;
  guarded(view, [&] {
    std::vector<T> got;
    for (T v : dmap::view(A)) got.push_back(v);
    if (static_cast<index_t>(got.size()) != w.size)
      view.fail(str("view has ", got.size(), " elements, expected ", w.size));
    for (index_t k = 0; k < std::min(w.size, static_cast<index_t>(got.size())); ++k)
      if (!(got[static_cast<std::size_t>(k)] == want(w.at(k))))
        view.fail(str("view element ", k, " (", w.at(k), ") is ", got[static_cast<std::size_t>(k)], ", expected ",
                      want(w.at(k))));
  });
  guarded(dview, [&] {
    index_t k = 0;
    for (const auto& i : dmap::view(A.domain())) {
      if (k >= w.size || !(i == w.at(k))) {
        dview.fail(str("view(D) element ", k, " is ", i));
        break;
      }
      ++k;
    }
    if (k != w.size) dview.fail(str("view(D) has ", k, " indices, expected ", w.size));
  });
  std::vector<T> all;
  const std::string err = thrown_by([&] { all = A.gather(); });
  if (!err.empty()) gathered.fail("gather threw " + err);
  if (dmap::here() == 0 && err.empty())
    guarded(gathered, [&] {
      if (static_cast<index_t>(all.size()) != w.size) gathered.fail(str("gather has ", all.size(), " elements"));
      else
        for (index_t k = 0; k < w.size; ++k)
          if (!(all[static_cast<std::size_t>(k)] == want(w.at(k))))
            gathered.fail(str("gathered element ", k, " is ", all[static_cast<std::size_t>(k)]));
    });
  b.add(prefix + "dmap::view(A) equals the row-major oracle", view);
  b.add(prefix + "dmap::view(D) equals the row-major oracle", dview);
  b.add(prefix + "gather() on locale 0 equals the row-major oracle", gathered);
}

}  // namespace dmap::conformance::detail
