"""Bool arrays: comparisons and logical operations give them, they reduce, convert, travel
between maps and through files and the exchange protocols, each checked against NumPy on the
gathered arrays."""

import os
import tempfile

import numpy as np
import pytest
from mpi4py import MPI

import dmap
from conftest import check, check_equal, raises_everywhere
from maps import maps
from samples import made

COMM = MPI.COMM_WORLD
SHAPE = (7, 5)
MAPS = [dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic(2)]


def numbers(shape=SHAPE, shift=0):
    return (np.arange(np.prod(shape)).reshape(shape) * 7 % 11 - 5 + shift).astype("float64")


def mixed(shape=SHAPE, shift=0):
    """Trues and falses in no pattern a map could line up with."""
    return (np.arange(np.prod(shape)).reshape(shape) * 5 + shift) % 3 == 1


def same(got, want, msg):
    check(isinstance(got, dmap.Array), f"{msg}: a dmap array, not {type(got).__name__}")
    check(got.dtype == want.dtype, f"{msg}: dtype {got.dtype} != {want.dtype}")
    check_equal(got.allgather(), want, msg)


COMPARISONS = [("==", lambda a, b: a == b), ("!=", lambda a, b: a != b), ("<", lambda a, b: a < b),
               ("<=", lambda a, b: a <= b), (">", lambda a, b: a > b), (">=", lambda a, b: a >= b)]


@pytest.mark.parametrize("left,right", [(0, 0), (0, 1), (1, 2)], ids=["same map", "Block-Cyclic", "Cyclic-BlockCyclic"])
def test_comparisons_give_bool_arrays(left, right):
    a, b = numbers(), numbers(shift=2)
    A, B = made(a, MAPS[left]), made(b, MAPS[right])
    for name, op in COMPARISONS:
        same(op(A, B), op(a, b), f"A {name} B")
        same(op(A, 1.0), op(a, 1.0), f"A {name} 1.0")
        same(op(2, A), op(2, a), f"2 {name} A")
        row = b[0]
        same(op(A, row), op(a, row), f"A {name} a NumPy row (broadcast)")
    check(A.__hash__ is None, "arrays compare elements, so they are not hashable (as NumPy's)")


def test_logical_and_bitwise_operators():
    p, q = mixed(), mixed(shift=1)
    P, Q = made(p, dmap.Cyclic()), made(q)
    same(P & Q, p & q, "P & Q")
    same(P | Q, p | q, "P | Q")
    same(P ^ Q, p ^ q, "P ^ Q")
    same(~P, ~p, "~P")
    same(P & True, p & True, "P & True")
    same(np.logical_and(P, Q), np.logical_and(p, q), "logical_and")
    same(np.logical_or(P, Q), np.logical_or(p, q), "logical_or")
    same(np.logical_xor(P, Q), np.logical_xor(p, q), "logical_xor")
    same(np.logical_not(P), np.logical_not(p), "logical_not")
    i = (np.arange(35).reshape(SHAPE) * 37 % 64).astype("int64")
    I = made(i)
    same(I & 12, i & 12, "int64 & 12")
    same(I | I[::-1, :].copy(), i | i[::-1, :], "int64 | int64")
    same(~I, ~i, "~int64")
    same(I << 2, i << 2, "int64 << 2")
    same(I >> 1, i >> 1, "int64 >> 1")
    R = made(p.copy())
    R &= Q
    same(R, p & q, "R &= Q")
    R |= P
    same(R, (p & q) | p, "R |= P")


def test_masks_select_and_count():
    a = numbers()
    A = made(a, dmap.BlockCyclic(2))
    M = A > 0
    same(dmap.where(M, A, -A), np.where(a > 0, a, -a), "where(A > 0, A, -A)")
    same(np.where(M, A, 0.0), np.where(a > 0, a, 0.0), "np.where with a dmap bool condition")
    count = M.sum()
    check(count == (a > 0).sum() and np.asarray(count).dtype == np.int64, "sum of bools counts them, as int64")
    check(np.count_nonzero(a > 0) == int(M.sum()), "the count")
    check(M.mean() == (a > 0).mean(), "mean of bools")
    for axis in (0, 1):
        for keepdims in (False, True):
            for name in ("any", "all", "sum", "min", "max", "argmax", "mean"):
                if name == "argmax" and keepdims:
                    continue
                got = getattr(M, name)(axis=axis, **({"keepdims": keepdims} if name != "argmax" else {}))
                want = getattr(a > 0, name)(axis=axis, **({"keepdims": keepdims} if name != "argmax" else {}))
                same(got, want, f"{name}(axis={axis}, keepdims={keepdims})")
    check((A > -100).all() and not (A > 100).any() and (A > 0).any() and not (A > 0).all(), "any and all")
    check(M.min() == (a > 0).min() and M.max() == (a > 0).max(), "min and max of bools (all, any)")
    check(np.all(A == A) and not np.any(A != A), "np.all / np.any")


def test_conversions_follow_numpy_truth():
    B = dmap.zeros(SHAPE, dtype=bool)
    check(B.dtype == np.dtype(bool) and not B.any(), "zeros(dtype=bool)")
    same(dmap.ones(SHAPE, dtype="bool"), np.ones(SHAPE, bool), "ones")
    same(dmap.full(SHAPE, True), np.full(SHAPE, True), "full with a bool takes dtype bool")
    x = numbers()
    x[0, 0] = np.nan
    x[1, 1] = -0.0
    B[...] = x  # NumPy's truth: nonzero (NaN too)
    check_equal(B.allgather(), x.astype(bool), "a float64 array assigned into bool")
    B[2, 3] = 0
    B[3, 2] = 7
    B[4, 4] = 0.25
    B[5, 0] = 1j
    want = x.astype(bool)
    want[2, 3], want[3, 2], want[4, 4], want[5, 0] = False, True, True, True
    check_equal(B.allgather(), want, "single elements")
    check(B[3, 2] is np.True_ or B[3, 2] == np.True_, "an element reads as numpy.bool_")
    check(type(B[2, 3]) is np.bool_, "the element's type is numpy.bool_")
    raises_everywhere(dmap.ArgumentError, lambda: B.__setitem__((0, 0), "yes"))
    raises_everywhere(dmap.ArgumentError, lambda: B.__setitem__(..., np.array(["a"] * 35).reshape(SHAPE)))
    B.fill(np.float32(0.5))
    check(B.all(), "fill converts by truth")
    A = made(numbers())
    same(A.astype(bool), numbers().astype(bool), "astype(bool)")
    same((A > 0).astype("int32"), (numbers() > 0).astype("int32"), "bool astype int32")
    same((A > 0) + 1, (numbers() > 0) + 1, "bool + int gives int64")
    same((A > 0) * A, (numbers() > 0) * numbers(), "bool * float64")


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_bool_arrays_on_every_map_and_between_maps(ndim):
    shape = {1: (23,), 2: (9, 7), 3: (6, 5, 7)}[ndim]
    ref = mixed(shape)
    arrays = {}
    for name, m in maps(shape).items():
        A = dmap.Array(dmap.Domain(m, shape), "bool")
        A[...] = ref
        check_equal(A.allgather(), ref, f"{name}: assigned and gathered")
        check(A.sum() == ref.sum(), f"{name}: count")
        arrays[name] = A
    names = list(arrays)
    for k, name in enumerate(names):  # redistribution between every neighbour pair of maps
        other = arrays[names[(k + 1) % len(names)]]
        T = dmap.Array(other.domain, "bool")
        T[...] = arrays[name]
        check_equal(T.allgather(), ref, f"{name} -> {names[(k + 1) % len(names)]}")
    check_equal(arrays[names[0]].T.allgather(), ref.T, "a transposed bool view")


def test_truth_of_an_array_is_numpys():
    one = made(np.array([True]))
    check(bool(one) and not bool(~one), "a one-element array has the truth of its element")
    A = made(numbers())
    raises_everywhere(ValueError, lambda: bool(A == A))
    e = raises_everywhere(ValueError, lambda: bool(A))
    check("any()" in str(e) and "all()" in str(e), "the message says any() or all()")


def test_bool_files_and_protocols():
    ref = mixed()
    d = COMM.bcast(tempfile.mkdtemp(prefix="dmap-py-") if COMM.rank == 0 else None)
    try:
        A = made(ref, dmap.Cyclic())
        path = os.path.join(d, "mask.npy")
        A.write_npy(path)
        COMM.Barrier()
        got = np.load(path)
        check(got.dtype == np.dtype(bool), "write_npy writes dtype bool ('|b1')")
        check_equal(got, ref, "numpy.load of write_npy")
        B = made(np.zeros(SHAPE, bool))
        B.read_npy(path)
        check_equal(B.allgather(), ref, "read_npy")
        if COMM.rank == 0:
            np.save(path, ref.astype("uint8"))
        COMM.Barrier()
        raises_everywhere(dmap.FormatError, B.read_npy, path)
    finally:
        COMM.Barrier()
        if COMM.rank == 0:
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
            os.rmdir(d)
    A = made(ref)
    check(np.asarray(A.__distarray__()["buffer"]).dtype == np.dtype(bool), "DAP buffer of dtype bool")
    check_equal(dmap.from_distarray(A.__distarray__()).allgather(), ref, "DAP round trip")
    check_equal(dmap.from_partitioned(A.__partitioned__).allgather(), ref, "__partitioned__ round trip")


def test_numbers_of_the_standard_library_convert_by_truth():
    from decimal import Decimal
    from fractions import Fraction
    B = dmap.zeros((4,), dtype=bool)
    B[0], B[1], B[2], B[3] = Decimal("0.0"), Decimal("-2.5"), Fraction(1, 3), Fraction(0)
    check_equal(B.allgather(), np.array([False, True, True, False]), "Decimal and Fraction by truth")
    raises_everywhere(dmap.ArgumentError, lambda: B.__setitem__(0, None))
    raises_everywhere(dmap.ArgumentError, lambda: B.fill([1, 2]))
