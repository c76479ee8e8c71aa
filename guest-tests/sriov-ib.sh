#!/bin/sh
# SR-IOV on an InfiniBand port (issue 29; docs/sriov-ib-notes.md). Guest 0 makes two VFs
# (`echo 2 > sriov_numvfs`), each probed by mlx5_core and mlx5_ib with a clean dmesg. A VF's port
# is an HCA vport of the PF's (ib_virt): ACTIVE with the PF's LID and SM, its own port GUID as
# GID 0, 4X QDR (the port registers), GRH required. `ip link set ib0 vf 0 node_guid|port_guid`
# sets its GUIDs (a new port GUID reaches the running VF as a GID change) and `state
# disable|auto` its port's state policy. Over the PF's link: ibv_rc_pingpong and ibv_ud_pingpong
# (with GIDs, -g 0) between VF 0 and guest 1's PF, and RC between the two VFs of guest 0 (their
# QPN ranges tell them apart on the shared LID). Without a GID the VF cannot connect (GRH
# required). The SA knows the VFs' GUIDs (the PF's port's aliases): guest 1's saquery lists VF
# 0's; VF 1's IPoIB interface (in a namespace) and guest 1's ib0 ping each other, and rping
# (RDMA CM) runs from VF 1 to guest 1. `echo 0` removes them.
# mlx5t-instances: 2
# mlx5t-timeout: 400
. /test/lib/common.sh
. /test/lib/pingpong.sh
. /test/lib/ipoib.sh
hca_and_peer_up
if [ "$IDX" = 1 ]; then
  pingpong 18601 ibv_rc_pingpong -d mlx5_0 -g 0 -n 50
  pingpong 18602 ibv_ud_pingpong -d mlx5_0 -g 0 -n 50
  run modprobe ib_ipoib || fail "modprobe ib_ipoib failed"
  wait_for 30 test -e /sys/class/net/ib0 || fail "no ib0"
  ip addr add 192.168.77.2/24 dev ib0 && ip link set ib0 up || fail "ib0 up failed"
  barrier ipoib 6300
  # the SA lists VF 0's port GUID as an alias of guest 0's port
  out=$(saquery GUIDInfoRecord 2>&1)
  echo "$out"
  expect "$out" "0x0011223344556688" "saquery GUIDInfoRecord: VF 0's port GUID"
  wait_for 30 ping -c 1 -W 1 192.168.77.11 || fail "no ping reply from VF 1's IPoIB (192.168.77.11)"
  echo "ping VF 1: $(ping -c 3 -i 0.2 192.168.77.11 | tail -n 2 | head -n 1)"
  timeout 90 rping -s -a 192.168.77.2 -C 5 -v >/tmp/rping.out 2>&1; rc=$?
  cat /tmp/rping.out
  [ $rc = 0 ] || fail "rping server exited with $rc"
  barrier vf-done 6310
  echo "sriov-ib: OK"
  exit 0
fi
D=/sys/bus/pci/devices/$(basename "$(readlink /sys/class/infiniband/mlx5_0/device)")
[ "$(cat "$D/sriov_totalvfs")" = 8 ] || fail "sriov_totalvfs is not 8"
run sh -c "echo 2 > $D/sriov_numvfs" || fail "echo 2 > sriov_numvfs failed"
wait_for 60 sh -c "[ \$(ls /sys/class/infiniband | wc -l) = 3 ]" ||
  { ls /sys/class/infiniband; fail "the two VFs' RDMA devices did not appear"; }
[ "$(cat /sys/class/infiniband/mlx5_1/device/device)" = 0x1018 ] || fail "mlx5_1 is not a VF"
wait_ib_active mlx5_1 1 30
wait_ib_active mlx5_2 1 30
P=/sys/class/infiniband/mlx5_0/ports/1
for d in mlx5_0 mlx5_1 mlx5_2; do
  V=/sys/class/infiniband/$d/ports/1
  echo "$d: $(cat $V/state), $(cat $V/link_layer), lid $(cat $V/lid), sm_lid $(cat $V/sm_lid)," \
    "$(cat $V/rate), GID 0 $(cat $V/gids/0)"
  [ "$(cat $V/lid)" = "$(cat $P/lid)" ] && [ "$(cat $V/sm_lid)" = "$(cat $P/sm_lid)" ] ||
    fail "$d: not the PF's LID and SM LID"
  expect "$(cat $V/rate)" "40 Gb/sec \(4X QDR\)" "$d's rate"
done
[ "$(cat /sys/class/infiniband/mlx5_1/ports/1/gids/0)" != "$(cat $P/gids/0)" ] ||
  fail "VF 0's GID 0 is the PF's"

run modprobe ib_ipoib || fail "modprobe ib_ipoib failed"
wait_for 30 test -e /sys/class/net/ib0 || fail "no ib0"
run ip link set ib0 vf 0 node_guid 00:11:22:33:44:55:66:77 || fail "ip link set ib0 vf 0 node_guid failed"
run ip link set ib0 vf 0 port_guid 00:11:22:33:44:55:66:88 || fail "ip link set ib0 vf 0 port_guid failed"
lk=$(ip link show ib0)
echo "$lk"
expect "$lk" "vf 0 .*NODE_GUID 00:11:22:33:44:55:66:77" "ip link show ib0: VF 0's node GUID"
expect "$lk" "vf 1 " "ip link show ib0: two VFs"
wait_for 20 sh -c "grep -q '^fe80:0000:0000:0000:0011:2233:4455:6688$' /sys/class/infiniband/mlx5_1/ports/1/gids/0" ||
  fail "VF 0's GID 0 did not follow its new port GUID: $(cat /sys/class/infiniband/mlx5_1/ports/1/gids/0)"

# VF 0 and the other guest's PF, through the PF's link
pingpong 18601 ibv_rc_pingpong -d mlx5_1 -g 0 -n 50
pingpong 18602 ibv_ud_pingpong -d mlx5_1 -g 0 -n 50
# the two VFs: one LID, their QPN ranges
ibv_rc_pingpong -d mlx5_2 -g 0 -p 18603 -n 20 >/tmp/vf1.out 2>&1 &
srv=$!
sleep 2
run ibv_rc_pingpong -d mlx5_1 -g 0 -p 18603 -n 20 127.0.0.1 || fail "VF 0 to VF 1: ibv_rc_pingpong"
wait $srv || { cat /tmp/vf1.out; fail "VF 1's ibv_rc_pingpong server"; }
cat /tmp/vf1.out
expect "$(cat /tmp/vf1.out)" "QPN 0x02" "VF 1's QPN range"
# VF 0's vport counters, as its PF reads them
st=$(ip -s link show ib0)
echo "$st"
rx=$(echo "$st" | awk '/^ *vf 0 /{f=1} f && /RX: bytes/{getline; print $2; exit}')
tx=$(echo "$st" | awk '/^ *vf 0 /{f=1} f && /TX: bytes/{getline; print $2; exit}')
[ "${rx:-0}" -ge 100 ] && [ "${tx:-0}" -ge 100 ] ||
  fail "ip -s link show ib0: VF 0 received ${rx:-?} and sent ${tx:-?} packets, not 100 each"
# no GID: a VF's QP needs a GRH to its peer
ibv_rc_pingpong -d mlx5_0 -p 18604 -n 5 >/tmp/pf.out 2>&1 &
srv=$!
sleep 2
out=$(ibv_rc_pingpong -d mlx5_1 -p 18604 -n 5 127.0.0.1 2>&1) && fail "VF connected without a GRH: $out"
echo "$out"
expect "$out" "Failed to modify QP to RTR" "the VF refuses an address without GRH"
kill $srv 2>/dev/null; wait $srv 2>/dev/null

# (no saquery from VF 0 itself: libibmad sends SA queries without a GRH, which a GRH-required
# port refuses, "umad_send failed: ... Invalid argument", as on a ConnectX VF)
# IPoIB and RDMA CM from VF 1 (in a namespace): paths from the SA, which knows its GUID (VF 1:
# its IPoIB interface took its GID at creation, which VF 0's new port GUID left stale on VF 0)
V=$(ls /sys/class/infiniband/mlx5_2/device/net/ | head -n 1)
[ -n "$V" ] || fail "VF 1 has no IPoIB interface"
ip netns add a && ip link set "$V" netns a && ip -n a addr add 192.168.77.11/24 dev "$V" &&
  ip -n a link set "$V" up || fail "cannot set up $V in namespace a"
wait_for 30 sh -c "ip -n a link show $V | grep -q LOWER_UP" ||
  fail "VF 1's IPoIB interface has no carrier (broadcast group not joined)"
barrier ipoib 6300
wait_for 30 ip netns exec a ping -c 1 -W 1 192.168.77.2 || fail "VF 1: no ping reply from guest 1's ib0"
echo "VF 1 ping guest 1: $(ip netns exec a ping -c 3 -i 0.2 192.168.77.2 | tail -n 2 | head -n 1)"
end=$(($(date +%s) + 60))
while :; do
  ip netns exec a timeout 60 rping -c -a 192.168.77.2 -C 5 -v >/tmp/rping.out 2>&1 && break
  [ "$(date +%s)" -lt "$end" ] || { cat /tmp/rping.out; fail "rping from VF 1 to guest 1 failed"; }
  sleep 1
done
cat /tmp/rping.out
expect "$(cat /tmp/rping.out)" "ping data: rdma-ping-4" "rping's fifth ping"
barrier vf-done 6310

# the state policy the PF sets
run ip link set ib0 vf 0 state disable || fail "ip link set ib0 vf 0 state disable failed"
wait_for 20 sh -c "grep -q DOWN /sys/class/infiniband/mlx5_1/ports/1/state" ||
  fail "VF 0's port is not down: $(cat /sys/class/infiniband/mlx5_1/ports/1/state)"
expect "$(ip link show ib0)" "vf 0 .*link-state disable" "ip link show ib0: VF 0 disabled"
run ip link set ib0 vf 0 state auto || fail "ip link set ib0 vf 0 state auto failed"
wait_ib_active mlx5_1 1 20

run sh -c "echo 0 > $D/sriov_numvfs" || fail "echo 0 > sriov_numvfs failed"
[ "$(ls /sys/class/infiniband | wc -l)" = 1 ] || fail "VF RDMA devices left after echo 0"
echo "sriov-ib: OK"
