"""dmap: Chapel-style distributed domains and arrays over MPI, from Python.

Run under MPI like any mpi4py program::

    mpirun -n 4 python3 -c "import dmap; ..."

Every rank is a *locale*. mpi4py starts MPI (``from mpi4py import MPI`` happens here, before
the compiled module loads); dmap attaches to ``MPI.COMM_WORLD`` when the first domain or array
is made, or to the communicator passed to ``dmap.init(comm)`` first. dmap never finalises MPI:
its own state is released at interpreter exit (an ``atexit`` handler registered after mpi4py's
import, so it runs before mpi4py finalises MPI) or by ``dmap.finalize()``.

The surface:

* maps (descriptions; a Domain reads them): :class:`Block`, :class:`Cyclic`,
  :class:`BlockCyclic`, :class:`Stencil`, :class:`Irregular`, :class:`Unstructured`,
  :class:`Hashed`;
* ``Domain(map, shape_or_bounds)`` and ``Array(domain, dtype)`` (float64, float32, int64, int32,
  complex128, bool), NumPy-style indexing and views, ``A.T`` / ``transpose`` (views), ``reshape``
  (a copy), ``B[...] = A`` between any maps, ``fill``, the reductions ``sum``, ``prod``, ``min``,
  ``max``, ``mean``, ``var``, ``std``, ``argmin``, ``argmax``, ``any``, ``all`` with ``axis`` and
  ``keepdims`` (also as ``np.sum(A, axis=0)``), element-wise operators, comparisons (bool
  arrays) and NumPy's ufuncs (staying distributed), ``np.dot`` / ``np.linalg.norm`` / ``np.allclose`` without a gather,
  ``gather`` (to root 0, as mpi4py's) and ``allgather``, ``np.asarray(A)``
  (an allgather, refused above ``gather_limit()`` bytes), ``local_blocks`` (NumPy views of dmap's
  storage), ``local_frames`` (with ghost cells), ``update_halos``, ``write_npy/read_npy``;
* constructors as NumPy's, with a ``map`` keyword (Block by default): ``empty``, ``zeros``,
  ``ones``, ``full``, ``arange``, ``linspace`` and the ``*_like`` forms; ``repr(A)`` shows the
  values as NumPy abbreviates them (not collective);
* ``here()``, ``num_locales()``, ``num_threads()``, ``barrier()``, ``init``, ``finalize``,
  ``collect``;
* protocols: ``A.__distarray__()`` (DAP 0.10), ``A.__partitioned__`` (the draft), and
  ``from_distarray(obj)`` / ``from_partitioned(obj)``, which adopt a producer's local buffers
  without copying; ``locations()``: every locale's (IP, PID) as ``__partitioned__`` writes it;
* errors: :class:`Error` and its subclasses ArgumentError, ShapeError, NotLocalError,
  OutOfBoundsError, UnsupportedError, RuntimeError, FileError, FormatError. An error in a
  collective call is raised on every locale: ``e.origin`` names the locale that raised it
  first, ``e.remote`` is True elsewhere.

Collective calls (making domains and arrays, assignments between arrays, fill, reductions,
gather, allgather, np.asarray(A), update_halos, files) must be made by every locale in the same
order.
"""

from mpi4py import MPI  # noqa: F401  (initialises MPI before dmap attaches to it)

import atexit as _atexit
import sys as _sys

from . import _dmap
from ._dmap import (  # noqa: F401
    Array,
    Domain,
    Error,
    ArgumentError,
    ShapeError,
    NotLocalError,
    OutOfBoundsError,
    UnsupportedError,
    RuntimeError,
    FileError,
    FormatError,
    init,
    started,
    here,
    num_locales,
    num_threads,
    barrier,
    gather_limit,
    set_gather_limit,
    update_halos,
    from_distarray,
    from_partitioned,
    locations,
)
from ._constructors import arange, empty, empty_like, full, full_like, linspace, ones, ones_like, zeros, zeros_like
from ._constructors import forget_result_domains as _forget_result_domains
from ._elementwise import install as _install_elementwise
from ._reductions import install as _install_reductions
from ._reshape import reshape, reshape_method as _reshape_method
from ._elementwise import where
from ._evaluate import evaluate
from ._functions import array_function as _array_function
from ._printing import array_repr as _array_repr

__all__ = [
    "Array", "Domain", "Block", "Cyclic", "BlockCyclic", "Stencil", "Irregular", "Unstructured", "Hashed",
    "Error", "ArgumentError", "ShapeError", "NotLocalError", "OutOfBoundsError", "UnsupportedError",
    "FileError", "FormatError", "init", "finalize", "started", "collect", "here", "num_locales",
    "num_threads", "barrier", "gather_limit", "set_gather_limit", "update_halos", "from_distarray",
    "from_partitioned", "locations", "empty", "zeros", "ones", "full", "arange", "linspace", "empty_like",
    "zeros_like", "ones_like", "full_like", "reshape", "where", "evaluate",
]


class Map:
    """Base of the map descriptions. A map only describes; dmap.Domain places indices with it.

    Common fields: ``grid`` (a tuple of locale counts per dimension, default: all locales
    factorised like MPI_Dims_create) and ``locales`` (the locale ids at the grid's positions in
    C order, for a subset of the locales; default: all).
    """

    kind = None

    def _fields(self):
        return {k: v for k, v in vars(self).items() if v is not None}

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._fields().items())
        return f"dmap.{type(self).__name__}({args})"

    def __eq__(self, other):
        return type(self) is type(other) and self._fields() == other._fields()

    __hash__ = None


class Block(Map):
    """One rectangular chunk per locale (Chapel's Block). ``order``: 'C' (row-major) or 'F'.
    ``row_padding``: None / 'none' (compact), 'automatic' or a number of elements per row."""

    kind = "block"

    def __init__(self, grid=None, locales=None, order="C", row_padding=None):
        self.grid, self.locales, self.order, self.row_padding = grid, locales, order, row_padding


class Cyclic(Map):
    """Index i to locale (i - start) mod p per dimension. ``start``: default the low bounds."""

    kind = "cyclic"

    def __init__(self, start=None, grid=None, locales=None, order="C"):
        self.start, self.grid, self.locales, self.order = start, grid, locales, order


class BlockCyclic(Map):
    """Blocks of ``blocks`` indices (an int, or one per dimension) dealt round robin (ScaLAPACK)."""

    kind = "block_cyclic"

    def __init__(self, blocks, start=None, grid=None, locales=None, order="C"):
        self.blocks, self.start, self.grid, self.locales, self.order = blocks, start, grid, locales, order


class Stencil(Map):
    """Block plus ``fluff`` ghost cells on both sides of every chunk (an int, or one per
    dimension); ``periodic`` (a bool, or one per dimension) wraps the ghost cells around.
    ``dmap.update_halos(A)`` refreshes them; ``A.local_frames()`` shows them."""

    kind = "stencil"

    def __init__(self, fluff=1, periodic=False, grid=None, locales=None, order="C", row_padding=None):
        self.fluff, self.periodic, self.grid, self.locales = fluff, periodic, grid, locales
        self.order, self.row_padding = order, row_padding


class Irregular(Map):
    """Explicit cut points: ``cuts[d]`` holds grid extent - 1 nondecreasing cut points of
    dimension d (in 1-D a flat list is accepted)."""

    kind = "irregular"

    def __init__(self, cuts, grid=None, locales=None, order="C"):
        self.cuts, self.grid, self.locales, self.order = cuts, grid, locales, order


class Unstructured(Map):
    """Each locale lists the global indices it stores, in storage order: ``indices`` is this
    locale's own list (shape (k,) in 1-D or (k, N)). With ``one_to_one`` no index is listed
    twice; otherwise the lowest listing locale owns it and the others hold copies."""

    kind = "unstructured"

    def __init__(self, indices, one_to_one=True):
        self.indices, self.one_to_one = indices, one_to_one

    def __eq__(self, other):
        return self is other

    __hash__ = None


class Hashed(Map):
    """A user mapper names the owner of every index.

    ``mapper(indices, num_locales)`` is called in bulk: ``indices`` is an int64 NumPy array of
    shape (k,) in 1-D, (k, N) otherwise (at most ``batch`` indices per call); it returns k
    integers in [0, num_locales). Each locale evaluates the mapper for its share of the
    indices only, once, when the domain is made. A mapper that raises or returns anything else
    (another shape, non-integers, a locale out of range) on any locale is a dmap.ArgumentError
    on every locale. ``mapper=None`` uses dmap's own hash (splitmix64 of the index).
    """

    kind = "hashed"

    def __init__(self, mapper=None, label=None, batch=1 << 20):
        self.mapper, self.label, self.batch = mapper, label, batch


class _PartitionGet:
    """The ``get`` of ``A.__partitioned__``: handles to data (not collective).

    A handle is a partition's ``data`` (a NumPy array: returned as it is) or a partition's
    position in the grid (a tuple of ints: its elements fetched from wherever the partition
    lives, a new NumPy array). A list of handles gives a list.
    """

    def __init__(self, array=None):
        self._array = array

    def __call__(self, handles):
        import numpy as np

        if isinstance(handles, list):
            return [self(h) for h in handles]
        if isinstance(handles, np.ndarray):
            return handles
        if isinstance(handles, tuple) and all(isinstance(k, (int, np.integer)) for k in handles):
            if self._array is None:
                raise ArgumentError("dmap.Array.__partitioned__['get']: an unpickled description has no array "
                                    "to fetch a position from; pass a partition's 'data'")
            return self._array._partitioned_fetch([list(handles)])[0]
        raise ArgumentError(
            f"dmap.Array.__partitioned__['get']: {handles!r} is not a handle; pass a partition's 'data' "
            "(a NumPy array), its position (a tuple of ints) or a list of those")

    def __reduce__(self):
        # The draft wants the dictionary pickle'able: the data arrays travel as copies, and the
        # unpickled get resolves them (it cannot reach the array to fetch positions).
        return (_PartitionGet, ())


def _partitioned(self):
    """This locale's ``__partitioned__`` dictionary (the draft): ``shape``, ``partition_tiling``,
    ``partitions`` (position -> ``start``, ``shape``, ``data``: a NumPy view of the local tile or
    None, ``location``: ``[(IP, PID)]``, the address of the holding locale's host and its
    process id, as ``dmap.locations()`` gives them), ``locals`` and ``get``. Not collective."""
    d = self._partitioned()
    d["get"] = _PartitionGet(self)
    return d


Array.__partitioned__ = property(_partitioned)
Array.__repr__ = _array_repr
_install_elementwise(Array)
_install_reductions(Array)
Array.reshape = _reshape_method
Array.__array_function__ = _array_function
Array.itemsize = property(lambda self: self.dtype.itemsize, doc="The bytes of one element.")
Array.nbytes = property(lambda self: self.size * self.dtype.itemsize, doc="The bytes of all elements (every locale's).")


#: When the interpreter exits because of an uncaught exception while dmap runs on more than one
#: locale, abort the MPI job (MPI.COMM_WORLD.Abort(1), as ``python -m mpi4py`` does) instead of
#: releasing dmap's state: that release, and MPI's finalisation after it, are collective, and
#: the other locales may be waiting in a collective call this locale will never make, so the
#: job would hang. An error dmap raised on every locale also ends here on every locale.
abort_on_uncaught_exception = True


def finalize():
    """Collective: releases every dmap domain and array (Python objects left over raise
    dmap.RuntimeError when used) and ends dmap's environment. MPI stays mpi4py's. Runs by itself
    at interpreter exit."""
    _forget_result_domains()
    _dmap.finalize()


def collect():
    """Collective: frees the dmap objects Python dropped on every locale now, and the arrays
    whose storage waits for reuse (dmap also frees dropped objects whenever a domain or array is
    made, keeping the newest few dropped arrays for new arrays of the same domain and dtype).
    Returns how many were freed."""
    _forget_result_domains()
    return _dmap.collect()


def _shutdown():
    uncaught = getattr(_sys, "last_exc", None) or getattr(_sys, "last_value", None)
    if uncaught is not None and abort_on_uncaught_exception and _dmap.started():
        if MPI.COMM_WORLD.Get_size() > 1:
            _sys.stderr.flush()
            MPI.COMM_WORLD.Abort(1)
    try:
        finalize()
    except Exception:  # the interpreter is going away; nothing is left to report to
        pass


# Registered after mpi4py's import: atexit runs handlers last-in first-out, so dmap's state
# (MPI windows, communicators) is released while MPI still runs.
_atexit.register(_shutdown)
