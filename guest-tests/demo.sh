#!/bin/sh
# Demo (scripts/demo.sh): load the drivers and show the emulated ConnectX-5 the way a user
# would see a real one.
# mlx5t-instances: 1
# mlx5t-timeout: 300
. /test/lib/common.sh
load_mlx5 >/dev/null
wait_ib_active mlx5_0 1 90 >/dev/null
rc=0
for cmd in "ibv_devices" "ibv_devinfo -v" "ibstat"; do
  echo "\$ $cmd"
  $cmd || rc=1
  echo
done
exit $rc
