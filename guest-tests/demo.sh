#!/bin/sh
# Demo (scripts/demo.sh): two guests, each with an emulated ConnectX-5, linked by a QEMU
# -netdev stream socket. Each loads the stock drivers and shows its HCA; then they run
# ibv_rc_pingpong against each other (LID/QPN/PSN exchanged over the management network).
# mlx5t-instances: 2
# mlx5t-timeout: 600
. /test/lib/common.sh
. /test/lib/pingpong.sh
load_mlx5 >/dev/null
wait_ib_active mlx5_0 1 90 >/dev/null
echo "\$ ibv_devinfo -d mlx5_0"
ibv_devinfo -d mlx5_0 || fail "ibv_devinfo failed"
wait_peer
if [ "$IDX" = 0 ]; then echo "\$ ibv_rc_pingpong -d mlx5_0 -n 1000"; else
  echo "\$ ibv_rc_pingpong -d mlx5_0 -n 1000 $PEER_IP"; fi
pingpong 18515 ibv_rc_pingpong -d mlx5_0 -n 1000
