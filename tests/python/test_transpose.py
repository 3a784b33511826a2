"""Transposed views (A.T, A.transpose(axes), np.transpose): no copy, every map, against NumPy:
gathers, local blocks, subscripts, assignment both ways, element-wise operations, reductions."""

import numpy as np
import pytest

import dmap
from conftest import check, check_equal, raises_everywhere
from maps import maps


@pytest.mark.parametrize("shape", [(5, 7), (3, 4, 5)], ids=["2-D", "3-D"])
def test_transposed_views_every_map(shape):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    orders = [None, (1, 0)] if len(shape) == 2 else [None, (1, 2, 0), (2, 0, 1), (0, 2, 1)]
    for name, m in maps(shape).items():
        A = dmap.Array(dmap.Domain(m, shape))
        A[...] = x
        if name.startswith("stencil"):
            dmap.update_halos(A)  # element reads see ghost cells
        for axes in orders:
            V, v = (A.T, x.T) if axes is None else (A.transpose(axes), x.transpose(axes))
            msg = f"{name} transpose {axes}"
            check(V.is_view and V.shape == v.shape, f"{msg}: shape {V.shape}")
            check_equal(V.allgather(), v, msg)
            check(all(np.array_equal(b, v[s]) and np.shares_memory(b, a)
                      for b, s, a in zip(V.local_blocks(), V.local_slices(), A.local_blocks())) or name in
                  ("hashed", "hashed_default", "unstructured"), f"{msg}: local blocks are views of A's storage")
            check(all(np.array_equal(b, v[s]) for b, s in zip(V.local_blocks(), V.local_slices())), f"{msg}: blocks")
            last = tuple(n - 1 for n in v.shape)
            check(V[last] == v[last] and V[(0,) * len(shape)] == v[(0,) * len(shape)], f"{msg}: elements")
            key = (slice(1, None, 2),) + (slice(None, None, -1),) * (len(shape) - 1)
            check_equal(V[key].allgather(), v[key], f"{msg}: a slice of the view")
        B = dmap.zeros(x.T.shape, map=dmap.Cyclic())
        B[...] = A.T
        check_equal(B.allgather(), x.T, f"{name}: B[...] = A.T")
        C = dmap.zeros(shape, map=m)
        C.T[...] = B
        check_equal(C.allgather(), x, f"{name}: C.T[...] = B")
        check_equal((A.T * 2).allgather(), x.T * 2, f"{name}: A.T * 2")
        check(np.allclose(A.T.sum(axis=0).allgather(), x.T.sum(axis=0)), f"{name}: A.T.sum(axis=0)")


def test_numpy_transpose_and_forms_of_axes():
    y = np.arange(24.0).reshape(2, 3, 4)
    Y = dmap.Array(dmap.Domain(dmap.BlockCyclic(2), y.shape))
    Y[...] = y
    check_equal(np.transpose(Y).allgather(), np.transpose(y), "np.transpose(Y)")
    check_equal(np.transpose(Y, (1, 2, 0)).allgather(), np.transpose(y, (1, 2, 0)), "np.transpose(Y, axes)")
    check_equal(np.transpose(Y, axes=(2, 0, 1)).allgather(), np.transpose(y, axes=(2, 0, 1)), "axes=")
    check_equal(Y.transpose(1, 0, 2).allgather(), y.transpose(1, 0, 2), "transpose(1, 0, 2)")
    check_equal(Y.transpose(-1, 0, 1).allgather(), y.transpose(-1, 0, 1), "negative axes")
    check_equal(Y.T.T.allgather(), y, "T of T")
    check(not Y.T.T.is_view or Y.T.T.shape == y.shape, "T of T")
    check_equal(Y[1].T.allgather(), y[1].T, "the transpose of a rank-change view")
    check_equal(Y.T[:, 1].allgather(), y.T[:, 1], "a rank change of a transposed view")
    for bad in [(0, 1), (0, 0, 1), (0, 1, 3), ("a", 1, 2), 5]:
        raises_everywhere(dmap.ArgumentError, Y.transpose, bad)
