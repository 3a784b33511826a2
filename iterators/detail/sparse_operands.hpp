// How a loop led by a sparse domain or array sees each operand: the sparse domain yields
// its indices, sparse arrays over it their values (same positions), dense arrays over the
// parent's shape the element at each index, read in place when aligned with the parent's
// map and staged otherwise (gathered before the loop, written back after it when the body
// may write them). Work is cut by positions (nonzeros), in batches that decode indices once.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "../../dsi/array.hpp"
#include "../../dsi/detail/access.hpp"
#include "../../dsi/sparse_array.hpp"
#include "../../dsi/sparse_domain.hpp"
#include "../../runtime/agreement.hpp"
#include "../../runtime/detail/byte_exchange.hpp"
#include "../../runtime/detail/messages.hpp"
#include "operands.hpp"

namespace dmap::detail {

/// Positions handled together: indices decoded and dense elements located once per batch.
inline constexpr std::size_t sparse_batch = 256;

/// A batch of indices decoded from a sparse layout: element k is ids[k].
template <std::size_t N>
struct listed_index_row {
  const idx<N>* ids;
  idx<N> at(index_t k) const noexcept { return ids[k]; }
  idx<N> unit(index_t k) const noexcept { return ids[k]; }
  static constexpr bool contiguous() noexcept { return true; }
};

/// What a cached follower plan was built for: a dense follower domain (held weakly, so a new
/// domain at a dead one's address never matches), its generation and the sparse version.
struct follower_key {
  std::weak_ptr<const void> follower;
  std::uint64_t generation = 0;
  std::uint64_t version = 0;

  /// The key of follower domain state `fs` under sparse version `v`.
  template <std::size_t N>
  static follower_key of(const std::shared_ptr<domain_state<N>>& fs, std::uint64_t v) {
    return {fs, fs->generation, v};
  }
  /// True when built for `fs` as it is now and sparse version `v`.
  template <std::size_t N>
  bool matches(const std::shared_ptr<domain_state<N>>& fs, std::uint64_t v) const noexcept {
    return !follower.expired() && !follower.owner_before(fs) && !fs.owner_before(follower) &&
           generation == fs->generation && version == v;
  }
};

/// 0, 1, ..., sparse_batch - 1: the offsets of consecutive elements.
inline const std::array<index_t, sparse_batch>& consecutive_offsets() {
  static const auto table = [] {
    std::array<index_t, sparse_batch> t{};
    for (std::size_t k = 0; k < sparse_batch; ++k) t[k] = static_cast<index_t>(k);
    return t;
  }();
  return table;
}

/// A batch of a dense follower's elements: base[offsets[k]], in place through an offset
/// table (aligned) or consecutive elements of a staging copy.
template <class E>
struct dense_follower_row {
  E* base;
  const index_t* offsets;
  E& at(index_t k) const noexcept { return base[offsets[k]]; }
  E& unit(index_t k) const noexcept { return at(k); }
  static constexpr bool contiguous() noexcept { return true; }
};

/// The element offsets of an aligned dense follower's storage at every position of a
/// sparse domain, kept per (follower domain, its generation, the sparse version): built once
/// per locale without communication, then a loop reads base[offset] as a CSR walk reads a
/// column index.
struct sparse_offsets_table {
  follower_key key;
  std::vector<index_t> offsets;
};
/// The offset tables kept on a sparse domain (dropped when its set changes).
struct sparse_offsets_cache {
  std::vector<std::shared_ptr<const sparse_offsets_table>> tables;
};

/// The shared state behind a sparse domain (argument_error when it was moved from).
template <std::size_t N>
const sparse_state<N>& sparse_state_of(const sparse_domain<N>& d) {
  const auto& s = access::state(d);
  if (!s) throw argument_error("dmap::forall/reduce: a sparse domain operand was moved from");
  return *s;
}
/// The shared state behind a sparse array (argument_error when it was moved from).
template <class T, std::size_t N>
const sparse_state<N>& sparse_state_of(const sparse_array<T, N>& a) {
  (void)a.local_values();  // throws argument_error for a moved-from array
  return sparse_state_of(a.domain());
}

/// Where the elements of a misaligned dense follower at this locale's positions live, and
/// which of this locale's elements other locales read: built once per (sparse version,
/// follower domain and generation), reused by every loop until one of them changes.
struct sparse_staging_plan {
  follower_key key;                                // what it was built for
  std::vector<int> sources;                        // peers whose elements this locale reads
  std::vector<std::vector<index_t>> positions;     // per source: the positions they fill, in message order
  std::vector<int> readers;                        // peers that read elements of this locale
  std::vector<std::vector<index_t>> offsets;       // per reader: this locale's element offsets, in order
  std::vector<index_t> own_positions, own_offsets;  // elements this locale reads from itself
};

/// The staging plans kept on a sparse domain (dropped when its set changes).
struct sparse_staging_cache {
  std::vector<std::shared_ptr<const sparse_staging_plan>> plans;
};

/// The index of `whole_to` at the position index `i` has in `whole_from` (same shape).
template <std::size_t N>
idx<N> translated(const rect<N>& whole_from, const rect<N>& whole_to, const idx<N>& i) noexcept {
  idx<N> j;
  for (std::size_t d = 0; d < N; ++d)
    j[d] = whole_to.dim(d).first() + whole_from.dim(d).order_of(i[d]) * whole_to.dim(d).stride();
  return j;
}

/// Collective: the staging plan of a dense follower `a` for sparse state `s` (cached).
template <class T, std::size_t N>
std::shared_ptr<const sparse_staging_plan> staging_plan_for(const sparse_state<N>& s, const array<T, N>& a) {
  const auto& fs = state_of(a.domain());
  auto& cache = s.caches.template get<sparse_staging_cache>();
  for (const auto& p : cache.plans)
    if (p->key.matches(fs, s.version)) {
      ++env().plans().reused;
      return p;
    }
  ++env().plans().built;
  auto plan = std::make_shared<sparse_staging_plan>();
  plan->key = follower_key::of(fs, s.version);
  const int p = num_locales();
  const rect<N>& from = s.parent.indices();
  const rect<N>& to = a.domain().indices();
  std::vector<std::vector<index_t>> positions(static_cast<std::size_t>(p));
  byte_buffers requests = agreed([&] {
    std::vector<idx<N>> wanted(static_cast<std::size_t>(s.local_size()));
    s.decode(0, s.local_size(), wanted.data());
    for (auto& i : wanted) i = translated(from, to, i);
    const std::vector<int> owners = a.domain().locales_of(wanted);
    std::vector<std::vector<idx<N>>> per(static_cast<std::size_t>(p));
    for (std::size_t k = 0; k < wanted.size(); ++k) {
      per[static_cast<std::size_t>(owners[k])].push_back(wanted[k]);
      positions[static_cast<std::size_t>(owners[k])].push_back(static_cast<index_t>(k));
    }
    byte_buffers out(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) out[static_cast<std::size_t>(q)] = to_bytes(per[static_cast<std::size_t>(q)]);
    return out;
  });
  byte_buffers asked = exchange(std::move(requests));
  agreed([&] {
    const auto& blocks = a.local_blocks();
    const T* base = blocks.empty() ? nullptr : blocks.front().base;
    for (int q = 0; q < p; ++q) {
      const auto indices = from_bytes<idx<N>>(asked[static_cast<std::size_t>(q)]);
      std::vector<index_t> offsets;
      offsets.reserve(indices.size());
      for (const auto& i : indices) offsets.push_back(static_cast<index_t>(&a.local(i) - base));
      if (q == here()) {
        plan->own_offsets = std::move(offsets);
        plan->own_positions = std::move(positions[static_cast<std::size_t>(q)]);
      } else if (!offsets.empty()) {
        plan->readers.push_back(q);
        plan->offsets.push_back(std::move(offsets));
      }
    }
    for (int q = 0; q < p; ++q)
      if (q != here() && !positions[static_cast<std::size_t>(q)].empty()) {
        plan->sources.push_back(q);
        plan->positions.push_back(std::move(positions[static_cast<std::size_t>(q)]));
      }
  });
  cache.plans.push_back(plan);
  return plan;
}

/// The message buffers of one staging exchange: to each peer that reads elements of this
/// locale (or receives write-backs), from each peer this locale reads.
template <class T>
struct staging_buffers {
  std::vector<std::vector<T>> to_readers;    // one per plan.readers
  std::vector<std::vector<T>> from_sources;  // one per plan.sources
};

/// Collective: allocates the buffers of one staging exchange on every locale before any
/// message moves, so a locale out of memory fails everywhere instead of leaving its peers
/// waiting for its messages.
template <class T>
staging_buffers<T> allocate_staging(const sparse_staging_plan& plan) {
  return agreed([&] {
    staging_buffers<T> b;
    b.to_readers.resize(plan.readers.size());
    b.from_sources.resize(plan.sources.size());
    for (std::size_t k = 0; k < plan.readers.size(); ++k) b.to_readers[k].resize(plan.offsets[k].size());
    for (std::size_t k = 0; k < plan.sources.size(); ++k) b.from_sources[k].resize(plan.positions[k].size());
    return b;
  });
}

/// Gathers a dense follower's elements at this locale's positions into `stage` (one message
/// per source peer, sizes known to both sides: no collective besides the buffers' agreement).
template <class T, std::size_t N>
void gather_staged(const sparse_staging_plan& plan, const array<T, N>& a, std::vector<T>& stage) {
  auto buffers = allocate_staging<T>(plan);
  const auto& blocks = a.local_blocks();
  const T* base = blocks.empty() ? nullptr : blocks.front().base;
  message_batch batch;
  for (std::size_t k = 0; k < plan.sources.size(); ++k) {
    auto& in = buffers.from_sources[k];
    batch.receive(plan.sources[k], in.data(), in.size() * sizeof(T));
  }
  for (std::size_t k = 0; k < plan.readers.size(); ++k) {
    auto& out = buffers.to_readers[k];
    for (std::size_t j = 0; j < out.size(); ++j) out[j] = base[plan.offsets[k][j]];
    batch.send(plan.readers[k], out.data(), out.size() * sizeof(T));
  }
  for (std::size_t k = 0; k < plan.own_positions.size(); ++k)
    stage[static_cast<std::size_t>(plan.own_positions[k])] = base[plan.own_offsets[k]];
  batch.wait();
  for (std::size_t k = 0; k < plan.sources.size(); ++k)
    for (std::size_t j = 0; j < buffers.from_sources[k].size(); ++j)
      stage[static_cast<std::size_t>(plan.positions[k][j])] = buffers.from_sources[k][j];
}

/// Writes `stage` back to the dense follower's owners (the reverse of gather_staged).
template <class T, std::size_t N>
void scatter_staged(const sparse_staging_plan& plan, array<T, N>& a, const std::vector<T>& stage) {
  auto buffers = allocate_staging<T>(plan);  // to_readers receives here, from_sources sends
  const auto& blocks = a.local_blocks();
  T* base = blocks.empty() ? nullptr : blocks.front().base;
  message_batch batch;
  for (std::size_t k = 0; k < plan.readers.size(); ++k) {
    auto& in = buffers.to_readers[k];
    batch.receive(plan.readers[k], in.data(), in.size() * sizeof(T));
  }
  for (std::size_t k = 0; k < plan.sources.size(); ++k) {
    auto& out = buffers.from_sources[k];
    for (std::size_t j = 0; j < out.size(); ++j) out[j] = stage[static_cast<std::size_t>(plan.positions[k][j])];
    batch.send(plan.sources[k], out.data(), out.size() * sizeof(T));
  }
  for (std::size_t k = 0; k < plan.own_positions.size(); ++k)
    base[plan.own_offsets[k]] = stage[static_cast<std::size_t>(plan.own_positions[k])];
  batch.wait();
  for (std::size_t k = 0; k < plan.readers.size(); ++k)
    for (std::size_t j = 0; j < buffers.to_readers[k].size(); ++j) base[plan.offsets[k][j]] = buffers.to_readers[k][j];
}

/// An operand of a sparse loop, by its type (a reference to a sparse domain, sparse array
/// or dense array, possibly const).
template <class X>
struct sparse_operand;

/// The sparse domain: yields indices.
template <std::size_t N>
struct sparse_operand<const sparse_domain<N>> {
  static constexpr bool needs_indices = true;
  static constexpr bool may_stage = false;
  using arg_type = idx<N>;
  sparse_operand(const sparse_domain<N>&, const sparse_state<N>&) {}
  /// The indices of positions [b, b + length) of piece `piece`, decoded into `ids`.
  listed_index_row<N> row(index_t, std::size_t, const idx<N>* ids) const noexcept { return {ids}; }
};
template <std::size_t N>
struct sparse_operand<sparse_domain<N>> : sparse_operand<const sparse_domain<N>> {
  using sparse_operand<const sparse_domain<N>>::sparse_operand;
};

/// A sparse array over the leader's domain: yields its values at the same positions.
template <class T, std::size_t N, bool Const>
struct sparse_values_operand {
  static constexpr bool needs_indices = false;
  static constexpr bool may_stage = false;
  using element = std::conditional_t<Const, const T, T>;
  using arg_type = element&;
  using array_type = std::conditional_t<Const, const sparse_array<T, N>, sparse_array<T, N>>;
  element* values;
  sparse_values_operand(array_type& a, const sparse_state<N>& lead) : values(a.local_values().data()) {
    if (&sparse_state_of(a) != &lead)
      throw shape_error("dmap::forall: a zipped sparse array is over another sparse domain than the leader; "
                        "sparse operands must share the leader's sparse domain");
  }
  /// The values of positions from b on.
  element_row<element> row(index_t b, std::size_t, const idx<N>*) const noexcept { return {values + b, 1}; }
};
template <class T, std::size_t N>
struct sparse_operand<sparse_array<T, N>> : sparse_values_operand<T, N, false> {
  using sparse_values_operand<T, N, false>::sparse_values_operand;
};
template <class T, std::size_t N>
struct sparse_operand<const sparse_array<T, N>> : sparse_values_operand<T, N, true> {
  using sparse_values_operand<T, N, true>::sparse_values_operand;
};

/// A dense array over the parent's shape: the element at each index, in place when aligned
/// with the parent's map, from a staging copy otherwise.
template <class T, std::size_t N, bool Const>
struct sparse_dense_operand {
  static constexpr bool needs_indices = false;
  static constexpr bool may_stage = true;
  using element = std::conditional_t<Const, const T, T>;
  using arg_type = element&;
  using array_type = std::conditional_t<Const, const array<T, N>, array<T, N>>;

  array_type* dense;
  const sparse_state<N>* lead;
  bool aligned = false;
  element* base = nullptr;                      // aligned: the locale's storage
  std::shared_ptr<const sparse_offsets_table> table;  // aligned: each position's offset in it
  std::shared_ptr<const sparse_staging_plan> plan;  // misaligned
  mutable std::vector<T> stage;                 // misaligned: the elements at this locale's positions

  sparse_dense_operand(array_type& a, const sparse_state<N>& s) : dense(&a), lead(&s) {
    const domain<N>& fd = a.domain();
    const domain<N>& pd = s.parent;
    if (fd.shape() != pd.shape()) {
      std::ostringstream m;
      m << "dmap::forall: a zipped dense array over " << fd.indices() << " does not have the shape of the sparse "
        << "domain's parent " << pd.indices();
      throw shape_error(m.str());
    }
    const auto& fs = state_of(fd);
    aligned = !fs->dir && !fs->layers && (fd == pd || (fd.indices() == pd.indices() && fd.same_map(pd))) &&
              fd.local_subdomains() == s.pieces;
    if (aligned) {
      const auto& blocks = a.local_blocks();
      if (!blocks.empty()) base = blocks.front().base;
      table = offsets_for(s, fs, blocks);
    }
  }
  // The offsets of every position in the follower's storage (cached on the sparse domain).
  static std::shared_ptr<const sparse_offsets_table> offsets_for(const sparse_state<N>& s,
                                                                 const std::shared_ptr<domain_state<N>>& fs,
                                                                 const std::vector<local_block<T, N>>& blocks) {
    auto& cache = s.caches.template get<sparse_offsets_cache>();
    for (const auto& t : cache.tables)
      if (t->key.matches(fs, s.version)) return t;
    auto t = std::make_shared<sparse_offsets_table>();
    t->key = follower_key::of(fs, s.version);
    t->offsets.resize(static_cast<std::size_t>(s.local_size()));
    std::vector<idx<N>> ids(sparse_batch);
    for (std::size_t k = 0; k < s.pieces.size(); ++k)
      for (index_t b = s.offsets[k]; b < s.offsets[k + 1]; b += static_cast<index_t>(sparse_batch)) {
        const index_t e = std::min(s.offsets[k + 1], b + static_cast<index_t>(sparse_batch));
        s.layouts[k]->decode(b - s.offsets[k], e - s.offsets[k], ids.data());
        for (index_t p = b; p < e; ++p)
          t->offsets[static_cast<std::size_t>(p)] = blocks[k].layout.offset_of(ids[static_cast<std::size_t>(p - b)]);
      }
    cache.tables.push_back(t);
    return t;
  }
  // Collective: gathers a misaligned operand (every locale calls it for every operand).
  void gather(const sparse_state<N>& s, bool misaligned_somewhere) {
    if (!misaligned_somewhere) return;
    plan = staging_plan_for(s, *dense);
    agreed([&] { stage.assign(static_cast<std::size_t>(s.local_size()), T{}); });
    gather_staged(*plan, *dense, stage);
  }
  void write_back() {
    if constexpr (!Const) scatter_staged(*plan, *dense, stage);
  }

  /// The elements at positions from b on: in place through the offset table, or from the
  /// staging copy.
  dense_follower_row<element> row(index_t b, std::size_t, const idx<N>*) const noexcept {
    if (plan) return {stage.data() + b, consecutive_offsets().data()};
    return {base, table->offsets.data() + b};
  }
};
template <class T, std::size_t N>
struct sparse_operand<array<T, N>> : sparse_dense_operand<T, N, false> {
  using sparse_dense_operand<T, N, false>::sparse_dense_operand;
};
template <class T, std::size_t N>
struct sparse_operand<const array<T, N>> : sparse_dense_operand<T, N, true> {
  using sparse_dense_operand<T, N, true>::sparse_dense_operand;
};

/// True for a sparse domain or array (the leaders of sparse loops).
template <class X>
inline constexpr bool is_sparse_leader = false;
template <std::size_t N>
inline constexpr bool is_sparse_leader<sparse_domain<N>> = true;
template <class T, std::size_t N>
inline constexpr bool is_sparse_leader<sparse_array<T, N>> = true;

/// True for a type a sparse loop takes as an operand.
template <class X>
concept sparse_operand_type = requires { typename sparse_operand<std::remove_reference_t<X>>::arg_type; };

}  // namespace dmap::detail
