#!/usr/bin/env bash
# Install the Debian 12 packages dmap needs to build and test. Installs only what is missing and runs
# `apt-get update` only then; a no-op on a ready machine. Works as root (no sudo needed) or via sudo.
set -euo pipefail

# Add packages here (one list for build, test and demo).
PACKAGES=(build-essential cmake pkg-config librange-v3-dev libtbb-dev libopenmpi-dev openmpi-bin catch2
          doxygen       # doxygen: the API reference (docs target, checked by the test suite)
          libpng-dev    # libpng-dev: the heat example writes PNG images
          libscalapack-openmpi-dev    # ScaLAPACK: oracle and interop target of tests/test_scalapack.cpp
          nlohmann-json3-dev          # JSON parsing of DAP descriptions (interop/dap_json.hpp): a tested parser for hostile text
          libhdf5-openmpi-dev         # parallel HDF5: io/hdf5.hpp (dmap::hdf5), the heat demo's checkpoints, bench_io
          python3-numpy python3-h5py  # independent readers of dmap's .npy and HDF5 files in the tests (numpy.load, h5py)
          python3-mpi4py python3-pytest pybind11-dev python3-dev)  # the Python module `import dmap` (cmake/dmapPython.cmake) and its pytest suite

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
