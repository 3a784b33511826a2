"""A small __partitioned__ consumer (and an SPMD producer), in pure Python.

Written from the __partitioned__ protocol draft alone, with mpi4py and NumPy and nothing of
dmap: the interop tests check dmap against it.

Consumer: ``to_global(obj, comm)`` reads any object with a ``__partitioned__`` property on
every process into the whole array, a NumPy array on every process: each process takes its
local partitions (``locals``, or the partitions whose ``location`` is this process), turns
their handles into data with ``get``, and the processes exchange them (an allgather).

Producer: ``Tiled(full, tiling, owner_of, comm)`` cuts a global NumPy array into a grid of
partitions and keeps, on each process, the partitions ``owner_of(position)`` gives it, as
NumPy arrays; ``__partitioned__`` describes them as the draft's SPMD example does (data None
where the partition lives elsewhere, location ``[(IP, PID)]``, ``get = lambda x: x``).
"""

import os
import socket

import numpy as np
from mpi4py import MPI


def here():
    """This process's location, as the draft spells it: (IP, PID), the address the host name
    resolves to (on Debian often 127.0.1.1, from /etc/hosts)."""
    return (socket.gethostbyname(socket.gethostname()), os.getpid())


def check_location(where):
    """A consumer verifies the locality information it supports: host memory only."""
    if not isinstance(where, tuple) or len(where) not in (2, 3):
        raise TypeError(f"location {where!r} is not (IP, PID[, device])")
    if len(where) == 3 and where[2] != "kDLCPU":
        raise TypeError(f"device {where[2]!r}: this consumer reads host memory")


def local_positions(p):
    """The positions of this process's partitions: `locals` (SPMD), or by location."""
    if "locals" in p:
        return [tuple(t) for t in p["locals"]]
    me = here()
    return [pos for pos, part in p["partitions"].items() if any(tuple(w[:2]) == me for w in part["location"])]


def to_global(obj, comm=MPI.COMM_WORLD):
    """Collective: the whole array `obj.__partitioned__` describes, on every process."""
    p = obj.__partitioned__
    shape, tiling = tuple(p["shape"]), tuple(p["partition_tiling"])
    if len(tiling) != len(shape):
        raise ValueError("partition_tiling and shape differ in dimensionality")
    parts = p["partitions"]
    for pos in np.ndindex(*tiling):  # every position of the grid is a key
        if pos not in parts:
            raise ValueError(f"partition {pos} is missing")
        for where in parts[pos]["location"]:
            check_location(where)
    mine = []
    for pos in local_positions(p):
        part = parts[pos]
        data = np.asarray(p["get"](part["data"]))
        if data.shape != tuple(part["shape"]):
            raise ValueError(f"partition {pos}: data of shape {data.shape}, 'shape' says {part['shape']}")
        mine.append((tuple(part["start"]), data.copy()))
    everything = comm.allgather(mine)
    kinds = [d.dtype for got in everything for _, d in got]
    dtype = kinds[0] if kinds else np.float64
    out = np.zeros(shape, dtype=dtype)
    seen = np.zeros(shape, dtype=np.int64)
    for got in everything:
        for start, d in got:
            sl = tuple(slice(s, s + n) for s, n in zip(start, d.shape))
            out[sl] = d
            seen[sl] += 1
    if shape and not (seen >= 1).all():
        raise ValueError("the partitions do not cover the array")
    return out


class Tiled:
    """An SPMD producer: a grid of partitions of `full`, each on the process `owner_of(pos)`."""

    def __init__(self, full, tiling, owner_of, comm=MPI.COMM_WORLD, cuts=None, order="C"):
        full = np.asarray(full)
        self.shape, self.tiling = full.shape, tuple(tiling)
        self.comm = comm
        locations = comm.allgather(here())
        bounds = []
        for i, (n, t) in enumerate(zip(full.shape, self.tiling)):
            if cuts and cuts[i]:
                edges = [0, *cuts[i], n]
            else:
                base, extra = divmod(n, t)
                edges = [0]
                for k in range(t):
                    edges.append(edges[-1] + base + (1 if k < extra else 0))
            bounds.append(edges)
        self.partitions, self.locals = {}, []
        for pos in np.ndindex(*self.tiling):
            start = tuple(bounds[i][k] for i, k in enumerate(pos))
            stop = tuple(bounds[i][k + 1] for i, k in enumerate(pos))
            owner = owner_of(pos)
            data = None
            if owner == comm.rank:
                data = np.array(full[tuple(slice(a, b) for a, b in zip(start, stop))], order=order, copy=True)
                self.locals.append(pos)
            self.partitions[pos] = {"start": start, "shape": tuple(b - a for a, b in zip(start, stop)),
                                    "data": data, "location": [locations[owner]]}

    @property
    def __partitioned__(self):
        return {"shape": self.shape, "partition_tiling": self.tiling, "partitions": self.partitions,
                "get": lambda x: x, "locals": list(self.locals)}
