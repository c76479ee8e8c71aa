#!/bin/sh
# iSCSI Extensions for RDMA between two guests: instance 0 runs LIO's iSCSI target
# (iscsi_target_mod) with iSER (ib_isert) enabled on its portal on the IPoIB address, an 8 MiB
# rd_mcp RAM disk behind LUN 0, open to any initiator (generate_node_acls, no CHAP); instance 1
# runs open-iscsi (iscsid, iscsiadm) over ib_iser: SendTargets discovery over TCP (IPoIB), a node
# record for the iser iface, login with it (RDMA CM over IPoIB addresses), then O_DIRECT I/O in
# 512 B to 8 MiB requests, checked by md5, and a logout.
# SendTargets over TCP needs iscsi_tcp loaded (iscsiadm looks the transport up in sysfs) although
# the discovery PDUs go through iscsiadm's own socket.
# The target computes CRC32C digests' transforms at every login (crypto_alloc_ahash("crc32c"),
# even with digests off), hence crc32c_generic in the image.
# mlx5t-instances: 2
# mlx5t-timeout: 600
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/storage.sh
. /test/lib/iser.sh
load_mlx5
wait_ib_active mlx5_0 1 90
ipoib_up
on_fail() { iser_on_fail; }
iser_test
