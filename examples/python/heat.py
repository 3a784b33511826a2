"""The 2-D heat equation by Jacobi iteration with the 5-point stencil: examples/heat in Python.

    PYTHONPATH=<build>/python mpirun -n P --oversubscribe --bind-to none /usr/bin/python3 \\
        examples/python/heat.py [--n=256] [--tol=1e-4] [--max-iter=20000] [--every=500] [--check=10] [--out=heat]

The same problem as the C++ demo (examples/heat/main.cpp), with the same options, boundary
values, update order and convergence test schedule; it writes <out>.png and <out>.npy, which are
byte-identical to the demo's for the same options, whatever the locale counts of either run
(ctest example_python_heat_identical checks it).

The field is computed by NumPy on dmap's storage and moved by dmap:

* the interior (indices 1 .. n-2 in both dimensions) is a dmap Domain over a Stencil map with
  one ghost layer; A and B are dmap arrays over it;
* each locale updates its own cells with NumPy slicing: B.local_blocks() are NumPy views of
  B's owned cells, A.local_frames() views of A's block with its ghost frame (placed by
  local_frame_indices()); b = 0.25 * (up + down + left + right), summed in the C++ demo's
  order, a(-1,0) + a(1,0) + a(0,-1) + a(0,1), so every cell is bit-identical to the demo's;
* dmap.update_halos(B) refreshes the ghost cells; the convergence test is dmap's max reduction
  of |A - B| (an exact maximum); along the edges of the whole grid the frame is boundary
  padding that belongs to no locale: the fixed temperatures are written there once, in both
  arrays, and halo updates never touch them;
* the final field is gathered to locale 0 and painted with the C++ demo's own colour map and
  PNG encoder (the small pybind11 module heat_png, examples/python/heat_png.cpp, over
  examples/heat/png_writer.hpp: libpng, compression level 6): libpng's byte stream is not
  reproduced in Python, so equal fields give equal files because both programs share the
  encoder. The .npy file is written by dmap (A.write_npy), as the demo's is.

Not here (the demo has them): the .h5 output and --checkpoint-every / --restart.
"""

import math
import sys
import time

import numpy as np

import dmap

USAGE = """usage: heat.py [--n=N] [--tol=T] [--max-iter=K] [--every=E] [--check=C] [--out=PREFIX]
  --n=N         grid of N x N cells including the fixed boundary ring, 3 <= N <= 8192 (256)
  --tol=T       stop once max |change| of an iteration is below T, T >= 0 (1e-4; 0: never)
  --max-iter=K  at most K iterations, 1 <= K <= 1e9 (20000)
  --every=E     locale 0 prints a progress line every E iterations, 0 = never (500)
  --check=C     test for convergence every C iterations, 1 <= C <= 1e6 (10)
  --out=PREFIX  write the final field to PREFIX.png (N x N, boundary ring included) and its
                (N-2) x (N-2) interior to PREFIX.npy (float64) (heat)
"""


class UsageError(Exception):
    pass


def parse(argv):
    """The options, as the C++ demo parses them (--name=value); UsageError("help") for --help."""
    opt = {"n": 256, "tol": 1e-4, "max-iter": 20000, "every": 500, "check": 10, "out": "heat"}
    limits = {"n": (3, 8192), "max-iter": (1, 1000000000), "every": (0, 1000000000), "check": (1, 1000000)}
    for arg in argv:
        if arg in ("--help", "-h"):
            raise UsageError("help")
        name, eq, value = arg[2:].partition("=")
        if not arg.startswith("--") or not eq:
            raise UsageError(f"unknown argument '{arg}' (options take the form --name=value)")
        if name in limits:
            lo, hi = limits[name]
            try:
                v = int(value, 10)
            except ValueError:
                v = None
            if v is None or not value.lstrip("-").isdigit() or not lo <= v <= hi:
                raise UsageError(f"--{name}='{value}': expected an integer in [{lo}, {hi}]")
            opt[name] = v
        elif name == "tol":
            try:
                v = float(value)
            except ValueError:
                v = None
            if v is None or not math.isfinite(v) or v < 0:
                raise UsageError(f"--tol='{value}': expected a finite number >= 0")
            opt[name] = v
        elif name == "out":
            if not value:
                raise UsageError("--out='': expected a non-empty file name prefix")
            opt[name] = value
        else:
            raise UsageError(f"unknown option '--{name}'")
    return opt


def boundary_value(i, j, n):
    """The fixed temperature of boundary cell (i, j) (row 0 at the top), as the demo computes it
    (the C library's sin and exp, as std::sin and std::exp): the top edge is a sine arch up to 1,
    the bottom edge has a hot spot right of centre (0.8), the left and right edges are 0."""
    x = float(j) / float(n - 1)
    if i == 0:
        return math.sin(math.pi * x)
    if i == n - 1:
        z = (x - 0.7) / 0.08
        return 0.8 * math.exp(-z * z)
    return 0.0


def owned_in_frames(X, D):
    """For each of this locale's blocks of X: (owned, frame, (o0, o1), (rows, cols)): the NumPy
    view of the owned cells (X.local_blocks()), the view of the block with its ghost frame
    (X.local_frames()), where the owned cells start inside the frame, and their global index
    ranges (D.local_subdomains())."""
    owned_views, frames, frame_ranges = X.local_blocks(), X.local_frames(), X.local_frame_indices()
    out = []
    for owned, (rows, cols) in zip(owned_views, D.local_subdomains()):
        for frame, (fr, fc) in zip(frames, frame_ranges):
            if fr.start <= rows.start and rows.stop <= fr.stop and fc.start <= cols.start and cols.stop <= fc.stop:
                o0, o1 = rows.start - fr.start, cols.start - fc.start
                assert np.shares_memory(owned, frame)
                assert owned.shape == (len(rows), len(cols))
                assert o0 >= 1 and o1 >= 1 and o0 + len(rows) < frame.shape[0] and o1 + len(cols) < frame.shape[1]
                out.append((owned, frame, (o0, o1), (rows, cols)))
                break
        else:
            raise AssertionError("a local block lies in no local frame")
    return out


def write_boundary(blocks, n):
    """Every owned cell next to the edge writes the boundary cells it touches into its frame
    (they lie outside D, in this locale's boundary padding), as the demo does."""
    for _, frame, (o0, o1), (rows, cols) in blocks:
        h, w = len(rows), len(cols)
        if rows.start == 1:
            for c, j in enumerate(cols):
                frame[o0 - 1, o1 + c] = boundary_value(0, j, n)
        if rows.stop == n - 1:
            for c, j in enumerate(cols):
                frame[o0 + h, o1 + c] = boundary_value(n - 1, j, n)
        if cols.start == 1:
            for r, i in enumerate(rows):
                frame[o0 + r, o1 - 1] = boundary_value(i, 0, n)
        if cols.stop == n - 1:
            for r, i in enumerate(rows):
                frame[o0 + r, o1 + w] = boundary_value(i, n - 1, n)


def jacobi(dst_blocks, src_blocks):
    """B = 0.25 * (a(-1,0) + a(1,0) + a(0,-1) + a(0,1)) on this locale's cells, in that order:
    NumPy slices of A's frames, summed into B's owned views (no temporaries)."""
    for (b, _, _, _), (_, a, (o0, o1), (rows, cols)) in zip(dst_blocks, src_blocks):
        h, w = len(rows), len(cols)
        np.add(a[o0 - 1:o0 - 1 + h, o1:o1 + w], a[o0 + 1:o0 + 1 + h, o1:o1 + w], out=b)
        np.add(b, a[o0:o0 + h, o1 - 1:o1 - 1 + w], out=b)
        np.add(b, a[o0:o0 + h, o1 + 1:o1 + 1 + w], out=b)
        np.multiply(b, 0.25, out=b)


def run(opt):
    root = dmap.here() == 0
    n = opt["n"]
    D = dmap.Domain(dmap.Stencil(fluff=1), ((1, n - 1), (1, n - 1)))  # the interior, ghost width 1
    A, B = dmap.Array(D, "float64"), dmap.Array(D, "float64")
    S = dmap.Array(D, "float64")  # |A - B| of the convergence test
    blocks = {id(A): owned_in_frames(A, D), id(B): owned_in_frames(B, D)}
    write_boundary(blocks[id(A)], n)
    write_boundary(blocks[id(B)], n)
    s_blocks = S.local_blocks()

    if root:
        print(f"heat.py: {n} x {n} grid (interior {D.bounds}) over {D.name}, {dmap.num_locales()} locale(s) "
              f"(NumPy on dmap's local blocks); tol {opt['tol']:g}, at most {opt['max-iter']} iterations", flush=True)

    iterations, delta, converged = 0, math.inf, False
    t0 = time.perf_counter()
    dmap.update_halos(A)
    while not converged and iterations < opt["max-iter"]:
        iterations += 1
        k = iterations
        jacobi(blocks[id(B)], blocks[id(A)])
        progress = opt["every"] > 0 and k % opt["every"] == 0
        check = k % opt["check"] == 0 or progress or k == opt["max-iter"]
        dmap.update_halos(B)
        if check:
            for s, (a, _, _, _), (b, _, _, _) in zip(s_blocks, blocks[id(A)], blocks[id(B)]):
                np.subtract(a, b, out=s)
                np.abs(s, out=s)
            delta = float(S.max())  # dmap's max reduction: exact, the same on every locale
        A, B = B, A  # A is the newest field again
        if progress and root:
            print(f"  iteration {k:8d}  delta {delta:.6e}  {time.perf_counter() - t0:8.3f} s", flush=True)
        if check and delta < opt["tol"]:
            converged = True
            break
    seconds = time.perf_counter() - t0

    png, npy = opt["out"] + ".png", opt["out"] + ".npy"
    field = A.gather(root=0)
    if root:
        # The final field framed by the boundary ring, painted and encoded by the demo's C++ code.
        full = np.empty((n, n))
        full[1:n - 1, 1:n - 1] = field
        for j in range(n):
            full[0, j], full[n - 1, j] = boundary_value(0, j, n), boundary_value(n - 1, j, n)
        for i in range(1, n - 1):
            full[i, 0], full[i, n - 1] = boundary_value(i, 0, n), boundary_value(i, n - 1, n)
        import heat_png  # the demo's colour map and PNG encoder (built with the heat demo)

        heat_png.write_png(png, heat_png.heat_colours(full))
    A.write_npy(npy)  # collective: every locale writes its part

    if root:
        print(f"{'converged' if converged else 'stopped (max-iter)'} after {iterations} iterations: delta {delta:.6e} "
              f"(tol {opt['tol']:g}), {seconds:.3f} s, {dmap.num_locales()} locale(s)")
        print(f"wrote {png} ({n} x {n}, 8-bit RGB) and {npy} (the {n - 2} x {n - 2} interior, float64)", flush=True)
    return 0


def main(argv):
    try:
        opt = parse(argv)
    except UsageError as e:  # every locale parsed the same arguments
        root = dmap.here() == 0
        if str(e) == "help":
            if root:
                print(USAGE, end="")
            return 0
        if root:
            print(f"heat.py: {e}\n{USAGE}", end="", file=sys.stderr)
        return 2
    return run(opt)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
