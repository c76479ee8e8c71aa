#!/bin/sh
# Native XDP and AF_XDP on the mlx5e interface between two guests (issue 27), with
# guest-tests/src/xsk-check.c (XDP programs assembled from BPF instructions, attached in driver
# mode; AF_XDP sockets on queue 0 built on the UAPI alone):
#  1. AF_XDP in copy and in zero-copy mode: instance 1 sends 2000 numbered UDP frames from its
#     socket, instance 0's socket (behind an XDP program redirecting that port to it) receives
#     every one, byte for byte, none twice. Zero-copy runs mlx5e's XSK queues: a striding RQ
#     whose buffers are UMEM frames mapped by UMR WQEs, and an XSK SQ; with 4096-byte frames
#     one MTT entry per frame, with 2048-byte frames (zc-2048) a KLM mkey of a frame entry and
#     a filler entry per page (mlx5e's "oversized" mode; it warns of a slowdown, as it does on
#     a ConnectX-5 whose firmware lacks log_min_mkey_entity_size).
#  2. XDP_DROP on instance 0: 500 frames sent, none reaches its stack, rx_xdp_drop counts 500.
#  3. XDP_TX on instance 0 (the MAC addresses swapped): instance 1's socket gets all 500 frames
#     it sent back (copy mode), and instance 0's rx_xdp_tx_xmit counts them.
#  4. XDP_REDIRECT to the interface itself (bpf_redirect): the same (zero-copy on instance 1),
#     rx_xdp_redirect counts them.
#  5. XDP_PASS: pings pass while a pass-all program is attached.
# mlx5t-instances: 2
# mlx5t-timeout: 900
# mlx5t-device-args: link-type=eth
. /test/lib/common.sh
. /test/lib/ipoib.sh
on_fail() {
  mlx5e_counters
}
mlx5e_peer_up
FRAMES=2000 M=500

xstat() {
  ethtool -S $E | awk -v s="$1" '$1 == s ":" {print $2}'
}

# peer_ready STEP PORT: instance 0 attached what it needs (its process in the background for
# a few seconds: mlx5e re-creates its channels); instance 1 may send
peer_ready() {
  [ "$IDX" = 0 ] && sleep 5
  barrier "$1" "$2"
}

# --- 1. AF_XDP receive (instance 0) and send (instance 1), copy and zero-copy
port=7300
for mode in copy zc zc-2048; do
  m=${mode%-2048}
  [ "$mode" = zc-2048 ] && export XSK_FRAME=2048
  if [ "$IDX" = 0 ]; then
    xsk-check rx $E 9100 $FRAMES $m 90 > /tmp/xsk.out 2>&1 &
    pid=$!
  fi
  peer_ready "xsk-$mode" $port
  if [ "$IDX" = 1 ]; then
    run xsk-check tx $E $PEERMAC $ME $PEER 9100 $FRAMES $m || fail "AF_XDP send ($mode) failed"
  else
    wait $pid
    rc=$?
    cat /tmp/xsk.out
    [ $rc = 0 ] || fail "AF_XDP receive ($mode) did not get the $FRAMES frames intact"
  fi
  barrier "xsk-$mode-done" $((port + 10))
  unset XSK_FRAME
  port=$((port + 20))
done

# --- 2-4. XDP programs on instance 0: drop, tx, redirect
for t in "drop 9101 rx_xdp_drop tx copy" "tx 9102 rx_xdp_tx_xmit echo copy" \
         "redirect 9103 rx_xdp_redirect echo zc"; do
  set -- $t
  act=$1 p=$2 counter=$3 how=$4 mode=$5
  if [ "$IDX" = 0 ]; then
    before=$(xstat $counter)
    xsk-check xdp $E $act $p 600 &
    pid=$!
  fi
  peer_ready "xdp-$act" $port
  if [ "$IDX" = 1 ]; then
    run xsk-check $how $E $PEERMAC $ME $PEER $p $M $mode ||
      fail "XDP $act on the peer: xsk-check $how ($mode) failed"
  fi
  barrier "xdp-$act-done" $((port + 10))
  if [ "$IDX" = 0 ]; then
    kill $pid
    wait $pid
    n=$(($(xstat $counter) - before))
    echo "XDP $act: $counter +$n"
    [ $n = $M ] || fail "XDP $act: $counter grew by $n, $M frames came"
  fi
  port=$((port + 20))
done

# --- 5. XDP_PASS
if [ "$IDX" = 0 ]; then
  xsk-check xdp $E pass 9104 600 &
  pid=$!
fi
peer_ready xdp-pass $port
if [ "$IDX" = 1 ]; then
  run ping -c 5 -W 2 $PEER || fail "no ping reply through the peer's XDP_PASS program"
fi
barrier xdp-pass-done $((port + 10))
[ "$IDX" = 0 ] && { kill $pid; wait $pid; }
wait_for 30 ping -c 1 -W 1 $PEER || fail "no ping reply once the programs are gone"
barrier done $((port + 20))
echo "xdp: OK"
