#!/usr/bin/env bash
# Build the quickstart example (Release) and run it on one locale, then on two MPI ranks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=build
JOBS=${DMAP_JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bash scripts/install-deps.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release      # re-uses an existing build dir
cmake --build "$BUILD_DIR" --target quickstart -j "$JOBS"

exe="$BUILD_DIR/examples/quickstart"
echo
echo "== quickstart, 1 locale (no mpirun) =="
"$exe"
echo
echo "== quickstart, 2 locales (mpirun -n 2) =="
mpirun -n 2 --oversubscribe --bind-to none "$exe"
