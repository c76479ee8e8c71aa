#!/bin/sh
# RoCE v2 between two guests on the device's Ethernet port (link-type=eth): mlx5_core brings up
# the mlx5e interface and mlx5_ib the RDMA device mlx5_0 on it (link layer Ethernet). Its GID
# table holds the default GID (fe80::EUI-64 of the interface's MAC) and the interface's IPv4
# address, each as RoCE v2 on the mlx5e interface; then the RoCE programs of lib/roce.sh run
# with each instance as the server once: ibv_rc_pingpong and ibv_ud_pingpong with the IPv4
# RoCE v2 GID (-g), rping (RDMA CM over IP), perftest ib_write_bw -R, ib_send_bw -x and
# ib_read_lat -x; then UC, SRQ, the IPv6 default GID and DC (perftest -c DC). (rxe.sh runs the
# lib/roce.sh programs between two Soft-RoCE guests.)
# The fabric is congested: each device receives 5% of the ECN-capable RoCE frames marked
# Congestion Experienced (fault-ecn, docs/fabric.md). Everything must work as before, and the
# congestion counters of mlx5_ib's hw_counters show DCQCN at work (frames sent ECN-capable,
# marked frames counted, CNPs sent and handled); mlx5_ib's cc_params in debugfs read and set
# the firmware's parameters.
# mlx5t-instances: 2
# mlx5t-timeout: 900
# mlx5t-device-args: link-type=eth,fault-ecn=5
# mlx5t-allow: MODIFY_CONG_PARAMS\(0x825\) op_mod\(0x0\) failed, status bad parameter\(0x3\), syndrome \(0x2000001c\)
# perftest calibrates its cycle counter against usleep and gives up when the fit is poor
# (r^2 < 0.9, "Can't produce a report"), which a busy TCG host causes now and then
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/roce.sh
roce_up
[ "$RDEV" = mlx5_0 ] || fail "expected mlx5_0, got $RDEV"
roce_check_gids
wait_peer
barrier up 6200
roce_suite 0
roce_suite 1

# what Soft-RoCE has not, mlx5 to mlx5 over RoCE: UC, SRQ, the IPv6 link-local GID (index of
# the default GID), DC (perftest -c DC: DCIs and a DCT answering at the initiator's address)
S=10.0.0.1
ROCE_PORT=$((ROCE_PORT + 1))
roce_pair ibv_uc_pingpong 0 "bytes in .* seconds" \
  ibv_uc_pingpong -d mlx5_0 -g "$GIDX" -p $ROCE_PORT -- ibv_uc_pingpong -d mlx5_0 -g "$GIDX" -p $ROCE_PORT $S
ROCE_PORT=$((ROCE_PORT + 1))
roce_pair ibv_srq_pingpong 0 "bytes in .* seconds" \
  ibv_srq_pingpong -d mlx5_0 -g "$GIDX" -p $ROCE_PORT -- ibv_srq_pingpong -d mlx5_0 -g "$GIDX" -p $ROCE_PORT $S
G6=$(gid_index mlx5_0 1 "$(mac_gid "$(cat /sys/class/net/$RIF/address)")") || fail "no default GID"
ROCE_PORT=$((ROCE_PORT + 1))
roce_pair "ibv_rc_pingpong (IPv6 GID $G6)" 0 "bytes in .* seconds" \
  ibv_rc_pingpong -d mlx5_0 -g "$G6" -p $ROCE_PORT -- ibv_rc_pingpong -d mlx5_0 -g "$G6" -p $ROCE_PORT $S
roce_expect "GID fe80::" "IPv6 link-local GIDs"
ROCE_PORT=$((ROCE_PORT + 1))
roce_pair "ib_write_bw -c DC" 0 "^ *65536 +200 " \
  ib_write_bw -c DC -d mlx5_0 -x "$GIDX" -n 200 -p $ROCE_PORT -- \
  ib_write_bw -c DC -d mlx5_0 -x "$GIDX" -n 200 -p $ROCE_PORT $S

# congestion control: both instances sent and received, so each marked, answered and handled
hw=/sys/class/infiniband/mlx5_0/ports/1/hw_counters
for c in np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled rp_cnp_ignored; do
  [ -r $hw/$c ] || { ls $hw; fail "no congestion counter $c in hw_counters"; }
  echo "hw_counters/$c: $(cat $hw/$c)"
done
[ "$(cat $hw/np_ecn_marked_roce_packets)" -gt 0 ] || fail "no CE-marked frame was counted"
[ "$(cat $hw/np_cnp_sent)" -gt 0 ] || fail "no CNP was sent for the marked frames"
[ "$(cat $hw/rp_cnp_handled)" -gt 0 ] || fail "no CNP from the peer was handled"
[ "$(cat $hw/rp_cnp_ignored)" -eq 0 ] || fail "CNPs were ignored with every priority enabled"
rdma statistic show link mlx5_0/1 > /tmp/stat 2>&1 || { cat /tmp/stat; fail "rdma statistic"; }
grep -q "np_cnp_sent" /tmp/stat || { cat /tmp/stat; fail "rdma statistic: no congestion counters"; }
grep -q " /sys/kernel/debug " /proc/mounts || mount -t debugfs none /sys/kernel/debug
cc=$(ls -d /sys/kernel/debug/mlx5/*/cc_params 2>/dev/null | head -1)
[ -n "$cc" ] || { ls /sys/kernel/debug/mlx5/*; fail "no cc_params in debugfs"; }
for p in rp_time_reset rp_ai_rate rp_gd rp_initial_alpha_value np_cnp_dscp np_cnp_prio \
  np_min_time_between_cnps; do
  echo "cc_params/$p: $(cat $cc/$p)"
done
[ "$(cat $cc/rp_time_reset)" = 300 ] || fail "cc_params: rp_time_reset is not the default 300"
[ "$(cat $cc/np_cnp_dscp)" = 48 ] || fail "cc_params: np_cnp_dscp is not the default 48"
echo 26 > $cc/np_cnp_dscp || fail "cc_params: np_cnp_dscp cannot be set"
[ "$(cat $cc/np_cnp_dscp)" = 26 ] || fail "cc_params: np_cnp_dscp did not change"
if echo 101 > $cc/rp_min_dec_fac 2>/dev/null; then
  fail "cc_params: rp_min_dec_fac 101 (over 100 %) was taken"
fi
echo 48 > $cc/np_cnp_dscp
echo "roce: OK"
