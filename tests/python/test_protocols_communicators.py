"""The protocols after dmap restarts on another communicator (ranks reversed): the locations
__partitioned__ gives and from_partitioned reads follow dmap's locales, not the old ones.
Runs last (`pytestmark = pytest.mark.finalizes`, ordered by conftest.py): it finalises dmap,
which releases every object made before."""

import os

import numpy as np
import pytest
from mpi4py import MPI

import dap_reference as dap
import dmap
import partitioned_reference as part
from conftest import check, check_equal

pytestmark = pytest.mark.finalizes  # conftest.py runs these tests after all others

COMM = MPI.COMM_WORLD


def test_protocols_on_a_reversed_communicator():
    dmap.finalize()
    rev = COMM.Split(0, COMM.size - 1 - COMM.rank)
    dmap.init(rev)
    try:
        me = dmap.locations()[dmap.here()]  # (IP, PID) as __partitioned__ writes it
        check(dmap.here() == rev.rank and me[1] == os.getpid())
        A = dmap.Array(dmap.Domain(dmap.Block(), (4 * rev.size + 1, 3)), "float64")
        full = np.arange(A.size, dtype=float).reshape(A.shape)
        A[...] = full
        p = A.__partitioned__
        check(all(p["partitions"][pos]["location"] == [me] for pos in p["locals"]), "locations of the local tiles")
        check_equal(part.to_global(A, rev), full, "the reference consumer on the reversed communicator")
        prod = part.Tiled(full, (rev.size, 1), lambda pos: pos[0], rev)
        B = dmap.from_partitioned(prod)
        check_equal(B.allgather(), full, "from_partitioned on the reversed communicator")
        check_equal(dap.to_global(B, rev), full, "dmap -> DAP consumer on the reversed communicator")
        del A, B, prod
    finally:
        dmap.finalize()
        rev.Free()
        dmap.init()
    check(dmap.num_locales() == COMM.size)
