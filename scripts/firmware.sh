#!/usr/bin/env bash
# firmware.sh - the firmware plane in a guest (guest-tests/firmware.sh: devlink dev info, and
# mstflint's tools through the configuration-space gateway). Runs on the image scripts/dpdk.sh
# builds (the test image plus the packages a user adds; mstflint among them), so CI builds one
# image for both tests.
#
#   scripts/firmware.sh [guest-run.py options]
#
# It boots three times on one flash file (the `flash` property): the first boot flashes an
# image scripts/mlx5-fw-image.py made and stores LINK_TYPE_P1=ETH with mstconfig, the second
# checks that the device starts with that image and an Ethernet port, stores IB and reboots the
# guest into an InfiniBand port, the third that the port is InfiniBand at start, and reboots
# into Ethernet.
# Logs: build/firmware/serial-0.log, build/firmware/second-boot/, build/firmware/third-boot/. MLX5T_QEMU: the QEMU to use
# (meson sets it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
qemu=${MLX5T_QEMU:-$(scripts/build-qemu.sh | tail -n1)}
scripts/dpdk.sh --build-image >&2
logs=${FIRMWARE_LOGS:-build/firmware}
img=$logs/images
rm -rf "$img" && mkdir -p "$img"
# the images devlink dev flash gets (guest-tests/firmware.sh): a good one and three bad ones
mk() { python3 scripts/mlx5-fw-image.py --date 2024-05-01T12:30 --payload-size 65536 "$@"; }
mk --version 16.36.1000 -o "$img/fw-16.36.1000.mfa2"
mk --version 16.37.1000 -o "$img/fw-16.37.1000.mfa2"
mk --version 16.38.1000 -o "$img/fw-16.38.1000.mfa2"
mk --version 16.36.1002 --mfa2-psid MT_0000000999 -o "$img/fw-other-psid.mfa2"
mk --version 16.36.1002 --break digest -o "$img/fw-digest.mfa2"
mk --version 16.36.1002 --break format -o "$img/fw-format.mfa2"
# the flash lives in a file: the second boot starts with what the first one wrote
flash=$(realpath -m "$logs/flash.bin")
rm -f "$flash"
run() {
  python3 scripts/guest-run.py --test guest-tests/firmware.sh --qemu "$qemu" \
    --kernel build/guest-dpdk/vmlinuz --initrd build/guest-dpdk/base.cpio \
    --extra-qemu-args "-m 2G" --extra-device-args "flash=$flash" "$@"
}
run --log-dir "$logs" $(printf -- '--add-file %s ' "$img"/*.mfa2) "$@"
[ -s "$flash" ] || { echo "firmware: the flash file $flash was not written" >&2; exit 1; }
# the port type mstconfig stored: Ethernet on the second boot, InfiniBand again on the third
run --log-dir "$logs/second-boot" --append "fwtest.expect=16.38.1000 fwtest.link=Ethernet" "$@"
run --log-dir "$logs/third-boot" --append "fwtest.expect=16.38.1000 fwtest.link=InfiniBand" "$@"
