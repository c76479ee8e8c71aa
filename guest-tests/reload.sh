#!/bin/sh
# mlx5-hca driver reload: 5 cycles of `rmmod mlx5_ib mlx5_core` + modprobe, each ending with
# an ACTIVE port, then the same checks as probe.sh (the device must survive teardown/re-init:
# command interface, EQs, pages, health poller, port state). Cycle 3 also resets the function
# (FLR through sysfs) while no driver is bound, and one cycle unloads with a user QP open.
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
  if [ "$i" = 3 ]; then
    for d in /sys/bus/pci/devices/*; do
      if [ "$(cat "$d/vendor"):$(cat "$d/device")" = "0x15b3:0x1017" ]; then
        run sh -c "echo 1 > $d/reset" || fail "function reset of ${d##*/} failed"
      fi
    done
  fi
  cov_arm
  run modprobe -a mlx5_core mlx5_ib || fail "modprobe failed in cycle $i"
  wait_ib_active mlx5_0 1 90
  i=$((i + 1))
done
check_ib_device mlx5_0
# a user process holding QPs, CQs and MRs while the driver goes away (the kernel revokes them)
ibv_rc_pingpong -d mlx5_0 -p 18600 >/tmp/srv.out 2>&1 &
srv=$!
sleep 2
unload_mlx5
kill "$srv" 2>/dev/null        # it still waits for a TCP peer that never comes
wait "$srv"
cov_arm
run modprobe -a mlx5_core mlx5_ib || fail "modprobe after unloading under a user failed"
wait_ib_active mlx5_0 1 90
echo "reload: OK ($CYCLES cycles)"
