#!/bin/sh
# Two HCAs in one QEMU on one fabric (the second one joins the first's hub): mlx5_0 and mlx5_1
# get different LIDs and GUIDs, and ibv_rc_pingpong runs between them over 127.0.0.1 through
# QEMU's hub (frames leave one device and enter the other).
# mlx5t-instances: 1
# mlx5t-timeout: 400
# mlx5t-qemu-args: -netdev hubport,id=fab1,hubid=0 -device pcie-root-port,id=rp1,chassis=2,slot=2 -device mlx5-hca,bus=rp1,netdev=fab1,mac=02:4d:58:35:01:07
. /test/lib/common.sh
load_mlx5
wait_ib_active mlx5_0 1 90
wait_ib_active mlx5_1 1 90
run ibv_devices
l0=$(cat /sys/class/infiniband/mlx5_0/ports/1/lid)
l1=$(cat /sys/class/infiniband/mlx5_1/ports/1/lid)
echo "lids: mlx5_0 $l0, mlx5_1 $l1"
[ "$l0" != "$l1" ] || fail "both HCAs have LID $l0"
ibv_rc_pingpong -d mlx5_0 -p 18700 -n 100 >/tmp/s.out 2>&1 &
srv=$!
sleep 1
rc=1
for i in 1 2 3 4 5 6 7 8 9 10; do
  ibv_rc_pingpong -d mlx5_1 -p 18700 -n 100 127.0.0.1 >/tmp/c.out 2>&1; rc=$?
  [ "$rc" = 0 ] && break
  grep -q "Couldn't connect" /tmp/c.out || break
  sleep 1
done
wait "$srv"; src=$?
cat /tmp/s.out /tmp/c.out
[ "$rc" = 0 ] && [ "$src" = 0 ] || fail "ibv_rc_pingpong between mlx5_0 and mlx5_1 failed ($src/$rc)"
grep -q "iters in" /tmp/c.out || fail "no result"
echo "two-hca: OK"
