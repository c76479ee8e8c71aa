#!/bin/sh
# Fabric packet capture: ibv_rc_pingpong between two guests while QEMU's filter-dump writes
# every frame of each instance's fabric netdev to LOGDIR/fab-I.pcap. The host-side checker
# (scripts/check-capture.py, run by scripts/capture-test.py) then decodes the capture with
# tshark: InfiniBand BTH on every frame, RC SEND ONLY/FIRST/MIDDLE/LAST and ACKNOWLEDGE,
# consecutive PSNs, destination QPs and PSNs as exchanged by the pingpong pairs below (it reads
# their "local/remote address" lines from the serial log), message sizes, ICRCs.
# Sizes with the default 1024-byte path MTU: 64 -> SEND ONLY; 4096 (default) -> FIRST, 2x
# MIDDLE, LAST; 10000 -> FIRST, 8x MIDDLE, LAST.
# mlx5t-instances: 2
# mlx5t-timeout: 600
# mlx5t-qemu-args: -object filter-dump,id=cap0,netdev=fab0,file={logdir}/fab-{idx}.pcap
. /test/lib/common.sh
. /test/lib/pingpong.sh
hca_and_peer_up

pingpong 18540 ibv_rc_pingpong -d mlx5_0 -n 20
pingpong 18541 ibv_rc_pingpong -d mlx5_0 -n 20 -s 64
pingpong 18542 ibv_rc_pingpong -d mlx5_0 -n 10 -s 10000
echo "capture: OK"
