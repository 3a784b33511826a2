"""Bad input raises a named dmap exception on every locale, never hangs or crashes, and dmap
works afterwards. Inputs that differ between locales (a mapper failing on one locale, one
locale's bad list) are agreed: the locale that failed raises its error, the others the same
class with remote=True and origin naming it."""

import os
import tempfile

import numpy as np
import pytest
from mpi4py import MPI

import dmap
from conftest import check, check_equal, raises_everywhere

COMM = MPI.COMM_WORLD


def still_works():
    A = dmap.Array(dmap.Domain(dmap.Cyclic(), (5, 4)), "float64")
    B = dmap.Array(dmap.Domain(dmap.Block(), (5, 4)), "float64")
    A[...] = np.arange(20.0).reshape(5, 4)
    B[...] = A
    check_equal(B.allgather(), np.arange(20.0).reshape(5, 4), "dmap works after the error")


def test_exception_classes():
    check(issubclass(dmap.ArgumentError, dmap.Error) and issubclass(dmap.ArgumentError, ValueError))
    check(issubclass(dmap.ArgumentError, TypeError))
    check(issubclass(dmap.ShapeError, dmap.Error) and issubclass(dmap.ShapeError, ValueError))
    check(issubclass(dmap.OutOfBoundsError, IndexError) and issubclass(dmap.UnsupportedError, NotImplementedError))
    check(issubclass(dmap.FileError, OSError) and issubclass(dmap.FormatError, dmap.Error))
    check(issubclass(dmap.NotLocalError, dmap.Error) and issubclass(dmap.RuntimeError, dmap.Error))
    check(dmap.Error.__module__ == "dmap" and dmap.ArgumentError.__name__ == "ArgumentError")


@pytest.mark.parametrize(
    "make",
    [
        lambda: dmap.Array(dmap.Domain(dmap.Block(), (4,)), "float16"),          # unsupported dtype
        lambda: dmap.Array(dmap.Domain(dmap.Block(), (4,)), "no such dtype"),
        lambda: dmap.Array(dmap.Domain(dmap.Block(), (4,)), object),
        lambda: dmap.Array("not a domain", "float64"),
        lambda: dmap.Domain(dmap.Block(), (-3,)),                                  # negative size
        lambda: dmap.Domain(dmap.Block(), (4, -1)),
        lambda: dmap.Domain(dmap.Block(), (2**64,)),                               # int64 overflow
        lambda: dmap.Domain(dmap.Block(), ((0, 2**63),)),
        lambda: dmap.Domain(dmap.Block(), (2**32, 2**32)),                         # size past int64
        lambda: dmap.Domain(dmap.Block(), (3.5,)),
        lambda: dmap.Domain(dmap.Block(), "abc"),
        lambda: dmap.Domain(dmap.Block(), ((5, 2),)),
        lambda: dmap.Domain("block", (4,)),                                        # not a map
        lambda: dmap.Domain(dmap.Block(grid=(COMM.size + 1,)), (8,)),              # grid of the wrong size
        lambda: dmap.Domain(dmap.Block(grid=(1,), locales=[COMM.size]), (8,)),     # no such locale
        lambda: dmap.Domain(dmap.Block(order="X"), (8,)),
        lambda: dmap.Domain(dmap.BlockCyclic(0), (8,)),                            # block size 0
        lambda: dmap.Domain(dmap.BlockCyclic((2, 2)), (8,)),                       # per-dimension list of the wrong length
        lambda: dmap.Domain(dmap.Stencil(-1), (8,)),
        lambda: dmap.Domain(dmap.Irregular([[5, 2]], grid=(3,)), (8,)) if COMM.size == 3 else dmap.Domain(
            dmap.Irregular([[1] * COMM.size]), (8,)),                              # wrong cut count / order
        lambda: dmap.Domain(dmap.Hashed(mapper="not callable"), (8,)),
        lambda: dmap.Domain(dmap.Hashed(lambda i, p: i % p, batch=0), (8,)),
    ],
)
def test_bad_arguments_raise_argument_error_everywhere(make):
    raises_everywhere(dmap.ArgumentError, make)
    still_works()


def test_four_dimensions_are_unsupported():
    raises_everywhere(dmap.UnsupportedError, dmap.Domain, dmap.Block(), (2, 2, 2, 2))


def test_mapper_raising_on_one_locale():
    culprit = COMM.size - 1

    def mapper(indices, p):
        if dmap.here() == culprit:
            raise ZeroDivisionError("boom on purpose")
        return indices % p

    e = raises_everywhere(dmap.ArgumentError, dmap.Domain, dmap.Hashed(mapper), (40,))
    check(e.origin == culprit and e.remote == (dmap.here() != culprit), f"origin {e.origin}, remote {e.remote}")
    check("boom on purpose" in str(e) and "ZeroDivisionError" in str(e), str(e))
    still_works()


@pytest.mark.parametrize(
    "garbage",
    [
        lambda i, p: np.zeros(len(i) + 1, np.int64),          # one answer too many
        lambda i, p: np.zeros((len(i), 2), np.int64),         # wrong shape
        lambda i, p: np.full(len(i), p, np.int64),            # a locale out of range
        lambda i, p: np.full(len(i), -1),                     # negative
        lambda i, p: np.zeros(len(i)) + 0.5,                  # not integers
        lambda i, p: "garbage",
        lambda i, p: None,
        lambda i: i,                                          # wrong signature
    ],
)
def test_mapper_returning_garbage_on_one_locale(garbage):
    culprit = 0

    def mapper(indices, p):
        if dmap.here() == culprit:
            return garbage(indices, p)
        return indices[:, 0] % p

    e = raises_everywhere(dmap.ArgumentError, dmap.Domain, dmap.Hashed(mapper), (6, 5))
    check(e.origin == culprit)
    still_works()


def test_unstructured_lists_that_do_not_cover():
    p, me = COMM.size, dmap.here()
    mine = np.arange(me, 20, p)
    if me == 0:
        mine = mine[1:]  # index 0 listed by nobody
    raises_everywhere(dmap.ArgumentError, dmap.Domain, dmap.Unstructured(mine), (20,))
    bad = np.array(["a", "b"]) if me == p - 1 else np.arange(me, 20, p)  # strings on one locale
    e = raises_everywhere(dmap.ArgumentError, dmap.Domain, dmap.Unstructured(bad), (20,))
    check(e.origin == p - 1)
    still_works()


def test_shape_and_dtype_mismatches():
    A = dmap.Array(dmap.Domain(dmap.Block(), (6, 4)), "float64")
    B = dmap.Array(dmap.Domain(dmap.Cyclic(), (4, 6)), "float64")
    I = dmap.Array(dmap.Domain(dmap.Cyclic(), (6, 4)), "int64")
    raises_everywhere(dmap.ShapeError, A.assign, B)
    raises_everywhere(dmap.ShapeError, A.__setitem__, (slice(0, 2), slice(None)), B[0:3, 0:4])
    raises_everywhere(dmap.ShapeError, A.__setitem__, 0, B[0])
    raises_everywhere(dmap.ArgumentError, A.assign, I)                       # another dtype
    raises_everywhere(dmap.ShapeError, A.assign, np.zeros((4, 6)))           # NumPy array of another shape
    raises_everywhere(dmap.ArgumentError, A.assign, np.zeros((6, 4), complex))
    raises_everywhere(dmap.ArgumentError, A.assign, np.array([["x"] * 4] * 6))
    raises_everywhere(dmap.ArgumentError, I.fill, 2**63)                     # int64 overflow
    raises_everywhere(dmap.ArgumentError, I.fill, float("nan"))
    raises_everywhere(dmap.ArgumentError, A.fill, 1j)
    raises_everywhere(dmap.ArgumentError, A.fill, "text")
    J = dmap.Array(dmap.Domain(dmap.Cyclic(), (3,)), "int32")
    raises_everywhere(dmap.ArgumentError, J.fill, 2**31)
    # a fill value that is wrong on one locale only: every locale raises
    e = raises_everywhere(dmap.ArgumentError, A.fill, 1j if dmap.here() == 0 else 1.0)
    check(e.origin == 0 and e.remote == (dmap.here() != 0))
    # a NumPy array that is wrong on one locale only: every locale raises
    bad_here = np.zeros((6, 4)) if dmap.here() != COMM.size - 1 else np.zeros((6, 5))
    e = raises_everywhere(dmap.ShapeError, A.assign, bad_here)
    check(e.origin == COMM.size - 1)
    still_works()


def test_indexing_errors():
    A = dmap.Array(dmap.Domain(dmap.Block(), (6, 4)), "float64")
    raises_everywhere(dmap.OutOfBoundsError, A.__getitem__, (6, 0))
    raises_everywhere(dmap.OutOfBoundsError, A.__getitem__, (0, -5))
    raises_everywhere(dmap.OutOfBoundsError, A.__getitem__, (0, 0, 0))
    raises_everywhere(dmap.OutOfBoundsError, A.__getitem__, (2**70, 0))
    raises_everywhere(dmap.ArgumentError, A.__getitem__, (slice(None, None, 0),))
    raises_everywhere(dmap.ArgumentError, A.__getitem__, (None,))
    raises_everywhere(dmap.ArgumentError, A.__getitem__, (1.5,))
    raises_everywhere(dmap.ArgumentError, A.__getitem__, (..., ...))
    raises_everywhere(dmap.ArgumentError, A.__getitem__, np.array([1, 2]))
    D = A.domain
    raises_everywhere(dmap.OutOfBoundsError, D.locale_of, (6, 0))
    raises_everywhere(dmap.ArgumentError, D.local_subdomains, COMM.size)
    raises_everywhere(dmap.ArgumentError, A.gather, COMM.size)
    raises_everywhere(dmap.ArgumentError, A.gather, -1)
    still_works()


def test_file_errors():
    A = dmap.Array(dmap.Domain(dmap.Block(), (6, 4)), "float64")
    d = tempfile.gettempdir() if COMM.rank == 0 else None
    d = COMM.bcast(d)
    missing = os.path.join(d, f"dmap-py-missing-{os.getpid() if COMM.rank == 0 else 0}.npy")
    missing = COMM.bcast(missing)
    raises_everywhere(dmap.FileError, A.read_npy, missing)
    not_npy = COMM.bcast(os.path.join(d, f"dmap-py-not-npy-{os.getpid()}.npy") if COMM.rank == 0 else None)
    if COMM.rank == 0:
        with open(not_npy, "wb") as f:
            f.write(b"this is not a numpy file at all" * 10)
    COMM.Barrier()
    raises_everywhere(dmap.FormatError, A.read_npy, not_npy)
    other = COMM.bcast(os.path.join(d, f"dmap-py-other-{os.getpid()}.npy") if COMM.rank == 0 else None)
    if COMM.rank == 0:
        np.save(other, np.zeros((4, 6)))
    COMM.Barrier()
    raises_everywhere(dmap.ShapeError, A.read_npy, other)
    if COMM.rank == 0:
        np.save(other, np.zeros((6, 4), np.float32))
    COMM.Barrier()
    raises_everywhere(dmap.FormatError, A.read_npy, other)
    raises_everywhere(dmap.FileError, A.write_npy, os.path.join(d, "no-such-dir-dmap", "x.npy"))
    COMM.Barrier()
    if COMM.rank == 0:
        os.remove(not_npy)
        os.remove(other)
    still_works()


# ---------------------------------------------------------------- conversions
# Values that NumPy's cast would mangle are refused in bulk as they are one by one: NaN,
# infinities and out-of-range values into int64/int32, finite values that would become infinite
# into float32 (or from a longdouble into float64), complex values into real arrays, and what is
# not a number. The refusal is an ArgumentError on every locale, before any element is written.

TARGETS = ["float64", "float32", "int64", "int32", "complex128"]
LD = np.longdouble
HUGE_LD = LD("1e4000")                      # finite in longdouble, infinite in float64
F32_OVERFLOW = 2.0**128 - 2.0**103          # the smallest float64 the cast to float32 makes infinite
F32_MAX = float(np.finfo(np.float32).max)


def clongdouble(re, im):
    z = np.zeros(1, np.clongdouble)
    z.real[0], z.imag[0] = re, im
    return z[0]


def limit_cases(target):
    """(source dtype, values refused, values accepted at the edge) for a real or complex target."""
    common = [("float16", [np.nan, np.inf, -np.inf], [65504.0, -65504.0, 2.5])]
    if target == "int64":
        return common + [
            ("uint64", [2**63, 2**64 - 1], [2**63 - 1, 0]),
            ("float32", [np.nan, np.inf, 2.0**63, -2.0**64], [-2.0**63, 2.0**62, -1.5]),
            ("float64", [np.nan, np.inf, -np.inf, 2.0**63, 1e300, -1e300, np.nextafter(-2.0**63, -np.inf)],
             [2.0**63 - 1024, -2.0**63, 2.5, -2.5]),
            ("longdouble", [LD(2)**63, -LD(2)**63 - 1, HUGE_LD, LD("nan")], [LD(2)**63 - 1, -LD(2)**63]),
        ]
    if target == "int32":
        return common + [
            ("int64", [2**31, -2**31 - 1, 2**62, -2**63], [2**31 - 1, -2**31]),
            ("uint32", [2**31, 2**32 - 1], [2**31 - 1]),
            ("uint64", [2**31, 2**64 - 1], [2**31 - 1]),
            ("float32", [np.nan, np.inf, 2.0**31, -2.0**31 - 256], [-2.0**31, 2.0**31 - 128]),
            ("float64", [np.nan, -np.inf, 2.0**31, -2.0**31 - 1, 1e300], [2147483647.9, -2147483648.9, 2.0**31 - 1]),
            ("longdouble", [HUGE_LD, LD(2)**31, LD("-inf")], [-LD(2)**31, LD("2147483647.5")]),
        ]
    if target == "float32":
        return [
            ("float64", [1e300, -1e300, F32_OVERFLOW, -F32_OVERFLOW],
             [F32_MAX, -F32_MAX, np.nextafter(F32_OVERFLOW, 0), np.inf, -np.inf, np.nan]),
            ("longdouble", [HUGE_LD, LD("1e300")], [LD("inf"), LD("nan"), LD(F32_MAX)]),
        ]
    if target == "float64":
        return [("longdouble", [HUGE_LD, -HUGE_LD], [LD("1e300"), LD("inf"), LD("nan")])]
    return [  # complex128
        ("longdouble", [HUGE_LD, -HUGE_LD], [LD("1e300"), LD("-inf")]),
        ("clongdouble", [clongdouble(HUGE_LD, 0), clongdouble(1, -HUGE_LD)], [clongdouble(1e300, -1e300)]),
    ]


def source(dtype, shape):
    """Small values every target holds, of `dtype`."""
    return (np.arange(int(np.prod(shape))) % 5).reshape(shape).astype(dtype)


def check_unchanged(A, before, msg):
    """Collective: A holds `before`, in its gather and in every locale's own blocks."""
    check_equal(A.allgather(), before, msg)
    check(all(np.array_equal(b, before[s], equal_nan=True) for b, s in zip(A.local_blocks(), A.local_slices())),
          f"{msg}: this locale's blocks")


def refused_on_one_locale(A, key, src_shape, dtype, value, culprit, what):
    """Collective: A[key] = a NumPy array holding `value` on locale `culprit` only raises
    ArgumentError on every locale (origin: culprit) and changes nothing."""
    before = A.allgather()
    src = source(dtype, src_shape)
    if dmap.here() == culprit:
        src.flat[src.size // 2] = value
    e = raises_everywhere(dmap.ArgumentError, A.__setitem__, key, src)
    check(e.origin == culprit and e.remote == (dmap.here() != culprit), f"{what}: origin {e.origin}")
    check_unchanged(A, before, f"{what}: the target is unchanged")
    return e


@pytest.mark.parametrize("target", TARGETS)
def test_bulk_conversions_refuse_what_numpy_mangles(target):
    D = dmap.Domain(dmap.Cyclic(), (5, 6))
    A = dmap.Array(D, target)
    A[...] = np.arange(30).reshape(5, 6) - 9
    case = 0
    for dtype, refused, accepted in limit_cases(target):
        for value in refused:
            culprit = case % COMM.size
            case += 1
            what = f"{dtype} {value!r} into {target}"
            refused_on_one_locale(A, ..., (5, 6), dtype, value, culprit, what)
            refused_on_one_locale(A, (slice(1, 4), slice(None, None, 2)), (3, 3), dtype, value, culprit, what + " (slice)")
            refused_on_one_locale(A, 3, (6,), dtype, value, culprit, what + " (a row)")
            # one by one: the same rule, as a NumPy scalar and a 0-d array (fill is collective)
            before = A.allgather()
            scalar = np.array([value], dtype)[0]
            raises_everywhere(dmap.ArgumentError, A.fill, scalar)
            raises_everywhere(dmap.ArgumentError, A.__setitem__, (slice(0, 2), 1), np.array(scalar))
            raises_everywhere(dmap.ArgumentError, A.__setitem__, (2, 3), scalar)
            check_unchanged(A, before, what + ": scalars change nothing")
        # the accepted edge values convert as NumPy converts them, in bulk and one by one
        src = source(dtype, (5, 6))
        src.flat[: len(accepted)] = np.array(accepted, dtype)
        A[...] = src
        check_equal(A.allgather(), src.astype(target), f"{dtype} edge values {accepted!r} into {target}")
        A.fill(np.array(accepted[0], dtype)[()])
        check_equal(A.allgather(), np.full((5, 6), np.array(accepted[0], dtype).astype(target)),
                    f"{dtype} {accepted[0]!r} into {target} by fill")
    still_works()


@pytest.mark.parametrize("target", TARGETS)
def test_bulk_conversions_refuse_complex_and_non_numbers(target):
    A = dmap.Array(dmap.Domain(dmap.Block(), (4, 3)), target)
    A[...] = np.arange(12).reshape(4, 3)
    before = A.allgather()
    bad = [np.array([["x"] * 3] * 4), np.full((4, 3), np.datetime64("2024-01-01")),
           np.array([[1, 2, None]] * 4, dtype=object), [[1, 2, 2**70]] * 4]
    if target != "complex128":  # complex values never convert to real, whatever their imaginary part
        bad += [np.zeros((4, 3), np.complex64), np.ones((4, 3), np.complex128), np.zeros((4, 3), np.clongdouble)]
    for k, values in enumerate(bad):
        culprit = k % COMM.size
        src = values if dmap.here() == culprit else np.zeros((4, 3))
        e = raises_everywhere(dmap.ArgumentError, A.assign, src)
        check(e.origin == culprit, f"{np.asarray(values).dtype}: origin {e.origin}")
        check_unchanged(A, before, f"{np.asarray(values).dtype} into {target}")
    scalars = ["text", None, [1.0], np.zeros(2), np.array([3])]
    if target != "complex128":
        scalars += [1 + 0j, np.complex64(1), np.array(2j)]
    for value in scalars:
        raises_everywhere(dmap.ArgumentError, A.fill, value)
        raises_everywhere(dmap.ArgumentError, A.__setitem__, (1, 1), value)
    check_unchanged(A, before, f"{target}: refused scalars")
    still_works()


def test_scalar_rules_match_bulk_rules():
    """The Python scalar path follows the same rules: NaN, infinities and out-of-range values
    into integers, finite values that overflow float32, complex values into reals."""
    I = dmap.Array(dmap.Domain(dmap.Block(), (4,)), "int32")
    L = dmap.Array(dmap.Domain(dmap.Block(), (4,)), "int64")
    F = dmap.Array(dmap.Domain(dmap.Block(), (4,)), "float32")
    for value in [float("nan"), float("inf"), 2.0**31, -2.0**31 - 1, 2**31, -2**31 - 1, 2**63, 2**64, 2**70]:
        raises_everywhere(dmap.ArgumentError, I.fill, value)
    for value in [2.0**63, -2.0**64, 2**63, -2**63 - 1, 2**64, float("-inf")]:
        raises_everywhere(dmap.ArgumentError, L.fill, value)
    for value in [1e300, -F32_OVERFLOW, 2**128, 10**400]:
        raises_everywhere(dmap.ArgumentError, F.fill, value)
    I.fill(-2147483648.9)  # the integer part fits: truncated toward zero, as NumPy does
    check_equal(I.allgather(), np.full(4, -2**31, np.int32))
    I.fill(True)
    check_equal(I.allgather(), np.ones(4, np.int32))
    L.fill(2.0**63 - 1024)
    check_equal(L.allgather(), np.full(4, 2**63 - 1024, np.int64))
    L.fill(np.uint64(2**63 - 1))
    check_equal(L.allgather(), np.full(4, 2**63 - 1, np.int64))
    F.fill(np.nextafter(F32_OVERFLOW, 0))
    check_equal(F.allgather(), np.full(4, F32_MAX, np.float32))
    F.fill(float("inf"))  # infinities and NaN themselves convert
    check_equal(F.allgather(), np.full(4, np.inf, np.float32))
    e = raises_everywhere(dmap.ArgumentError, L.assign, np.array([0.0, 1.0, float("nan"), 3.0]))
    check("element 2 of the NumPy array is nan" in str(e) and "int64" in str(e), str(e))
    for value in [1e300, np.float64(1e300), np.array(1e300)]:
        e = raises_everywhere(dmap.ArgumentError, F.fill, value)
        check("the value is 1e+300" in str(e) and "float32" in str(e), str(e))
    still_works()


def test_index_lists_refuse_uint64_beyond_int64():
    p, me = COMM.size, dmap.here()
    mine = np.arange(me, 20, p) - 1                       # the indices -1 .. 18, dealt round
    listed = mine.astype(np.uint64) if me > 0 else np.array([2**64 - 1] + list(mine[1:]), np.uint64)
    # locale 0 lists -1 as the uint64 2**64 - 1, which a cast would wrap to -1 (inside the bounds)
    e = raises_everywhere(dmap.ArgumentError, dmap.Domain, dmap.Unstructured(listed), ((-1, 19),))
    check(e.origin == 0)
    D = dmap.Domain(dmap.Unstructured(mine), ((-1, 19),))  # the same list as int64 is fine
    check(D.size == 20)

    def mapper(indices, q):
        out = (indices % q).astype(np.uint64)
        if dmap.here() == 0:
            out[0] = 2**64 - 1
        return out

    e = raises_everywhere(dmap.ArgumentError, dmap.Domain, dmap.Hashed(mapper), (12,))
    check(e.origin == 0)

    def dap(indices):
        return {"__version__": "0.10.0", "buffer": np.zeros(len(indices)),
                "dim_data": ({"dist_type": "u", "size": 10, "proc_grid_size": p, "proc_grid_rank": me,
                              "indices": indices, "one_to_one": True},)}

    positions = np.arange(me, 10, p, dtype=np.uint64)
    B = dmap.from_distarray(dap(positions))
    check(B.shape == (10,))
    del B
    if me == p - 1:
        positions[0] = 2**64 - 1
    e = raises_everywhere(dmap.ArgumentError, dmap.from_distarray, dap(positions))
    check(e.origin == p - 1)
    still_works()
