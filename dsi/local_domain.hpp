// pieces_local_domain<N>: a local domain descriptor given by its owned rects and their
// storage layouts, for distributions whose local part is nothing more (Dimensional and the
// maps built on it, the loop engine's staging domains, maps kept in a directory).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "layout.hpp"
#include "rect.hpp"

namespace dmap {

/// This locale's part of a domain: owned rects, each with its storage layout.
template <std::size_t N>
class pieces_local_domain {
 public:
  pieces_local_domain() = default;
  /// The local domain owning the rects `owned`, stored as `layouts` (one per rect, same order).
  pieces_local_domain(std::vector<rect<N>> owned, std::vector<dense_layout<N>> layouts)
      : owned_(std::move(owned)), layouts_(std::move(layouts)) {}
  /// The owned rects.
  const std::vector<rect<N>>& subdomains() const noexcept { return owned_; }
  /// Their storage, in the same order.
  const std::vector<dense_layout<N>>& layouts() const noexcept { return layouts_; }
  /// The number of owned indices.
  index_t size() const noexcept {
    index_t n = 0;
    for (const auto& r : owned_) n += r.size();
    return n;
  }
  /// True when this locale owns `i` (a scan of the rects).
  bool contains(const idx<N>& i) const noexcept {
    return std::any_of(owned_.begin(), owned_.end(), [&](const rect<N>& r) { return r.contains(i); });
  }

 private:
  std::vector<rect<N>> owned_;
  std::vector<dense_layout<N>> layouts_;
};

}  // namespace dmap
