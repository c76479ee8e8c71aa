#!/bin/sh
# The mlx5e fast paths a ConnectX-5's capabilities open, each combination of the private flags
# that select them, between two guests (issue 27): rx_striding_rq (multi-packet receive WQEs
# whose buffers mlx5e maps with UMR WQEs on its ICOSQ; on by default, as on a card) and
# rx_cqe_compress (CQE compression; off by default) and skb_tx_mpwqe (enhanced multi-packet
# send WQEs, a frame per data segment; on by default); ethtool -C sets the CQ moderation and
# the combinations run with CQE-based moderation (rx_cqe_moder, tx_cqe_moder on, which a
# ConnectX-5's cq_period_start_from_cqe allows). For every combination both instances set
# the same flags (ethtool --set-priv-flags, which re-creates the channels), then:
#  - a TCP transfer from instance 1 to instance 0, checked by md5 (MTU 1500, and 9000 for the
#    first and the last combination: non-linear striding, 64-byte strides);
#  - 500 back-to-back pings of 200 bytes (busybox ping -A): none lost;
#  - then LRO (ethtool -K lro on), CQE compression on and off: md5 TCP, rx_lro_packets;
#  - instance 0's ethtool -S counts what the flags promise: with rx_cqe_compress on,
#    rx_cqe_compress_blks and rx_cqe_compress_pkts grow (the device compresses the CQEs of a
#    burst into sessions; mlx5e takes them apart), with it off they do not move; with
#    skb_tx_mpwqe on, tx_mpwqe_blks and tx_mpwqe_pkts grow, with it off tx_mpwqe_blks does not.
# mlx5t-instances: 2
# mlx5t-timeout: 900
# mlx5t-device-args: link-type=eth
. /test/lib/common.sh
. /test/lib/ipoib.sh
on_fail() {
  mlx5e_counters
}
mlx5e_peer_up

flags=$(ethtool --show-priv-flags $E) || fail "ethtool --show-priv-flags failed"
echo "$flags"
flag() {
  echo "$flags" | sed -n "s/^$1 *: *//p"
}
# the defaults mlx5e picks for these caps, as on a ConnectX-5 on a fast PCIe link: the striding
# RQ (multi-packet receive WQEs, mapped by UMR WQEs on the ICOSQ), CQE compression off
[ "$(flag rx_striding_rq)" = on ] || fail "rx_striding_rq is not on by default"
[ "$(flag rx_cqe_compress)" = off ] || fail "rx_cqe_compress is not off by default"
# and the enhanced multi-packet send WQE for skbs and for XDP_TX
[ "$(flag skb_tx_mpwqe)" = on ] || fail "skb_tx_mpwqe is not on by default"
[ "$(flag xdp_tx_mpwqe)" = on ] || fail "xdp_tx_mpwqe is not on by default"
# CQ moderation: mlx5e 6.12 starts with both CQE-based flags off and DIM on; ethtool -C sets
# the moderation (MODIFY_CQ with period, count and period mode)
[ "$(flag rx_cqe_moder)" = off ] || fail "rx_cqe_moder is not off by default"
[ "$(flag tx_cqe_moder)" = off ] || fail "tx_cqe_moder is not off by default"
run ethtool -C $E adaptive-rx off adaptive-tx off rx-usecs 16 rx-frames 32 \
  tx-usecs 16 tx-frames 32 || fail "ethtool -C failed"
ethtool -c $E | grep -E "rx-usecs|rx-frames|CQE"

# setflag FLAG VALUE: set a private flag (mlx5e re-creates the channels), check it took
setflag() {
  run ethtool --set-priv-flags $E "$1" "$2" || fail "ethtool --set-priv-flags $E $1 $2 failed"
  now=$(ethtool --show-priv-flags $E)
  echo "$now" | grep -q "^$1 *: *$2\$" || fail "$1 is not $2: $now"
}

# snap FILE: the interface's counters, all from one read (a frame sent between two reads would
# count in one counter and not in its partner); stat FILE NAME: one of them
snap() {
  ethtool -S $E > "$1" || fail "ethtool -S $E failed"
}
stat() {
  awk -v s="$2" '$1 == s ":" {print $2}' "$1"
}

# the combinations below with CQs whose period starts at the first CQE
# (cq_period_start_from_cqe, as on a ConnectX-5)
setflag rx_cqe_moder on
setflag tx_cqe_moder on

port=7000 combo=0
for striding in on off; do
for comp in on off; do
for mpw in on off; do
  combo=$((combo + 1))
  what="rx_striding_rq $striding, rx_cqe_compress $comp, skb_tx_mpwqe $mpw"
  echo "=== combination $combo: $what"
  barrier "flags$combo" $port
  setflag rx_striding_rq $striding
  setflag rx_cqe_compress $comp
  setflag skb_tx_mpwqe $mpw
  wait_for 30 grep -qx 1 /sys/class/net/$E/carrier || fail "$E has no carrier after the change"
  wait_for 60 ping -c 1 -W 1 $PEER || fail "no ping reply with $what"
  barrier "up$combo" $((port + 10))
  snap /tmp/s0
  blks0=$(stat /tmp/s0 rx_cqe_compress_blks) pkts0=$(stat /tmp/s0 rx_cqe_compress_pkts)
  mpwb0=$(stat /tmp/s0 tx_mpwqe_blks) mpwp0=$(stat /tmp/s0 tx_mpwqe_pkts)
  tcp_transfer $((port + 20)) 192.168.77.1
  ping -q -A -c 500 -s 200 -W 2 $PEER > /tmp/ping.out 2>&1
  tail -2 /tmp/ping.out
  # (busybox's -A may send one more than -c before it stops)
  grep -q "packets transmitted, 500 packets received" /tmp/ping.out ||
    fail "pings lost with $what: $(grep packets /tmp/ping.out)"
  if [ $combo = 1 ] || [ $combo = 8 ]; then
    barrier "mtu$combo" $((port + 30))
    ip link set $E mtu 9000 || fail "cannot set MTU 9000"
    wait_for 60 ping -c 1 -W 2 -s 8900 $PEER || fail "no 8900-byte ping reply at MTU 9000"
    tcp_transfer $((port + 40)) 192.168.77.1
    barrier "mtu-back$combo" $((port + 50))
    ip link set $E mtu 1500
    wait_for 60 ping -c 1 -W 1 $PEER || fail "no ping reply back at MTU 1500"
  fi
  snap /tmp/s1
  blks=$(($(stat /tmp/s1 rx_cqe_compress_blks) - blks0))
  pkts=$(($(stat /tmp/s1 rx_cqe_compress_pkts) - pkts0))
  echo "$what: rx_cqe_compress_blks +$blks, rx_cqe_compress_pkts +$pkts"
  if [ $comp = on ] && [ "$IDX" = 0 ]; then
    [ $blks -gt 0 ] && [ $pkts -gt $blks ] ||
      fail "rx_cqe_compress on, but no compressed CQE sessions came (blks +$blks, pkts +$pkts)"
  elif [ $comp = off ]; then
    [ $blks = 0 ] && [ $pkts = 0 ] || fail "compressed CQEs came with rx_cqe_compress off"
  fi
  mpwb=$(($(stat /tmp/s1 tx_mpwqe_blks) - mpwb0)) mpwp=$(($(stat /tmp/s1 tx_mpwqe_pkts) - mpwp0))
  echo "$what: tx_mpwqe_blks +$mpwb, tx_mpwqe_pkts +$mpwp"
  if [ $mpw = on ]; then
    [ $mpwb -gt 0 ] && [ $mpwp -ge $mpwb ] ||
      fail "skb_tx_mpwqe on, but no multi-packet sends (blks +$mpwb, pkts +$mpwp)"
  else
    [ $mpwb = 0 ] || fail "multi-packet sends with skb_tx_mpwqe off"
  fi
  barrier "done$combo" $((port + 60))
  port=$((port + 100))
done
done
done

# LRO (lro_cap, as on a ConnectX-5; off by default in mlx5e): ethtool -K lro on sets the TIRs'
# packet_merge_mask (MODIFY_TIR); the device coalesces in-order TCP segments and mlx5e rebuilds
# the headers from the LRO CQE. mlx5e offers LRO on the striding RQ only ("Disabling LRO, not
# supported in legacy RQ"); checked with CQE compression on and off: md5-checked TCP, and
# instance 0's rx_lro_packets and rx_lro_bytes grow.
lro=$(ethtool -k $E | sed -n 's/^large-receive-offload: *//p')
echo "large-receive-offload: $lro"
[ "$lro" = off ] || fail "LRO is not off by default (large-receive-offload: $lro)"
setflag rx_striding_rq on
for comp in on off; do
  barrier "lro-$comp" $port
  setflag rx_cqe_compress $comp
  run ethtool -K $E lro on || fail "ethtool -K $E lro on failed"
  ethtool -k $E | grep -q "^large-receive-offload: on" || fail "LRO did not turn on"
  wait_for 30 grep -qx 1 /sys/class/net/$E/carrier || fail "$E has no carrier after LRO on"
  wait_for 60 ping -c 1 -W 1 $PEER || fail "no ping reply with LRO on (compression $comp)"
  barrier "lro-up-$comp" $((port + 10))
  snap /tmp/s0
  tcp_transfer $((port + 20)) 192.168.77.1
  snap /tmp/s1
  lp=$(($(stat /tmp/s1 rx_lro_packets) - $(stat /tmp/s0 rx_lro_packets)))
  lb=$(($(stat /tmp/s1 rx_lro_bytes) - $(stat /tmp/s0 rx_lro_bytes)))
  echo "LRO, rx_cqe_compress $comp: rx_lro_packets +$lp, rx_lro_bytes +$lb"
  if [ "$IDX" = 0 ]; then
    [ $lp -gt 0 ] && [ $lb -gt $((lp * 1448)) ] ||
      fail "LRO on (compression $comp), but no coalesced segments came (+$lp, +$lb bytes)"
  fi
  run ethtool -K $E lro off || fail "ethtool -K $E lro off failed"
  barrier "lro-done-$comp" $((port + 60))
  port=$((port + 100))
done
echo "eth-paths: OK"
