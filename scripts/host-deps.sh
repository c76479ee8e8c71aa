#!/usr/bin/env bash
# host-deps.sh - the one place that names every Debian package this project's scripts use on
# the host, and installs the missing ones.
#
#   scripts/host-deps.sh [--list] [--check] [GROUP...]      (no GROUP: every group)
#
# Each group belongs to the script(s) that need it:
#   qemu     scripts/build-qemu.sh   (compilers, QEMU's build dependencies incl. libslirp)
#   image    scripts/build-image.sh  (cpio, readelf, xz, gcc for rdma-verify)
#   test     scripts/test.sh, scripts/guest-run.py, the unit tests (meson's compiler, glib, zlib),
#            vde_switch (the switch of 3-4 guest fabrics)
#   capture  scripts/check-capture.py (tshark)
#   user-net the user-net guest test (ssh and ssh-keygen into a guest through -netdev user)
#   fresh    scripts/fresh-check.sh  (debootstrap, git, unshare)
#   fuzz     scripts/fuzz.sh         (clang with libFuzzer and the sanitizer runtimes)
#   style    scripts/checkpatch.sh   (perl with the modules QEMU's checkpatch.pl uses)
# A group lists the packages to install and the probes that must succeed afterwards: every
# program (cmd:), pkg-config module (pc:), Python module (py:), Perl module (pl:) and file
# (file:) the scripts of the group use. The probes are the audit: a program a script calls that no listed package
# provides fails here, by name, before anything is built - on a fresh machine as on this one.
#
# Idempotent and quiet when nothing is missing (one dpkg-query). Missing packages are installed
# with apt-get (an `apt-get update` first only if the install fails); the packages installed
# are named on stderr, and a failure names the package(s) apt could not install. Needs root
# (or password-less sudo) only when something has to be installed.
#   --list   print the packages of the groups, one a line, and exit
#   --check  install nothing; exit 1 naming what is missing
# Log: build/logs/host-deps.log (apt's output).
set -uo pipefail

declare -A PKGS PROBES
PKGS[qemu]="gcc libc6-dev make ninja-build pkg-config flex bison libglib2.0-dev libpixman-1-dev
  zlib1g-dev libslirp-dev libvdeplug-dev python3 python3-venv python3-pip ccache dpkg-dev patch xz-utils
  debian-archive-keyring"
PROBES[qemu]="cmd:cc cmd:gcc cmd:make cmd:ninja cmd:pkg-config cmd:flex cmd:bison cmd:python3
  py:venv py:ensurepip pc:glib-2.0 pc:pixman-1 pc:zlib pc:slirp file:/usr/include/libvdeplug.h
  file:/usr/include/stdio.h
  cmd:ccache cmd:dpkg-source cmd:patch cmd:xz cmd:apt-get cmd:dpkg cmd:flock cmd:realpath
  cmd:cmp cmd:awk cmd:tar file:/usr/share/keyrings/debian-archive-keyring.gpg"
PKGS[image]="cpio binutils xz-utils gzip gcc libc6-dev debian-archive-keyring"
PROBES[image]="cmd:cpio cmd:readelf cmd:xz cmd:gzip cmd:gcc file:/usr/include/stdio.h
  cmd:apt-get cmd:apt-cache cmd:dpkg cmd:dpkg-deb cmd:sha256sum cmd:od cmd:dd cmd:flock
  cmd:realpath cmd:awk cmd:find cmd:sort file:/usr/share/keyrings/debian-archive-keyring.gpg"
PKGS[test]="python3 gcc libc6-dev pkg-config libglib2.0-dev zlib1g-dev ninja-build vde2"
PROBES[test]="cmd:python3 cmd:cc cmd:ninja cmd:pkg-config pc:glib-2.0 pc:zlib
  file:/usr/include/stdio.h cmd:vde_switch"
PKGS[capture]="tshark"
PROBES[capture]="cmd:tshark"
PKGS[user-net]="openssh-client"
PROBES[user-net]="cmd:ssh cmd:ssh-keygen"
PKGS[fresh]="debootstrap git util-linux tar"
PROBES[fresh]="cmd:debootstrap cmd:git cmd:unshare cmd:chroot cmd:findmnt cmd:mount cmd:tar
  cmd:flock"
PKGS[fuzz]="clang libclang-rt-14-dev libc6-dev pkg-config libglib2.0-dev zlib1g-dev ninja-build python3"
PROBES[fuzz]="cmd:clang cmd:ninja cmd:pkg-config pc:glib-2.0 pc:zlib cmd:python3 cmd:timeout"
PKGS[style]="perl"
PROBES[style]="cmd:perl pl:Term::ANSIColor pl:Getopt::Long"
ALL_GROUPS="qemu image test capture user-net fresh fuzz style"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
say() { echo "host-deps: $*" >&2; }

list=0 check=0 groups=()
for a in "$@"; do
  case $a in
    --list) list=1 ;;
    --check) check=1 ;;
    -h|--help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) say "unknown option $a"; exit 2 ;;
    *) [ -n "${PKGS[$a]+x}" ] || { say "unknown group '$a' (groups: $ALL_GROUPS)"; exit 2; }
       groups+=("$a") ;;
  esac
done
((${#groups[@]})) || read -r -a groups <<<"$ALL_GROUPS"

pkgs=() probes=()
declare -A seen=()
for g in "${groups[@]}"; do
  for p in ${PKGS[$g]}; do [ -n "${seen[$p]:-}" ] || { seen[$p]=1; pkgs+=("$p"); }; done
  for p in ${PROBES[$g]}; do probes+=("$g:$p"); done
done
if ((list)); then printf '%s\n' "${pkgs[@]}"; exit 0; fi

# --- which packages are not installed (one dpkg-query for all) -------------------------------
installed() {
  dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" 2>/dev/null | awk '$1=="ii"{print $2}'
}
missing=()
mapfile -t have < <(installed "${pkgs[@]}")
declare -A ok=()
for p in "${have[@]}"; do ok[$p]=1; done
for p in "${pkgs[@]}"; do [ -n "${ok[$p]:-}" ] || missing+=("$p"); done

if ((${#missing[@]})); then
  if ((check)); then say "missing packages: ${missing[*]}"; exit 1; fi
  command -v apt-get >/dev/null || { say "apt-get not found: this project needs Debian 12 (or later)"; exit 1; }
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=(sudo -n)
    else
      say "missing packages: ${missing[*]}"
      say "run as root, or install them: sudo apt-get install --no-install-recommends ${missing[*]}"
      exit 1
    fi
  fi
  logdir=$root/build/logs
  mkdir -p "$logdir" 2>/dev/null || logdir=${TMPDIR:-/tmp}
  log=$logdir/host-deps.log
  say "installing ${missing[*]} (log: $log)"
  apt() {
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=600 "$@" \
      </dev/null >>"$log" 2>&1
  }
  echo "== $(date -u +%FT%TZ) installing: ${missing[*]}" >>"$log"
  if ! apt install --no-install-recommends "${missing[@]}"; then
    # the package lists may be absent (a fresh machine) or stale (an old mirror state)
    apt update || say "apt-get update failed (see $log)"
    if ! apt install --no-install-recommends "${missing[@]}"; then
      failed=()
      for p in "${missing[@]}"; do apt install --no-install-recommends "$p" || failed+=("$p"); done
      say "error: apt-get could not install: ${failed[*]:-${missing[*]}} (see $log)"
      tail -n 15 "$log" | sed 's/^/    /' >&2
      exit 1
    fi
  fi
  mapfile -t have < <(installed "${missing[@]}")
  if ((${#have[@]} != ${#missing[@]})); then
    say "error: still not installed after apt-get: $(printf '%s\n' "${missing[@]}" "${have[@]}" | sort | uniq -u | xargs)"
    exit 1
  fi
fi

# --- probes: every program / module / file the scripts of these groups use --------------------
bad=()
for gp in "${probes[@]}"; do
  g=${gp%%:*} p=${gp#*:} kind=${p%%:*} what=${p#*:}
  case $kind in
    cmd) command -v "$what" >/dev/null ;;
    pc) pkg-config --exists "$what" 2>/dev/null ;;
    py) python3 -c "import $what" 2>/dev/null ;;
    pl) perl -M"$what" -e 1 2>/dev/null ;;
    file) [ -e "$what" ] ;;
    *) false ;;
  esac || bad+=("$kind '$what' (group $g)")
done
if ((${#bad[@]})); then
  for b in "${bad[@]}"; do say "error: missing $b: no package installed by scripts/host-deps.sh provides it"; done
  exit 1
fi
exit 0
