#!/bin/sh
# DPDK's mlx5 PMD (Debian's dpdk 24.11, dpdk-testpmd) on the device, between two guests
# (issue 27; scripts/dpdk.sh builds the image and runs this). Bifurcated, as on a card: mlx5_core
# stays bound, the PMD works through libibverbs, libmlx5 and DevX.
#  0. UCX's ucx_info -d (UCX is in the image too) lists rc_mlx5 on mlx5_0 and logs no ERROR or
#     WARN line and nothing about QUERY_LAG (its start-up DevX queries are answered); its
#     doorbells get a write-combining (BlueFlame) UAR.
#  0b. UCX's ucx_perftest runs tag_lat and tag_bw between the guests over rc_mlx5 (RoCE v2)
#     and prints no ERROR or WARN line.
#  1. Both instances probe the device: testpmd comes up, and the messages of the PMD, EAL and
#     testpmd in its log (default log level) have no "fail" or "error" in them.
#  2. Counts: instance 0 sends 64-byte UDP frames (txonly) to instance 1 (rxonly, promiscuous)
#     for 8 s, once with the PMD's defaults (vectorized receive, CQE compression), once with
#     DEVARGS2 (the Multi-Packet Rx Queue: a striding RQ). Instance 1's unicast frames
#     (rx_unicast_packets) equal what instance 0 sent, and what the PMD received plus what its
#     queue missed (out of buffer) is every frame that came (the vport counts each frame it
#     receives once, from the link or looped back, whatever steering does with it; the PMD's
#     queues may count a multicast frame more than once).
#  2b. The same counts with other PMD paths, one testpmd start each: no CQE compression, the
#     scalar receive path and plain (not multi-packet) send WQEs (DEVARGS3); checksum-format
#     mini CQEs decompressed by the scalar path and multi-packet sends with no inline data, every
#     frame a pointer (DEVARGS4).
#  3. Flow rules in a non-root group, which the PMD's DV engine puts in software-owned tables
#     (mlx5dv_dr: the device's software steering, eth/mlx5_ste.c): on instance 1 "flow create 0
#     ingress group 0 pattern eth / end actions jump group 1 / end" and "flow create 0 ingress
#     group 1 pattern eth / ipv4 / udp / end actions count / drop / end" stop the UDP frames (at
#     most a few others get through; the vport still counts them all), and the second rule's
#     flow counter ("flow query 0 1 count") counted every one of them; after "flow flush 0" they
#     come again.
#  3c. A flow meter (rte_mtr on the legacy FLOW_METER object, mlx5_meter.c): instance 1 meters
#     the UDP frames in group 1 at 640 kB/s (srTCM, red dropped: "add port meter profile
#     srtcm_rfc2697", "create port meter", "actions meter mtr_id 1 / queue index 0"); of the
#     frames instance 0 sends for 5 s (25 times that rate) about 10,000 a second come through,
#     the vport counting them all.
#  3b. Header rewrites on instance 1: "vxlan_decap" for VNI 42, and "set_mac_dst / dec_ttl /
#     set_tp_dst" for UDP to port 6000 (DECAP and MOD_HDR actions on the root table); instance
#     0's kernel sends 50 datagrams through a VXLAN device and 50 plainly: testpmd (verbose)
#     shows each as its inner frame or rewritten, and the rules' counters counted 50 each.
#     Then instance 0's testpmd sends through an egress "vxlan_encap" rule (NIC TX tables,
#     a packet reformat context) for 3 s: the decap rule counts each of those frames too.
#  4. io forwarding with two queues and RSS: both instances forward what they receive, unchanged,
#     on the queue it came in on (RSS on addresses and UDP ports, --rss-udp); instance 0 starts
#     with "start tx_first" (a burst per queue of frames from varying UDP source ports, to a MAC
#     neither instance has, so each passes them on in promiscuous mode). Every frame instance 0 sent, instance 1 received or missed; what
#     instance 1 sent back came to instance 0 but for the frames still in flight; both queues of
#     both instances forwarded frames (RSS spread the flows).
# mlx5t-instances: 2
# mlx5t-timeout: 900
# mlx5t-device-args: link-type=eth
. /test/lib/common.sh
. /test/lib/ipoib.sh
mlx5e_up
BDF=$(basename "$(readlink /sys/class/net/$E/device)")
PEERMAC=02:4d:58:35:00:0$((2 - IDX))
DEVARGS2=mprq_en=1
DEVARGS3=rxq_cqe_comp_en=0,rx_vec_en=0,txq_mpw_en=0
DEVARGS4=rxq_cqe_comp_en=1,rx_vec_en=0,txq_inline_max=0,txq_inline_mpw=0
# (io forwarding: a destination no instance has, or a frame forwarded to its own address would
# loop back into the instance that sent it)
IOMAC=02:4d:58:35:00:99
# (5: the MAC the rewrite rule sets, and the inner frames' destination)
REWMAC=02:4d:58:35:00:77 INNERMAC=02:4d:58:35:42:02
# (no IPv6 on the kernel's interfaces: their multicast frames would be forwarded and loop back
# in 4, and counted by the rules of 3b)
echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6

# tp_start DEVARGS [TESTPMD-ARGS]: testpmd in interactive mode, its commands from the FIFO on
# fd 3 (by default instance 0 sends to instance 1, txonly, which receives, rxonly). Its output
# goes to a file, which it writes in blocks: the figures are read from the whole log once
# testpmd has quit (snap marks the points to read them at)
tp_start() {
  rm -f /tmp/cmd /tmp/tp.log /tmp/tp-cmds
  mkfifo /tmp/cmd
  if [ "$IDX" = 0 ]; then mode=txonly; else mode=rxonly; fi
  args=${2:-"--forward-mode=$mode --eth-peer=0,$PEERMAC"}
  # shellcheck disable=SC2086
  timeout 400 dpdk-testpmd --lcores=0@0,1@0 -n 1 -a "$BDF${1:+,$1}" --no-huge -m 256 \
    --log-level=pmd.net.mlx5:info -- -i \
    $args --total-num-mbufs=8192 --txpkts=64 \
    < /tmp/cmd > /tmp/tp.log 2>&1 &
  tp=$!
  exec 3>/tmp/cmd
  # its prompt comes once the port is started and its link checked (the command line writes it
  # to the file directly, not through stdio's buffer)
  wait_for 120 grep -q "testpmd> " /tmp/tp.log
  kill -0 $tp 2>/dev/null && grep -q "testpmd> " /tmp/tp.log ||
    { cat /tmp/tp.log; fail "testpmd did not come up"; }
}

# tp_stop LOG: quit testpmd, keep its log in LOG. testpmd prints through stdio, into the file
# in 4 KiB blocks, while its command line writes the echo of each command ("CMD\r\n") and its
# prompt ("testpmd> ") to the file directly: a command that comes while a block is pending
# lands inside whatever line that block ends in (seen in CI: "dst=02:4D:58:35:0" "stop"
# "testpmd> " "0:77 - pool=...", 49 of 50 rewritten packets found). The echoes of the commands
# sent (tp) and the prompts are cut out of the log, which puts such a line together again.
tp_stop() {
  tp quit
  exec 3>&-
  wait $tp || { cat /tmp/tp.log; fail "testpmd exited with an error"; }
  python3 - /tmp/tp.log /tmp/tp-cmds "$1" <<'PY' || fail "cleaning testpmd's log failed"
import sys
log, cmds, out = sys.argv[1:]
text = open(log, "rb").read()
for cmd in sorted(set(open(cmds, "rb").read().split(b"\n")), key=len, reverse=True):
    if cmd:
        text = text.replace(cmd + b"\r\n", b"")
open(out, "wb").write(text.replace(b"testpmd> ", b""))
PY
}

# tp CMD: a command to testpmd (and to the list of commands tp_stop cuts out of the log)
tp() {
  echo "$*" >> /tmp/tp-cmds
  echo "$*" >&3
  sleep 1
}

# snap: the port's statistics and extended statistics, at this point (the K-th snap of a log)
snap() {
  tp show port stats 0
  tp show port xstats 0
}

# stat LOG K NAME: NAME (RX-packets, RX-missed, TX-packets) at the K-th snap of LOG
stat() {
  awk -v k="$2" -v n="$3:" '/NIC statistics for port 0/ {s++}
    s == k { for (i = 1; i < NF; i++) if ($i == n) {print $(i + 1); exit} }' "$1"
}

# xstat LOG K NAME: the extended statistic NAME at the K-th snap of LOG
xstat() {
  awk -v k="$2" -v n="$3:" '/NIC extended statistics for port 0/ {s++}
    s == k && $1 == n {print $2; exit}' "$1"
}

# traffic WHAT SECONDS: instance 1 receives while instance 0 sends for SECONDS; a snap after
traffic() {
  [ "$IDX" = 1 ] && tp start
  barrier "go-$1" 7100
  if [ "$IDX" = 0 ]; then
    tp start
    sleep "$2"
    tp stop
    snap
  fi
  barrier "sent-$1" 7110
  if [ "$IDX" = 1 ]; then
    sleep 2
    tp stop
    snap
  fi
}

# counts LOG K: instance 1's check of the frames between snaps K-1 and K against SENT
counts() {
  got=$(($(stat $1 $2 RX-packets) - $(stat $1 $(($2 - 1)) RX-packets)))
  missed=$(($(stat $1 $2 RX-missed) - $(stat $1 $(($2 - 1)) RX-missed)))
  uc=$(($(xstat $1 $2 rx_unicast_packets) - $(xstat $1 $(($2 - 1)) rx_unicast_packets)))
  other=$(($(xstat $1 $2 rx_multicast_packets) - $(xstat $1 $(($2 - 1)) rx_multicast_packets) +
           $(xstat $1 $2 rx_broadcast_packets) - $(xstat $1 $(($2 - 1)) rx_broadcast_packets)))
  echo "instance 0 sent $SENT; received $got, missed $missed; unicast $uc, other $other"
}

# sent LOG K: instance 0's frames sent between snaps K-1 and K
sent() {
  echo $(($(stat $1 $2 TX-packets) - $(stat $1 $(($2 - 1)) TX-packets)))
}

# --- 0. UCX (in the same image) finds its mlx5 transports on the device, and its start-up
# queries (QUERY_LAG among them) fail nowhere
if [ "$IDX" = 0 ]; then
  UCX_LOG_LEVEL=info ucx_info -d > /tmp/ucx.log 2>&1 || { cat /tmp/ucx.log; fail "ucx_info -d failed"; }
  grep -A1 "Transport: rc_mlx5" /tmp/ucx.log | grep -q "Device: mlx5_0:1" ||
    { cat /tmp/ucx.log; fail "UCX has no rc_mlx5 transport on mlx5_0"; }
  # (its DIAG lines say what it falls back from: no write-combining UAR without BlueFlame)
  grep "UCX  DIAG" /tmp/ucx.log
  grep -E "UCX +(ERROR|WARN)|QUERY_LAG" /tmp/ucx.log &&
    fail "ucx_info -d printed errors or warnings (above)"
  # BlueFlame: UCX maps its doorbells write-combining (a BF UAR), as on a card
  grep -E "alloc_uar.*type=WC failed" /tmp/ucx.log &&
    fail "UCX could not get a write-combining (BlueFlame) UAR"
  grep "Transport: .*mlx5" /tmp/ucx.log
fi
# UCX's perftests between the two guests over rc_mlx5 (RoCE v2 on the port's IPv4 GID): tag
# latency and bandwidth (ud_mlx5 for the wire-up, as UCX wants an auxiliary transport), no ERROR
# or WARN line
ip addr add 192.168.77.$((IDX + 1))/24 dev $E
wait_for 20 sh -c "grep -q 'RoCE v2' /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/* 2>/dev/null"
for t in tag_lat tag_bw; do
  barrier "ucx-$t" 7050
  if [ "$IDX" = 1 ]; then
    UCX_NET_DEVICES=mlx5_0:1 UCX_TLS=rc_mlx5,ud_mlx5,self timeout 120 ucx_perftest -p 13337 \
      > /tmp/ucxp.log 2>&1 || { cat /tmp/ucxp.log; fail "ucx_perftest $t (server) failed"; }
  else
    sleep 3
    ucx_client /tmp/ucxp.log env UCX_NET_DEVICES=mlx5_0:1 UCX_TLS=rc_mlx5,ud_mlx5,self \
      timeout 120 ucx_perftest 10.0.0.2 -p 13337 -t $t -n 2000 -s 64 ||
      { cat /tmp/ucxp.log; fail "ucx_perftest $t failed"; }
    tail -n 3 /tmp/ucxp.log
  fi
  grep -E "UCX +(ERROR|WARN)" /tmp/ucxp.log && fail "ucx_perftest $t printed errors or warnings"
done
ip addr del 192.168.77.$((IDX + 1))/24 dev $E

# --- 1. probe, the PMD's defaults
tp_start ""
snap
# --- 2. counts
traffic default 8
# --- 3. a drop rule for UDP in group 1 (software steering), then without it
[ "$IDX" = 1 ] && tp flow create 0 ingress group 0 pattern eth / end actions jump group 1 / end
[ "$IDX" = 1 ] && tp flow create 0 ingress group 1 pattern eth / ipv4 / udp / end actions count / drop / end
traffic drop 5
[ "$IDX" = 1 ] && tp flow query 0 1 count
[ "$IDX" = 1 ] && tp flow flush 0
traffic flushed 5
# --- 3c. a flow meter (the legacy FLOW_METER object, rte_mtr): srTCM at 640 kB/s (10,000 of
# these 64-byte frames a second) with a 6,400-byte bucket; red frames dropped
if [ "$IDX" = 1 ]; then
  tp add port meter profile srtcm_rfc2697 0 1 640000 6400 0 0
  tp add port meter policy 0 1 g_actions end y_actions end r_actions drop / end
  tp create port meter 0 1 1 1 yes 0xffff 0 g 0
  tp flow create 0 ingress group 0 pattern eth / end actions jump group 1 / end
  tp flow create 0 ingress group 1 pattern eth / ipv4 / udp / end actions meter mtr_id 1 / queue index 0 / end
fi
traffic meter 5
[ "$IDX" = 1 ] && tp flow flush 0
# --- 3b. header rewrites: instance 1's rules decapsulate VXLAN (VNI 42) and rewrite the
# destination MAC, TTL and port of UDP to port 6000; instance 0's kernel sends through a VXLAN
# device and plainly, 50 datagrams each
if [ "$IDX" = 1 ]; then
  tp flow create 0 ingress pattern eth / ipv4 / udp / vxlan vni is 42 / end actions vxlan_decap / count / queue index 0 / end
  tp flow create 0 ingress pattern eth / ipv4 / udp dst is 6000 / end actions set_mac_dst mac_addr $REWMAC / dec_ttl / set_tp_dst port 6001 / count / queue index 0 / end
  tp set verbose 1
  tp start
fi
barrier rewrite 7700
if [ "$IDX" = 0 ]; then
  ip addr add 192.168.77.1/24 dev $E
  ip neigh replace 192.168.77.2 lladdr $PEERMAC dev $E
  run ip link add vx0 type vxlan id 42 remote 192.168.77.2 dstport 4789 dev $E ||
    fail "ip link add vx0 type vxlan failed"
  ip addr add 10.42.0.1/24 dev vx0
  ip link set vx0 up
  ip neigh replace 10.42.0.2 lladdr $INNERMAC dev vx0
  net-bench udp-send 10.42.0.2 7000 100 30 50 || fail "udp over vx0 failed"
  net-bench udp-send 192.168.77.2 6000 100 30 50 || fail "udp to port 6000 failed"
  ip link del vx0
  ip addr del 192.168.77.1/24 dev $E
fi
barrier rewritten 7710
if [ "$IDX" = 1 ]; then
  # the last datagram can still be on its way through testpmd when instance 0 is done: its
  # dump would be lost with verbose 0. (The log cannot tell: up to 4 KiB of dumps wait in
  # testpmd's stdio buffer until more output comes, so the wait is a fixed one; the datagrams
  # left instance 0 before the barrier.)
  sleep 3
  tp set verbose 0
fi
# ... then instance 0's testpmd encapsulates what it sends (an egress vxlan_encap rule: NIC TX
# tables and a packet reformat context), and instance 1's decap rule takes it
barrier encap 7720
if [ "$IDX" = 0 ]; then
  tp set vxlan ip-version ipv4 vni 42 udp-src 4789 udp-dst 4789 ip-src 192.168.77.1 ip-dst 192.168.77.2 eth-src 02:4d:58:35:00:01 eth-dst $PEERMAC
  tp flow create 0 egress pattern eth / end actions vxlan_encap / end
  snap
  tp start
  sleep 3
  tp stop
  snap
  tp flow flush 0
fi
barrier encapped 7730
if [ "$IDX" = 1 ]; then
  sleep 2
  tp stop
  tp flow query 0 0 count
  tp flow query 0 1 count
fi
tp_stop /tmp/tp-default.log
# --- 2 again with the Multi-Packet Rx Queue, and 2b
barrier restart 7200
tp_start "$DEVARGS2"
snap
traffic mprq 8
tp_stop /tmp/tp-mprq.log
barrier restart3 7300
tp_start "$DEVARGS3"
snap
traffic plain 6
tp_stop /tmp/tp-plain.log
barrier restart4 7400
tp_start "$DEVARGS4"
snap
traffic noinline 6
tp_stop /tmp/tp-noinline.log
# --- 4. io forwarding, two queues
barrier restart5 7500
tp_start "" "--forward-mode=io --rxq=2 --txq=2 --rss-udp --txonly-multi-flow --eth-peer=0,$IOMAC"
snap
barrier go-io 7600
# (no barrier while the frames circulate: they are on the management link, but keep it quiet)
if [ "$IDX" = 1 ]; then
  tp start
  sleep 16
  tp stop
else
  # (instance 1's forwarding must have started: testpmd's start drops what its queues hold)
  sleep 4
  tp start tx_first
  sleep 8
  tp stop
fi
snap
barrier io-done 7610
tp_stop /tmp/tp-io.log

# the PMD's choices for these caps (its INFO lines): enhanced MPS, and flow counters read in
# batches into memory (flow_counters_dump), not one at a time ("fall-back DV counter management")
grep -E "MPS is|counter management|LRO" /tmp/tp-default.log
grep -q "enhanced MPS is enabled" /tmp/tp-default.log || fail "the PMD did not log its MPS mode"
if grep -q "fall-back DV counter management" /tmp/tp-default.log; then
  fail "the PMD falls back to one-at-a-time counter queries"
fi
for log in /tmp/tp-default.log /tmp/tp-mprq.log /tmp/tp-plain.log /tmp/tp-noinline.log \
    /tmp/tp-io.log; do
  head -n 12 $log
  # (the messages of the PMD, EAL and testpmd; not the statistics' names)
  if grep -E "^(mlx5_[a-z]+|EAL|testpmd|ETHDEV|MBUF):" $log | grep -i "fail\|error"; then
    fail "testpmd's log $log has failures or errors (above)"
  fi
done
if [ "$IDX" = 0 ]; then
  counts="$(sent /tmp/tp-default.log 2) $(sent /tmp/tp-default.log 3) $(sent /tmp/tp-default.log 4) $(sent /tmp/tp-mprq.log 2) $(sent /tmp/tp-plain.log 2) $(sent /tmp/tp-noinline.log 2) $(sent /tmp/tp-default.log 5)"
  echo "sent: $counts (default, drop, flushed, mprq, plain, noinline, meter)"
  io="$(sent /tmp/tp-io.log 2) $(stat /tmp/tp-io.log 2 RX-packets) $(stat /tmp/tp-io.log 2 RX-missed)"
  echo "io forwarding: sent, received, missed: $io"
  grep -q "Flow rule #0 created" /tmp/tp-default.log || fail "flow create (egress vxlan_encap) failed"
  encap=$(sent /tmp/tp-default.log 7)
  echo "sent with vxlan_encap: $encap"
  _try "counts" sh -c "echo $counts $io $encap | nc -w 2 10.0.0.2 7900"
else
  counts=$(timeout 120 nc -l -p 7900) || fail "no counts from instance 0"
  set -- $counts
  [ $# = 11 ] || fail "counts from instance 0: $counts"
  s_default=$1 s_drop=$2 s_flushed=$3 s_mprq=$4 s_plain=$5 s_noinline=$6 s_meter=$7
  io_sent=$8 io_got=$9 io_missed=${10} s_encap=${11}
  for t in "default /tmp/tp-default.log 2 $s_default" "mprq /tmp/tp-mprq.log 2 $s_mprq" \
      "plain /tmp/tp-plain.log 2 $s_plain" "noinline /tmp/tp-noinline.log 2 $s_noinline"; do
    set -- $t
    SENT=$4
    echo "== $1"
    counts $2 $3
    [ "$SENT" -gt 1000 ] || fail "$1: instance 0 sent only $SENT frames"
    [ "$uc" = "$SENT" ] || fail "$1: $SENT frames sent, $uc unicast frames came"
    [ "$got" -gt 0 ] || fail "$1: the PMD received nothing"
    # (a few more may be counted: a multicast frame reaches more than one of the PMD's
    # queues, each of which counts it or its drop)
    [ $((got + missed)) -ge $((uc + other)) ] && [ $((got + missed)) -le $((uc + other + 16)) ] ||
      fail "$1: received $got + missed $missed is not the $((uc + other)) frames that came"
  done
  grep -q "Flow rule #0 created" /tmp/tp-default.log || fail "flow create (jump) failed"
  grep -q "Flow rule #1 created" /tmp/tp-default.log || fail "flow create (drop, group 1) failed"
  echo "== drop rule (group 1)"
  SENT=$s_drop
  counts /tmp/tp-default.log 3
  [ "$SENT" -gt 1000 ] && [ "$uc" = "$SENT" ] && [ "$got" -le 10 ] ||
    fail "the drop rule let $got of $SENT frames through (the vport counted $uc)"
  # its COUNT action: a flow counter (DevX ALLOC_FLOW_COUNTER, the PMD's fall-back counter
  # management: queried one at a time)
  grep -A4 "^COUNT:" /tmp/tp-default.log
  hits=$(sed -n '/^COUNT:/,/bytes:/s/^ *hits: //p' /tmp/tp-default.log | head -n1)
  [ "$hits" = "$SENT" ] || fail "the drop rule's counter counted ${hits:-nothing}, $SENT were sent"
  echo "== flow flush"
  SENT=$s_flushed
  counts /tmp/tp-default.log 4
  [ "$SENT" -gt 1000 ] && [ "$got" -gt 1000 ] || fail "after flow flush only $got of $SENT came"
  echo "== flow meter"
  SENT=$s_meter
  counts /tmp/tp-default.log 5
  grep -iE "meter|Flow rule #[0-9]+ created" /tmp/tp-default.log | grep -v "^ *[a-z_]*:" | tail -n 8
  # green: 10,000 frames a second for the 5 s instance 0 sent (and the bucket's 100): at least
  # half of that and at most 8 s' worth; the rest (red) dropped
  [ "$SENT" -gt 200000 ] || fail "meter: instance 0 sent only $SENT frames (too few to meter)"
  [ "$uc" = "$SENT" ] || fail "meter: $SENT frames sent, $uc unicast frames came"
  [ "$got" -ge 25000 ] && [ "$got" -le 80100 ] ||
    fail "the meter (10,000 frames/s for 5 s) passed $got of $SENT frames"
  echo "== header rewrites"
  grep -E "Flow rule #[01] created|^COUNT:|hits:" /tmp/tp-default.log | tail -n 8
  grep -q "Flow rule #0 created" /tmp/tp-default.log || fail "flow create (vxlan_decap) failed"
  grep -q "Flow rule #1 created" /tmp/tp-default.log ||
    fail "flow create (set_mac_dst, dec_ttl, set_tp_dst) failed"
  hits=$(sed -n '/^COUNT:/,/bytes:/s/^ *hits: //p' /tmp/tp-default.log | tail -n 2 | tr '\n' ' ')
  # (the decap rule also took what instance 0's testpmd sent with vxlan_encap)
  [ "$s_encap" -gt 100 ] || fail "instance 0 sent only $s_encap frames with vxlan_encap"
  [ "$hits" = "$((50 + s_encap)) 50 " ] ||
    fail "the rewrite rules' counters: $hits (50 + $s_encap and 50 were sent)"
  # each datagram arrived as its inner frame (14 + 20 + 8 + 100 bytes, to the inner MAC),
  # and rewritten (to REWMAC)
  dec=$(grep -ci "dst=$INNERMAC - pool=[^ ]* - type=0x0800 - length=142 " /tmp/tp-default.log)
  rew=$(grep -ci "dst=$REWMAC " /tmp/tp-default.log)
  grep -m 2 -iE "dst=($INNERMAC|$REWMAC) " /tmp/tp-default.log
  echo "decapsulated frames: $dec; rewritten frames: $rew"
  [ "$dec" = 50 ] || fail "$dec of 50 VXLAN datagrams arrived decapsulated"
  if [ "$rew" != 50 ]; then
    echo "dumps to UDP port 6001: $(grep -c "UDP port=6001 " /tmp/tp-default.log)," \
      "to port 6000: $(grep -c "UDP port=6000 " /tmp/tp-default.log); those to 6000:"
    grep -a "UDP port=6000 " /tmp/tp-default.log | head -n 5
    echo "those to 6001 without dst=$REWMAC:"
    grep -a "UDP port=6001 " /tmp/tp-default.log | grep -v -i "dst=$REWMAC " | head -n 5
    fail "$rew of 50 datagrams to port 6000 arrived rewritten"
  fi
  echo "== io forwarding, two queues"
  grep -A2 "Forward Stats for RX Port= 0/Queue=" /tmp/tp-io.log
  got1=$(stat /tmp/tp-io.log 2 RX-packets) missed1=$(stat /tmp/tp-io.log 2 RX-missed)
  sent1=$(sent /tmp/tp-io.log 2)
  echo "instance 0 sent $io_sent, received $io_got, missed $io_missed;" \
    "instance 1 received $got1, missed $missed1, sent $sent1"
  [ "$io_sent" -gt 1000 ] || fail "io forwarding: instance 0 sent only $io_sent frames"
  [ $((got1 + missed1)) = "$io_sent" ] ||
    fail "io forwarding: instance 0 sent $io_sent, instance 1 received $got1 and missed $missed1"
  # (instance 0 stopped first: up to a burst per queue was still on its way to it)
  [ $((io_got + io_missed)) -le "$sent1" ] && [ $((io_got + io_missed + 64)) -ge "$sent1" ] ||
    fail "io forwarding: instance 1 sent $sent1, instance 0 received $io_got and missed $io_missed"
fi
# both queues of each instance forwarded (RSS spread the 64 flows)
for q in 0 1; do
  n=$(awk -v q="Queue= $q" '$0 ~ "Forward Stats for RX Port= 0/" q " " {f = 1; next}
    f && /RX-packets:/ {print $2; exit}' /tmp/tp-io.log)
  echo "io forwarding: queue $q received ${n:-nothing}"
  [ "${n:-0}" -gt 100 ] || fail "io forwarding: queue $q received ${n:-nothing} (no RSS spread?)"
done
echo "dpdk: OK"
