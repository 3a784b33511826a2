// dmap: Chapel-style domain maps in C++20. One include for the whole library: core.hpp (what
// most programs over rectangular index sets use) and the rest; each header is one idea of the
// public vocabulary (machinery lives in the detail/ subfolders).
#pragma once

#include "core.hpp"
#include "runtime/agreement.hpp"

#include "dsi/array_traits.hpp"
#include "dsi/associative_array.hpp"
#include "dsi/associative_domain.hpp"
#include "dsi/associative_key.hpp"
#include "dsi/concepts.hpp"
#include "dsi/element_ref.hpp"
#include "dsi/foreign_buffer.hpp"
#include "dsi/layout.hpp"
#include "dsi/local_domain.hpp"
#include "dsi/local_layout.hpp"
#include "dsi/sparse_array.hpp"
#include "dsi/sparse_domain.hpp"
#include "dsi/sparse_layout.hpp"
#include "dsi/strided_span.hpp"

#include "layouts/compressed_layout.hpp"
#include "layouts/coo_layout.hpp"
#include "layouts/dense_order_layout.hpp"
#include "layouts/framed_layout.hpp"
#include "layouts/product_layout.hpp"
#include "layouts/tiled_layout.hpp"

#include "dists/hashed.hpp"
#include "dists/private.hpp"
#include "dists/replicated.hpp"
#include "dists/padded.hpp"
#include "dists/stencil.hpp"
#include "dists/unstructured.hpp"

#include "iterators/associative_loops.hpp"
#include "iterators/concepts.hpp"
#include "iterators/neighbors.hpp"
#include "iterators/sparse_loops.hpp"

#include "algorithms/aggregation.hpp"
#include "algorithms/copies.hpp"
#include "algorithms/halos.hpp"
#include "algorithms/locations.hpp"
#include "algorithms/partial_reduce.hpp"
#include "algorithms/reverse_halos.hpp"
#include "algorithms/scan.hpp"
#include "algorithms/sort.hpp"
#include "algorithms/spmv.hpp"
#include "io/npy.hpp"

#include "interop/dap.hpp"
#include "interop/dap_export.hpp"
#include "interop/dap_import.hpp"
#include "interop/partitioned.hpp"

/// \namespace dmap
/// The whole public vocabulary of dmap: locales, index sets, domains and arrays, distributions,
/// parallel loops and whole-array operations (the main page groups them).
