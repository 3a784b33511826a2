"""NumPy's constructors (empty, zeros, ones, full, arange, linspace, *_like), itemsize/nbytes and
repr with values, against NumPy itself."""

import numpy as np
import pytest

import dmap
from conftest import check, check_equal, raises_everywhere

MAPS = [dmap.Block(), dmap.Cyclic(), dmap.BlockCyclic(3)]
DTYPES = ["float64", "float32", "int64", "int32", "complex128"]


def same(A, ref, msg):
    check(A.dtype == ref.dtype, f"{msg}: dtype {A.dtype} != {ref.dtype}")
    check_equal(A.allgather(), ref, msg)


@pytest.mark.parametrize("mapping", MAPS, ids=repr)
@pytest.mark.parametrize("dtype", DTYPES)
def test_filled_constructors_equal_numpy(mapping, dtype):
    for shape in [7, (7,), (4, 9), (3, 2, 5), (0, 4)]:
        same(dmap.zeros(shape, dtype, map=mapping), np.zeros(shape, dtype), f"zeros {shape}")
        same(dmap.empty(shape, dtype, map=mapping), np.zeros(shape, dtype), f"empty {shape} (zeros)")
        same(dmap.ones(shape, dtype, map=mapping), np.ones(shape, dtype), f"ones {shape}")
        same(dmap.full(shape, 7, dtype, map=mapping), np.full(shape, 7, dtype), f"full {shape}")
    A = dmap.zeros((4, 9), dtype, map=mapping)
    check(A.domain.map == mapping, "the map asked for")
    check(A.itemsize == np.dtype(dtype).itemsize and A.nbytes == 36 * np.dtype(dtype).itemsize, "itemsize, nbytes")


def test_defaults_and_inferred_dtypes():
    check(dmap.zeros(5).domain.map == dmap.Block() and dmap.zeros(5).dtype == np.float64, "Block, float64")
    for value, want in [(7, "int64"), (2.5, "float64"), (1 + 2j, "complex128"), (np.float32(1.5), "float32")]:
        same(dmap.full((3, 2), value), np.full((3, 2), value), f"full with {value!r}")
        check(dmap.full(3, value).dtype == want, f"full({value!r}) is {want}")


@pytest.mark.parametrize("mapping", MAPS, ids=repr)
def test_like_forms_keep_shape_dtype_and_map(mapping):
    a = dmap.full((5, 4), 2, "int32", map=mapping)
    for made, ref in [(dmap.zeros_like(a), np.zeros((5, 4), "int32")), (dmap.empty_like(a), np.zeros((5, 4), "int32")),
                      (dmap.ones_like(a), np.ones((5, 4), "int32")), (dmap.full_like(a, 9), np.full((5, 4), 9, "int32"))]:
        same(made, ref, "a *_like form")
        check(made.domain.map == mapping, "a *_like form keeps the array's map")
    same(dmap.ones_like(a, "float32"), np.ones((5, 4), "float32"), "another dtype")
    check(dmap.zeros_like(a, map=dmap.Cyclic()).domain.map == dmap.Cyclic(), "another map")
    view = a[1:4, ::2]
    check(dmap.zeros_like(view).shape == (3, 2) and dmap.zeros_like(view).domain.map == dmap.Block(), "a view: Block")
    same(dmap.full_like(np.zeros((2, 3)), 4.5), np.full((2, 3), 4.5), "from a NumPy array")


ARANGES = [(10,), (3, 17, 4), (17, 3, -4), (5, 5), (-7, 8, 3), (2**40, 2**40 + 11, 2), (0.5, 4.2, 0.3),
           (1.0, -2.0, -0.25), (0, 1, 0.1), (10, 0.5), (3, 11, 1, "float32"), (2, 9, 2, "int32"), (4.5,)]


@pytest.mark.parametrize("args", ARANGES, ids=repr)
@pytest.mark.parametrize("mapping", [dmap.Block(), dmap.BlockCyclic(2)], ids=repr)
def test_arange_equals_numpy(args, mapping):
    dtype = args[3] if len(args) == 4 else None
    got = dmap.arange(*args[:3], dtype=dtype, map=mapping)
    same(got, np.arange(*args[:3], dtype=dtype), f"arange{args}")


LINSPACES = [(0, 1, 11, True), (0, 1, 11, False), (2, -3, 7, True), (5, 5, 4, True), (0, 1, 1, True), (0, 1, 0, True),
             (1e-3, 1e3, 50, True), (0, 10, 4, True, "int64"), (0, 1, 9, True, "float32"), (0, 1 + 2j, 5, True)]


@pytest.mark.parametrize("args", LINSPACES, ids=repr)
def test_linspace_equals_numpy(args):
    dtype = args[4] if len(args) == 5 else None
    for mapping in [dmap.Block(), dmap.Cyclic()]:
        got = dmap.linspace(*args[:3], endpoint=args[3], dtype=dtype, map=mapping)
        same(got, np.linspace(*args[:3], endpoint=args[3], dtype=dtype), f"linspace{args}")


BAD = [
    (dmap.zeros, (-1,), {}, "negative extent"),
    (dmap.zeros, ((2, 3, 4, 5),), {}, "1 to 3"),
    (dmap.zeros, ((2, 2.5),), {}, "must be an int"),
    (dmap.zeros, ((2, True),), {}, "must be an int"),
    (dmap.zeros, ("7",), {}, "must be an int"),
    (dmap.zeros, (3, "uint8"), {}, "not one of dmap's"),
    (dmap.zeros, (3, "no such dtype"), {}, "not a NumPy dtype"),
    (dmap.zeros, (3,), {"map": "Block"}, "dmap map"),
    (dmap.full, (3, np.uint16(1)), {}, "not one of dmap's"),
    (dmap.full, (3, 2**70), {}, ""),
    (dmap.arange, (0, 5, 0), {}, "step is 0"),
    (dmap.arange, (0, 1j), {}, "real number"),
    (dmap.arange, (0.5, 4), {"dtype": "int64"}, "integer start"),
    (dmap.arange, (2**63 - 2, 2**63 + 5), {}, "do not fit int64"),
    (dmap.arange, (2**31 - 2, 2**31 + 5), {"dtype": "int32"}, "do not fit int32"),
    (dmap.arange, (-(2**63) - 1, 0, 2**62), {}, "do not fit int64"),
    (dmap.linspace, (0, 1, -1), {}, "num"),
    (dmap.linspace, (0, 1, 2.0), {}, "num"),
    (dmap.linspace, ("0", 1), {}, "must be a number"),
]


@pytest.mark.parametrize("fn,args,kwargs,words", BAD, ids=[f"{b[0].__name__}{b[1]}{b[2]}" for b in BAD])
def test_bad_arguments_fail_on_every_locale(fn, args, kwargs, words):
    e = raises_everywhere(dmap.ArgumentError, fn, *args, **kwargs)
    check(words in str(e) and f"dmap.{fn.__name__}" in str(e), f"the message names the call and the rule: {e}")


def test_arguments_that_differ_per_locale_fail_everywhere():
    if dmap.num_locales() == 1:
        pytest.skip("one rank agrees with itself")
    r = dmap.here()
    raises_everywhere(dmap.ArgumentError, dmap.arange, 0, 10, 1 + r)
    raises_everywhere(dmap.ArgumentError, dmap.arange, 0.5 * r, 10.0)
    raises_everywhere(dmap.ArgumentError, dmap.linspace, 0, 1 + r, 5)
    raises_everywhere(dmap.ArgumentError, dmap.zeros, 5, "float64", map=dmap.Block() if r else dmap.Cyclic())
    raises_everywhere(dmap.ArgumentError, dmap.full, 5, float(r))
    # a bad argument on one locale only
    raises_everywhere(dmap.ArgumentError, dmap.zeros, 5 if r else -5)
    same(dmap.arange(6), np.arange(6), "the locales are in step afterwards")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 2), (1001,), (40, 50), (9, 8, 30)], ids=repr)
def test_repr_shows_the_values_as_numpy_does(dtype, shape):
    ref = (np.arange(np.prod(shape)).reshape(shape) * 7 - 100).astype(dtype)
    A = dmap.Array(dmap.Domain(dmap.Cyclic(), shape), dtype)
    A[...] = ref
    want = "dmap.Array(" + np.array2string(ref, separator=", ", prefix="dmap.Array(") + f", dtype={dtype}, map={A.domain.map!r})"
    got = repr(A)
    check(got == want, f"repr\n{got}\n!=\n{want}")
    view = A[..., ::-2]
    want = "dmap.Array(" + np.array2string(ref[..., ::-2], separator=", ", prefix="dmap.Array(") + f", dtype={dtype}, view)"
    check(repr(view) == want, f"repr of a view\n{repr(view)}\n!=\n{want}")


def test_repr_is_not_collective():
    A = dmap.arange(30, map=dmap.Cyclic())
    text = repr(A) if dmap.here() == dmap.num_locales() - 1 else ""  # one locale alone
    check(dmap.here() != dmap.num_locales() - 1 or "27, 28, 29" in text, f"the last locale's repr: {text}")
    check("[]" in repr(dmap.zeros((0, 3))) and "shape=(0, 3)" in repr(dmap.zeros((0, 3))), "an empty array")
