"""Stencil ghost cells: after dmap.update_halos(A) every ghost cell inside the domain holds its
owner's value, across periodic edges the wrapped value; star updates refresh the faces only.
Checked on the NumPy views of the frames (local_frames) against the NumPy reference."""

import itertools

import numpy as np
import pytest

import dmap
from conftest import check


def _frame_check(A, ref, lo, periodic, star=False, stale=None):
    """This locale's frame cells against `ref` (position = index - lo, wrapped along periodic
    dimensions; boundary padding skipped). With `star`, edge and corner ghost cells (beyond the
    owned chunk along two or more dimensions) must still hold `stale`. Returns the mismatches."""
    n, shape = ref.ndim, ref.shape
    bad = []
    for frame, idx, own in zip(A.local_frames(), A.local_frame_indices(), A.domain.local_subdomains()):
        for pos in itertools.product(*[range(len(r)) for r in idx]):
            index = tuple(idx[d][pos[d]] for d in range(n))
            where = [index[d] - lo[d] for d in range(n)]
            if any(not (0 <= where[d] < shape[d]) and not periodic[d] for d in range(n)):
                continue  # boundary padding: nobody's cell
            beyond = sum(index[d] not in own[d] for d in range(n))
            want = ref[tuple(w % s for w, s in zip(where, shape))]
            if star and beyond >= 2:
                want = stale
            if frame[pos] != want:
                bad.append((index, frame[pos], want))
    return bad


@pytest.mark.parametrize(
    "shape,fluff,periodic,lo",
    [
        ((16,), 1, False, (0,)),
        ((16,), 2, True, (1,)),
        ((8, 10), (1, 2), (True, False), (0, 0)),
        ((8, 10), 1, True, (3, -2)),
        ((9, 7), (2, 1), (False, True), (0, 0)),
        ((4, 5, 6), 1, (True, False, True), (0, 0, 0)),
    ],
)
def test_ghost_cells_equal_neighbours(shape, fluff, periodic, lo):
    n = len(shape)
    per = periodic if isinstance(periodic, tuple) else (periodic,) * n
    bounds = tuple((lo[d], lo[d] + shape[d]) for d in range(n))
    D = dmap.Domain(dmap.Stencil(fluff, periodic=periodic), bounds)
    for dtype in ["float64", "int32"]:
        A = dmap.Array(D, dtype)
        ref = (np.arange(int(np.prod(shape))).reshape(shape) * 3 + 1).astype(dtype)
        A[...] = ref
        dmap.update_halos(A)
        bad = _frame_check(A, ref, lo, per)
        check(not bad, f"{dtype}: ghost cells differ from their owners: {bad[:4]}")
        # NumPy writes into the owned cells (views of dmap's storage); a halo update carries
        # them into the neighbours' frames
        for b, s in zip(A.local_blocks(), A.local_slices()):
            b[...] = ref[s] + 5
        dmap.update_halos(A)
        bad = _frame_check(A, ref + 5, lo, per)
        check(not bad, f"{dtype}: after the second update: {bad[:4]}")


def test_star_updates_faces_only():
    shape, lo = (8, 10), (0, 0)
    D = dmap.Domain(dmap.Stencil(1, periodic=True), shape)
    A = dmap.Array(D, "float64")
    A.fill(-1.0)
    dmap.update_halos(A)  # every ghost cell -1
    ref = np.arange(80.0).reshape(shape)
    A[...] = ref
    dmap.update_halos(A, star=True)
    bad = _frame_check(A, ref, lo, (True, True), star=True, stale=-1.0)
    check(not bad, f"star: {bad[:4]}")
    dmap.update_halos(A)
    bad = _frame_check(A, ref, lo, (True, True))
    check(not bad, f"box after star: {bad[:4]}")


def test_heat_step_with_numpy_on_frames():
    """One Jacobi sweep computed with NumPy on each locale's frame equals the serial sweep."""
    n = 12
    D = dmap.Domain(dmap.Stencil(1), (n, n))
    U = dmap.Array(D, "float64")
    V = dmap.Array(D, "float64")
    rng = np.random.default_rng(7)
    ref = rng.random((n, n))
    U[...] = ref
    dmap.update_halos(U)
    pieces = zip(U.local_frames(), U.local_frame_indices(), V.local_blocks(), V.local_slices(), D.local_subdomains())
    for frame, idx, out, sl, own in pieces:
        # the owned part of the frame, less the global boundary
        rows = [i for i in own[0] if 0 < i < n - 1]
        cols = [j for j in own[1] if 0 < j < n - 1]
        for i in rows:
            for j in cols:
                fi, fj = i - idx[0][0], j - idx[1][0]
                out[i - sl[0].start, j - sl[1].start] = 0.25 * (
                    frame[fi - 1, fj] + frame[fi + 1, fj] + frame[fi, fj - 1] + frame[fi, fj + 1])
    want = np.zeros((n, n))
    want[1:-1, 1:-1] = 0.25 * (ref[:-2, 1:-1] + ref[2:, 1:-1] + ref[1:-1, :-2] + ref[1:-1, 2:])
    got = V.allgather()
    check(np.allclose(got, want, rtol=0, atol=1e-15), "Jacobi sweep on the frames")


def test_halos_on_a_map_without_ghosts_fail_everywhere():
    from conftest import raises_everywhere

    A = dmap.Array(dmap.Domain(dmap.Block(), (10,)), "float64")
    raises_everywhere(dmap.ArgumentError, dmap.update_halos, A)
    raises_everywhere(dmap.ArgumentError, dmap.update_halos, A[2:5])
    raises_everywhere(dmap.ArgumentError, dmap.update_halos, "not an array")
