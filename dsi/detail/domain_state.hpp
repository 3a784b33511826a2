// What all handles of one domain share: the descriptor behind its virtual interface, this
// locale's view of the placement (pieces, layouts, storage size), the arrays declared over
// the domain and the caches operations keep on it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "../../runtime/agreement.hpp"
#include "../../runtime/precompiled.hpp"
#include "cache_slots.hpp"
#include "directory.hpp"
#include "domain_model.hpp"
#include "locator.hpp"
#include "transfer.hpp"

namespace dmap::detail {

/// Implemented by every array's storage, so a domain can reallocate its arrays: first every
/// array allocates its new storage (local; may fail), then, once every locale succeeded,
/// each moves its values there (collective).
template <std::size_t N>
class array_hook {
 public:
  virtual ~array_hook() = default;
  /// Collective: decides where prepare() allocates (node-shared memory or private).
  virtual void choose_storage() = 0;
  /// Allocates the storage of the domain's new placement, beside the current one. Collective
  /// over the node when it allocates node-shared memory, else not; may throw (std::bad_alloc).
  virtual void prepare() = 0;
  /// Frees what prepare() allocated (the change was abandoned).
  virtual void discard() noexcept = 0;
  /// Collective: moves to the prepared storage, keeping the values of surviving indices.
  virtual void commit(const locator<N>& before, const locator<N>& after) = 0;
};

/// The state every handle of one domain shares.
template <std::size_t N>
struct domain_state {
  std::shared_ptr<domain_model_base<N>> model;  // shared with the locators made from it
  rect<N> whole;                           // cached model->indices()
  std::vector<rect<N>> my_subdomains;      // this locale's pieces
  std::vector<dense_layout<N>> my_layouts; // and their storage, piece by piece
  index_t my_size = 0;
  // True when this locale's storage holds exactly its owned indices, each once, filling
  // [0, my_size) (no ghost cells, no gaps): loops over arrays of this domain alone may then
  // walk the storage as one contiguous span, in any order.
  bool dense_storage = false;
  // When locales hold copies (Replicated, replicated dimensions): the copy layer of each
  // locale; the locales of one layer hold every index once. Data moves from the source's
  // layer of the destination, and reductions see the reducing locale's layer. Null: no copies.
  std::shared_ptr<const std::vector<int>> layers;
  // True when every locale is a layer of its own (it holds the whole index set).
  bool replicated = false;
  // The directory of a map no formula describes (Hashed, Unstructured); null otherwise.
  std::shared_ptr<const directory<N>> dir;
  index_t storage_size = 0;                // elements each array keeps here (with ghosts, copies)
  std::vector<array_hook<N>*> arrays;      // arrays declared over the domain
  std::uint64_t generation = 0;            // bumps on every set_indices
  std::uint64_t serial = 0;                // the domain's collective serial number (env().new_serial())
  mutable std::shared_ptr<const placement<N>> all_blocks;  // every locale's blocks, on demand (interop)
  // The blocks of the locales whose storage was asked for last (remote element access).
  mutable std::vector<std::pair<int, std::shared_ptr<const std::vector<placed_block<N>>>>> recent_blocks;
  mutable std::mutex recent_blocks_mutex;
  cache_slots caches;                      // plans and staging kept by operations, by type

  void refresh();
  /// Every locale's owned rects with their storage layouts (maps given by formulas only):
  /// O(P x pieces); plans never need it (they ask locate()'s query), interop exports do.
  const placement<N>& blocks_of_all() const;
  /// Locale q's blocks with their storage (maps given by formulas), computed when asked; the
  /// last few locales asked are kept. Safe to call from several threads.
  std::shared_ptr<const std::vector<placed_block<N>>> blocks_of(int q) const;
  /// Where the elements live, as this locale can tell (kept valid by its shared parts
  /// after the domain changes).
  locator<N> locate() const;
  /// Collective: `make()` builds a model locally (its index set staged); it becomes the
  /// model, built collectively when it needs to be, and this locale's view is refreshed.
  /// A failure anywhere reaches every locale and leaves the state as it was.
  template <class Make>
  void install(Make&& make) {
    serial = env().new_serial();
    std::unique_ptr<domain_model_base<N>> next;
    agreed([&] {
      next = make();
      if (next->builds_collectively()) return;
      model = std::move(next);
      refresh();
    });
    if (!next) return;
    build_agreed(*next);
    agreed([&] {
      model = std::move(next);
      refresh();
    });
  }
  /// Collective: changes the model's index set (set_indices, then build when the model
  /// builds collectively) and refreshes this locale's view.
  void change_indices(const rect<N>& indices);
  /// Collective: changes the index set and moves every array over the domain to the new
  /// placement, keeping the values of surviving indices. The arrays allocate their new
  /// storage first; when that fails on any locale (std::bad_alloc), the domain returns to
  /// its old index set with every array as it was, and every locale throws.
  void reindex(const rect<N>& indices);

 private:
  // Collective: a model's build(), whose own steps agree on failure (directory building);
  // a failure after its last collective step reaches every locale here.
  static void build_agreed(domain_model_base<N>& m);
};

template <std::size_t N>
void domain_state<N>::refresh() {
  whole = model->indices();
  my_subdomains = model->local_subdomains(here());
  my_layouts = model->local_layouts(here());
  if (my_layouts.size() != my_subdomains.size())
    throw runtime_error("dmap::domain: the distribution " + model->name() + " gives " +
                        std::to_string(my_subdomains.size()) + " subdomains but " +
                        std::to_string(my_layouts.size()) +
                        " layouts; it must give one layout per subdomain");
  my_size = 0;
  index_t span = 0;
  dense_storage = true;
  for (std::size_t k = 0; k < my_subdomains.size(); ++k) {
    my_size += my_subdomains[k].size();
    span = std::max(span, my_layouts[k].end());
    dense_storage = dense_storage && my_layouts[k].indices == my_subdomains[k];
  }
  dir = model->find_directory();
  storage_size = std::max(span, dir ? static_cast<index_t>(dir->stored().size()) : 0);
  dense_storage = dense_storage && span == my_size && storage_size == my_size;
  auto l = model->copy_layers();
  layers = l.empty() ? nullptr : std::make_shared<const std::vector<int>>(std::move(l));
  replicated = false;
  if (layers) {
    std::vector<int> sorted = *layers;
    std::sort(sorted.begin(), sorted.end());
    replicated = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  }
  all_blocks.reset();
  {
    std::lock_guard<std::mutex> lock(recent_blocks_mutex);
    recent_blocks.clear();
  }
  ++generation;
}

template <std::size_t N>
auto domain_state<N>::blocks_of_all() const -> const placement<N>& {
  if (dir)
    throw unsupported_error("dmap::domain: " + model->name() +
                            " is known through a directory; no locale knows every other locale's blocks");
  if (!all_blocks) {
    auto p = std::make_shared<placement<N>>(static_cast<std::size_t>(num_locales()));
    for (int q = 0; q < num_locales(); ++q) {
      const auto owned = model->local_subdomains(q);
      const auto layouts = model->local_layouts(q);
      for (std::size_t k = 0; k < owned.size() && k < layouts.size(); ++k)
        (*p)[q].push_back({owned[k], layouts[k], {}});
    }
    all_blocks = std::move(p);
  }
  return *all_blocks;
}

template <std::size_t N>
auto domain_state<N>::blocks_of(int q) const -> std::shared_ptr<const std::vector<placed_block<N>>> {
  std::lock_guard<std::mutex> lock(recent_blocks_mutex);
  for (const auto& [locale, blocks] : recent_blocks)
    if (locale == q) return blocks;
  auto blocks = std::make_shared<const std::vector<placed_block<N>>>(model_query<N>(model).blocks(q));
  if (recent_blocks.size() >= 8) recent_blocks.erase(recent_blocks.begin());
  recent_blocks.emplace_back(q, blocks);
  return blocks;
}

template <std::size_t N>
auto domain_state<N>::locate() const -> locator<N> {
  locator<N> l{whole, {}, {}, dir, layers, {}};
  for (std::size_t k = 0; k < my_subdomains.size(); ++k) l.mine.push_back({my_subdomains[k], my_layouts[k], {}});
  if (!dir) l.peers = std::make_shared<const model_query<N>>(model);
  return l;
}

template <std::size_t N>
void domain_state<N>::change_indices(const rect<N>& indices) {
  agreed([&] {
    // Copy on write: locators made before keep answering for the old index set.
    if (model.use_count() > 1)
      if (auto copy = model->clone()) model = std::move(copy);
    model->set_indices(indices);
    if (!model->builds_collectively()) refresh();
  });
  if (!model->builds_collectively()) return;
  build_agreed(*model);
  agreed([&] { refresh(); });
}

template <std::size_t N>
void domain_state<N>::reindex(const rect<N>& indices) {
  const collective_scope scope;
  locator<N> before = agreed([&] { return locate(); });
  const rect<N> old_indices = whole;
  std::unique_ptr<domain_model_base<N>> saved;
  agreed([&] { saved = model->clone(); });
  if (!saved && before.peers) {  // the model changes in place: keep its old answers
    (void)blocks_of_all();
    before.peers = std::make_shared<const listed_query<N>>(all_blocks);
  }
  change_indices(indices);
  const locator<N> after = agreed([&] { return locate(); });
  for (auto* a : arrays) a->choose_storage();
  try {
    agreed([&] {
      // Every array prepares even after another failed: node-shared allocations are
      // collective over the node, so every locale makes all of them.
      std::exception_ptr failure;
      for (auto* a : arrays) try {
          a->prepare();
        } catch (...) {
          if (!failure) failure = std::current_exception();
        }
      if (failure) std::rethrow_exception(failure);
    });
  } catch (...) {
    for (auto* a : arrays) a->discard();
    if (saved)
      agreed([&] {
        model = std::move(saved);
        refresh();
      });
    else  // a descriptor that cannot be copied is asked for its old index set again
      change_indices(old_indices);
    throw;
  }
  for (auto* a : arrays) a->commit(before, after);
}

template <std::size_t N>
void domain_state<N>::build_agreed(domain_model_base<N>& m) {
  std::exception_ptr failure;
  try {
    m.build();
  } catch (...) {
    failure = std::current_exception();
  }
  agree(failure);
}


/// A transfer plan kept for one generation of a domain (halo updates, copy refreshes).
template <std::size_t N>
struct generation_plan {
  std::uint64_t generation = 0;                   // the domain generation it was built for
  std::shared_ptr<const transfer_plan<N>> plan;   // null until built

  /// The plan for domain generation `current`, built by `build()` when missing or stale.
  template <class Build>
  const std::shared_ptr<const transfer_plan<N>>& for_generation(std::uint64_t current, Build&& build) {
    if (!plan || generation != current) {
      plan = std::make_shared<const transfer_plan<N>>(build());
      generation = current;
    }
    return plan;
  }
};

/// The instantiations of this header the compiled library holds (runtime/precompiled.hpp).
#define DMAP_DOMAIN_STATE_INSTANCES(N, how) how struct domain_state<N>;
DMAP_DECLARE_PRECOMPILED(DMAP_DOMAIN_STATE_INSTANCES)

}  // namespace dmap::detail
