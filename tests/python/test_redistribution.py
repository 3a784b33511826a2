"""B[...] = A between every pair of maps, slices across maps (steps, reversed, integer indices),
assignment between different index sets, and overlapping slices of one array: the gathered
result must equal the same NumPy assignment."""

import numpy as np
import pytest

import dmap
from conftest import check_equal
from maps import maps

SHAPES = {1: (17,), 2: (7, 9), 3: (4, 5, 6)}


def _arrays(shape, dtype="float64"):
    out = {}
    for name, m in maps(shape).items():
        out[name] = dmap.Array(dmap.Domain(m, shape), dtype)
    return out


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_every_pair_of_maps(ndim):
    shape = SHAPES[ndim]
    arrays = _arrays(shape)
    ref = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 1.5 - 4
    for k, (src_name, src) in enumerate(arrays.items()):
        src[...] = ref + k
        for dst_name, dst in arrays.items():
            if dst is src:
                continue
            dst.fill(-1)
            dst[...] = src
            check_equal(dst.allgather(), ref + k, f"{src_name} -> {dst_name}")
            dst.fill(-1)
            dst.assign(src)
            check_equal(dst.allgather(), ref + k, f"{src_name} -> {dst_name} (assign)")


def test_slices_across_maps_2d():
    shape = (7, 9)
    arrays = _arrays(shape, "int64")
    a_ref = np.arange(63, dtype=np.int64).reshape(shape)
    cases = [
        ((slice(0, 5), slice(2, 8)), (slice(1, 6), slice(0, 6))),         # the first slice pair of the Python guide
        ((slice(None), slice(None, None, 2)), (slice(None, None, -1), slice(4, 9))),
        ((slice(1, 7, 3), slice(8, None, -4)), (slice(0, 2), slice(0, 3))),
        ((2, slice(None)), (slice(None), 3)),                              # rank change: a column into a row... of 9
        ((slice(None), 0), (slice(0, 7), 8)),                              # a column into a column
        ((slice(3, 4), slice(1, 8)), (slice(6, 7), slice(None, 7))),
    ]
    names = list(arrays)
    for c, (dst_key, src_key) in enumerate(cases):
        for i, src_name in enumerate(names):
            dst_name = names[(i * 5 + c + 1) % len(names)]  # each source meets several destinations
            if dst_name == src_name:
                dst_name = names[(i + 1) % len(names)]
            src, dst = arrays[src_name], arrays[dst_name]
            src[...] = a_ref
            d_ref = -np.ones(shape, np.int64)
            dst[...] = d_ref
            want = d_ref.copy()
            try:
                want[dst_key] = a_ref[src_key]
            except ValueError:
                continue  # shapes NumPy refuses too (checked in test_errors)
            dst[dst_key] = src[src_key]
            check_equal(dst.allgather(), want, f"case {c}: {src_name}{src_key} -> {dst_name}{dst_key}")


def test_rank_change_between_1d_and_2d():
    row = dmap.Array(dmap.Domain(dmap.Cyclic(), (9,)), "float64")
    grid = dmap.Array(dmap.Domain(dmap.BlockCyclic((2, 2)), (7, 9)), "float64")
    g_ref = np.arange(63.0).reshape(7, 9)
    grid[...] = g_ref
    row[...] = grid[4]
    check_equal(row.allgather(), g_ref[4])
    row[...] = grid[5, ::-1]
    check_equal(row.allgather(), g_ref[5, ::-1])
    grid[:, 2][...] = grid[::-1, 7]  # a view as the target of a subscript
    g_ref[:, 2] = g_ref[::-1, 7].copy()
    check_equal(grid.allgather(), g_ref)
    cube = dmap.Array(dmap.Domain(dmap.Block(), (3, 7, 9)), "float64")
    cube[1] = grid
    c_ref = np.zeros((3, 7, 9))
    c_ref[1] = g_ref
    check_equal(cube.allgather(), c_ref)
    row[...] = cube[1, 2, :]
    check_equal(row.allgather(), c_ref[1, 2, :])


def test_different_bounds_same_shape():
    A = dmap.Array(dmap.Domain(dmap.Block(), ((1, 8), range(-10, 8, 2))), "float32")
    B = dmap.Array(dmap.Domain(dmap.Cyclic(), (7, 9)), "float32")
    ref = np.arange(63, dtype=np.float32).reshape(7, 9)
    A[...] = ref
    B[...] = A
    check_equal(B.allgather(), ref)
    check_equal(A[2:5, 1::3].allgather(), ref[2:5, 1::3])


def test_overlapping_slices_of_one_array():
    for name, m in maps((12,)).items():
        A = dmap.Array(dmap.Domain(m, (12,)), "int32")
        ref = np.arange(12, dtype=np.int32)
        A[...] = ref
        A[1:] = A[:-1]
        want = ref.copy()
        want[1:] = ref[:-1].copy()
        check_equal(A.allgather(), want, f"{name}: shift right")
        A[::-1] = A[...]
        check_equal(A.allgather(), want[::-1].copy(), f"{name}: reverse in place")


def test_complex_redistribution():
    shape = (6, 5)
    ref = (np.arange(30) + 1j * np.arange(30)[::-1]).reshape(shape)
    arrays = _arrays(shape, "complex128")
    names = list(arrays)
    for a, b in zip(names, names[1:] + names[:1]):
        arrays[a][...] = ref
        arrays[b][...] = arrays[a]
        check_equal(arrays[b].allgather(), ref, f"{a} -> {b}")
