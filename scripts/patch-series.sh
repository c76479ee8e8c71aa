#!/usr/bin/env bash
# patch-series.sh - the device as a patch series against the QEMU source tree the build uses
# (Debian trixie's QEMU 10.0, unpacked from the .dsc that scripts/build-qemu.sh fetched), the
# way it would be posted for review: git format-patch output with a cover letter.
#
#   scripts/patch-series.sh          build/patch-series/*.patch, and the git tree they come from
#                                    (build/patch-series/work/subprojects/qemu-VERSION, branch
#                                    mlx5-hca on top of the tag base)
#   scripts/patch-series.sh --check  also prove the series: it applies with `git am` to a clean
#                                    copy of the tree; QEMU's checkpatch.pl passes every patch;
#                                    and the tree builds after every commit (qemu-system-x86_64,
#                                    and qos-test once the tests are in), the device answering
#                                    -device mlx5-hca,help and the qos tests passing where they
#                                    exist. Ends with "N passed, N failed". About 10 minutes with
#                                    a warm ccache (the build-qemu.sh build's: same options, same
#                                    relative layout), much longer cold.
#
# The commits, each building on its own (docs/design.md, "Upstream shape"):
#   1 the vendor-neutral InfiniBand transport and fabric services (hw/rdma/ib), Kconfig, the
#     hooks into hw/Kconfig, hw/meson.build and the trace directories, MAINTAINERS
#   2 the mlx5 core with its Ethernet port (hw/rdma/mlx5)
#   3 the PCIe device (hw/rdma/mlx5_pci.c): -device mlx5-hca exists from here on
#   4 the libqos driver and qos tests (tests/qtest)
#   5 the generic-fuzz configuration
#   6 the documentation (docs/system/devices/mlx5-hca.rst)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export LC_ALL=C
check=0
case ${1:-} in
  --check) check=1 ;;
  '') ;;
  -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

say() { echo "patch-series: $*" >&2; }
die() { say "error: $*"; echo "0 passed, 1 failed"; exit 1; }

scripts/host-deps.sh qemu >/dev/null || die "host packages missing (scripts/host-deps.sh qemu)"
command -v git >/dev/null || die "git missing"
ver=$(cat subprojects/qemu/.mlx5-debian-version 2>/dev/null) ||
  die "no unpacked QEMU tree: run scripts/build-qemu.sh first"
dsc=build/src-cache/qemu_${ver#*:}.dsc
[ -f "$dsc" ] || die "$dsc missing: run scripts/build-qemu.sh first"
upstream=${ver#*:}; upstream=${upstream%-*}; upstream=${upstream%%+*}

out=$root/build/patch-series
S=$out/work                                   # ccache base: same layout as the repo's
tree=$S/subprojects/qemu-$upstream
logs=$root/build/logs
mkdir -p "$out" "$logs"
exec 9>"$out/.lock" && flock 9

name=$(git config user.name || echo "qemu-mlx5")
email=$(git config user.email || echo "qemu-mlx5@localhost")
gitq() { git -C "$tree" -c user.name="$name" -c user.email="$email" "$@"; }

# --- the clean tree, as a git repository with the tag "base" ------------------------------------
if ! git -C "$tree" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
  say "unpacking $dsc into $tree"
  rm -rf --one-file-system "$S" && mkdir -p "$S/subprojects"
  dpkg-source -x "$dsc" "$tree" >"$logs/patch-series-unpack.log" 2>&1 ||
    die "dpkg-source failed (build/logs/patch-series-unpack.log)"
  gitq init -q
  gitq add -A -f .
  gitq commit -q -m "QEMU $ver (Debian trixie source, patches applied)"
  gitq tag base
fi
gitq checkout -q -f -B mlx5-hca base
gitq clean -q -f -d -x

# --- helpers ------------------------------------------------------------------------------------
copy() {   # copy PATH...: files or folders of this repository into the tree
  local p
  for p in "$@"; do
    mkdir -p "$tree/$(dirname "$p")"
    cp -a "$root/$p" "$tree/$(dirname "$p")/"
  done
}
# insert_after FILE ANCHOR_LINE TEXT: TEXT (one or more lines) after the first line equal to ANCHOR
insert_after() {
  python3 - "$tree/$1" "$2" "$3" <<'EOF' || die "cannot edit $1 (anchor '$2' not found)"
import sys
path, anchor, text = sys.argv[1:4]
lines = open(path).read().split('\n')
i = lines.index(anchor)
lines[i + 1:i + 1] = text.split('\n')
open(path, 'w').write('\n'.join(lines))
EOF
}
trace_dir() {   # trace_dir DIR: generate DIR's trace header (meson.build's trace_events_subdirs)
  insert_after meson.build "    'hw/ppc'," "    '$1',"
}
maintainers() {   # maintainers F_LINE...: add the files a patch brings to the mlx5-hca entry
  python3 - "$tree/MAINTAINERS" "$name <$email>" "$@" <<'EOF' || die "cannot edit MAINTAINERS"
import sys
path, who, files = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(path).read().split('\n')
if 'mlx5-hca' not in lines:
    # a new entry after igb's (the emulated NICs' entries)
    i = lines.index('F: tests/qtest/libqos/igb.c')
    while lines[i + 1].startswith(('F:', 'T:', 'W:', 'L:')):
        i += 1
    lines[i + 1:i + 1] = ['', 'mlx5-hca', 'M: ' + who, 'S: Maintained']
start = lines.index('mlx5-hca')
end = start
while lines[end + 1].strip():
    end += 1
entry = sorted(set(lines[start + 3:end + 1] + ['F: ' + f for f in files]))
lines[start + 3:end + 1] = entry
open(path, 'w').write('\n'.join(lines))
EOF
}
rdma_meson() {   # rdma_meson LINE...: hw/rdma/meson.build with these statements
  { echo "# SPDX-License-Identifier: GPL-2.0-or-later"
    echo "# mlx5 HCA device model (docs/system/devices/mlx5-hca.rst): the PCI shell here,"
    echo "# the mlx5 core in mlx5/ and the vendor-neutral InfiniBand transport and fabric"
    echo "# services in ib/."
    printf '%s\n' "$@"; } >"$tree/hw/rdma/meson.build"
}
commit() {   # commit SUBJECT BODY
  gitq add -A .
  gitq commit -q -s -m "$1" -m "$2"
}
subject_prefix="PATCH"

# --- 1: the InfiniBand transport ----------------------------------------------------------------
copy hw/rdma/Kconfig hw/rdma/ib include/hw/rdma/ib
rdma_meson "subdir('ib')"
insert_after hw/Kconfig "source pci/Kconfig" "source rdma/Kconfig"
insert_after hw/meson.build "subdir('pci-host')" "subdir('rdma')"
trace_dir hw/rdma/ib
maintainers hw/rdma/Kconfig hw/rdma/meson.build hw/rdma/ib/ include/hw/rdma/ib/
commit "hw/rdma/ib: InfiniBand transport and fabric services" \
"The vendor-neutral half of an emulated RDMA adapter: the RC, UC, UD, XRC and
DC transports with their retry, RNR and atomic semantics, the wire format
(RoCE v2 shaped frames with the ICRC), RoCE v2 addressing, multicast, fault
injection, and the fabric services of an InfiniBand subnet (SM election, SMA
and SA). It knows nothing of any vendor's programming interface; a device
drives it through IbDevOps (include/hw/rdma/ib/ib_transport.h).

Built when CONFIG_MLX5_HCA is set, the one device that uses it (next
patches)."

# --- 2: the mlx5 core ---------------------------------------------------------------------------
copy hw/rdma/mlx5 include/hw/rdma/mlx5
rdma_meson "subdir('mlx5')" "subdir('ib')"
trace_dir hw/rdma/mlx5
maintainers hw/rdma/mlx5/ include/hw/rdma/mlx5/
commit "hw/rdma/mlx5: ConnectX (mlx5) core" \
"The programming interface of an NVIDIA/Mellanox ConnectX-5 as the Linux
mlx5_core and mlx5_ib drivers and rdma-core's libmlx5 use it: the
initialization segment, the command queue and its commands, EQs, CQs, QPs,
SRQs/RMPs, memory keys (MTT, KLM, UMR, memory windows, signature), ODP,
DevX, and the Ethernet port (vport, TIR/RQT/RSS, flow steering, SQ/RQ, the
mlx5e data path, RoCE v2).

The core is passive and free of QEMU's device layer: it reaches guest
memory, interrupts and the clock through Mlx5CoreOps, so it can be compiled
into unit tests on its own."

# --- 3: the PCIe device -------------------------------------------------------------------------
copy hw/rdma/mlx5_pci.c hw/rdma/trace-events hw/rdma/trace.h
rdma_meson "system_ss.add(when: 'CONFIG_MLX5_HCA', if_true: files('mlx5_pci.c'))" \
           "subdir('mlx5')" "subdir('ib')"
trace_dir hw/rdma
maintainers hw/rdma/mlx5_pci.c hw/rdma/trace-events hw/rdma/trace.h
commit "hw/rdma: add the mlx5-hca PCIe device" \
"-device mlx5-hca: an emulated ConnectX-5 HCA (15b3:1017) with one
InfiniBand or Ethernet port, whose link is a QEMU network backend. The
guest runs its unmodified mlx5_core/mlx5_ib and rdma-core.

This is the PCI shell: BAR0 (initialization segment, UARs, device memory),
MSI-X, FLR and reset, migration state, the NIC, and the properties."

# --- 4: qtest -----------------------------------------------------------------------------------
copy tests/qtest/libqos/mlx5-hca.c tests/qtest/libqos/mlx5-hca.h tests/qtest/mlx5-hca-test.c
insert_after tests/qtest/libqos/meson.build "        'igb.c'," "        'mlx5-hca.c',"
insert_after tests/qtest/meson.build "  'megasas-test.c'," "  'mlx5-hca-test.c',"
maintainers tests/qtest/mlx5-hca-test.c "tests/qtest/libqos/mlx5-hca.*"
commit "tests/qtest: libqos driver and tests for mlx5-hca" \
"A qgraph node for the device (find it, map BAR0, wait for the
initialization segment, hand it a command queue) and qos tests of the
initialization segment and the command queue, inline and with mailboxes,
including the status and syndrome of an unknown command."

# --- 5: generic-fuzz ----------------------------------------------------------------------------
insert_after tests/qtest/fuzz/generic_fuzz_configs.h "        .objects = \"igb\"," \
"    },{
        .name = \"mlx5-hca\",
        .args = \"-M q35 -nodefaults -device mlx5-hca,sm=off\",
        .objects = \"mlx5*\","
commit "tests/qtest/fuzz: generic-fuzz configuration for mlx5-hca" \
"BAR0 (initialization segment, doorbells, device memory), the MSI-X BAR and
the DMA the command queue and work queues do."

# --- 6: docs ------------------------------------------------------------------------------------
copy docs/system/devices/mlx5-hca.rst
insert_after docs/system/device-emulation.rst "   devices/igb.rst" "   devices/mlx5-hca.rst"
maintainers docs/system/devices/mlx5-hca.rst
commit "docs/system: mlx5-hca" \
"What the device emulates, how QEMU instances form a fabric, an example,
the properties, the limitations, tracing and testing."

# --- format-patch -------------------------------------------------------------------------------
rm -f "$out"/*.patch
gitq format-patch -q --cover-letter --subject-prefix="$subject_prefix" -o "$out" base..mlx5-hca
cover=$(ls "$out"/0000-cover-letter.patch)
python3 - "$cover" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace('*** SUBJECT HERE ***', 'hw/rdma: emulated NVIDIA/Mellanox ConnectX (mlx5) HCA')
s = s.replace('*** BLURB HERE ***', '''This series adds -device mlx5-hca, an emulated ConnectX-5 HCA that the
guest's unmodified mlx5_core, mlx5_ib and rdma-core (libmlx5) drive: the
hardware interface, not a paravirtual one. QEMU instances whose devices
share a network backend form an InfiniBand or RoCE v2 fabric.

Patch 1 is a vendor-neutral InfiniBand transport, 2 the mlx5 core on top
of it, 3 the PCIe device, 4 and 5 its qtest and fuzzing, 6 the docs.
Every patch builds on its own.''')
open(p, 'w').write(s)
EOF
n=$(ls "$out"/0*.patch | wc -l)
say "$((n - 1)) patches and a cover letter in build/patch-series/ (tree: ${tree#"$root"/}, branch mlx5-hca)"
((check)) || exit 0

# --- check --------------------------------------------------------------------------------------
pass=0 fail=0
result() { if [ "$1" = 0 ]; then pass=$((pass + 1)); say "PASS $2"; else fail=$((fail + 1)); say "FAIL $2"; fi; }

# 1. git am onto a clean copy of the tree
am=$out/am
rm -rf --one-file-system "$am"
git clone -q --no-checkout "$tree" "$am"
rc=0
git -C "$am" checkout -q -b am base &&
  git -C "$am" -c user.name="$name" -c user.email="$email" am -q "$out"/0[0-9][0-9][1-9]-*.patch \
    >"$logs/patch-series-am.log" 2>&1 &&
  git -C "$am" fetch -q "$tree" mlx5-hca &&
  [ -z "$(git -C "$am" diff FETCH_HEAD)" ] || rc=1
result $rc "the series applies to a clean tree with git am and gives the same tree"
rm -rf --one-file-system "$am"

# 2. checkpatch.pl on every patch
for p in "$out"/0[0-9][0-9][1-9]-*.patch; do
  rc=0
  (cd "$tree" && perl scripts/checkpatch.pl --no-signoff "$p") >"$logs/patch-series-checkpatch.log" 2>&1 ||
    rc=$?
  grep -q "has no obvious style problems" "$logs/patch-series-checkpatch.log" || rc=1
  [ "$rc" = 0 ] || tail -n 20 "$logs/patch-series-checkpatch.log" >&2
  result $rc "checkpatch.pl ${p##*/}"
done

# 3. build after every commit, in one build tree (incremental)
python=/usr/bin/python3
mesonpy=$root/build/tools/meson/usr/lib/python3/dist-packages
. "$root/scripts/qemu-flags.sh"
export CCACHE_BASEDIR=$S CCACHE_NOHASHDIR=true
qbuild=$S/build/qemu-build
gitq checkout -q base
if [ ! -f "$qbuild/build.ninja" ]; then
  rm -rf --one-file-system "$qbuild" && mkdir -p "$qbuild"
  (cd "$qbuild" && PYTHONPATH=$mesonpy "$tree/configure" "${qemu_flags[@]}") \
    >"$logs/patch-series-configure.log" 2>&1 || die "configure failed (build/logs/patch-series-configure.log)"
  site=$("$qbuild/pyvenv/bin/python3" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  echo "$mesonpy" >"$site/mlx5-trixie-meson.pth"
fi
# the qtest runners' QEMU: this build's binary with the firmware Debian's source lacks
mkdir -p "$qbuild/qtest"
printf '#!/bin/sh\nexec "%s" -L "%s" "$@"\n' "$qbuild/qemu-system-x86_64" "$root/build/qemu/firmware" \
  >"$qbuild/qtest/qemu-system-x86_64"
chmod +x "$qbuild/qtest/qemu-system-x86_64"
mapfile -t commits < <(gitq rev-list --reverse base..mlx5-hca)
i=0
for c in base "${commits[@]}"; do
  gitq checkout -q "$c"
  what="commit $i ($(gitq log -1 --format=%s))"
  targets=(qemu-system-x86_64)
  [ -f "$tree/tests/qtest/mlx5-hca-test.c" ] && targets+=(tests/qtest/qos-test)
  rc=0
  ninja -C "$qbuild" -j"$(nproc)" "${targets[@]}" >"$logs/patch-series-build-$i.log" 2>&1 || rc=$?
  if [ "$rc" = 0 ] && [ -f "$tree/hw/rdma/mlx5_pci.c" ]; then
    "$qbuild/qemu-system-x86_64" -device mlx5-hca,help >>"$logs/patch-series-build-$i.log" 2>&1 || rc=$?
  fi
  if [ "$rc" = 0 ] && [ -f "$tree/tests/qtest/mlx5-hca-test.c" ]; then
    (cd "$qbuild" && QTEST_QEMU_BINARY=$qbuild/qtest/qemu-system-x86_64 \
       timeout 300 tests/qtest/qos-test --tap -k -p /x86_64/pc/i440FX-pcihost/pci-bus-pc/pci-bus/mlx5-hca/mlx5-hca-tests) \
      >>"$logs/patch-series-build-$i.log" 2>&1 || rc=$?
    grep -q "^not ok" "$logs/patch-series-build-$i.log" && rc=1
    grep -q "^ok .*mlx5-hca" "$logs/patch-series-build-$i.log" || rc=1
  fi
  [ "$rc" = 0 ] || tail -n 20 "$logs/patch-series-build-$i.log" >&2
  result $rc "$what builds (build/logs/patch-series-build-$i.log)"
  i=$((i + 1))
done
gitq checkout -q mlx5-hca
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
