#!/bin/sh
# The guest half of scripts/bench.sh (not a test): the same perftest runs between the two
# guests over the emulated ConnectX (mlx5_0, its fabric link) and over Soft-RoCE (rxe0 on the
# virtio-net management link, the same kind of QEMU backend), BENCH_REPS times each. Instance 1
# is the client and prints one line per run:
#   @@BENCH dev=<mlx5_0|rxe0> test=<name> size=<bytes> rep=<n> value=<number> unit=<unit>
# Soft-RoCE needs crc32_generic loaded first, and the RoCE v2 GID of the interface's IPv4
# address (chosen here by its type and address, not by a fixed index): with the default GID 0
# (IPv6 link-local) its runs hang. The image comes from scripts/bench.sh (EXTRA_MODULES).
# mlx5t-instances: 2
# mlx5t-timeout: 3000
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/pingpong.sh
REPS=$(sed -n 's/.*mlx5t.bench_reps=\([0-9]*\).*/\1/p' /proc/cmdline); REPS=${REPS:-3}
SMOKE=$(sed -n 's/.*mlx5t.bench_smoke=\([01]\).*/\1/p' /proc/cmdline)
load_mlx5
wait_ib_active mlx5_0 1 90
run modprobe -a crc32_generic rdma_rxe || fail "no rdma_rxe in the image (scripts/bench.sh builds it)"
run rdma link add rxe0 type rxe netdev "$MGMT_IF" || fail "rdma link add rxe0 failed"
GIDX=
for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
  i=${g##*/}
  case $(cat "$g") in
    0000:0000:0000:0000:0000:ffff:*)
      [ "$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i)" = "RoCE v2" ] && GIDX=$i && break ;;
  esac
done
[ -n "$GIDX" ] || fail "rxe0 has no RoCE v2 GID for an IPv4 address"
echo "rxe0: RoCE v2 IPv4 GID index $GIDX"
wait_peer

port=18700
# one NAME SIZE COLUMN UNIT PROGRAM ARGS...: every device, every repetition; COLUMN is the
# field of the client's result row that holds the figure
one() {
  name=$1 size=$2 col=$3 unit=$4; shift 4
  for dev in mlx5_0 rxe0; do
    x=; [ "$dev" = rxe0 ] && x="-x $GIDX"
    r=1
    while [ $r -le "$REPS" ]; do
      port=$((port + 1))
      # shellcheck disable=SC2086
      perftest $port "$@" -d $dev $x      # (fails the run, with perftest's output, on error)
      if [ "$IDX" = 1 ]; then
        v=$(awk -v c="$col" '/^[[:space:]]*[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+/ {v=$c} END {print v}' /tmp/pp.$port)
        [ -n "$v" ] || { cat /tmp/pp.$port; fail "$name on $dev: no figure"; }
        echo "@@BENCH dev=$dev test=$name size=$size rep=$r value=$v unit=$unit"
      fi
      r=$((r + 1))
    done
  done
}
n() { [ "$SMOKE" = 1 ] && echo "$2" || echo "$1"; }    # iterations: full, smoke
# bandwidth against message size: up to 4 KiB for a fixed time (perftest's duration mode: 1000
# messages last 15-30 ms on the device, as long as one of the host scheduler's stalls, and over
# 100 ms on Soft-RoCE, so a fixed count would measure each device over a different kind of run;
# docs/benchmarks.md), from 16 KiB up about 12 MiB per run
one write_bw 64 4 MiB/s ib_write_bw -s 64 -D "$(n 2 1)"
one write_bw 1024 4 MiB/s ib_write_bw -s 1024 -D "$(n 2 1)"
one write_bw 4096 4 MiB/s ib_write_bw -s 4096 -D "$(n 2 1)"
one write_bw 16384 4 MiB/s ib_write_bw -s 16384 -n "$(n 800 20)"
one write_bw 65536 4 MiB/s ib_write_bw -s 65536 -n "$(n 200 20)"
one write_bw 262144 4 MiB/s ib_write_bw -s 262144 -n "$(n 50 10)"
one write_bw 1048576 4 MiB/s ib_write_bw -s 1048576 -n 20
# bandwidth against the number of QPs (1 QP is write_bw 65536 above)
one write_bw_q4 65536 4 MiB/s ib_write_bw -s 65536 -q 4 -n "$(n 50 5)"
one write_bw_q16 65536 4 MiB/s ib_write_bw -s 65536 -q 16 -n "$(n 15 5)"
one read_bw 65536 4 MiB/s ib_read_bw -s 65536 -n "$(n 200 20)"
one send_bw 65536 4 MiB/s ib_send_bw -s 65536 -n "$(n 200 20)"
one write_rate 64 5 Mpps ib_write_bw -s 64 -q 4 -D "$(n 2 1)"
one send_lat 2 5 usec ib_send_lat -s 2 -n "$(n 500 50)"
one write_lat 2 5 usec ib_write_lat -s 2 -n "$(n 500 50)"
# latency against message size
one write_lat 4096 5 usec ib_write_lat -s 4096 -n "$(n 300 30)"
one write_lat 65536 5 usec ib_write_lat -s 65536 -n "$(n 100 10)"
echo "bench: OK"
