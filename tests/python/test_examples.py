"""The array-notation examples (examples/python/heat_array.py and cg.py) against serial NumPy:
the heat sweep bit for bit, conjugate gradients to the known solution."""

import os
import sys

import numpy as np

import dmap
from conftest import check, check_equal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python"))

import cg  # noqa: E402
import heat_array  # noqa: E402
from heat import boundary_value  # noqa: E402


def serial_heat(n, tol, max_iter, check_every):
    """The sweep of heat_array.solve in NumPy on one process, in the demo's summation order."""
    u = np.zeros((n, n))
    for i in (0, n - 1):
        u[i, :] = [boundary_value(i, j, n) for j in range(n)]
    v = u.copy()
    for k in range(1, max_iter + 1):
        v[1:-1, 1:-1] = 0.25 * (((u[:-2, 1:-1] + u[2:, 1:-1]) + u[1:-1, :-2]) + u[1:-1, 2:])
        tested = k % check_every == 0 or k == max_iter
        delta = np.abs(v - u).max() if tested else None
        u, v = v, u
        if tested and delta < tol:
            break
    return u, k


def test_heat_in_array_notation_is_bit_identical_to_numpy():
    for n, tol, max_iter in [(23, 1e-3, 400), (12, 0.0, 35)]:
        U, k, _ = heat_array.solve(n, tol, max_iter, check=7)
        want, k_want = serial_heat(n, tol, max_iter, 7)
        check(k == k_want, f"heat_array: {k} sweeps, serial NumPy {k_want}")
        check_equal(U.allgather(), want, f"heat_array n={n}")


def test_conjugate_gradients_find_the_known_solution():
    n = 26
    s = np.sin(np.pi * np.arange(n) / (n - 1))
    u = np.outer(s, s * (1 + np.arange(n) / n))
    u_star, b = dmap.zeros((n, n)), dmap.zeros((n, n))
    u_star[...] = u
    cg.laplacian(u_star, b)
    b_np = np.zeros((n, n))
    b_np[1:-1, 1:-1] = 4 * u[1:-1, 1:-1] - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]
    check(np.allclose(b.allgather(), b_np, rtol=0, atol=1e-14), "laplacian against NumPy")
    x, k, relres = cg.cg(b, tol=1e-12)
    check(relres <= 1e-12 and k < n * n, f"cg: residual {relres} after {k} iterations")
    check(np.abs(x.allgather() - u).max() < 1e-10, "cg: the known solution")
