#!/usr/bin/env bash
# Configure (Release, warnings as errors), build everything and run the whole ctest suite.
# The last line printed is ctest's summary; the exit status is non-zero on any failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=build
JOBS=${DMAP_JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bash scripts/install-deps.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DDMAP_WERROR=ON
cmake --build "$BUILD_DIR" -j "$JOBS"
# MPI tests carry PROCESSORS 2 + a resource lock, so -j2 never runs two mpirun jobs at once.
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-label-summary -j "$JOBS"
