#!/bin/sh
# The guest half of scripts/bench.sh's Ethernet figures (not a test): two guests with the
# device's port as Ethernet (link-type=eth, a -netdev stream link) and the virtio-net
# management link (also a -netdev stream), in the DPDK image (scripts/dpdk.sh --build-image).
# BENCH_REPS times each:
#   tcp  MiB/s of one TCP stream (net-bench, instance 1 to 0) over mlx5e and over virtio-net;
#   udp  kpps of 64-byte UDP datagrams received by instance 0 (first to last) over each;
#   testpmd  kpps that dpdk-testpmd (the mlx5 PMD) sends (txonly, instance 1) and receives
#        (rxonly, instance 0), 64-byte frames.
# Instance 0 prints one line per run:
#   @@BENCH dev=<mlx5e|virtio|pmd> test=<name> size=<bytes> rep=<n> value=<number> unit=<unit>
# mlx5t-instances: 2
# mlx5t-timeout: 2400
# mlx5t-device-args: link-type=eth
. /test/lib/common.sh
. /test/lib/ipoib.sh
REPS=$(sed -n 's/.*mlx5t.bench_reps=\([0-9]*\).*/\1/p' /proc/cmdline); REPS=${REPS:-3}
SMOKE=$(sed -n 's/.*mlx5t.bench_smoke=\([01]\).*/\1/p' /proc/cmdline)
n() { [ "$SMOKE" = 1 ] && echo "$2" || echo "$1"; }    # full, smoke
MIB=$(n 64 4)
SECS=$(n 5 1)
mlx5e_peer_up
BDF=$(basename "$(readlink /sys/class/net/$E/device)")
command -v net-bench >/dev/null || fail "no net-bench in the image"
bport=7000 dport=19000

# meet NAME: both instances here
meet() {
  bport=$((bport + 4))
  barrier "$1" $bport
}

# tcp DEV ADDR_OF_0: one TCP stream, instance 1 to 0
tcp() {
  dport=$((dport + 1))
  if [ "$IDX" = 0 ]; then
    net-bench tcp-recv $dport > /tmp/nb.out 2>&1 &
    nb=$!
    meet "tcp-$dport"
    wait $nb || { cat /tmp/nb.out; fail "tcp over $1: the receiver failed"; }
    cat /tmp/nb.out
    v=$(sed -n 's/.* MiB\/s=\([0-9.]*\).*/\1/p' /tmp/nb.out)
    echo "@@BENCH dev=$1 test=tcp size=$((MIB << 20)) rep=$r value=$v unit=MiB/s"
  else
    meet "tcp-$dport"
    net-bench tcp-send "$2" $dport $MIB || fail "tcp over $1: the sender failed"
  fi
}

# udp DEV ADDR_OF_0: 64-byte datagrams for SECS, instance 1 to 0
udp() {
  dport=$((dport + 1))
  if [ "$IDX" = 0 ]; then
    net-bench udp-recv $dport 2 > /tmp/nb.out 2>&1 &
    nb=$!
    meet "udp-$dport"
    wait $nb || { cat /tmp/nb.out; fail "udp over $1: nothing came"; }
    cat /tmp/nb.out
    v=$(sed -n 's/.* kpps=\([0-9.]*\).*/\1/p' /tmp/nb.out)
    echo "@@BENCH dev=$1 test=udp size=64 rep=$r value=$v unit=kpps"
  else
    meet "udp-$dport"
    sleep 1
    net-bench udp-send "$2" $dport 64 $SECS || fail "udp over $1: the sender failed"
  fi
}

r=1
while [ "$r" -le "$REPS" ]; do
  tcp mlx5e 192.168.77.1
  tcp virtio 10.0.0.1
  udp mlx5e 192.168.77.1
  udp virtio 10.0.0.1
  r=$((r + 1))
done

# testpmd: instance 1 sends (txonly) for SECS, instance 0 receives (rxonly); the counts of
# "stop" over SECS
tp_run() {
  rm -f /tmp/cmd /tmp/tp.log
  mkfifo /tmp/cmd
  if [ "$IDX" = 0 ]; then mode=rxonly; else mode=txonly; fi
  timeout 600 dpdk-testpmd --lcores=0@0,1@0 -n 1 -a "$BDF" --no-huge -m 256 -- -i \
    --forward-mode=$mode --eth-peer=0,$PEERMAC --total-num-mbufs=8192 --txpkts=64 \
    < /tmp/cmd > /tmp/tp.log 2>&1 &
  tp=$!
  exec 3>/tmp/cmd
  sleep 20
  kill -0 $tp 2>/dev/null || { cat /tmp/tp.log; fail "testpmd did not come up"; }
  r=1
  while [ "$r" -le "$REPS" ]; do
    [ "$IDX" = 0 ] && echo start >&3
    meet "tp-go-$r"
    if [ "$IDX" = 1 ]; then
      echo start >&3
      sleep "$SECS"
      echo stop >&3
    fi
    meet "tp-sent-$r"
    if [ "$IDX" = 0 ]; then
      sleep 1
      echo stop >&3
    fi
    sleep 1
    r=$((r + 1))
  done
  echo quit >&3
  exec 3>&-
  wait $tp || { cat /tmp/tp.log; fail "testpmd exited with an error"; }
}
tp_run
# the accumulated RX-packets (instance 0) or TX-packets (instance 1) of each stop
if [ "$IDX" = 0 ]; then f=RX-packets; else f=TX-packets; fi
awk -v f="$f:" '/Accumulated forward statistics for all ports/ {a = 1}
  a && $1 == f {print $2; a = 0}' /tmp/tp.log > /tmp/tp.counts
[ "$(wc -l < /tmp/tp.counts)" = "$REPS" ] || { cat /tmp/tp.log; fail "testpmd printed no counts"; }
if [ "$IDX" = 1 ]; then
  meet tp-counts
  _try "counts" sh -c "tr '\n' ' ' < /tmp/tp.counts | nc -w 2 10.0.0.1 7999"
else
  meet tp-counts
  sent=$(timeout 60 nc -l -p 7999) || fail "no counts from instance 1"
  r=1
  for got in $(cat /tmp/tp.counts); do
    s=$(echo "$sent" | cut -d' ' -f$r)
    echo "testpmd run $r: sent $s, received $got in $SECS s"
    echo "@@BENCH dev=pmd test=testpmd_tx size=64 rep=$r value=$(awk -v n="$s" -v t="$SECS" 'BEGIN {printf "%.2f", n / t / 1000}') unit=kpps"
    echo "@@BENCH dev=pmd test=testpmd_rx size=64 rep=$r value=$(awk -v n="$got" -v t="$SECS" 'BEGIN {printf "%.2f", n / t / 1000}') unit=kpps"
    r=$((r + 1))
  done
fi
echo "bench-eth: OK"
