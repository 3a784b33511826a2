#!/usr/bin/env bash
# Configure (Release, warnings as errors), build everything and run the whole ctest suite; then
# build the bad-input tests and part of the unit tests again with AddressSanitizer and
# UndefinedBehaviorSanitizer and run them at 1 and 3 locales. The exit status is non-zero on any failure.
# DMAP_SANITIZERS=0 skips the sanitizer pass (for a quick local run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=build
SANITIZE_DIR=build-sanitize
JOBS=${DMAP_JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bash scripts/install-deps.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DDMAP_WERROR=ON -DDMAP_COMPLETE_TESTS=ON
cmake --build "$BUILD_DIR" -j "$JOBS"
# MPI tests carry PROCESSORS 2 + a resource lock, so -j2 never runs two mpirun jobs at once.
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-label-summary -j "$JOBS"

if [[ "${DMAP_SANITIZERS:-1}" != 0 ]]; then
  # A reduced suite (docs/testing.md, "Sanitizers"): the whole bad-input suite and the unit files
  # that do the index arithmetic, remote access, exchanges, halos, directories and reallocation.
  # -O0: a sanitized -O1 build of the whole unit suite takes longer than everything else here
  # together. -g1: line numbers in the reports. No -Werror: the warnings are checked by the build
  # above, and g++ 12's sanitizer instrumentation adds false -Wmaybe-uninitialized warnings inside
  # libstdc++ (std::function in std::regex).
  SANITIZED_UNIT_TESTS="test_range;test_rect;test_extremes;test_remote;test_misaligned;test_array_views;test_stencil;test_directory_maps;test_resize;test_dap_import;test_sort;test_sparse_domains;test_associative"
  cmake -S . -B "$SANITIZE_DIR" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" \
        -DDMAP_SANITIZE=address,undefined -DDMAP_WERROR=OFF -DDMAP_BUILD_EXAMPLES=OFF -DDMAP_BUILD_BENCH=OFF \
        -DDMAP_CONSUMER_TEST=OFF -DDMAP_UNIT_TESTS="$SANITIZED_UNIT_TESTS"
  cmake --build "$SANITIZE_DIR" -j "$JOBS"   # one make run: the targets compile side by side
  # Open MPI keeps its allocations until exit: leak reports would be about MPI, not dmap.
  export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir "$SANITIZE_DIR" --output-on-failure --no-label-summary -R '^(unit|bad_input)_np[13]$'
fi
