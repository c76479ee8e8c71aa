#!/bin/sh
# Two guests whose HCAs are given the same LID (the meson test passes lid=0x42 to both): each
# port sees the other's address announcement, reports the clash on QEMU's stderr and stays out
# of ACTIVE (state INIT), as a subnet manager would leave a port with a duplicate LID.
# mlx5t-instances: 2
# mlx5t-timeout: 300
. /test/lib/common.sh
load_mlx5
wait_for 60 test -d /sys/class/infiniband/mlx5_0 || fail "mlx5_0 did not appear"
# announcements go out every second once both ends of the link are connected
wait_for 60 grep -q INIT /sys/class/infiniband/mlx5_0/ports/1/state ||
  fail "port state is '$(cat /sys/class/infiniband/mlx5_0/ports/1/state)', expected INIT"
run cat /sys/class/infiniband/mlx5_0/ports/1/state
run ibstat mlx5_0
ibstat mlx5_0 | grep -q "State: Initializing" || fail "ibstat does not show Initializing"
sleep 3
echo "lid-clash: OK"
