// The Domain map Standard Interface (DSI) as C++20 concepts. A type is a distribution
// because it satisfies these concepts, not because it inherits from anything.
#pragma once

#include <concepts>
#include <string>
#include <cstddef>
#include <vector>

#include "../runtime/grid.hpp"
#include "layout.hpp"
#include "rect.hpp"

namespace dmap {

/// What a map declares about how it deals one dimension to the grid coordinates along it
/// (the optional descriptor member `dimension_kinds()`), so that descriptions naming a kind
/// (DAP's `dist_type`, `block_size`, `one_to_one`) say what the map is rather than what its
/// pieces happen to look like: a Cyclic dimension of 3 indices on 2 locales deals one block
/// each, which pieces alone cannot tell from a block cut.
struct dimension_kind {
  /// The kinds of deal a map may declare.
  enum class deal : unsigned char {
    unknown,  ///< nothing declared: readers derive the kind from the pieces
    block,    ///< one run of indices per grid coordinate, in grid order (Block, Irregular, Stencil, Padded)
    cyclic,   ///< blocks of `block_size` indices dealt round robin (Cyclic: 1; BlockCyclic)
    listed,   ///< explicit lists per grid coordinate (DAP 'u')
  };
  deal kind = deal::unknown;  ///< the kind of deal
  index_t block_size = 1;     ///< cyclic: indices per block (>= 1)
  bool one_to_one = true;     ///< listed: whether the map promises every index is held once

  /// A block cut.
  static constexpr dimension_kind block() noexcept { return {deal::block, 1, true}; }
  /// Blocks of `block_size` indices dealt round robin.
  static constexpr dimension_kind cyclic(index_t block_size = 1) noexcept { return {deal::cyclic, block_size, true}; }
  /// Explicit lists, with or without the promise that each index is held once.
  static constexpr dimension_kind listed(bool one_to_one) noexcept { return {deal::listed, 1, one_to_one}; }

  friend bool operator==(const dimension_kind&, const dimension_kind&) = default;
};

/// A local domain descriptor: what one locale owns of a distributed domain.
///
/// | Chapel DSI (LocalDomain)        | dmap                      | meaning                               |
/// |---------------------------------|---------------------------|---------------------------------------|
/// | `myBlock` / dsiLocalSubdomains  | `subdomains()`            | the owned indices, as disjoint rects  |
/// | (the local array's layout)      | `layouts()`               | storage of each subdomain, in order   |
/// | `myBlock.size`                  | `size()`                  | the number of owned indices           |
/// | `myBlock.contains(i)`           | `contains(i)`             | whether this locale owns `i`          |
template <class L, std::size_t N>
concept local_domain_descriptor = requires(const L& l, const idx<N>& i) {
  { l.subdomains() } -> std::convertible_to<std::vector<rect<N>>>;
  { l.layouts() } -> std::convertible_to<std::vector<dense_layout<N>>>;
  { l.size() } -> std::convertible_to<index_t>;
  { l.contains(i) } -> std::convertible_to<bool>;
};

/// A global domain descriptor: the whole distributed index set; every locale holds its own
/// copy (privatised by construction in SPMD).
///
/// | Chapel DSI (GlobalDomain)                  | dmap                          | meaning                                   |
/// |--------------------------------------------|-------------------------------|-------------------------------------------|
/// | dsiMyDist                                  | `distribution()`              | the distribution it was created by        |
/// | dsiGetIndices                              | `indices()`                   | the whole index set                       |
/// | dsiSetIndices (arrays: dsiReallocate)      | `set_indices(r)`              | change the index set (collective)         |
/// | dsiIndexToLocale                           | `locale_of(i)`                | the locale owning index `i`               |
/// | dsiLocalSubdomain(s)(loc)                  | `local_subdomains(locale)`    | the rects any locale owns (no messages)   |
/// | (layout of LocalArray on `loc`)            | `local_layouts(locale)`       | storage per subdomain (ghosts allowed)    |
/// | `locDoms[here]`                            | `local()`                     | this locale's local domain descriptor     |
/// | dsiTargetLocales                           | `targets()`                   | the target grid                           |
/// | dsiBuildArray                              | `dmap::array<T, N>{domain}`   | storage comes from `local_layouts`        |
///
/// Optional members, found by dmap when present:
///
/// | member          | meaning                                                                                     |
/// |-----------------|---------------------------------------------------------------------------------------------|
/// | `copy_layers()` | locales hold copies: each locale's copy layer; the locales of one layer partition the indices |
/// | `periodic()`    | layouts hold ghost cells (halo updates apply); which dimensions wrap                       |
/// | `build()`       | collective: commits the index set construction or `set_indices` staged                     |
/// | `directory()`   | the directory of a map no formula describes; pieces then answer for `here()` only          |
/// | `locales_meeting(r)` | the locales that may own an index of rect `r` (sorted; plans ask it instead of all P) |
/// | `local_subdomains(q, r)` | locale q's rects meeting `r`, as `local_subdomains(q)` lists them               |
/// | `subdomains_meeting(r)` | every locale's rects meeting `r`: (locale, rect) pairs by locale, one question for all |
/// | `for_each_subdomain_meeting(r, f)` | the same pairs handed to `f(locale, rect)` one by one, in that order, with no list |
/// | `ghost_reach()` | the widest ghost frame per dimension (index units), for halo plans                          |
/// | `dimension_kinds()` | `std::array<dimension_kind, N>`: how each dimension is dealt, for exports naming a kind |
template <class G, std::size_t N>
concept domain_descriptor =
    std::copy_constructible<G> &&
    requires(G& g, const G& cg, const rect<N>& r, const idx<N>& i, int locale) {
      { cg.indices() } -> std::convertible_to<rect<N>>;
      { g.set_indices(r) };
      { cg.locale_of(i) } -> std::convertible_to<int>;
      { cg.local_subdomains(locale) } -> std::convertible_to<std::vector<rect<N>>>;
      { cg.local_layouts(locale) } -> std::convertible_to<std::vector<dense_layout<N>>>;
      { cg.local() } -> local_domain_descriptor<N>;
      { cg.targets() };
    };

/// A global distribution descriptor: the domain map itself.
///
/// | Chapel DSI (GlobalDistribution)  | dmap                    | meaning                                    |
/// |----------------------------------|-------------------------|--------------------------------------------|
/// | dsiNewRectangularDom             | `new_domain(r)`         | a global domain descriptor over `r`        |
/// | dsiClone / dsiEqualDMaps         | copy / `operator==`     | equal maps place equal indices alike       |
/// | dsiTargetLocales                 | `targets()`             | the locales it maps onto (a target grid)   |
/// | dsiDisplayRepresentation         | `name()`                | description and fingerprint: every parameter |
///
/// Optional member: `order()` (a `storage_order`), how every locale's layouts store its
/// elements; transfer plans into the map pack their messages in that order (a hint: any
/// answer is correct, a true one makes each message a few long runs on both sides).
template <class D, std::size_t N>
concept distribution =
    std::copy_constructible<D> && std::equality_comparable<D> &&
    requires(const D& d, const rect<N>& r) {
      { d.new_domain(r) } -> domain_descriptor<N>;
      { d.targets() };
      { d.name() } -> std::convertible_to<std::string>;
    };

/// A local array descriptor: one locale's elements, as blocks of (pointer, layout).
///
/// | Chapel DSI (LocalArray)  | dmap         | meaning                                  |
/// |--------------------------|--------------|------------------------------------------|
/// | `myElems`                | `blocks()`   | the local elements, one block per piece  |
/// | `myElems.size`           | `size()`     | the number of local elements             |
template <class A, class T, std::size_t N>
concept local_array_descriptor = requires(const A& a) {
  { a.blocks() } -> std::convertible_to<std::vector<local_block<T, N>>>;
  { a.size() } -> std::convertible_to<index_t>;
};

/// A global array descriptor: the whole distributed array; every locale holds its own copy.
/// `dmap::array<T, N>` is the one dmap provides, over storage laid out by the domain's
/// `local_layouts`, so a distribution needs no array type of its own.
///
/// | Chapel DSI (GlobalArray)       | dmap               | meaning                                    |
/// |--------------------------------|--------------------|--------------------------------------------|
/// | dsiGetBaseDom                  | `domain()`         | the domain it is declared over             |
/// | dsiAccess                      | `a[i]`             | any element, local or remote               |
/// | dsiLocalAccess                 | `a.local(i)`       | an element this locale owns                |
/// | `locArr[here].myElems`         | `local_blocks()`   | this locale's storage, (layout, pointer)   |
/// | dsiReallocate                  | (domain's set_indices) | done by the domain for all its arrays  |
/// | dsiSerialWrite                 | `operator<<`       | collective; locale 0 writes                |
template <class A, std::size_t N>
concept array_descriptor = requires(A& a, const idx<N>& i) {
  typename A::value_type;
  { a.domain() };
  { a.local(i) } -> std::same_as<typename A::value_type&>;
  { a[i] };
  { a.local_blocks() } -> std::convertible_to<std::vector<local_block<typename A::value_type, N>>>;
};

}  // namespace dmap
