#!/bin/sh
# mlx5-hca driver reload: 5 cycles of `rmmod mlx5_ib mlx5_core` + modprobe, each ending with
# an ACTIVE port, then the same checks as probe.sh (the device must survive teardown/re-init:
# command interface, EQs, pages, health poller, port state).
# mlx5t-instances: 1
# mlx5t-timeout: 600
. /test/lib/common.sh
CYCLES=${CYCLES:-5}
load_mlx5
wait_ib_active mlx5_0 1 90
i=1
while [ "$i" -le "$CYCLES" ]; do
  echo "=== reload cycle $i/$CYCLES"
  unload_mlx5
  [ ! -e /sys/class/infiniband/mlx5_0 ] || fail "mlx5_0 still present after rmmod"
  run modprobe -a mlx5_core mlx5_ib || fail "modprobe failed in cycle $i"
  wait_ib_active mlx5_0 1 90
  i=$((i + 1))
done
check_ib_device mlx5_0
echo "reload: OK ($CYCLES cycles)"
