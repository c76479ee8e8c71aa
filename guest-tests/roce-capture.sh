#!/bin/sh
# RoCE v2 capture: ibv_rc_pingpong over the IPv4 RoCE v2 GIDs of two Ethernet-mode guests while
# QEMU's filter-dump writes every frame of each instance's fabric netdev to LOGDIR/fab-I.pcap.
# The host-side checker (scripts/check-capture.py --roce, run by scripts/capture-test.py
# --roce) decodes them with tshark: the RoCE v2 frames among the interface's other traffic
# (ARP, neighbour discovery, the pings), real MACs and IP addresses, IPv4 header checksums,
# ICRCs recomputed from the raw frames, consecutive PSNs, ACKs and MSNs, and the QPs, PSNs and
# sizes of the pingpong runs below (their "local/remote address ... GID" lines).
# mlx5t-instances: 2
# mlx5t-timeout: 600
# mlx5t-device-args: link-type=eth
# mlx5t-qemu-args: -object filter-dump,id=cap0,netdev=fab0,file={logdir}/fab-{idx}.pcap
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/pingpong.sh
. /test/lib/roce.sh
roce_up
barrier pingpong 6300
pingpong 18560 ibv_rc_pingpong -d mlx5_0 -g "$GIDX" -n 20
pingpong 18561 ibv_rc_pingpong -d mlx5_0 -g "$GIDX" -n 20 -s 64
pingpong 18562 ibv_rc_pingpong -d mlx5_0 -g "$GIDX" -n 10 -s 10000
echo "roce-capture: OK"
