"""Redistribution and reduce of 2^24 doubles called from Python against the same C++ calls
(target ratio >= 0.95: the binding costs nothing at that size).

    /usr/bin/python3 bench/python/bench_python.py [--build=build] [--ranks=2] [--threads=1]
                                                  [--log2n=24] [--reps=9] [--rounds=5]

Cases (1-D, n = 2^log2n float64 elements, B over Block, C over Cyclic, B[i] = 0.25 + i mod 1000003):

  python_redistribute_block_to_cyclic_1d   Python: C[...] = B     C++: C = B
  python_reduce_sum_1d                     Python: B.sum()        C++: dmap::reduce(B, 0.0, std::plus<>{}, widen)
  python_triad_1d                          Python: A[...] = B + 0.5 * T (element-wise operations, two
                                           temporaries)            C++: one forall over zip(A, B, T)
  python_triad_out_1d                      Python: np.multiply(T, 0.5, out=A); np.add(A, B, out=A)
                                                                   C++: as above
  python_triad_vs_numpy_1d                 Python: A[...] = B + 0.5 * T against what an mpi4py + NumPy
                                           user writes on each rank's n/P elements: a[:] = b + 0.5 * t
  python_triad_out_vs_numpy_1d             the same with dmap's form without temporaries (triad_out)
  python_triad_vs_dask_1d                  A[...] = B + 0.5 * T against dask.array's da.store(b + 0.5 * t, a)
  python_triad_out_vs_dask_1d              the same with triad_out
  python_triad_evaluate_1d                 Python: dmap.evaluate("B + 0.5 * T", out=A) (one compiled pass
                                           over the blocks)        C++: as above
  python_triad_evaluate_vs_numpy_1d        the same against mpi4py + NumPy's a[:] = b + 0.5 * t
  python_triad_evaluate_vs_dask_1d         the same against dask.array's da.store(b + 0.5 * t, a)
  python_sum_axis0_2d                      column sums of an R x K Block array (R = 2^ceil(log2n/2)):
                                           Python: M.sum(axis=0)   C++: dmap::partial_reduce<0>(M, S, 0.0)
  python_sum_axis0_vs_numpy_2d             M.sum(axis=0) against mpi4py + NumPy: comm.Allreduce(m.sum(axis=0), out)
  python_sum_axis0_vs_dask_2d              M.sum(axis=0) against dask.array's m.sum(axis=0).compute()
  python_transpose_copy_2d                 Python: MT[...] = M.T (Block to Block)   C++: MT = dmap::transpose(M)
  python_transpose_copy_vs_numpy_2d        against mpi4py + NumPy: pack column blocks, one Alltoallv, place
  python_transpose_copy_vs_dask_2d         against da.store(m.T, mt)
  python_stencil_sweep_2d                  one 5-point sweep of an R x K Stencil grid and its halo update:
                                           Python: NumPy on the local frames + dmap.update_halos
                                           C++: forall over zip(W, neighbors(U, 1)) + update_halos
  python_stencil_sweep_vs_numpy_2d         against mpi4py + NumPy: row slabs, Sendrecv of ghost rows
  python_stencil_sweep_vs_dask_2d          against u.map_overlap(kernel, depth=1, boundary=0).compute()
  python_stencil_evaluate_2d               the sweep as dmap.evaluate("0.25 * (U[-1, 0] + U[1, 0] + U[0, -1] +
                                           U[0, 1])", out=W) + update_halos    C++: as above
  python_stencil_evaluate_vs_numpy_2d      the same against mpi4py + NumPy's row slabs

Dask (Debian's python3-dask) runs in this driver process, after each round's MPI runs, on the same
values: the threaded scheduler with RANKS x THREADS threads (the cores the MPI runs use), one chunk
per thread (row blocks for the 2-D array); its results are checked against the C++ checksums too.

(the module runs exactly those C++ calls). The C++ side is bench/python_baseline.cpp (target
bench_python_baseline); the Python side is this script run with --worker under mpirun. This
driver (not under mpirun) starts them alternately, `rounds` times each
(mpirun -n RANKS --oversubscribe --bind-to none, DMAP_NUM_THREADS=THREADS), so that drifting
machine load hits both alike; each run times every call `reps` times after a warm-up,
synchronised (barrier, then the slowest locale's time), as bench/timing.hpp does. It prints one
line per case in docs/design.md section 10's format, with medians over all timed calls:

  bench <case> ranks=P threads=T n=N dmap=<Python s> baseline=<C++ s> unit=s ratio=<C++ s / Python s>
        msgs=.. bytes=.. node_bytes=.. min_bytes=..

msgs/bytes/node_bytes are dmap's counters of one call on locale 0, from the C++ run (the Python
module does not expose the counters; both sides make the same call); node_bytes is what locale 0
copied straight into node peers' memory (MPI-3 shared windows) instead of sending it, as in
bench_redistribute. The Python run checks its results
against the C++ run's checksums (sum of C after the redistribution, and the sum itself).
Needs <build>/python (dmap_python) and <build>/bench/bench_python_baseline.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def parse_time_line(line):
    """'time <case> k=v ... seconds=a,b,c' -> (case, {k: v}, [seconds])"""
    words = line.split()
    fields = dict(w.split("=", 1) for w in words[2:])
    seconds = [float(s) for s in fields.pop("seconds").split(",")]
    return words[1], fields, seconds


# ------------------------------------------------------------------------------------ worker
def worker(log2n, reps):
    """Under mpirun: the two calls from Python, printed as bench_python_baseline prints them."""
    import numpy as np
    from mpi4py import MPI

    import dmap

    n = 1 << log2n
    B = dmap.Array(dmap.Domain(dmap.Block(), n), "float64")
    C = dmap.Array(dmap.Domain(dmap.Cyclic(), n), "float64")
    for block, where in zip(B.local_blocks(), B.local_slices()):
        s = where[0]
        block[...] = 0.25 + (np.arange(s.start, s.stop, s.step, dtype=np.int64) % 1000003).astype(np.float64)

    def timed(f):
        dmap.barrier()
        t0 = time.perf_counter()
        f()
        return MPI.COMM_WORLD.allreduce(time.perf_counter() - t0, op=MPI.MAX)

    def times(f):
        t = [timed(f) for _ in range(reps + 1)]
        return t[1:]  # the first is the warm-up

    def redistribute():
        C[...] = B

    result = {}

    def reduce():
        result["sum"] = B.sum()

    A = dmap.Array(B.domain, "float64")
    T = dmap.Array(B.domain, "float64")
    for block, where in zip(T.local_blocks(), T.local_slices()):
        s = where[0]
        block[...] = (np.arange(s.start, s.stop, s.step, dtype=np.int64) % 7).astype(np.float64)

    def triad():
        A[...] = B + 0.5 * T

    def triad_out():
        np.multiply(T, 0.5, out=A)
        np.add(A, B, out=A)

    def triad_evaluate():
        dmap.evaluate("B + 0.5 * T", out=A, B=B, T=T)  # a nested function sees no outer name it does not use

    # The mpi4py + NumPy user's arrays: this rank's share of n, as plain NumPy arrays.
    b_local, t_local = np.concatenate(B.local_blocks()), np.concatenate(T.local_blocks())
    a_local = np.empty_like(b_local)

    def triad_numpy():
        a_local[:] = b_local + 0.5 * t_local

    # Column sums of an R x K array over Block (as bench_python_baseline's sum_axis0).
    rows = 1 << ((log2n + 1) // 2)
    cols = n // rows
    M = dmap.Array(dmap.Domain(dmap.Block(), (rows, cols)), "float64")
    for block, where in zip(M.local_blocks(), M.local_slices()):
        r, c = where
        i = np.arange(r.start, r.stop, dtype=np.int64)[:, None] * cols + np.arange(c.start, c.stop, dtype=np.int64)
        block[...] = 0.25 + (i % 1000003).astype(np.float64)

    def sum_axis0():
        result["S"] = M.sum(axis=0)

    # The mpi4py + NumPy user's column sums: this rank's rows, summed, then one Allreduce (the
    # result on every rank).
    comm, p, me = MPI.COMM_WORLD, dmap.num_locales(), dmap.here()
    row_cut = [rows * q // p for q in range(p + 1)]  # the user's own rows per rank
    col_cut = [cols * q // p for q in range(p + 1)]
    my_i = np.arange(row_cut[me], row_cut[me + 1], dtype=np.int64)[:, None] * cols + np.arange(cols, dtype=np.int64)
    m_local = 0.25 + (my_i % 1000003).astype(np.float64)
    col_local = np.empty(cols)

    def sum_axis0_numpy():
        MPI.COMM_WORLD.Allreduce(m_local.sum(axis=0), col_local)

    # The transposed copy (as bench_python_baseline's transpose): MT[...] = M.T between Block arrays.
    MT = dmap.Array(dmap.Domain(dmap.Block(), (cols, rows)), "float64")

    def transposed_copy():
        MT[...] = M.T

    def weighted(blocks, slices):  # each element times its row (mod 7) + 1, summed on every rank
        local = sum(float((b * (np.arange(s[0].start, s[0].stop) % 7 + 1)[:, None]).sum())
                    for b, s in zip(blocks, slices) if b.size)
        return MPI.COMM_WORLD.allreduce(local)

    # The mpi4py + NumPy user's transpose of a row-distributed matrix: each rank cuts its rows
    # into the column blocks the others will own, one Alltoallv, then places what arrived.
    mt_local = np.empty((col_cut[me + 1] - col_cut[me], rows))
    send = np.empty(m_local.size)
    recv = np.empty(mt_local.size)
    send_counts = [m_local.shape[0] * (col_cut[q + 1] - col_cut[q]) for q in range(p)]
    recv_counts = [(row_cut[q + 1] - row_cut[q]) * mt_local.shape[0] for q in range(p)]
    send_displs = np.cumsum([0] + send_counts[:-1]).tolist()
    recv_displs = np.cumsum([0] + recv_counts[:-1]).tolist()

    def transposed_copy_numpy():
        for q in range(p):  # block q: my rows, q's columns, packed transposed (q's rows, my columns)
            c0, c1 = col_cut[q], col_cut[q + 1]
            send[send_displs[q]:send_displs[q] + send_counts[q]] = m_local[:, c0:c1].T.ravel()
        comm.Alltoallv([send, (send_counts, send_displs), MPI.DOUBLE], [recv, (recv_counts, recv_displs), MPI.DOUBLE])
        for q in range(p):  # from q: my rows of MT by q's rows of M
            r0, r1 = row_cut[q], row_cut[q + 1]
            mt_local[:, r0:r1] = recv[recv_displs[q]:recv_displs[q] + recv_counts[q]].reshape(mt_local.shape[0], r1 - r0)

    # One 5-point sweep over a Stencil grid (as bench_python_baseline's stencil), NumPy on the
    # local frames as examples/python/heat.py updates them.
    DG = dmap.Domain(dmap.Stencil(fluff=1), (rows, cols))
    grid = [dmap.Array(DG, "float64"), dmap.Array(DG, "float64")]
    for block, where in zip(grid[0].local_blocks(), grid[0].local_slices()):
        r, c = where
        i = np.arange(r.start, r.stop, dtype=np.int64)[:, None] * cols + np.arange(c.start, c.stop, dtype=np.int64)
        block[...] = 0.25 + (i % 7).astype(np.float64)
    dmap.update_halos(grid[0])

    def frames_of(X):
        out = []
        for b, (fr, fc), (r, c) in zip(X.local_blocks(), X.local_frame_indices(), X.local_slices()):
            out.append((b, r.start - fr.start, c.start - fc.start, b.shape))
        return out

    frames = [list(zip(frames_of(X), X.local_frames())) for X in grid]
    # The same grid again for the sweep through dmap.evaluate (the same number of sweeps).
    grid_e = [dmap.Array(DG, "float64"), dmap.Array(DG, "float64")]
    grid_e[0][...] = grid[0]
    dmap.update_halos(grid_e[0])

    def sweep_evaluate():
        dmap.evaluate("0.25 * (U[-1, 0] + U[1, 0] + U[0, -1] + U[0, 1])", out=grid_e[1], U=grid_e[0])
        dmap.update_halos(grid_e[1])
        grid_e.reverse()

    def sweep():
        src, dst = frames[0], frames[1]
        for ((_, o0, o1, (h, w)), a), ((b, _, _, _), _) in zip(src, dst):
            np.add(a[o0 - 1:o0 - 1 + h, o1:o1 + w], a[o0 + 1:o0 + 1 + h, o1:o1 + w], out=b)
            np.add(b, a[o0:o0 + h, o1 - 1:o1 - 1 + w], out=b)
            np.add(b, a[o0:o0 + h, o1 + 1:o1 + 1 + w], out=b)
            np.multiply(b, 0.25, out=b)
        dmap.update_halos(grid[1])
        grid.reverse()
        frames.reverse()

    # The mpi4py + NumPy user's sweep: rows per rank with one ghost row above and below (and a
    # zero column each side), Sendrecv with the neighbours, the same NumPy passes.
    h_me = row_cut[me + 1] - row_cut[me]
    u = [np.zeros((h_me + 2, cols + 2)), np.zeros((h_me + 2, cols + 2))]
    gi = np.arange(row_cut[me], row_cut[me + 1], dtype=np.int64)[:, None] * cols + np.arange(cols, dtype=np.int64)
    u[0][1:-1, 1:-1] = 0.25 + (gi % 7).astype(np.float64)
    up, down = (me - 1 if me > 0 else MPI.PROC_NULL), (me + 1 if me < p - 1 else MPI.PROC_NULL)

    def halo(x):
        comm.Sendrecv(x[1], dest=up, recvbuf=x[-1], source=down)
        comm.Sendrecv(x[-2], dest=down, recvbuf=x[0], source=up)

    halo(u[0])

    def sweep_numpy():
        a, b = u[0], u[1]
        inner = b[1:-1, 1:-1]
        np.add(a[:-2, 1:-1], a[2:, 1:-1], out=inner)
        np.add(inner, a[1:-1, :-2], out=inner)
        np.add(inner, a[1:-1, 2:], out=inner)
        np.multiply(inner, 0.25, out=inner)
        halo(b)
        u.reverse()

    redistribute()  # as the C++ side: a first run before the timed ones (plans)
    t1 = times(redistribute)
    check1 = float(C.sum())
    reduce()
    t2 = times(reduce)
    check2 = float(result["sum"])
    triad()
    t3 = times(triad)
    check3 = float(A.sum())
    t4 = times(triad_out)
    check4 = float(A.sum())
    t5 = times(triad_numpy)
    check5 = MPI.COMM_WORLD.allreduce(float(a_local.sum()))
    triad_evaluate()
    t12 = times(triad_evaluate)
    check12 = float(A.sum())
    t6 = times(sum_axis0)
    check6 = float(result["S"].sum())
    t7 = times(sum_axis0_numpy)
    check7 = float(col_local.sum())
    transposed_copy()  # as the C++ side: a first run (its plan)
    t8 = times(transposed_copy)
    check8 = weighted(MT.local_blocks(), MT.local_slices())
    t9 = times(transposed_copy_numpy)
    check9 = weighted([mt_local], [(slice(col_cut[me], col_cut[me + 1]),)])
    sweep()
    sweep()  # as the C++ side: two sweeps before the timed ones
    t10 = times(sweep)
    check10 = float(grid[0].sum())
    sweep_numpy()
    sweep_numpy()
    t11 = times(sweep_numpy)
    sweep_evaluate()
    sweep_evaluate()
    t13 = times(sweep_evaluate)
    check13 = float(grid_e[0].sum())
    check11 = comm.allreduce(float(u[0][1:-1, 1:-1].sum()))
    if dmap.here() == 0:
        for name, t, check in (("redistribute", t1, check1), ("reduce", t2, check2), ("triad", t3, check3),
                               ("triad_out", t4, check4), ("triad_numpy", t5, check5), ("sum_axis0", t6, check6),
                               ("sum_axis0_numpy", t7, check7), ("transpose", t8, check8),
                               ("transpose_numpy", t9, check9), ("stencil", t10, check10),
                               ("stencil_numpy", t11, check11), ("triad_evaluate", t12, check12),
                               ("stencil_evaluate", t13, check13)):
            print(f"time {name} ranks={dmap.num_locales()} threads={dmap.num_threads()} n={n} check={check!r} "
                  f"seconds={','.join(f'{x:.6f}' for x in t)}", flush=True)
    return 0


# ------------------------------------------------------------------------------------ dask
def dask_times(log2n, reps, workers):
    """dask.array's triad, column sums, transposed copy and stencil sweep on the same values, in this process: the threaded
    scheduler with `workers` threads (the cores the MPI runs use), one chunk per worker (rows for
    the 2-D array). Returns {case: [seconds]} and {case: checksum}."""
    import dask
    import dask.array as da
    import numpy as np

    n = 1 << log2n
    i = np.arange(n, dtype=np.int64)
    b_np, t_np = 0.25 + (i % 1000003).astype(np.float64), (i % 7).astype(np.float64)
    rows = 1 << ((log2n + 1) // 2)
    m_np = b_np.reshape(rows, n // rows)
    a_np = np.empty(n)
    b, t = da.from_array(b_np, chunks=-(-n // workers)), da.from_array(t_np, chunks=-(-n // workers))
    m = da.from_array(m_np, chunks=(-(-rows // workers), n // rows))
    result = {}

    def triad():
        da.store(b + 0.5 * t, a_np, lock=False)

    def sum_axis0():
        result["S"] = m.sum(axis=0).compute()

    cols = n // rows
    mt_np = np.empty((cols, rows))

    def transposed_copy():
        da.store(m.T, mt_np, lock=False)

    # The stencil grid: 0.25 + (i*K + j) mod 7, one sweep a map_overlap (zero outside the grid).
    grid = {"u": 0.25 + (np.arange(n, dtype=np.int64) % 7).astype(np.float64).reshape(rows, cols)}

    def kernel(x):
        out = np.zeros_like(x)
        inner = out[1:-1, 1:-1]
        np.add(x[:-2, 1:-1], x[2:, 1:-1], out=inner)
        np.add(inner, x[1:-1, :-2], out=inner)
        np.add(inner, x[1:-1, 2:], out=inner)
        np.multiply(inner, 0.25, out=inner)
        return out

    def sweep():
        u = da.from_array(grid["u"], chunks=(-(-rows // workers), cols))
        grid["u"] = u.map_overlap(kernel, depth=1, boundary=0, dtype=np.float64).compute()

    times, checks = {}, {}
    with dask.config.set(scheduler="threads", num_workers=workers):
        for name, f, first in (("triad_dask", triad, 1), ("sum_axis0_dask", sum_axis0, 1),
                               ("transpose_dask", transposed_copy, 1), ("stencil_dask", sweep, 3)):
            for _ in range(first - 1):  # as the C++ side: the stencil sweeps twice before the timed ones
                f()
            seconds = []
            for _ in range(reps + 1):
                t0 = time.perf_counter()
                f()
                seconds.append(time.perf_counter() - t0)
            times[name] = seconds[1:]
    checks["triad_dask"], checks["sum_axis0_dask"] = float(a_np.sum()), float(result["S"].sum())
    checks["transpose_dask"] = float((mt_np * (np.arange(cols) % 7 + 1)[:, None]).sum())
    checks["stencil_dask"] = float(grid["u"].sum())
    return times, checks


# ------------------------------------------------------------------------------------ driver
def run(command, env):
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        sys.stdout.write(done.stdout)
        raise SystemExit(f"bench_python: {' '.join(command)} failed (exit {done.returncode})")
    return [parse_time_line(line) for line in done.stdout.splitlines() if line.startswith("time ")]


def driver(args):
    build = os.path.abspath(args.build)
    exe = os.path.join(build, "bench", "bench_python_baseline")
    pydir = os.path.join(build, "python")
    if not os.path.exists(exe) or not os.path.isdir(os.path.join(pydir, "dmap")):
        raise SystemExit(f"bench_python: needs {exe} and {pydir}/dmap "
                         f"(cmake --build {args.build} --target bench_python_baseline dmap_python)")
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "DMAP_NUM_THREADS": str(args.threads), "PYTHONDONTWRITEBYTECODE": "1"})
    env["PYTHONPATH"] = pydir + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    mpirun = ["mpirun", "-n", str(args.ranks), "--oversubscribe", "--bind-to", "none"]
    cpp_cmd = mpirun + [exe, str(args.log2n), str(args.reps)]
    py_cmd = mpirun + [args.python, os.path.abspath(__file__), "--worker", f"--log2n={args.log2n}",
                       f"--reps={args.reps}"]

    cpp, py, fields = {}, {}, {}
    # The C++ case each case's checksum and counters come from (its own when not listed).
    cpp_case = {"triad_out": "triad", "triad_evaluate": "triad", "triad_evaluate_numpy": "triad",
                "triad_evaluate_dask": "triad", "stencil_evaluate": "stencil", "stencil_evaluate_numpy": "stencil",
                "triad_numpy": "triad", "triad_out_numpy": "triad", "triad_dask": "triad",
                "sum_axis0_numpy": "sum_axis0", "sum_axis0_dask": "sum_axis0", "transpose_numpy": "transpose",
                "transpose_dask": "transpose", "stencil_numpy": "stencil", "stencil_dask": "stencil"}

    def same_check(case, got):
        want = fields[cpp_case.get(case, case)]["check"]
        if abs(float(got) - float(want)) > 1e-12 * abs(float(want)):
            raise SystemExit(f"bench_python: {case}: the checksum {got} differs from C++'s {want}")

    for _ in range(args.rounds):
        for case, f, t in run(cpp_cmd, env):
            cpp.setdefault(case, []).extend(t)
            fields[case] = f
        for case, f, t in run(py_cmd, env):
            py.setdefault(case, []).extend(t)
            same_check(case, f["check"])
        dask_t, dask_checks = dask_times(args.log2n, args.reps, args.ranks * args.threads)
        for case, t in dask_t.items():
            py.setdefault(case, []).extend(t)
            same_check(case, dask_checks[case])

    # How the locales of one node moved data (both sides run with the same environment).
    transfers = "messages" if env.get("DMAP_NODE_TRANSFERS") == "0" else "node"
    names = {"redistribute": "python_redistribute_block_to_cyclic_1d", "reduce": "python_reduce_sum_1d",
             "triad": "python_triad_1d", "triad_out": "python_triad_out_1d", "triad_numpy": "python_triad_vs_numpy_1d",
             "triad_out_numpy": "python_triad_out_vs_numpy_1d", "triad_dask": "python_triad_vs_dask_1d",
             "triad_out_dask": "python_triad_out_vs_dask_1d", "triad_evaluate": "python_triad_evaluate_1d",
             "triad_evaluate_numpy": "python_triad_evaluate_vs_numpy_1d",
             "triad_evaluate_dask": "python_triad_evaluate_vs_dask_1d", "sum_axis0": "python_sum_axis0_2d",
             "sum_axis0_numpy": "python_sum_axis0_vs_numpy_2d", "sum_axis0_dask": "python_sum_axis0_vs_dask_2d",
             "transpose": "python_transpose_copy_2d", "transpose_numpy": "python_transpose_copy_vs_numpy_2d",
             "transpose_dask": "python_transpose_copy_vs_dask_2d", "stencil": "python_stencil_sweep_2d",
             "stencil_numpy": "python_stencil_sweep_vs_numpy_2d", "stencil_dask": "python_stencil_sweep_vs_dask_2d",
             "stencil_evaluate": "python_stencil_evaluate_2d",
             "stencil_evaluate_numpy": "python_stencil_evaluate_vs_numpy_2d"}
    # A case against a peer (mpi4py + NumPy, Dask): dmap's form from Python, the peer's time.
    peers = {"triad_numpy": ("triad", "triad_numpy"), "triad_out_numpy": ("triad_out", "triad_numpy"),
             "triad_dask": ("triad", "triad_dask"), "triad_out_dask": ("triad_out", "triad_dask"),
             "triad_evaluate_numpy": ("triad_evaluate", "triad_numpy"),
             "triad_evaluate_dask": ("triad_evaluate", "triad_dask"),
             "sum_axis0_numpy": ("sum_axis0", "sum_axis0_numpy"), "sum_axis0_dask": ("sum_axis0", "sum_axis0_dask"),
             "transpose_numpy": ("transpose", "transpose_numpy"), "transpose_dask": ("transpose", "transpose_dask"),
             "stencil_numpy": ("stencil", "stencil_numpy"), "stencil_dask": ("stencil", "stencil_dask"),
             "stencil_evaluate_numpy": ("stencil_evaluate", "stencil_numpy")}
    cpp_case.update({"triad_out_dask": "triad"})
    for case in names:
        f = fields[cpp_case.get(case, case)]
        if case in peers:
            dmap_form, peer = peers[case]
            tp, tc = statistics.median(py[dmap_form]), statistics.median(py[peer])
        else:
            tp, tc = statistics.median(py[case]), statistics.median(cpp[cpp_case.get(case, case)])
        print(f"bench {names[case]} ranks={f['ranks']} threads={f['threads']} transfers={transfers} n={f['n']} "
              f"dmap={tp:.6f} baseline={tc:.6f} unit=s ratio={tc / tp:.3f} msgs={f['msgs']} bytes={f['bytes']} "
              f"node_bytes={f['node_bytes']} min_bytes={f['min_bytes']}", flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the CMake build directory (build)")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="DMAP_NUM_THREADS of every rank (1)")
    ap.add_argument("--log2n", type=int, default=24)
    ap.add_argument("--reps", type=int, default=9, help="timed calls per run, after a warm-up (9)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating runs of each side (5)")
    ap.add_argument("--python", default=sys.executable, help="the Python the workers run (this one)")
    ap.add_argument("--worker", action="store_true", help="(internal) the Python side, under mpirun")
    args = ap.parse_args()
    if args.worker:
        return worker(args.log2n, args.reps)
    return driver(args)


if __name__ == "__main__":
    sys.exit(main())
