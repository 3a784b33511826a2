"""Paths that bring a whole array to one or every locale: gather (mpi4py's root convention),
allgather, and the implicit conversion to NumPy (__array__), refused above dmap.gather_limit()."""

import numpy as np
import pytest

import dmap
from conftest import check, check_equal, raises_everywhere

SHAPE = (7, 9)


def filled(mapping=None, dtype="float64", shape=SHAPE):
    A = dmap.Array(dmap.Domain(mapping or dmap.Block(), shape), dtype)
    ref = np.arange(np.prod(shape), dtype=dtype).reshape(shape) * 3 - 5
    A[...] = ref
    return A, ref


@pytest.fixture
def limit():
    """Restores the gather limit a test changes."""
    before = dmap.gather_limit()
    yield before
    dmap.set_gather_limit(before)


@pytest.mark.parametrize("mapping", [dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic(2)], ids=repr)
def test_gather_delivers_to_root_only_and_allgather_everywhere(mapping):
    A, ref = filled(mapping)
    p = dmap.num_locales()
    for root in sorted({0, p - 1, p // 2}):
        got = A.gather(root) if root else A.gather()  # mpi4py's default root is 0
        check((got is None) == (dmap.here() != root), f"gather(root={root}) delivers to locale {root} only")
        if got is not None:
            check(np.array_equal(got, ref) and got.flags.c_contiguous, f"gather(root={root}) holds the elements")
        else:
            check(True)  # keeps the collective checks in step with the root's
    check_equal(A.allgather(), ref, "allgather")
    view = A[1:6:2, ::-3]
    got = view.gather(p - 1)
    check((got is None) == (dmap.here() != p - 1))
    check(got is None or np.array_equal(got, ref[1:6:2, ::-3]), "a view gathers its own elements")
    check_equal(view.allgather(), ref[1:6:2, ::-3], "a view's allgather")


@pytest.mark.parametrize(
    "root",
    [None, -1, 2**31, 2**63 - 1, -(2**63), True, 1.0, "0", np.float64(0)],
    ids=["None", "-1", "2^31", "int64 max", "int64 min", "True", "1.0", "'0'", "np.float64"],
)
def test_gather_refuses_a_bad_root_on_every_locale(root):
    A, ref = filled()
    e = raises_everywhere(dmap.ArgumentError, A.gather, root)
    check("dmap.Array.gather" in str(e) and "root" in str(e), f"the message names the argument: {e}")
    if root is None:
        check("allgather" in str(e), "None points to allgather")
    check_equal(A.allgather(), ref, "the array is unchanged and the locales in step")


def test_gather_root_past_the_last_locale_fails_everywhere():
    A, _ = filled()
    e = raises_everywhere(dmap.ArgumentError, A.gather, dmap.num_locales())
    check(f"[0, {dmap.num_locales()})" in str(e), f"the message gives the locales: {e}")


def test_gather_root_that_differs_per_locale_fails_everywhere():
    if dmap.num_locales() == 1:
        pytest.skip("one rank agrees with itself")
    A, ref = filled()
    raises_everywhere(dmap.ArgumentError, A.gather, dmap.here())
    check_equal(A.allgather(), ref, "the locales are in step after the refusal")


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "complex128"])
def test_numpy_conversion_is_an_allgather(dtype):
    A, ref = filled(dmap.Cyclic(), dtype)
    got = np.asarray(A)
    check(type(got) is np.ndarray and got.dtype == np.dtype(dtype), "np.asarray gives a NumPy array of the dtype")
    check_equal(got, ref, "np.asarray(A)")
    check_equal(np.asarray(A[2:5, 1::4]), ref[2:5, 1::4], "np.asarray of a view")
    as_f32 = np.asarray(A, dtype=np.complex64 if dtype == "complex128" else np.float32)
    check(as_f32.dtype in (np.float32, np.complex64), "np.asarray(A, dtype) converts")
    check_equal(np.concatenate([A, A]), np.concatenate([ref, ref]), "a NumPy function that is not a ufunc converts")


def test_numpy_conversion_refused_above_the_limit_on_every_locale(limit):
    check(limit == 64 << 20, "the documented default: 64 MiB")
    A, ref = filled()
    nbytes = ref.nbytes
    check(dmap.set_gather_limit(nbytes) == limit, "set_gather_limit returns the previous limit")
    check(dmap.gather_limit() == nbytes)
    check_equal(np.asarray(A), ref, "an array of exactly the limit converts")
    dmap.set_gather_limit(nbytes - 1)
    e = raises_everywhere(dmap.ArgumentError, np.asarray, A)
    check(str(nbytes) in str(e) and "gather_limit" in str(e) and "allgather" in str(e), f"the message: {e}")
    check(isinstance(np.sin(A), dmap.Array), "a ufunc stays distributed: no gather, no limit")
    check_equal(np.asarray(A[:3]), ref[:3], "a view under the limit converts")
    check_equal(A.allgather(), ref, "an explicit allgather has no limit")
    g = A.gather(0)
    check(g is None or np.array_equal(g, ref), "an explicit gather has no limit")
    dmap.set_gather_limit(0)
    empty = dmap.Array(dmap.Domain(dmap.Block(), (0, 4)), "float64")
    check(np.asarray(empty).shape == (0, 4), "an empty array converts under a zero limit")


def test_numpy_conversion_with_limits_that_differ_fails_everywhere(limit):
    if dmap.num_locales() == 1:
        pytest.skip("one rank agrees with itself")
    A, ref = filled()
    dmap.set_gather_limit(limit + dmap.here())
    raises_everywhere(dmap.ArgumentError, np.asarray, A)
    dmap.set_gather_limit(limit)
    check_equal(np.asarray(A), ref, "the same limit everywhere converts again")


def test_numpy_conversion_refuses_copy_false_on_every_locale():
    A, _ = filled()
    e = raises_everywhere(dmap.ArgumentError, A.__array__, copy=False)
    check("copy=False" in str(e), f"the message: {e}")
    check(np.array_equal(A.__array__(copy=True), A.allgather()), "copy=True is the conversion")


@pytest.mark.parametrize("nbytes", [-1, -(2**63), 2**63, True, None, "64", 1.5])
def test_set_gather_limit_refuses_bad_values(limit, nbytes):
    with pytest.raises(dmap.ArgumentError, match="dmap.set_gather_limit: nbytes"):
        dmap.set_gather_limit(nbytes)
    check(dmap.gather_limit() == limit, "a refused value leaves the limit as it was")
