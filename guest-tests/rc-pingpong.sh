#!/bin/sh
# ibv_rc_pingpong between two guests, exactly as the rdma-core walk-through runs it: the two
# sides exchange LID, QPN and PSN over TCP on the management network, then ping-pong over the
# emulated HCAs' fabric link. Variants: default size, -s 1, -s 65536, and -e (completion
# events instead of polling).
# mlx5t-instances: 2
# mlx5t-timeout: 900
. /test/lib/common.sh
. /test/lib/pingpong.sh
hca_and_peer_up

pingpong 18515 ibv_rc_pingpong -d mlx5_0 -n 200
pingpong 18516 ibv_rc_pingpong -d mlx5_0 -n 200 -s 1
pingpong 18517 ibv_rc_pingpong -d mlx5_0 -n 50 -s 65536
pingpong 18518 ibv_rc_pingpong -d mlx5_0 -n 200 -e
echo "rc-pingpong: OK"
