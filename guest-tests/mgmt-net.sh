#!/bin/sh
# Runner/image self-test, no HCA needed: two guests see each other on the management network
# (virtio-net over a QEMU stream socket); /init configured 10.0.0.(IDX+1)/24 and PEER_IP.
# mlx5t-instances: 2
# mlx5t-hca: no
. /test/lib/common.sh
echo "instance $IDX of $N: $MGMT_IF $MY_IP, peer $PEER_IP"
[ -n "$MGMT_IF" ] && [ -n "$PEER_IP" ] || fail "management network not configured"
run ip -br addr show dev "$MGMT_IF"
# the peer may still be booting: retry for up to 60 s
wait_peer
run ping -c 3 "$PEER_IP" || fail "ping $PEER_IP failed"
# keep answering until the peer has seen us too
sleep 3
echo "mgmt-net: OK"
