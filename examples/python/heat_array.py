"""The heat example (examples/python/heat.py) in array notation: whole-array expressions on dmap
arrays, as a NumPy user writes the Jacobi sweep, with no local blocks, frames or halo calls.

    PYTHONPATH=<build>/python mpirun -n P --oversubscribe --bind-to none /usr/bin/python3 \\
        examples/python/heat_array.py [--n=256] [--tol=1e-4] [--max-iter=20000] [--every=500] [--check=10] [--out=heat]

The same options, boundary values, update and convergence schedule as heat.py and the C++ demo;
it writes <out>.npy (the interior, by dmap) only. The grid is one N x N dmap array over Block,
boundary ring included, and a sweep is

    V[1:-1, 1:-1] = 0.25 * (U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:])

summed in the demo's order, so every cell is bit-identical to the demo's at any locale count
(tests/python/test_examples.py checks it against a serial NumPy sweep). Each shifted view is an
operand of another placement than the result, so dmap copies it into the result's placement
(a redistribution: the neighbours' rows and columns move, and the rest is copied locally) and
every operator makes a temporary: readable, and several times slower than heat.py, which updates
the blocks in place and moves only the ghost cells (docs/guide/python.md, "The heat example in
Python").
"""

import sys
import time

import numpy as np

import dmap
from heat import USAGE, UsageError, boundary_value, parse


def solve(n, tol, max_iter, check=10, every=0):
    """Jacobi sweeps on an n x n grid until max |change| < tol (tested every `check` sweeps) or
    `max_iter` sweeps; returns (the field, a dmap array, sweeps, last max |change|)."""
    edge = np.array([[boundary_value(i, j, n) for j in range(n)] for i in (0, n - 1)])
    U, V = dmap.zeros((n, n)), dmap.zeros((n, n))
    for X in (U, V):
        X[0, :], X[n - 1, :] = edge[0], edge[1]  # the left and right edges are 0
    k, delta, t0 = 0, np.inf, time.perf_counter()
    while k < max_iter:
        k += 1
        V[1:-1, 1:-1] = 0.25 * (U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:])
        tested = k % check == 0 or (every and k % every == 0) or k == max_iter
        if tested:
            delta = float(abs(V - U).max())
        U, V = V, U
        if every and k % every == 0 and dmap.here() == 0:
            print(f"  iteration {k:8d}  delta {delta:.6e}  {time.perf_counter() - t0:8.3f} s", flush=True)
        if tested and delta < tol:
            break
    return U, k, delta


def main(argv):
    try:
        opt = parse(argv)
    except UsageError as e:  # every locale parsed the same arguments
        if dmap.here() == 0:
            print(USAGE if str(e) == "help" else f"heat_array.py: {e}\n{USAGE}", end="")
        return 0 if str(e) == "help" else 2
    t0 = time.perf_counter()
    U, k, delta = solve(opt["n"], opt["tol"], opt["max-iter"], opt["check"], opt["every"])
    seconds = time.perf_counter() - t0
    U[1:-1, 1:-1].write_npy(opt["out"] + ".npy")
    if dmap.here() == 0:
        print(f"{'converged' if delta < opt['tol'] else 'stopped (max-iter)'} after {k} iterations: delta {delta:.6e}, "
              f"{seconds:.3f} s, {dmap.num_locales()} locale(s); wrote {opt['out']}.npy", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
