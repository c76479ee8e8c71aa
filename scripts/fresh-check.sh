#!/usr/bin/env bash
# fresh-check.sh - run the README's two commands on a fresh Debian 12 machine: a minimal
# debootstrap root (variant minbase: Debian's "required" packages and apt, nothing else) with a
# clean clone of this repository inside, where `scripts/test.sh` and then `scripts/demo.sh` run
# exactly as a new user would run them. Any package that the project's scripts use but do not
# install makes this fail. `.ci/run` runs the whole suite this way.
#
#   sudo scripts/fresh-check.sh [--worktree] [--drop PKG]... [--no-demo] [--keep]
#                               [-- scripts/test.sh arguments, e.g. --suite unit]
#
#   --worktree   copy the work tree's uncommitted changes (tracked and untracked, not ignored)
#                over the clone of HEAD (default: HEAD exactly, as CI's clone)
#   --drop PKG   remove PKG from scripts/host-deps.sh in the clone first (repeatable): the check
#                must then fail, naming what is missing (how the install list is audited)
#   --no-demo    run scripts/test.sh only
#   --keep       leave the root in build/fresh/root afterwards (it is removed otherwise)
#
# How (root required: debootstrap, chroot, mount namespaces):
#  1. host packages for this script (scripts/host-deps.sh fresh: debootstrap, git, util-linux);
#  2. the minbase root of Debian 12 (bookworm) from the mirror of this machine's own apt
#     configuration (scripts/debian-mirror.sh), cached as a tar keyed by suite, mirror, variant
#     and debootstrap version; each run unpacks a new copy into build/fresh/root;
#  3. `git clone` of this repository into the root at /src/qemu-mlx5 (git runs on the host: a
#     minimal root has no git);
#  4. inside a private mount namespace (`unshare --mount --propagation private`, so every mount
#     below vanishes with it, even when the run is killed): /proc, /sys and /dev, and the caches
#     that keep a rerun cheap, bind-mounted into the root; then `chroot` with a clean
#     environment runs scripts/test.sh and scripts/demo.sh there;
#  5. the root is removed with `rm -rf --one-file-system`, after checking that nothing is mounted
#     below it.
# Caches (MLX5T_FRESH_CACHE, default /var/cache/qemu-mlx5-fresh): debootstrap/ (its .debs),
# roots/ (root tars), apt-archives/ (the root's /var/cache/apt/archives), trixie-apt/ (the
# clone's build/apt: trixie package lists and .debs for the guest image), src-cache/ (the
# clone's build/src-cache: QEMU source and firmware packages), ccache/ (unless this machine has
# a ccache directory of its own, which is then used: QEMU's rebuild is mostly cache hits).
# Output: everything the two commands print, the packages the root had to install, and a last
# line "N passed, N failed" (test.sh's tests, plus one for the demo); log build/fresh/check.log.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

say() { echo "fresh-check: $*" >&2; }
fail() { say "error: $*"; echo "0 passed, 1 failed"; exit 1; }

worktree=0 keep=0 demo=1 drops=() test_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --worktree) worktree=1 ;;
    --keep) keep=1 ;;
    --no-demo) demo=0 ;;
    --drop) [ $# -ge 2 ] || fail "--drop needs a package name"; drops+=("$2"); shift ;;
    --) shift; test_args=("$@"); break ;;
    -h|--help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) fail "unknown argument $1 (see --help)" ;;
  esac
  shift
done
[ "$(id -u)" = 0 ] || fail "must run as root (debootstrap, chroot and mount namespaces need it)"

scripts/host-deps.sh fresh || fail "host packages for the check are missing"

suite=${FRESH_SUITE:-bookworm}
mirror=$(scripts/debian-mirror.sh) || fail "no Debian mirror in this machine's apt configuration"
cache=${MLX5T_FRESH_CACHE:-/var/cache/qemu-mlx5-fresh}
fresh=$root/build/fresh
R=$fresh/root
mkdir -p "$cache"/{debootstrap,roots,apt-archives/partial,trixie-apt,src-cache,ccache} "$fresh" ||
  fail "cannot create $cache"
exec 8>"$cache/.lock"
flock -w 3600 8 || fail "another fresh-check holds $cache/.lock"
log=$fresh/check.log
: >"$log"

# Remove a root tree safely: never while anything is mounted below it, never across file systems.
remove_tree() {
  local t=$1
  [ -e "$t" ] || return 0
  if findmnt -rn -o TARGET | awk -v t="$t" 'index($0, t "/") == 1 || $0 == t' | grep -q .; then
    fail "something is mounted below $t (not removing it): $(findmnt -rn -o TARGET | grep -F "$t" | head -n3 | xargs)"
  fi
  rm -rf --one-file-system "$t"
}

# --- 1. the minbase root, cached as a tar ------------------------------------------------------
dbver=$(dpkg-query -W -f='${Version}' debootstrap)
key=$(echo "$suite $mirror minbase $dbver v1" | sha256sum | cut -c1-16)
tarball=$cache/roots/$suite-minbase-$key.tar
t0=$SECONDS
if [ ! -s "$tarball" ]; then
  say "debootstrap --variant=minbase $suite (mirror from this machine's apt configuration)"
  tmp=$fresh/debootstrap.tmp
  remove_tree "$tmp"
  # debootstrap mounts /proc and /sys in the target while it works: a private namespace makes
  # sure they go away with it
  unshare --mount --propagation private -- \
    debootstrap --variant=minbase --cache-dir="$cache/debootstrap" "$suite" "$tmp" "$mirror" \
    >"$fresh/debootstrap.log" 2>&1 || { tail -n 20 "$fresh/debootstrap.log" >&2; fail "debootstrap failed ($fresh/debootstrap.log)"; }
  tar -C "$tmp" --numeric-owner -cf "$tarball.tmp" . || fail "cannot write $tarball"
  mv "$tarball.tmp" "$tarball"
  remove_tree "$tmp"
fi
remove_tree "$R"
mkdir -p "$R"
tar -C "$R" --numeric-owner -xf "$tarball" || fail "cannot unpack $tarball"
say "fresh $suite minbase root: $(chroot "$R" dpkg-query -W -f='.\n' | wc -l) packages installed ($((SECONDS - t0)) s)"

# --- 2. the clone --------------------------------------------------------------------------------
src=/src/qemu-mlx5
git clone -q --no-hardlinks "$root" "$R$src" || fail "git clone failed"
if ((worktree)); then
  (git ls-files -z -c -o --exclude-standard | tar --null -T - -cf - | tar -C "$R$src" -xf -) ||
    fail "cannot copy the work tree"
  say "clone of HEAD $(git rev-parse --short HEAD) plus the work tree's changes"
else
  [ -z "$(git status --porcelain --untracked-files=no)" ] ||
    say "note: the work tree has uncommitted changes; checking HEAD only (--worktree to include them)"
  say "clone of HEAD $(git rev-parse --short HEAD)"
fi
for p in "${drops[@]}"; do
  grep -qw -- "$p" "$R$src/scripts/host-deps.sh" || fail "--drop $p: not in scripts/host-deps.sh"
  # only inside the PKGS[...]="..." lists (perl is Essential in Debian)
  P=$p perl -0pi -e 's{(PKGS\[[^\]]+\]=")([^"]*)"}{my ($h, $b) = ($1, $2);
    $b =~ s/(?<!\S)\Q$ENV{P}\E(?!\S)//g; "$h$b\""}ge' "$R$src/scripts/host-deps.sh"
  if (cd "$R$src" && P=$p bash -c 'scripts/host-deps.sh --list | grep -qxF -- "$P"'); then
    fail "--drop $p: could not remove it from the clone's scripts/host-deps.sh"
  fi
  say "dropped package '$p' from the clone's scripts/host-deps.sh: this check must now fail"
done
mkdir -p "$R$src/build/apt" "$R$src/build/src-cache" "$R/var/cache/mlx5t-ccache"
cp -L /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null || true

# ccache: this machine's own cache directory if it has one (shared with builds outside the root)
ccache_dir=$cache/ccache
if command -v ccache >/dev/null; then
  d=$(ccache -k cache_dir 2>/dev/null) && [ -d "$d" ] && ccache_dir=$d
fi

# --- 3. the two commands, in a private mount namespace --------------------------------------------
env_keep=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
          LANG=C.UTF-8 TERM=dumb CI="${CI:-}" CCACHE_DIR=/var/cache/mlx5t-ccache)
for v in MLX5T_ACCEL http_proxy https_proxy no_proxy; do
  [ -n "${!v:-}" ] && env_keep+=("$v=${!v}")
done
inner=$(cat <<'SH'
set -u
cd "$SRC"
echo "== scripts/test.sh $*"
scripts/test.sh "$@"
echo "@@FRESH test.sh rc=$?"
if [ "$DEMO" = 1 ]; then
  echo "== scripts/demo.sh"
  scripts/demo.sh
  echo "@@FRESH demo.sh rc=$?"
fi
SH
)
say "running the README's commands in the root (log: $log)"
t1=$SECONDS
CACHE=$cache CCACHE=$ccache_dir SRC=$src unshare --mount --propagation private -- bash -c '
  set -e
  R=$1; shift
  mount -t proc proc "$R/proc"
  mount --rbind /sys "$R/sys"
  mount --rbind /dev "$R/dev"
  mount --bind "$CACHE/apt-archives" "$R/var/cache/apt/archives"
  mount --bind "$CACHE/trixie-apt" "$R$SRC/build/apt"
  mount --bind "$CACHE/src-cache" "$R$SRC/build/src-cache"
  mount --bind "$CCACHE" "$R/var/cache/mlx5t-ccache"
  exec chroot "$R" /usr/bin/env -i "$@"
' fresh-ns "$R" "${env_keep[@]}" SRC=$src DEMO=$demo /bin/bash -c "$inner" inner "${test_args[@]}" \
  2>&1 < /dev/null | tee -a "$log"
elapsed=$((SECONDS - t1))

# --- 4. verdict ------------------------------------------------------------------------------------
test_rc=$(sed -n 's/^@@FRESH test.sh rc=//p' "$log" | tail -n1)
demo_rc=$(sed -n 's/^@@FRESH demo.sh rc=//p' "$log" | tail -n1)
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
passed=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"${summary:-0 passed}")
failed=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"${summary:-0 passed, 1 failed}")
[ -n "$summary" ] || say "scripts/test.sh printed no summary (counted as a failure)"
[ "${test_rc:-1}" = 0 ] || [ "$failed" -gt 0 ] || { say "scripts/test.sh exited ${test_rc:-?}"; failed=$((failed + 1)); }
if ((demo)); then
  pp=$(grep -c 'bytes in .* seconds = ' "$log")
  if [ "${demo_rc:-1}" = 0 ] && [ "$pp" -ge 2 ]; then passed=$((passed + 1)); say "demo: PASS (two ibv_rc_pingpong results)"
  else failed=$((failed + 1)); say "demo: FAIL (exit ${demo_rc:-none}, $pp pingpong result lines)"; fi
fi
# every failed guest instance's verdict and reasons again, at the end: CI shows only a log's tail
reasons=$(awk '/^guest-run: [^ ]+\[[0-9]+\]: FAIL/ {p = 1; print; next}
               p && /^guest-run:   / {print; next} {p = 0}' "$log" | head -n 40)
[ -z "$reasons" ] || { say "failed guest instances, with their reasons:"; printf '%s\n' "$reasons"; }
installed=$(grep -h '^host-deps: installing' "$log" | sed 's/ (log:.*//; s/^host-deps: installing //' | xargs)
say "packages the root had to install: ${installed:-none}"
say "in the root: ${elapsed} s"
if ((keep)); then say "root kept in $R"; else remove_tree "$R"; fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
