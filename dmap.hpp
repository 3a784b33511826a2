// dmap: Chapel-style domain maps in C++20. One include for the whole library; each header
// below is one idea of the public vocabulary (machinery lives in the detail/ subfolders).
#pragma once

#include "runtime/agreement.hpp"
#include "runtime/collectives.hpp"
#include "runtime/counters.hpp"
#include "runtime/environment.hpp"
#include "runtime/errors.hpp"
#include "runtime/grid.hpp"

#include "dsi/array.hpp"
#include "dsi/associative_array.hpp"
#include "dsi/associative_domain.hpp"
#include "dsi/associative_key.hpp"
#include "dsi/array_view.hpp"
#include "dsi/concepts.hpp"
#include "dsi/domain.hpp"
#include "dsi/element_ref.hpp"
#include "dsi/foreign_buffer.hpp"
#include "dsi/index.hpp"
#include "dsi/layout.hpp"
#include "dsi/local_domain.hpp"
#include "dsi/local_layout.hpp"
#include "dsi/sparse_array.hpp"
#include "dsi/sparse_domain.hpp"
#include "dsi/sparse_layout.hpp"
#include "dsi/range.hpp"
#include "dsi/rect.hpp"
#include "dsi/strided_span.hpp"

#include "layouts/compressed_layout.hpp"
#include "layouts/coo_layout.hpp"
#include "layouts/dense_order_layout.hpp"
#include "layouts/framed_layout.hpp"
#include "layouts/product_layout.hpp"
#include "layouts/tiled_layout.hpp"

#include "dists/block.hpp"
#include "dists/block_cyclic.hpp"
#include "dists/cyclic.hpp"
#include "dists/dimensional.hpp"
#include "dists/hashed.hpp"
#include "dists/irregular.hpp"
#include "dists/private.hpp"
#include "dists/replicated.hpp"
#include "dists/padded.hpp"
#include "dists/stencil.hpp"
#include "dists/unstructured.hpp"

#include "iterators/associative_loops.hpp"
#include "iterators/concepts.hpp"
#include "iterators/forall.hpp"
#include "iterators/neighbors.hpp"
#include "iterators/reduce.hpp"
#include "iterators/sparse_loops.hpp"
#include "iterators/views.hpp"
#include "iterators/zip.hpp"

#include "algorithms/copies.hpp"
#include "algorithms/halos.hpp"
#include "algorithms/sort.hpp"
#include "algorithms/spmv.hpp"

#include "interop/dap.hpp"
#include "interop/dap_export.hpp"
#include "interop/dap_import.hpp"
#include "interop/partitioned.hpp"

/// \namespace dmap
/// The whole public vocabulary of dmap: locales, index sets, domains and arrays, distributions,
/// parallel loops and whole-array operations (the main page groups them).
