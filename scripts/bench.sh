#!/usr/bin/env bash
# bench.sh - performance of the emulated ConnectX beside its baselines, measured in one run on
# this machine (docs/benchmarks.md):
#   * two guests, the same perftest runs over the device (mlx5_0, -netdev stream fabric link)
#     and over Soft-RoCE (rxe0 on the virtio-net management link, also a -netdev stream),
#     including bandwidth and latency against message size and bandwidth against 1/4/16 QPs;
#   * the device core alone in process (RDMA WRITE 1 MiB, SEND 64 B) beside memcpy;
#   * the Ethernet port (link-type=eth, two guests of the DPDK image): one TCP stream and
#     64-byte UDP datagrams over mlx5e beside the same over virtio-net (the management link),
#     and dpdk-testpmd's send and receive rates (txonly to rxonly, 64-byte frames) beside the
#     kernel's UDP rate over virtio-net.
# Prints the tables (median, min, max of the repetitions; ratios device / baseline) and writes
# build/bench/bench.json.
#
#   scripts/bench.sh [--reps N] [--smoke] [--only rdma|eth]
#
# --reps N   repetitions of every figure (default 3)
# --smoke    one repetition with few iterations: checks that every figure is produced
# --only     the RDMA figures (perftest, core) or the Ethernet ones only
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
reps=3 smoke=0 only=
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift ;;
    --only) only=$2; shift
            [[ $only =~ ^(rdma|eth)$ ]] || { echo "bench: --only takes rdma or eth" >&2; exit 2; } ;;
    --smoke) smoke=1 reps=1 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "bench: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[[ $reps =~ ^[1-9][0-9]?$ ]] || { echo "bench: --reps takes 1..99" >&2; exit 2; }
export MLX5T_ACCEL=${MLX5T_ACCEL:-tcg}

qemu=${MLX5T_QEMU:-$(scripts/build-qemu.sh | tail -n1)}   # (meson sets it: the build's -Dqemu, e.g. the sanitizer build)
mkdir -p build/bench
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)   # (no git on a bare machine)

# eth_bench: the Ethernet figures (guest-tests/bench-eth.sh), build/bench/eth.json
eth_bench() {
  scripts/dpdk.sh --build-image
  local logs=build/bench/guests-eth
  python3 scripts/guest-run.py --test guest-tests/bench-eth.sh --qemu "$qemu" \
    --kernel build/guest-dpdk/vmlinuz --initrd build/guest-dpdk/base.cpio --log-dir "$logs" \
    --extra-qemu-args "-m 2G" --append "mlx5t.bench_reps=$reps mlx5t.bench_smoke=$smoke" >&2 ||
    { echo "bench: the Ethernet guest runs failed (logs in $logs)" >&2; return 1; }
  python3 - "$logs/serial-0.log" build/bench/eth.json "$commit" <<'PY'
import json, re, statistics, sys, time
serial, out_path, commit = sys.argv[1:]
runs = {}
for line in open(serial, errors="replace"):
    m = re.match(r"@@BENCH dev=(\S+) test=(\S+) size=(\d+) rep=\d+ value=([0-9.]+) unit=(\S+)", line)
    if m:
        dev, test, size, value, unit = m.groups()
        runs.setdefault((dev, test), (int(size), unit, []))[2].append(float(value))
def stat(v):
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}
# each figure of the device beside its baseline of the same run
pairs = [("tcp", ("mlx5e", "tcp"), ("virtio", "tcp")),
         ("udp", ("mlx5e", "udp"), ("virtio", "udp")),
         ("testpmd_tx", ("pmd", "testpmd_tx"), ("virtio", "udp")),
         ("testpmd_rx", ("pmd", "testpmd_rx"), ("virtio", "udp"))]
rows = []
print(f"{'Ethernet':<20}{'size':>9}  {'mlx5e / PMD median (min-max)':>32}  {'virtio-net median (min-max)':>32}  {'ratio':>7}")
for name, ours_k, base_k in pairs:
    if ours_k not in runs or base_k not in runs:
        sys.exit(f"bench: no {name} figure in {serial}")
    size, unit, v = runs[ours_k]
    _, bunit, bv = runs[base_k]
    ours, base = stat(v), stat(bv)
    fmt = lambda s, u: f"{s['median']:.2f} ({s['min']:.2f}-{s['max']:.2f}) {u}"
    ratio = ours["median"] / base["median"] if base["median"] else 0
    label = name if base_k[1] == ours_k[1] else name + " (vs udp)"
    print(f"{label:<20}{size:>9}  {fmt(ours, unit):>32}  {fmt(base, bunit):>32}  {ratio:>6.2f}x")
    rows.append({"test": name, "size": size, "unit": unit, "device": ours,
                 "baseline": {"what": "virtio-net " + base_k[1], **base}, "ratio": ratio})
json.dump({"date": time.strftime("%Y-%m-%d"), "commit": commit, "eth": rows},
          open(out_path, "w"), indent=1)
print(f"bench: {len(rows)} Ethernet figures; {out_path}")
PY
}
if [ "$only" = eth ]; then
  eth_bench
  exit
fi

# the test image plus Soft-RoCE, in a directory of its own
EXTRA_MODULES="rdma_rxe crc32_generic" OUT=build/guest-bench scripts/build-image.sh >&2
core_bin=build/meson/tests/unit/bench-mlx5-core
if [ ! -x "$core_bin" ]; then     # (inside scripts/test.sh's own run, meson has built it)
  scripts/test.sh --suite unit >/dev/null || { echo "bench: unit build/tests failed" >&2; exit 1; }
fi
logs=build/bench/guests
python3 scripts/guest-run.py --test guest-tests/bench.sh --qemu "$qemu" \
  --kernel build/guest-bench/vmlinuz --initrd build/guest-bench/base.cpio --log-dir "$logs" \
  --append "mlx5t.bench_reps=$reps mlx5t.bench_smoke=$smoke" >&2 ||
  { echo "bench: the guest runs failed (logs in $logs)" >&2; exit 1; }
core_args=(--json build/bench/core.json)
[ "$smoke" = 1 ] && core_args+=(--smoke)
"$core_bin" "${core_args[@]}" >/dev/null

python3 - "$logs/serial-1.log" build/bench/core.json build/bench/bench.json "$commit" <<'PY'
import json, re, statistics, sys, time
serial, core_path, out_path, commit = sys.argv[1:]
runs = {}
for line in open(serial, errors="replace"):
    m = re.match(r"@@BENCH dev=(\S+) test=(\S+) size=(\d+) rep=\d+ value=([0-9.]+) unit=(\S+)", line)
    if m:
        dev, test, size, value, unit = m.groups()
        runs.setdefault((test, int(size), unit), {}).setdefault(dev, []).append(float(value))
if not runs:
    sys.exit("bench: no figures in " + serial)
rows = []
print(f"{'test':<12}{'size':>9}  {'mlx5-hca median (min-max)':>30}  {'Soft-RoCE median (min-max)':>30}  {'ratio':>8}")
for (test, size, unit), devs in runs.items():        # in the guest script's order
    def stat(v):
        return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)} if v else None
    ours, rxe = stat(devs.get("mlx5_0", [])), stat(devs.get("rxe0", []))
    if not ours or not rxe:
        sys.exit(f"bench: {test} {size} lacks a figure")
    # latency: lower is better, so the ratio is rxe / ours (how many times faster we are)
    ratio = rxe["median"] / ours["median"] if unit == "usec" else ours["median"] / rxe["median"]
    fmt = lambda s: f"{s['median']:.3f} ({s['min']:.3f}-{s['max']:.3f}) {unit}"
    print(f"{test:<12}{size:>9}  {fmt(ours):>30}  {fmt(rxe):>30}  {ratio:>7.1f}x")
    rows.append({"test": test, "size": size, "unit": unit, "mlx5_hca": ours, "soft_roce": rxe,
                 "times_better": ratio})
core = json.load(open(core_path))
print()
for f in core["figures"]:
    print(f"{f['name']:<28} {f['median']:>10.3f} ({f['min']:.3f}-{f['max']:.3f}) {f['unit']}")
print(f"{'core WRITE / memcpy':<28} {100 * core['core_write_over_memcpy']:>10.1f} %")
print(f"{'bound: 2 copies + 2 CRCs':<28} {100 * core['bound_over_memcpy']:>10.1f} % "
      f"({core['bound_copies_crcs_gbs']:.3f} GB/s)")
memcpy = next(f["median"] for f in core["figures"] if f["name"] == "memcpy, 1 MiB blocks")
big = next((r for r in rows if r["test"] == "write_bw" and r["size"] == 1048576), None)
guests_over_memcpy = None
if big:
    # MiB/s -> GB/s
    guests_over_memcpy = big["mlx5_hca"]["median"] * 1048576 / 1e9 / memcpy
    print(f"{'two guests 1 MiB WRITE / memcpy':<28} {100 * guests_over_memcpy:>10.1f} %")
print(f"{'bound: stream socket / memcpy':<28} {100 * core['stream_over_memcpy']:>10.1f} %")
json.dump({"date": time.strftime("%Y-%m-%d"), "commit": commit, "guests": rows, "core": core,
           "guests_write_1mib_over_memcpy": guests_over_memcpy},
          open(out_path, "w"), indent=1)
print(f"\nbench: {len(rows)} guest figures and {len(core['figures'])} core figures; {out_path}")
PY
if [ -z "$only" ]; then
  echo
  eth_bench
fi
