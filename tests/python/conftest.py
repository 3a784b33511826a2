"""pytest under mpirun: every rank runs the same tests, in the same order.

A test that fails on one rank only must not leave the others waiting in a collective call, so
- tests check conditions with `check(cond, msg)`, which agrees over all ranks before asserting
  (every rank fails together, and says which ranks saw the failure);
- after each test the ranks agree on its outcome (the hook below): a test that failed on some
  rank fails on every rank, so the runs stay in step.
"""

import numpy as np
import pytest
from mpi4py import MPI

import dmap

COMM = MPI.COMM_WORLD


def all_ranks(flag):
    """True on every rank iff `flag` is true on every rank (collective)."""
    return COMM.allreduce(bool(flag), op=MPI.LAND)


def check(cond, msg=""):
    """Collective assert: fails on every rank when `cond` is false on any."""
    bad = COMM.allgather(not bool(cond))
    if any(bad):
        ranks = [r for r, b in enumerate(bad) if b]
        raise AssertionError(f"{msg} (false on rank(s) {ranks}; this is rank {COMM.rank})")


def check_equal(got, want, msg=""):
    """Collective: NumPy arrays equal in shape and values (NaN equal to NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    ok = got.shape == want.shape and np.array_equal(got, want, equal_nan=got.dtype.kind in "fc")
    if not ok and got.shape == want.shape:
        diff = np.argwhere(~((got == want) | ((got != got) & (want != want))))
        msg = f"{msg}: {len(diff)} elements differ, first at {diff[0].tolist()}: {got[tuple(diff[0])]} != {want[tuple(diff[0])]}"
    elif not ok:
        msg = f"{msg}: shape {got.shape} != {want.shape}"
    check(ok, msg)


def raises_everywhere(exc, fn, *args, **kwargs):
    """Collective: `fn(*args)` raises `exc` on every rank; returns this rank's exception."""
    caught, other = None, None
    try:
        fn(*args, **kwargs)
    except exc as e:  # noqa: PERF203
        caught = e
    except BaseException as e:  # noqa: BLE001
        other = e
    check(caught is not None,
          f"expected {exc.__name__} on every rank, got {type(other).__name__ if other else 'no exception'}: {other}")
    return caught


def pytest_configure(config):
    config.addinivalue_line("markers", "finalizes: finalises dmap; runs after every other test")


def pytest_collection_modifyitems(session, config, items):
    """Tests marked `finalizes` run after all others (in collection order among themselves):
    they finalise dmap, which releases every object made before."""
    items.sort(key=lambda item: item.get_closest_marker("finalizes") is not None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    outcome = yield
    failed_here = outcome.excinfo is not None
    failed = COMM.allgather(failed_here)
    if any(failed) and not failed_here:
        raise AssertionError(f"failed on rank(s) {[r for r, f in enumerate(failed) if f]}")


@pytest.fixture
def rank():
    return dmap.here()


@pytest.fixture
def nlocales():
    return dmap.num_locales()
