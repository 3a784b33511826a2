"""Conjugate gradients in array notation: the 2-D Poisson problem -laplace(u) = f on an n x n grid
with u = 0 on the boundary ring (the 5-point Laplacian, matrix-free), every vector a dmap array.

    PYTHONPATH=<build>/python mpirun -n P --oversubscribe --bind-to none /usr/bin/python3 examples/python/cg.py [n=256]

The solver is the textbook algorithm in NumPy notation; dmap distributes the vectors (Block),
computes the element-wise expressions where the elements live, and the dot products are its
reductions, the same value on every locale. The demo makes f from a known solution u* (f = A u*)
and prints the error against it.
"""

import sys

import numpy as np

import dmap


def laplacian(p, q):
    """q = A p on the interior (5-point stencil; p is 0 on the boundary ring, so is q)."""
    q[1:-1, 1:-1] = 4 * p[1:-1, 1:-1] - p[:-2, 1:-1] - p[2:, 1:-1] - p[1:-1, :-2] - p[1:-1, 2:]


def cg(b, tol=1e-10, max_iter=10000):
    """x with A x = b (A: laplacian, symmetric positive definite on the interior); returns
    (x, iterations, the final residual norm / |b|)."""
    x, r, q = dmap.zeros_like(b), b.copy(), dmap.zeros_like(b)
    p = r.copy()
    rr = bb = float((r * r).sum())
    for k in range(1, max_iter + 1):
        laplacian(p, q)
        alpha = rr / float((p * q).sum())
        x += alpha * p
        r -= alpha * q
        rr, rr_old = float((r * r).sum()), rr
        if rr <= tol * tol * bb:
            break
        p *= rr / rr_old
        p += r
    return x, k, (rr / bb) ** 0.5


def main(argv):
    n = int(argv[0]) if argv else 256
    u_star = dmap.zeros((n, n))  # the known solution: a smooth bump, 0 on the ring
    s = np.sin(np.pi * np.arange(n) / (n - 1))
    u_star[...] = np.outer(s, s * (1 + np.arange(n) / n))
    b = dmap.zeros((n, n))
    laplacian(u_star, b)
    x, k, relres = cg(b)
    error = float(abs(x - u_star).max())
    if dmap.here() == 0:
        print(f"cg.py: {n} x {n}, {dmap.num_locales()} locale(s): {k} iterations, residual {relres:.2e}, "
              f"max error {error:.2e}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
