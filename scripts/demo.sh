#!/usr/bin/env bash
# demo.sh - the project's main job: build QEMU with the mlx5-hca device and the Debian trixie
# test guest (both steps are idempotent and cached), boot two guests, each with one emulated
# ConnectX-5, linked by a -netdev stream socket, and run ibv_rc_pingpong between them. Prints
# what each guest sees (ibv_devinfo) and the ping-pong results.
#
# Usage: scripts/demo.sh [extra scripts/guest-run.py options, e.g. --verbose]
# Logs:  build/guest-logs/demo/ (serial console, dmesg, exact QEMU command line)
# Exit status: 0 if the guest ran the demo cleanly, 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

echo "== building QEMU with mlx5-hca (scripts/build-qemu.sh)" >&2
qemu=$(scripts/build-qemu.sh | tail -n1)
[ -x "$qemu" ] || qemu=$root/build/qemu/qemu-system-x86_64
echo "== building the guest image (scripts/build-image.sh)" >&2
scripts/build-image.sh
echo "== booting two guests and running ibv_rc_pingpong between them (TCG: about 30 s)" >&2
exec python3 scripts/guest-run.py --test guest-tests/demo.sh --qemu "$qemu" \
  --log-dir build/guest-logs/demo --print-output "$@"
