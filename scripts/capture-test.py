#!/usr/bin/env python3
"""capture-test.py - the 'capture' guest test: run guest-tests/capture.sh through guest-run.py
(two guests; QEMU's filter-dump writes each instance's fabric frames to LOGDIR/fab-I.pcap),
then check both captures with check-capture.py against the pingpong runs in serial-0.log.

Usage: scripts/capture-test.py [--roce] [guest-run.py options...]
  (--test defaults to guest-tests/capture.sh, --log-dir to build/guest-logs/capture;
  --roce: an Ethernet-mode capture, checked with check-capture.py --roce)
Exit status 0 only if the guest test and the capture check both pass.
"""
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def opt(argv, name):
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def run(cmd):
    """Run a child; a SIGTERM (meson's timeout) is passed on to it (guest-run.py then stops
    its QEMU processes) before this script exits."""
    child = subprocess.Popen(cmd)

    def on_term(*_):
        child.terminate()
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
        sys.exit(1)
    old = signal.signal(signal.SIGTERM, on_term)
    try:
        return child.wait()
    finally:
        signal.signal(signal.SIGTERM, old)


def main():
    argv = sys.argv[1:]
    roce = "--roce" in argv
    argv = [a for a in argv if a != "--roce"]
    if opt(argv, "--test") is None:
        argv = ["--test", str(REPO / "guest-tests" / "capture.sh")] + argv
    log_dir = opt(argv, "--log-dir")
    if log_dir is None:
        log_dir = str(REPO / "build" / "guest-logs" / "capture")
        argv += ["--log-dir", log_dir]
    log_dir = Path(log_dir).resolve()
    log_dir.mkdir(parents=True, exist_ok=True)
    pcaps = [log_dir / f"fab-{i}.pcap" for i in (0, 1)]
    for p in pcaps:                       # never check a stale capture
        p.unlink(missing_ok=True)

    t0 = time.monotonic()
    rc = run([sys.executable, str(REPO / "scripts" / "guest-run.py")] + argv)
    t1 = time.monotonic()
    if rc != 0:
        print(f"capture-test: FAIL: the guest test failed (exit {rc}); logs in {log_dir}")
        return 1
    missing = [str(p) for p in pcaps if not p.is_file()]
    if missing:
        print(f"capture-test: FAIL: no capture written: {', '.join(missing)}")
        return 1
    rc = run([sys.executable, str(REPO / "scripts" / "check-capture.py"),
              "--serial", str(log_dir / "serial-0.log")] + (["--roce"] if roce else []) +
             [str(p) for p in pcaps])
    print(f"capture-test: {'PASS' if rc == 0 else 'FAIL'} (guests {t1 - t0:.0f}s, "
          f"check {time.monotonic() - t1:.1f}s; logs and pcaps in {log_dir})")
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
