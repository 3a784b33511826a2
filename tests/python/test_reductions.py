"""Reductions of arrays and views over every map against NumPy: sum / prod / min / max of every
element (the same value on every locale), and every reduction with axis and keepdims, as methods,
NumPy's functions and ufunc.reduce."""

import numpy as np
import pytest
from mpi4py import MPI

import dmap
from conftest import check, check_equal, raises_everywhere
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


KINDS = ["sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax"]


def _made(values, mapping=dmap.Block()):
    A = dmap.Array(dmap.Domain(mapping, values.shape), values.dtype.name)
    A[...] = values
    return A


def _close(got, want, msg, exact=False):
    """got (a dmap array or a NumPy scalar) against NumPy's want: shape, dtype and values."""
    if isinstance(got, dmap.Array):
        check(isinstance(want, np.ndarray), f"{msg}: a dmap array where NumPy gives a scalar")
        got = got.allgather()
    else:
        check(not isinstance(got, np.ndarray) and np.ndim(got) == 0, f"{msg}: {type(got).__name__}, not a scalar")
    check(np.shape(got) == np.shape(want), f"{msg}: shape {np.shape(got)} != {np.shape(want)}")
    check(np.asarray(got).dtype == np.asarray(want).dtype, f"{msg}: dtype {np.asarray(got).dtype} != {np.asarray(want).dtype}")
    if exact:
        check_equal(got, want, msg)
    else:
        check(np.allclose(got, want, rtol=1e-5, atol=1e-9, equal_nan=True), f"{msg}: {got} != {want}")


def _axes(ndim, arg):
    out = [None] + list(range(-1, ndim))
    if not arg and ndim > 1:
        out += [(0, ndim - 1)]
    if not arg and ndim > 2:
        out += [(0, 1, 2)]
    return out


@pytest.mark.parametrize("shape", [(5, 7), (3, 4, 5)], ids=["2-D", "3-D"])
def test_axis_reductions_every_map(shape):
    x = np.random.default_rng(3).uniform(-4, 4, shape) + 10
    every = maps(shape)
    chosen = every if len(shape) == 2 else {k: every[k] for k in ("blockcyclic", "stencil_periodic", "hashed")}
    for name, m in chosen.items():
        A = _made(x, m)
        for kind in KINDS:
            arg = kind.startswith("arg")
            for axis in _axes(len(shape), arg):
                for keepdims in [False] if arg else [False, True] if kind in ("sum", "var") else [axis == -1]:
                    kw = {"axis": axis} if arg else {"axis": axis, "keepdims": keepdims}
                    _close(getattr(A, kind)(**kw), getattr(x, kind)(**kw), f"{name}: {kind}({kw})", exact=arg)


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "complex128"])
def test_axis_reductions_follow_numpy_dtypes(dtype):
    rng = np.random.default_rng(5)
    x = rng.integers(-9, 9, (6, 5)).astype(dtype)
    if dtype == "complex128":
        x = x + 1j * x[::-1]
    for m in [dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic(2)]:
        A = _made(x, m)
        kinds = ["sum", "prod", "mean", "var", "std"] + ([] if dtype == "complex128" else ["min", "max", "argmax"])
        for kind in kinds:
            for axis in [0, 1, None]:
                exact = dtype.startswith("int") and kind in ("sum", "prod", "min", "max", "argmax")
                _close(getattr(A, kind)(axis=axis), getattr(x, kind)(axis=axis), f"{m}: {kind}(axis={axis})", exact)
        for dt in ["complex128"] if dtype == "complex128" else ["float64", "int64", "float32"]:
            _close(A.sum(axis=0, dtype=dt), x.sum(axis=0, dtype=dt), f"sum(axis=0, dtype={dt})", exact=dt == "int64")
        _close(A.mean(axis=1, dtype="float32"), x.mean(axis=1, dtype="float32"), "mean(dtype=float32)")
        _close(A.var(axis=0, ddof=1), x.var(axis=0, ddof=1), "var(ddof=1)")
        _close(A.std(ddof=2), x.std(ddof=2), "std(ddof=2)")


def test_reductions_of_views():
    x = np.arange(9 * 8, dtype="float64").reshape(9, 8) % 13
    for m in [dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic((2, 3))]:
        A = _made(x, m)
        for key in [(slice(1, 8, 3), slice(None, None, -2)), (slice(None, None, -1), 3), (slice(2, 7), slice(1, 7, 2))]:
            V, v = A[key], x[key]
            for kind in KINDS:
                for axis in [None, 0] if v.ndim == 1 else [None, 0, 1]:
                    exact = kind in ("sum", "min", "max", "argmin", "argmax")
                    _close(getattr(V, kind)(axis=axis), getattr(v, kind)(axis=axis), f"{m} view {key}: {kind}", exact)


def test_numpy_functions_and_ufunc_reduce():
    x = np.arange(30, dtype="float64").reshape(5, 6) % 7 - 2
    A = _made(x, dmap.Cyclic())
    _close(np.sum(A, axis=0), np.sum(x, axis=0), "np.sum(A, axis=0)", exact=True)
    _close(np.sum(A, 1), np.sum(x, 1), "np.sum(A, 1)", exact=True)
    _close(np.mean(A, axis=0), np.mean(x, axis=0), "np.mean")
    _close(np.std(A), np.std(x), "np.std")
    _close(np.var(A, axis=1, ddof=1, keepdims=True), np.var(x, axis=1, ddof=1, keepdims=True), "np.var")
    _close(np.argmax(A, axis=1), np.argmax(x, axis=1), "np.argmax", exact=True)
    _close(np.amin(A), np.amin(x), "np.amin", exact=True)
    _close(np.max(A, axis=(0, 1), keepdims=True), np.max(x, axis=(0, 1), keepdims=True), "np.max", exact=True)
    _close(np.add.reduce(A), np.add.reduce(x), "np.add.reduce", exact=True)
    _close(np.maximum.reduce(A, axis=1), np.maximum.reduce(x, axis=1), "np.maximum.reduce", exact=True)
    _close(np.multiply.reduce(A, axis=None), np.multiply.reduce(x, axis=None), "np.multiply.reduce", exact=True)
    check(np.any(A) == np.any(x) and np.all(A) == np.all(x) and isinstance(np.all(A), np.bool_), "np.any/np.all")
    check(A[0:1, 3:4].all() and not dmap.zeros(5).any(), "any/all of views and zeros")
    # A function dmap does not answer runs NumPy's code on the gathered array (under gather_limit).
    check(np.allclose(A, x) and np.array_equal(np.cumsum(A, axis=0), np.cumsum(x, axis=0)), "np.allclose, np.cumsum")


def test_extremes_nan_and_ties_follow_numpy():
    x = np.zeros((7, 6))
    x[1, 2] = x[5, 2] = x[3, 4] = 9  # ties: the first position wins
    x[4, 1] = x[6, 1] = np.nan  # NaN wins argmax and argmin, the first one
    x[2, 5] = -9
    for m in [dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic(2)]:
        A = _made(x, m)
        for kind in ["argmax", "argmin"]:
            for axis in [None, 0, 1]:
                _close(getattr(A, kind)(axis=axis), getattr(x, kind)(axis=axis), f"{m}: {kind}({axis})", exact=True)
        for kind in ["min", "max"]:
            _close(getattr(A, kind)(axis=0), getattr(x, kind)(axis=0), f"{m}: {kind}(axis=0)", exact=True)
        y = np.full((4, 5), np.inf)
        _close(_made(y, m).min(axis=1), y.min(axis=1), "min of +inf is +inf", exact=True)


def test_variance_far_from_zero_keeps_its_digits():
    x = 1e9 + np.random.default_rng(8).standard_normal((64, 3))
    for m in [dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic(5)]:
        A = _made(x, m)
        check(np.allclose(A.var(axis=0), x.var(axis=0), rtol=1e-6), f"{m}: var far from zero")
        check(np.isclose(A.std(), x.std(), rtol=1e-6), f"{m}: std far from zero")


def test_reductions_over_empty_dimensions():
    for shape in [(0, 4), (4, 0)]:
        x = np.zeros(shape)
        A = _made(x, dmap.Block())
        for axis in [0, 1]:
            _close(A.sum(axis=axis), x.sum(axis=axis), f"sum of {shape} along {axis}", exact=True)
            _close(A.prod(axis=axis), x.prod(axis=axis), f"prod of {shape} along {axis}", exact=True)
            if shape[axis] == 0:
                raises_everywhere(dmap.ArgumentError, A.max, axis=axis)
                raises_everywhere(dmap.ArgumentError, A.argmin, axis=axis)
        with np.errstate(invalid="ignore"):
            _close(A.mean(axis=shape.index(0)), x.mean(axis=shape.index(0)), "mean of nothing is NaN")


def test_bad_reduction_arguments_fail_on_every_locale(nlocales, rank):
    A = _made(np.ones((4, 5)))
    for call in [lambda: A.sum(axis=2), lambda: A.sum(axis=(0, 0)), lambda: A.sum(axis=1.0), lambda: A.argmax(axis=(0, 1)),
                 lambda: A.max(axis=0, out=A), lambda: A.min(initial=3), lambda: A.sum(keepdims="yes"),
                 lambda: A.var(ddof=-1), lambda: A.min(axis=0, dtype="float32"), lambda: A.sum(dtype="int8"),
                 lambda: A.sum(0, None, None, False, 5), lambda: np.sum(A, where=True)]:
        raises_everywhere(dmap.ArgumentError, call)
    raises_everywhere(dmap.UnsupportedError, A.astype("complex128").max, axis=0)
    if nlocales > 1:  # the arguments differ between locales
        e = raises_everywhere(dmap.ArgumentError, A.sum, axis=rank % 2)
        check("differ" in str(e) or "arguments" in str(e), f"names the disagreement: {e}")
    _close(A.sum(axis=1), np.ones((4, 5)).sum(axis=1), "the array works after the errors", exact=True)
