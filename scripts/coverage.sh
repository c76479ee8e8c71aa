#!/usr/bin/env bash
# coverage.sh - driver coverage: how much of the guest's mlx5_core and mlx5_ib the device makes
# run. Runs guest tests with ftrace's function tracer on both modules from before they load
# (the guest's /init with mlx5t.cov=1: each function is recorded the first time it runs) and
# prints, per module and per source file, how many functions ran of how many can be traced,
# for the InfiniBand-port runs, the Ethernet-port runs and both.
#
#   scripts/coverage.sh                       the whole guest suite as meson runs it (but
#                                             sanitize-smoke, bench-smoke, coverage-smoke)
#   scripts/coverage.sh probe eth ...         these guest tests (meson test names)
#   scripts/coverage.sh --floor FILE TEST...  exit 1 if a module's figure falls below FILE's
#                                             ("PORT MODULE N" lines; CI: tests/coverage-floor.txt)
#
# Function-to-file mapping: from the kernel's source, Debian's linux-source package of the
# guest's kernel version (the shipped modules are stripped: no DWARF and no STT_FILE symbols),
# fetched once into build/src-cache/linux/ and mapped into build/coverage/funcmap-VERSION.tsv
# (scripts/coverage.py map). The traceable functions are the guest's own list
# (available_filter_functions). Output: build/coverage/report.txt (with the per-file table),
# report.json and report.md; the guests' data in build/coverage/runs/. A test that fails still
# counts (its verdict is in the meson log, build/meson/meson-logs/coverage.txt).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export LC_ALL=C

die() { echo "coverage.sh: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
floor=
while [ $# -gt 0 ]; do
  case $1 in
    --floor) floor=$(realpath -e "$2") || die "no floor file $2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done

scripts/build-qemu.sh >/dev/null || die "QEMU build failed (build/logs/)"
scripts/build-image.sh >/dev/null || die "guest image build failed"
scripts/host-deps.sh test || die "host packages missing (scripts/host-deps.sh test)"
meson=$root/build/tools/bin/meson
export PYTHONPATH=$root/build/tools/meson/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}
if [ ! -f build/meson/build.ninja ]; then
  "$meson" setup build/meson >build/logs/meson-setup.log 2>&1 || die "meson setup failed"
fi

# --- the function-to-file map of the guest kernel's mlx5 drivers ------------------------------
out=build/coverage
mkdir -p "$out" build/src-cache/linux
kver=$(sed -n 's/^linux-image-[0-9.]*+[^=]*=\(.*\)$/\1/p' build/guest/manifest.txt | head -n1)
[ -n "$kver" ] || die "no kernel version in build/guest/manifest.txt"
map=$out/funcmap-$kver.tsv
if [ ! -s "$map" ]; then
  pkg=linux-source-$(echo "$kver" | cut -d. -f1,2)
  deb=$(ls build/src-cache/linux/"${pkg}_${kver}"_all.deb 2>/dev/null | head -n1)
  if [ -z "$deb" ]; then
    echo "coverage.sh: fetching $pkg=$kver (the kernel's source, for the function-to-file map)" >&2
    aptconf=$(scripts/trixie-apt.sh build/apt 2>>build/logs/apt.log) || die "trixie apt setup failed"
    (cd build/src-cache/linux && apt-get -c "$aptconf" -o APT::Sandbox::User=root -q \
      download "$pkg=$kver") >>build/logs/apt.log 2>&1 || die "download of $pkg=$kver failed"
    deb=$(ls build/src-cache/linux/"${pkg}_${kver}"_all.deb)
  fi
  src=$out/src && rm -rf --one-file-system "$src" && mkdir -p "$src"
  dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
    xz -dc | tar -x -C "$src" --strip-components=1 --wildcards \
      '*/drivers/net/ethernet/mellanox/mlx5/*' '*/drivers/infiniband/hw/mlx5/*' \
      '*/include/linux/mlx5/*' '*/include/rdma/*' '*/include/linux/*.h' ||
    die "cannot unpack the kernel source from $deb"
  python3 scripts/coverage.py map "$src" "$map.tmp" && mv "$map.tmp" "$map" ||
    die "function map failed"
  rm -rf --one-file-system "$src"
fi

# --- the guest tests, with coverage on --------------------------------------------------------
runs=$out/runs
rm -rf --one-file-system "$runs" && mkdir -p "$runs"
if [ $# -eq 0 ]; then
  # the guest suite but the sanitizer re-runs, the benchmark (its figures mean nothing with
  # the tracer on) and the coverage smoke test itself
  mapfile -t all < <("$meson" test -C build/meson --list --suite guest 2>/dev/null |
                     sed -n 's#^.*:guest / ##p' | grep -vx -e sanitize-smoke -e bench-smoke -e coverage-smoke)
  ((${#all[@]})) || die "no guest tests registered in build/meson"
  set -- "${all[@]}"
fi
MLX5T_APPEND=mlx5t.cov=1 MLX5T_COV_DIR=$root/$runs \
  "$meson" test -C build/meson --no-rebuild --logbase coverage "$@" >"$out/meson.log" 2>&1
tests_rc=$?
grep -E '^ *[0-9]+/[0-9]+ ' "$out/meson.log" | sed 's/^/  /' >&2
[ "$tests_rc" = 0 ] || echo "coverage.sh: some tests failed (their coverage counts all the same)" >&2

python3 scripts/coverage.py report "$runs" "$map" --files --json "$out/report.json" \
  --markdown "$out/report.md" >"$out/report.txt" || true
python3 scripts/coverage.py report "$runs" "$map" ${floor:+--floor "$floor"}
rc=$?
echo "coverage.sh: per-file table in $out/report.txt (markdown: $out/report.md)"
if [ -n "$floor" ]; then
  if [ $rc = 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
fi
exit $rc
