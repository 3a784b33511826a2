"""NumPy functions that dmap arrays answer without gathering (np.dot, np.vdot, np.inner,
np.linalg.norm, np.allclose, np.array_equal, np.clip, np.copy, the *_like constructors) against
NumPy, with a gather limit of zero so that any gather would fail; and the ones left to NumPy."""

import numpy as np

import dmap
from conftest import check, check_equal, raises_everywhere


def _made(x, mapping=dmap.Block()):
    A = dmap.Array(dmap.Domain(mapping, x.shape), x.dtype.name)
    A[...] = x
    return A


def test_answered_without_a_gather():
    old = dmap.set_gather_limit(0)  # a gather of anything would raise
    try:
        x, y = np.linspace(-2, 3, 11), np.cos(np.arange(11.0))
        X, Y = _made(x), _made(y, dmap.Cyclic())
        check(np.isclose(np.dot(X, Y), np.dot(x, y)) and np.isclose(np.inner(X, y), np.inner(x, y)), "dot, inner")
        z = x + 1j * y
        Z = _made(z, dmap.BlockCyclic(3))
        check(np.isclose(np.vdot(Z, Z), np.vdot(z, z)) and np.isclose(np.vdot(Z, X), np.vdot(z, x)), "vdot")
        for order in [None, 2, 1, np.inf, -np.inf]:
            check(np.isclose(np.linalg.norm(X, order), np.linalg.norm(x, order)), f"norm ord={order}")
        m = np.arange(12.0).reshape(3, 4) - 5
        M = _made(m, dmap.Cyclic())
        check(np.isclose(np.linalg.norm(M), np.linalg.norm(m)) and np.isclose(np.linalg.norm(M, "fro"), np.linalg.norm(m, "fro")),
              "Frobenius norm")
        check(np.isclose(np.linalg.norm(Z), np.linalg.norm(z)), "complex 2-norm")
        check(np.allclose(X, x) and np.allclose(X, X + 1e-12) and not np.allclose(X, X + 1e-3), "allclose")
        check(np.allclose(X, x[0] * 0 + x, atol=0) and not np.allclose(X, 0.0), "allclose with a scalar")
        check(np.array_equal(X, x) and not np.array_equal(X, x + 1) and not np.array_equal(X, x[:5]), "array_equal")
        check_equal(np.clip(X, -1, 2).allgather(), np.clip(x, -1, 2), "clip")
        check_equal(np.clip(X, None, 0).allgather(), np.clip(x, None, 0), "clip above only")
        for f in [np.zeros_like, np.ones_like, np.empty_like]:
            R = f(M)
            check(isinstance(R, dmap.Array) and R.shape == m.shape and R.domain.map == dmap.Cyclic(), f.__name__)
        F = np.full_like(M, 7.5)
        check_equal(F.allgather(), np.full_like(m, 7.5), "full_like")
        C = np.copy(M)
        check(isinstance(C, dmap.Array), "np.copy gives a dmap array")
        check_equal(C.allgather(), m, "np.copy")
    finally:
        dmap.set_gather_limit(old)


def test_left_to_numpy_under_the_gather_limit():
    x = np.arange(6.0)
    X = _made(x)
    check(np.allclose(X, x) and np.isclose(np.linalg.norm(X, 3), np.linalg.norm(x, 3)), "p-norm on the gathered array")
    check(np.allclose(_made(np.array([np.inf, 1.0])), np.array([np.inf, 1.0])), "infinities: NumPy's rules")
    check(not np.array_equal(_made(np.array([np.nan])), np.array([np.nan])), "NaN is not equal to NaN")
    check_equal(np.concatenate([X, X]), np.concatenate([x, x]), "concatenate gathers")
    old = dmap.set_gather_limit(0)
    try:
        raises_everywhere(dmap.ArgumentError, np.cumsum, X)  # a gather, refused above the limit
    finally:
        dmap.set_gather_limit(old)


def test_where_chooses_elementwise_on_the_blocks():
    old = dmap.set_gather_limit(0)
    try:
        x = np.arange(-6.0, 6.0).reshape(3, 4)
        mask = (np.arange(12).reshape(3, 4) % 3 == 0).astype(np.int32)  # numbers: nonzero is true
        X, M = _made(x), _made(mask, dmap.Cyclic())
        Y = _made(-x * 10, dmap.BlockCyclic(2))
        check_equal(np.where(M, X, Y).allgather(), np.where(mask, x, -x * 10), "three dmap arrays of three maps")
        check_equal(dmap.where(M, X, 0.5).allgather(), np.where(mask, x, 0.5), "a scalar")
        check_equal(np.where(mask.astype(bool), X, x[0]).allgather(), np.where(mask.astype(bool), x, x[0]),
                    "a NumPy bool condition and a broadcast row")
        ints = np.where(M, _made(mask * 7), 1)
        check(ints.dtype == np.where(mask, mask * 7, 1).dtype, f"NumPy's result dtype, not {ints.dtype}")
        out = dmap.zeros((3, 4), map=dmap.Cyclic())
        dmap.where(M, X, Y, out=out)
        check_equal(out.allgather(), np.where(mask, x, -x * 10), "out=")
        raises_everywhere(dmap.ArgumentError, np.where, M, X, _made(np.zeros((4, 3))))
    finally:
        dmap.set_gather_limit(old)
    check_equal(np.where(_made(np.array([0.0, 2.0, 0.0, 1.0])))[0], np.array([1, 3]), "one argument: NumPy's code")
