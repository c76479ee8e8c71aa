# The NFS over RDMA test of nfs-rdma.sh and storage-roce.sh, between the addresses IB_ME and
# IB_PEER (IPoIB or RoCE): instance 0 is nfsd with an rdma listener, instance 1 mounts with
# -o rdma. Needs lib/storage.sh. nfsrdma_on_fail: what to show on a failure.
nfsrdma_on_fail() {
  echo "--- kernel messages (nfs, sunrpc, rpcrdma):"
  dmesg | grep -iE 'nfs|rpc|svcrdma|xprtrdma|mlx5_ib|infiniband' | tail -n 60
  [ -f /tmp/mountd.log ] && { echo "--- rpc.mountd:"; tail -n 30 /tmp/mountd.log; }
  [ -r /proc/self/mountstats ] && grep -A3 'nfs4' /proc/self/mountstats | head -n 20
}

nfsrdma_test() {
  MB=8
  pattern /tmp/a.bin 51
  pattern /tmp/b.bin 52
  SUM_A=$(md5sum < /tmp/a.bin | cut -d' ' -f1)
  SUM_B=$(md5sum < /tmp/b.bin | cut -d' ' -f1)
  # nfs-utils' configuration (its postinst would have installed it)
  [ -f /etc/nfs.conf ] || cp /usr/share/nfs-common/conffiles/nfs.conf /etc/nfs.conf 2>/dev/null

  if [ "$IDX" = 0 ]; then
    run modprobe -a nfsd rpcrdma || fail "modprobe nfsd rpcrdma failed"
    mount -t nfsd nfsd /proc/fs/nfsd || fail "mount nfsd"
    # state: export tables, and the legacy NFSv4 client-tracking directory (no nfsdcld)
    mkdir -p /var/lib/nfs/v4recovery /export
    mount -t tmpfs -o size=64m tmpfs /export || fail "tmpfs"
    cp /tmp/a.bin /export/a.bin
    echo "/export 192.168.77.0/24(rw,sync,no_root_squash,no_subtree_check,insecure,fsid=0)" > /etc/exports
    run exportfs -ra || fail "exportfs failed"
    exportfs -v
    rpc.mountd -F -N 2 -N 3 > /tmp/mountd.log 2>&1 &
    MOUNTD=$!
    # before the server exists: NFSv4 only (no lockd, hence no rpcbind), 10 s lease and grace
    echo "-3 +4 +4.1 +4.2" > /proc/fs/nfsd/versions || fail "nfsd versions"
    echo 10 > /proc/fs/nfsd/nfsv4leasetime && echo 10 > /proc/fs/nfsd/nfsv4gracetime ||
      fail "nfsd lease/grace time"
    # the RDMA listener creates the server; with a listener, starting threads adds no TCP/UDP
    echo "rdma 20049" > /proc/fs/nfsd/portlist || fail "rdma listener on port 20049"
    echo 4 > /proc/fs/nfsd/threads || fail "nfsd threads"
    echo "nfsd: threads $(cat /proc/fs/nfsd/threads), versions $(cat /proc/fs/nfsd/versions)," \
         "listeners: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"
    grep -q '^rdma 20049' /proc/fs/nfsd/portlist || fail "no rdma listener in portlist"
    # No client can have state to reclaim: end the grace period now (as nfs-utils' client
    # trackers do when they hold no records). Otherwise the legacy tracking's end-of-grace
    # purge removes the record of the client that mounts during it, and its unmount logs
    # "NFSD: Failed to remove expired client state directory". (nfsdcld itself is not used: nfsd gives it 1 s to open its
    # rpc_pipefs pipe, which a loaded TCG guest has missed.)
    # In recent 6.12 stable kernels (Debian's 6.12.117: nfsd4_force_end_grace) the write only
    # schedules nfsd's laundromat to end it: wait for the laundromat rather than read at once.
    echo Y > /proc/fs/nfsd/v4_end_grace || fail "cannot end the grace period"
    wait_for 20 grep -qx Y /proc/fs/nfsd/v4_end_grace || fail "the grace period did not end"
    barrier nfsd-up 6500
    barrier nfs-done 6510
    for f in b.bin c.bin; do echo "$f on the server: $(md5sum < /export/$f | cut -d' ' -f1)"; done
    [ "$(md5sum < /export/b.bin | cut -d' ' -f1)" = "$SUM_B" ] || fail "b.bin differs on the server"
    [ "$(md5sum < /export/c.bin | cut -d' ' -f1)" = "$SUM_B" ] || fail "c.bin differs on the server"
    echo 0 > /proc/fs/nfsd/threads
    kill "$MOUNTD"
    exportfs -ua
    umount /export
  else
    run modprobe -a nfsv4 rpcrdma || fail "modprobe nfsv4 rpcrdma failed"
    mkdir -p /mnt/nfs
    [ -e /etc/mtab ] || ln -s /proc/self/mounts /etc/mtab
    barrier nfsd-up 6500
    # mount.nfs (nfs-common) itself: busybox mount would use its own NFSv3 code
    run mount.nfs "$IB_PEER:/" /mnt/nfs -o vers=4.2,rdma,port=20049 || fail "NFS/RDMA mount failed"
    m=$(grep ' /mnt/nfs ' /proc/mounts)
    echo "$m"
    expect "$m" "proto=rdma" "proto=rdma in the mount options"
    grep -q 'xprt:[[:space:]]*rdma' /proc/self/mountstats || fail "mountstats shows no rdma transport"
    # READ: buffered (page cache, rsize requests) and O_DIRECT in 1 MiB and 4 KiB requests
    got=$(md5sum < /mnt/nfs/a.bin | cut -d' ' -f1)
    echo "a.bin read (buffered): $got"
    [ "$got" = "$SUM_A" ] || fail "a.bin differs (want $SUM_A)"
    [ "$(md5_of /mnt/nfs/a.bin 1M 0 $MB direct)" = "$SUM_A" ] || fail "O_DIRECT 1 MiB reads differ"
    [ "$(md5_of /mnt/nfs/a.bin 4k 0 256 direct)" = "$(md5_of /tmp/a.bin 4k 0 256)" ] ||
      fail "O_DIRECT 4 KiB reads differ"
    # WRITE: buffered with fsync, and O_DIRECT in 1 MiB requests
    dd if=/tmp/b.bin of=/mnt/nfs/b.bin bs=1M conv=fsync 2>/dev/null || fail "buffered write failed"
    dd if=/tmp/b.bin of=/mnt/nfs/c.bin bs=1M oflag=direct 2>/dev/null || fail "O_DIRECT write failed"
    [ "$(md5_of /mnt/nfs/c.bin 128k 0 $((MB * 8)) direct)" = "$SUM_B" ] || fail "c.bin read back differs"
    grep -A12 'xprt:' /proc/self/mountstats | head -n 3
    umount /mnt/nfs || fail "umount failed"
    barrier nfs-done 6510
  fi
  echo "nfsrdma: OK"
}
