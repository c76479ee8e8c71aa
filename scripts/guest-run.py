#!/usr/bin/env python3
"""guest-run.py - boot QEMU guest(s) with the mlx5-hca device and run one guest test in them.

Usage:
  scripts/guest-run.py --test guest-tests/probe.sh [--instances 1..4] [--timeout 300]
                       [--qemu build/qemu/qemu-system-x86_64] [--firmware DIR]
                       [--kernel build/guest/vmlinuz --initrd build/guest/base.cpio]
                       [--log-dir build/guest-logs/NAME] [--extra-device-args PROPS]
                       [--extra-qemu-args ARGS] [--append ARGS] [--allow REGEX]...
                       [--add-file PATH]...
                       [--no-hca] [--fabric-nic I=KIND,...] [--shell] [--ssh [PORT]]
                       [--verbose] [--print-output]

What it does:
  * builds a small cpio with the test as /test/run.sh plus guest-tests/lib/* as /test/lib/*,
    appends it to base.cpio (the kernel unpacks concatenated archives) -> the guest initrd;
  * boots N instances: q35, 1 vCPU, 1 GiB, serial console to LOGDIR/serial-I.log, each with one
    `-device mlx5-hca,netdev=fab0,mac=02:4d:58:35:00:0<I+1>` (the device derives its node GUID
    and LID from the MAC). The fabric netdev is a lone hub port for 1 instance, and for 2
    instances a `-netdev stream` unix socket (instance 0 listens, instance 1 connects with
    reconnect); for 3 or 4 instances a VDE switch (Debian's vde_switch, one process per run,
    its socket in a private temporary directory) with every instance's HCA on one of its ports,
    a real learning switch between separate QEMU processes, nothing leaving the machine.
    With 2 instances each also gets a management virtio-net NIC on a second stream
    socket; the guest /init gives it 10.0.0.(I+1)/24 and exports PEER_IP to the test;
  * with --fabric-nic (or `# mlx5t-fabric-nic:`) an instance can have a virtio-net NIC on the
    fabric netdev fab0 in place of its mlx5-hca: `-device virtio-net-pci,netdev=fab0,
    mac=02:4d:52:00:00:<I+1>` (e.g. for Linux Soft-RoCE, rdma_rxe, beside or against the HCA
    of the other instance, which sees the same frames). Every instance is told its kind on the
    kernel command line (mlx5t.fabric=hca|virtio|none); /init exports it as FABRIC_NIC and
    the virtio NIC's interface name (found by that MAC) as FABRIC_IF;
  * with --ssh (or `# mlx5t-ssh: check`), instance 0 also gets QEMU user networking (slirp):
    `-netdev user,restrict=on,hostfwd=tcp:127.0.0.1:PORT-:22` on a virtio-net NIC with MAC
    02:4d:55:00:00:01; the guest takes slirp's DHCP lease (10.0.2.15) and runs dropbear with a
    key pair made for this run (LOGDIR/ssh-key), so `ssh -p PORT -i LOGDIR/ssh-key
    root@127.0.0.1` reaches it (PORT: a free one unless given; the command is printed);
  * waits for all instances (--timeout seconds in all; QEMU is killed on expiry -> FAIL), keeps
    each serial log, QEMU's stderr and the exact command lines (LOGDIR/cmdline-I.txt);
  * PASS only if every instance printed "@@MLX5T RESULT PASS" and its dmesg (dumped by /init
    between "@@MLX5T DMESG BEGIN/END") has no line matching FAIL_PATTERNS below, except lines
    matching a test's allowed patterns. Exit status 0 on PASS, 1 on FAIL (also when QEMU, the
    kernel or the initrd is missing: CI must not skip silently), 2 on bad usage.

Test files may carry directives in comment lines (command-line options win):
  # mlx5t-instances: 2          number of guests
  # mlx5t-timeout: 600          seconds for the whole run
  # mlx5t-allow: REGEX          a dmesg line matching REGEX is expected/benign (repeatable)
  # mlx5t-qemu-args: ARGS       extra QEMU arguments for every instance
  # mlx5t-tcg-thread: single    under TCG, one thread runs all of a guest's vCPUs (-accel
                                tcg,thread=single) instead of one thread per vCPU
  # mlx5t-device-args: PROPS    extra mlx5-hca properties, e.g. link-type=eth
  # mlx5t-hca: no               boot without the mlx5-hca device (image/runner self-tests)
  # mlx5t-fabric-nic: 1=virtio  what instances have on the fabric netdev fab0 instead of the
                                default: a list (commas or blanks) of I=KIND, I an instance
                                index or `all`, KIND `hca` (the mlx5-hca; the default, `none`
                                with `mlx5t-hca: no`), `virtio` (a virtio-net NIC with MAC
                                02:4d:52:00:00:<I+1>) or `none`; later items win, e.g.
                                `all=virtio` (Soft-RoCE on both) or `1=virtio` (HCA vs rxe).
                                The fabric netdev exists on every instance when any has a NIC
                                on it; mlx5t-device-args apply to the HCAs only
  # mlx5t-reboot: yes           a guest reboot restarts the guest (no -no-reboot): the test runs
                                again from the start in the new boot and must tell the boots
                                apart itself; console kernel messages of the earlier boots
                                (their shutdown) are judged like the last boot's dmesg
  # mlx5t-retry-if: REGEX       if the run fails and a serial log matches REGEX (a known
                                failure of a guest program, e.g. perftest's clock calibration),
                                run the test once more; the first attempt's logs are kept in
                                LOGDIR/attempt-1
  # mlx5t-ssh: check            --ssh, and the runner itself logs in from the host once the
                                guest says "@@MLX5T SSH READY": it runs `hostname`, reads the
                                guest's boot id and writes a nonce to /tmp/mlx5t-ssh-nonce,
                                which the test must print as "ssh-nonce NONCE"; the run fails
                                unless the login worked and the nonce came back

Environment (for every run, e.g. all the runs of a meson test suite; scripts/coverage.sh):
  MLX5T_APPEND=ARGS      extra kernel command line arguments for every instance, after --append
  MLX5T_COV_DIR=DIR      write each instance's driver-coverage section (the guest's
                         "@@MLX5T COV BEGIN/END", with mlx5t.cov=1) to DIR/LOGDIRNAME-I.cov,
                         headed by the test, the port type and the verdict

Host actions: a guest line "@@MLX5T HOST ACTION ARGS" makes the runner act on the host (each
is logged and its outcome written to LOGDIR/host-actions.txt); the runner answers on the guest's
second serial port (ttyS1) with "@@MLX5T ACK ok|fail MESSAGE", which lib/common.sh's host_do
waits for:
  restart I              kill instance I's QEMU (SIGKILL: a peer dying mid-transfer) and boot it
                         again with the same command line plus mlx5t.restart=K (K = 1, 2, ...);
                         with 2 instances only I = 1 (instance 0 owns the sockets the other
                         reconnects to). The killed run's serial log is kept as
                         serial-I.killed-K.log; the verdict reads the last run's.
  link I on|off          set instance I's fabric link (QMP set_link on netdev fab0)
  inject I REQUEST...    fault injection: QMP qom-set of instance I's mlx5-hca (id "hca")
                         property "inject" to REQUEST (docs/user-guide.md); the answer
                         lists what is armed afterwards (qom-get)
  hmp I COMMAND...       an HMP command on instance I (human-monitor-command); fails if its
                         output starts with "Error"
  rss I LABEL            record instance I's QEMU's own resident memory under LABEL (its mappings
                         under 256 MiB: not the guest's RAM or TCG's translation buffer)
  rss-check I A B KIB    FAIL the run if that grew by more than KIB from label A to B
                         (on an ASan build only reported: ASan's quarantine keeps up to 256 MiB
                         of freed memory, so RSS moves by megabytes either way; LeakSanitizer
                         checks for leaks when QEMU exits instead)

In the QEMU arguments of --extra-qemu-args and of `# mlx5t-qemu-args:`, {idx} becomes the
instance index (0, 1) and {logdir} the log directory, so each instance can get its own files:
  # mlx5t-qemu-args: -object filter-dump,id=cap0,netdev=fab0,file={logdir}/fab-{idx}.pcap

Environment:
  MLX5T_ACCEL=tcg|kvm|auto   accelerator (default auto: KVM only if a probe boot with it works,
                             the result is cached in build/.mlx5t-accel-probe.json; else TCG)
"""

import argparse
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Kernel log lines that fail a test. Each entry is (description, regex); a line of an instance's
# dmesg that matches any of them fails the run unless it also matches one of the test's allowed
# patterns (# mlx5t-allow: / --allow) or ALLOWED_PATTERNS. Searched case-insensitively.
_DRIVER = r"(mlx5_core|mlx5_ib|mlx5_\d|infiniband|ib_core|ib_uverbs|ib_umad|ib_ipoib|ib_cm|rdma_cm|ib\d+:)"
FAIL_PATTERNS = [
    ("kernel warning", r"WARNING:"),
    ("kernel bug", r"\bBUG[: ]"),
    ("kernel oops", r"\bOops\b"),
    ("stack trace", r"Call Trace"),
    ("warn/bug banner", r"cut here"),
    ("kernel panic", r"Kernel panic"),
    ("general protection fault", r"general protection fault"),
    ("bad memory access", r"unable to handle (kernel|page)"),
    ("lockup", r"soft lockup|hard lockup|blocked for more than \d+ seconds|rcu.*stall"),
    ("driver error", _DRIVER + r".*(fail|error|timeout|timed out|syndrome|health compromised"
                               r"|assert|bad (param|state)|unrecognized|unknown cmd)"),
]
# Patterns that are benign for every test (a false positive of FAIL_PATTERNS).
ALLOWED_PATTERNS = [
    r"ib_ipoib: .*module verification failed",   # unsigned out-of-tree builds (OVERRIDE_KO)
    r"module verification failed: signature and/or required key missing",
]

# QEMU's own stderr (qemu-I.stderr): a sanitizer report there fails the run. Only the build of
# `scripts/build-qemu.sh --sanitize` prints them (ASan, LeakSanitizer at exit, UBSan).
SANITIZER_PATTERNS = [r"ERROR: (Address|Leak)Sanitizer", r"runtime error:",
                      r"SUMMARY: \w+Sanitizer"]
# A sanitizer QEMU's options unless the caller sets its own: reports with stack traces, leaks
# checked when QEMU exits (the runner ends instances with SIGTERM, so they exit normally).
SANITIZER_ENV = {"ASAN_OPTIONS": "detect_leaks=1:print_summary=1",
                 "UBSAN_OPTIONS": "print_stacktrace=1:print_summary=1"}

HCA_MAC = "02:4d:58:35:00:{:02x}"    # locally administered; last byte = instance index + 1
FABRIC_VIRTIO_MAC = "02:4d:52:00:00:{:02x}"   # virtio-net on the fabric (--fabric-nic), see /init
FABRIC_KINDS = ("hca", "virtio", "none")
MGMT_MAC = "02:4d:47:00:00:{:02x}"
USER_MAC = "02:4d:55:00:00:{:02x}"   # QEMU user networking (slirp), see /init
MARK = "@@MLX5T"
MAX_INSTANCES = 4        # /etc/hosts of the image names guest0..guest3
PROBE_CACHE = REPO / "build" / ".mlx5t-accel-probe.json"


def log(msg):
    sys.stdout.flush()
    print(f"guest-run: {msg}", file=sys.stderr, flush=True)


# ---- initrd -----------------------------------------------------------------------------------
def _newc_entry(name, mode, data=b"", ino=1):
    """One newc (070701) cpio member."""
    name_b = name.encode() + b"\0"
    hdr = "070701" + "".join(f"{v:08x}" for v in (
        ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
    out = hdr.encode() + name_b
    out += b"\0" * (-len(out) % 4)
    out += data + b"\0" * (-len(data) % 4)
    return out


def make_test_cpio(test, lib_dir, extra=()):
    """cpio with /test/run.sh, /test/lib/* and the extra (name, data, mode) members
    (directories listed before their files)."""
    files = [("test/run.sh", test.read_bytes(), 0o100755)] + list(extra)
    if lib_dir.is_dir():
        for p in sorted(lib_dir.rglob("*")):
            if p.is_file():
                files.append(("test/lib/" + p.relative_to(lib_dir).as_posix(),
                              p.read_bytes(), 0o100755 if os.access(p, os.X_OK) else 0o100644))
    dirs = sorted({str(Path(n).parents[i]) for n, _, _ in files
                   for i in range(len(Path(n).parents) - 1)})
    out, ino = b"", 1000
    for d in dirs:
        out += _newc_entry(d, 0o040755, ino=ino)
        ino += 1
    for name, data, mode in files:
        out += _newc_entry(name, mode, data, ino=ino)
        ino += 1
    out += _newc_entry("TRAILER!!!", 0, ino=0)
    return out + b"\0" * (-len(out) % 512)


# ---- QEMU ---------------------------------------------------------------------------------------
def qemu_version(qemu):
    try:
        out = subprocess.run([qemu, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return (0, 0)
    m = re.search(r"version (\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def stream_netdev(ident, path, server, version):
    """-netdev stream over a unix socket; the client reconnects (option added in QEMU 8.0 as
    reconnect=SECONDS, replaced by reconnect-ms in 9.2, the old name removed later)."""
    s = f"stream,id={ident},addr.type=unix,addr.path={path},server={'on' if server else 'off'}"
    if not server:
        if version >= (9, 2):
            s += ",reconnect-ms=500"
        elif version >= (8, 0):
            s += ",reconnect=1"
    return s


def asan_build(qemu):
    """Whether @qemu is linked with the ASan runtime (scripts/build-qemu.sh --sanitize)."""
    try:
        out = subprocess.run(["ldd", qemu], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "libasan" in out


def start_switch(path, log_file):
    """A VDE switch (vde_switch from Debian's vde2: scripts/host-deps.sh test) serving on @path.
    Its console reads stdin: a pipe that stays open keeps it running until it is stopped."""
    if not shutil.which("vde_switch"):
        subprocess.run(["bash", str(REPO / "scripts" / "host-deps.sh"), "test"],
                       stdin=subprocess.DEVNULL)
    p = subprocess.Popen(["vde_switch", "-s", str(path), "-n", "16"], stdin=subprocess.PIPE,
                         stdout=log_file, stderr=log_file, start_new_session=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and p.poll() is None and not (path / "ctl").exists():
        time.sleep(0.05)
    if not (path / "ctl").exists():
        p.kill()
        raise RuntimeError(f"vde_switch did not start on {path} (exit {p.poll()})")
    return p


def own_rss(pid):
    """QEMU's own resident memory in KiB: the resident pages of its heap and of its other
    mappings smaller than 256 MiB (the threads' malloc arenas among them). That leaves out the
    guest's RAM (1 GiB and up, where the guest touching a new transparent huge page adds 2 MiB
    at once) and TCG's translation buffer, neither of which a leak in the device grows."""
    total, counted = 0, False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
            if m:
                size = int(m.group(2), 16) - int(m.group(1), 16)
                counted = size < (256 << 20) or line.rstrip().endswith("[heap]")
            elif line.startswith("Rss:") and counted:
                total += int(line.split()[1])
    return total


def base_cmd(args, accel, reboot=False):
    cmd = [args.qemu]
    if args.firmware:
        cmd += ["-L", args.firmware]
    cmd += ["-no-user-config", "-nodefaults", "-nographic", "-monitor", "none"]
    if not reboot:
        cmd += ["-no-reboot"]
    cmd += ["-M", "q35", "-accel", accel, "-cpu", "max", "-m", "1G", "-smp", "1"]
    return cmd


def kernel_append(extra):
    # loglevel=5: only warnings and errors reach the console while the test runs (the complete
    # log is dumped at the end); panic=-1 + -no-reboot turn a kernel panic into a QEMU exit.
    # no_timer_check: the IO-APIC timer test of early boot times the emulated 8254 and, on a
    # loaded host under TCG, reports "..MP-BIOS bug: 8254 timer not connected to IO-APIC"
    # (then falls back and works), which the dmesg check rightly counts as a kernel bug line;
    # virtual machines skip that test (as cloud images do).
    return " ".join(["console=ttyS0,115200", "loglevel=5", "panic=-1", "mitigations=off",
                     "random.trust_cpu=on", "no_timer_check"] + extra)


def probe_accel(args):
    """Return 'kvm' only if MLX5T_ACCEL says so or a quick KVM probe boot succeeds."""
    want = os.environ.get("MLX5T_ACCEL", "auto").strip().lower() or "auto"
    if want in ("tcg", "kvm"):
        return want, f"MLX5T_ACCEL={want}"
    if want != "auto":
        log(f"ignoring MLX5T_ACCEL={want!r} (want tcg, kvm or auto)")
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg", "no usable /dev/kvm"
    key = {"qemu": os.path.realpath(args.qemu), "kernel": os.path.realpath(args.kernel)}
    key["stamp"] = [os.stat(key["qemu"]).st_mtime, os.stat(key["kernel"]).st_mtime]
    try:
        cached = json.loads(PROBE_CACHE.read_text())
        if cached.get("key") == key:
            return cached["accel"], f"cached KVM probe: {cached['why']}"
    except (OSError, ValueError, KeyError):
        pass
    with tempfile.TemporaryDirectory(prefix="mlx5t-probe-") as tmp:
        serial = Path(tmp) / "serial.log"
        cmd = base_cmd(args, "kvm") + [
            "-serial", f"file:{serial}", "-kernel", args.kernel, "-initrd", args.initrd,
            "-append", kernel_append(["mlx5t.probe=1"])]
        t0 = time.monotonic()
        try:
            r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
            ok = r.returncode == 0 and f"{MARK} RESULT PASS" in serial.read_text(errors="replace")
            why = f"probe boot {'passed' if ok else 'failed'} (exit {r.returncode}) in {time.monotonic() - t0:.1f}s"
            err = r.stderr.decode(errors="replace").strip().splitlines()
            if not ok and err:
                why += f": {err[0][:160]}"
        except subprocess.TimeoutExpired:
            ok, why = False, "probe boot timed out after 60s"
        except OSError as e:
            ok, why = False, f"probe could not start QEMU: {e}"
    accel = "kvm" if ok else "tcg"
    try:
        PROBE_CACHE.parent.mkdir(parents=True, exist_ok=True)
        PROBE_CACHE.write_text(json.dumps({"key": key, "accel": accel, "why": why}, indent=1))
    except OSError:
        pass
    return accel, f"KVM {why}"


# ---- log analysis -------------------------------------------------------------------------------
def qmp(path, command):
    """Run one QMP command on the socket at @path; raise RuntimeError on an error reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sk:
        sk.settimeout(10)
        sk.connect(str(path))
        f = sk.makefile("rw")
        json.loads(f.readline())                            # greeting
        for cmd in ({"execute": "qmp_capabilities"}, command):
            f.write(json.dumps(cmd) + "\n")
            f.flush()
            while True:
                reply = json.loads(f.readline())
                if "event" not in reply:
                    break
            if "error" in reply:
                raise RuntimeError(reply["error"].get("desc", str(reply)))
        return reply


def sanitizer_reports(path):
    """The lines of a QEMU stderr file that are sanitizer reports (as failure reasons)."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return []
    res = [re.compile(p) for p in SANITIZER_PATTERNS]
    bad = [line for line in lines if any(r.search(line) for r in res)]
    return [f"sanitizer report in {path.name}: {line.strip()}" for line in bad[:5]]


def section(text, begin, end):
    """Lines between the first line starting with `begin` and the next starting with `end`;
    None if `begin` is absent; (lines, complete?)"""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(begin):
            for j in range(i + 1, len(lines)):
                if lines[j].startswith(end):
                    return lines[i + 1:j], True
            return lines[i + 1:], False
    return None, False


KMSG_LINE = re.compile(r"^\[\s*\d+\.\d+\] ")


def write_coverage(cov_dir, log_dir, name, cmds, summary):
    """MLX5T_COV_DIR: each instance's coverage section as DIR/LOGDIRNAME-I.cov."""
    cov_dir.mkdir(parents=True, exist_ok=True)
    for i, passed, _, _, text, _ in summary:
        lines, complete = section(text, f"{MARK} COV BEGIN", f"{MARK} COV END")
        if lines is None:
            continue
        if not any("mlx5-hca" in a for a in cmds[i]):
            continue            # a virtio-net instance: nothing of mlx5 ran there
        port = "eth" if any("link-type=eth" in a for a in cmds[i]) else "ib"
        lost = re.search(rf"^{MARK} COV BEGIN (lost=\d+)", text, re.M)
        body = [ln for ln in lines if ln.startswith(("hit ", "fn "))]
        (cov_dir / f"{log_dir.name}-{i}.cov").write_text(
            f"test {name} {log_dir.name}\nport {port}\nresult {'PASS' if passed else 'FAIL'}\n"
            f"complete {int(complete)}\n{lost.group(1) if lost else 'lost=?'}\n"
            + "\n".join(body) + "\n")


def analyse(serial_text, allowed):
    """-> (result 'PASS'/'FAIL'/None, list of failure reasons, list of bad dmesg lines)"""
    reasons, bad = [], []
    m = re.findall(rf"^{MARK} RESULT (\w+)", serial_text, re.M)
    result = m[-1] if m else None
    dmesg, complete = section(serial_text, f"{MARK} DMESG BEGIN", f"{MARK} DMESG END")
    if dmesg is None:
        # no dmesg dump (crash/hang): judge the kernel messages that reached the console
        dmesg = [ln for ln in serial_text.splitlines() if KMSG_LINE.match(ln)]
        reasons.append("no dmesg dump from the guest (crashed, hung or killed?)")
    elif not complete:
        reasons.append("dmesg dump is truncated")
    boots = [i for i, ln in enumerate(serial_text.splitlines()) if ln.startswith(f"{MARK} BOOTED")]
    if len(boots) > 1:
        # earlier boots of a rebooting test: their console messages (warnings and errors, from
        # their test and their shutdown) count too
        earlier = serial_text.splitlines()[:boots[-1]]
        dmesg = [ln for ln in earlier if KMSG_LINE.match(ln)] + list(dmesg)
    fail_res = [(d, re.compile(p, re.I)) for d, p in FAIL_PATTERNS]
    allow_res = [re.compile(p, re.I) for p in ALLOWED_PATTERNS + allowed]
    for line in dmesg:
        for desc, rx in fail_res:
            if rx.search(line) and not any(a.search(line) for a in allow_res):
                bad.append(f"{desc}: {line.strip()}")
                break
    if bad:
        reasons.append(f"{len(bad)} bad kernel log line(s)")
    return result, reasons, bad


def test_output(serial_text):
    out, _ = section(serial_text, f"{MARK} TEST BEGIN", f"{MARK} TEST END")
    return out or []


# ---- ssh into a guest through QEMU user networking ----------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ssh_keypair(log_dir):
    """A fresh ed25519 key pair LOGDIR/ssh-key{,.pub} (ssh-keygen: scripts/host-deps.sh user-net)."""
    key = log_dir / "ssh-key"
    for f in (key, key.with_suffix(".pub")):
        f.unlink(missing_ok=True)
    if not shutil.which("ssh-keygen"):
        subprocess.run(["bash", str(REPO / "scripts" / "host-deps.sh"), "user-net"],
                       stdin=subprocess.DEVNULL)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "mlx5t-guest-run",
                    "-f", str(key)], check=True, stdin=subprocess.DEVNULL)
    return key


def ssh_cmd(port, key, remote=None):
    cmd = ["ssh", "-p", str(port), "-i", str(key), "-o", "StrictHostKeyChecking=no",
           "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
           "-o", "ConnectTimeout=60", "root@127.0.0.1"]
    return cmd + ([remote] if remote else [])


class SshCheck:
    """The host side of `# mlx5t-ssh: check`: one login into instance 0 through hostfwd."""

    def __init__(self, port, key):
        self.port, self.key, self.nonce = port, key, secrets.token_hex(8)
        self.thread, self.result = None, None

    def start(self):
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()

    def _run(self):
        remote = ("hostname; cat /proc/sys/kernel/random/boot_id; "
                  f"echo {self.nonce} > /tmp/mlx5t-ssh-nonce")
        t0 = time.monotonic()
        try:
            r = subprocess.run(ssh_cmd(self.port, self.key, remote), stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=180)
            self.result = (r.returncode, r.stdout, r.stderr, time.monotonic() - t0)
        except (OSError, subprocess.TimeoutExpired) as e:
            self.result = (None, "", str(e), time.monotonic() - t0)

    def verdict(self, guest_output):
        """-> list of failure reasons (empty: the login worked and the guest saw the nonce)."""
        if self.thread is None:
            return ["the guest never said '@@MLX5T SSH READY' (no sshd or no user network)"]
        self.thread.join(timeout=5)
        if self.result is None:
            return ["ssh from the host did not finish"]
        rc, out, err, secs = self.result
        lines = out.split()
        log(f"ssh -p {self.port} root@127.0.0.1 (hostfwd): exit {rc} in {secs:.1f}s, "
            f"output {' '.join(lines)[:120]!r}")
        reasons = []
        if rc != 0:
            reasons.append(f"ssh from the host failed (exit {rc}): {err.strip()[-300:]}")
        elif not lines or lines[0] != "guest0":
            reasons.append(f"ssh reached something that is not guest0: {out.strip()[:200]!r}")
        if not any(f"ssh-nonce {self.nonce}" in ln for ln in guest_output):
            reasons.append("the guest test did not print the nonce the ssh session wrote")
        return reasons


# ---- main ---------------------------------------------------------------------------------------
def expand_instance(word, idx, log_dir):
    """{idx} -> instance index, {logdir} -> log directory in one extra QEMU argument (plain
    replacement: other braces, e.g. JSON object arguments, stay as they are)."""
    return word.replace("{idx}", str(idx)).replace("{logdir}", str(log_dir))


def parse_fabric_nics(spec, n, default):
    """--fabric-nic / `# mlx5t-fabric-nic:` SPEC -> one kind per instance ('hca', 'virtio' or
    'none'), starting from @default; ValueError on a bad item"""
    kinds = [default] * n
    for item in re.split(r"[,\s]+", spec.strip()):
        if not item:
            continue
        idx, sep, kind = item.partition("=")
        kind = kind.strip().lower()
        if not sep or kind not in FABRIC_KINDS:
            raise ValueError(f"{item!r}: want I=KIND with KIND one of {', '.join(FABRIC_KINDS)}")
        if idx.strip().lower() == "all":
            kinds = [kind] * n
        elif idx.strip().isdigit() and int(idx) < n:
            kinds[int(idx)] = kind
        else:
            raise ValueError(f"{item!r}: no instance {idx.strip()!r} (0..{n - 1} or all)")
    return kinds


def read_directives(test):
    d = {"allow": [], "qemu-args": []}
    for line in test.read_text(errors="replace").splitlines():
        m = re.match(r"^#\s*mlx5t-([a-z-]+):\s*(.*?)\s*$", line)
        if not m:
            continue
        k, v = m.groups()
        if k in ("allow", "qemu-args"):
            d[k].append(v)
        else:
            d[k] = v
    return d


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--test", required=True, help="guest test script (runs as /test/run.sh)")
    ap.add_argument("--instances", type=int, choices=range(1, MAX_INSTANCES + 1),
                    help="number of guests (default 1)")
    ap.add_argument("--timeout", type=float, help="seconds for the whole run (default 300)")
    ap.add_argument("--qemu", default=str(REPO / "build/qemu/qemu-system-x86_64"))
    ap.add_argument("--firmware", help="firmware dir for -L (default: firmware/ beside --qemu, if any)")
    ap.add_argument("--kernel", default=str(REPO / "build/guest/vmlinuz"))
    ap.add_argument("--initrd", default=str(REPO / "build/guest/base.cpio"))
    ap.add_argument("--log-dir", help="default build/guest-logs/<test name>")
    ap.add_argument("--extra-device-args", default="",
                    help="extra properties for -device mlx5-hca, e.g. 'foo=1,bar=2'")
    ap.add_argument("--extra-qemu-args", default="",
                    help="extra QEMU arguments (shell words; {idx} and {logdir} are substituted)")
    ap.add_argument("--append", default="", help="extra kernel command line arguments")
    ap.add_argument("--allow", action="append", default=[], help="benign dmesg regex (repeatable)")
    ap.add_argument("--no-hca", action="store_true", help="boot without the mlx5-hca device")
    ap.add_argument("--fabric-nic", metavar="I=KIND,...",
                    help="per instance, what is on the fabric netdev: hca, virtio (virtio-net "
                         "NIC, MAC 02:4d:52:00:00:<I+1>, e.g. for rdma_rxe) or none; I may be "
                         "'all' (replaces `# mlx5t-fabric-nic:`)")
    ap.add_argument("--shell", action="store_true",
                    help="interactive: 1 instance, serial on this terminal, mlx5t.shell=1")
    ap.add_argument("--add-file", action="append", default=[], metavar="PATH",
                    help="a host file the guest gets as /test/files/<its name>")
    ap.add_argument("--ssh", nargs="?", type=int, const=0, default=None, metavar="PORT",
                    help="QEMU user networking on instance 0 with hostfwd 127.0.0.1:PORT -> "
                         "guest port 22 and dropbear in the guest (PORT 0 or none: a free one)")
    ap.add_argument("--verbose", "-v", action="store_true", help="stream the serial consoles")
    ap.add_argument("--keep-initrd", action="store_true",
                    help="keep the combined initrd in the log dir (to rerun a cmdline-I.txt)")
    ap.add_argument("--print-output", action="store_true",
                    help="print each instance's test output (without kernel lines) at the end")
    return ap.parse_args()


def default_log_dir(args, test):
    return Path(args.log_dir or REPO / "build/guest-logs" / test.stem).resolve()


def main():
    args = parse_args()
    test = Path(args.test).resolve()
    if not test.is_file():
        log(f"FAIL: test {args.test} not found")
        return 1
    name = test.stem
    direc = read_directives(test)
    n = args.instances or int(direc.get("instances", 1))
    timeout = args.timeout or float(direc.get("timeout", 300))
    allowed = direc["allow"] + args.allow
    no_hca = args.no_hca or direc.get("hca", "yes").lower() in ("no", "0", "false")
    try:
        fabric_kinds = parse_fabric_nics(
            args.fabric_nic if args.fabric_nic is not None else direc.get("fabric-nic", ""),
            n, "none" if no_hca else "hca")
    except ValueError as e:
        log(f"bad fabric NIC list: {e}")
        return 2
    # the fabric netdev: on every instance when any has a NIC on it (instance 0 owns the stream
    # socket even if it has none), on none otherwise
    fabric = any(k != "none" for k in fabric_kinds)
    log_dir = default_log_dir(args, test)
    ssh_check = direc.get("ssh", "").lower() == "check"
    if ssh_check and args.ssh is None:
        args.ssh = 0

    for what, path in (("QEMU binary", args.qemu), ("guest kernel", args.kernel),
                       ("guest initramfs", args.initrd)):
        if not os.path.isfile(path):
            hint = "scripts/build-qemu.sh" if what == "QEMU binary" else "scripts/build-image.sh"
            log(f"FAIL {name}: {what} {path} is missing (run {hint})")
            return 1
    if args.firmware is None:
        fw = Path(os.path.abspath(args.qemu)).parent / "firmware"   # not resolve(): a symlink
        args.firmware = str(fw) if fw.is_dir() else None

    accel, why = probe_accel(args)
    version = qemu_version(args.qemu)

    log_dir.mkdir(parents=True, exist_ok=True)
    for pattern in ("serial-*.log", "dmesg-*.txt", "cmdline-*.txt", "qemu-*.stderr",
                    "result.txt", "test.cpio", "initrd.cpio"):    # only our own old files
        for old in log_dir.glob(pattern):
            old.unlink()
    sock_dir = tempfile.TemporaryDirectory(prefix="mlx5t-")   # short paths for unix sockets
    initrd = (log_dir if args.keep_initrd else Path(sock_dir.name)) / "initrd.cpio"
    extra, ssh = [], None
    for path in args.add_file:
        extra.append((f"test/files/{Path(path).name}", Path(path).read_bytes(), 0o100644))
    if args.ssh is not None:
        key = ssh_keypair(log_dir)
        ssh_port = args.ssh or free_port()
        extra.append(("test/ssh/authorized_keys", key.with_suffix(".pub").read_bytes(), 0o100644))
        ssh = SshCheck(ssh_port, key) if ssh_check else None
    test_cpio = make_test_cpio(test, REPO / "guest-tests" / "lib", extra)
    (log_dir / "test.cpio").write_bytes(test_cpio)
    with open(initrd, "wb") as f, open(args.initrd, "rb") as base:
        while chunk := base.read(1 << 20):
            f.write(chunk)
        f.write(b"\0" * (-f.tell() % 4))
        f.write(test_cpio)

    guest_timeout = max(30, int(timeout - 60))
    procs, cmds, serials, appends, ctl_fds = [], [], [], [], []
    qemu_env = {**SANITIZER_ENV, **os.environ}
    fab_sock = Path(sock_dir.name) / "fabric.sock"
    mgmt_sock = Path(sock_dir.name) / "mgmt.sock"
    switches = []
    asan = asan_build(args.qemu)
    if n >= 3 and asan:
        # libvdeplug loads its plugin with dlopen(RTLD_DEEPBIND), which the ASan runtime refuses
        # (it aborts QEMU at -netdev vde): 3-4 instance tests cannot run on the sanitizer build
        log(f"SKIP {name}: -netdev vde (3+ instances) cannot run under AddressSanitizer")
        (log_dir / "result.txt").write_text("SKIP\n")
        return 77                       # meson: skipped
    if n >= 3:
        sw_log = open(log_dir / "vde_switch.log", "wb")
        try:
            for what in (("fabric", "mgmt") if fabric else ("mgmt",)):
                switches.append(start_switch(Path(sock_dir.name) / f"{what}.vde", sw_log))
        except (OSError, RuntimeError) as e:
            for sw in switches:
                sw.kill()
            log(f"FAIL {name}: {e}")
            return 1
    for i in range(n):
        serial = log_dir / f"serial-{i}.log"
        serials.append(serial)
        append = [f"mlx5t.idx={i}", f"mlx5t.n={n}", f"mlx5t.timeout={guest_timeout}",
                  f"mlx5t.fabric={fabric_kinds[i]}"]
        if args.shell:
            append.append("mlx5t.shell=1")
        if args.ssh is not None and i == 0:
            append.append("mlx5t.ssh=1")
        if args.append:
            append += shlex.split(args.append)
        append += shlex.split(os.environ.get("MLX5T_APPEND", ""))
        # (a test's guests with several vCPUs under TCG may ask for one TCG thread for them all)
        acc = accel
        if accel == "tcg" and direc.get("tcg-thread", "") == "single":
            acc = "tcg,thread=single"
        cmd = base_cmd(args, acc, direc.get("reboot", "").lower() in ("yes", "1", "true"))
        cmd += ["-serial", "mon:stdio" if args.shell else f"file:{serial}",
                "-kernel", args.kernel, "-initrd", str(initrd), "-append", kernel_append(append)]
        if fabric:
            if n == 1:
                cmd += ["-netdev", "hubport,id=fab0,hubid=0"]
            elif n == 2:
                cmd += ["-netdev", stream_netdev("fab0", fab_sock, i == 0, version)]
            else:
                cmd += ["-netdev", f"vde,id=fab0,sock={Path(sock_dir.name) / 'fabric.vde'}"]
        if fabric_kinds[i] == "hca":
            # behind a PCIe root port, as a real adapter in a slot (it then has a PCIe link)
            dev = f"mlx5-hca,id=hca,bus=rp0,netdev=fab0,mac={HCA_MAC.format(i + 1)}"
            for extra in (direc.get("device-args", ""), args.extra_device_args):
                if extra:
                    dev += "," + extra.lstrip(",")
            # as in a server's slot: no hot-plug, and the port reports its link active (the
            # ACPI hot-plug of q35 leaves Data Link Layer Link Active clear), which
            # fw_activate's link toggle waits for (docs/user-guide.md)
            cmd += ["-global", "ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off",
                    "-device", "pcie-root-port,id=rp0,chassis=1,slot=1,hotplug=off",
                    "-device", dev]
        elif fabric_kinds[i] == "virtio":
            # a plain NIC on the same fabric backend (the guest finds it by this MAC)
            cmd += ["-device", f"virtio-net-pci,romfile=,netdev=fab0,"
                               f"mac={FABRIC_VIRTIO_MAC.format(i + 1)}"]
        if n >= 2:
            mgmt = (stream_netdev("mgmt", mgmt_sock, i == 0, version) if n == 2 else
                    f"vde,id=mgmt,sock={Path(sock_dir.name) / 'mgmt.vde'}")
            cmd += ["-netdev", mgmt,
                    "-device", f"virtio-net-pci,romfile=,netdev=mgmt,mac={MGMT_MAC.format(i + 1)}"]
        if args.ssh is not None and i == 0:
            # restrict=on: the guest reaches nothing outside (slirp's DHCP and the forwarded
            # port still work)
            cmd += ["-netdev", f"user,id=unet,restrict=on,hostfwd=tcp:127.0.0.1:{ssh_port}-:22",
                    "-device", f"virtio-net-pci,romfile=,netdev=unet,mac={USER_MAC.format(i + 1)}"]
        for extra_args in direc["qemu-args"] + [args.extra_qemu_args]:
            cmd += [expand_instance(w, i, log_dir) for w in shlex.split(extra_args)]
        if not args.shell:
            cmd += ["-qmp", f"unix:{Path(sock_dir.name) / f'qmp-{i}.sock'},server=on,wait=off"]
            # the guest's second serial port (ttyS1) carries the runner's answers to host
            # actions: a pipe chardev on two FIFOs the runner holds open
            ctl = Path(sock_dir.name) / f"ctl-{i}"
            for end in (".in", ".out"):
                os.mkfifo(f"{ctl}{end}")
            ctl_fds.append((os.open(f"{ctl}.in", os.O_RDWR | os.O_NONBLOCK),
                            os.open(f"{ctl}.out", os.O_RDWR | os.O_NONBLOCK)))
            cmd += ["-chardev", f"pipe,id=hostctl,path={ctl}", "-serial", "chardev:hostctl"]
        cmds.append(cmd)
        appends.append(append)
        (log_dir / f"cmdline-{i}.txt").write_text(
            f"# initrd = {args.initrd} + test.cpio (kept here with --keep-initrd)\n"
            + shlex.join(cmd) + "\n")
        if args.shell:
            log(f"interactive shell: {shlex.join(cmd)}")
            if args.ssh is not None:
                log(f"from another terminal: {shlex.join(ssh_cmd(ssh_port, key))}")
            try:
                return subprocess.call(cmd)
            finally:
                for sw in switches:     # (3-4 instances: the switches started above)
                    sw.kill()
        stderr = open(log_dir / f"qemu-{i}.stderr", "wb")
        procs.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr,
                                      env=qemu_env,
                                      start_new_session=True))
        if i == 0 and n == 2:
            # let instance 0 create its listening sockets before instance 1 connects
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and procs[0].poll() is None and not (
                    mgmt_sock.exists() and (not fabric or fab_sock.exists())):
                time.sleep(0.1)
    kinds = "" if all(k == "hca" for k in fabric_kinds) else f", fabric {','.join(fabric_kinds)}"
    log(f"{name}: {n} instance(s){kinds}, accel {accel} ({why}), timeout {timeout:.0f}s, logs {log_dir}")

    # wait, streaming or just watching the serial logs for progress markers
    t0 = time.monotonic()
    offsets, partial, booted = [0] * n, [""] * n, [None] * n
    ssh_logged = [False]
    timed_out = False
    restarts = [0] * n
    rss = [dict() for _ in range(n)]
    action_failures = []
    actions_log = open(log_dir / "host-actions.txt", "w")

    def host_action(i, words):
        def done(msg, ok=True):
            line = f"[{time.monotonic() - t0:7.2f}s] instance {i}: {' '.join(words)}: {msg}"
            log(line)
            actions_log.write(line + "\n")
            actions_log.flush()
            if not ok:
                action_failures.append(f"host action {' '.join(words)}: {msg}")
            answer(i, f"{MARK} ACK {'ok' if ok else 'fail'} {msg}")
        try:
            what, j = words[0], int(words[1])
            if not 0 <= j < n:
                raise ValueError(f"no instance {j}")
            qmp_sock = Path(sock_dir.name) / f"qmp-{j}.sock"
            if what == "restart":
                if n == 2 and j == 0:
                    raise ValueError("instance 0 owns the sockets: only instance 1 restarts")
                procs[j].kill()
                procs[j].wait()
                pump_one(j)
                restarts[j] += 1
                serials[j].rename(log_dir / f"serial-{j}.killed-{restarts[j]}.log")
                offsets[j], partial[j] = 0, ""
                cmd = cmds[j]
                k = cmd.index("-append")
                cmd[k + 1] = kernel_append(appends[j] + [f"mlx5t.restart={restarts[j]}"])
                err = open(log_dir / f"qemu-{j}.stderr", "ab")
                procs[j] = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=err, env=qemu_env,
                                            stderr=err, start_new_session=True)
                done(f"killed and started again (pid {procs[j].pid})")
            elif what == "link":
                up = {"on": True, "off": False}[words[2]]
                qmp(qmp_sock, {"execute": "set_link", "arguments": {"name": "fab0", "up": up}})
                done("done")
            elif what == "inject":
                # fault injection (docs/user-guide.md): qom-set of the device's "inject"
                path = "/machine/peripheral/hca"
                qmp(qmp_sock, {"execute": "qom-set", "arguments": {
                    "path": path, "property": "inject", "value": " ".join(words[2:])}})
                armed = qmp(qmp_sock, {"execute": "qom-get", "arguments": {
                    "path": path, "property": "inject"}})["return"]
                done(f"armed: {armed or 'nothing'}")
            elif what == "hmp":
                out = qmp(qmp_sock, {"execute": "human-monitor-command",
                                     "arguments": {"command-line": " ".join(words[2:])}})["return"]
                out = " | ".join(out.strip().splitlines())
                done(f"output: {out or '(none)'}", not out.startswith("Error"))
            elif what == "rss":
                with open(f"/proc/{procs[j].pid}/status") as f:
                    kib = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
                own = own_rss(procs[j].pid)
                rss[j][words[2]] = own
                done(f"VmRSS {kib} KiB, of it QEMU's own {own} KiB")
            elif what == "rss-check":
                a, b, limit = rss[j][words[2]], rss[j][words[3]], int(words[4])
                msg = f"QEMU's own RSS {a} -> {b} KiB ({b - a:+d} KiB, limit +{limit} KiB)"
                if asan:
                    done(msg + ", not checked on an ASan build (LeakSanitizer checks at exit)")
                else:
                    done(msg, b - a <= limit)
            else:
                raise ValueError("unknown action")
        except (IndexError, KeyError, ValueError, OSError, RuntimeError) as e:
            done(f"failed: {e!r}", False)

    def answer(i, line):
        """Write @line to instance @i's second serial port (the guest's ttyS1)."""
        if i < len(ctl_fds):
            try:
                os.read(ctl_fds[i][1], 65536)       # drop what the guest wrote (nothing)
            except (BlockingIOError, OSError):
                pass
            try:
                os.write(ctl_fds[i][0], (line.replace("\n", " ") + "\n").encode())
            except OSError:
                pass

    def pump():
        for i in range(len(serials)):
            pump_one(i)

    def pump_one(i):
        s = serials[i]
        try:
            with open(s, "rb") as f:
                f.seek(offsets[i])
                data = f.read()
        except OSError:
            return
        offsets[i] += len(data)
        text = partial[i] + data.decode(errors="replace").replace("\r", "")
        lines = text.split("\n")
        partial[i] = lines.pop()
        for line in lines:
            if booted[i] is None and line.startswith(f"{MARK} BOOTED"):
                booted[i] = time.monotonic() - t0
            if line.startswith(f"{MARK} SSH READY") and i == 0:
                if ssh is not None:
                    ssh.start()
                elif args.ssh is not None and not ssh_logged[0]:
                    ssh_logged[0] = True
                    log(f"guest 0 is reachable: {shlex.join(ssh_cmd(ssh_port, key))}")
            if args.verbose:
                print(f"[{i}] {line}", flush=True)
            if line.startswith(f"{MARK} HOST "):
                host_action(i, line.split()[2:])

    def stop_all():
        for p in procs:
            if p.poll() is None:
                p.terminate()
        try:
            for p in procs:
                p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()

    def stop_switches():
        for sw in switches:
            if sw.poll() is None:
                sw.kill()
            sw.wait()

    aborted = None
    try:
        while any(p.poll() is None for p in procs):
            pump()
            if time.monotonic() - t0 > timeout:
                timed_out = True
                stop_all()
                break
            failed = [i for i, p in enumerate(procs) if p.poll() not in (None, 0)]
            if failed and any(p.poll() is None for p in procs):
                # one QEMU failed (bad option, crash): the others would only wait for their peer
                aborted = failed[0]
                stop_all()
                break
            time.sleep(0.2)
    except BaseException:          # Ctrl-C, meson's SIGTERM: QEMU runs in its own session
        stop_all()
        stop_switches()
        raise
    for p in procs:
        p.wait()
    stop_switches()
    pump()
    actions_log.close()
    for fds in ctl_fds:
        for fd in fds:
            os.close(fd)
    elapsed = time.monotonic() - t0
    sock_dir.cleanup()

    # verdict
    ok = True
    summary = []
    for i, p in enumerate(procs):
        text = serials[i].read_text(errors="replace").replace("\r", "") if serials[i].exists() else ""
        result, reasons, bad = analyse(text, allowed)
        if timed_out and result is None:
            reasons.insert(0, f"timed out after {timeout:.0f}s (QEMU killed)")
        if aborted is not None and i != aborted and result is None:
            reasons.insert(0, f"stopped because instance {aborted}'s QEMU failed")
        if p.returncode not in (0, None) and not timed_out and (aborted is None or i == aborted):
            err = (log_dir / f"qemu-{i}.stderr").read_text(errors="replace").strip()
            reasons.insert(0, f"QEMU exited with status {p.returncode}: {err[-600:]}")
        reasons += sanitizer_reports(log_dir / f"qemu-{i}.stderr")
        if ssh is not None and i == 0:
            reasons += ssh.verdict(test_output(text))
        if result is None and not timed_out and (aborted is None or i == aborted):
            reasons.insert(0, "no result marker (guest did not finish)")
        if i == 0:
            reasons += action_failures
        if result not in (None, "PASS"):
            # the test's own words (lib/common.sh's fail prints "FAIL: why")
            why = [ln.strip() for ln in test_output(text) if ln.startswith("FAIL")]
            reasons.insert(0, f"guest reported {result}" + (f": {why[-1][:300]}" if why else ""))
        passed = result == "PASS" and not reasons
        ok = ok and passed
        boot = f", booted in {booted[i]:.1f}s" if booted[i] is not None else ""
        summary.append((i, passed, reasons, bad, text, boot))
        (log_dir / f"dmesg-{i}.txt").write_text(
            "\n".join(section(text, f"{MARK} DMESG BEGIN", f"{MARK} DMESG END")[0] or []) + "\n")

    if args.print_output:
        for i, _, _, _, text, _ in summary:
            if n > 1:
                print(f"===== instance {i} =====")
            for line in test_output(text):
                if not KMSG_LINE.match(line):
                    print(line)
    for i, passed, reasons, bad, text, boot in summary:
        if not passed:
            out = test_output(text) or text.splitlines()
            log(f"{name}[{i}]: last lines of {serials[i]}:")
            for line in out[-25:]:
                print(f"    | {line}", file=sys.stderr)
        # (the verdict and its reasons after the output: a log's tail, all CI shows, has them)
        log(f"{name}[{i}]: {'PASS' if passed else 'FAIL'}{boot}")
        for r in reasons:
            log(f"  {r}")
        for b in bad[:20]:
            log(f"    {b}")
    verdict = "PASS" if ok else "FAIL"
    if os.environ.get("MLX5T_COV_DIR"):
        write_coverage(Path(os.environ["MLX5T_COV_DIR"]), log_dir, name, cmds, summary)
    log(f"{name}: {verdict} ({n} instance(s), accel {accel}, {elapsed:.1f}s; logs in {log_dir})")
    (log_dir / "result.txt").write_text(f"{verdict}\n")
    return 0 if ok else 1


def run():
    """main(), and once more when a failed run's serial log matches the test's mlx5t-retry-if
    (a known failure of a program in the guest, not of the device)."""
    rc = main()
    if rc != 1:
        return rc
    args = parse_args()
    test = Path(args.test).resolve()
    pat = read_directives(test).get("retry-if") if test.is_file() else None
    if not pat:
        return rc
    log_dir = default_log_dir(args, test)
    hits = [p.name for p in sorted(log_dir.glob("serial-*.log"))
            if re.search(pat, p.read_text(errors="replace"))]
    if not hits:
        return rc
    keep = log_dir / "attempt-1"
    shutil.rmtree(keep, ignore_errors=True)
    keep.mkdir()
    for p in log_dir.iterdir():
        if p.is_file():
            shutil.copy2(p, keep / p.name)
    log(f"{test.stem}: failed with /{pat}/ in {', '.join(hits)} (mlx5t-retry-if): running "
        f"it once more; the first attempt's logs are in {keep}")
    return main()


if __name__ == "__main__":
    # meson stops a test that overran its timeout with SIGTERM: turn it into an exception so
    # that the QEMU processes are stopped too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(run())
