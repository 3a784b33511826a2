// sparse_domain<N>: a subset of a distributed rectangular domain (Chapel's sparse
// subdomain, dsiNewSparseDom). Each index lives where the parent's map puts it; every locale
// stores the indices of each of its parent pieces in a sparse layout chosen per domain (COO,
// CSR, CSC from layouts/, or a user type satisfying dmap::sparse_layout). Indices are added
// and removed in bulk, collectively, from any locale; any locale asks whether an index is in
// the set alone, one-sidedly.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <typeinfo>
#include <unistd.h>
#include <vector>

#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"
#include "../runtime/detail/messages.hpp"
#include "detail/access.hpp"
#include "detail/misuse.hpp"
#include "detail/sparse_state.hpp"
#include "domain.hpp"
#include "sparse_layout.hpp"

namespace dmap {

template <transferable T, std::size_t N>
class sparse_array;

/// A sparse subset of the indices of a dense parent domain, placed by the parent's map.
/// Copies are handles to one domain (as for dmap::domain). This locale's indices are numbered
/// by positions 0 .. local_size() - 1: the parent's pieces in local_subdomains() order, each in
/// its layout's storage order; a sparse array keeps the value of position p at element p.
///
/// Collective: construction, add, remove, clear, contains_each (a batch), the loops over it
/// and destruction of the last handle. Not collective: size, local_size, contains (any index,
/// read one-sidedly from its owner), local_contains, locale_of and the local queries. The
/// parent must place each index once (no copies), and must not change its index set while
/// the sparse domain is used (an unsupported_error on every locale then).
template <std::size_t N>
class sparse_domain {
 public:
  /// Loops over sparse domains are dmap::forall / reduce overloads of their own
  /// (iterators/sparse_loops.hpp).
  using own_loops = void;
  /// The number of dimensions.
  static constexpr std::size_t rank = N;

  /// Collective: an empty subset of `parent`, each piece stored in layouts like `layout`
  /// (an empty value of a dmap::sparse_layout type: `dmap::csr_layout<2>{}`). Throws
  /// unsupported_error when the parent's map keeps copies (Replicated, replicated
  /// dimensions), argument_error when `parent` is an empty handle or when the storage empty
  /// layouts hold already (`L::empty_bytes(piece)`, where the layout says: CSR and CSC keep one
  /// start per row or column of each piece) exceeds this machine's physical memory on some
  /// locale, and std::bad_alloc when an allocation fails; on every locale.
  template <class L>
    requires sparse_layout<L, N>
  sparse_domain(const domain<N>& parent, const L& layout) {
    state_ = agreed([&] {
      const auto& ps = detail::state_of(parent);
      if (!ps) throw argument_error("dmap::sparse_domain: parent is an empty domain handle (moved from)");
      if (ps->layers)
        throw unsupported_error("dmap::sparse_domain: the parent's map " + parent.name() +
                                " keeps copies of indices; a sparse domain needs a map that places each index once");
      if constexpr (requires(const rect<N>& r) {
                      { L::empty_bytes(r) } -> std::convertible_to<std::size_t>;
                    })
        check_empty_fits(parent, layout, [](const rect<N>& r) { return L::empty_bytes(r); });
      auto st = std::make_shared<detail::sparse_state<N>>(parent);
      st->prototype = std::make_unique<const detail::sparse_piece_of<L, N>>(layout.built(rect<N>{}, {}));
      st->parent_generation = ps->generation;
      st->pieces = parent.local_subdomains();
      st->finder = detail::piece_finder<N>(st->pieces);
      for (const rect<N>& piece : st->pieces) st->layouts.push_back(st->prototype->built(piece, {}));
      st->offsets.assign(st->pieces.size() + 1, 0);
      return st;
    });
    state_->global_size = state_->lookup.expose(detail::sparse_lookup_table{});
  }

  /// The dense domain the indices belong to.
  const domain<N>& parent() const { return live("dmap::sparse_domain::parent").parent; }
  /// The layout's name ("coo", "csr", "csc", ...).
  std::string layout_name() const { return live("dmap::sparse_domain::layout_name").prototype->name(); }

  /// Collective: adds `indices` (each locale its own list, any indices; duplicates and
  /// indices already present are ignored). Each index travels to its owner, one message per
  /// peer. Arrays over the domain keep the values of present indices; added ones take their
  /// implicit value. An index outside the parent is an out_of_bounds_error on every locale,
  /// and nothing changes.
  void add(std::span<const idx<N>> indices) { change(indices, true, "dmap::sparse_domain::add"); }
  /// Collective: adds a braced list of indices.
  void add(std::initializer_list<idx<N>> indices) { add(std::span<const idx<N>>(indices.begin(), indices.size())); }
  /// Collective: removes `indices` (absent ones are ignored); arrays keep the values of the
  /// indices that stay. An index outside the parent is an out_of_bounds_error on every locale.
  void remove(std::span<const idx<N>> indices) { change(indices, false, "dmap::sparse_domain::remove"); }
  /// Collective: removes a braced list of indices.
  void remove(std::initializer_list<idx<N>> indices) {
    remove(std::span<const idx<N>>(indices.begin(), indices.size()));
  }
  /// Collective: removes every index.
  void clear() {
    const detail::collective_scope scope;
    auto& s = *agreed([&] { return &live("dmap::sparse_domain::clear"); });
    std::vector<std::unique_ptr<const detail::sparse_piece<N>>> layouts;
    std::optional<detail::sparse_lookup_table> table;
    std::exception_ptr failure;
    try {
      table.emplace();
      for (const rect<N>& piece : s.pieces) layouts.push_back(s.prototype->built(piece, {}));
      for (auto* a : s.arrays) a->prepare({});
    } catch (...) {
      failure = std::current_exception();
    }
    commit_or_abandon(s, failure, std::move(layouts), std::vector<index_t>(s.pieces.size() + 1, 0), std::move(table));
  }

  /// The number of indices on all locales (as of the last collective change).
  index_t size() const { return live("dmap::sparse_domain::size").global_size; }
  /// The number of indices this locale owns.
  index_t local_size() const { return live("dmap::sparse_domain::local_size").local_size(); }
  /// True when `i` is in the set, wherever it lives (Chapel's dsiMember); false for an index
  /// outside the parent. Not collective: an index another locale owns is looked up in its
  /// owner's table one-sidedly (a few reads: see the sparse domains guide), and the answer is
  /// the set as of the last collective change.
  bool contains(const idx<N>& i) const {
    const auto& s = live("dmap::sparse_domain::contains");
    if (!s.parent.indices().contains(i)) return false;
    if (s.finder.find(i) != s.pieces.size()) return s.position_of(i) >= 0;
    return s.position_on(s.parent.locale_of(i), i) >= 0;
  }
  /// The batch form is contains_each (collective); this overload only says so.
  template <class R>
    requires std::convertible_to<const R&, std::span<const idx<N>>> && (!std::convertible_to<const R&, idx<N>>)
  std::vector<bool> contains(const R&) const {
    static_assert(detail::misuse<R>,
                  "dmap::sparse_domain::contains(indices) was renamed contains_each(indices): the batch is collective, "
                  "while contains(i) asks about one index from one locale alone");
    return {};
  }
  /// True when this locale owns `i` and it is in the set (false outside the parent). No
  /// messages, not collective.
  bool local_contains(const idx<N>& i) const {
    return live("dmap::sparse_domain::local_contains").position_of(i) >= 0;
  }
  /// The locale owning index `i` of the parent (in the set or not): the parent's locale_of.
  /// Throws out_of_bounds_error outside the parent. Not collective.
  int locale_of(const idx<N>& i) const {
    const auto& s = live("dmap::sparse_domain::locale_of");
    if (!s.parent.indices().contains(i)) {
      std::ostringstream m;
      m << "dmap::sparse_domain::locale_of: index " << i << " is outside the parent domain " << s.parent.indices();
      throw out_of_bounds_error(m.str());
    }
    return s.finder.find(i) != s.pieces.size() ? here() : s.parent.locale_of(i);
  }
  /// Collective: for each of `indices` (each locale its own list, any indices), whether it is
  /// in the set (contains(i) for each, false outside the parent), in the caller's order; one
  /// message per peer each way. An owner that receives an index its pieces do not hold (a
  /// parent map answering locale_of differently on different locales) is an argument_error
  /// on every locale.
  std::vector<bool> contains_each(std::span<const idx<N>> indices) const {
    const char* who = "dmap::sparse_domain::contains_each";
    const auto p = static_cast<std::size_t>(num_locales());
    std::vector<std::vector<std::size_t>> asked(p);
    detail::byte_buffers in = detail::exchange(route([&]() -> const auto& { return live(who); }, indices, asked, who, false));
    const auto& s = live(who);
    detail::byte_buffers answers = agreed([&] {
      detail::byte_buffers out(p);
      for (std::size_t q = 0; q < p; ++q) {
        const auto queries = detail::from_bytes<idx<N>>(in[q]);
        out[q].resize(queries.size());
        for (std::size_t k = 0; k < queries.size(); ++k)
          out[q][k] = std::byte{routed_position(s, queries[k], static_cast<int>(q), who) >= 0};
      }
      return out;
    });
    std::vector<std::size_t> expected(p);
    for (std::size_t q = 0; q < p; ++q) expected[q] = asked[q].size();
    const detail::byte_buffers back = detail::exchange_known_sizes(std::move(answers), expected);
    std::vector<bool> result(indices.size(), false);
    for (std::size_t q = 0; q < p; ++q)
      for (std::size_t k = 0; k < asked[q].size(); ++k) result[asked[q][k]] = back[q][k] != std::byte{0};
    return result;
  }
  /// Collective: contains_each of a braced list.
  std::vector<bool> contains_each(std::initializer_list<idx<N>> indices) const {
    return contains_each(std::span<const idx<N>>(indices.begin(), indices.size()));
  }

  /// The position of `i` among this locale's indices, or -1 when `i` is not in the set.
  /// Throws out_of_bounds_error outside the parent and not_local_error when another locale
  /// owns `i`.
  index_t local_position(const idx<N>& i) const {
    const auto& s = live("dmap::sparse_domain::local_position");
    const index_t p = s.position_of(i);
    if (p < 0) check_local(s, i, "dmap::sparse_domain::local_position");
    return p;
  }
  /// Writes this locale's indices at positions [first, last) to `out`, in position order.
  /// Throws out_of_bounds_error unless 0 <= first <= last <= local_size().
  void local_indices(index_t first, index_t last, idx<N>* out) const {
    const auto& s = live("dmap::sparse_domain::local_indices");
    if (first < 0 || first > last || last > s.local_size())
      throw out_of_bounds_error("dmap::sparse_domain::local_indices: positions [" + std::to_string(first) + ", " +
                                std::to_string(last) + ") are not inside [0, " + std::to_string(s.local_size()) +
                                ")");
    s.decode(first, last, out);
  }
  /// This locale's indices, in position order.
  std::vector<idx<N>> local_indices() const {
    std::vector<idx<N>> out(static_cast<std::size_t>(local_size()));
    local_indices(0, local_size(), out.data());
    return out;
  }
  /// The number of parent pieces this locale owns (its local_subdomains()).
  std::size_t local_pieces() const { return live("dmap::sparse_domain::local_pieces").pieces.size(); }
  /// Piece k of the parent on this locale.
  const rect<N>& local_piece(std::size_t k) const {
    const auto& s = live("dmap::sparse_domain::local_piece");
    check_piece(s, k, "dmap::sparse_domain::local_piece");
    return s.pieces[k];
  }
  /// The positions of piece k's indices: [first, last).
  std::pair<index_t, index_t> piece_positions(std::size_t k) const {
    const auto& s = live("dmap::sparse_domain::piece_positions");
    check_piece(s, k, "dmap::sparse_domain::piece_positions");
    return {s.offsets[k], s.offsets[k + 1]};
  }
  /// The layout of piece k as its type L (for kernels that read a format directly); throws
  /// argument_error naming both types when the domain's layouts are not of type L.
  template <class L>
    requires sparse_layout<L, N>
  const L& local_layout(std::size_t k) const {
    const auto& s = live("dmap::sparse_domain::local_layout");
    check_piece(s, k, "dmap::sparse_domain::local_layout");
    const void* l = s.layouts[k]->find(typeid(L));
    if (!l)
      throw argument_error("dmap::sparse_domain::local_layout: the domain's layout is " + s.prototype->name() +
                           ", not the type asked for (" + L{}.name() + ")");
    return *static_cast<const L*>(l);
  }
  /// The bytes this locale's layouts hold (index storage, not array values).
  std::size_t local_bytes() const {
    std::size_t b = 0;
    for (const auto& l : live("dmap::sparse_domain::local_bytes").layouts) b += l->bytes();
    return b;
  }
  /// A number that changes whenever the index set does (add, remove, clear); plans kept for
  /// the domain compare it.
  std::uint64_t version() const { return live("dmap::sparse_domain::version").version; }

  /// True when both handles name the same domain.
  friend bool operator==(const sparse_domain& a, const sparse_domain& b) noexcept { return a.state_ == b.state_; }
  /// Writes the indices in the parent's row-major order, Chapel's way (`{(1, 2), (5, 0)}`),
  /// on the calling locale: it reads the other locales' lookup tables one-sidedly, in batches
  /// of 16,384 indices. Not collective.
  friend std::ostream& operator<<(std::ostream& os, const sparse_domain& d) {
    const auto& s = d.live("dmap::sparse_domain (printing)");
    const rect<N>& whole = s.parent.indices();
    os << '{';
    bool first = true;
    s.lookup.for_each_in_order([&](int, std::int64_t order, index_t) {
      os << (first ? "" : ", ") << whole.index_at(order);
      first = false;
    });
    return os << '}';
  }

 private:
  template <transferable T, std::size_t M>
  friend class sparse_array;
  friend struct detail::access;

  detail::sparse_state<N>& live(const char* who) const {
    if (!state_) throw argument_error(std::string(who) + ": the sparse domain was moved from");
    if (detail::state_of(state_->parent)->generation != state_->parent_generation)
      throw unsupported_error(std::string(who) + ": the parent domain changed its index set after the sparse domain "
                              "was made; make a new sparse domain over it");
    return *state_;
  }
  static void check_piece(const detail::sparse_state<N>& s, std::size_t k, const char* who) {
    if (k >= s.pieces.size())
      throw out_of_bounds_error(std::string(who) + ": piece " + std::to_string(k) + " is not one of this locale's " +
                                std::to_string(s.pieces.size()) + " pieces");
  }
  // Throws the error for an index that is not a local parent index (returns when it is).
  static void check_local(const detail::sparse_state<N>& s, const idx<N>& i, const char* who) {
    std::ostringstream m;
    if (!s.parent.indices().contains(i)) {
      m << who << ": index " << i << " is outside the parent domain " << s.parent.indices();
      throw out_of_bounds_error(m.str());
    }
    if (s.finder.find(i) == s.pieces.size()) {
      m << who << ": index " << i << " is owned by locale " << s.parent.locale_of(i) << ", not by locale " << here()
        << "; ask contains(i), or read A[i], from any locale";
      throw not_local_error(m.str());
    }
  }
  // Checks `indices` against the parent (agreed) and packs them for their owners; asked[q]
  // gets the caller's positions of the indices sent to q, in order (when asked is not empty).
  // An index outside the parent is an out_of_bounds_error when `outside_fails`, else it is
  // left out (not sent, in no asked list). `state()` gives the domain's state (it throws for a
  // moved-from operand: inside the agreement, so every locale throws).
  template <class State>
  static detail::byte_buffers route(State&& state, std::span<const idx<N>> indices,
                            std::vector<std::vector<std::size_t>>& asked, const char* who,
                            bool outside_fails = true) {
    return agreed([&] {
      const detail::sparse_state<N>& s = state();
      const rect<N>& whole = s.parent.indices();
      std::vector<idx<N>> kept;       // the indices inside the parent, when some are not
      std::vector<std::size_t> from;  // and the caller's position of each
      std::size_t outside = 0;
      for (std::size_t k = 0; k < indices.size(); ++k) {
        if (whole.contains(indices[k])) continue;
        if (outside_fails) {
          std::ostringstream m;
          m << who << ": index " << indices[k] << " is outside the parent domain " << whole;
          throw out_of_bounds_error(m.str());
        }
        ++outside;
      }
      if (outside > 0) {
        for (std::size_t k = 0; k < indices.size(); ++k)
          if (whole.contains(indices[k])) {
            kept.push_back(indices[k]);
            from.push_back(k);
          }
      }
      const std::span<const idx<N>> inside = outside > 0 ? std::span<const idx<N>>(kept) : indices;
      const auto p = static_cast<std::size_t>(num_locales());
      const std::vector<int> owners = owners_in_parent(s, inside);
      std::vector<std::size_t> counts(p, 0);
      for (int q : owners) ++counts[static_cast<std::size_t>(q)];
      detail::byte_buffers out(p);
      std::vector<std::byte*> at(p);
      for (std::size_t q = 0; q < p; ++q) {
        out[q].resize(counts[q] * sizeof(idx<N>));
        at[q] = out[q].data();
        if (!asked.empty()) asked[q].reserve(counts[q]);
      }
      for (std::size_t k = 0; k < inside.size(); ++k) {
        const auto q = static_cast<std::size_t>(owners[k]);
        std::memcpy(at[q], &inside[k], sizeof(idx<N>));
        at[q] += sizeof(idx<N>);
        if (!asked.empty()) asked[q].push_back(outside > 0 ? from[k] : k);
      }
      return out;
    });
  }
  // The owners of `indices` (all inside the parent): the parent's locale_of, or one lookup
  // per directory home for a parent kept in a directory. Not collective.
  static std::vector<int> owners_in_parent(const detail::sparse_state<N>& s, std::span<const idx<N>> indices) {
    if (detail::state_of(s.parent)->dir) return s.parent.locales_of(std::vector<idx<N>>(indices.begin(), indices.end()));
    std::vector<int> owners;
    owners.reserve(indices.size());
    for (const idx<N>& i : indices) owners.push_back(s.parent.locale_of(i));
    return owners;
  }
  // The position of `i`, which locale `from` routed here as its owner, or -1 when it is not
  // in the set. An index none of this locale's pieces holds means the parent's map named
  // another owner on `from` than it does here: argument_error (the caller agrees on it).
  static index_t routed_position(const detail::sparse_state<N>& s, const idx<N>& i, int from, const char* who) {
    const std::size_t k = routed_piece(s, i, from, who);
    const index_t p = s.layouts[k]->position_of(i);
    return p < 0 ? -1 : s.offsets[k] + p;
  }
  // The piece holding `i`, which locale `from` routed here (argument_error when none does:
  // see routed_position).
  static std::size_t routed_piece(const detail::sparse_state<N>& s, const idx<N>& i, int from, const char* who) {
    const std::size_t k = s.finder.find(i);
    if (k == s.pieces.size()) {
      std::ostringstream m;
      m << who << ": locale " << from << " sent index " << i << " to locale " << here()
        << " as its owner, but no piece of the parent held here contains it: the parent's map " << s.parent.name()
        << " names different owners on different locales (a map, and a hashed map's mapper, must give the same "
        << "answer on every locale)";
      throw argument_error(m.str());
    }
    return k;
  }

  // Throws argument_error when the empty layouts of this locale's pieces of `parent` would
  // hold more than the machine's physical memory (`bytes(piece)` each): asking for it would
  // end in std::bad_alloc, or, spread over many pieces each of which the kernel grants, in the
  // process being killed when the memory is touched.
  template <class L, class Bytes>
  static void check_empty_fits(const domain<N>& parent, const L& layout, Bytes&& bytes) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return;
    const auto memory = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
    std::uint64_t total = 0;
    const auto pieces = parent.local_subdomains();
    for (const rect<N>& piece : pieces) {
      const std::uint64_t b = bytes(piece);
      total = b > UINT64_MAX - total ? UINT64_MAX : total + b;
    }
    if (total <= memory) return;
    std::ostringstream m;
    m << "dmap::sparse_domain: a " << layout.name() << " layout keeps storage for every slice of its piece even "
      << "when empty, and the " << pieces.size() << " piece(s) of the parent " << parent.indices() << " (" << parent.name()
      << ") on locale " << here() << " would hold " << total << " bytes so, more than this machine's memory ("
      << memory << " bytes); use coo_layout (storage for the indices only) or a parent map that gives each locale "
      << "fewer rows along the compressed dimension";
    throw argument_error(m.str());
  }

  // Adds or removes: route to owners, merge per piece, prepare every array, agree, commit.
  void change(std::span<const idx<N>> indices, bool adding, const char* who) {
    const detail::collective_scope scope;
    std::vector<std::vector<std::size_t>> unasked;  // the caller's positions are not needed
    detail::byte_buffers in = detail::exchange(route([&]() -> const auto& { return live(who); }, indices, unasked, who));
    auto& s = live(who);
    std::vector<std::unique_ptr<const detail::sparse_piece<N>>> layouts;
    std::vector<index_t> offsets(s.pieces.size() + 1, 0);
    std::optional<detail::sparse_lookup_table> table;  // none: unchanged here
    std::exception_ptr failure;
    try {
      // The indices that arrived, per piece.
      std::vector<std::vector<idx<N>>> arrived(s.pieces.size());
      for (std::size_t q = 0; q < in.size(); ++q) {
        const auto& bytes = in[q];
        for (std::size_t at = 0; at + sizeof(idx<N>) <= bytes.size(); at += sizeof(idx<N>)) {
          idx<N> i;
          std::memcpy(&i, bytes.data() + at, sizeof(idx<N>));
          arrived[routed_piece(s, i, static_cast<int>(q), who)].push_back(i);
        }
      }
      // The lookup table is rebuilt when indices arrived here: the parent orders of the new
      // positions, from the merged lists of changed pieces and the old layouts of the others.
      const bool rebuild = std::any_of(arrived.begin(), arrived.end(), [](const auto& a) { return !a.empty(); });
      const detail::order_of_member<N> order_of(s.parent.indices());
      std::vector<std::int64_t> orders;
      if (rebuild) {
        std::size_t arrivals = 0;
        for (const auto& a : arrived) arrivals += a.size();
        orders.reserve(static_cast<std::size_t>(s.local_size()) + (adding ? arrivals : 0));
      }
      std::vector<index_t> moved_from;
      std::vector<idx<N>> old, merged;
      for (std::size_t k = 0; k < s.pieces.size(); ++k) {
        const auto& layout = *s.layouts[k];
        const index_t base = s.offsets[k];
        const index_t old_size = layout.size();
        offsets[k] = static_cast<index_t>(moved_from.size());
        if (arrived[k].empty()) {  // unchanged piece: the same layout, the same values
          layouts.push_back(nullptr);
          for (index_t p = 0; p < old_size; ++p) moved_from.push_back(base + p);
          if (rebuild) {
            old.resize(static_cast<std::size_t>(old_size));
            layout.decode(0, old_size, old.data());
            for (const idx<N>& i : old) orders.push_back(order_of(i));
          }
          continue;
        }
        auto& a = arrived[k];
        const auto before = [&](const idx<N>& x, const idx<N>& y) { return layout.precedes(x, y); };
        layout.sort_unique(s.pieces[k], a);
        old.resize(static_cast<std::size_t>(old_size));
        layout.decode(0, old_size, old.data());
        merged.clear();
        std::size_t x = 0, y = 0;
        while (x < old.size() || y < a.size()) {
          const bool take_old = y == a.size() || (x < old.size() && !before(a[y], old[x]));
          const bool same = take_old && y < a.size() && old[x] == a[y];
          if (take_old) {
            if (adding || !same) {
              merged.push_back(old[x]);
              moved_from.push_back(base + static_cast<index_t>(x));
            }
            ++x;
            y += same;
          } else {
            if (adding) {
              merged.push_back(a[y]);
              moved_from.push_back(-1);
            }
            ++y;
          }
        }
        layouts.push_back(s.prototype->built(s.pieces[k], merged));
        for (const idx<N>& i : merged) orders.push_back(order_of(i));
      }
      offsets.back() = static_cast<index_t>(moved_from.size());
      if (rebuild) table = detail::make_sparse_lookup(std::move(orders));
      for (auto* arr : s.arrays) arr->prepare(moved_from);
    } catch (...) {
      failure = std::current_exception();
    }
    commit_or_abandon(s, failure, std::move(layouts), std::move(offsets), std::move(table));
  }

  // Agrees on `failure`; then every array commits its prepared values and the domain its
  // new layouts (null: piece unchanged) and lookup table, or, on failure anywhere,
  // everything is dropped. Committing exposes the table and every array's values again
  // (collective), and the all-gather that tells every locale the others' table sizes also
  // gives the global size.
  static void commit_or_abandon(detail::sparse_state<N>& s, std::exception_ptr failure,
                                std::vector<std::unique_ptr<const detail::sparse_piece<N>>> layouts,
                                std::vector<index_t> offsets, std::optional<detail::sparse_lookup_table> table) {
    try {
      agree(failure);
    } catch (...) {
      for (auto* a : s.arrays) a->abandon();
      throw;
    }
    for (std::size_t k = 0; k < layouts.size(); ++k)
      if (layouts[k]) s.layouts[k] = std::move(layouts[k]);
    s.offsets = std::move(offsets);
    for (auto* a : s.arrays) a->commit();
    ++s.version;
    s.caches = detail::cache_slots{};
    s.global_size = s.lookup.expose(std::move(table));
    for (auto* a : s.arrays) a->expose();
  }

  std::shared_ptr<detail::sparse_state<N>> state_;
};

}  // namespace dmap
