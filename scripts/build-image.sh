#!/usr/bin/env bash
# build-image.sh - build the mlx5-hca test guest: a Debian trixie kernel and a small initramfs.
#
# Usage:  scripts/build-image.sh [--force] [--kernel FILE] [--modules DIR|none] [--out DIR]
#                                [--compress none|gzip|zstd]
#
# Output (default build/guest/):
#   vmlinuz        the guest kernel (Debian trixie linux-image-amd64 6.12, or $KERNEL)
#   base.cpio      newc initramfs: busybox-static, kmod, iproute2, rdma-core user space
#                  (ibverbs-utils, ibverbs-providers, rdmacm-utils, infiniband-diags),
#                  perftest, /usr/bin/rdma-verify and the other guest-tests/src/*.c programs
#                  (compiled on the host against trixie's libibverbs/libmlx5), the
#                  shared-library closure of all of them, and the kernel modules mlx5_core
#                  mlx5_ib ib_core ib_uverbs ib_umad ib_cm iw_cm rdma_cm rdma_ucm ib_ipoib
#                  nvme_rdma nvmet_rdma brd virtio_net virtio_pci, Soft-RoCE (rdma_rxe, and
#                  crc32_generic, which its ICRC needs: `modprobe -a crc32_generic rdma_rxe`,
#                  then iproute2's `rdma link add rxe0 type rxe netdev ethX`) + their
#                  modules.dep closure
#                  (decompressed, depmod'ed for the image, so modprobe/rmmod work).
#   manifest.txt   package versions, modules and sizes that went into the image
#   root/          the unpacked image tree (for inspection)
#   stamp          hash of all inputs; the build is skipped when it is unchanged
#
# The script is idempotent: it rebuilds only when an input changed (this script, the resolved
# trixie package versions, the kernel/module/override files named below, or the options).
# Packages come from Debian trixie through scripts/trixie-apt.sh (private apt configuration
# with an empty dpkg status, so trixie's own libc etc. are resolved), are downloaded once into
# build/apt/debs/ and unpacked with `dpkg -x`. No root rights or chroot are needed except that
# /dev/console is created with mknod when running as root (init copes without it).
#
# Environment variables (each has an equivalent flag where listed above):
#   KERNEL=FILE          use your own bzImage instead of Debian's (needs MODULES too; build it
#                        with DEVTMPFS, BLK_DEV_INITRD, SERIAL_8250_CONSOLE, VIRTIO_PCI, and
#                        PCI_MSI; mlx5/IB may be modules or built in)
#   MODULES=DIR|none     your modules tree, i.e. the lib/modules/<version> directory written by
#                        `make modules_install INSTALL_MOD_PATH=X` (X/lib/modules/<version>);
#                        `none` for a kernel with everything built in. May be used without
#                        KERNEL only if it matches Debian's kernel version.
#   OVERRIDE_KO="a.ko b.ko"  replace individual modules by these files (e.g. a patched
#                        mlx5_core.ko built against the same kernel); matched by module name.
#   EXTRA_MODULES="..."  more module names to include (with their dependencies), e.g. siw
#   EXTRA_PACKAGES="..." more trixie packages whose files (and library closure) go into the
#                        image, e.g. "strace gdb"
#   KEEP_PATHS="..."     paths (relative to the root) kept although PRUNE would remove them;
#                        *.py.gz files below them are decompressed (rdma-core's pyverbs tests
#                        ship in usr/share/doc/rdma-core/tests, partly gzipped)
#   COMPRESS=none|gzip|zstd  initramfs compression (default gzip: 12 MB instead of 32 MB; boot
#                        time under TCG was the same within noise for all three, ~5-8 s to
#                        /init, because the kernel unpacks the initramfs asynchronously. lz4 is
#                        not offered: the kernel's legacy-lz4 unpacker cannot be followed by the
#                        appended test cpio)
#   OUT=DIR              output directory (default build/guest)
#   FORCE=1              rebuild even if the stamp matches
#
# Example, driver bring-up with a patched kernel tree:
#   make -C ~/linux O=~/kbuild modules_install INSTALL_MOD_PATH=~/kmods
#   KERNEL=~/kbuild/arch/x86/boot/bzImage MODULES=~/kmods/lib/modules/6.12.0 scripts/build-image.sh
#
# Guest kernel command line understood by /init (the runner scripts/guest-run.py sets them):
#   mlx5t.idx=I        instance index (default 0); management IP is 10.0.0.(I+1)/24
#   mlx5t.n=N          number of instances (default 1); for N=2, PEER_IP is the other one's IP
#   mlx5t.timeout=S    kill /test/run.sh after S seconds (default 600)
#   mlx5t.shell=1      start an interactive shell on the console instead of the test
#   mlx5t.probe=1      print "@@MLX5T RESULT PASS" right away and power off (accelerator probe)
#   mlx5t.ssh=1        start dropbear (sshd) on port 22, root's authorized_keys from
#                      /test/ssh/authorized_keys; prints "@@MLX5T SSH READY ..." when it runs
#   mlx5t.fabric=KIND  what this instance has on the fabric netdev: hca (the mlx5-hca), virtio
#                      (a virtio-net NIC, e.g. for Soft-RoCE) or none; exported as FABRIC_NIC
#                      (empty when the runner did not say)
#   mlx5t.cov=1        driver coverage (scripts/coverage.sh): ftrace's function tracer on
#                      mlx5_core and mlx5_ib from before they load; each function is recorded
#                      the first time it runs; printed at the end between
#                      "@@MLX5T COV BEGIN/END" ("hit FUNC" lines, then the modules' traceable
#                      functions as "fn FUNC [MODULE]"); MLX5T_COV=1 is exported to the test
# NICs by MAC: 02:4d:47:* management (10.0.0.(I+1)/24), 02:4d:55:* QEMU user networking (DHCP),
# 02:4d:52:* a virtio-net NIC on the fabric (FABRIC_IF; left down and without an address: the
# test configures it).
# /init runs /test/run.sh (from a second cpio appended at boot) with IDX, N, MY_IP, PEER_IP,
# MGMT_IF, USER_IF, USER_IP, FABRIC_NIC, FABRIC_IF exported, and prints on the console:
#   @@MLX5T TEST BEGIN ... / @@MLX5T TEST END rc=R   around the test's output
#   @@MLX5T RESULT PASS|FAIL
#   @@MLX5T DMESG BEGIN / @@MLX5T DMESG END          around the full dmesg
#   @@MLX5T DONE                                     then `poweroff -f`
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$SRC/build/guest}
KERNEL=${KERNEL:-}
MODULES=${MODULES:-}
OVERRIDE_KO=${OVERRIDE_KO:-}
EXTRA_MODULES=${EXTRA_MODULES:-}
EXTRA_PACKAGES=${EXTRA_PACKAGES:-}
KEEP_PATHS=${KEEP_PATHS:-}
COMPRESS=${COMPRESS:-gzip}
FORCE=${FORCE:-0}

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --force) FORCE=1 ;;
    --kernel) KERNEL=$2; shift ;;
    --modules) MODULES=$2; shift ;;
    --out) OUT=$2; shift ;;
    --compress) COMPRESS=$2; shift ;;
    -h|--help) usage 0 ;;
    *) echo "build-image: unknown argument $1" >&2; usage 2 >&2 ;;
  esac
  shift
done

log() { echo "build-image: $*" >&2; }
die() { echo "build-image: error: $*" >&2; exit 1; }

case $COMPRESS in none|gzip|zstd) ;; *) die "COMPRESS must be none, gzip or zstd" ;; esac
# host packages (cpio, binutils, xz-utils, gcc, ...): scripts/host-deps.sh names and installs them
"$SRC/scripts/host-deps.sh" image || die "host packages missing (scripts/host-deps.sh image)"
[ "$COMPRESS" = none ] || command -v "$COMPRESS" >/dev/null || die "host tool '$COMPRESS' is missing"
if [ -n "$KERNEL" ]; then
  KERNEL=$(realpath "$KERNEL"); [ -f "$KERNEL" ] || die "KERNEL=$KERNEL is not a file"
  [ -n "$MODULES" ] || die "KERNEL is set: also set MODULES=<dir>/lib/modules/<version> (or MODULES=none)"
fi
if [ -n "$MODULES" ] && [ "$MODULES" != none ]; then
  MODULES=$(realpath "$MODULES"); [ -d "$MODULES" ] || die "MODULES=$MODULES is not a directory"
fi
override_files=()
for f in $OVERRIDE_KO; do
  [ -f "$f" ] || die "OVERRIDE_KO: $f is not a file"; override_files+=("$(realpath "$f")")
done

# ---- what goes into the image -------------------------------------------------------------
# Packages whose files are copied (minus docs); everything else they need is pulled in as
# shared libraries (ELF DT_NEEDED closure), which keeps perl, systemd, udev etc. out.
# Where the RDMA tools come from: ibv_devinfo, ibv_{rc,uc,ud,srq,xsrq}_pingpong: ibverbs-utils;
# rping, ucmatose, udaddy, mckey, rstream: rdmacm-utils (Fedora's librdmacm-utils); ib_*_{bw,lat}:
# perftest; `rdma` (rdma link add ... type rxe): iproute2; ibstat, saquery: infiniband-diags.
# The kernel's storage ULPs (srp.sh, iser.sh, nfs-rdma.sh): srptools (ibsrpdm), open-iscsi
# (iscsid, iscsiadm), nfs-kernel-server and nfs-common (rpc.nfsd, rpc.mountd, exportfs, mount.nfs).
TOOL_PACKAGES="busybox-static dash kmod iproute2 ethtool ibverbs-utils ibverbs-providers rdmacm-utils
  perftest infiniband-diags dropbear-bin opensm srptools open-iscsi nfs-kernel-server nfs-common
  $EXTRA_PACKAGES"
# Modules to include with their dependency closure (names with '_'; built-ins are skipped).
# rdma_rxe (Soft-RoCE, on a virtio-net fabric NIC: the RoCE interop tests rxe.sh, roce-rxe.sh):
# Debian 6.12's rxe gets its ICRC's CRC-32 from the crypto API ("crc32"), which no module
# dependency names: crc32_generic must be there (and loaded first), or `rdma link add` fails.
# The storage and datagram ULPs: SRP (LIO's ib_srpt, ib_srp; sd_mod, which no module depends
# on; LIO loads its backstore modules target_core_* at the first configfs access, and logs each
# one missing), iSER (iscsi_target_mod + ib_isert, whose logins need crc32c; ib_iser, iscsi_tcp for
# iscsiadm's SendTargets over TCP), NFS over RDMA (nfsd, nfsv4, rpcrdma) and RDS (rds_rdma).
# 8021q: VLAN interfaces (a VF's VST VLAN reached from the other guest). bridge, sch_ingress,
# act_mirred, cls_flower, cls_matchall: switching between representors in switchdev mode.
WANT_MODULES="mlx5_core mlx5_ib ib_core ib_uverbs ib_umad ib_cm iw_cm rdma_cm rdma_ucm ib_ipoib
  nvme_rdma nvmet_rdma brd vxlan 8021q bridge sch_ingress act_mirred cls_flower cls_matchall
  virtio_pci virtio_net rdma_rxe crc32_generic
  target_core_mod target_core_iblock target_core_file target_core_pscsi target_core_user ib_srpt
  ib_srp scsi_transport_srp sd_mod iscsi_target_mod ib_isert ib_iser
  libiscsi scsi_transport_iscsi iscsi_tcp crc32c_generic nfsd nfs nfsv4 rpcrdma rds rds_rdma
  $EXTRA_MODULES"
# Paths removed from the image after unpacking (relative to its root, globs allowed): docs,
# and programs not needed for RDMA tests that would drag in large libraries (arpd: libdb,
# ss: libtirpc+krb5) or are for Ethernet links only (perftest raw_ethernet_*); of nfs-utils and
# open-iscsi only what NFSv4 over RDMA and iSER logins use stay (Kerberos daemons, the NFSv4
# client tracking database (sqlite), the block layout and NFSv3 helpers go).
PRUNE="usr/share/doc usr/share/man usr/share/info usr/share/locale usr/share/lintian
  usr/share/bug usr/share/bash-completion usr/share/zsh usr/share/fish usr/share/perl5
  usr/share/initramfs-tools usr/include usr/lib/systemd usr/lib/udev etc/init.d var
  usr/sbin/arpd usr/bin/ss usr/sbin/tipc usr/sbin/dcb usr/sbin/vdpa usr/sbin/rtacct
  usr/sbin/rtmon usr/bin/lnstat usr/bin/ctstat usr/bin/rtstat usr/bin/nstat usr/bin/routel
  usr/bin/raw_ethernet_*
  usr/sbin/rpc.gssd usr/sbin/rpc.svcgssd usr/sbin/nfsdcld usr/sbin/nfsdclddb usr/sbin/nfsdclnts
  usr/sbin/nfsdctl usr/sbin/fsidd usr/sbin/blkmapd usr/sbin/rpc.idmapd usr/sbin/nfsidmap
  usr/sbin/rpc.statd usr/sbin/sm-notify usr/sbin/start-statd usr/sbin/mountstats
  usr/sbin/nfsiostat usr/sbin/nfsref usr/sbin/rpcctl usr/sbin/showmount usr/sbin/iscsistart
  usr/sbin/iscsi_discovery"

apt_packages=$TOOL_PACKAGES
[ -n "$KERNEL" ] || apt_packages="linux-image-amd64 $apt_packages"

mkdir -p "$OUT"
OUT=$(realpath "$OUT")
WORK=$OUT/work
DEBS=$SRC/build/apt/debs
mkdir -p "$WORK" "$DEBS"
exec 9>"$OUT/.lock" && flock 9     # one build of this output directory at a time

# ---- 1. resolve the package closure --------------------------------------------------------
if ! conf=$("$SRC/scripts/trixie-apt.sh" "$SRC/build/apt"); then
  if [ -f "$OUT/stamp" ] && [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/base.cpio" ] && [ "$FORCE" != 1 ]; then
    log "WARNING: cannot refresh the trixie package lists (offline?); keeping the existing image"
    exit 0
  fi
  die "cannot set up apt for trixie (scripts/trixie-apt.sh failed)"
fi
# shellcheck disable=SC2086
apt-get -c "$conf" -s -q install --no-install-recommends $apt_packages > "$WORK/resolve.txt" ||
  { cat "$WORK/resolve.txt" >&2; die "apt could not resolve: $apt_packages"; }
awk '$1=="Inst"{v=$3; sub(/^\(/,"",v); print $2"="v}' "$WORK/resolve.txt" | sort > "$WORK/pkgs.txt"
[ -s "$WORK/pkgs.txt" ] || die "empty package closure (see $WORK/resolve.txt)"

# ---- 2. input hash: skip the build when nothing changed -------------------------------------
RV_SRCS=$(ls "$SRC"/guest-tests/src/*.c)   # built on the host in step 4b
file_id() { # identity of a file or directory tree: names, sizes, mtimes
  if [ -d "$1" ]; then (cd "$1" && find . \( -type f -o -type l \) -printf '%P %s %T@\n' | sort | sha256sum)
  else stat -c '%n %s %Y' "$1"; fi
}
stamp=$(
  {
    sha256sum "$0"
    cat "$WORK/pkgs.txt"
    echo "compress=$COMPRESS modules=$EXTRA_MODULES packages=$EXTRA_PACKAGES keep=$KEEP_PATHS"
    if [ -n "$KERNEL" ]; then echo "kernel=$KERNEL"; file_id "$KERNEL"; fi
    if [ -n "$MODULES" ]; then echo "modules=$MODULES"; [ "$MODULES" = none ] || file_id "$MODULES"; fi
    for f in "${override_files[@]}"; do echo "override=$f"; file_id "$f"; done
    sha256sum $RV_SRCS     # rdma-verify, mlx5dv-mkey, ... (step 4b)
  } | sha256sum | cut -d' ' -f1
)
if [ "$FORCE" != 1 ] && [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$stamp" ] &&
   [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/base.cpio" ]; then
  log "up to date: $OUT/vmlinuz $OUT/base.cpio"
  exit 0
fi
rm -f "$OUT/stamp"

# ---- 3. download (cached) and unpack into a staging tree ------------------------------------
deb_of() { # name=version -> path of the downloaded .deb (empty if absent)
  local n=${1%%=*} v=${1#*=}
  compgen -G "$DEBS/${n}_${v//:/%3a}_*.deb" | head -n1 || true
}
missing=()
while read -r nv; do [ -n "$(deb_of "$nv")" ] || missing+=("$nv"); done < "$WORK/pkgs.txt"
if [ ${#missing[@]} -gt 0 ]; then
  log "downloading ${#missing[@]} packages"
  (cd "$DEBS" && apt-get -c "$conf" -q -o APT::Sandbox::User=root download "${missing[@]}" >&2)
fi

STAGE=$WORK/stage ROOT=$OUT/root
rm -rf "$STAGE" "$ROOT"
mkdir -p "$STAGE" "$ROOT"
log "unpacking $(wc -l < "$WORK/pkgs.txt") packages"
while read -r nv; do dpkg -x "$(deb_of "$nv")" "$STAGE"; done < "$WORK/pkgs.txt"

# Run a trixie program from the staging tree with trixie's own dynamic loader.
stage_run() { # NAME PROGRAM ARGS...
  local name=$1 prog=$2; shift 2
  "$STAGE/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path \
    "$STAGE/usr/lib/x86_64-linux-gnu" --argv0 "$name" "$STAGE/$prog" "$@"
}

# ---- 4. image root: tool packages, merged /usr, busybox applets ----------------------------
for p in $TOOL_PACKAGES; do
  nv=$(grep -m1 "^$p=" "$WORK/pkgs.txt") || die "package $p missing from the closure"
  dpkg -x "$(deb_of "$nv")" "$ROOT"
done
KEEP_TMP=$WORK/keep
rm -rf "$KEEP_TMP" && mkdir -p "$KEEP_TMP"
for k in $KEEP_PATHS; do
  [ -e "$ROOT/$k" ] || die "KEEP_PATHS: $k is in none of the packages"
  mkdir -p "$KEEP_TMP/$(dirname "$k")" && mv "$ROOT/$k" "$KEEP_TMP/$k"
done
(cd "$ROOT" && for p in $PRUNE; do rm -rf ./$p; done)
for k in $KEEP_PATHS; do
  mkdir -p "$ROOT/$(dirname "$k")" && mv "$KEEP_TMP/$k" "$ROOT/$k"
  find "$ROOT/$k" -name '*.py.gz' -exec gzip -d -f {} +
done
# merged /usr: anything a package put in /bin, /sbin, /lib, /lib64 moves below /usr
for d in bin sbin lib lib64; do
  mkdir -p "$ROOT/usr/$d"
  if [ -d "$ROOT/$d" ] && [ ! -L "$ROOT/$d" ]; then
    cp -a "$ROOT/$d/." "$ROOT/usr/$d/" && rm -rf "${ROOT:?}/$d"
  fi
  ln -sfn "usr/$d" "$ROOT/$d"
done
# /bin/sh is dash: Debian's busybox-static is built with FEATURE_SH_STANDALONE, so its own sh
# runs the busybox applet even where a real program exists (modprobe, rmmod, ip, ...).
ln -sfn dash "$ROOT/usr/bin/sh"
# busybox applets, never shadowing a real program (kmod's modprobe, iproute2's ip, ...);
# for interactive busybox sh (mlx5t.shell=1), /etc/profile aliases the shadowed names.
mkdir -p "$ROOT/etc"
: > "$ROOT/etc/profile"
"$ROOT/usr/bin/busybox" --list-full | while read -r a; do
  case $a in bin/*|sbin/*) a=usr/$a ;; esac
  if [ -e "$ROOT/$a" ] || [ -L "$ROOT/$a" ]; then
    case $(basename "$a") in sh|busybox) ;; *) echo "alias $(basename "$a")=/$a" >> "$ROOT/etc/profile" ;; esac
  else
    ln -s /usr/bin/busybox "$ROOT/$a"
  fi
done
echo 'export PS1="\\h:\\w# "' >> "$ROOT/etc/profile"

# ---- 4b. /usr/bin/<name> for every guest-tests/src/<name>.c (with the shared gt-verbs.h;
# rdma-verify: integrity.sh,
# mlx5dv-mkey: mlx5dv.sh, manual-*: manual.sh). The guest has no compiler: build the programs
# with the host's gcc against trixie's libibverbs-dev and librdmacm-dev headers (+ the rdma/
# UAPI headers of trixie's linux-libc-dev) and link them against trixie's libibverbs.so (and,
# --as-needed so only where they use it, librdmacm.so and libpthread). The host's glibc (2.36)
# is older than trixie's, so the binary runs in the guest; --allow-shlib-undefined because
# trixie's libibverbs.so.1 needs newer glibc symbols than the host's libc provides at link
# time. Cached in build/rdma-verify/ (sysroot and
# binary), rebuilt when the source, the compiler or the package versions change.
RV_DIR=$SRC/build/rdma-verify RV_SYSROOT=$SRC/build/rdma-verify/sysroot
rv_ver=$(sed -n 's/^libibverbs1=//p' "$WORK/pkgs.txt")
[ -n "$rv_ver" ] || die "libibverbs1 missing from the closure"
# librdmacm's runtime package is librdmacm1t64 in trixie (the 64-bit time_t rename of librdmacm1)
rv_cm_lib=$(sed -n 's/^\(librdmacm1\(t64\)\{0,1\}\)=.*/\1/p' "$WORK/pkgs.txt" | head -n1)
rv_cm_ver=$(sed -n "s/^$rv_cm_lib=//p" "$WORK/pkgs.txt")
[ -n "$rv_cm_lib" ] && [ -n "$rv_cm_ver" ] || die "librdmacm1 missing from the closure"
rv_uapi=$(apt-cache -c "$conf" policy linux-libc-dev | awk '$1=="Candidate:"{print $2}')
[ -n "$rv_uapi" ] && [ "$rv_uapi" != "(none)" ] || die "trixie's linux-libc-dev not found"
rv_pkgs="libibverbs-dev=$rv_ver libibverbs1=$rv_ver librdmacm-dev=$rv_cm_ver $rv_cm_lib=$rv_cm_ver linux-libc-dev=$rv_uapi"
rv_flags="-O2 -g -std=gnu11 -Wall -Wextra"
rv_key=$( { sha256sum $RV_SRCS "$SRC"/guest-tests/src/*.h; gcc --version | head -n1;
           echo "$rv_pkgs $rv_flags"; } |
         sha256sum | cut -d' ' -f1)
if [ "$(cat "$RV_DIR/key" 2>/dev/null)" != "$rv_key" ] || [ ! -x "$RV_DIR/rdma-verify" ]; then
  rv_missing=()
  for nv in $rv_pkgs; do [ -n "$(deb_of "$nv")" ] || rv_missing+=("$nv"); done
  if [ ${#rv_missing[@]} -gt 0 ]; then
    (cd "$DEBS" && apt-get -c "$conf" -q -o APT::Sandbox::User=root download "${rv_missing[@]}" >&2) ||
      die "cannot download ${rv_missing[*]}"
  fi
  rm -rf "$RV_DIR" && mkdir -p "$RV_SYSROOT/usr/include"
  dpkg -x "$(deb_of "libibverbs-dev=$rv_ver")" "$RV_SYSROOT"
  dpkg -x "$(deb_of "libibverbs1=$rv_ver")" "$RV_SYSROOT"       # target of libibverbs.so
  dpkg -x "$(deb_of "linux-libc-dev=$rv_uapi")" "$RV_DIR/uapi"  # only its rdma/ headers
  mv "$RV_DIR/uapi/usr/include/rdma" "$RV_SYSROOT/usr/include/rdma" && rm -rf "$RV_DIR/uapi"
  # rdma/rdma_cma.h, rdma_verbs.h, ... next to the UAPI's rdma/ headers (no names in common)
  dpkg -x "$(deb_of "librdmacm-dev=$rv_cm_ver")" "$RV_SYSROOT"
  dpkg -x "$(deb_of "$rv_cm_lib=$rv_cm_ver")" "$RV_SYSROOT"    # target of librdmacm.so
  for f in $RV_SRCS; do
    n=$(basename "$f" .c)
    log "compiling $n against ${rv_pkgs}"
    # libmlx5.so.1 (ibverbs-providers, in the staging tree) for the mlx5dv_* calls; librdmacm
    # and libpthread (the manual-* programs) --as-needed: a DT_NEEDED only where used
    # shellcheck disable=SC2086
    gcc $rv_flags -I"$RV_SYSROOT/usr/include" -o "$RV_DIR/$n" "$f" \
      -L"$RV_SYSROOT/usr/lib/x86_64-linux-gnu" -libverbs \
      -Wl,--as-needed "$STAGE/usr/lib/x86_64-linux-gnu/libmlx5.so.1" -lrdmacm -lpthread -Wl,--no-as-needed \
      -Wl,-rpath-link,"$STAGE/usr/lib/x86_64-linux-gnu" -Wl,--allow-shlib-undefined ||
      die "compiling $f failed"
  done
  echo "$rv_key" > "$RV_DIR/key"
fi
for f in $RV_SRCS; do
  install -m 755 "$RV_DIR/$(basename "$f" .c)" "$ROOT/usr/bin/$(basename "$f" .c)"
done
# ---- end of 4b --------------------------------------------------------------------------------

# ---- 5. shared-library closure (DT_NEEDED + program interpreter) -----------------------------
LIBDIRS="usr/lib/x86_64-linux-gnu usr/lib usr/lib64"
is_elf() { [ "$(head -c4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]; }
declare -A scanned=()
queue=()
while IFS= read -r -d '' f; do is_elf "$f" && queue+=("$f"); done < <(find "$ROOT" -type f -print0)
add_lib() { # copy a library (dereferenced) from the staging tree, queue it for scanning
  local rel=$1
  [ -e "$ROOT/$rel" ] && return 0
  mkdir -p "$(dirname "$ROOT/$rel")"
  cp -L "$STAGE/$rel" "$ROOT/$rel"
  queue+=("$ROOT/$rel")
}
# glibc dlopen()s libgcc_s for pthread_exit/pthread_cancel unwinding (rping, threaded tools):
# no DT_NEEDED names it
[ -e "$STAGE/usr/lib/x86_64-linux-gnu/libgcc_s.so.1" ] || die "libgcc_s.so.1 missing from the trixie closure"
add_lib usr/lib/x86_64-linux-gnu/libgcc_s.so.1
while [ ${#queue[@]} -gt 0 ]; do
  f=${queue[0]}; queue=("${queue[@]:1}")
  [ -z "${scanned[$f]:-}" ] || continue
  scanned[$f]=1
  interp=$(readelf -lW "$f" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
  if [ -n "$interp" ]; then
    interp=${interp#/}; interp=${interp#usr/}   # /lib64/ld-linux... -> usr/lib64/...
    add_lib "usr/$interp"
  fi
  # the library path: the default directories, and the file's own RUNPATH/RPATH ($ORIGIN is
  # its directory), as ld.so searches (UCX's transports find libuct_ib.so in .../ucx/)
  dirs=$LIBDIRS
  origin=$(dirname "${f#"$ROOT"/}")
  for rp in $(readelf -dW "$f" 2>/dev/null | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p' | tr ':' ' '); do
    rp=${rp//\$ORIGIN/$origin}; rp=${rp//\$\{ORIGIN\}/$origin}
    rp=$(realpath -m --relative-to=/ "/$rp")
    dirs="$rp $dirs"
  done
  for lib in $(readelf -dW "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    found=
    for d in $dirs; do
      if [ -e "$ROOT/$d/$lib" ] || [ -e "$STAGE/$d/$lib" ]; then add_lib "$d/$lib"; found=1; break; fi
    done
    [ -n "$found" ] || die "library $lib needed by ${f#"$ROOT"/} not found in the trixie closure"
  done
done

# ---- 6. kernel and modules --------------------------------------------------------------------
if [ -n "$KERNEL" ]; then
  kernel_src=$KERNEL
else
  kver=$(ls "$STAGE/usr/lib/modules")
  [ "$(echo "$kver" | wc -l)" = 1 ] || die "expected one kernel in linux-image-amd64, got: $kver"
  kernel_src=$STAGE/boot/vmlinuz-$kver
fi
# version string from the bzImage header (setup header field kernel_version at 0x20e)
bzimage_version() {
  local off
  off=$(od -An -tu2 -j $((0x20e)) -N2 "$1" | tr -d ' ')
  [ -n "$off" ] && [ "$off" -gt 0 ] || return 0
  dd if="$1" bs=1 skip=$((off + 0x200)) count=128 2>/dev/null | tr '\0' '\n' | head -n1 | cut -d' ' -f1
}
kernel_ver=$(bzimage_version "$kernel_src")

if [ "$MODULES" = none ]; then
  mods_src= kver=$kernel_ver
elif [ -n "$MODULES" ]; then
  mods_src=$MODULES kver=$(basename "$MODULES")
else
  mods_src=$STAGE/usr/lib/modules/$kver
fi
[ -z "$kernel_ver" ] || [ "$kernel_ver" = "$kver" ] ||
  log "WARNING: kernel version '$kernel_ver' differs from the modules version '$kver'"
[ -n "$kver" ] || die "cannot tell the kernel version (MODULES=none and no version in $kernel_src)"

MODDIR=$ROOT/usr/lib/modules/$kver
mkdir -p "$MODDIR"
modlist=()
if [ -n "$mods_src" ]; then
  declare -A modpath=()
  while IFS= read -r -d '' f; do
    n=$(basename "$f"); n=${n%%.ko*}; modpath[${n//-/_}]=$f
  done < <(find "$mods_src" \( -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz' \) -print0)
  for f in "${override_files[@]}"; do n=$(basename "$f"); n=${n%%.ko*}; modpath[${n//-/_}]=$f; done
  builtin=$( (cat "$mods_src/modules.builtin" 2>/dev/null || true) | sed 's#.*/##; s/\.ko$//; s/-/_/g')
  declare -A want_done=()
  todo=()
  for m in $WANT_MODULES; do todo+=("${m//-/_}"); done
  while [ ${#todo[@]} -gt 0 ]; do
    m=${todo[0]}; todo=("${todo[@]:1}")
    [ -n "$m" ] && [ -z "${want_done[$m]:-}" ] || continue
    want_done[$m]=1
    f=${modpath[$m]:-}
    if [ -z "$f" ]; then
      if grep -qx "$m" <<<"$builtin"; then log "module $m is built in"
      # (a soft dependency may name an alias, e.g. nfsd's crypto-md5: md5 is built in)
      elif tr '\0' '\n' < "$mods_src/modules.builtin.modinfo" 2>/dev/null |
           grep -qE "\.alias=($m|${m//_/-})\$"; then log "module alias $m is built in"
      else log "WARNING: module $m not found in $mods_src (not built?)"; fi
      continue
    fi
    if [[ $f == "$mods_src"/* ]]; then rel=${f#"$mods_src"/}; else rel=updates/$(basename "$f"); fi
    rel=${rel%.xz}; rel=${rel%.zst}; rel=${rel%.gz}
    mkdir -p "$(dirname "$MODDIR/$rel")"
    case $f in
      *.xz) xz -dc "$f" > "$MODDIR/$rel" ;;
      *.zst) zstd -qdc "$f" > "$MODDIR/$rel" ;;
      *.gz) gzip -dc "$f" > "$MODDIR/$rel" ;;
      *) cp "$f" "$MODDIR/$rel" ;;
    esac
    modlist+=("$m:$rel")
    deps=$(stage_run modinfo usr/bin/kmod -F depends "$MODDIR/$rel" | tr ',' ' ')
    soft=$(stage_run modinfo usr/bin/kmod -F softdep "$MODDIR/$rel" | tr ' ' '\n' | grep -v -e ':$' -e '^$' || true)
    for d in $deps $soft; do todo+=("${d//-/_}"); done
  done
  for f in modules.order modules.builtin modules.builtin.modinfo; do
    [ -f "$mods_src/$f" ] && cp "$mods_src/$f" "$MODDIR/"
  done
fi
stage_run depmod usr/bin/kmod -b "$ROOT" "$kver" ||
  die "depmod failed for $kver"
cp "$kernel_src" "$OUT/vmlinuz.tmp"

# ---- 7. configuration files and /init ------------------------------------------------------
mkdir -p "$ROOT"/{dev,proc,sys,tmp,run,root,mnt,etc,test}
chmod 1777 "$ROOT/tmp"
echo 'root:x:0:0:root:/root:/bin/sh' > "$ROOT/etc/passwd"
echo 'root:x:0:' > "$ROOT/etc/group"
echo 'hosts: files' > "$ROOT/etc/nsswitch.conf"
echo /bin/sh > "$ROOT/etc/shells"   # dropbear accepts logins only with a listed shell
cat > "$ROOT/etc/udhcpc.script" <<'DHCP'
#!/bin/sh
# busybox udhcpc hook: apply the lease (address, prefix length, first router)
case $1 in
  bound|renew)
    ip addr flush dev "$interface"
    ip addr add "$ip/${mask:-24}" dev "$interface"
    [ -n "${router:-}" ] && ip route replace default via "${router%% *}" dev "$interface"
    ;;
esac
exit 0
DHCP
chmod 755 "$ROOT/etc/udhcpc.script"
{ echo '127.0.0.1 localhost'; for i in 0 1 2 3; do echo "10.0.0.$((i + 1)) guest$i"; done; } > "$ROOT/etc/hosts"
if [ "$(id -u)" = 0 ]; then mknod -m 600 "$ROOT/dev/console" c 5 1; mknod -m 666 "$ROOT/dev/null" c 1 3; fi

cat > "$ROOT/init" <<'INIT'
#!/bin/sh
# /init of the mlx5-hca test guest (written by scripts/build-image.sh). /bin/sh is dash; the
# small tools are busybox applets, modprobe/rmmod are kmod's, ip is iproute2's.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=vt100 NO_COLOR=1
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
# the initramfs root is world-writable (rootfs), which DPDK's EAL refuses as insecure; and
# programs expect /var/run to be /run, and /var/tmp (DPDK's mlx5 PMD puts its socket there)
chmod 755 /
mkdir -p /var/tmp && chmod 1777 /var/tmp && ln -sfn /run /var/run
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
ip link set lo up

# mlx5t.KEY=VALUE from the kernel command line
IDX=0 N=1 TIMEOUT=600 SHELL_MODE=0 PROBE=0 SSH=0 FABRIC_NIC= MLX5T_COV=0
for arg in $(cat /proc/cmdline); do
  case $arg in
    mlx5t.cov=*) MLX5T_COV=${arg#*=} ;;
    mlx5t.fabric=*) FABRIC_NIC=${arg#*=} ;;
    mlx5t.idx=*) IDX=${arg#*=} ;;
    mlx5t.n=*) N=${arg#*=} ;;
    mlx5t.timeout=*) TIMEOUT=${arg#*=} ;;
    mlx5t.shell=*) SHELL_MODE=${arg#*=} ;;
    mlx5t.probe=*) PROBE=${arg#*=} ;;
    mlx5t.ssh=*) SSH=${arg#*=} ;;
  esac
done
hostname "guest$IDX"

# Driver coverage (mlx5t.cov=1). The filter names the modules before they load (ftrace keeps
# ":mod:" for a module that is not loaded and applies it at load; guest-tests/lib/common.sh's
# cov_arm renews it before each later load). The reader keeps the first sighting of each
# function. Functions are not taken off the filter once seen: every change of the filter
# patches the kernel's text, which under TCG costs about a second per function. The buffer's
# overruns are reported as lost=N (an event lost matters only if it was a function's only
# call).
TR=/sys/kernel/tracing COV_PID=
cov_start() {
  mount -t tracefs tracefs $TR 2>/dev/null
  if [ ! -w $TR/set_ftrace_filter ]; then
    echo "mlx5t: WARNING: no tracefs: no driver coverage"; return
  fi
  echo 0 > $TR/tracing_on
  echo 65536 > $TR/buffer_size_kb
  echo noprint-parent > $TR/trace_options
  printf ':mod:mlx5_core\n:mod:mlx5_ib\n' > $TR/set_ftrace_filter
  echo function > $TR/current_tracer
  : > /tmp/cov.hits
  # (without print-parent a line ends with the function's name)
  awk '/: [^ ]+$/ && !($NF in seen) { seen[$NF]; print $NF; fflush() }' \
    < $TR/trace_pipe > /tmp/cov.hits 2>/dev/null &
  COV_PID=$!
  echo 1 > $TR/tracing_on
  echo "mlx5t: driver coverage on (ftrace on mlx5_core, mlx5_ib)"
}
cov_dump() {
  [ -n "$COV_PID" ] || return 0
  echo 0 > $TR/tracing_on
  # the reader drains what is left in the buffer (after heavy traffic it can be behind by
  # seconds), then trace_pipe ends for it, tracing being off; 120 s at the most
  for _ in $(seq 240); do
    kill -0 $COV_PID 2>/dev/null || break
    sleep 0.5
  done
  kill $COV_PID 2>/dev/null
  echo "@@MLX5T COV BEGIN lost=$(awk '/^overrun:/ {s += $2} END {print s + 0}' \
        $TR/per_cpu/cpu*/stats 2>/dev/null)"
  sort -u /tmp/cov.hits | sed 's/^/hit /'
  grep -E '\[mlx5_(core|ib)\]$' $TR/available_filter_functions | sed 's/^/fn /'
  echo "@@MLX5T COV END"
}

finish() { # RESULT: print markers and dmesg, power off
  cov_dump
  echo "@@MLX5T RESULT $1"
  echo "@@MLX5T DMESG BEGIN"
  dmesg
  echo "@@MLX5T DMESG END"
  echo "@@MLX5T DONE"
  sync
  sleep 1   # let the serial port drain before powering off
  poweroff -f
  while :; do sleep 60; done
}

if [ "$PROBE" = 1 ]; then
  echo "@@MLX5T RESULT PASS"
  echo "@@MLX5T DONE"
  sleep 1
  poweroff -f
fi

# virtio-net NICs (PCI 1af4:1000 or 1af4:1041), told apart by their MAC (scripts/guest-run.py):
#   02:4d:47:..  management NIC on a stream socket between the guests: 10.0.0.(IDX+1)/24
#   02:4d:55:..  QEMU user networking (-netdev user, slirp): address by DHCP, sshd (mlx5t.ssh=1)
#   02:4d:52:..  a NIC on the fabric netdev instead of the mlx5-hca (mlx5t.fabric=virtio):
#                FABRIC_IF, configured by the test
MGMT_IF= MY_IP= PEER_IP= USER_IF= USER_IP= FABRIC_IF=
nic_by_mac() { # PREFIX: name of the virtio-net interface whose MAC starts with PREFIX
  for d in /sys/class/net/*; do
    [ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = virtio_net ] || continue
    case $(cat "$d/address") in "$1"*) basename "$d"; return 0 ;; esac
  done
  return 1
}
if cat /sys/bus/pci/devices/*/uevent 2>/dev/null | grep -Eq '^PCI_ID=1AF4:(1000|1041)$'; then
  modprobe -q virtio_pci 2>/dev/null   # built into Debian's kernel
  modprobe -q virtio_net
  for _ in $(seq 50); do
    MGMT_IF=$(nic_by_mac 02:4d:47:) || true
    USER_IF=$(nic_by_mac 02:4d:55:) || true
    FABRIC_IF=$(nic_by_mac 02:4d:52:) || true
    if [ "$FABRIC_NIC" = virtio ]; then
      # the fabric NIC, and the management NIC too when there is one (2+ instances)
      [ -n "$FABRIC_IF" ] && { [ "$N" -lt 2 ] || [ -n "$MGMT_IF" ]; } && break
    else
      [ -n "$MGMT_IF$USER_IF" ] && break
    fi
    sleep 0.1
  done
  [ -n "$MGMT_IF$USER_IF$FABRIC_IF" ] || echo "mlx5t: WARNING: virtio-net device present but no interface appeared"
  [ "$FABRIC_NIC" != virtio ] || [ -n "$FABRIC_IF" ] ||
    echo "mlx5t: WARNING: no virtio-net interface with the fabric MAC (02:4d:52:*) appeared"
fi
if [ -n "$MGMT_IF" ]; then
  MY_IP=10.0.0.$((IDX + 1))
  ip addr add "$MY_IP/24" dev "$MGMT_IF"
  ip link set "$MGMT_IF" up
  [ "$N" = 2 ] && PEER_IP=10.0.0.$((2 - IDX))
fi
if [ -n "$USER_IF" ]; then
  # slirp's built-in DHCP server (10.0.2.15, gateway 10.0.2.2); busybox udhcpc applies the lease
  ip link set "$USER_IF" up
  udhcpc -q -f -n -t 10 -T 1 -i "$USER_IF" -s /etc/udhcpc.script >/tmp/udhcpc.log 2>&1 ||
    echo "mlx5t: WARNING: no DHCP lease on $USER_IF (user networking): $(tail -n1 /tmp/udhcpc.log)"
  USER_IP=$(ip -4 -o addr show dev "$USER_IF" | awk '{print $4}' | cut -d/ -f1)
fi
if [ "$SSH" = 1 ]; then
  # dropbear on port 22 (reached from the host through hostfwd); host keys made on first use;
  # root logs in with the key the runner put in /test/ssh/authorized_keys
  mkdir -p /root/.ssh /etc/dropbear && chmod 700 /root/.ssh
  [ -f /test/ssh/authorized_keys ] && cp /test/ssh/authorized_keys /root/.ssh/ && chmod 600 /root/.ssh/authorized_keys
  if dropbear -R -E -p 22 2>/tmp/dropbear.log; then
    echo "@@MLX5T SSH READY if=${USER_IF:-none} ip=${USER_IP:-none}"
  else
    echo "mlx5t: WARNING: dropbear did not start: $(cat /tmp/dropbear.log)"
  fi
fi
[ "$MLX5T_COV" = 1 ] && cov_start
export IDX N MY_IP PEER_IP MGMT_IF USER_IF USER_IP FABRIC_NIC FABRIC_IF MLX5T_COV
echo "@@MLX5T BOOTED idx=$IDX n=$N kernel=$(uname -r) mgmt_if=${MGMT_IF:-none} ip=${MY_IP:-none} peer=${PEER_IP:-none} fabric=${FABRIC_NIC:-?}${FABRIC_IF:+:$FABRIC_IF} uptime=$(cut -d' ' -f1 /proc/uptime)"

if [ "$SHELL_MODE" = 1 ]; then
  echo "mlx5t: interactive shell; exit it to power off"
  setsid cttyhack busybox sh -l
  finish PASS
fi

if [ ! -f /test/run.sh ]; then
  echo "mlx5t: /test/run.sh is missing (no test cpio appended to the initramfs?)"
  finish FAIL
fi
cd /test
echo "@@MLX5T TEST BEGIN idx=$IDX"
timeout "$TIMEOUT" /bin/sh /test/run.sh   # a path: busybox would run its own sh for "sh"
rc=$?
echo "@@MLX5T TEST END rc=$rc"
[ "$rc" = 143 ] && echo "mlx5t: test killed after ${TIMEOUT}s (mlx5t.timeout)"
if [ "$rc" = 0 ]; then finish PASS; else finish FAIL; fi
INIT
chmod 755 "$ROOT/init"

# ---- 8. archive ------------------------------------------------------------------------------
log "writing initramfs ($COMPRESS)"
(cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 --reproducible) > "$WORK/base.cpio.raw"
case $COMPRESS in
  none) mv "$WORK/base.cpio.raw" "$OUT/base.cpio.tmp" ;;
  gzip) gzip -6 -n < "$WORK/base.cpio.raw" > "$OUT/base.cpio.tmp" ;;
  zstd) zstd -q -19 -T0 < "$WORK/base.cpio.raw" > "$OUT/base.cpio.tmp" ;;
esac
rm -f "$WORK/base.cpio.raw"
mv "$OUT/vmlinuz.tmp" "$OUT/vmlinuz"
mv "$OUT/base.cpio.tmp" "$OUT/base.cpio"
rm -rf "$STAGE"

{
  echo "# mlx5t guest image manifest"
  echo "kernel: ${KERNEL:-debian} version ${kernel_ver:-?} modules ${kver} (${MODULES:-debian})"
  echo "initramfs: $(du -k "$OUT/base.cpio" | cut -f1) KiB ($COMPRESS), root $(du -sk "$ROOT" | cut -f1) KiB"
  echo "## modules"; printf '%s\n' "${modlist[@]}"
  echo "## packages (trixie)"; cat "$WORK/pkgs.txt"
} > "$OUT/manifest.txt"
echo "$stamp" > "$OUT/stamp"
log "done: $OUT/vmlinuz ($(du -h "$OUT/vmlinuz" | cut -f1)), $OUT/base.cpio ($(du -h "$OUT/base.cpio" | cut -f1))"
