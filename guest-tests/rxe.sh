#!/bin/sh
# Soft-RoCE between two guests (a self-test of the image and the runner, no mlx5-hca): both
# instances have a virtio-net NIC on the fabric netdev (--fabric-nic all=virtio) and run
# rdma_rxe on it (rxe0). The GID table holds the default GID and the IPv4 address as RoCE v2
# on that NIC; then the RoCE programs of lib/roce.sh run with each instance as the server once:
# ibv_rc_pingpong and ibv_ud_pingpong with the IPv4 RoCE v2 GID (-g), rping, perftest
# ib_write_bw -R, ib_send_bw -x and ib_read_lat -x. The same programs run over the device in
# roce.sh (both mlx5, link-type=eth) and roce-rxe.sh (mlx5 against rxe).
# mlx5t-instances: 2
# mlx5t-timeout: 600
# mlx5t-fabric-nic: all=virtio
# perftest calibrates its cycle counter against usleep and gives up when the fit is poor
# (r^2 < 0.9, "Can't produce a report"), which a busy TCG host causes now and then
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/roce.sh
roce_up
[ "$RDEV" = rxe0 ] || fail "expected Soft-RoCE (rxe0) on the virtio-net fabric NIC, got $RDEV"
roce_check_gids
wait_peer
barrier up 6200
roce_suite 0
roce_suite 1
echo "rxe: OK"
