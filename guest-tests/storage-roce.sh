#!/bin/sh
# The kernel's RDMA storage and datagram protocols over RoCE v2 (link-type=eth): the iSER,
# NFS over RDMA and RDS tests of iser.sh, nfs-rdma.sh and rds.sh, one after the other between
# the RoCE addresses of the two guests' mlx5e interfaces (RDMA CM resolves them to RoCE v2 GIDs).
# SRP is InfiniBand's (its discovery and login go through the SA and the IB CM).
# mlx5t-instances: 2
# mlx5t-timeout: 700
# mlx5t-device-args: link-type=eth
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/roce.sh
. /test/lib/storage.sh
. /test/lib/iser.sh
. /test/lib/nfsrdma.sh
. /test/lib/rds.sh
roce_up
IB_ME=$FAB_ME IB_PEER=$FAB_PEER
on_fail() { iser_on_fail; nfsrdma_on_fail; }
iser_test
nfsrdma_test
rds_test
echo "storage-roce: OK"
