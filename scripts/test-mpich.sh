#!/usr/bin/env bash
# The unit suite over MPICH (DMAP_MPI=mpich): installs what is missing (scripts/install-deps.sh
# mpich: MPICH 4 and the HDF5 and ScaLAPACK built for it, beside Open MPI's), configures
# build-mpich/ with the preset `mpich`, builds the library and the unit test binary only, and
# runs the unit suite at 1 and 3 locales under MPICH's mpiexec (ctest --preset mpich). .ci/run
# calls it after scripts/test.sh, which tests everything over Open MPI. The exit status is
# non-zero on any failure. DMAP_JOBS sets the build's parallel jobs (default 2).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

JOBS=${DMAP_JOBS:-2}
start=$SECONDS

bash scripts/install-deps.sh mpich
# The preset generates for Ninja; a folder an earlier make-based build left is made afresh.
if [[ -f build-mpich/CMakeCache.txt ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' build-mpich/CMakeCache.txt; then
  echo "test-mpich.sh: build-mpich/ was generated for another build tool; removing it"
  rm -rf build-mpich
fi
cmake --preset mpich                          # build-mpich/: DMAP_MPI=mpich, Release library, -Werror
cmake --build --preset mpich -j "$JOBS"       # the library and dmap_tests
ctest --preset mpich                          # unit_np1, unit_np3_nodes2
echo "test-mpich.sh: the unit suite passed over MPICH at 1 and 3 locales ($((SECONDS - start)) s)"
