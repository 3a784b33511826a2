// The machinery behind dimensional.hpp (not part of the API): the owner arithmetic of cyclic and
// block-cyclic dimensions, and a dimension specifier as text.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>

#include "../../dsi/detail/range.hpp"

namespace dmap {

struct block_dim;
struct cyclic_dim;
struct block_cyclic_dim;
struct irregular_dim;
struct unstructured_dim;
struct replicated_dim;

namespace detail {
constexpr index_t floor_div(index_t a, index_t b) {
  const index_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
/// floor(a / b) of wide integers, b > 0.
constexpr wide_int floor_div_wide(wide_int a, wide_int b) {
  const wide_int q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
/// (a mod m) of a wide integer, in [0, m) for m > 0.
constexpr index_t floor_mod_wide(wide_int a, index_t m) {
  const wide_int r = a % m;
  return static_cast<index_t>(r < 0 ? r + m : r);
}
/// The grid coordinate (of p) that a cyclic dimension starting at `start` deals index i to:
/// (i - start) mod p, without overflow when i and start lie far apart.
constexpr int cyclic_owner(index_t i, index_t start, int p) {
  index_t distance = 0;
  if (!__builtin_sub_overflow(i, start, &distance)) return static_cast<int>(floor_mod(distance, p));
  return static_cast<int>(floor_mod(floor_mod(i, p) - floor_mod(start, p), p));
}
/// The grid coordinate (of p) that a block-cyclic dimension with blocks of b from `start`
/// deals index i to: floor((i - start) / b) mod p, without overflow.
constexpr int block_cyclic_owner(index_t i, index_t start, index_t b, int p) {
  index_t distance = 0;
  if (!__builtin_sub_overflow(i, start, &distance)) return static_cast<int>(floor_mod(floor_div(distance, b), p));
  return static_cast<int>(floor_mod_wide(floor_div_wide(static_cast<wide_int>(i) - start, b), p));
}
/// A dimension specifier (a dmap::dim_spec) as text, every value included: locales compare
/// map names to check they agree.
template <class... Specs>
std::string describe(const std::variant<Specs...>& s) {
  std::ostringstream o;
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, block_dim>) o << "block";
        else if constexpr (std::is_same_v<X, cyclic_dim>) {
          o << "cyclic";
          if (x.start) o << "(start " << *x.start << ")";
        } else if constexpr (std::is_same_v<X, block_cyclic_dim>) {
          o << "block_cyclic(" << x.block_size;
          if (x.start) o << ", start " << *x.start;
          o << ")";
        } else if constexpr (std::is_same_v<X, irregular_dim>) {
          o << "irregular(";
          for (std::size_t k = 0; k < x.cuts.size(); ++k) o << (k ? ", " : "") << x.cuts[k];
          o << ")";
        } else if constexpr (std::is_same_v<X, unstructured_dim>) {
          o << "unstructured(";  // every value: locales compare names to check they agree
          for (std::size_t k = 0; k < x.lists.size(); ++k) {
            o << (k ? "; " : "");
            for (std::size_t j = 0; j < x.lists[k].size(); ++j) o << (j ? " " : "") << x.lists[k][j];
          }
          if (!x.one_to_one) o << "; not one_to_one";
          o << ")";
        } else if constexpr (std::is_same_v<X, replicated_dim>) {
          o << "replicated";
        } else {
          o << "none";
        }
      },
      s);
  return o.str();
}
}  // namespace detail

}  // namespace dmap
