#!/usr/bin/env bash
# test.sh - run every test of the project on a fresh machine (the README's second command).
#
#   scripts/test.sh [meson test options, e.g. --suite unit]
#   scripts/test.sh --sanitize [meson test options]
#
# --sanitize runs the suites that drive QEMU (qtest and guest) against the AddressSanitizer +
# UndefinedBehaviorSanitizer build of QEMU (scripts/build-qemu.sh --sanitize, build/qemu-san)
# in a meson build directory of its own (build/meson-san); any sanitizer report in a QEMU's
# stderr fails its test (docs/hardening.md). The unit tests are sanitized in every build.
#
# 1. builds QEMU with the mlx5-hca device (scripts/build-qemu.sh) and the Debian trixie guest
#    image (scripts/build-image.sh); both install what they need and are cached;
# 2. configures build/meson with trixie's meson and runs `meson test`: the unit tests of the
#    device core and transport (suite 'unit', seconds) and the guest boot tests with the real
#    mlx5 drivers and rdma-core (suite 'guest', a few minutes under TCG);
# 3. ends with one line "N passed, N failed" (meson tests; skipped ones are named as such).
# Logs: build/meson/meson-logs/testlog.txt and build/meson/guest-logs/<test>/.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

die() { echo "test.sh: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

bdir=build/meson setup_args=()
if [ "${1:-}" = --sanitize ]; then
  shift
  bdir=build/meson-san
  qemu=$(scripts/build-qemu.sh --sanitize) || die "sanitizer QEMU build failed (build/logs/*-san.log)"
  qemu=$(echo "$qemu" | tail -n1)
  setup_args=(-Dqemu="$qemu")     # (also what the pyverbs and bench tests run)
  [ $# -gt 0 ] || set -- --suite qtest --suite guest
fi
scripts/build-qemu.sh >/dev/null || die "QEMU build failed (build/logs/)"
scripts/build-image.sh >/dev/null || die "guest image build failed"
# the unit tests' compiler and libraries, tshark for the 'capture' test, ssh for 'user-net'
scripts/host-deps.sh test capture user-net || die "host packages missing (scripts/host-deps.sh)"

meson=$root/build/tools/bin/meson
export PYTHONPATH=$root/build/tools/meson/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}
if [ ! -f "$bdir/build.ninja" ]; then
  "$meson" setup "${setup_args[@]}" "$bdir" >build/logs/meson-setup.log 2>&1 ||
    { tail -n 30 build/logs/meson-setup.log >&2; die "meson setup failed"; }
fi
"$meson" compile -C "$bdir" >build/logs/meson-compile.log 2>&1 ||
  { tail -n 40 build/logs/meson-compile.log >&2; die "unit test build failed"; }

# (a log left by an earlier run must not become this run's summary when meson stops early,
# e.g. on a test name that does not exist)
rm -f "$bdir/meson-logs/testlog.json"
"$meson" test -C "$bdir" --print-errorlogs "$@"
status=$?
[ -f "$bdir/meson-logs/testlog.json" ] || die "meson test ran no test (exit $status)"

# Summary from meson's JSON log: one line per test, then the closing count.
python3 - "$bdir/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t.get("result")
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
        print(f"FAILED: {t.get('name')} ({r})")
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
PY
exit $status
