// dmap: Chapel-style domain maps in C++20. One include for the whole library.
#pragma once

#include "runtime/agreement.hpp"
#include "runtime/collectives.hpp"
#include "runtime/counters.hpp"
#include "runtime/environment.hpp"
#include "runtime/errors.hpp"
#include "runtime/grid.hpp"

#include "dsi/array.hpp"
#include "dsi/concepts.hpp"
#include "dsi/directory.hpp"
#include "dsi/domain.hpp"
#include "dsi/local_domain.hpp"
#include "dsi/locator.hpp"
#include "dsi/range.hpp"
#include "dsi/rect.hpp"

#include "layouts/dense_layout.hpp"

#include "dists/block.hpp"
#include "dists/block_cyclic.hpp"
#include "dists/cyclic.hpp"
#include "dists/dimensional.hpp"
#include "dists/hashed.hpp"
#include "dists/irregular.hpp"
#include "dists/private.hpp"
#include "dists/replicated.hpp"
#include "dists/stencil.hpp"
#include "dists/unstructured.hpp"

#include "interop/dap.hpp"

#include "iterators/forall.hpp"
#include "iterators/reduce.hpp"
#include "iterators/views.hpp"
#include "iterators/zip.hpp"
