#!/usr/bin/env bash
# firmware.sh - the firmware plane in a guest (guest-tests/firmware.sh: devlink dev info, and
# mstflint's tools through the configuration-space gateway). Runs on the image scripts/dpdk.sh
# builds (the test image plus the packages a user adds; mstflint among them), so CI builds one
# image for both tests.
#
#   scripts/firmware.sh [guest-run.py options]
#
# Logs: build/firmware/serial-0.log. MLX5T_QEMU: the QEMU to use (meson sets it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
qemu=${MLX5T_QEMU:-$(scripts/build-qemu.sh | tail -n1)}
scripts/dpdk.sh --build-image >&2
exec python3 scripts/guest-run.py --test guest-tests/firmware.sh --qemu "$qemu" \
  --kernel build/guest-dpdk/vmlinuz --initrd build/guest-dpdk/base.cpio \
  --log-dir "${FIRMWARE_LOGS:-build/firmware}" --extra-qemu-args "-m 2G" "$@"
