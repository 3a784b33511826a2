// The machinery behind reduce.hpp (not part of the API): identity_transform, reduce_row.
#pragma once

#include <exception>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../concepts.hpp"
#include "combine_partials.hpp"
#include "engine.hpp"

namespace dmap::detail {

/// Passes a single element through unchanged.
struct identity_transform {
  template <class U>
  constexpr decltype(auto) operator()(U&& u) const { return std::forward<U>(u); }
};

template <class T, class Op, class Transform, class... Rows>
inline void reduce_row(T& acc_ref, bool& has, Op& op, Transform& tr, index_t length,
                       const Rows&... rows) {
  if (length == 0) return;
  // Inlined at every use: left to itself GCC makes it a call per element when the transform
  // writes (a reduce over zip(x, r, p, q) ran 1.6x as long as the plain loop).
  const auto value = [&](index_t k) __attribute__((always_inline)) { return static_cast<T>(tr(rows.unit(k)...)); };
  if ((rows.contiguous() && ...) && length >= 8) {
    // Four independent accumulators (positions k mod 4), combined pairwise at the end of
    // the row: no dependency chain between neighbours, and the compiler vectorises them.
    T a0 = value(0), a1 = value(1), a2 = value(2), a3 = value(3);
    index_t k = 4;
    for (; k + 4 <= length; k += 4) {
      a0 = op(a0, value(k));
      a1 = op(a1, value(k + 1));
      a2 = op(a2, value(k + 2));
      a3 = op(a3, value(k + 3));
    }
    T acc = op(op(a0, a1), op(a2, a3));
    for (; k < length; ++k) acc = op(acc, value(k));
    acc_ref = has ? op(acc_ref, acc) : acc;
  } else {
    index_t k = 0;
    T acc = has ? acc_ref : static_cast<T>(tr(rows.at(0)...));
    if (!has) k = 1;
    for (; k < length; ++k) acc = op(acc, static_cast<T>(tr(rows.at(k)...)));
    acc_ref = acc;
  }
  has = true;
}

}  // namespace dmap::detail
