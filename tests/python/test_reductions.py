"""sum / prod / min / max of arrays and views over every map, against NumPy, the same value on
every locale."""

import numpy as np
import pytest
from mpi4py import MPI

import dmap
from conftest import check
from maps import maps


def _same_everywhere(x):
    values = MPI.COMM_WORLD.allgather(x)
    return all((v == values[0]) or (v != v and values[0] != values[0]) for v in values)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "complex128"])
def test_reductions_every_map(dtype):
    shape = (9, 7)
    rng = np.random.default_rng(11)
    if np.dtype(dtype).kind == "c":
        ref = (rng.integers(-50, 50, shape) + 1j * rng.integers(-50, 50, shape)).astype(dtype)
    elif np.dtype(dtype).kind == "f":
        ref = rng.uniform(-10, 10, shape).astype(dtype)
    else:
        ref = rng.integers(-1000, 1000, shape).astype(dtype)
    small = (np.ones(shape) + (np.arange(63).reshape(shape) % 5 == 0)).astype(dtype)  # products stay exact
    for name, m in maps(shape).items():
        A = dmap.Array(dmap.Domain(m, shape), dtype)
        A[...] = ref
        s = A.sum()
        check(_same_everywhere(s), f"{name}: sum differs between locales")
        if np.dtype(dtype).kind in "iu":
            check(s == ref.sum() and s.dtype == ref.sum().dtype, f"{name}: sum {s!r} != {ref.sum()!r}")
        else:
            check(np.isclose(s, ref.astype(np.complex128 if dtype == "complex128" else np.float64).sum(),
                             rtol=1e-6), f"{name}: sum {s} != {ref.sum()}")
            check(s.dtype == np.dtype(dtype), f"{name}: sum dtype {s.dtype}")
        if np.dtype(dtype).kind != "c":
            check(A.min() == ref.min() and A.max() == ref.max(), f"{name}: min/max")
            check(A.min().dtype == np.dtype(dtype))
            V = A[1:8:3, ::-2]
            check(V.min() == ref[1:8:3, ::-2].min() and V.max() == ref[1:8:3, ::-2].max(), f"{name}: view min/max")
        check(np.isclose(A[2:5].sum(), ref[2:5].sum(), rtol=1e-6), f"{name}: view sum")
        A[...] = small
        check(A.prod() == small.prod(), f"{name}: prod {A.prod()} != {small.prod()}")


def test_min_max_with_nan_and_empty():
    D = dmap.Domain(dmap.Cyclic(), (10,))
    A = dmap.Array(D, "float64")
    ref = np.arange(10.0)
    ref[7] = np.nan
    A[...] = ref
    check(np.isnan(A.min()) and np.isnan(A.max()) and np.isnan(A.sum()))
    check(A[:7].max() == 6.0 and A[8:].min() == 8.0)
    E = dmap.Array(dmap.Domain(dmap.Block(), (0,)), "int64")
    check(E.sum() == 0 and E.prod() == 1)
    from conftest import raises_everywhere

    raises_everywhere(dmap.ArgumentError, E.min)
    raises_everywhere(dmap.ArgumentError, A[3:3].max)
    C = dmap.Array(D, "complex128")
    raises_everywhere(dmap.UnsupportedError, C.min)


def test_reduce_large_int32_sum_widens():
    A = dmap.Array(dmap.Domain(dmap.BlockCyclic(5), (100000,)), "int32")
    A.fill(2**30)
    check(A.sum() == 100000 * 2**30 and A.sum().dtype == np.int64)
