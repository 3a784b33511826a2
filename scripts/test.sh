#!/usr/bin/env bash
# Configure (Release, warnings as errors), build everything and run the whole ctest suite; then
# build the bad-input tests and part of the unit tests again with AddressSanitizer and
# UndefinedBehaviorSanitizer and run them (the unit files at 3 locales, the bad-input suite at 1
# and 3). The exit status is non-zero on any failure.
# DMAP_SANITIZERS=0 skips the sanitizer pass (for a quick local run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

JOBS=${DMAP_JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The flags of both builds live in CMakePresets.json (configure, build and test presets of the
# same names), so a developer gets exactly these builds with `cmake --preset suite` etc.
bash scripts/install-deps.sh
# The presets generate for Ninja; a folder an earlier make-based build left is made afresh.
for dir in build build-sanitize; do
  if [[ -f $dir/CMakeCache.txt ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$dir/CMakeCache.txt"; then
    echo "test.sh: $dir/ was generated for another build tool; removing it"
    rm -rf "$dir"
  fi
done
cmake --preset suite                         # build/: Release library, -Werror, DMAP_COMPLETE_TESTS
cmake --build --preset suite -j "$JOBS"
# MPI tests carry PROCESSORS 2 + a resource lock, so -j2 never runs two mpirun jobs at once.
ctest --preset all -j "$JOBS"

if [[ "${DMAP_SANITIZERS:-1}" != 0 ]]; then
  # The sanitize preset (build-sanitize/): a reduced suite (docs/testing.md, "Sanitizers"), the
  # whole bad-input suite and the unit files that do the index arithmetic, remote access,
  # exchanges, halos, directories and reallocation. -O0: a sanitized -O1 build of the whole unit
  # suite takes longer than everything else here together. -g1: line numbers in the reports. No
  # -Werror: the warnings are checked by the build above, and g++ 12's sanitizer instrumentation
  # adds false -Wmaybe-uninitialized warnings inside libstdc++ (std::function in std::regex).
  cmake --preset sanitize
  cmake --build --preset sanitize -j "$JOBS"   # the two test binaries (and the library), side by side
  # The test preset sets ASAN_OPTIONS (no leak reports: Open MPI keeps its allocations until
  # exit, so they would be about MPI, not dmap) and runs unit_np3_nodes2 and bad_input_np1/3.
  ctest --preset sanitize
fi
