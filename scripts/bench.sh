#!/usr/bin/env bash
# Build the benchmarks (Release) and run each in every configuration below; prints their "bench ..." lines.
#   bash scripts/bench.sh            # all benches in BENCHES
#   bash scripts/bench.sh stream     # only the named ones
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Benchmarks to run: bench/<name>.cpp (or bench/<name>/main.cpp) -> target bench_<name>; python:
# bench/python/bench_python.py (Python calls against the same C++ calls, see below).
BENCHES=(compile_quickstart stream stencil dists redistribute memory_model soak scale pdgemr2d fft2d cg pagerank groupby spmv sparse_loops associative algorithms io python)
# Configurations "RANKSxTHREADS" per bench: MPI ranks (mpirun -n) times oneTBB threads per rank
# (DMAP_NUM_THREADS).
declare -A CONFIGS=([compile_quickstart]="1x1" [stream]="1x2 2x1" [stencil]="1x2 2x1 4x1" [dists]="1x2 2x1 4x1" [redistribute]="2x1 3x1 4x1" [memory_model]="2x1 3x1 4x1" [soak]="4x1" [scale]="1x1 2x1 4x1 8x1" [pdgemr2d]="1x1 2x1 3x1 4x1" [fft2d]="1x1 2x1 3x1 4x1" [cg]="1x1 1x2 2x1 3x1 4x1" [pagerank]="1x1 1x2 2x1 3x1 4x1" [groupby]="1x1 2x1 3x1 4x1" [spmv]="1x2 2x1 4x1" [sparse_loops]="1x2 2x1 4x1" [associative]="1x2 2x1 4x1" [algorithms]="1x2 2x1 4x1" [io]="2x1 4x1" [python]="1x2 2x1 4x1")
DEFAULT_CONFIGS="1x2 2x1"
# Argument sets per bench (commas stand for spaces), each run in every configuration; none: one
# run without arguments. A bench exits 77 when a set does not fit a configuration (skipped):
# stencil's "n,iterations,RxC" runs where R * C is the rank count; io's "--grid=RxC" likewise.
declare -A ARGS=([stencil]="4096,40,1x1 4100,40,1x1 4096,40,1x2 4100,40,1x2 4096,40,2x1 4100,40,2x1 4096,40,4x1 4100,40,4x1" [algorithms]="scan scan_block2d partial_reduce sort histogram reverse_halo" [io]="--grid=1x2 --grid=2x1 --grid=4x1")

# Benchmarks that move data between locales: at 2 or more ranks each configuration runs twice,
# with node-aware transfers (the default: direct copies between the ranks of one node) and with
# DMAP_NODE_TRANSFERS=0 (messages, as between nodes), so both paths are measured in every run;
# their lines say which (transfers=node|messages).
COMM_BENCHES=" stencil dists redistribute memory_model soak scale pdgemr2d fft2d cg pagerank groupby spmv sparse_loops associative algorithms io python "

BUILD_DIR=${DMAP_BENCH_BUILD_DIR:-build}
JOBS=${DMAP_JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [[ $# -gt 0 ]]; then BENCHES=("$@"); fi

bash scripts/install-deps.sh
# Optimised benchmarks and Python module, also in a build that scripts/test.sh configured (its
# preset compiles them only to check and to test them): DMAP_BENCH_BUILD_CHECK=OFF, and
# DMAP_PYTHON_OPTIMIZATION back to its default.
# A new folder is generated for Ninja, as the presets do, so that scripts/test.sh can reuse it.
generator=()
[[ -f $BUILD_DIR/CMakeCache.txt ]] || generator=(-G Ninja)
cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DDMAP_BUILD_BENCH=ON \
  -DDMAP_BENCH_BUILD_CHECK=OFF -UDMAP_PYTHON_OPTIMIZATION >/dev/null
targets=()
# python: bench/python/bench_python.py, which starts mpirun itself (the Python calls and the C++
# program bench_python_baseline, alternately); it needs the module dmap_python.
for b in "${BENCHES[@]}"; do
  if [[ $b == python ]]; then targets+=(bench_python_baseline dmap_python); else targets+=("bench_$b"); fi
done
cmake --build "$BUILD_DIR" --target "${targets[@]}" -j "$JOBS"
# The Python the module was built for (the build's Python3_EXECUTABLE).
PYTHON=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")

status=0
for b in "${BENCHES[@]}"; do
  exe="$BUILD_DIR/bench/bench_$b"
  for cfg in ${CONFIGS[$b]:-$DEFAULT_CONFIGS}; do
    ranks=${cfg%x*}
    threads=${cfg#*x}
    transfer_settings=(1)
    if [[ $COMM_BENCHES == *" $b "* && $ranks -gt 1 ]]; then transfer_settings=(1 0); fi
    for set in ${ARGS[$b]:-none}; do
      args=()
      if [[ $set != none ]]; then IFS=, read -r -a args <<<"$set"; fi
      for transfers in "${transfer_settings[@]}"; do
        rc=0
        if [[ $b == python ]]; then
          out=$(DMAP_NODE_TRANSFERS=$transfers "$PYTHON" bench/python/bench_python.py --build="$BUILD_DIR" --ranks="$ranks" \
                  --threads="$threads" 2>&1) || rc=$?
        else
          out=$(DMAP_NODE_TRANSFERS=$transfers DMAP_NUM_THREADS=$threads mpirun -n "$ranks" --oversubscribe --bind-to none \
                  "$exe" ${args[@]+"${args[@]}"} 2>&1) || rc=$?
        fi
        if [[ $rc -eq 77 ]]; then continue 2; fi
        echo "== bench_$b ${args[*]+${args[*]}}: $ranks rank(s) x $threads thread(s), node transfers $([[ $transfers == 1 ]] && echo on || echo off) =="
        if [[ $rc -eq 0 ]]; then
          grep '^bench ' <<<"$out" || echo "(bench_$b printed no 'bench ...' line)"
        else
          printf '%s\n' "$out"
          echo "bench_$b failed in configuration $cfg ${args[*]+${args[*]}}, DMAP_NODE_TRANSFERS=$transfers (exit $rc)" >&2
          status=1
        fi
      done
    done
  done
done
exit $status
