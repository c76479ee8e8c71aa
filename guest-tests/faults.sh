#!/bin/sh
# A lossy fabric (fault injection, docs/fabric.md): each device drops 5% of the frames it
# receives, holds back 5% behind the next one (reordering), duplicates 2% and corrupts 1%
# (a flipped bit under the ICRC), from a seed per guest. rdma-verify's RC traffic (SEND 1 B ..
# 1 MiB, bursts, RDMA WRITE, READ, atomics, CQ resize; five rounds each way, no UD since
# datagrams may be lost) must complete with every byte verified: the transport retransmits what
# was lost, discards duplicates (atomics are answered from responder resources, not run twice)
# and the corrupted frames are dropped for their ICRC, which PortRcvErrors counts.
# mlx5t-instances: 2
# mlx5t-timeout: 900
# mlx5t-qemu-args: -global mlx5-hca.fault-drop=5 -global mlx5-hca.fault-reorder=5 -global mlx5-hca.fault-dup=2 -global mlx5-hca.fault-corrupt=1 -global mlx5-hca.fault-seed=7{idx}
. /test/lib/common.sh
. /test/lib/pingpong.sh
hca_and_peer_up
cnt=/sys/class/infiniband/mlx5_0/ports/1/counters
err0=$(cat $cnt/port_rcv_errors)
_client_only=
_pair 18560 "^rdma-verify: [0-9]+ messages, [0-9]+ bytes verified, OK" rdma-verify -d mlx5_0 -r 5 -U
err1=$(cat $cnt/port_rcv_errors)
echo "port_rcv_errors: $err0 -> $err1 (frames dropped for a bad ICRC)"
[ "$err1" -gt "$err0" ] || fail "no corrupted frame was counted by PortRcvErrors"
echo "faults: OK"
