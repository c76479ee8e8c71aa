#!/usr/bin/env bash
# Build qemu-system-x86_64 with this project's mlx5 HCA model (hw/rdma, include/hw/rdma) overlaid
# onto Debian trixie's QEMU 10.0 source (Debian's patches applied). Run from anywhere; idempotent:
# a second run is an incremental ninja that takes seconds.
#
#   scripts/build-qemu.sh            -> prints build/qemu/qemu-system-x86_64 (its path) when done
#   build/qemu/qemu-system-x86_64 -L build/qemu/firmware -M q35 ...
#   scripts/build-qemu.sh --sanitize -> build/qemu-san/qemu-system-x86_64: the same QEMU built with
#                                       AddressSanitizer and UndefinedBehaviorSanitizer (gcc), in a
#                                       build tree of its own (build/qemu-san-build); guest-run.py
#                                       turns any sanitizer report into a failure (docs/hardening.md)
#   scripts/build-qemu.sh --fuzz     -> build/qemu-fuzz/qemu-fuzz-x86_64: QEMU's own fuzzer (clang,
#                                       libFuzzer, AddressSanitizer; --enable-fuzzing) with the
#                                       generic-fuzz configuration "mlx5-hca" (scripts/fuzz.sh --qemu)
#
# Environment:
#   MLX5_OVERLAY_DIR=DIR  directory whose hw/rdma and include/hw/rdma are overlaid (default: repo)
#   MLX5_QEMU_REFRESH=1   ask trixie for its current qemu 10.0.x point release and move to it
#                         (otherwise an already unpacked source tree is kept, and no network is used)
# Layout: subprojects/qemu -> qemu-<version>/ (unpacked source), build/qemu-build (ninja tree),
# build/qemu/{qemu-system-x86_64,firmware/}, build/tools (trixie meson), build/src-cache (.dsc/.debs),
# build/apt (private trixie apt config), build/logs/*.log.
set -euo pipefail
sanitize=0 fuzz=0
case ${1:-} in
  --sanitize) sanitize=1 ;;
  --fuzz) fuzz=1 ;;
  '') ;;
  *) echo "usage: $0 [--sanitize|--fuzz]" >&2; exit 2 ;;
esac
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
overlay=$(realpath -e "${MLX5_OVERLAY_DIR:-$root}")
B=$root/build logs=$root/build/logs tools=$root/build/tools cache=$root/build/src-cache
mkdir -p "$logs" "$tools/bin" "$cache" "$B/qemu"
exec 9>"$B/.build-qemu.lock" && flock 9        # one build at a time in this work tree

say() { echo "build-qemu: $*" >&2; }
die() { say "error: $*"; exit 1; }
# run_logged NAME CMD...: run quietly into build/logs/NAME.log; on failure show its tail and stop.
run_logged() {
  local name=$1; shift
  "$@" >"$logs/$name.log" 2>&1 || { tail -n 40 "$logs/$name.log" >&2; die "$name failed (build/logs/$name.log)"; }
}

# --- 1. Host build dependencies (bookworm): scripts/host-deps.sh names and installs them -------
"$root/scripts/host-deps.sh" qemu || die "host packages missing (scripts/host-deps.sh qemu)"
if ((fuzz)); then
  "$root/scripts/host-deps.sh" fuzz || die "host packages missing (scripts/host-deps.sh fuzz)"
fi
python=/usr/bin/python3        # Debian's python, never a pyenv/venv one earlier in PATH

# --- trixie apt (lazy: only contacted when something has to be fetched) ------------------------
aptconf=
apt_setup() { [ -n "$aptconf" ] || aptconf=$("$root/scripts/trixie-apt.sh" "$B/apt" 2>>"$logs/apt.log") ||
                die "trixie apt setup failed (build/logs/apt.log)"; }
trixie() {   # trixie apt-get|apt-cache ARGS...: run against the private trixie configuration
  local tool=$1; shift
  "$tool" -c "$aptconf" -o APT::Sandbox::User=root -q "$@"
}
fetch_deb() {   # fetch_deb PKG[=VERSION] DEST: download a trixie .deb and unpack it into DEST
  local d="$cache/deb/${1%%=*}"
  apt_setup && rm -rf "$d" && mkdir -p "$d"
  (cd "$d" && trixie apt-get download "$1") >>"$logs/apt.log" 2>&1 || die "download of $1 failed (build/logs/apt.log)"
  dpkg -x "$d"/*.deb "$2"
}

# --- 2. meson >= 1.5 from trixie, unpacked under build/tools (nothing installed system-wide) -----
mesonpy=$tools/meson/usr/lib/python3/dist-packages       # holds mesonbuild/ and meson-*.egg-info
if ! PYTHONPATH=$mesonpy $python -c 'import mesonbuild' 2>/dev/null; then
  say "fetching meson from trixie"
  rm -rf "$tools/meson" && fetch_deb meson "$tools/meson"
fi
cat >"$tools/bin/meson" <<EOF
#!/bin/sh
# trixie's meson (unpacked by scripts/build-qemu.sh), run with the system python3
PYTHONPATH="$mesonpy\${PYTHONPATH:+:\$PYTHONPATH}" exec $python "$tools/meson/usr/bin/meson" "\$@"
EOF
chmod +x "$tools/bin/meson"
mver=$("$tools/bin/meson" --version)
dpkg --compare-versions "$mver" ge 1.5 || die "meson $mver from trixie is older than 1.5"

# --- 3. Debian's qemu source, unpacked with its patches into subprojects/qemu-<version> ---------
if [ "${MLX5_QEMU_REFRESH:-0}" = 1 ] || [ ! -f subprojects/qemu/.mlx5-debian-version ]; then
  apt_setup; ver=
  for v in $(trixie apt-cache showsrc qemu 2>>"$logs/apt.log" | awk '$1 == "Version:" {print $2}'); do
    if [ -z "$ver" ] || dpkg --compare-versions "$v" gt "$ver"; then ver=$v; fi
  done
  [ -n "$ver" ] || die "trixie has no qemu source package (build/logs/apt.log)"
else
  ver=$(cat subprojects/qemu/.mlx5-debian-version)
fi
upstream=${ver#*:}; upstream=${upstream%-*}; upstream=${upstream%%+*}   # 1:10.0.13+ds-0+deb13u1 -> 10.0.13
[[ $upstream == 10.0.* ]] || die "trixie's qemu is $ver; this project targets QEMU 10.0.x"
qdir=$root/subprojects/qemu-$upstream
if [ "$(cat "$qdir/.mlx5-debian-version" 2>/dev/null)" != "$ver" ]; then
  dsc=$cache/qemu_${ver#*:}.dsc
  if [ ! -f "$dsc" ]; then
    say "fetching qemu $ver source"
    apt_setup
    (cd "$cache" && trixie apt-get source --download-only "qemu=$ver") >>"$logs/apt.log" 2>&1 ||
      die "apt-get source qemu=$ver failed (build/logs/apt.log)"
  fi
  say "unpacking qemu $ver into subprojects/qemu-$upstream"
  rm -rf "$qdir" "$qdir.tmp"
  run_logged dpkg-source dpkg-source -x "$dsc" "$qdir.tmp"
  echo "$ver" >"$qdir.tmp/.mlx5-debian-version"
  mv "$qdir.tmp" "$qdir"
fi
ln -sfn "qemu-$upstream" subprojects/qemu

# --- 4. Overlay: symlink the project's sources in, apply the integration patch -----------------
# Relative links (recomputed every run) so that a clone in another directory keeps working.
ln -sfn "$(realpath -m --relative-to="$qdir/hw" "$overlay/hw/rdma")" "$qdir/hw/rdma"
ln -sfn "$(realpath -m --relative-to="$qdir/include/hw" "$overlay/include/hw/rdma")" "$qdir/include/hw/rdma"
# the libqos driver and its qos tests (tests/qtest/libqos/mlx5-hca.[ch], tests/qtest/mlx5-hca-test.c)
for f in tests/qtest/libqos/mlx5-hca.c tests/qtest/libqos/mlx5-hca.h tests/qtest/mlx5-hca-test.c; do
  ln -sfn "$(realpath -m --relative-to="$(dirname "$qdir/$f")" "$overlay/$f")" "$qdir/$f"
done
# The three one-line hooks live in scripts/qemu-integration.patch; the applied copy is kept in the
# tree so that an edited patch is swapped in (old one reversed, new one applied) on the next run.
patchfile=$root/scripts/qemu-integration.patch applied=$qdir/.mlx5-integration.patch
if ! cmp -s "$patchfile" "$applied"; then
  if [ -f "$applied" ]; then
    (cd "$qdir" && patch -p1 -R -s --no-backup-if-mismatch <"$applied") || die "cannot revert old integration patch"
    rm -f "$applied"
  fi
  (cd "$qdir" && patch -p1 --forward -s --no-backup-if-mismatch -r - <"$patchfile") ||
    die "scripts/qemu-integration.patch does not apply to qemu $ver"
  cp "$patchfile" "$applied"
fi

# --- 5. Firmware that Debian strips from the source: from trixie's binary packages -------------
fw=$B/qemu/firmware
if [ "$(cat "$fw/.mlx5-debian-version" 2>/dev/null)" != "$ver" ]; then
  say "fetching firmware (seabios, qemu-system-data, ipxe-qemu)"
  tmp=$B/firmware.tmp && rm -rf "$tmp" && mkdir -p "$tmp"
  fetch_deb seabios "$tmp"                   # bios-256k.bin, vgabios-*.bin
  fetch_deb "qemu-system-data=$ver" "$tmp"   # linuxboot_dma.bin, kvmvapic.bin, multiboot, pvh, keymaps
  fetch_deb ipxe-qemu "$tmp"                 # efi-*.rom option ROMs of the emulated NICs
  rm -rf "$fw" && mkdir -p "$fw"
  cp -a "$tmp"/usr/share/seabios/. "$tmp"/usr/share/qemu/. "$fw"/
  rm -rf "$tmp"
  for f in bios-256k.bin linuxboot_dma.bin kvmvapic.bin; do [ -f "$fw/$f" ] || die "firmware $f missing"; done
  echo "$ver" >"$fw/.mlx5-debian-version"
fi

# --- 6. Configure (only when flags/source/overlay changed) and build ---------------------------
qbuild=$B/qemu-build out=$B/qemu sfx=
. "$root/scripts/qemu-flags.sh"
flags=("${qemu_flags[@]}")
if ((sanitize)); then
  # ASan + UBSan (gcc's; QEMU's own configure options). The firmware is the plain build's.
  qbuild=$B/qemu-san-build out=$B/qemu-san sfx=-san
  flags+=(--enable-asan --enable-ubsan)
  mkdir -p "$out" && ln -sfn ../qemu/firmware "$out/firmware"
fi
if ((fuzz)); then
  # QEMU's fuzzing build (docs/devel/testing/fuzzing.rst): clang with libFuzzer, and ASan
  qbuild=$B/qemu-fuzz-build out=$B/qemu-fuzz sfx=-fuzz
  flags=("${flags[@]/--cc=ccache cc/--cc=ccache clang}")
  flags+=(--cxx=clang++ --enable-fuzzing --enable-asan)
  mkdir -p "$out" && ln -sfn ../qemu/firmware "$out/firmware"
fi
# let clones in other directories (CI's fresh clone) share the cache: paths under the repo are
# hashed relative to it, and the working directory is left out of the hash
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
want="qemu=$qdir ($ver) overlay=$overlay meson=$mver ${flags[*]}"
if [ ! -f "$qbuild/build.ninja" ] || [ "$(cat "$qbuild/.mlx5-configure" 2>/dev/null)" != "$want" ]; then
  say "configuring $qbuild (build/logs/configure$sfx.log)"
  rm -rf "$qbuild" && mkdir -p "$qbuild"
  # configure creates build/qemu-build/pyvenv (with system site packages) and mkvenv accepts any
  # importable meson >= 1.5 instead of installing one (impossible offline: Debian's source has no
  # python/wheels). PYTHONPATH makes trixie's meson importable there, and a .pth file inside the
  # venv keeps it importable when ninja later re-runs meson with no PYTHONPATH set.
  (cd "$qbuild" && PYTHONPATH=$mesonpy run_logged "configure$sfx" "$qdir/configure" "${flags[@]}")
  site=$("$qbuild/pyvenv/bin/python3" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  echo "$mesonpy" >"$site/mlx5-trixie-meson.pth"
  echo "$want" >"$qbuild/.mlx5-configure"
  say "building qemu-system-x86_64 (build/logs/ninja$sfx.log)"
fi
if ((fuzz)); then
  run_logged "ninja$sfx" ninja -C "$qbuild" -j"$(nproc)" qemu-fuzz-x86_64
  # the fuzzer starts its machine in-process and takes no -L: it finds firmware in the build
  # tree's data directory (qemu-bundle), which Debian's source leaves without the binary blobs
  d=$qbuild/qemu-bundle/usr/local/share/qemu
  mkdir -p "$d"
  for f in "$B/qemu/firmware"/*; do ln -sfn "$f" "$d/${f##*/}"; done
  ln -sfn "../${qbuild##*/}/qemu-fuzz-x86_64" "$out/qemu-fuzz-x86_64"
  echo "$out/qemu-fuzz-x86_64"
  exit 0
fi
# qos-test: QEMU's qgraph test runner, with the device's libqos driver and tests in it
run_logged "ninja$sfx" ninja -C "$qbuild" -j"$(nproc)" qemu-system-x86_64 tests/qtest/qos-test
ln -sfn "../${qbuild##*/}/tests/qtest/qos-test" "$out/qos-test"
# QEMU's qtest runners take the binary from QTEST_QEMU_BINARY and its name (the architecture
# after the last '-'): a wrapper of that name adds the firmware Debian's source lacks
mkdir -p "$out/qtest"
printf '#!/bin/sh\n# qemu-system-x86_64 for QTEST_QEMU_BINARY (scripts/build-qemu.sh)\nexec "%s" -L "%s" "$@"\n' \
  "$qbuild/qemu-system-x86_64" "$B/qemu/firmware" >"$out/qtest/qemu-system-x86_64"
chmod +x "$out/qtest/qemu-system-x86_64"
ln -sfn "../${qbuild##*/}/qemu-system-x86_64" "$out/qemu-system-x86_64"

echo "$out/qemu-system-x86_64"
