#!/usr/bin/env bash
# Build the heat example (Release) and run it on one locale, then on two MPI ranks (checkpointing
# every 1000 iterations), then once more on one locale restarted from the two-rank checkpoint. Each
# run writes a PNG heat map of the final temperature field (and the field as .npy and .h5) into the
# build directory; the three images are byte-identical. Installs only what the demo needs
# (scripts/install-deps.sh demo) and configures only the heat example, in its own build directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=build-demo
JOBS=${DMAP_JOBS:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}  # idle ranks yield the core

bash scripts/install-deps.sh demo
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DDMAP_BUILD_TESTS=OFF -DDMAP_BUILD_BENCH=OFF \
      -DDMAP_CONSUMER_TEST=OFF -DDMAP_PYTHON=OFF -DDMAP_BUILD_EXAMPLES=ON -DDMAP_EXAMPLES=heat
cmake --build "$BUILD_DIR" --target heat -j "$JOBS"

exe="$BUILD_DIR/examples/heat"
out_dir=$(cd "$BUILD_DIR" && pwd)
echo
echo "== heat, 1 locale (no mpirun) =="
"$exe" --out="$out_dir/heat_np1"
echo
echo "== heat, 2 locales (mpirun -n 2) =="
mpirun -n 2 --oversubscribe --bind-to none "$exe" --out="$out_dir/heat_np2" --checkpoint-every=1000
echo
echo "== heat, 1 locale, restarted from the 2-locale checkpoint =="
"$exe" --out="$out_dir/heat_restart" --restart="$out_dir/heat_np2-checkpoint.h5"
echo
echo "PNG heat maps: $out_dir/heat_np1.png (1 locale), $out_dir/heat_np2.png (2 locales),"
echo "  $out_dir/heat_restart.png (restarted); the fields as heat_*.npy (numpy.load) and heat_*.h5 (/heat/u)"
if cmp -s "$out_dir/heat_np1.png" "$out_dir/heat_np2.png" && cmp -s "$out_dir/heat_np1.png" "$out_dir/heat_restart.png"; then
  echo "the three images are byte-identical"
else
  echo "the images differ" >&2
  exit 1
fi
