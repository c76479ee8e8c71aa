#!/bin/sh
# NFS over RDMA between two guests: instance 0 runs the kernel NFS server (nfsd) with only an
# RDMA listener (svcrdma, port 20049) and NFSv4 only, exporting a tmpfs; rpc.mountd answers
# nfsd's export upcalls (no rpcbind: NFSv4 needs none, mountd -N 2 -N 3 registers nothing).
# Instance 1 mounts it with NFSv4.2 over RPC/RDMA (xprtrdma, RDMA CM over the IPoIB addresses)
# and moves data both ways, buffered and O_DIRECT, checked by md5. RPC/RDMA moves large READ
# and WRITE payloads with RDMA WRITE / RDMA READ from the server (Write and Read chunks) and
# registers the client's buffers with fast registration.
# mlx5t-instances: 2
# mlx5t-timeout: 600
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/storage.sh
. /test/lib/nfsrdma.sh
load_mlx5
wait_ib_active mlx5_0 1 90
ipoib_up
on_fail() { nfsrdma_on_fail; }
nfsrdma_test
