#!/usr/bin/env bash
# Configures and generates dmap (no build) with each ON/OFF option flipped from its default alone,
# and with a few combinations; prints one line per case and exits non-zero if any case fails to
# configure or generate. The options are read from a default configure's cache (every DMAP_*
# BOOL), so a new option joins the matrix by itself. The single flips are made in turn in that
# default build folder, each case setting the option before it back to its default, as a user
# flips an option in an existing build (about 2 s a case instead of 6: the compiler and package
# checks are cached); the combinations each configure a fresh folder, as a first configure does.
#
#   bash scripts/check-configure-matrix.sh [extra cmake arguments, given to every case]
#
# The ctest test cmake_configure_matrix (label cmake) runs it. CMAKE=<cmake> picks the cmake binary.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CMAKE=${CMAKE:-cmake}
EXTRA=("$@")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/dmap-configure-matrix.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

failures=0
cases=0
# run_case <name> [cmake -D arguments...]: configures and generates in a fresh folder, or with
# IN=<folder> again in that configured folder (which it keeps).
run_case() {
  local name=$1
  shift
  local dir=${IN:-"$WORK/case$cases"}
  cases=$((cases + 1))
  local start=$SECONDS
  if "$CMAKE" -S . -B "$dir" "${EXTRA[@]}" "$@" >"$dir.log" 2>&1; then
    printf 'configure-matrix: ok    %-44s (%d s)\n' "$name" $((SECONDS - start))
  else
    printf 'configure-matrix: FAIL  %-44s (%d s)\n' "$name" $((SECONDS - start))
    sed 's/^/    /' "$dir.log" | grep -v '^    -- ' | tail -n 30
    failures=$((failures + 1))
  fi
  [[ -n ${IN:-} ]] || rm -rf "$dir"
}

# The defaults, and from their cache the BOOL options with their default values.
defaults="$WORK/defaults"
if ! "$CMAKE" -S . -B "$defaults" "${EXTRA[@]}" >"$defaults.log" 2>&1; then
  echo "configure-matrix: FAIL  defaults"
  sed 's/^/    /' "$defaults.log" | tail -n 30
  exit 1
fi
echo "configure-matrix: ok    defaults"
mapfile -t options < <(sed -n 's/^\(DMAP_[A-Z0-9_]*\):BOOL=\(.*\)$/\1=\2/p' "$defaults/CMakeCache.txt" | sort)
if [[ ${#options[@]} -lt 5 ]]; then
  echo "configure-matrix: FAIL  found only ${#options[@]} DMAP_* options in the cache: ${options[*]}"
  exit 1
fi

all_off=()
restore=()   # the option the case before flipped, set back to its default
for entry in "${options[@]}"; do
  option=${entry%%=*}
  value=${entry#*=}
  case ${value^^} in
    ON | TRUE | YES | 1) flipped=OFF ;;
    *) flipped=ON ;;
  esac
  IN=$defaults run_case "$option=$flipped" "${restore[@]}" "-D$option=$flipped"
  restore=("-D$option=$value")
  all_off+=("-D$option=OFF")
done
rm -rf "$defaults"

run_case "all options OFF" "${all_off[@]}"
run_case "DMAP_HDF5=OFF + tests, examples, bench" -DDMAP_HDF5=OFF -DDMAP_BUILD_TESTS=ON -DDMAP_BUILD_EXAMPLES=ON \
  -DDMAP_BUILD_BENCH=ON
run_case "DMAP_HDF5=OFF + DMAP_COMPLETE_TESTS=ON" -DDMAP_HDF5=OFF -DDMAP_COMPLETE_TESTS=ON
run_case "DMAP_PYTHON=OFF + tests off (docs target)" -DDMAP_PYTHON=OFF -DDMAP_BUILD_TESTS=OFF
run_case "DMAP_INSTALL=OFF + DMAP_CONSUMER_TEST=ON" -DDMAP_INSTALL=OFF -DDMAP_CONSUMER_TEST=ON
run_case "tests off, examples on" -DDMAP_BUILD_TESTS=OFF -DDMAP_BUILD_EXAMPLES=ON
run_case "sanitizer build (DMAP_SANITIZE)" -DCMAKE_BUILD_TYPE=Debug -DDMAP_SANITIZE=address,undefined
run_case "chosen tests and examples" "-DDMAP_UNIT_TESTS=test_range;test_rect" "-DDMAP_BAD_INPUT_TESTS=test_bad_api" \
  -DDMAP_EXAMPLES=quickstart

echo "configure-matrix: $((cases - failures)) of $cases cases configured and generated"
[[ $failures -eq 0 ]]
