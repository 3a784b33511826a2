// Placement checks of a domain against the brute-force oracle of its index set:
//   1. exact cover, from each locale's own report of its pieces (so they hold for maps where
//      only a locale itself knows its pieces); local_subdomains(q) / local_layouts(q) answer
//      exactly what locale q reports (maps kept in a directory: unsupported_error instead);
//   2. locale_of agrees with the cover, and with the map's documented owner rule when given;
//   3. local_layouts keep the local_layout rules (layout_rules.hpp): each holds its subdomain,
//      offsets are the positions times the strides, inside the buffer, distinct, compact
//      (unless gaps are allowed); the local() descriptor agrees with the domain.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../dsi/domain.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../index_sets.hpp"
#include "../layout_rules.hpp"
#include "../options.hpp"
#include "ordered_rect.hpp"
#include "report.hpp"
#include "text.hpp"

namespace dmap::conformance::detail {

/// Collective: every locale's vector of trivially copyable values, indexed by locale.
template <class T>
std::vector<std::vector<T>> everyones(const std::vector<T>& mine) {
  dmap::detail::byte_buffers out(static_cast<std::size_t>(dmap::num_locales()), dmap::detail::to_bytes(mine));
  const auto in = dmap::detail::exchange(std::move(out));
  std::vector<std::vector<T>> all;
  for (const auto& bytes : in) all.push_back(dmap::detail::from_bytes<T>(bytes));
  return all;
}

/// This locale's local() descriptor of a domain, as the placement checks read it.
template <std::size_t N>
struct local_facts {
  std::vector<rect<N>> subdomains;      ///< local().subdomains()
  std::vector<dense_layout<N>> layouts;  ///< local().layouts()
  index_t size = 0;                      ///< local().size()
  std::function<bool(const idx<N>&)> contains;  ///< local().contains(i), while the domain lives
};

/// What the checks read of a domain's descriptor, whose type only the map's factory knows:
/// taken once by facts_of<Desc>, so that the checks themselves are compiled once per rank.
template <std::size_t N>
struct descriptor_facts {
  bool in_directory = false;  ///< the descriptor keeps its placement in a directory (directory())
  bool periodic = false;      ///< the descriptor marks ghost cells (periodic())
  /// Reads D's descriptor's local() into `out`; false when D's descriptor is not of the type.
  std::function<bool(const dmap::domain<N>&, local_facts<N>& out)> read_local;
};

/// The descriptor_facts of descriptor type Desc.
template <class Desc, std::size_t N>
descriptor_facts<N> facts_of() {
  descriptor_facts<N> f;
  f.in_directory = requires(const Desc& d) { d.directory(); };
  f.periodic = requires(const Desc& d) { d.periodic(); };
  f.read_local = [](const dmap::domain<N>& D, local_facts<N>& out) {
    const Desc* desc = D.template descriptor<Desc>();
    if (desc == nullptr) return false;
    out.subdomains = desc->local().subdomains();
    out.layouts = desc->local().layouts();
    out.size = desc->local().size();
    out.contains = [desc](const idx<N>& i) { return static_cast<bool>(desc->local().contains(i)); };
    return true;
  };
  return f;
}

/// True when two layouts describe the same storage.
template <std::size_t N>
bool same_layout(const dense_layout<N>& a, const dense_layout<N>& b) {
  return a.indices == b.indices && a.strides == b.strides && a.offset == b.offset;
}

/// Collective. Checks 1-3 for the domain alone (its descriptor described by `facts`): exact cover,
/// locale_of, the owner rule (when given: derived here for w, the index set D has just
/// taken), every locale's layouts and offsets (compact unless `gaps_allowed`), this locale's
/// local() descriptor.
template <std::size_t N>
void check_placement(recorder& b, const dmap::domain<N>& D, const ordered_rect<N>& w, const owner_rule<N>& owner,
                     bool gaps_allowed, const descriptor_facts<N>& facts) {
  const int p = dmap::num_locales(), me = dmap::here();
  local_report cover, locate, rule, layouts, any_locale, local_desc;
  std::vector<int> count(static_cast<std::size_t>(w.size), 0), who(static_cast<std::size_t>(w.size), -1);
  // Every locale's own report of its pieces and their storage (collective): the checks below
  // work from these, so they hold for maps kept in a directory too, where only a locale itself
  // knows its pieces.
  std::vector<rect<N>> my_subs;
  std::vector<dense_layout<N>> my_lays;
  guarded(cover, [&] { my_subs = D.local_subdomains(); });
  guarded(layouts, [&] { my_lays = D.local_layouts(me); });
  const auto reported_subs = everyones(my_subs);
  const auto reported_lays = everyones(my_lays);
  const bool in_directory = facts.in_directory;

  guarded(cover, [&] {
    if (!(D.indices() == w.r)) cover.fail(str("indices() is ", D.indices(), ", expected ", w.r));
    if (D.size() != w.size) cover.fail(str("size() is ", D.size(), ", expected ", w.size));
    for (int q = 0; q < p; ++q) {
      index_t owned = 0;
      for (const auto& sub : reported_subs[static_cast<std::size_t>(q)])
        for (const auto& i : indices_of(sub)) {
          ++owned;
          const index_t k = w.order(i);
          if (k < 0) {
            cover.fail(str("locale ", q, " owns ", i, " (subdomain ", sub, "), which is not an index of ", w.r));
            continue;
          }
          ++count[static_cast<std::size_t>(k)];
          who[static_cast<std::size_t>(k)] = q;
        }
      if (q == me && owned != D.local_size())
        cover.fail(str("local_size() is ", D.local_size(), " but the local subdomains hold ", owned));
    }
    for (index_t k = 0; k < w.size; ++k)
      if (count[static_cast<std::size_t>(k)] != 1)
        cover.fail(str("index ", w.at(k), " is in ", count[static_cast<std::size_t>(k)], " locales' subdomains"));
  });

  guarded(locate, [&] {
    for (index_t k = 0; k < w.size; ++k) {
      const auto i = w.at(k);
      const int q = D.locale_of(i);
      if (count[static_cast<std::size_t>(k)] == 1 && q != who[static_cast<std::size_t>(k)])
        locate.fail(str("locale_of(", i, ") is ", q, " but locale ", who[static_cast<std::size_t>(k)], " owns it"));
    }
    idx<N> outside{};
    for (std::size_t d = 0; d < N; ++d) outside[d] = w.r.dim(d).hi() + 1000;
    const std::string got = thrown_by([&] { (void)D.locale_of(outside); });
    if (got.rfind("another dmap::error", 0) != 0 && !got.empty()) locate.fail("locale_of(outside) threw " + got);
    if (got.empty()) locate.fail(str("locale_of(", outside, ") (not an index) did not throw"));
    if (!is_argument_error(thrown_by([&] { (void)D.local_subdomains(p); })))
      locate.fail(str("local_subdomains(", p, ") did not throw argument_error"));
  });

  if (owner)
    guarded(rule, [&] {
      const auto owner_of = owner.for_index_set(w.r);
      for (index_t k = 0; k < w.size; ++k) {
        const auto i = w.at(k);
        const int q = owner_of(i);
        if (q != who[static_cast<std::size_t>(k)])
          rule.fail(str("the documented rule gives locale ", q, " for ", i, " but locale ",
                        who[static_cast<std::size_t>(k)], " owns it"));
      }
    });

  guarded(any_locale, [&] {
    // Maps given by formulas answer for any locale exactly what it reports; maps kept in a
    // directory refuse to answer for another locale (unsupported_error).
    for (int q = 0; q < p; ++q) {
      const auto& subs = reported_subs[static_cast<std::size_t>(q)];
      const auto& lays = reported_lays[static_cast<std::size_t>(q)];
      if (in_directory && q != me) {
        const std::string got = thrown_by([&] { (void)D.local_subdomains(q); });
        if (got.rfind("unsupported_error: ", 0) != 0)
          any_locale.fail(str("local_subdomains(", q, ") of a map kept in a directory threw ",
                              got.empty() ? std::string("nothing") : got));
        continue;
      }
      const auto answered = D.local_subdomains(q);
      const auto answered_layouts = D.local_layouts(q);
      if (answered != subs) any_locale.fail(str("local_subdomains(", q, ") differs from what locale ", q, " reports"));
      bool same = answered_layouts.size() == lays.size();
      for (std::size_t k = 0; same && k < lays.size(); ++k) same = same_layout(answered_layouts[k], lays[k]);
      if (!same) any_locale.fail(str("local_layouts(", q, ") differs from what locale ", q, " reports"));
    }
  });

  guarded(layouts, [&] {
    for (int q = 0; q < p; ++q)
      for (const auto& v : layout_rule_violations(reported_subs[static_cast<std::size_t>(q)],
                                                  reported_lays[static_cast<std::size_t>(q)], gaps_allowed))
        layouts.fail(str("locale ", q, ": ", v));
  });

  guarded(local_desc, [&] {
    local_facts<N> local;
    if (!facts.read_local(D, local)) {
      local_desc.fail("descriptor<Desc>() is null");
      return;
    }
    const std::vector<rect<N>>& subs = local.subdomains;
    const std::vector<dense_layout<N>>& lays = local.layouts;
    const auto mine = D.local_subdomains(me);
    const auto my_layouts = D.local_layouts(me);
    if (subs.size() != mine.size() || lays.size() != my_layouts.size()) {
      local_desc.fail(str("local() has ", subs.size(), " subdomains and ", lays.size(), " layouts; the domain says ",
                          mine.size(), " and ", my_layouts.size()));
      return;
    }
    for (std::size_t k = 0; k < subs.size(); ++k) {
      if (!(subs[k] == mine[k]))
        local_desc.fail(str("local().subdomains()[", k, "] is ", subs[k], ", expected ", mine[k]));
      if (!same_layout(lays[k], my_layouts[k]))
        local_desc.fail(str("local().layouts()[", k, "] differs from local_layouts(here)[", k, "]"));
    }
    if (local.size != D.local_size())
      local_desc.fail(str("local().size() is ", local.size, ", expected ", D.local_size()));
    for (index_t k = 0; k < w.size; ++k) {
      const auto i = w.at(k);
      const bool mine_i = who[static_cast<std::size_t>(k)] == me;
      if (local.contains(i) != mine_i)
        local_desc.fail(str("local().contains(", i, ") is ", !mine_i, " on locale ", me));
    }
  });

  b.add("1. exact cover by local_subdomains", cover);
  b.add("1. local_subdomains(q) / local_layouts(q) answer what locale q reports", any_locale);
  b.add("2. locale_of agrees with local_subdomains", locate);
  if (owner) b.add("2. ownership follows the documented owner rule", rule);
  b.add("3. layouts: offsets distinct, in the buffer, compact", layouts);
  b.add("3. local descriptor agrees with the domain", local_desc);
}

}  // namespace dmap::conformance::detail
