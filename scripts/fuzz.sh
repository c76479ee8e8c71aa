#!/usr/bin/env bash
# fuzz.sh - coverage-guided fuzzing of the device core with libFuzzer (docs/hardening.md).
#
#   scripts/fuzz.sh [--time SECONDS] [--jobs N] [--smoke] [TARGET...]
#   scripts/fuzz.sh --merge DIR TARGET     (add what DIR's inputs cover to the committed corpus)
#   scripts/fuzz.sh --record GUEST_TEST... (record seeds from real guests, merge them in)
#   scripts/fuzz.sh --qemu [--time SECONDS] (QEMU's own generic-fuzz on the whole device)
#
# Targets (tests/fuzz/fuzz-*.c): cmd (command queue entries, mailbox chains, every command's
# input), cmd-eth (the same on an Ethernet port: vport, TIS/TIR/RQT, SQ/RQ, flow steering), cmd-vf (the
# same through an SR-IOV VF, its PF checked alive; seeded from cmd-eth), cmd-vf-ib (the same through a VF
# of an InfiniBand PF: its HCA vport; seeded from cmd-vf), cmd-esw (the E-Switch
# manager's: FDB, vport states, other vports; its VFs checked alive), wqe (send and receive WQEs, UMR, doorbell records), frame (wire frames: all BTH
# opcodes and extension headers), mad (SMP, SA, CM, PMA and MAD_IFC), mmio (BAR0 registers,
# UAR doorbells, doorbell records), roce (frames from an Ethernet link: RoCE v2 over IPv4, IPv6
# and 802.1Q to every QP type, roce_en and the GID table toggled under traffic, the NIC path),
# eth (the Ethernet data path: frames through chained flow tables, RSS and several TIRs; SQ
# WQEs with checksum/LSO and local loopback; flow entries and self-loopback bits changed),
# vsc (the configuration-space gateway: its registers, spaces and ICMD commands), ste (software
# steering: entries and rewrite actions written to steering ICM, frames walked through them).
# No TARGET: all of them, one after another.
#
# 1. installs clang and its fuzzer/sanitizer runtimes (scripts/host-deps.sh fuzz);
# 2. builds build/fuzz (meson -Dfuzzer=true: the core with ASan, UBSan and coverage);
# 3. runs each target for --time seconds (default 600; --smoke: 10) on --jobs processes
#    (default 1; --smoke: 2), starting from the committed corpus tests/fuzz/corpus/TARGET; new inputs go to
#    build/fuzz/corpus/TARGET, crashes, leaks and timeouts to build/fuzz/crashes/TARGET/;
# 4. prints one line per target (runs, coverage, corpus, crashes) and ends with
#    "fuzz: N targets, M crashes"; exit status 1 if anything was found.
# --record boots the named guest tests (guest-tests/NAME.sh, needs scripts/build-qemu.sh and
# scripts/build-image.sh) with the device property fuzz-record=build/fuzz/recorded: the device
# writes every command, WQE, frame, MAD and BAR0 write the real drivers produce, in the
# targets' input formats; then each target's recorded inputs are merged into its committed
# corpus (libFuzzer -merge=1 keeps only the inputs that add coverage). The commands of guest
# tests that run an Ethernet port (`mlx5t-device-args: link-type=eth`) go to cmd-eth; their
# other records are not used.
# --qemu runs QEMU's generic fuzzer (tests/qtest/fuzz/generic_fuzz.c) with the configuration
# "mlx5-hca" (q35, -device mlx5-hca; the fuzzer's MMIO, port I/O and DMA aimed at the device's
# memory regions, mlx5*): the whole device, PCI shell included, as QEMU's OSS-Fuzz runs every
# device. It builds build/qemu-fuzz/qemu-fuzz-x86_64 (scripts/build-qemu.sh --fuzz: clang,
# libFuzzer, ASan) and runs it for --time seconds (default 600) from build/fuzz/qemu-corpus;
# crashes go to build/fuzz/crashes/qemu-generic/. Ends with the same summary line.
# A crash input becomes a regression test by copying it to tests/fuzz/regress/TARGET/ (the
# unit suite replays that directory); see docs/hardening.md.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

ALL="cmd cmd-eth cmd-vf cmd-vf-ib cmd-esw wqe frame mad mmio roce eth vsc ste"
time_s=600 jobs=1 merge= record=0 qemu=0 targets=() tests=()
while (($#)); do
  case $1 in
    --time) time_s=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --smoke) time_s=10 jobs=2 ;;
    --merge) merge=$2; shift ;;
    --record) record=1 ;;
    --qemu) qemu=1 ;;
    -h|--help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) if ((record)); then
         [ -f "guest-tests/$1.sh" ] || { echo "fuzz.sh: no guest test guest-tests/$1.sh" >&2; exit 2; }
         tests+=("$1")
       else
         [[ " $ALL " == *" $1 "* ]] || { echo "fuzz.sh: no target '$1' (targets: $ALL)" >&2; exit 2; }
         targets+=("$1")
       fi ;;
  esac
  shift
done
((${#targets[@]})) || read -r -a targets <<<"$ALL"
die() { echo "fuzz.sh: $*" >&2; exit 2; }

if ((qemu)); then
  # QEMU's generic-fuzz over the whole device (see the header)
  mkdir -p build/logs build/fuzz/qemu-corpus build/fuzz/crashes/qemu-generic
  bin=$(scripts/build-qemu.sh --fuzz | tail -n1) || die "QEMU fuzz build failed (build/logs/*-fuzz.log)"
  log=build/fuzz/logs/qemu-generic.log
  mkdir -p build/fuzz/logs
  echo "fuzz.sh: generic-fuzz-mlx5-hca for ${time_s}s (log: $log)" >&2
  # QEMU_FUZZ_TIMEOUT: seconds one input may run (a hang is a finding); -detect_leaks=0 as in
  # QEMU's OSS-Fuzz build (QEMU's own allocations at exit are not the device's)
  QEMU_FUZZ_TIMEOUT=${QEMU_FUZZ_TIMEOUT:-5} "$bin" --fuzz-target=generic-fuzz-mlx5-hca \
    -max_total_time="$time_s" -detect_leaks=0 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/crashes/qemu-generic/ build/fuzz/qemu-corpus >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n1 | grep -o '[0-9]*')
  crashes=$(find build/fuzz/crashes/qemu-generic -type f | wc -l)
  corpus=$(find build/fuzz/qemu-corpus -type f | wc -l)
  echo "qemu-generic: ${runs:-0} runs, coverage ${cov:-0}, corpus $corpus, crashes $crashes (exit $rc)"
  echo "fuzz: 1 targets, $crashes crashes"
  [ "$crashes" = 0 ] && [ "$rc" = 0 ]
  exit
fi

mkdir -p build/logs build/fuzz/logs
scripts/host-deps.sh fuzz || die "host packages missing (scripts/host-deps.sh fuzz)"

# meson: the one the test suite uses (trixie's, unpacked by scripts/build-qemu.sh), else any
meson=$root/build/tools/bin/meson
if [ -x "$meson" ]; then
  export PYTHONPATH=$root/build/tools/meson/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}
else
  meson=$(command -v meson) || die "meson not found: run scripts/build-qemu.sh first (it unpacks meson)"
fi
if [ ! -f build/fuzz/build.ninja ]; then
  CC=clang "$meson" setup build/fuzz -Dfuzzer=true -Dguest_tests=false >build/logs/fuzz-setup.log 2>&1 ||
    { tail -n 30 build/logs/fuzz-setup.log >&2; die "meson setup of build/fuzz failed"; }
fi
"$meson" compile -C build/fuzz >build/logs/fuzz-compile.log 2>&1 ||
  { tail -n 40 build/logs/fuzz-compile.log >&2; die "build of the fuzz targets failed"; }

# Add to TARGET's committed corpus the inputs of DIR that add coverage (libFuzzer -merge=1).
merge_into() {
  local t=$1 dir=$2 n
  n=$(ls "tests/fuzz/corpus/$t" 2>/dev/null | wc -l)
  build/fuzz/tests/fuzz/fuzz-$t -merge=1 -rss_limit_mb=4096 -max_len=65536 \
    tests/fuzz/corpus/$t "$dir" >"build/fuzz/logs/merge-$t.log" 2>&1 ||
    die "merge of $t failed (build/fuzz/logs/merge-$t.log)"
  echo "fuzz: $t: $(ls "$dir" | wc -l) inputs merged, corpus $n -> $(ls tests/fuzz/corpus/$t | wc -l)"
}

if [ -n "$merge" ]; then
  ((${#targets[@]} == 1)) || die "--merge takes one TARGET"
  merge_into "${targets[0]}" "$merge"
  exit 0
fi

if ((record)); then
  ((${#tests[@]})) || die "--record needs guest test names (e.g. pingpong-variants fabric-tools)"
  rec=$root/build/fuzz/recorded
  rm -rf "$rec" "$rec-eth"
  for g in "${tests[@]}"; do
    out=$rec
    grep -q '^# mlx5t-device-args:.*link-type=eth' "guest-tests/$g.sh" && out=$rec-eth
    if [ "$g" = pyverbs ]; then         # its own image (scripts/pyverbs.sh)
      PYVERBS_DEVICE_ARGS="fuzz-record=$rec" scripts/pyverbs.sh >"build/fuzz/logs/record-$g.log" 2>&1
    else
      python3 scripts/guest-run.py --test "guest-tests/$g.sh" --log-dir "build/fuzz/record-logs/$g" \
        --extra-device-args "fuzz-record=$out" >"build/fuzz/logs/record-$g.log" 2>&1
    fi ||
      echo "fuzz.sh: guest test $g failed (build/fuzz/logs/record-$g.log); its records are kept" >&2
  done
  # an Ethernet port's commands are cmd-eth's; its other records are not used (the wqe, frame
  # and mad targets run an InfiniBand node, whose QPs and wire they are not for)
  [ -d "$rec-eth/cmd" ] && mkdir -p "$rec/cmd-eth" && mv "$rec-eth/cmd"/* "$rec/cmd-eth/"
  for t in $ALL; do
    [ -d "$rec/$t" ] && merge_into "$t" "$rec/$t"
  done
  exit 0
fi

found=0
for t in "${targets[@]}"; do
  bin=build/fuzz/tests/fuzz/fuzz-$t
  work=build/fuzz/corpus/$t crashes=build/fuzz/crashes/$t
  log=build/fuzz/logs/$t.log
  mkdir -p "$work" "$crashes" build/fuzz/logs
  before=$(ls "$crashes" | wc -l)
  dict=()
  [ -f tests/fuzz/$t.dict ] && dict=(-dict=tests/fuzz/$t.dict)
  # -fork: a crash or timeout is recorded and the run goes on (every finding, not the first)
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    timeout $((time_s + 120)) "$bin" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -max_total_time="$time_s" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$crashes/" "${dict[@]}" "$work" tests/fuzz/corpus/$t >"$log" 2>&1
  rc=$?
  new=$(( $(ls "$crashes" | wc -l) - before ))
  stats=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
  execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$stats")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$stats")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$stats")
  printf 'fuzz-%-6s %5ss  runs %-9s cov %-6s ft %-7s corpus %-6s crashes %s%s\n' "$t" "$time_s" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "$(ls "$work" | wc -l)" "$new" \
    "$( ((rc != 0 && new == 0)) && echo " (exit $rc: $log)")"
  if ((new > 0)); then
    found=$((found + new))
    ls -1 "$crashes" | tail -n "$new" | sed "s|^|    $crashes/|"
  elif [ -z "$execs" ]; then
    found=$((found + 1))
    echo "    no runs: see $log" >&2
    tail -n 20 "$log" | sed 's/^/    /' >&2
  fi
done
echo "fuzz: ${#targets[@]} targets, $found crashes"
((found == 0))
