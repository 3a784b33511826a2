""".npy files written and read by every locale at once, checked with numpy.load / numpy.save."""

import os
import tempfile

import numpy as np
import pytest
from mpi4py import MPI

import dmap
from conftest import check, check_equal
from maps import maps

COMM = MPI.COMM_WORLD


@pytest.fixture
def workdir():
    d = COMM.bcast(tempfile.mkdtemp(prefix="dmap-py-") if COMM.rank == 0 else None)
    yield d
    COMM.Barrier()
    if COMM.rank == 0:
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        os.rmdir(d)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "complex128", "bool"])
def test_write_then_numpy_load(workdir, dtype):
    shape = (7, 5)
    ref = (np.arange(35).reshape(shape) * 2 - 9).astype(dtype)
    if dtype == "bool":  # trues and falses
        ref = np.arange(35).reshape(shape) % 3 == 1
    for name, m in maps(shape).items():
        A = dmap.Array(dmap.Domain(m, shape), dtype)
        A[...] = ref
        path = os.path.join(workdir, f"{name}.npy")
        A.write_npy(path)
        COMM.Barrier()
        check_equal(np.load(path), ref, f"{name}: numpy.load of write_npy")
        B = dmap.Array(dmap.Domain(m, shape), dtype)
        B.read_npy(path)
        check_equal(B.allgather(), ref, f"{name}: read_npy")


def test_views_and_numpy_save(workdir):
    ref = np.arange(48.0).reshape(6, 8)
    path = os.path.join(workdir, "numpy.npy")
    if COMM.rank == 0:
        np.save(path, ref[1:5, ::-2].copy())
    COMM.Barrier()
    A = dmap.Array(dmap.Domain(dmap.BlockCyclic((2, 3)), (6, 8)), "float64")
    A[1:5, ::-2].read_npy(path)
    want = np.zeros((6, 8))
    want[1:5, ::-2] = ref[1:5, ::-2]
    check_equal(A.allgather(), want)
    out = os.path.join(workdir, "view.npy")
    A[1:5, ::-2].write_npy(out)
    COMM.Barrier()
    check_equal(np.load(out), ref[1:5, ::-2])
