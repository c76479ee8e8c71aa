#!/bin/sh
# The kernel's own RDMA consumers on the device: NVMe over Fabrics (RDMA) between two guests.
# Instance 0 exports a RAM disk with nvmet-rdma, instance 1 connects with nvme-rdma (through
# RDMA CM over IPoIB) and moves data both ways with O_DIRECT. nvme-rdma registers every I/O
# buffer with fast registration (IB_WR_REG_MR, a UMR WQE on its QP) and asks the target to
# invalidate it remotely (SEND with Invalidate); it refuses to bind at all without
# IB_DEVICE_MEM_MGT_EXTENSIONS. The user MRs of the verbs checks come from the kernel's UMR MR
# cache, whose debugfs counters are checked too. Every byte is verified by checksum.
# mlx5t-instances: 2
# mlx5t-timeout: 600
. /test/lib/common.sh
. /test/lib/ipoib.sh
load_mlx5
wait_ib_active mlx5_0 1 90
ipoib_up

ibv_devinfo -v -d mlx5_0 | grep -q MEM_MGT_EXTENSIONS ||
  fail "mlx5_0 does not advertise MEM_MGT_EXTENSIONS (fast registration through UMR)"
echo "mlx5_0: MEM_MGT_EXTENSIONS"

# the kernel's MR cache holds UMR-enabled mkeys (created free, enabled by UMR per MR)
cache=$(cat /sys/kernel/debug/mlx5/*/mr_cache/*/size 2>/dev/null | awk '{s += $1} END {print s + 0}')
echo "mkey cache: $cache mkeys"
[ "$cache" -gt 0 ] || fail "the mkey cache is empty: user MRs do not go through UMR"

NQN=nqn.2026-11.org.qemu-mlx5:ramdisk
MB=4
# pattern FILE SEED: $MB MiB of pseudo-random bytes, the same on both instances
pattern() {
  awk -v seed="$2" -v mb="$MB" 'BEGIN { srand(seed); n = mb * 1024 * 1024 / 16
    for (i = 0; i < n; i++) printf "%08x%07x\n", int(rand() * 4294967295), i % 268435456 }' > "$1"
}
pattern /tmp/a.bin 11
pattern /tmp/b.bin 22
SUM_A=$(sha256sum < /tmp/a.bin | cut -d' ' -f1)
SUM_B=$(sha256sum < /tmp/b.bin | cut -d' ' -f1)

if [ "$IDX" = 0 ]; then
  run modprobe brd rd_nr=1 rd_size=$((2 * MB * 1024)) || fail "modprobe brd failed"
  run modprobe -a nvmet nvmet-rdma || fail "modprobe nvmet-rdma failed"
  [ -b /dev/ram0 ] || fail "no /dev/ram0"
  # region A (the first $MB MiB) is written locally; the host reads it over the fabric
  dd if=/tmp/a.bin of=/dev/ram0 bs=1M count=$MB conv=fsync 2>/dev/null || fail "dd to ram0"
  grep -q configfs /proc/mounts || mount -t configfs none /sys/kernel/config
  S=/sys/kernel/config/nvmet/subsystems/$NQN
  P=/sys/kernel/config/nvmet/ports/1
  mkdir "$S" && echo 1 > "$S/attr_allow_any_host" || fail "nvmet subsystem"
  mkdir "$S/namespaces/1" && echo /dev/ram0 > "$S/namespaces/1/device_path" &&
    echo 1 > "$S/namespaces/1/enable" || fail "nvmet namespace"
  mkdir "$P" && echo rdma > "$P/addr_trtype" && echo ipv4 > "$P/addr_adrfam" &&
    echo "$IB_ME" > "$P/addr_traddr" && echo 4420 > "$P/addr_trsvcid" || fail "nvmet port"
  ln -s "$S" "$P/subsystems/$NQN" || fail "nvmet port link"
  echo "nvmet: $NQN on rdma $IB_ME:4420"
  barrier nvmet-up 6200
  barrier nvme-done 6210
  # region B was written by the host (the target READ it from the host's registered buffers)
  got=$(dd if=/dev/ram0 bs=1M skip=$MB count=$MB 2>/dev/null | sha256sum | cut -d' ' -f1)
  echo "region B on the target: $got"
  [ "$got" = "$SUM_B" ] || fail "region B differs on the target (want $SUM_B)"
  rm "$P/subsystems/$NQN" && rmdir "$P" && echo 0 > "$S/namespaces/1/enable" &&
    rmdir "$S/namespaces/1" && rmdir "$S" || fail "nvmet teardown"
else
  run modprobe nvme-rdma || fail "modprobe nvme-rdma failed"
  barrier nvmet-up 6200
  [ -c /dev/nvme-fabrics ] || fail "no /dev/nvme-fabrics"
  echo "transport=rdma,traddr=$IB_PEER,trsvcid=4420,nqn=$NQN,nr_io_queues=2" > /dev/nvme-fabrics ||
    fail "nvme connect over rdma failed"
  wait_for 30 test -b /dev/nvme0n1 || fail "no /dev/nvme0n1"
  echo "nvme0: $(cat /sys/class/nvme/nvme0/transport) $(cat /sys/class/nvme/nvme0/address)"
  got=$(dd if=/dev/nvme0n1 bs=1M count=$MB iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
  echo "region A read over NVMe/RDMA: $got"
  [ "$got" = "$SUM_A" ] || fail "region A differs (want $SUM_A)"
  # region B: written with 1 MiB requests, read back with 128 KiB and with 4 KiB ones
  dd if=/tmp/b.bin of=/dev/nvme0n1 bs=1M seek=$MB count=$MB oflag=direct 2>/tmp/dd.err ||
    { cat /tmp/dd.err; fail "write over NVMe/RDMA failed"; }
  want=$(dd if=/tmp/b.bin bs=4k skip=100 count=64 2>/dev/null | sha256sum | cut -d' ' -f1)
  got=$(dd if=/dev/nvme0n1 bs=4k skip=$((MB * 256 + 100)) count=64 iflag=direct 2>/dev/null |
        sha256sum | cut -d' ' -f1)
  [ "$got" = "$want" ] || fail "4 KiB reads of region B differ"
  got=$(dd if=/dev/nvme0n1 bs=128k skip=$((MB * 8)) count=$((MB * 8)) iflag=direct 2>/dev/null |
        sha256sum | cut -d' ' -f1)
  echo "region B read back: $got"
  [ "$got" = "$SUM_B" ] || fail "region B read back differs (want $SUM_B)"
  echo 1 > /sys/class/nvme/nvme0/delete_controller || fail "nvme disconnect failed"
  barrier nvme-done 6210
fi
echo "nvme-rdma: OK"
