#!/bin/sh
# RoCE v2 between the device and Linux Soft-RoCE: instance 0 has the mlx5-hca with
# link-type=eth (mlx5_0 on its mlx5e interface), instance 1 a virtio-net NIC on the same fabric
# netdev (--fabric-nic 1=virtio) with rdma_rxe on it (rxe0). Both GID tables hold the IPv4
# address as RoCE v2; then the RoCE programs of lib/roce.sh run in both directions (each side
# the server once): ibv_rc_pingpong and ibv_ud_pingpong with the IPv4 RoCE v2 GID (-g), rping,
# perftest ib_write_bw -R, ib_send_bw -x and ib_read_lat -x, so the device's RoCE v2 frames
# (UDP port 4791, ICRC, GRH from the GID) are what another implementation expects.
# mlx5t-instances: 2
# mlx5t-timeout: 900
# mlx5t-device-args: link-type=eth
# mlx5t-fabric-nic: 1=virtio
# perftest calibrates its cycle counter against usleep and gives up when the fit is poor
# (r^2 < 0.9, "Can't produce a report"), which a busy TCG host causes now and then
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/roce.sh
roce_up
case $IDX:$RDEV in
  0:mlx5_0|1:rxe0) ;;
  *) fail "instance $IDX has $RDEV: expected mlx5_0 on instance 0 and rxe0 on instance 1" ;;
esac
roce_check_gids
wait_peer
barrier up 6200
roce_suite 0
roce_suite 1
echo "roce-rxe: OK"
