"""A small Distributed Array Protocol (DAP 0.10) producer and consumer, in pure Python.

Written from the DAP 0.10 document alone (sections 1.5-1.6 and examples 2.1-2.12), with
mpi4py and NumPy, and nothing of dmap: the interop tests check dmap against it.

Producer: ``Producer(buffer, dim_data)`` is an object with ``__distarray__()``; ``distribute``
cuts a global NumPy array into this process's local buffer for block ('b', regular, irregular
or padded), cyclic / block-cyclic ('c') and unstructured ('u') dimensions over a process grid
in C order; ``example(name, comm)`` makes the arrays of the document's examples.

Consumer: ``to_global(obj, comm)`` reads any object with ``__distarray__()`` on every process
into the whole array, as a NumPy array on every process (an allgather over mpi4py);
``check_dim(dim, extent)`` checks one dimension dictionary against the document's rules as
written (1.6.1-1.6.2: ``start >= 0``, ``stop <= size``, ``stop - start == buffer.shape`` ...);
``num_owned_indices(dim)`` is the appendix's.
"""

import numpy as np
from mpi4py import MPI

VERSION = "0.10.0"


class Producer:
    """A process's section of a distributed array: its buffer and dimension dictionaries."""

    def __init__(self, buffer, dim_data, version=VERSION):
        self.buffer = buffer
        self.dim_data = tuple(dim_data)
        self.version = version

    def __distarray__(self):
        # 'buffer': a PEP 3118 object holding the local section (a memoryview of ours: no copy).
        return {"__version__": self.version, "buffer": memoryview(self.buffer), "dim_data": self.dim_data}


# ---------------------------------------------------------------------------- grid
def grid_coords(rank, grid):
    """The process grid coordinate of `rank`, C order (1.4: the last index varies fastest)."""
    coords = []
    for g in reversed(grid):
        coords.append(rank % g)
        rank //= g
    return tuple(reversed(coords))


def even_cuts(size, parts):
    """[lo, hi) per grid rank of an evenly distributed block dimension (the first ones longer)."""
    base, extra = divmod(size, parts)
    cuts, lo = [], 0
    for r in range(parts):
        hi = lo + base + (1 if r < extra else 0)
        cuts.append((lo, hi))
        lo = hi
    return cuts


# ---------------------------------------------------------------------------- dimension dictionaries
def block_dim(size, grid_size, grid_rank, bounds=None, padding=(0, 0)):
    """A 'b' dictionary: owned positions `bounds` (default: even cuts); `padding` (before, after)
    is boundary padding on the edge grid ranks (counted in size, inside the owned positions)
    and communication padding elsewhere (reaching into the neighbour, 0.10: inside start/stop)."""
    lo, hi = bounds if bounds is not None else even_cuts(size, grid_size)[grid_rank]
    before = padding[0] if grid_rank > 0 else 0  # communication padding before
    after = padding[1] if grid_rank < grid_size - 1 else 0
    d = {"dist_type": "b", "size": size, "proc_grid_size": grid_size, "proc_grid_rank": grid_rank,
         "start": lo - before, "stop": hi + after}
    if padding != (0, 0):
        d["padding"] = tuple(padding)
    return d


def cyclic_dim(size, grid_size, grid_rank, block_size=1):
    """A 'c' dictionary (block_size 1: cyclic; more: block-cyclic)."""
    d = {"dist_type": "c", "size": size, "proc_grid_size": grid_size, "proc_grid_rank": grid_rank,
         "start": grid_rank * block_size}
    if block_size != 1:
        d["block_size"] = block_size
    return d


def unstructured_dim(size, grid_size, grid_rank, indices, one_to_one=None):
    """A 'u' dictionary over this process's `indices`."""
    d = {"dist_type": "u", "size": size, "proc_grid_size": grid_size, "proc_grid_rank": grid_rank,
         "indices": np.asarray(indices, dtype=np.int64)}
    if one_to_one is not None:
        d["one_to_one"] = one_to_one
    return d


# ---------------------------------------------------------------------------- reading a dictionary
def check_dim(dim, extent):
    """Raises ValueError when a dimension dictionary breaks a rule of 1.6 as written (a strict
    reader): the common keys, 'b' 0 <= start <= stop <= size with stop - start the buffer's
    extent and padding >= 0, 'c' start >= 0 and block_size >= 1, 'u' one index per element."""
    if not dim:
        return
    for key in ("dist_type", "size", "proc_grid_size", "proc_grid_rank"):
        if key not in dim:
            raise ValueError(f"{key!r} is missing")
    if dim["size"] < 0 or dim["proc_grid_size"] < 1 or not 0 <= dim["proc_grid_rank"] < dim["proc_grid_size"]:
        raise ValueError(f"common keys out of range: {dim}")
    kind = dim["dist_type"]
    if kind == "b":
        start, stop = dim["start"], dim["stop"]
        if start < 0 or stop < start or stop > dim["size"] or stop - start != extent:
            raise ValueError(f"'b': start {start}, stop {stop}, size {dim['size']}, buffer extent {extent}")
        if any(w < 0 for w in dim.get("padding", (0, 0))):
            raise ValueError(f"'b': padding {dim['padding']}")
    elif kind == "c":
        if dim["start"] < 0 or dim.get("block_size", 1) < 1:
            raise ValueError(f"'c': start {dim['start']}, block_size {dim.get('block_size', 1)}")
    elif kind == "u":
        if len(dim["indices"]) != extent:
            raise ValueError(f"'u': {len(dim['indices'])} indices, buffer extent {extent}")
    else:
        raise ValueError(f"dist_type {kind!r} is not 'b', 'c' or 'u'")


def num_owned_indices(dim):
    """The appendix's num_owned_indices: 'b' the buffer less communication padding (the
    first grid rank's padding before and the last one's after are boundary padding, counted)."""
    kind = dim["dist_type"]
    if kind == "b":
        count = dim["stop"] - dim["start"]
        before, after = dim.get("padding", (0, 0))
        if dim["proc_grid_rank"] != 0:
            count -= before
        if dim["proc_grid_rank"] != dim["proc_grid_size"] - 1:
            count -= after
        return count
    if kind == "c":
        bs, p, r = dim.get("block_size", 1), dim["proc_grid_size"], dim["proc_grid_rank"]
        return sum(1 for i in range(dim["size"]) if (i // bs) % p == r)
    return len(dim["indices"])


def buffer_positions(dim, extent):
    """The global position of each buffer element along one dimension, and which of them this
    process owns (communication padding is owned by the neighbour), per 1.6 and the
    appendix: boundary padding (the first grid rank's before, the last one's after) is the
    array's own, periodic or not (a periodic dimension's boundary cells hold wrapped values)."""
    if not dim:  # 1.6.3: the empty dictionary, an undistributed dimension
        return np.arange(extent), np.ones(extent, bool)
    kind = dim["dist_type"]
    if kind == "b":
        start, stop = dim["start"], dim["stop"]
        if stop - start != extent:
            raise ValueError(f"'b': stop - start = {stop - start} but buffer.shape = {extent}")
        before, after = dim.get("padding", (0, 0))
        r, p = dim["proc_grid_rank"], dim["proc_grid_size"]
        positions = np.arange(start, stop)
        owned = np.ones(extent, bool)
        if r > 0:
            owned[:before] = False
        if r < p - 1:
            owned[extent - after:] = False
        return positions, owned
    if kind == "c":
        bs, p, start = dim.get("block_size", 1), dim["proc_grid_size"], dim["start"]
        k = np.arange(extent)
        positions = start + (k // bs) * p * bs + k % bs
        if extent and positions[-1] >= dim["size"]:
            raise ValueError("'c': the buffer holds more elements than the dimension deals this process")
        return positions, np.ones(extent, bool)
    if kind == "u":
        indices = np.asarray(dim["indices"], dtype=np.int64)
        if len(indices) != extent:
            raise ValueError(f"'u': {len(indices)} indices but buffer.shape = {extent}")
        return indices, np.ones(extent, bool)
    if kind == "n":  # DAP 0.9's undistributed dimension
        return np.arange(extent), np.ones(extent, bool)
    raise ValueError(f"dist_type {kind!r} is not 'b', 'c' or 'u'")


def to_global(obj, comm=MPI.COMM_WORLD):
    """Collective: the whole array `obj` describes on every process (`obj.__distarray__()`)."""
    d = obj.__distarray__()
    version = d["__version__"]
    major, minor, _ = (int(x) for x in version.split("."))
    if (major, minor) != (0, 10):
        raise ValueError(f"DAP version {version}: this consumer reads 0.10")
    buf = np.asarray(d["buffer"])
    dims = d["dim_data"]
    if len(dims) != buf.ndim:
        raise ValueError("dim_data and buffer dimensions differ")
    shape = tuple(dim["size"] if dim else buf.shape[i] for i, dim in enumerate(dims))
    local, glob = [], []
    for i, dim in enumerate(dims):
        check_dim(dim, buf.shape[i])
        positions, owned = buffer_positions(dim, buf.shape[i])
        local.append(np.nonzero(owned)[0])
        glob.append(positions[owned])
    part = buf[np.ix_(*local)].copy() if buf.ndim else buf.copy()
    out = np.zeros(shape, dtype=buf.dtype)
    for g, p in comm.allgather((glob, part)):
        if p.size:
            out[np.ix_(*g)] = p
    return out


# ---------------------------------------------------------------------------- producing
def distribute(full, kinds, comm=MPI.COMM_WORLD, grid=None, block_size=1, padding=0, cuts=None, indices=None,
               order="C"):
    """Collective-free: this process's Producer of the NumPy array `full`, each dimension of
    kind 'b', 'c' or 'u' over a process grid (default MPI.Compute_dims). `padding` (int, 'b'
    dimensions) pads every block on both sides; `cuts[i]` gives the [lo, hi) per grid rank of
    an irregular 'b' dimension; `indices[i]` the per-grid-rank lists of a 'u' dimension;
    `order` 'F' stores the local buffer column-major."""
    full = np.asarray(full)
    grid = tuple(grid) if grid is not None else tuple(MPI.Compute_dims(comm.size, full.ndim))
    coords = grid_coords(comm.rank, grid)
    dims, positions = [], []
    for i, kind in enumerate(kinds):
        n, p, r = full.shape[i], grid[i], coords[i]
        if kind == "b":
            bounds = cuts[i][r] if cuts and cuts[i] else None
            d = block_dim(n, p, r, bounds, (padding, padding))
            pos = np.arange(d["start"], d["stop"])
        elif kind == "c":
            d = cyclic_dim(n, p, r, block_size)
            k = np.arange(n)
            pos = k[((k // block_size) % p) == r]  # the blocks dealt round robin to grid rank r
        elif kind == "u":
            lists = indices[i] if indices and indices[i] is not None else [list(range(n))[j::p] for j in range(p)]
            d = unstructured_dim(n, p, r, lists[r], one_to_one=True)
            pos = np.asarray(lists[r], dtype=np.int64)
        else:
            raise ValueError(kind)
        dims.append(d)
        positions.append(pos)
    # Boundary padding lies inside [0, size): its values are the array's own.
    local = full[np.ix_(*[np.clip(p, 0, full.shape[i] - 1) for i, p in enumerate(positions)])]
    buffer = np.array(local, order=order, copy=True)
    return Producer(buffer, dims)


def example(name, comm=MPI.COMM_WORLD):
    """The document's example `name` ('2.1' .. '2.12') on `comm`: (full array, this process's
    Producer), or None when the example needs another number of processes. 2.12 (8
    processes in the document) runs over a (2, 2, 1) grid of 4."""
    p = comm.size
    full59 = np.arange(45.0).reshape(5, 9)
    if name == "2.1" and p == 2:
        full = np.round(np.linspace(0.0, 1.0, 20), 2).reshape(2, 10)
        return full, distribute(full, "bb", comm, grid=(2, 1))
    if name == "2.2" and p == 2:
        full = np.arange(18.0) / 10
        return full, distribute(full, "b", comm, grid=(2,), padding=1)
    if name == "2.3" and p == 3:
        lists = [[19, 1, 0, 12, 2, 15, 4], [6, 13, 3],
                 [10, 25, 5, 21, 7, 18, 11, 26, 29, 24, 23, 28, 14, 20, 9, 16, 27, 8, 17, 22]]
        full = np.arange(30.0) / 10
        prod = distribute(full, "u", comm, grid=(3,), indices=[lists])
        prod.dim_data[0].pop("one_to_one")  # as in the document
        return full, prod
    if name == "2.4" and p == 3:
        return full59, distribute(full59, "bb", comm, grid=(3, 1))
    if name == "2.5" and p == 3:
        return full59, distribute(full59, "bb", comm, grid=(1, 3))
    if name == "2.6" and p == 4:
        return full59, distribute(full59, "bb", comm, grid=(2, 2))
    if name == "2.7" and p == 4:
        return full59, distribute(full59, "bc", comm, grid=(2, 2))
    if name == "2.8" and p == 4:
        return full59, distribute(full59, "cc", comm, grid=(2, 2))
    if name == "2.9" and p == 4:
        return full59, distribute(full59, "bb", comm, grid=(2, 2), cuts=[[(0, 1), (1, 5)], [(0, 2), (2, 9)]])
    if name == "2.10" and p == 4:
        return full59, distribute(full59, "cc", comm, grid=(2, 2), block_size=2)
    if name == "2.11" and p == 4:
        return full59, distribute(full59, "uu", comm, grid=(2, 2),
                                  indices=[[[3, 0], [4, 2, 1]], [[2, 3, 7, 1], [6, 5, 8, 0, 4]]])
    if name == "2.12" and p == 4:
        full = np.arange(135.0).reshape(5, 9, 3)
        return full, distribute(full, "cbc", comm, grid=(2, 2, 1))
    return None


EXAMPLES = ["2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10", "2.11", "2.12"]
