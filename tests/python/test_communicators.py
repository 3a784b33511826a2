"""dmap on a communicator the program passes (dmap.init(comm)), finalize and restart.
Runs last (`pytestmark = pytest.mark.finalizes`, ordered by conftest.py): it finalises dmap,
which releases every object made before."""

import numpy as np
import pytest
from mpi4py import MPI

import dmap
from conftest import check, check_equal, raises_everywhere

pytestmark = pytest.mark.finalizes  # conftest.py runs these tests after all others

COMM = MPI.COMM_WORLD


def test_init_twice_is_an_error():
    dmap.here()  # dmap runs (started by the earlier tests or now)
    raises_everywhere(dmap.ArgumentError, dmap.init, COMM)


def test_objects_left_after_finalize_raise():
    A = dmap.Array(dmap.Domain(dmap.Block(), (8,)), "float64")
    dmap.finalize()
    check(not dmap.started())
    raises_everywhere(dmap.RuntimeError, A.sum)
    raises_everywhere(dmap.RuntimeError, A.gather)
    raises_everywhere(dmap.RuntimeError, A.local_blocks)
    dmap.init()  # MPI.COMM_WORLD again
    check(dmap.num_locales() == COMM.size)
    B = dmap.Array(dmap.Domain(dmap.Cyclic(), (8,)), "float64")
    B.fill(2.0)
    check(B.sum() == 16.0)
    raises_everywhere(dmap.RuntimeError, A.sum)  # still released


def test_init_on_a_split_communicator():
    dmap.finalize()
    colour = COMM.rank % 2
    half = COMM.Split(colour, COMM.rank)
    raises_everywhere(dmap.ArgumentError, dmap.init, "not a communicator")
    check(not dmap.started())
    # The halves take turns (Open MPI 4.1's osc/rdma may fail when two communicators of one node
    # create windows at the same moment; see docs/guide/domains-and-arrays.md).
    for turn in (0, 1):
        if colour == turn:
            dmap.init(half)
            ok = dmap.num_locales() == half.size and dmap.here() == half.rank
            A = dmap.Array(dmap.Domain(dmap.Block(), (10, 3)), "int64")
            B = dmap.Array(dmap.Domain(dmap.Cyclic(), (10, 3)), "int64")
            A[...] = np.arange(30).reshape(10, 3) + turn
            B[...] = A
            ok = ok and np.array_equal(B.allgather(), np.arange(30).reshape(10, 3) + turn)
            ok = ok and B.sum() == 435 + 30 * turn
            del A, B
            dmap.finalize()
        else:
            ok = True
        COMM.Barrier()
        check(ok, f"dmap on half {turn}")
    half.Free()
    dmap.init()
    check(dmap.num_locales() == COMM.size)
    check_equal(np.zeros(1), np.zeros(1))
