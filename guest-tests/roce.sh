#!/bin/sh
# RoCE v2 between two guests on the device's Ethernet port (link-type=eth): mlx5_core brings up
# the mlx5e interface and mlx5_ib the RDMA device mlx5_0 on it (link layer Ethernet). Its GID
# table holds the default GID (fe80::EUI-64 of the interface's MAC) and the interface's IPv4
# address, each as RoCE v2 on the mlx5e interface; then the RoCE programs of lib/roce.sh run
# with each instance as the server once: ibv_rc_pingpong and ibv_ud_pingpong with the IPv4
# RoCE v2 GID (-g), rping (RDMA CM over IP), perftest ib_write_bw -R, ib_send_bw -x and
# ib_read_lat -x; then UC, SRQ, the IPv6 default GID and DC (perftest -c DC). (rxe.sh runs the
# lib/roce.sh programs between two Soft-RoCE guests.)
# mlx5t-instances: 2
# mlx5t-timeout: 900
# mlx5t-device-args: link-type=eth
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
echo "roce: OK"
