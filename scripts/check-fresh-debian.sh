#!/usr/bin/env bash
# Run the README's two commands in a fresh minimal Debian 12, as a new user would: debootstrap
# --variant=minbase bookworm into a temporary root, clone this repository into it, and run each
# command (the first ```bash block of README.md) in that root as root, with an empty environment.
# Prints how long each took and exits non-zero if either failed. Run it before changing what
# scripts/install-deps.sh installs: it proves that nothing the demo or the tests need comes from the
# machine's image. Needs root, network access to a Debian mirror, and about 6 GB of disk.
#
#   sudo bash scripts/check-fresh-debian.sh [--only=demo|test] [--ref=REV] [--dir=DIR] [--keep]
#                                           [--mirror=URL]
#
#   --only=demo|test  run one of the two commands (default: both, the demo first)
#   --ref=REV         the commit to clone (default HEAD; uncommitted changes are not part of the check)
#   --dir=DIR         where the temporary root goes (default: a new folder under ${TMPDIR:-/var/tmp})
#   --keep            leave the root and its build folders in place for a look afterwards
#   --mirror=URL      the Debian mirror (default http://deb.debian.org/debian)
# Logs: <root>/../<command>.log next to the root, kept whatever happens (printed on failure).
# Exit status: 0 when every command ran and passed, 1 when one failed, 2 for bad arguments, 77
# when this machine cannot host the check (not root, no debootstrap, no mirror, no mounts): then
# nothing was checked, and the message says why.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

only="" ref=HEAD dir="" keep=0 mirror=http://deb.debian.org/debian
for arg in "$@"; do
  case "$arg" in
    --only=demo|--only=test) only=${arg#--only=} ;;
    --ref=?*) ref=${arg#--ref=} ;;
    --dir=?*) dir=${arg#--dir=} ;;
    --keep) keep=1 ;;
    --mirror=?*) mirror=${arg#--mirror=} ;;
    *) echo "check-fresh-debian: unknown argument '$arg' (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
cannot_run() { echo "check-fresh-debian: SKIPPED, this machine cannot host the check: $*" >&2; exit 77; }
if [[ $(id -u) -ne 0 ]]; then
  cannot_run "it needs root (debootstrap, chroot and mount)"
fi
commit=$(git -C "$repo" rev-parse --verify "$ref^{commit}")
if [[ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]]; then
  echo "check-fresh-debian: note: uncommitted changes in $repo are not checked (cloning $commit)"
fi

# The README's two commands: the command lines of its first ```bash block, comments dropped.
mapfile -t readme_commands < <(awk '/^```bash/ {inside = 1; next} inside && /^```/ {exit}
                                    inside {sub(/[ \t]*#.*/, ""); if (length($0)) print}' "$repo/README.md")
if [[ ${#readme_commands[@]} -ne 2 ]]; then
  echo "check-fresh-debian: README.md's first bash block holds ${#readme_commands[@]} commands, not 2" >&2
  exit 2
fi
declare -A command_of=([demo]="${readme_commands[0]}" [test]="${readme_commands[1]}")
names=(demo test)
[[ -n "$only" ]] && names=("$only")

if ! command -v debootstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap >/dev/null || cannot_run "debootstrap cannot be installed"
fi
work=${dir:-$(mktemp -d "${TMPDIR:-/var/tmp}/dmap-fresh-debian.XXXXXX")}
root="$work/root"
mkdir -p "$work"

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  if [[ $keep == 0 ]]; then
    rm -rf --one-file-system "$root"
  else
    echo "check-fresh-debian: kept $root"
  fi
}
trap cleanup EXIT
mount_into() {   # mount_into <mount args...> <target inside the root>
  local target="$root/${*: -1}"
  mkdir -p "$target"
  mount "${@:1:$#-1}" "$target"
  mounted+=("$target")
}

start=$SECONDS
echo "== debootstrap --variant=minbase bookworm $root ($mirror)"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
  { tail -n 30 "$work/debootstrap.log"; cannot_run "debootstrap from $mirror failed (log above)"; }
echo "   $((SECONDS - start)) s"
git clone --quiet --no-hardlinks "$repo" "$root/root/dmap"
git -C "$root/root/dmap" checkout --quiet --detach "$commit"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount_into -t proc proc /proc || cannot_run "mounting /proc into the root is not allowed here"
mount_into -t sysfs sysfs /sys
mount_into --bind /dev /dev
mount_into --bind /dev/pts /dev/pts
mount_into -t tmpfs tmpfs /dev/shm    # Open MPI's shared-memory transport

declare -A seconds_of status_of
for name in "${names[@]}"; do
  cmd=${command_of[$name]}
  echo "== $name: $cmd   (log: $work/$name.log)"
  t0=$SECONDS
  set +e
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd /root/dmap && $cmd" > "$work/$name.log" 2>&1
  status_of[$name]=$?
  set -e
  seconds_of[$name]=$((SECONDS - t0))
  if [[ ${status_of[$name]} -ne 0 ]]; then
    tail -n 40 "$work/$name.log"
  fi
  echo "   $name: exit ${status_of[$name]} after ${seconds_of[$name]} s"
done

echo
echo "check-fresh-debian: commit $commit on a fresh minimal Debian 12"
failed=0
for name in "${names[@]}"; do
  printf '  %-5s %-22s %5d s  %s\n' "$name" "${command_of[$name]}" "${seconds_of[$name]}" \
    "$([[ ${status_of[$name]} -eq 0 ]] && echo ok || echo "FAILED (exit ${status_of[$name]})")"
  [[ ${status_of[$name]} -eq 0 ]] || failed=1
done
exit $failed
