#!/bin/sh
# Image self-test, no HCA needed: the kernel, kmod's modprobe/rmmod of the RDMA stack and
# mlx5 modules, devtmpfs nodes under /dev/infiniband, and the user-space tools with their
# shared libraries all work.
# mlx5t-hca: no
# mlx5t-timeout: 180
. /test/lib/common.sh
run uname -r
modprobe --version | grep -q kmod || fail "modprobe is not kmod's"
run ibv_devices || fail "ibv_devices failed"   # libibverbs + providers load (no device here)
run ibstat -V || fail "ibstat failed"
# present and dynamically linked correctly (127/126: not found / cannot execute)
for tool in "ib_send_bw --version" "ib_write_lat --version" "rping -h" "ibv_rc_pingpong -h"; do
  $tool >/dev/null 2>&1
  rc=$?
  [ $rc -lt 126 ] || fail "$tool: exit $rc"
done
run rdma -V || fail "rdma (iproute2) failed"
run ip -V | grep -q iproute2 || fail "ip is not iproute2's"
run modprobe -a ib_core ib_uverbs ib_umad rdma_ucm ib_ipoib mlx5_core mlx5_ib || fail "modprobe failed"
run lsmod
[ -c /dev/infiniband/rdma_cm ] || fail "/dev/infiniband/rdma_cm missing"
run rmmod mlx5_ib mlx5_core ib_ipoib rdma_ucm rdma_cm ib_umad ib_uverbs || fail "rmmod failed"
lsmod | grep -q '^ib_core' || fail "ib_core not loaded"
echo "smoke: OK"
