// What the global domain descriptors of maps known only through a directory (Hashed,
// Unstructured) share: the index set is staged by construction or set_indices and
// committed by a collective build() that makes the directory; afterwards this locale knows
// its own pieces (runs of consecutive stored indices) and asks the directory for the rest.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../layout.hpp"
#include "../local_domain.hpp"
#include "../rect.hpp"
#include "directory.hpp"
#include "placement_query.hpp"

namespace dmap::detail {

/// This locale's part of a domain known through a directory: its runs of owned indices
/// (in storage order), with `contains` answered by a binary search of what it stores.
template <std::size_t N>
class directory_local_domain : public pieces_local_domain<N> {
 public:
  directory_local_domain() = default;
  directory_local_domain(std::shared_ptr<const detail::directory<N>> dir, std::vector<rect<N>> owned,
                         std::vector<dense_layout<N>> layouts)
      : pieces_local_domain<N>(std::move(owned), std::move(layouts)), dir_(std::move(dir)) {}
  /// True when this locale owns `i`.
  bool contains(const idx<N>& i) const noexcept {
    if (!dir_) return false;
    const index_t o = dir_->whole().order_of(i);
    const auto stored = o < 0 ? std::nullopt : dir_->find_stored(o);
    return stored && stored->second;
  }

 private:
  std::shared_ptr<const detail::directory<N>> dir_;
};

/// The shared part of a global descriptor known through a directory. `who` names the map
/// in messages.
template <std::size_t N>
class directory_domain_base {
 public:
  /// The committed index set.
  const rect<N>& indices() const noexcept { return whole_; }
  /// Stages a new index set; build() commits it.
  void set_indices(const rect<N>& indices) { staged_ = indices; }
  /// The rects this locale owns; other locales' pieces are known only to them (throws
  /// unsupported_error: ask `domain::locales_of` or the directory instead).
  const std::vector<rect<N>>& local_subdomains(int locale) const {
    check_here(locale, "local_subdomains");
    return local_.subdomains();
  }
  /// Their storage; this locale only, like local_subdomains.
  const std::vector<dense_layout<N>>& local_layouts(int locale) const {
    check_here(locale, "local_layouts");
    return local_.layouts();
  }
  /// This locale's local domain descriptor.
  const directory_local_domain<N>& local() const noexcept { return local_; }
  /// The directory (after build()).
  std::shared_ptr<const detail::directory<N>> directory() const noexcept { return dir_; }
  /// All locales.
  int targets() const { return num_locales(); }

 protected:
  directory_domain_base(std::string who, const rect<N>& staged) : who_(std::move(who)), staged_(staged) {}
  /// Collective: builds the directory of the staged index set from what this locale stores
  /// (orders in storage order) and commits it.
  void commit(std::vector<index_t> stored, bool one_to_one, unlisted_indices rule) {
    commit(std::move(stored), one_to_one, rule, nullptr);
  }
  /// As commit, with this locale's pieces given (`pieces`, stored one after the other, each
  /// in row-major order: the orders of `stored`) instead of found as runs of `stored`.
  void commit(std::vector<index_t> stored, bool one_to_one, unlisted_indices rule,
              const std::vector<rect<N>>* pieces) {
    auto dir = std::make_shared<const detail::directory<N>>(staged_, std::move(stored), one_to_one, rule, who_);
    std::vector<rect<N>> owned;
    std::vector<dense_layout<N>> layouts;
    agreed([&] {
      if (!pieces) return pieces_of_stored(*dir, owned, layouts);
      for (const auto& r : *pieces)
        if (!r.empty()) owned.push_back(r);
      layouts = packed_layouts(owned);
    });
    whole_ = staged_;
    local_ = directory_local_domain<N>(dir, std::move(owned), std::move(layouts));
    dir_ = std::move(dir);
  }
  /// The index set being built.
  const rect<N>& staged() const noexcept { return staged_; }
  /// The owner of index `i`: here when this locale owns it, else one directory lookup.
  int owner_of(const idx<N>& i) const {
    const index_t o = whole_.order_of(i);
    if (const auto stored = dir_->find_stored(o); stored && stored->second) return here();
    return dir_->lookup(o).locale;
  }
  /// "dmap::hashed" etc.
  const std::string& who() const noexcept { return who_; }

 private:
  void check_here(int locale, const char* what) const {
    if (locale != here())
      throw unsupported_error(who_ + "::" + what + "(" + std::to_string(locale) +
                              "): only locale " + std::to_string(locale) +
                              " knows its pieces under a map kept in a directory; ask "
                              "dmap::domain::locales_of for owners");
  }

  std::string who_;
  rect<N> staged_{};
  rect<N> whole_{};
  std::shared_ptr<const detail::directory<N>> dir_;
  directory_local_domain<N> local_{};
};

}  // namespace dmap::detail
