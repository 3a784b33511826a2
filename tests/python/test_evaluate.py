"""dmap.evaluate: element-wise expressions in one pass over the blocks, against NumPy's operators
on the gathered arrays (the same IEEE operations in the same order: equal to the last bit), and
neighbours of Stencil arrays against NumPy's shifts of the array padded as update_halos fills the
ghost cells."""

import ast

import numpy as np
import pytest

import dmap
from conftest import check, check_equal, raises_everywhere
from maps import maps
from samples import made, sample_values

DTYPES = ["float64", "float32", "int64", "int32", "complex128"]
SHAPE = (6, 7)
EXPRESSIONS = ["a + 2 * b", "-(a - b) * 3 + a", "a * a - b", "a", "+a - -b", "a / b"]


def values(dtype, shape=SHAPE, shift=0):
    return sample_values(dtype, shape, shift)


def numpy_value(expression, **names):
    return np.asarray(eval(expression, {}, names))  # noqa: S307  (the test's own expressions)


def same(got, want, msg):
    check(isinstance(got, dmap.Array), f"{msg}: a dmap array, not {type(got).__name__}")
    check(got.dtype == want.dtype, f"{msg}: dtype {got.dtype} != {want.dtype}")
    check_equal(got.allgather(), want, msg)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["block", "block_F", "cyclic", "blockcyclic", "stencil", "hashed", "subset_last"])
def test_expressions_equal_numpys_on_every_map_and_dtype(dtype, name):
    a_np, b_np = values(dtype), values(dtype, shift=7)
    b_np[b_np == 0] = 3  # a divisor
    mapping = maps(SHAPE)[name]
    a, b = made(a_np, mapping), made(b_np, mapping)
    for expression in EXPRESSIONS:
        want = numpy_value(expression, a=a_np, b=b_np)
        got = dmap.evaluate(expression, a=a, b=b)
        same(got, want, f"{expression} over {name} ({dtype})")
        check(got.domain.map == mapping, "a new result takes the first operand's map")
        if want.dtype == a_np.dtype:
            out = made(np.zeros(SHAPE, dtype), mapping)
            check(dmap.evaluate(expression, out=out, a=a, b=b) is out, "evaluate returns out")
            same(out, want, f"{expression} into out over {name} ({dtype})")


def test_operands_of_other_maps_views_and_out_views():
    a_np, b_np = values("float64"), values("float64", shift=3)
    a, b = made(a_np, dmap.Block()), made(b_np, dmap.Cyclic())
    out = made(np.zeros(SHAPE), dmap.BlockCyclic((2, 3)))
    dmap.evaluate("a * 0.5 + b", out=out, a=a, b=b)
    same(out, a_np * 0.5 + b_np, "operands of two other maps, copied into out's")
    va, vb = a[1:5, ::2], b[2:6, ::2]
    same(dmap.evaluate("va - vb * 2", va=va, vb=vb), a_np[1:5, ::2] - b_np[2:6, ::2] * 2, "views as operands give Block")
    whole = made(np.full(SHAPE, -1.0))
    dmap.evaluate("va + 1", out=whole[0:4, 3:7], va=va)
    want = np.full(SHAPE, -1.0)
    want[0:4, 3:7] = a_np[1:5, ::2] + 1
    same(whole, want, "a view as out: the rest untouched")


def test_names_scalars_and_out_as_an_operand():
    a_np = values("float64")
    a = made(a_np)
    alpha = 0.25
    same(dmap.evaluate("a * alpha - 1"), a_np * alpha - 1, "the caller's variables")
    same(dmap.evaluate("a * alpha", alpha=4, a=a), a_np * 4, "names given override the caller's")
    same(dmap.evaluate("a * np_scalar", np_scalar=np.float32(1.5)), a_np * np.float32(1.5), "a NumPy scalar")
    dmap.evaluate("a + a * 2", out=a, a=a)
    same(a, a_np + a_np * 2, "out is an operand: every element read before it is written")


def test_integers_wrap_around_and_divide_into_floats():
    big = np.array([2**62, -(2**63), 2**63 - 1, 5, -7], dtype="int64")
    a = made(big)
    with np.errstate(over="ignore"):
        same(dmap.evaluate("a * 2 + 3", a=a), big * 2 + 3, "int64 wraps as NumPy's")
        same(dmap.evaluate("-a", a=a), -big, "negation of the least int64 wraps")
    same(dmap.evaluate("a / 2", a=a), big / 2, "/ of integers gives floats")
    small_np = np.array([2**31 - 1, -(2**31), 4], dtype="int32")
    small = made(small_np)
    with np.errstate(over="ignore"):
        same(dmap.evaluate("s + s", s=small), small_np * 2, "int32 wraps")
    same(dmap.evaluate("s * 0.5", s=small), small_np * 0.5, "mixed kinds promote")


def test_bad_expressions_fail_on_every_locale():
    a, b = made(values("float64")), made(values("float64", (7, 6)))
    ints = made(values("int64"))
    items = [1, 2]
    names = {"a": a, "b": b, "items": items}  # a lambda sees no local it does not name: given
    cases = [
        (lambda: dmap.evaluate("a +", **names), "is not an expression"),
        (lambda: dmap.evaluate("a + q", **names), "'q' in 'a + q' is not defined"),
        (lambda: dmap.evaluate("np.sin(a)", **names), "not supported"),
        (lambda: dmap.evaluate("a ** 2", **names), "not supported"),
        (lambda: dmap.evaluate("a[0]", **names), "Stencil map"),
        (lambda: dmap.evaluate("a[b]", **names), "not supported"),
        (lambda: dmap.evaluate("a + b", **names), "shapes"),
        (lambda: dmap.evaluate("a + items", **names), "list"),
        (lambda: dmap.evaluate("2 + 3", **names), "names no dmap array"),
        (lambda: dmap.evaluate(42, **names), "must be a string"),
        (lambda: dmap.evaluate("a + 1", out=b, **names), "out has shape"),
        (lambda: dmap.evaluate("a + 1", out=np.zeros(SHAPE), **names), "must be a dmap array"),
        (lambda: dmap.evaluate("a * 0.5", out=ints, **names), "same_kind"),
        (lambda: dmap.evaluate("a + True", **names), "not supported"),
    ]
    for fn, words in cases:
        e = raises_everywhere(dmap.ArgumentError, fn)
        check(words in str(e), f"the message says why: {e}")
    same(dmap.evaluate("a + 1"), values("float64") + 1, "the locales are in step afterwards")


def test_expressions_that_differ_per_locale_fail_everywhere():
    if dmap.num_locales() == 1:
        pytest.skip("one rank agrees with itself")
    a = made(values("float64"))
    r = dmap.here()
    raises_everywhere(dmap.ArgumentError, lambda: dmap.evaluate("a + 1" if r else "a - 1", a=a))
    raises_everywhere(dmap.ArgumentError, lambda: dmap.evaluate("a + r", a=a, r=r))
    out = made(values("float64"))
    raises_everywhere(dmap.ArgumentError, lambda: dmap.evaluate("a * 2", out=out if r else None, a=a))
    same(dmap.evaluate("a - 1"), values("float64") - 1, "the locales are in step afterwards")


def test_the_compiled_pass_checks_what_it_is_given():
    """dmap._dmap._evaluate_blocks is the module's own entry point; it still refuses what would read
    or write past a block."""
    x, y = np.arange(10.0), np.zeros(10)
    dmap._dmap._evaluate_blocks([(0, 0), (1, 0), (4, 0)], [2.0], [[x]], [y])
    check_equal(y, np.arange(10.0) * 2, "the program runs")
    bad = [
        ([(0, 1)], [], [[x]], [y], "past the end"),
        ([(1, 0)], [], [[x]], [y], "past the end"),
        ([(0, 0), (2, 0)], [], [[x]], [y], "too few operands"),
        ([(0, 0), (0, 0)], [], [[x]], [y], "does not leave one value"),
        ([(9, 0)], [], [[x]], [y], "unknown instruction"),
        ([(0, 0)], [], [[np.arange(12.0)]], [y], "dtype and shape with contiguous rows"),
        ([(0, 0)], [], [[np.arange(20.0)[::2]]], [y], "dtype and shape with contiguous rows"),
        ([(0, 0)], [], [[np.arange(10)]], [y], "dtype and shape with contiguous rows"),
        ([(0, 0)], [], [[x, x]], [y], "number of blocks"),
        ([(0, 0)], [], [[x]], [np.zeros(10, "complex128")], "evaluated by NumPy"),
        ([(0, 0), (0, 0), (5, 0)], [], [[np.arange(10)]], [np.zeros(10, "int64")], "/ on integer blocks"),
    ]
    rows = np.arange(24.0).reshape(4, 6)[:, 1:5]  # contiguous rows, not C-contiguous
    out = np.zeros((4, 4))
    dmap._dmap._evaluate_blocks([(0, 0), (0, 0), (2, 0)], [], [[rows]], [out])
    check_equal(out, rows * 2, "blocks walked row by row")
    for code, constants, operands, outputs, words in bad:
        with pytest.raises(dmap.ArgumentError) as e:
            dmap._dmap._evaluate_blocks(code, constants, operands, outputs)
        assert words in str(e.value), str(e.value)
    frozen = np.zeros(10)
    frozen.flags.writeable = False
    with pytest.raises(dmap.ArgumentError, match="read-only"):
        dmap._dmap._evaluate_blocks([(0, 0)], [], [[x]], [frozen])


RUNNER_EXPRESSIONS = ["a + b + c + a", "0.25 * (a + b + c + b)", "b + 0.5 * c", "(a + b) * (c - a)", "2 - a",
                      "a - (b - (c - a))", "-(a * b) - c * (a + b)", "(a - b) * (b - c) + (c - a) * (a + b)",
                      "-a", "3", "a", "2 * (3 * (a + 1) - b)"]
FLOAT_EXPRESSIONS = ["1 / a", "a / b / c", "(a + b) / (c - 0.5)", "b / (2 / c)"]


def postfix(expression, names):
    """The test's own translation of `expression` into _evaluate_blocks' postfix code: (code,
    the arrays in operand order, constants)."""
    code, arrays, constants = [], [], []

    def visit(node):
        if isinstance(node, ast.BinOp):
            visit(node.left)
            visit(node.right)
            code.append(({ast.Add: 2, ast.Sub: 3, ast.Mult: 4, ast.Div: 5}[type(node.op)], 0))
        elif isinstance(node, ast.UnaryOp):
            visit(node.operand)
            code.append((6, 0))
        elif isinstance(node, ast.Name):
            code.append((0, len(arrays)))
            arrays.append(names[node.id])
        else:
            code.append((1, len(constants)))
            constants.append(node.value)

    visit(ast.parse(expression, mode="eval").body)
    return code, arrays, constants


@pytest.mark.parametrize("runner", dmap._dmap._evaluate_runners())
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32"])
def test_every_runner_computes_numpys_values(runner, dtype):
    """Each runner this processor can use (AVX2's and the portable one on x86-64) against NumPy,
    to the last bit: rows shorter than a register, with a tail, longer than a scratch chunk
    (programs of several chains), and rows of a strided 2-D block."""
    if dtype.startswith("int"):
        big = np.iinfo(dtype).max // 3
        shifts = [big, -big, 7]  # sums and products that wrap around
    else:
        shifts = [0.5, -1.25, 3.0]
    expressions = RUNNER_EXPRESSIONS + FLOAT_EXPRESSIONS
    if dtype.startswith("int"):  # integers neither divide nor take fractions here (NumPy gives floats)
        expressions = [e for e in RUNNER_EXPRESSIONS if "." not in e]
    for shape in [(1,), (7,), (69,), (1000,), (5, 301)]:
        base = [(sample_values(dtype, shape, k) + np.asarray(s, dtype=dtype)).astype(dtype) for k, s in enumerate(shifts)]
        if len(shape) == 2:  # contiguous rows, not C-contiguous
            base = [np.pad(x, ((0, 0), (2, 3)))[:, 2:-3] for x in base]
        if dtype.startswith("float"):
            for x in base:
                x[x == 0] = 3  # divisors
        names = dict(zip("abc", base))
        for expression in expressions:
            code, arrays, constants = postfix(expression, names)
            got = np.full(shape, 99, dtype=dtype)
            dmap._dmap._evaluate_blocks(code, constants, [[x] for x in arrays], [got], runner=runner)
            with np.errstate(over="ignore"):
                want = np.broadcast_to(np.asarray(eval(expression, {}, names), dtype=dtype), shape)  # noqa: S307
            check_equal(got, want, f"{runner} runner, {dtype} {shape}: {expression}")
    # A negation takes no operand: a program of constants alone reads no array.
    got = np.zeros(37, dtype=dtype)
    dmap._dmap._evaluate_blocks([(1, 0), (6, 0), (1, 1), (3, 0)], [2, 5], [], [got], runner=runner)
    check_equal(got, np.full(37, -7, dtype=dtype), f"{runner} runner, {dtype}: -2 - 5 without operands")
    with pytest.raises(dmap.ArgumentError, match="runner is 'nonesuch'"):
        dmap._dmap._evaluate_blocks([(0, 0)], [], [[np.zeros(3)]], [np.zeros(3)], runner="nonesuch")


def halo_padded(values, fluff, periodic):
    """What a Stencil array's frame holds after dmap.update_halos: the values with `fluff` ghost
    cells per side, wrapped along periodic dimensions and zero (never written) elsewhere."""
    out = values
    for d, (f, wrap) in enumerate(zip(fluff, periodic)):
        width = [(0, 0)] * values.ndim
        width[d] = (f, f)
        out = np.pad(out, width, mode="wrap" if wrap else "constant")
    return out


def neighbour(padded, fluff, offset, shape):
    return padded[tuple(slice(f + o, f + o + n) for f, o, n in zip(fluff, offset, shape))]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
@pytest.mark.parametrize("shape,fluff,periodic,order", [
    ((13, 9), (1, 1), (False, False), "C"),
    ((13, 9), (1, 2), (True, False), "C"),
    ((11, 6), (1, 1), (False, True), "F"),
    ((29,), (2,), (True,), "C"),
    ((5, 4, 6), (1, 1, 1), (True, False, True), "C"),
], ids=["2-D", "2-D periodic rows", "2-D column-major", "1-D", "3-D"])
def test_neighbours_of_stencil_arrays_equal_numpys_shifts(dtype, shape, fluff, periodic, order):
    d = dmap.Domain(dmap.Stencil(fluff, periodic=periodic, order=order), shape)
    u = values(dtype, shape)
    U = dmap.Array(d, dtype)
    U[...] = u
    dmap.update_halos(U)
    padded = halo_padded(u, fluff, periodic)
    n = len(shape)
    unit = [tuple(s if k == j else 0 for k in range(n)) for j in range(n) for s in (-1, 1)]
    terms = " + ".join(f"U[{', '.join(map(str, o))}]" for o in unit)
    expression = f"({terms}) * 2 - U * {2 * n}"
    want = sum(neighbour(padded, fluff, o, shape) for o in unit) * 2 - u * (2 * n)
    got = dmap.evaluate(expression, U=U)
    same(got, want.astype(got.dtype), f"{expression} ({dtype}, {order})")
    check(got.domain.map.kind == "stencil", "the result is placed as the array read at neighbours")
    W = dmap.Array(d, dtype)
    far = tuple(-f for f in fluff)
    dmap.evaluate("U[" + ", ".join(map(str, far)) + "] - U", out=W, U=U)
    same(W, neighbour(padded, fluff, far, shape) - u, f"the farthest ghost cells ({dtype}, {order})")


def test_neighbours_that_cannot_be_read_fail_on_every_locale():
    d = dmap.Domain(dmap.Stencil(1), SHAPE)
    U, W = dmap.Array(d, "float64"), dmap.Array(d, "float64")
    other = dmap.Array(dmap.Domain(dmap.Stencil(1, periodic=True), SHAPE), "float64")
    block = made(values("float64"))
    names = {"U": U, "W": W, "other": other, "block": block}
    cases = [
        (lambda: dmap.evaluate("U[2, 0]", **names), "reaches past"),
        (lambda: dmap.evaluate("U[1]", **names), "1 offsets for 2 dimensions"),
        (lambda: dmap.evaluate("block[1, 0]", **names), "Stencil map"),
        (lambda: dmap.evaluate("U[1, 0] + 1", out=U, **names), "overwritten"),
        (lambda: dmap.evaluate("U[1, 0]", out=block, **names), "placed as U"),
        (lambda: dmap.evaluate("U[1, 0] + other[0, 1]", **names), "placed differently"),
        (lambda: dmap.evaluate("U[1, 0.5]", **names), "not supported"),
    ]
    for fn, words in cases:
        e = raises_everywhere(dmap.ArgumentError, fn)
        check(words in str(e), f"the message says why: {e}")
    U[...] = values("float64")
    other[...] = values("float64", shift=1)
    dmap.update_halos(U)
    dmap.evaluate("U[1, 0] + other", out=W, **names)  # an unshifted operand of another domain is copied
    padded = halo_padded(values("float64"), (1, 1), (False, False))
    same(W, neighbour(padded, (1, 1), (1, 0), SHAPE) + values("float64", shift=1), "the locales are in step")


def test_a_failure_on_one_locale_during_the_pass_is_raised_on_every_locale(monkeypatch):
    a = made(values("float64"))
    if dmap.here() == 0:
        def out_of_memory(*args):
            raise MemoryError("no memory for the registers (injected)")
        monkeypatch.setattr(dmap._dmap, "_evaluate_blocks", out_of_memory)
    e = raises_everywhere(dmap.ArgumentError, lambda: dmap.evaluate("a * 2", a=a))
    check("injected" in str(e), f"every locale names locale 0's failure: {e}")
    monkeypatch.undo()
    same(dmap.evaluate("a * 2", a=a), values("float64") * 2, "the locales are in step afterwards")
