// Replicated: every locale holds the whole index set (Chapel's ReplicatedDist). Reads and
// writes touch this locale's copy only; loops over a replicated domain or array run the
// whole set on every locale, and reductions over it see this locale's copy. Copies diverge
// until `replicate_from(A, root)` (collective; algorithms/copies.hpp) makes them all equal
// to one locale's; it also serves Dimensional maps with replicated dimensions.
// Zipped behind a distributed leader, a replicated array is read from the local copy.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "../dsi/layout.hpp"
#include "../dsi/rect.hpp"
#include "../runtime/environment.hpp"

namespace dmap {

template <std::size_t N>
class replicated_domain;

/// The Replicated distribution over all locales.
template <std::size_t N>
class replicated {
 public:
  /// All locales hold the whole index set.
  int targets() const { return num_locales(); }
  /// "replicated(4 locales)".
  std::string name() const { return "replicated(" + std::to_string(targets()) + " locales)"; }
  /// A global domain descriptor over `indices`.
  replicated_domain<N> new_domain(const rect<N>& indices) const { return replicated_domain<N>(indices); }
  friend bool operator==(const replicated&, const replicated&) = default;
};

/// This locale's copy of a Replicated domain: all of it.
template <std::size_t N>
class replicated_local_domain {
 public:
  replicated_local_domain() = default;
  /// A copy of the whole index set `whole`.
  explicit replicated_local_domain(const rect<N>& whole) : whole_(whole) {}
  /// The whole index set (none when it is empty).
  std::vector<rect<N>> subdomains() const {
    return whole_.empty() ? std::vector<rect<N>>{} : std::vector<rect<N>>{whole_};
  }
  /// Its storage, row-major.
  std::vector<dense_layout<N>> layouts() const {
    return whole_.empty() ? std::vector<dense_layout<N>>{}
                          : std::vector<dense_layout<N>>{dense_layout<N>::make(whole_, 0)};
  }
  /// The number of indices of the copy.
  index_t size() const noexcept { return whole_.size(); }
  /// True for every index of the domain.
  bool contains(const idx<N>& i) const noexcept { return whole_.contains(i); }

 private:
  rect<N> whole_{};
};

/// The global descriptor of a Replicated domain.
template <std::size_t N>
class replicated_domain {
 public:

  /// The descriptor of the indices `indices`, replicated on every locale.
  explicit replicated_domain(const rect<N>& indices) { set_indices(indices); }
  /// The whole index set.
  const rect<N>& indices() const noexcept { return whole_; }
  /// Replaces the index set.
  void set_indices(const rect<N>& indices) {
    whole_ = indices;
    local_ = replicated_local_domain<N>(indices);
  }
  /// This locale: every locale holds every index (Chapel answers `here` too).
  int locale_of(const idx<N>&) const { return detail::current_environment ? here() : 0; }
  /// Every locale holds the whole set.
  std::vector<rect<N>> local_subdomains(int) const { return local_.subdomains(); }
  /// Row-major storage of the whole set on every locale.
  std::vector<dense_layout<N>> local_layouts(int) const { return local_.layouts(); }
  /// This locale's copy.
  const replicated_local_domain<N>& local() const noexcept { return local_; }
  /// All locales.
  int targets() const { return num_locales(); }
  /// Every locale is a copy layer of its own.
  std::vector<int> copy_layers() const {
    std::vector<int> out(static_cast<std::size_t>(num_locales()));
    for (std::size_t q = 0; q < out.size(); ++q) out[q] = static_cast<int>(q);
    return out;
  }

 private:
  rect<N> whole_{};
  replicated_local_domain<N> local_{};
};

}  // namespace dmap
