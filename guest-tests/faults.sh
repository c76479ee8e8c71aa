#!/bin/sh
# A lossy fabric (fault injection, docs/fabric.md): each device drops 5% of the frames it
# receives, holds back 5% behind the next one (reordering), duplicates 2% and corrupts 1%
# (a flipped bit under the ICRC), from a seed per guest. rdma-verify's RC traffic (SEND 1 B ..
# 1 MiB, bursts, RDMA WRITE, READ, atomics, CQ resize; five rounds each way, no UD since
# datagrams may be lost) must complete with every byte verified: the transport retransmits what
# was lost, discards duplicates (atomics are answered from responder resources, not run twice)
# and the corrupted frames are dropped for their ICRC, which PortRcvErrors counts. The RDMA
# queue counters (hw_counters, `rdma statistic`) count the requests executed and the recovery:
# packets out of sequence, duplicates, sequence NAKs, implied NAKs and ACK timeouts.
# mlx5t-instances: 2
# mlx5t-timeout: 900
# mlx5t-qemu-args: -global mlx5-hca.fault-drop=5 -global mlx5-hca.fault-reorder=5 -global mlx5-hca.fault-dup=2 -global mlx5-hca.fault-corrupt=1 -global mlx5-hca.fault-seed=7{idx}
. /test/lib/common.sh
. /test/lib/pingpong.sh
hca_and_peer_up
cnt=/sys/class/infiniband/mlx5_0/ports/1/counters
err0=$(cat $cnt/port_rcv_errors)
hw=/sys/class/infiniband/mlx5_0/ports/1/hw_counters
[ -r $hw/out_of_sequence ] || { ls /sys/class/infiniband/mlx5_0/ports/1; fail "no hw_counters"; }
retx="out_of_sequence duplicate_request packet_seq_err implied_nak_seq_err local_ack_timeout_err"
sum() { t=0; for c in "$@"; do t=$((t + $(cat $hw/$c))); done; echo $t; }
r0=$(sum $retx)
w0=$(sum rx_write_requests rx_read_requests rx_atomic_requests)
_client_only=
_pair 18560 "^rdma-verify: [0-9]+ messages, [0-9]+ bytes verified, OK" rdma-verify -d mlx5_0 -r 5 -U
err1=$(cat $cnt/port_rcv_errors)
echo "port_rcv_errors: $err0 -> $err1 (frames dropped for a bad ICRC)"
[ "$err1" -gt "$err0" ] || fail "no corrupted frame was counted by PortRcvErrors"
for c in $retx rx_write_requests rx_read_requests rx_atomic_requests rnr_nak_retry_err \
  out_of_buffer req_cqe_error resp_cqe_error; do
  echo "hw_counters/$c: $(cat $hw/$c)"
done
r1=$(sum $retx)
w1=$(sum rx_write_requests rx_read_requests rx_atomic_requests)
echo "retransmission counters: $r0 -> $r1; RDMA requests executed: $w0 -> $w1"
[ "$w1" -gt "$w0" ] || fail "the queue counters did not count the RDMA requests executed here"
[ "$r1" -gt "$r0" ] || fail "the queue counters did not count the recovery from the losses"
rdma statistic show link mlx5_0/1 > /tmp/stat 2>&1 || { cat /tmp/stat; fail "rdma statistic"; }
grep -q "out_of_sequence" /tmp/stat || { cat /tmp/stat; fail "rdma statistic: no Q counters"; }
echo "faults: OK"
