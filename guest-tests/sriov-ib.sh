#!/bin/sh
# SR-IOV on an InfiniBand port (issue 29): `echo 2 > sriov_numvfs` makes two VFs, each probed by
# mlx5_core and mlx5_ib (an RDMA device whose port stays DOWN: the device has no InfiniBand vport
# virtualization yet), with a clean dmesg: mlx5_core writes each VF's HCA vport context at VF
# Enable (MODIFY_HCA_VPORT_CONTEXT, as the PF, the vport group manager). `ip link set ib0 vf 0
# node_guid ...` sets a VF's GUID, which the PF reads back (`ip link show ib0` lists the VFs).
# `echo 0` removes them.
# mlx5t-instances: 1
# mlx5t-timeout: 300
. /test/lib/common.sh
load_mlx5
wait_ib_active mlx5_0 1 90
D=/sys/bus/pci/devices/$(basename "$(readlink /sys/class/infiniband/mlx5_0/device)")
[ "$(cat "$D/sriov_totalvfs")" = 8 ] || fail "sriov_totalvfs is not 8"
run sh -c "echo 2 > $D/sriov_numvfs" || fail "echo 2 > sriov_numvfs failed"
wait_for 60 sh -c "[ \$(ls /sys/class/infiniband | wc -l) = 3 ]" ||
  { ls /sys/class/infiniband; fail "the two VFs' RDMA devices did not appear"; }
for d in /sys/class/infiniband/*; do
  echo "${d##*/}: $(cat "$d/ports/1/state"), $(cat "$d/ports/1/link_layer")," \
    "device $(cat "$d/device/device")"
done
[ "$(cat /sys/class/infiniband/mlx5_1/device/device)" = 0x1018 ] || fail "mlx5_1 is not a VF"
run modprobe ib_ipoib || fail "modprobe ib_ipoib failed"
wait_for 30 test -e /sys/class/net/ib0 || fail "no ib0"
run ip link set ib0 vf 0 node_guid 00:11:22:33:44:55:66:77 || fail "ip link set ib0 vf 0 node_guid failed"
lk=$(ip link show ib0)
echo "$lk"
expect "$lk" "vf 0 .*NODE_GUID 00:11:22:33:44:55:66:77" "ip link show ib0: VF 0's node GUID"
expect "$lk" "vf 1 " "ip link show ib0: two VFs"
run sh -c "echo 0 > $D/sriov_numvfs" || fail "echo 0 > sriov_numvfs failed"
[ "$(ls /sys/class/infiniband | wc -l)" = 1 ] || fail "VF RDMA devices left after echo 0"
echo "sriov-ib: OK"
