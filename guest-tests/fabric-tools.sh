#!/bin/sh
# infiniband-diags against the fabric's services between two guests: saquery (NodeRecord
# table over RMPP, PathRecord, GUIDInfoRecord, ServiceRecord), sminfo (the elected master SM answers SMInfo at its QP0),
# smpquery portinfo of the other node (a LID-routed SMP over the wire to its QP0, answered by
# its SMA), ibping (vendor class on QP1), perfquery and the kernel's counters (PerfMgt through
# MAD_IFC) showing the traffic of a transfer, and perfquery -r clearing them.
# mlx5t-instances: 2
# mlx5t-timeout: 500
. /test/lib/common.sh
. /test/lib/ipoib.sh
load_mlx5
wait_ib_active mlx5_0 1 90
MY_LID=$(cat /sys/class/infiniband/mlx5_0/ports/1/lid)
PEER_LID=$((2 - IDX))           # guest-run.py: LID = instance index + 1
SM_LID=$(cat /sys/class/infiniband/mlx5_0/ports/1/sm_lid)
echo "lid $MY_LID, sm_lid $SM_LID"
# the lower port GUID wins the election (equal priorities): instance 0's port, LID 1
[ "$((SM_LID))" = 1 ] || fail "sm_lid is $SM_LID, want 0x1 (the master's LID)"
barrier ports-up 6200

out=$(saquery -N) || fail "saquery -N failed: $out"
echo "$out" | grep -E "^\s+lid|NodeDescription|port_guid"
[ "$(echo "$out" | grep -cE '^\s+lid\.+(1|2)$')" = 2 ] || fail "saquery -N does not list both nodes"
out=$(saquery -p "$PEER_LID") || fail "saquery -p $PEER_LID failed: $out"
echo "$out"
echo "$out" | grep -Eq "dlid\.+$PEER_LID$" || fail "PathRecord has the wrong DLID"
echo "$out" | grep -Eq "slid\.+$((MY_LID))$" || fail "PathRecord has the wrong SLID"
echo "$out" | grep -Eq "pkey\.+0xFFFF" || fail "PathRecord has the wrong P_Key"
out=$(saquery GIR) || fail "saquery GIR failed: $out"
[ "$(echo "$out" | grep -cE 'GUID 0\.+0x[0-9a-f]*[1-9a-f][0-9a-f]*$')" = 2 ] ||
  fail "GUIDInfoRecords do not give both port GUIDs: $out"
out=$(saquery SR) || fail "saquery SR (an empty ServiceRecord table) failed: $out"
out=$(sminfo) || fail "sminfo failed: $out"
echo "$out"
echo "$out" | grep -q "sm lid 1 .*SMINFO_MASTER" || fail "sminfo does not show master lid 1"
out=$(smpquery portinfo "$PEER_LID") || fail "smpquery portinfo $PEER_LID failed"
echo "$out" | grep -E "^(Lid|SMLid|LinkState|LMC)"
echo "$out" | grep -Eq "^Lid:\.+$PEER_LID$" || fail "smpquery reached the wrong port"

# ibping: instance 0 serves, instance 1 pings it
if [ "$IDX" = 0 ]; then
  ibping -S -C mlx5_0 & srv=$!
  barrier ibping-server 6201
  barrier ibping-done 6202
  kill $srv
else
  barrier ibping-server 6201
  out=$(ibping -C mlx5_0 -c 5 1) || fail "ibping failed: $out"
  echo "$out" | tail -3
  echo "$out" | grep -q "5 received" || fail "ibping lost packets"
  barrier ibping-done 6202
fi

# counters: clear, move data, read them back (here and from the other node)
run perfquery -r >/dev/null || fail "perfquery -r failed"
barrier cleared 6203
ipoib_up
tcp_transfer 5003 192.168.77.1
barrier moved 6204
out=$(perfquery) || fail "perfquery failed: $out"
echo "$out" | grep -E "Port(Xmit|Rcv)(Data|Pkts)"
# instance 1 sent 1.8 MB to instance 0: counted in 4-octet words, headers included
dir=Xmit; [ "$IDX" = 0 ] && dir=Rcv
data=$(echo "$out" | sed -n "s/^Port${dir}Data:\.*//p")
[ "${data:-0}" -gt 450000 ] || fail "Port${dir}Data $data after a 1.8 MB transfer"
out=$(perfquery -x "$PEER_LID") || fail "perfquery -x $PEER_LID failed: $out"
echo "$out" | grep -E "Port(Xmit|Rcv)Data|Multicast"
sysfs=$(cat /sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data)
echo "sysfs port_rcv_data $sysfs"
[ "$sysfs" -gt 0 ] || fail "sysfs port_rcv_data is 0"
barrier done 6205
echo "fabric-tools: OK"
