#!/usr/bin/env bash
# dpdk.sh - DPDK's mlx5 PMD on the device between two guests (guest-tests/dpdk.sh: probe, packet
# counts on both ends with the PMD's defaults and with the Multi-Packet Rx Queue, a drop flow
# rule). Builds build/guest-dpdk: the test image plus the packages a user adds for it
# (EXTRA_PACKAGES): dpdk-dev (dpdk-testpmd), the mlx5 PMD and the ring mempool driver (both
# plugins, loaded from the PMD directory), UCX, and mstflint (whose tools the `firmware` test
# runs: scripts/firmware.sh uses this image too, so CI builds one image for both) with what its
# mstfwreset needs (python3, which mstflint depends on, and pciutils' lspci and setpci). The guests get
# 2 GiB (the image is larger).
#
#   scripts/dpdk.sh [guest-run.py options]     (DPDK_TEST: another guest test for this image,
#                                               e.g. guest-tests/ucx-tm.sh)
#   scripts/dpdk.sh --build-image      only build the image (scripts/bench.sh's Ethernet figures,
#                                      scripts/firmware.sh)
#
# Logs: build/dpdk/serial-{0,1}.log. MLX5T_QEMU: the QEMU to use (meson sets it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
qemu=${MLX5T_QEMU:-$(scripts/build-qemu.sh | tail -n1)}
EXTRA_PACKAGES="dpdk-dev librte-net-mlx5-25 librte-mempool-ring25 ucx-utils libucx0 mstflint
  python3 python3-minimal python3.13 python3.13-minimal libpython3.13-minimal
  libpython3.13-stdlib pciutils" \
  OUT=build/guest-dpdk scripts/build-image.sh >&2
[ "${1:-}" = --build-image ] && exit 0
exec python3 scripts/guest-run.py --test "${DPDK_TEST:-guest-tests/dpdk.sh}" --qemu "$qemu" \
  --kernel build/guest-dpdk/vmlinuz --initrd build/guest-dpdk/base.cpio \
  --log-dir "${DPDK_LOGS:-build/dpdk}" --extra-qemu-args "-m 2G" "$@"
