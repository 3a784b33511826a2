// Sparse matrix times vector: y = A x for a 2-D sparse array A (rows are dimension 0 of its
// indices, columns dimension 1) and 1-D dense arrays x and y of any maps. PETSc's MatMult
// over dmap's placements: a plan, built once per (A's index set, x's placement, y's
// placement) and kept on A's sparse domain, says which x values each locale needs from
// which owner and where each product term lands; a product then moves exactly the distinct
// remote x values a locale needs, one message per owner, and the partial row sums of rows
// whose y element lives elsewhere, one message per y owner.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../dsi/array.hpp"
#include "../dsi/detail/access.hpp"
#include "../dsi/detail/plan_cache.hpp"
#include "../dsi/sparse_array.hpp"
#include "../dsi/sparse_domain.hpp"
#include "../runtime/agreement.hpp"
#include "../runtime/collectives.hpp"
#include "../runtime/detail/byte_exchange.hpp"
#include "../runtime/detail/buffers.hpp"
#include "../runtime/detail/messages.hpp"
#include "../runtime/detail/tasks.hpp"
#include "detail/spmv.hpp"

namespace dmap {

/// Collective: y = A x, with A a 2-D sparse array read as a matrix (an index (r, c) of its
/// domain is the nonzero of row r and column c; rows and columns numbered by their positions
/// in the parent's dimensions 0 and 1), x holding one element per column and y one per row
/// (any 1-D index sets of those lengths, any maps: the k-th index of x's domain is column k).
/// Rows without nonzeros get T{}. Each product moves the distinct x values a locale needs
/// from each other locale in one message per owner, and the partial sums of rows whose y
/// element lives on another locale in one message per owner of y; the plan is built on the
/// first product and kept on A's sparse domain until its index set or x's or y's domain
/// changes (plan_statistics() counts builds and reuses). Throws shape_error when x's length
/// is not the number of columns or y's not the number of rows, argument_error when y is x
/// (or an array was moved from, or x and y share an adopted buffer on some locale),
/// unsupported_error when y's map keeps copies (Replicated), on every locale: each check reads
/// only what every locale holds alike (the domains' index sets, the identity of arrays created
/// collectively), so every locale reaches the same verdict without a message, as for `A = B`;
/// the one exception, whether adopted buffers overlap, is agreed (one all-reduce, only when x
/// or y adopted its buffer). A product of arrays with storage of their own thus makes no
/// collective call once its plan is built (building the plan agrees on failure).
template <class T>
void multiply(const sparse_array<T, 2>& a, const array<T, 1>& x, array<T, 1>& y) {
  const detail::collective_scope scope;
  const char* who = "dmap::multiply";
  {
    detail::check_array_live(x, who, "x must be an array");
    detail::check_array_live(y, who, "y must be an array");
    const auto& parent = a.domain().parent();
    const index_t rows = parent.dim(0).size(), cols = parent.dim(1).size();
    if (x.domain().size() != cols) {
      std::ostringstream m;
      m << who << ": x over " << x.domain().indices() << " has " << x.domain().size() << " elements but A over "
        << parent.indices() << " has " << cols << " columns (dimension 1 of its parent); x needs one element per column";
      throw shape_error(m.str());
    }
    if (y.domain().size() != rows) {
      std::ostringstream m;
      m << who << ": y over " << y.domain().indices() << " has " << y.domain().size() << " elements but A over "
        << parent.indices() << " has " << rows << " rows (dimension 0 of its parent); y needs one element per row";
      throw shape_error(m.str());
    }
    if (detail::state_of(y.domain())->layers)
      throw unsupported_error(std::string(who) + ": y over " + y.domain().name() +
                              " keeps copies of its elements; y must be over a map that places each index once "
                              "(x may keep copies)");
    const std::string aliased = std::string(who) +
                                ": y is x (the same array, or arrays sharing an adopted buffer); the product needs x "
                                "unchanged while y is written, so y must be another array with storage of its own";
    if (&x == &y) throw argument_error(aliased);
    // Only an adopted buffer can be shared by two arrays. Whether the buffers overlap is seen
    // only where a locale stores elements, so the verdict is agreed (one all-reduce, for
    // adopted arrays only: the products of arrays with storage of their own stay free of
    // collective calls).
    if (x.adopted() || y.adopted())
      agreed([&] {
        const index_t xs = detail::state_of(x.domain())->storage_size, ys = detail::state_of(y.domain())->storage_size;
        const std::less<const T*> before;
        const T* xp = x.local_data();
        const T* yp = y.local_data();
        if (xs > 0 && ys > 0 && before(xp, yp + ys) && before(yp, xp + xs)) throw argument_error(aliased);
      });
  }
  const auto plan = detail::cached_spmv_plan(a.domain(), x.domain(), y.domain());
  detail::run_spmv<T>(*plan, a.local_values(), x.local_data(), y.local_data());
}

}  // namespace dmap
