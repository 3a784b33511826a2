// dmap's core: what most programs over rectangular index sets use, cheaper to compile than
// the whole library (dmap.hpp): the environment and collectives, rectangular domains and
// arrays with their views, the distributions given by formulas (Block, Cyclic, BlockCyclic,
// Dimensional, Irregular), and forall, zip, reduce and the serial views.
#pragma once

#include "runtime/collectives.hpp"
#include "runtime/counters.hpp"
#include "runtime/environment.hpp"
#include "runtime/errors.hpp"
#include "runtime/grid.hpp"
#include "dsi/array.hpp"
#include "dsi/array_view.hpp"
#include "dsi/domain.hpp"
#include "dsi/index.hpp"
#include "dsi/range.hpp"
#include "dsi/rect.hpp"
#include "dists/block.hpp"
#include "dists/block_cyclic.hpp"
#include "dists/cyclic.hpp"
#include "dists/dimensional.hpp"
#include "dists/irregular.hpp"
#include "iterators/forall.hpp"
#include "iterators/reduce.hpp"
#include "iterators/views.hpp"
#include "iterators/zip.hpp"
