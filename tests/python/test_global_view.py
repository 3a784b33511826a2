"""The global view from Python (docs/guide/memory-model.md): what a collective call wrote is what
every rank reads next, with no barrier; arguments that differ between ranks are a named error on
every rank, never a hang or silently different data."""

import numpy as np
import pytest
from mpi4py import MPI

import dmap
from conftest import check, check_equal, raises_everywhere

COMM = MPI.COMM_WORLD
ROUNDS = 2000


@pytest.mark.parametrize("writer", ["ndarray", "fill", "array", "in_place", "ufunc"])
def test_reads_after_a_collective_write_are_never_stale(writer):
    n = 1000
    D = dmap.Domain(dmap.Block(), (n,))
    A = dmap.Array(D, "float64")
    src = dmap.Array(dmap.Domain(dmap.Cyclic(), (n,)), "float64")
    base = np.arange(float(n))
    p = dmap.num_locales()
    i = n * ((dmap.here() + 1) % p + 1) // p - 1  # the last index of the next rank's block
    stale = 0
    for k in range(1, ROUNDS + 1):
        if writer == "ndarray":
            A[...] = base + k
            want = i + k
        elif writer == "fill":
            A.fill(float(k))
            want = k
        elif writer == "in_place":  # each locale writes its own blocks through NumPy
            A += 1.0
            want = k
        elif writer == "ufunc":  # src of another map: copied into A's placement, then written
            np.add(src, float(k), out=A)
            want = k
        else:
            src.fill(float(k))
            A[...] = src
            want = k
        got = A[i]
        if got < want:
            stale += 1
    check(stale == 0, f"{stale} stale reads of element {i} in {ROUNDS} rounds ({writer})")


@pytest.mark.parametrize("maker", ["sum_axis", "reshape", "where", "transpose_copy"])
def test_new_arrays_read_right_after_they_are_made_are_never_stale(maker):
    """Results that are new arrays (reductions along an axis, reshape, where, a transposed copy)
    may take over the storage of earlier, dropped results: a remote element read right after the
    call returns this round's value, never an earlier round's or the zero of a fresh array."""
    n, p = 240, dmap.num_locales()
    A = dmap.Array(dmap.Domain(dmap.Cyclic(), (4, n)), "float64")
    stale = 0
    for k in range(1, 41):
        A.fill(float(k))
        if maker == "sum_axis":
            X, want = A.sum(axis=0), 4.0 * k
        elif maker == "reshape":
            X, want = A.reshape(4 * n), float(k)
        elif maker == "where":
            X, want = np.where(A, A, -1.0), float(k)
        else:
            X = dmap.zeros((n, 4))
            X[...] = A.T
            want = float(k)
        last = X.shape[0] - 1
        i = (X.shape[0] * ((dmap.here() + 1) % p + 1)) // p - 1  # in the next rank's Block chunk
        got = X[min(i, last)] if X.ndim == 1 else X[min(i, last), 3]
        stale += got != want
    check(stale == 0, f"{stale} stale reads in 40 rounds ({maker})")


def test_fill_value_that_differs_per_rank_fails_everywhere():
    A = dmap.Array(dmap.Domain(dmap.Block(), (7, 5)), "float64")
    A.fill(1.0)
    if dmap.num_locales() > 1:
        raises_everywhere(dmap.ArgumentError, A.fill, float(dmap.here()))
    check_equal(A.allgather(), np.ones((7, 5)), "the array is unchanged")


def test_slices_that_differ_per_rank_fail_everywhere():
    if dmap.num_locales() == 1:
        pytest.skip("one rank agrees with itself")
    A = dmap.Array(dmap.Domain(dmap.Block(), (23,)), "float64")
    C = dmap.Array(dmap.Domain(dmap.Cyclic(), (23,)), "float64")
    A.fill(1.0)
    C.fill(2.0)
    lo = 0 if dmap.here() == 0 else 1

    def same_shape_other_indices():
        A[0:3] = C[lo:lo + 3]

    raises_everywhere(dmap.ArgumentError, same_shape_other_indices)

    def other_shape():
        A[0:3] = C[0:3 + lo]

    raises_everywhere(dmap.ShapeError, other_shape)  # the shape check fails on the other ranks first
    check_equal(A.allgather(), np.ones(23), "the target is unchanged")


def test_ndarray_that_differs_per_rank_fails_everywhere():
    if dmap.num_locales() == 1:
        pytest.skip("one rank agrees with itself")
    A = dmap.Array(dmap.Domain(dmap.Block(), (10,)), "float64")
    A.fill(0.0)
    values = np.arange(10.0)
    if dmap.here() == dmap.num_locales() - 1:
        values[3] = -1.0
    raises_everywhere(dmap.ArgumentError, A.__setitem__, Ellipsis, values)
    check_equal(A.allgather(), np.zeros(10), "the target is unchanged")


def test_dtype_that_differs_per_rank_fails_everywhere():
    if dmap.num_locales() == 1:
        pytest.skip("one rank agrees with itself")
    D = dmap.Domain(dmap.Block(), (8,))
    raises_everywhere(dmap.ArgumentError, dmap.Array, D, "float64" if dmap.here() == 0 else "int64")
    B = dmap.Array(D, "float64")
    B.fill(3.0)
    check(B.sum() == 24.0, "dmap works afterwards")
