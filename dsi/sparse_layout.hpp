// sparse_layout: the contract of a local sparse layout, the storage one locale gives the
// indices of a sparse set that fall in one piece of the parent domain. Positions 0 ..
// size() - 1 number the stored indices in the layout's storage order; a sparse array keeps the
// value of position p at element p of its local values, so loops walk values as a plain span.
// The models are in layouts/: coo_layout (sorted coordinates), csr_layout and csc_layout
// (compressed rows, compressed columns); a user type that satisfies the concept works too.
#pragma once

#include <concepts>
#include <cstddef>
#include <span>
#include <string>

#include "index.hpp"
#include "rect.hpp"

namespace dmap {

/// A local sparse layout: an immutable set of indices inside one rect (a piece of the parent
/// domain this locale owns), numbered in storage order. A default-constructed value is an
/// empty layout and the prototype a sparse domain is given; `built` makes the layout of a
/// set, so the domain changes a set by building a new layout from the merged indices.
///
/// | member                      | meaning                                                              |
/// |-----------------------------|----------------------------------------------------------------------|
/// | `l.precedes(a, b)`          | the storage order: a strict weak order, total on distinct indices    |
/// | `l.built(piece, sorted)`    | a layout of `sorted` (distinct, in storage order, inside `piece`)    |
/// | `l.size()`                  | the number of indices stored                                         |
/// | `l.position_of(i)`          | the position of `i`, or -1 when `i` is not stored                    |
/// | `l.decode(first, last, out)`| writes the indices at positions [first, last) to `out`, in order     |
/// | `l.name()`                  | "coo", "csr", ...: shown in messages and descriptions                |
/// | `l.bytes()`                 | the memory the layout holds (index storage), for reports             |
///
/// Optional: `l.sort_unique(piece, indices)` sorts indices inside `piece` in storage order and
/// drops repeats faster than comparing with `precedes` (the library's layouts sort integer keys,
/// `detail::sort_unique_by_key`). `L::empty_bytes(piece)` (static): the bytes an empty layout
/// of `piece` holds (CSR: a start per row), which a sparse domain checks against the machine's
/// memory before it builds any (argument_error on every locale when they cannot fit).
template <class L, std::size_t N>
concept sparse_layout =
    std::semiregular<L> &&
    requires(const L& l, const rect<N>& piece, std::span<const idx<N>> sorted, const idx<N>& i, index_t p,
             idx<N>* out) {
      { l.precedes(i, i) } -> std::convertible_to<bool>;
      { l.built(piece, sorted) } -> std::same_as<L>;
      { l.size() } -> std::convertible_to<index_t>;
      { l.position_of(i) } -> std::convertible_to<index_t>;
      { l.decode(p, p, out) };
      { l.name() } -> std::convertible_to<std::string>;
      { l.bytes() } -> std::convertible_to<std::size_t>;
    };

}  // namespace dmap
