// The Python protocols of dmap arrays: DAP 0.10 (`__distarray__`,
// dmap.from_distarray) and __partitioned__ (`A.__partitioned__`, dmap.from_partitioned).
// The dictionaries are read here, checked on every locale (a description wrong on one locale
// fails on all) and handed to the typed importers (array_<dtype>.cpp: dmap::dap_import,
// dmap::partitioned_import), which adopt the producer's buffers without copying.
#pragma once

#include <memory>

#include "array.h"

namespace dmap::python {

/// Collective: an array adopting the buffers `obj` describes: an object with a
/// `__distarray__()` method, or the DAP dictionary itself.
std::shared_ptr<array_handle> from_distarray(py::handle obj);
/// Collective: an array adopting the local partitions `obj` describes: an object with a
/// `__partitioned__` attribute, or the dictionary itself.
std::shared_ptr<array_handle> from_partitioned(py::handle obj);

/// The draft's location of every locale, (IP, PID), indexed by locale: the address of its
/// host (dmap::process_location::address()) and its process id, computed once per dmap
/// environment by a collective call (make_array and the imports make it), then read without
/// messages.
py::list locations();
/// Collective on the first call after dmap starts: computes the table locations() reads.
void ensure_locations();

}  // namespace dmap::python
