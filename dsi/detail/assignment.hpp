// Element-wise assignment between any two placements of the same shape (arrays and array
// views, any maps, any index sets): the k-th index in row-major order of the source gives
// its value to the k-th of the destination, through a transfer plan kept for the next time;
// gathering any placement on locale 0 and printing values in Chapel's layout.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <ostream>
#include <sstream>
#include <memory>
#include <vector>

#include "../../runtime/agreement.hpp"
#include "locator.hpp"
#include "plan_cache.hpp"
#include "transfer.hpp"

namespace dmap::detail {

/// One side of an assignment as this locale sees it.
template <class T, std::size_t N>
struct placed_elements {
  placement_key key;                       ///< names the placement (plan cache)
  std::function<locator<N>()> locate;      ///< where its elements live (when a plan is built)
  rect<N> whole;                           ///< its index set
  T* data = nullptr;                       ///< this locale's buffer
  index_t local_size = 0;                  ///< elements in that buffer
  assignment_plans<N>* plans = nullptr;    ///< the plan cache of its domain (destinations)
  const node_segment* node = nullptr;      ///< the node-shared memory holding `data`, or null
  std::uint64_t serial = 0;                ///< the array's collective serial number (same on every locale)

  /// What every locale must agree on about this side: the array, its domain's generation,
  /// the view, and the element size.
  std::uint64_t identity() const;
};

template <class T, std::size_t N>
std::uint64_t placed_elements<T, N>::identity() const {
  fingerprint f;
  f.add(serial).add(key.generation).add(sizeof(T));
  for (const index_t v : key.mapping) f.add(v);
  for (const auto& d : whole.dims()) f.add(d.first()).add(d.size()).add(d.stride());
  return f.value();
}

/// Collective. Every element of `where` (elements at `data`), in row-major order, on
/// locale 0 (empty elsewhere).
template <class T, std::size_t N>
std::vector<T> gather_to_root(const locator<N>& where, const T* data) {
  const rect<N>& whole = where.whole;
  placement<N> to(static_cast<std::size_t>(num_locales()));
  to[0].push_back({whole, dense_layout<N>::make(whole, 0), {}});
  // Locale 0 alone allocates the whole: a shortage there is thrown on every locale, before
  // any locale sends.
  std::vector<T> all = agreed([&] { return std::vector<T>(here() == 0 ? static_cast<std::size_t>(whole.size()) : 0); });
  locator<N> target{whole, here() == 0 ? to[0] : std::vector<placed_block<N>>{}, nullptr, nullptr, nullptr, {}};
  target.peers = std::make_shared<const listed_query<N>>(std::make_shared<const placement<N>>(std::move(to)));
  transfer(where, data, target, all.data());
  return all;
}

/// How many elements a locale fetches at once when it reads another locale's part of an
/// array or view on its own (serial views, printing).
inline constexpr index_t fetch_batch_elements = 16384;

/// Writes the elements of an array of the given shape like Chapel (rows on lines, planes
/// separated by blank lines), reading them through `fetch(first, count, out)` (row-major
/// orders) in batches of fetch_batch_elements. Not collective.
template <class T, std::size_t N, class Fetch>
std::ostream& write_elements(std::ostream& os, const std::array<index_t, N>& shape, Fetch&& fetch) {
  index_t total = 1;
  for (index_t e : shape) total *= e;
  std::vector<T> batch;
  for (index_t first = 0; first < total; first += fetch_batch_elements) {
    const index_t count = std::min(fetch_batch_elements, total - first);
    batch.resize(static_cast<std::size_t>(count));
    fetch(first, count, batch.data());
    for (index_t j = 0; j < count; ++j) {
      const index_t k = first + j;
      if (k > 0) {
        std::size_t boundaries = 0;
        index_t span = 1;
        for (std::size_t d = N; d-- > 0;) {
          span *= shape[d];
          if (k % span == 0) ++boundaries;
          else break;
        }
        if (boundaries == 0) os << ' ';
        else os << (boundaries >= 2 ? "\n\n" : "\n");
      }
      os << batch[static_cast<std::size_t>(j)];
    }
  }
  return os;
}

/// Throws shape_error unless an assignment of `source` to `target` has equal shapes; `who`
/// starts the message.
template <std::size_t N>
void check_assignment_shapes(const rect<N>& source, const rect<N>& target, const char* who) {
  if (source.shape() == target.shape()) return;
  std::ostringstream s;
  s << who << ": the right-hand side has indices " << source << " but the left-hand side has " << target
    << "; assignment needs equal shapes";
  throw shape_error(s.str());
}

/// The arguments of `to = from` for the agreement every locale makes: both sides' identities.
template <class T, std::size_t N>
call_arguments assignment_arguments(const placed_elements<T, N>& from, const placed_elements<T, N>& to,
                                    const char* who) {
  return {who, fingerprint().add(from.identity()).add(to.identity()).value(), [&from, &to] {
            std::ostringstream s;
            s << "array #" << to.serial << " indices " << to.whole << " = array #" << from.serial << " indices "
              << from.whole;
            return s.str();
          }};
}

/// Collective. Copies `from` (only read) into `to`, which must have the same shape
/// (shape_error otherwise): one message per pair of locales that share elements, exactly
/// those elements. One agreement first: the shapes, and that every locale names the same
/// two sides (argument_error otherwise), so no locale is left waiting for a message. When
/// both sides live in the same buffer the source is read from a copy taken first, so
/// overlapping parts move as a whole.
template <class T, std::size_t N>
void assign_elements(const placed_elements<T, N>& from, const placed_elements<T, N>& to, const char* who) {
  const collective_scope scope;
  agreed(assignment_arguments(from, to, who), [&] { check_assignment_shapes(from.whole, to.whole, who); });
  const auto locate_from = [&] {
    locator<N> l = from.locate();
    return l.whole == to.whole ? l : reindexed(l, to.whole);
  };
  const auto plan = cached_transfer_plan<N>(*to.plans, from.key, to.key, locate_from, to.locate);
  const T* source = from.data;
  std::vector<T> before;
  if (from.data == to.data && from.data != nullptr) {
    before.assign(from.data, from.data + from.local_size);
    source = before.data();
  }
  pending_transfer<T, N>(*plan, source, to.data, true, to.node).finish();
}

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_ASSIGNMENT_ELEMENT_INSTANCES(T, N, how)                                             \
  how struct placed_elements<T, N>;                                                               \
  how void assign_elements<T, N>(const placed_elements<T, N>&, const placed_elements<T, N>&,     \
                                 const char*);                                                    \
  how std::vector<T> gather_to_root<T, N>(const locator<N>&, const T*);
#define DMAP_ASSIGNMENT_INSTANCES(N, how) DMAP_PRECOMPILED_ELEMENTS(DMAP_ASSIGNMENT_ELEMENT_INSTANCES, N, how)
DMAP_DECLARE_PRECOMPILED(DMAP_ASSIGNMENT_INSTANCES)

}  // namespace dmap::detail
