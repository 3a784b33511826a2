#!/usr/bin/env bash
# Install the Debian 12 packages dmap needs, on anything from a minimal system (debootstrap
# --variant=minbase) to a ready developer machine. Installs only what is missing and runs
# `apt-get update` only then; a no-op on a ready machine. Works as root (no sudo needed) or via sudo.
#
#   bash scripts/install-deps.sh demo   # what scripts/demo.sh needs: build the heat example and run it
#   bash scripts/install-deps.sh        # everything (= test): the whole test suite, benchmarks, Python, docs
#   bash scripts/install-deps.sh mpich  # test, and MPICH with its HDF5 and ScaLAPACK (scripts/test-mpich.sh)
#
# Nothing a script of ours runs may come from the machine's image instead of from these lists:
# scripts/check-fresh-debian.sh runs the README's two commands in a fresh minimal Debian 12 to prove it.
set -euo pipefail

profile=${1:-test}

# Building and running the heat demo (scripts/demo.sh): a C++20 compiler, CMake, pkg-config, dmap's
# three dependencies, libpng (the picture) and parallel HDF5 (its checkpoints).
DEMO_PACKAGES=(g++ make cmake pkg-config        # a minimal system has neither compiler nor build tools
               librange-v3-dev libtbb-dev libopenmpi-dev openmpi-bin
               libpng-dev                       # the heat example writes PNG images
               libhdf5-openmpi-dev)             # parallel HDF5: io/hdf5.hpp (dmap::hdf5), the demo's checkpoints

# Everything else the test suite (scripts/test.sh), the benchmarks, the docs and the Python module use.
TEST_PACKAGES=(catch2
               ninja-build                      # the presets' generator: builds every target's files side by side (make waits for whole targets)
               doxygen                          # the API reference (docs target, checked by the test suite)
               libscalapack-openmpi-dev         # ScaLAPACK: oracle and interop target of tests/dists/test_scalapack.cpp
               libblas-dev liblapack-dev        # scalapack-openmpi.pc requires blas.pc and lapack.pc, which only these carry
               nlohmann-json3-dev               # JSON parsing of DAP descriptions (interop/dap_json.hpp)
               hdf5-tools                       # h5dump: the heat restart test checks the HDF5 file it wrote
               python3 python3-numpy python3-h5py  # independent readers of dmap's .npy and HDF5 files in the tests
               python3-mpi4py python3-pytest pybind11-dev python3-dev  # the Python module `import dmap` and its pytest suite
               libfftw3-dev libfftw3-mpi-dev    # FFTW: examples/fft2d's 1-D transforms, and FFTW's MPI transform bench/fft2d measures it against
               python3-dask)                    # dask.array: a peer bench/python/bench_python.py measures dmap from Python against

# The second MPI (scripts/test-mpich.sh, DMAP_MPI=mpich): MPICH, and HDF5 and ScaLAPACK built for it. Beside
# Open MPI's: Debian's alternatives keep mpicxx, mpirun and hdf5.pc Open MPI's; dmap names the suffixed wrappers.
MPICH_PACKAGES=(libmpich-dev mpich              # MPICH 4: mpicxx.mpich, mpiexec.mpich (Hydra)
                libhdf5-mpich-dev               # parallel HDF5 for MPICH (pkg-config hdf5-mpich): test_hdf5
                libscalapack-mpich-dev)         # ScaLAPACK for MPICH (pkg-config scalapack-mpich): the ScaLAPACK tests

case "$profile" in
  demo) PACKAGES=("${DEMO_PACKAGES[@]}") ;;
  test) PACKAGES=("${DEMO_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  mpich) PACKAGES=("${DEMO_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${MPICH_PACKAGES[@]}") ;;
  *) echo "install-deps: unknown profile '$profile' (expected 'demo', 'test' or 'mpich')" >&2; exit 2 ;;
esac

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages of the '$profile' profile present"
  exit 0
fi

echo "install-deps ($profile): installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi

"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
