#!/bin/sh
# mlx5-hca probe: the stock mlx5_core/mlx5_ib drivers bind to the device and bring up an
# ACTIVE InfiniBand port; ibv_devices, ibv_devinfo -v and ibstat show a ConnectX-5 (vendor
# 0x02c9, part 4119) with a non-zero LID and node GUID.
# mlx5t-instances: 1
# mlx5t-timeout: 300
. /test/lib/common.sh
for d in /sys/bus/pci/devices/*; do echo "${d##*/} $(cat $d/vendor):$(cat $d/device) class $(cat $d/class)"; done
load_mlx5
wait_ib_active mlx5_0 1 90
check_ib_device mlx5_0
ls -l /dev/infiniband
[ -c /dev/infiniband/uverbs0 ] || fail "/dev/infiniband/uverbs0 missing"
[ -c /dev/infiniband/umad0 ] || fail "/dev/infiniband/umad0 missing"
echo "probe: OK"
