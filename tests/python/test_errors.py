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
    check_equal(B.gather(), np.arange(20.0).reshape(5, 4), "dmap works after the error")


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
