"""The protocols against code not written for dmap: DAP 0.10 (`__distarray__`,
dmap.from_distarray) and __partitioned__ (`A.__partitioned__`, dmap.from_partitioned), read and
written by the pure-Python references dap_reference.py and partitioned_reference.py (written
from the DAP 0.10 document and the __partitioned__ draft alone), element by element."""

import gc
import os
import socket

import numpy as np
import pytest
from mpi4py import MPI

import dap_reference as dap
import dmap
import partitioned_reference as part
from conftest import check, check_equal, raises_everywhere
from maps import maps

COMM = MPI.COMM_WORLD
SHAPES = {1: (23,), 2: (7, 9), 3: (5, 4, 6)}
DAP_MAPS = ["block", "block_F", "cyclic", "blockcyclic", "stencil", "stencil_periodic", "irregular"]


def full_of(shape, dtype="float64"):
    base = np.arange(int(np.prod(shape))).reshape(shape)
    if np.dtype(dtype).kind == "c":
        return (base + 0.5j * base).astype(dtype)
    if np.dtype(dtype).kind == "f":
        return (base * 0.25 - 3).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return base % 3 == 1
    return (base * 3 - 7).astype(dtype)


def is_ip_address(text):
    """True when `text` is an IPv4 or IPv6 address in textual form (socket.inet_pton)."""
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, text)
            return True
        except OSError:
            pass
    return False


def boundary_trim(dim_data):
    """The slices that drop boundary padding (counted in DAP 0.10's size, a periodic
    dimension's edge padding too) from a consumer's result."""
    everyone = COMM.allgather(dim_data)
    out = []
    for i, dim in enumerate(dim_data):
        if dim.get("dist_type") != "b":
            out.append(slice(None))
            continue
        first = [d[i] for d in everyone if d[i]["proc_grid_rank"] == 0][0]
        last = [d[i] for d in everyone if d[i]["proc_grid_rank"] == d[i]["proc_grid_size"] - 1][0]
        lo, hi = first.get("padding", (0, 0))[0], last.get("padding", (0, 0))[1]
        out.append(slice(lo, dim["size"] - hi))
    return tuple(out)


# ---------------------------------------------------------------------------- dmap -> DAP consumer
@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("name", DAP_MAPS)
def test_distarray_read_by_reference_consumer(name, ndim):
    shape = SHAPES[ndim]
    A = dmap.Array(dmap.Domain(maps(shape)[name], shape), "float64")
    full = full_of(shape)
    A[...] = full
    if name.startswith("stencil"):
        dmap.update_halos(A)
    d = A.__distarray__()
    check(d["__version__"] == "0.10.0" and set(d) == {"__version__", "buffer", "dim_data"})
    check(isinstance(d["dim_data"], tuple) and len(d["dim_data"]) == ndim)
    # A strict DAP 0.10 reader takes every dictionary (periodic ones too: 0 <= start <= stop
    # <= size), and the appendix's owned counts of a grid line give size.
    buf = np.asarray(d["buffer"])
    for i, dim in enumerate(d["dim_data"]):
        dap.check_dim(dim, buf.shape[i])
    kinds = {"cyclic": "c", "blockcyclic": "c"}
    check(all(dim["dist_type"] == kinds.get(name, "b") for dim in d["dim_data"]), f"{name}: dist_type")
    everyone = COMM.allgather(d["dim_data"])
    for i, dim in enumerate(d["dim_data"]):
        line = [e for e in everyone if all(e[j]["proc_grid_rank"] == 0 for j in range(ndim) if j != i)]
        check(sum(dap.num_owned_indices(e[i]) for e in line) == dim["size"], f"{name}: owned counts of dimension {i}")
    got = dap.to_global(A)
    check_equal(got[boundary_trim(d["dim_data"])], full, f"{name}: the reference consumer's array")
    # The buffer is the local storage itself: no copy.
    blocks = A.local_blocks()
    if blocks and blocks[0].size:
        check(np.shares_memory(np.asarray(d["buffer"]), blocks[0]), "buffer shares dmap's storage")
    else:
        check(True)


@pytest.mark.parametrize("name", ["unstructured", "hashed", "hashed_default"])
def test_distarray_unstructured_1d(name):
    shape = (29,)
    A = dmap.Array(dmap.Domain(maps(shape)[name], shape), "int64")
    full = full_of(shape, "int64")
    A[...] = full
    d = A.__distarray__()
    check(d["dim_data"][0]["dist_type"] == "u")
    check_equal(dap.to_global(A), full, name)


@pytest.mark.parametrize("dtype", ["float32", "int32", "complex128", "bool"])
def test_distarray_dtypes(dtype):
    shape = (6, 5)
    A = dmap.Array(dmap.Domain(dmap.Block(), shape), dtype)
    A[...] = full_of(shape, dtype)
    check(np.asarray(A.__distarray__()["buffer"]).dtype == np.dtype(dtype))
    check_equal(dap.to_global(A), full_of(shape, dtype), dtype)


def test_distarray_buffer_writes_through():
    A = dmap.Array(dmap.Domain(dmap.Block(), (8, 6)), "float64")
    buf = np.asarray(A.__distarray__()["buffer"])
    buf[...] = dmap.here() + 1
    want = np.array([[A.domain.locale_of((i, j)) + 1.0 for j in range(6)] for i in range(8)])
    check_equal(A.allgather(), want, "each locale's writes through its DAP buffer")


def test_distarray_unsupported_everywhere():
    A = dmap.Array(dmap.Domain(dmap.Block(), (6, 6)), "float64")
    raises_everywhere(dmap.UnsupportedError, lambda: A[1:4, :].__distarray__())
    H = dmap.Array(dmap.Domain(dmap.Hashed(), (6, 6)), "float64")
    raises_everywhere(dmap.UnsupportedError, H.__distarray__)


# ---------------------------------------------------------------------------- DAP producer -> dmap
CASES = {
    "b": dict(kinds="b", shape=(23,)),
    "c": dict(kinds="c", shape=(23,)),
    "u": dict(kinds="u", shape=(23,)),
    "bb": dict(kinds="bb", shape=(7, 9)),
    "bb_F": dict(kinds="bb", shape=(7, 9), order="F"),
    "bc": dict(kinds="bc", shape=(7, 9)),
    "cb": dict(kinds="cb", shape=(7, 9)),
    "cc": dict(kinds="cc", shape=(7, 9)),
    "cc_bs2": dict(kinds="cc", shape=(7, 9), block_size=2),
    "b_padded": dict(kinds="b", shape=(23,), padding=1),
    "bb_padded": dict(kinds="bb", shape=(9, 8), padding=1),
    "uu": dict(kinds="uu", shape=(5, 7)),
    "cbc": dict(kinds="cbc", shape=(5, 9, 3)),
    "bbb": dict(kinds="bbb", shape=(5, 4, 6)),
}


def adopt_and_check(full, prod, trim=None, what=""):
    B = dmap.from_distarray(prod)
    want = full[trim] if trim is not None else full
    check_equal(B.allgather(), want, f"{what}: dmap's array of the producer's buffers")
    # Adopted, not copied: the producer's buffer is dmap's storage.
    blocks = B.local_blocks()
    has = prod.buffer.size > 0 and bool(blocks) and blocks[0].size > 0
    check(not has or np.shares_memory(prod.buffer, blocks[0]), f"{what}: numpy.shares_memory(producer, local block)")
    # Back: the dmap array read by the reference consumer.
    got = dap.to_global(B)
    check_equal(got[boundary_trim(B.__distarray__()["dim_data"])], want, f"{what}: dmap -> reference consumer")
    return B


@pytest.mark.parametrize("case", list(CASES))
def test_from_distarray_reference_producer(case):
    c = dict(CASES[case])
    shape, kinds = c.pop("shape"), c.pop("kinds")
    full = full_of(shape)
    prod = dap.distribute(full, kinds, COMM, **c)
    trim = None
    if c.get("padding"):
        trim = tuple(slice(1, n - 1) for n in shape)
    B = adopt_and_check(full, prod, trim, case)
    # Writes through dmap land in the producer's buffer.
    B[...] = 2 * (full[trim] if trim is not None else full)
    got = dap.to_global(prod)
    check_equal(got[trim] if trim is not None else got, 2 * (full[trim] if trim is not None else full),
                f"{case}: dmap's writes seen by the producer")


@pytest.mark.parametrize("name", dap.EXAMPLES)
def test_dap_document_examples(name):
    made = dap.example(name, COMM)
    if not all(COMM.allgather(made is not None)):
        pytest.skip(f"example {name} runs at another process count")
    full, prod = made
    check_equal(dap.to_global(prod), full, f"example {name}: the reference consumer of the reference producer")
    trim = tuple(slice(1, n - 1) for n in full.shape) if name == "2.2" else None
    adopt_and_check(full, prod, trim, f"example {name}")


def test_dap_document_dictionaries():
    """The reference producer writes the document's dictionaries (examples 2.2, 2.6, 2.10)."""
    made = dap.example("2.2", COMM)
    if COMM.size == 2:
        want = [{"size": 18, "dist_type": "b", "proc_grid_rank": 0, "proc_grid_size": 2, "start": 0, "stop": 10,
                 "padding": (1, 1)},
                {"size": 18, "dist_type": "b", "proc_grid_rank": 1, "proc_grid_size": 2, "start": 8, "stop": 18,
                 "padding": (1, 1)}][COMM.rank]
        check(made[1].dim_data == (want,), "example 2.2's dim_data")
    made = dap.example("2.10", COMM)
    if COMM.size == 4:
        want = {(0, 0): ((0, 0), 2, [[0, 1, 4, 5, 8], [9, 10, 13, 14, 17], [36, 37, 40, 41, 44]]),
                (1, 1): ((2, 2), 2, [[20, 21, 24, 25], [29, 30, 33, 34]])}
        coords = dap.grid_coords(COMM.rank, (2, 2))
        ok = True
        if coords in want:
            starts, bs, buf = want[coords]
            ok = [d["start"] for d in made[1].dim_data] == list(starts) and \
                all(d["block_size"] == bs for d in made[1].dim_data) and \
                np.array_equal(made[1].buffer, np.array(buf, dtype=float))
        check(ok, "example 2.10's buffers and dictionaries")
    made = dap.example("2.6", COMM)
    if COMM.size == 4:
        d = made[1].dim_data
        coords = dap.grid_coords(COMM.rank, (2, 2))
        want = {(0, 0): [(0, 3), (0, 5)], (0, 1): [(0, 3), (5, 9)], (1, 0): [(3, 5), (0, 5)], (1, 1): [(3, 5), (5, 9)]}
        check([(x["start"], x["stop"]) for x in d] == want[coords], "example 2.6's start and stop")
    check(True)


def test_mpi4py_program_hands_rows_to_dmap_and_back():
    """A plain mpi4py + NumPy program: each rank owns some rows of a matrix, hands them to dmap
    (DAP dict written by hand), dmap redistributes and reduces, and the program reads back."""
    rows, cols = 4 * COMM.size + 1, 5
    lo = (rows * COMM.rank) // COMM.size
    hi = (rows * (COMM.rank + 1)) // COMM.size
    local = np.arange(lo * cols, hi * cols, dtype=np.float64).reshape(hi - lo, cols)
    desc = {"__version__": "0.10.0", "buffer": local,
            "dim_data": ({"dist_type": "b", "size": rows, "proc_grid_size": COMM.size, "proc_grid_rank": COMM.rank,
                          "start": lo, "stop": hi}, {})}
    A = dmap.from_distarray(desc)
    check(A.local_blocks()[0].size == 0 or np.shares_memory(A.local_blocks()[0], local))
    total = COMM.allreduce(local.sum())
    check(A.sum() == total, "sum")
    C = dmap.Array(dmap.Domain(dmap.Cyclic(), (rows, cols)), "float64")
    C[...] = A
    C[...] = C.allgather() * 3
    A[...] = C  # back into the program's own buffer
    check_equal(local, np.arange(lo * cols, hi * cols, dtype=np.float64).reshape(hi - lo, cols) * 3, "rows")


def test_from_distarray_keeps_buffer_alive():
    full = full_of((11, 4))
    prod = dap.distribute(full, "bb", COMM)
    B = dmap.from_distarray(prod)
    del prod
    gc.collect()
    check_equal(B.allgather(), full, "after the producer is gone")


def test_dmap_to_dmap():
    A = dmap.Array(dmap.Domain(dmap.BlockCyclic((2, 3)), (7, 9)), "int32")
    A[...] = full_of((7, 9), "int32")
    B = dmap.from_distarray(A)
    check_equal(B.allgather(), A.allgather())
    a, b = A.local_blocks(), B.local_blocks()
    check(not a or a[0].size == 0 or np.shares_memory(a[0], b[0]))


def same_dims(a, b):
    """Dimension dictionaries equal key by key ('u' indices as lists)."""
    def plain(dim):
        return {k: (list(v) if k == "indices" else v) for k, v in dim.items()}
    return [plain(x) for x in a] == [plain(x) for x in b]


@pytest.mark.parametrize("case", ["cyclic_short", "blockcyclic_short", "stencil_periodic", "empty_columns"])
def test_distarray_round_trip_keeps_the_map(case):
    """dmap -> __distarray__ -> from_distarray -> __distarray__: the same dictionaries (a deal
    of one block per locale stays 'c', a periodic Stencil keeps its padding and flag, an empty
    dimension keeps the other one's cut)."""
    p = COMM.size
    made = {
        "cyclic_short": lambda: dmap.Domain(dmap.Cyclic(), (max(p - 1, 1),)),
        "blockcyclic_short": lambda: dmap.Domain(dmap.BlockCyclic((2,)), (3,)),
        "stencil_periodic": lambda: dmap.Domain(dmap.Stencil((1, 1), periodic=(True, False)), (4 * p, 3)),
        "empty_columns": lambda: dmap.Domain(dmap.Block(grid=(p, 1)), (4 * p + 1, 0)),
    }[case]()
    A = dmap.Array(made, "float64")
    d = A.__distarray__()
    if case != "stencil_periodic" and case != "empty_columns":
        check(d["dim_data"][0]["dist_type"] == "c", f"{case}: {d['dim_data'][0]}")
    B = dmap.from_distarray(A)
    check(same_dims(B.__distarray__()["dim_data"], d["dim_data"]), f"{case}: {B.__distarray__()['dim_data']} != {d['dim_data']}")
    if case == "empty_columns":  # each rank's rows where Block cuts them, not all on grid rank 0
        rows, n, r = d["dim_data"][0], 4 * p + 1, COMM.rank
        check(rows["start"] == -(-n * r // p) and rows["stop"] == -(-n * (r + 1) // p), f"rows: {rows}")


def test_distarray_unstructured_without_one_to_one():
    """A 2-D 'u' producer that does not say one_to_one (DAP: False) comes back without it."""
    p = COMM.size
    lists = [list(range(7 * p))[r::p] for r in range(p)]
    full = full_of((7 * p, 3))
    prod = dap.distribute(full, "ub", COMM, grid=(p, 1), indices=[lists, None])
    prod.dim_data[0].pop("one_to_one")
    B = dmap.from_distarray(prod)
    check_equal(B.allgather(), full, "the adopted array")
    back = B.__distarray__()["dim_data"][0]
    check(back["dist_type"] == "u" and back["one_to_one"] is False, f"{back}")
    check(list(back["indices"]) == lists[COMM.rank], "the list, in its order")


def test_distarray_empty_buffers_say_start_equals_size():
    """DAP's empty local buffers: 'c' and 'b' dictionaries with start == size import."""
    p = COMM.size
    r = COMM.rank
    # 'c': 3 positions in blocks of 2; ranks from 2 on are dealt nothing and say start == size.
    full = full_of((3,))
    prod = dap.distribute(full, "c", COMM, grid=(p,), block_size=2)
    if r * 2 >= 3:
        prod.dim_data[0]["start"] = 3
    B = dmap.from_distarray(prod)
    check_equal(B.allgather(), full, "'c' with empty buffers at start == size")
    # 'b': rank 0 holds nothing and says start == stop == size; rank 1 holds everything.
    if p >= 2:
        cuts = [(5, 5), (0, 5)] + [(5, 5)] * (p - 2)
        full = full_of((5,))
        prod = dap.distribute(full, "b", COMM, grid=(p,), cuts=[cuts])
        B = dmap.from_distarray(prod)
        check_equal(B.allgather(), full, "'b' with an empty buffer at start == size on grid rank 0")


# ---------------------------------------------------------------------------- DAP errors
def good_dict():
    lo = (10 * COMM.rank) // COMM.size
    hi = (10 * (COMM.rank + 1)) // COMM.size
    return {"__version__": "0.10.0", "buffer": np.zeros(hi - lo),
            "dim_data": ({"dist_type": "b", "size": 10, "proc_grid_size": COMM.size, "proc_grid_rank": COMM.rank,
                          "start": lo, "stop": hi},)}


def test_from_distarray_errors_everywhere():
    d = good_dict()
    d["__version__"] = "1.0.0"
    raises_everywhere(dmap.UnsupportedError, dmap.from_distarray, d)
    d = good_dict()
    if COMM.rank == 0:
        d["dim_data"][0]["dist_type"] = "x"
    raises_everywhere(dmap.ArgumentError, dmap.from_distarray, d)
    d = good_dict()
    if COMM.rank == COMM.size - 1:
        del d["buffer"]
    e = raises_everywhere(dmap.ArgumentError, dmap.from_distarray, d)
    check(isinstance(e, ValueError))
    d = good_dict()
    d["buffer"].flags.writeable = False
    raises_everywhere(dmap.ArgumentError, dmap.from_distarray, d)
    d = good_dict()
    d["buffer"] = d["buffer"].astype(np.int16)
    raises_everywhere(dmap.UnsupportedError, dmap.from_distarray, d)
    d = good_dict()
    d["dim_data"][0]["size"] = 11
    raises_everywhere(dmap.ArgumentError, dmap.from_distarray, d)
    raises_everywhere(dmap.ArgumentError, dmap.from_distarray, 42)
    d = good_dict()
    if COMM.rank == 0:
        d["buffer"] = d["buffer"].astype(np.float32)
    if COMM.size > 1:
        raises_everywhere(dmap.ArgumentError, dmap.from_distarray, d)


# ---------------------------------------------------------------------------- __partitioned__
PART_MAPS = ["block", "block_F", "cyclic", "blockcyclic", "stencil", "irregular", "subset_last"]


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("name", PART_MAPS)
def test_partitioned_read_by_reference_consumer(name, ndim):
    shape = SHAPES[ndim]
    A = dmap.Array(dmap.Domain(maps(shape)[name], shape), "float64")
    full = full_of(shape)
    A[...] = full
    p = A.__partitioned__
    check(tuple(p["shape"]) == shape and len(p["partition_tiling"]) == ndim)
    check(set(p["partitions"]) == set(np.ndindex(*p["partition_tiling"])), "every position is a key")
    check_equal(part.to_global(A), full, f"{name}: the reference consumer's array")
    me = dmap.locations()[dmap.here()]  # (IP, PID): an address of this host, this process
    check(me[1] == os.getpid() and is_ip_address(me[0]), f"this locale's location {me}")
    ok = True
    for pos in p["locals"]:
        t = p["partitions"][pos]
        ok = ok and me in t["location"] and isinstance(t["data"], np.ndarray)
        sl = tuple(slice(s, s + n) for s, n in zip(t["start"], t["shape"]))
        ok = ok and np.array_equal(t["data"], full[sl]) and np.array_equal(p["get"](t["data"]), full[sl])
    for pos, t in p["partitions"].items():
        if pos not in p["locals"]:
            ok = ok and t["data"] is None and me not in t["location"]
    check(ok, "locals, data and location")


def test_partitioned_get_fetches_remote_tiles():
    shape = (8, 6)
    A = dmap.Array(dmap.Domain(dmap.BlockCyclic((2, 3)), shape), "complex128")
    full = full_of(shape, "complex128")
    A[...] = full
    dmap.barrier()  # every locale has stored its elements before the one-sided reads
    p = A.__partitioned__
    ok = True
    positions = sorted(p["partitions"])
    got = p["get"](positions)
    for pos, g in zip(positions, got):
        t = p["partitions"][pos]
        ok = ok and np.array_equal(g, full[tuple(slice(s, s + n) for s, n in zip(t["start"], t["shape"]))])
    check(ok, "get of every position")
    dmap.barrier()


def test_partitioned_is_picklable():
    import pickle

    A = dmap.Array(dmap.Domain(dmap.Block(), (9, 4)), "float32")
    A[...] = full_of((9, 4), "float32")
    p = A.__partitioned__
    q = pickle.loads(pickle.dumps(p))
    ok = q["shape"] == p["shape"] and q["locals"] == p["locals"]
    for pos in p["locals"]:
        ok = ok and np.array_equal(q["get"](q["partitions"][pos]["data"]), p["partitions"][pos]["data"])
        ok = ok and q["partitions"][pos]["location"] == p["partitions"][pos]["location"]
    check(ok, "the unpickled description")


def test_partitioned_writes_through():
    A = dmap.Array(dmap.Domain(dmap.Block(), (9, 4)), "int64")
    for pos in A.__partitioned__["locals"]:
        A.__partitioned__["partitions"][pos]["data"][...] = 5
    check(A.min() == 5 and A.max() == 5)


def test_partitioned_directory_maps_unsupported():
    H = dmap.Array(dmap.Domain(dmap.Hashed(), (12,)), "float64")
    raises_everywhere(dmap.UnsupportedError, lambda: H.__partitioned__)


def one_buffer_tiled(full, tiling, owner_of):
    """A Tiled producer whose local partitions are views of one local buffer (rows stacked)."""
    prod = part.Tiled(full, tiling, owner_of)
    mine = [prod.partitions[pos] for pos in prod.locals]
    if mine:
        buf = np.concatenate([t["data"] for t in mine], axis=0)
        at = 0
        for t in mine:
            t["data"] = buf[at:at + t["shape"][0]]
            at += t["shape"][0]
    return prod


PART_CASES = {
    "rows": lambda p: ((4 * p + 3, 5), (p, 1), lambda pos: pos[0]),
    "1d": lambda p: ((5 * p + 2,), (p,), lambda pos: pos[0]),
    "grid": lambda p: ((7, 9), tuple(MPI.Compute_dims(p, 2)),
                       lambda pos, g=tuple(MPI.Compute_dims(p, 2)): pos[0] * g[1] + pos[1]),
    "grid3": lambda p: ((5, 4, 6), tuple(MPI.Compute_dims(p, 3)),
                        lambda pos, g=tuple(MPI.Compute_dims(p, 3)): (pos[0] * g[1] + pos[1]) * g[2] + pos[2]),
}


@pytest.mark.parametrize("case", list(PART_CASES))
def test_from_partitioned_reference_producer(case):
    shape, tiling, owner = PART_CASES[case](COMM.size)
    full = full_of(shape)
    prod = part.Tiled(full, tiling, owner)
    B = dmap.from_partitioned(prod)
    check_equal(B.allgather(), full, f"{case}: dmap's array of the producer's partitions")
    blocks = B.local_blocks()
    ok = True
    for pos in prod.locals:
        data = prod.partitions[pos]["data"]
        ok = ok and (data.size == 0 or any(np.shares_memory(data, b) for b in blocks))
    check(ok, f"{case}: numpy.shares_memory(partition, local block)")
    check_equal(part.to_global(B), full, f"{case}: dmap -> reference consumer")
    B[...] = full + 1
    check_equal(part.to_global(prod), full + 1, f"{case}: dmap's writes seen by the producer")


def relocated(prod, spell):
    """The producer's description with every location (host, pid) respelt as (spell(q), pid)
    for the locale q holding it."""
    d = prod.__partitioned__
    everyone = COMM.allgather(part.here())
    for t in d["partitions"].values():
        t["location"] = [(spell(everyone.index(t["location"][0])), t["location"][0][1])]
    return d


def test_from_partitioned_ip_locations():
    """The draft names a location by (IP, PID): dmap reads an address of the locale's host, in
    IPv4 or IPv6 text (mapped, expanded, upper case, with a zone), as well as a host name, and
    writes the address (dmap.locations())."""
    p = COMM.size
    full = full_of((4 * p + 3, 5))
    where = dmap.locations()
    spellings = {
        "dmap's own": lambda q: where[q][0],
        "loopback IPv4": lambda q: "127.0.0.1",
        "Debian's host-name loopback": lambda q: "127.0.1.1",
        "loopback IPv6": lambda q: "::1",
        "IPv4-mapped IPv6": lambda q: "::ffff:127.0.0.1",
        "expanded IPv6, upper case": lambda q: "0:0:0:0:0:FFFF:7F00:0001",
        "host name": lambda q: hosts[q],
    }
    hosts = COMM.allgather(socket.gethostname())
    if ":" in where[0][0]:  # an IPv6 host address: also with a zone
        spellings["with a zone"] = lambda q: where[q][0] + "%lo"
    if len(set(COMM.allgather(socket.gethostname()))) > 1:  # loopback names one process per node only
        for what in ["loopback IPv4", "Debian's host-name loopback", "loopback IPv6", "IPv4-mapped IPv6",
                     "expanded IPv6, upper case"]:
            del spellings[what]
    for what, spell in spellings.items():
        prod = part.Tiled(full, (p, 1), lambda pos: pos[0])
        B = dmap.from_partitioned(relocated(prod, spell))
        check_equal(B.allgather(), full, f"{what}: the adopted array")
        check(all(B.__partitioned__["partitions"][pos]["location"] == [where[COMM.rank]]
                  for pos in B.__partitioned__["locals"]), f"{what}: locations written as (IP, PID)")
    # Round trip: dmap's own description (IP locations) imports again.
    A = dmap.Array(dmap.Domain(dmap.Block(), (6 * p, 4)), "float64")
    A[...] = full_of((6 * p, 4))
    C = dmap.from_partitioned(A.__partitioned__)
    check_equal(C.allgather(), A.allgather(), "dmap -> __partitioned__ -> dmap")


@pytest.mark.parametrize("bad", ["1.2.3.256", "1.2.3", "01.2.3.4", "::g", "1::2::3", "[::1]", "127.0.0.1:80",
                                 "fe80::1%", "", "192.0.2.254.7", "no-such-host"])
def test_from_partitioned_bad_ip_locations(bad):
    p = COMM.size
    full = full_of((2 * p, 3))
    d = relocated(part.Tiled(full, (p, 1), lambda pos: pos[0]), lambda q: bad)
    raises_everywhere(dmap.ArgumentError, dmap.from_partitioned, d)


def test_from_partitioned_row_block_cyclic_one_buffer():
    """The draft's SPMD example: rows dealt round robin, 2 partitions per rank, in one local buffer."""
    p = COMM.size
    full = full_of((4 * p, 8))
    prod = one_buffer_tiled(full, (2 * p, 1), lambda pos: pos[0] % p)
    B = dmap.from_partitioned(prod)
    check_equal(B.allgather(), full)
    first = prod.partitions[prod.locals[0]]["data"]
    check(np.shares_memory(first, B.local_blocks()[0]))
    check_equal(part.to_global(B), full)


def test_from_partitioned_errors_everywhere():
    p = COMM.size
    full = full_of((4 * p, 3))
    # Separate buffers per partition where the map keeps one: unsupported (or fine on one rank
    # when each rank holds one partition only).
    prod = part.Tiled(full, (2 * p, 1), lambda pos: pos[0] % p)
    raises_everywhere(dmap.UnsupportedError, dmap.from_partitioned, prod)
    # A device the consumer does not read.
    prod = part.Tiled(full, (p, 1), lambda pos: pos[0])
    d = prod.__partitioned__
    t = d["partitions"][(0, 0)]
    t["location"] = [t["location"][0] + ("kDLOneAPI:0",)]
    raises_everywhere(dmap.UnsupportedError, dmap.from_partitioned, d)
    # An unknown process: no such host, an address of no host with this PID, this host's
    # loopback with a PID no locale has, an IP that is not a str.
    for wrong in [("no-such-host", -1), ("192.0.2.254", os.getpid()), ("127.0.0.1", -1), (b"127.0.0.1", os.getpid())]:
        d = part.Tiled(full, (p, 1), lambda pos: pos[0]).__partitioned__
        d["partitions"][(0, 0)]["location"] = [wrong]
        raises_everywhere(dmap.ArgumentError, dmap.from_partitioned, d)
    # Data of the wrong shape on the last rank only.
    d = part.Tiled(full, (p, 1), lambda pos: pos[0]).__partitioned__
    last = d["partitions"][(p - 1, 0)]
    if COMM.rank == p - 1:
        last["data"] = last["data"][:1]
    raises_everywhere(dmap.ArgumentError, dmap.from_partitioned, d)
    # Tiles dealt in reverse order: no dmap map expresses it.
    if p > 1:
        d = part.Tiled(full, (p, 1), lambda pos: p - 1 - pos[0]).__partitioned__
        raises_everywhere(dmap.UnsupportedError, dmap.from_partitioned, d)
    raises_everywhere(dmap.ArgumentError, dmap.from_partitioned, "not a container")
