"""Element-wise operations that stay distributed (operators, NumPy's ufuncs, out=, in-place,
astype) against NumPy on the gathered arrays."""

import numpy as np
import pytest

import dmap
from conftest import check, check_equal, raises_everywhere
from maps import maps
from samples import made, sample_values

DTYPES = ["float64", "float32", "int64", "int32", "complex128"]
MAPS = [dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic(2)]
SHAPE = (5, 7)


def values(dtype, shape=SHAPE, shift=0):
    return sample_values(dtype, shape, shift)


def same(got, want, msg):
    check(isinstance(got, dmap.Array), f"{msg}: a dmap array, not {type(got).__name__}")
    check(got.dtype == want.dtype, f"{msg}: dtype {got.dtype} != {want.dtype}")
    check_equal(got.allgather(), want, msg)


OPERATORS = [
    ("+", lambda a, b: a + b), ("-", lambda a, b: a - b), ("*", lambda a, b: a * b), ("/", lambda a, b: a / b),
]
INTEGER_OPERATORS = [("//", lambda a, b: a // b), ("%", lambda a, b: a % b), ("**", lambda a, b: a ** b)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left,right", [(0, 0), (0, 1), (1, 2)], ids=["same map", "Block-Cyclic", "Cyclic-BlockCyclic"])
def test_operators_between_arrays_of_any_maps(dtype, left, right):
    a, b = values(dtype), values(dtype, shift=7)  # b has no zero: a divisor
    b[b == 0] = 3
    A, B = made(a, MAPS[left]), made(b, MAPS[right])
    ops = OPERATORS + (INTEGER_OPERATORS if np.dtype(dtype).kind in "iu" else [])
    for name, op in ops:
        if name == "**":
            b_small = np.abs(b) % 4
            same(op(A, made(b_small, MAPS[right])), op(a, b_small), f"A ** B ({dtype})")
            continue
        got = op(A, B)
        same(got, op(a, b), f"A {name} B ({dtype})")
        check(got.domain.map == MAPS[left], "the result takes the left operand's map")


@pytest.mark.parametrize("dtype", DTYPES)
def test_operators_with_scalars_and_numpy_arrays_broadcast(dtype):
    a = values(dtype)
    A = made(a, dmap.Cyclic())
    scalars = [3, 2.5, np.float32(1.5), 2**40]
    if np.dtype(dtype).kind == "c":
        scalars.append(1 - 2j)
    for s in scalars:
        for name, op in OPERATORS:
            same(op(A, s), op(a, s), f"A {name} {s!r} ({dtype})")
            same(op(s, A), op(s, a), f"{s!r} {name} A ({dtype})")
    row, column = np.arange(1, 8).astype(dtype), np.arange(1, 6).reshape(5, 1).astype("float32")
    for other in [row, column, values(dtype), np.array(4, dtype)]:
        for name, op in OPERATORS:
            same(op(A, other), op(a, other), f"A {name} ndarray{other.shape}")
            same(op(other, A), op(other, a), f"ndarray{other.shape} {name} A (reflected: stays distributed)")
    same(-A, -a, "-A")
    same(+A, +a, "+A")
    same(abs(A), abs(a), "abs(A)")


@pytest.mark.parametrize("mapping", MAPS, ids=repr)
def test_ufuncs_and_out(mapping):
    a = values("float64")
    A, B = made(a, mapping), made(a * 0.5 - 1, dmap.Cyclic())
    for f in [np.sin, np.cos, np.exp, np.absolute, np.negative, np.floor, np.square]:
        same(f(A), f(a), f.__name__)
    same(np.sqrt(abs(A)), np.sqrt(abs(a)), "sqrt")
    same(np.maximum(A, B), np.maximum(a, a * 0.5 - 1), "maximum")
    same(np.arctan2(A, B), np.arctan2(a, a * 0.5 - 1), "arctan2")
    C = dmap.zeros(SHAPE, map=dmap.BlockCyclic(3))
    got = np.minimum(A, B, out=C)
    check(got is C, "out= returns out")
    same(C, np.minimum(a, a * 0.5 - 1), "minimum into out of a third map")
    W = dmap.zeros((9, 9))
    view = W[2:7, 1:8]
    np.add(A, 1, out=view)
    want = np.zeros((9, 9))
    want[2:7, 1:8] = a + 1
    check_equal(W.allgather(), want, "out= a view writes through it")
    I32 = dmap.zeros(SHAPE, "int32")
    raises_everywhere(dmap.ArgumentError, np.add, A, 1, out=I32)  # float into int: NumPy's same_kind refuses
    np.add(made(values("int32")), 1, out=I32)
    check_equal(I32.allgather(), values("int32") + 1, "int32 + int into int32")


@pytest.mark.parametrize("name", list(maps(SHAPE).keys()))
def test_every_map_with_itself_and_with_block(name):
    a, b = values("float64"), values("int64", shift=3).astype("float64")
    A = made(a, maps(SHAPE)[name])
    B = made(b, dmap.Block())
    same(A * 2 + A, a * 2 + a, f"{name} with itself")
    got = A - B
    same(got, a - b, f"{name} - Block")
    check(got.domain.map == A.domain.map, "the left operand's map")
    same(B - A, b - a, f"Block - {name}")
    A += B
    check_equal(A.allgather(), a + b, f"{name} += Block")


def test_in_place_operators_keep_the_array():
    a, b = values("float64"), values("float64", shift=2)
    A = made(a, dmap.Block())
    before = A
    A += made(b, dmap.Cyclic())
    A *= 2
    A -= np.arange(7.0)
    A /= 4
    check(A is before, "in-place operators return the same array")
    check_equal(A.allgather(), ((a + b) * 2 - np.arange(7.0)) / 4, "in place")
    V = A[1:4, ::2]
    V += 100
    want = ((a + b) * 2 - np.arange(7.0)) / 4
    want[1:4, ::2] += 100
    check_equal(A.allgather(), want, "in place on a view writes through it")
    same(A + A[::-1, ::-1], want + want[::-1, ::-1], "an operand that is a view of the target's array")


def test_views_as_operands_give_block():
    a = values("int64", (8, 9))
    A = made(a, dmap.Cyclic())
    got = A[1:6, ::2] * A[3:8, 4:9]
    same(got, a[1:6, ::2] * a[3:8, 4:9], "views of different parts")
    check(got.domain.map == dmap.Block(), "views only: Block")


def test_ufunc_above_the_gather_limit_stays_distributed():
    before = dmap.gather_limit()
    try:
        dmap.set_gather_limit(8)
        a = values("float64")
        got = np.exp(made(a))
        check(isinstance(got, dmap.Array), "no gather: a dmap array")
        dmap.set_gather_limit(before)
        check_equal(got.allgather(), np.exp(a), "exp")
    finally:
        dmap.set_gather_limit(before)


@pytest.mark.parametrize("source", DTYPES)
def test_astype_converts_as_numpy(source):
    a = values(source) * 3
    A = made(a, dmap.BlockCyclic(2))
    for target in DTYPES:
        if np.dtype(source).kind == "c" and np.dtype(target).kind != "c":
            continue  # NumPy warns and drops the imaginary part; dmap does the same, untested here
        got = A.astype(target)
        same(got, a.astype(target), f"{source} -> {target}")
        check(got.domain.map == dmap.BlockCyclic(2), "astype keeps the map")
    same(A[1:4, ::3].astype("float32"), a[1:4, ::3].astype("float32"), "astype of a view")


def test_bad_operations_fail_on_every_locale():
    A, B = made(values("float64")), made(values("float64", (7, 5)))
    cases = [
        (lambda: A + B, "do not broadcast"),
        (lambda: A + made(values("float64", (7,))), "dmap operand of shape (7,)"),
        (lambda: np.add.accumulate(A), "accumulate"),
        (lambda: np.subtract.reduce(A), "reduce"),
        (lambda: np.add(A, 1, where=True), "where"),
        (lambda: np.divmod(A, 2), "2 outputs"),
        (lambda: A + np.zeros((5, 7), "U1"), "dtype <U1"),
        (lambda: A + 2**70, ""),
        (lambda: np.add(A, 1, out=np.zeros(SHAPE)), "must be a dmap array"),
        (lambda: A.astype("uint8"), "not one of dmap's"),
        (lambda: A.astype("no such dtype"), "not a NumPy dtype"),
    ]
    for fn, words in cases:
        e = raises_everywhere(dmap.ArgumentError, fn)
        check(words in str(e), f"the message says why: {e}")
    same(A + 1, values("float64") + 1, "the locales are in step afterwards")


def test_operands_that_differ_per_locale_fail_everywhere():
    if dmap.num_locales() == 1:
        pytest.skip("one rank agrees with itself")
    A = made(values("float64"))
    r = dmap.here()
    raises_everywhere(dmap.ArgumentError, lambda: A + r)
    raises_everywhere(dmap.ArgumentError, lambda: A * np.full(7, float(r)))
    raises_everywhere(dmap.ArgumentError, lambda: A.astype("float32" if r else "int64"))
    same(A - 1, values("float64") - 1, "the locales are in step afterwards")
