#!/bin/sh
# The other rdma-core pingpong examples between two guests: unreliable connected, unreliable
# datagram (with and without a GRH), and a shared receive queue feeding 16 RC QPs.
# mlx5t-instances: 2
# mlx5t-timeout: 900
. /test/lib/common.sh
. /test/lib/pingpong.sh
load_mlx5
wait_ib_active mlx5_0 1 90
wait_for 60 ping -c 1 -W 1 "$PEER_IP" || fail "peer $PEER_IP does not answer"

pingpong 18520 ibv_uc_pingpong -d mlx5_0 -n 200
pingpong 18521 ibv_uc_pingpong -d mlx5_0 -n 50 -s 16384
pingpong 18522 ibv_ud_pingpong -d mlx5_0 -n 200
pingpong 18523 ibv_ud_pingpong -d mlx5_0 -n 200 -s 4000 -g 0
pingpong 18524 ibv_srq_pingpong -d mlx5_0 -n 200
pingpong 18525 ibv_srq_pingpong -d mlx5_0 -n 50 -q 4 -s 8192 -e
echo "pingpong-variants: OK"
