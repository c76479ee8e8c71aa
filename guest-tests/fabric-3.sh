#!/bin/sh
# Three guests, three QEMU processes, one fabric through a VDE switch (Debian's vde_switch, a
# learning switch; scripts/guest-run.py starts it): every port agrees on one master SM (the
# lowest GUID: instance 0), the SA knows all three nodes (saquery -N: an RMPP table), IPoIB
# reaches everyone, RDMA CM connects the two ports that are not the SM (rping), and UD
# multicast (mckey, joined through the SA) sent by instance 0 is received by the two others.
# mlx5t-instances: 3
# mlx5t-timeout: 800
. /test/lib/common.sh
. /test/lib/ipoib.sh
load_mlx5
wait_ib_active mlx5_0 1 90
SM_LID=$(cat /sys/class/infiniband/mlx5_0/ports/1/sm_lid)
[ "$((SM_LID))" = 1 ] || fail "sm_lid is $SM_LID, want 0x1 (instance 0's port)"
barrier ports-up 6300
out=$(saquery -N) || fail "saquery -N failed: $out"
n=$(echo "$out" | grep -cE '^\s+lid\.+[123]$')
echo "saquery -N: $n nodes"
[ "$n" = 3 ] || fail "saquery -N lists $n nodes, want 3: $out"
ipoib_up
barrier ipoib-up 6302

# RDMA CM between instances 1 and 2 (neither is the SM)
case $IDX in
  1) timeout 120 rping -s -a 192.168.77.2 -C 10 -v > /tmp/rping 2>&1 || fail "rping server: $(cat /tmp/rping)" ;;
  2) _end=$(($(date +%s) + 60))
     until timeout 120 rping -c -a 192.168.77.2 -C 10 -v > /tmp/rping 2>&1; do
       [ "$(date +%s)" -lt "$_end" ] || fail "rping client: $(cat /tmp/rping)"
       sleep 0.5
     done
     grep -q "rdma-ping-9" /tmp/rping || fail "rping: $(cat /tmp/rping)"
     tail -2 /tmp/rping ;;
esac
barrier rping 6304

# multicast: 1 and 2 join and wait for 10 messages; 0 joins and sends
if [ "$IDX" = 0 ]; then
  barrier receivers-joined 6306
  run mckey -m 239.1.2.3 -b "$IB_ME" -s -C 10 > /tmp/mckey 2>&1 || fail "mckey sender: $(cat /tmp/mckey)"
else
  mckey -m 239.1.2.3 -b "$IB_ME" -C 10 > /tmp/mckey 2>&1 &
  pid=$!
  # (its output is block-buffered until it exits: look for its QP, then give the SA join
  # a moment; the sender itself waits 3 s after its own join before sending)
  wait_for 60 sh -c "rdma res show qp | grep -q mckey" || fail "mckey made no QP"
  sleep 3
  barrier receivers-joined 6306
  wait_for 120 sh -c "! kill -0 $pid 2>/dev/null" || fail "mckey receiver got no data: $(cat /tmp/mckey)"
  wait $pid || fail "mckey receiver failed: $(cat /tmp/mckey)"
fi
cat /tmp/mckey
grep -q "test complete" /tmp/mckey || fail "mckey did not complete"
barrier done 6308
echo "fabric-3: OK"
