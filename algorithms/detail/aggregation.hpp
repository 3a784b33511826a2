// The machinery behind aggregation.hpp (not part of the API): keyed_value, dense_combine_ratio,
// dense_table_bytes, owned_element, combined_bytes.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/collectives.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../../runtime/detail/per_thread.hpp"

namespace dmap::detail {

/// One buffered contribution: a key (the index's row-major order in the domain, or with a
/// directory map the element's offset in its owner's storage) and a value.
template <class T>
struct keyed_value {
  index_t key;
  T value;
};

/// Pre-combining at the source pays when a destination's keys are this dense (contributions
/// per key of their span): a histogram's bins, say.
inline constexpr index_t dense_combine_ratio = 2;

/// An aggregator over an index set whose table of one value and one flag per index fits in
/// this many bytes folds each thread's contributions into such a table as they come (dense
/// mode: no per-destination lists, no owner lookup per contribution).
inline constexpr index_t dense_table_bytes = index_t{1} << 21;

/// The element of the index at row-major order `order` of `whole`, which this locale owns,
/// in `a`'s storage (formula maps). Throws runtime_error when this locale does not own it.
template <class T, std::size_t N>
T* owned_element(const array<T, N>& a, const rect<N>& whole, index_t order) {
  const idx<N> i = whole.index_at(order);
  const auto& owned = a.domain().local_subdomains();
  const auto& blocks = a.local_blocks();
  for (std::size_t b = 0; b < blocks.size(); ++b)
    if (owned[b].contains(i)) return &blocks[b](i);
  std::ostringstream s;
  s << "dmap aggregation: locale " << here() << " received index " << i
    << " it does not own (the map's locale_of disagrees with its pieces)";
  throw runtime_error(s.str());
}

/// The message of one destination: the contributions of `parts` (lists of one destination,
/// each in the order it was added, taken in turn) as bytes. When their keys are dense
/// enough, equal keys are folded first: one entry per distinct key, by increasing key, each
/// value `op` folded over the key's contributions in their order. Sparse keys travel as
/// they are.
template <class T, class Op>
std::vector<std::byte> combined_bytes(const std::vector<const std::vector<keyed_value<T>>*>& parts, Op& op) {
  std::size_t count = 0;
  index_t lo = std::numeric_limits<index_t>::max(), hi = -1;
  for (const auto* part : parts) {
    count += part->size();
    for (const auto& e : *part) {
      lo = std::min(lo, e.key);
      hi = std::max(hi, e.key);
    }
  }
  std::vector<std::byte> out;
  if (count < 2 || hi - lo >= static_cast<index_t>(count) * dense_combine_ratio ||  // keys >= 0: no overflow
      !std::is_default_constructible_v<T>) {
    out.resize(count * sizeof(keyed_value<T>));
    std::size_t at = 0;
    for (const auto* part : parts) {
      if (part->empty()) continue;
      std::memcpy(out.data() + at, part->data(), part->size() * sizeof(keyed_value<T>));
      at += part->size() * sizeof(keyed_value<T>);
    }
    return out;
  }
  if constexpr (std::is_default_constructible_v<T>) {
    const auto span = static_cast<std::size_t>(hi - lo + 1);
    std::vector<T> folded(span);
    std::vector<unsigned char> seen(span, 0);
    std::size_t distinct = 0;
    for (const auto* part : parts)
      for (const auto& e : *part) {
        const auto k = static_cast<std::size_t>(e.key - lo);
        if (seen[k]) {
          folded[k] = op(folded[k], e.value);
        } else {
          folded[k] = e.value;
          seen[k] = 1;
          ++distinct;
        }
      }
    out.resize(distinct * sizeof(keyed_value<T>));
    std::size_t at = 0;
    for (std::size_t k = 0; k < span; ++k)
      if (seen[k]) {
        const keyed_value<T> e{lo + static_cast<index_t>(k), folded[k]};
        std::memcpy(out.data() + at, &e, sizeof e);
        at += sizeof e;
      }
  }
  return out;
}

}  // namespace dmap::detail
