"""The core surface: locales, domains over every map and rank, arrays of every dtype, gather
against NumPy, fill, element access, local blocks as views of dmap's storage."""

import numpy as np
import pytest
from mpi4py import MPI

import dmap
from conftest import check, check_equal
from maps import maps

DTYPES = ["float64", "float32", "int64", "int32", "complex128"]
SHAPES = {1: (23,), 2: (7, 9), 3: (5, 4, 6)}


def reference(shape, dtype):
    """Distinct values per position (complex ones with an imaginary part)."""
    base = np.arange(int(np.prod(shape))).reshape(shape)
    if np.dtype(dtype).kind == "c":
        return (base + 0.5j * base[::-1].reshape(shape)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        return (base * 0.25 - 3).astype(dtype)
    return (base * 3 - 7).astype(dtype)


def test_locales_match_mpi():
    check(dmap.num_locales() == MPI.COMM_WORLD.size)
    check(dmap.here() == MPI.COMM_WORLD.rank)
    check(dmap.num_threads() >= 1)
    check(dmap.started())


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_domain_shape_and_bounds(ndim):
    shape = SHAPES[ndim]
    D = dmap.Domain(dmap.Block(), shape if ndim > 1 else shape[0])
    check(D.ndim == ndim and D.shape == shape and D.size == int(np.prod(shape)))
    check(D.bounds == tuple(range(0, n) for n in shape))
    bounds = tuple([(1, 1 + shape[0])] + [range(10, 10 + 2 * n, 2) for n in shape[1:]])
    E = dmap.Domain(dmap.Cyclic(), bounds)
    check(E.shape == shape)
    check(E.bounds[0] == range(1, 1 + shape[0]))
    # every index is owned by exactly one locale: the pieces of all locales cover the domain once
    mine = sum(int(np.prod([len(r) for r in piece])) for piece in E.local_subdomains())
    check(MPI.COMM_WORLD.allreduce(mine) == E.size)
    first = tuple(r[0] for r in E.bounds)
    owner = E.locale_of(first if ndim > 1 else first[0])
    check(0 <= owner < dmap.num_locales())
    check(isinstance(D.name, str) and len(D.name) > 0)
    check(D.map == dmap.Block())


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("name", list(maps((7, 9)).keys()))
def test_gather_equals_numpy_every_map(ndim, name):
    shape = SHAPES[ndim]
    D = dmap.Domain(maps(shape)[name], shape)
    for dtype in DTYPES:
        A = dmap.Array(D, dtype)
        check(A.shape == shape and A.dtype == np.dtype(dtype) and A.ndim == ndim)
        check_equal(A.allgather(), np.zeros(shape, dtype), f"{name} {dtype}: a new array is zero")
        ref = reference(shape, dtype)
        A[...] = ref
        check_equal(A.allgather(), ref, f"{name} {dtype}: gather")
        # gather on one locale
        g = A.gather(root=0)
        check((g is None) == (dmap.here() != 0))
        if g is not None:
            check_equal(g, ref)
        else:
            check_equal(ref, ref)  # keep the collective checks in step


@pytest.mark.parametrize("dtype", DTYPES)
def test_fill_and_elements(dtype):
    D = dmap.Domain(dmap.BlockCyclic(2), (6, 5))
    A = dmap.Array(D, dtype)
    A.fill(3)
    check_equal(A.allgather(), np.full((6, 5), 3, dtype))
    A[1:5:2, ::2] = 7
    want = np.full((6, 5), 3, dtype)
    want[1:5:2, ::2] = 7
    check_equal(A.allgather(), want)
    # elements: any locale reads any element; one locale writes one
    check(all(A[i, j] == want[i, j] for i in range(6) for j in range(5)))
    check(A[-1, -2] == want[-1, -2])
    if dmap.here() == dmap.num_locales() - 1:
        A[4, 3] = 11
    dmap.barrier()
    want[4, 3] = 11
    check_equal(A.allgather(), want)
    check(type(A[0, 0]) is np.dtype(dtype).type)


def test_local_blocks_are_views_of_dmap_storage():
    for name, m in maps((8, 6)).items():
        D = dmap.Domain(m, (8, 6))
        A = dmap.Array(D, "float64")
        ref = reference((8, 6), "float64")
        A[...] = ref
        blocks, again = A.local_blocks(), A.local_blocks()
        slices = A.local_slices()
        check(len(blocks) == len(again) == len(slices))
        check(all(np.shares_memory(a, b) for a, b in zip(blocks, again)), f"{name}: shares_memory")
        check(all(np.array_equal(b, ref[s]) for b, s in zip(blocks, slices)), f"{name}: blocks hold the owned values")
        owned = MPI.COMM_WORLD.allreduce(sum(b.size for b in blocks))
        check(owned == 48, f"{name}: the locales' blocks cover the array once ({owned})")
        for b in blocks:  # writes through the views land in the dmap array
            b *= -2
        check_equal(A.allgather(), -2 * ref, f"{name}: writes through local_blocks")
        # a view's blocks share the array's storage too
        V = A[1:7:2, ::-1]
        vref = (-2 * ref)[1:7:2, ::-1]
        shares, values = True, True  # one collective check each, whatever the number of blocks here
        for b, s in zip(V.local_blocks(), V.local_slices()):
            shares &= any(np.shares_memory(b, w) for w in A.local_blocks())
            values &= np.array_equal(b, vref[s])
            b[...] = 100
        check(shares, f"{name}: a view's blocks share the array's storage")
        check(values, f"{name}: view block values")
        want = -2 * ref
        want[1:7:2, ::-1] = 100
        check_equal(A.allgather(), want, f"{name}: writes through a view's local_blocks")


def test_local_blocks_keep_the_array_alive():
    D = dmap.Domain(dmap.Block(), (10,))
    A = dmap.Array(D, "int64")
    A[...] = np.arange(10)
    blocks = A.local_blocks()
    slices = A.local_slices()
    del A
    dmap.collect()
    check(all(np.array_equal(b, np.arange(10)[s]) for b, s in zip(blocks, slices)))


def test_local_frames_of_block_equal_blocks():
    D = dmap.Domain(dmap.Block(), (6, 7))
    A = dmap.Array(D, "float32")
    A[...] = reference((6, 7), "float32")
    frames, blocks = A.local_frames(), A.local_blocks()
    check(len(frames) == len(blocks))
    check(all(np.shares_memory(f, b) and f.shape == b.shape for f, b in zip(frames, blocks)))
    check(all(tuple(len(r) for r in idx) == f.shape for idx, f in zip(A.local_frame_indices(), frames)))


def test_copy_views_and_properties():
    D = dmap.Domain(dmap.Cyclic(), (5, 6))
    A = dmap.Array(D, "int32")
    ref = reference((5, 6), "int32")
    A.assign(ref)
    B = A.copy()
    check(B.domain is not None and B.shape == (5, 6) and B.dtype == np.int32)
    check_equal(B.allgather(), ref)
    V = A[2]
    check(V.is_view and V.shape == (6,) and V.domain is None and V.base.shape == (5, 6))
    check_equal(V.allgather(), ref[2])
    W = A[:, 3]
    check_equal(W.allgather(), ref[:, 3])
    check_equal(A[1:4][::-1, 1::2].allgather(), ref[1:4][::-1, 1::2])
    check(len(A) == 5 and "Array" in repr(A) and "Domain" in repr(D))
    check(A[...].shape == (5, 6) and not A[...].is_view)


def test_objects_are_freed_in_step():
    D = dmap.Domain(dmap.Block(), (100,))
    for _ in range(20):  # temporaries die and are freed at the next creation, on every locale alike
        A = dmap.Array(D, "float64")
        A.fill(1.0)
        check(A.sum() == 100.0)
    del A
    dmap.collect()
    check(dmap.collect() == 0)


def _addresses(A):
    return [b.__array_interface__["data"][0] for b in A.local_blocks()]


def test_dropped_arrays_storage_is_reused_zeroed(rank):
    """A dropped array's storage serves the next array of its domain, dtype and rank, zeroed on
    every locale before any locale reads it; dmap.collect() frees what the pool holds."""
    dmap.collect()
    D = dmap.Domain(dmap.Block(), (4000,))
    T = dmap.Array(D, "float64")
    T.fill(7.0)
    before = _addresses(T)
    del T
    sweep = dmap.Array(dmap.Domain(dmap.Cyclic(), (10,)), "int32")  # a creation: T goes to the pool
    U = dmap.Array(D, "float64")
    check(_addresses(U) == before, "the new array took the dropped one's storage")
    check(U[(rank * 997 + 3000) % 4000] == 0.0, "a remote element read right after creation is zero")
    check_equal(U.allgather(), np.zeros(4000), "every element zero")
    V = dmap.Array(D, "int64")  # another dtype: new storage, zero
    check_equal(V.allgather(), np.zeros(4000, np.int64), "another dtype")
    S = dmap.Array(dmap.Domain(dmap.Stencil(2), (40, 30)), "float64")
    P = dmap.Array(S.domain, "float64")
    S.fill(5.0)
    dmap.update_halos(S)  # ghost cells 5 too
    before = _addresses(S)
    del S
    R = P + 1  # the result takes S's storage: its elements are all written, its ghost cells zeroed
    check(_addresses(R) == before, "the result took the dropped array's storage")
    check(all((f == 0).sum() == f.size - b.size for f, b in zip(R.local_frames(), R.local_blocks())),
          "a reused stencil array's ghost cells are zero")
    check_equal(R.allgather(), np.ones((40, 30)), "the result")
    del U, V, R, P, sweep
    for _ in range(6):
        dmap.Array(D, "float64").fill(1.0)  # each dies; the pool keeps the newest four
    dmap.Array(dmap.Domain(dmap.Cyclic(), (10,)), "int32")
    check(dmap.collect() >= 4, "collect frees the pooled arrays")
    check(dmap.collect() == 0, "and nothing is left")


def test_large_arrays_node_shared_storage():
    """Arrays of 64 KiB and more live in node-shared memory (MPI-3 windows): the local blocks
    are views of that memory, and assignments between locales of the node copy directly."""
    shape = (300, 301)
    ref = np.arange(300 * 301, dtype=np.float64).reshape(shape)
    A = dmap.Array(dmap.Domain(dmap.Stencil(1, periodic=True), shape), "float64")
    B = dmap.Array(dmap.Domain(dmap.BlockCyclic((16, 32)), shape), "float64")
    A[...] = ref
    B[...] = A
    check_equal(B.allgather(), ref, "Stencil -> BlockCyclic")
    for blk, s in zip(B.local_blocks(), B.local_slices()):
        blk += 1
    A[...] = B
    check_equal(A.allgather(), ref + 1, "writes through node-shared blocks")
    check(A.sum() == (ref + 1).sum())
    dmap.update_halos(A)
    frames = A.local_frames()
    check(all(np.shares_memory(f, b) for f, b in zip(frames, A.local_blocks())))


SOURCES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
           "float64", "longdouble", "complex64", "complex128", "clongdouble"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_source_dtype_converts_as_numpy_converts(dtype):
    """NumPy arrays of every numeric dtype assign into every dtype as NumPy's cast stores them
    (fractions dropped toward zero, bools 0 and 1), whole or into slices, in any memory order;
    complex values into real arrays are refused (test_errors.py has the refusals)."""
    A = dmap.Array(dmap.Domain(dmap.Cyclic(), (6, 7)), dtype)
    for src_dtype in SOURCES:
        base = np.arange(42).reshape(6, 7)
        values = (base % 2 == 1) if src_dtype == "bool" else ((base % 9) * 1.75 - (2 if src_dtype[0] != "u" else 0))
        if src_dtype.startswith("complex") or src_dtype == "clongdouble":
            values = values + 0.5j * base[::-1]
        src = np.asarray(values).astype(src_dtype)
        if np.dtype(src_dtype).kind == "c" and np.dtype(dtype).kind != "c":
            continue  # refused: see test_errors.py
        A[...] = src
        check_equal(A.allgather(), src.astype(dtype), f"{src_dtype} into {dtype}")
        A[1:5:2, ::3] = np.asfortranarray(src[:2, :3] + src[:2, :3])   # a slice, from a Fortran-order array
        want = src.astype(dtype)
        want[1:5:2, ::3] = (src[:2, :3] + src[:2, :3]).astype(dtype)
        check_equal(A.allgather(), want, f"{src_dtype} into a slice of {dtype}")
        A[...] = src[:, ::-1]  # a backwards view of the source
        check_equal(A.allgather(), src[:, ::-1].astype(dtype), f"{src_dtype} (a strided view) into {dtype}")
        A.fill(src[1, 3])
        check_equal(A.allgather(), np.full((6, 7), src[1, 3]).astype(dtype), f"{src_dtype} scalar into {dtype}")
    big_endian = np.arange(42.0).reshape(6, 7).astype(">f8")
    A[...] = big_endian
    check_equal(A.allgather(), big_endian.astype(dtype), f">f8 into {dtype}")


def test_results_of_a_shape_reuse_storage():
    """dmap's own results over Block (reductions along axes, copies of views, reshapes) share one
    domain per shape, so a result takes the storage of a dropped result of its shape; the values
    are this call's."""
    dmap.collect()
    x = np.arange(60.0).reshape(6, 10)
    A = dmap.Array(dmap.Domain(dmap.Cyclic(), x.shape), "float64")
    A[...] = x
    S = A.sum(axis=0)
    check(S.domain.map == dmap.Block(), "a reduction's result is Block")
    before = _addresses(S)
    del S
    T = (2 * A).sum(axis=0)
    check(_addresses(T) == before, "the next result of that shape took the dropped one's storage")
    check_equal(T.allgather(), (2 * x).sum(axis=0), "with this call's values")
    V = A[1:4, ::2].copy()
    check(V.domain is A[0:3, 1::2].copy().domain, "copies of views of one shape share their Block domain")
    check_equal(V.allgather(), x[1:4, ::2], "the copy")
    check_equal(A.reshape(10, 6).allgather(), x.reshape(10, 6), "a reshape")
    del T, V
    check(dmap.collect() > 0, "collect frees the results' domains and pooled storage")
    check_equal(A.sum(axis=1).allgather(), x.sum(axis=1), "results after collect")
