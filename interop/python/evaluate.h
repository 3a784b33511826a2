// dmap._dmap._evaluate_blocks: the compiled pass of dmap.evaluate (interop/python/dmap/
// _evaluate.py): an element-wise expression run over each locale's blocks in one pass.
#pragma once

#include "common.h"

namespace dmap::python {

/// Adds `_evaluate_blocks` to the module.
void register_evaluate(py::module_& m);

}  // namespace dmap::python
