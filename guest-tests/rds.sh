#!/bin/sh
# Reliable Datagram Sockets over RDMA between two guests: rds-check (guest-tests/src/rds-check.c)
# on AF_RDS sockets forced onto the IB transport (SO_RDS_TRANSPORT: rds_rdma, which connects the
# two hosts with an RC QP through RDMA CM over the IPoIB addresses and carries each message in
# 4 KiB fragments with its own credit-based flow control). The client sends 56 messages of 16 B
# to 1 MiB, the server checks every byte and echoes each, the client checks the echo.
# (Debian has no RDS test program: rds-tools is not packaged.)
# mlx5t-instances: 2
# mlx5t-timeout: 400
. /test/lib/common.sh
. /test/lib/ipoib.sh
load_mlx5
wait_ib_active mlx5_0 1 90
ipoib_up
run modprobe -a rds rds_rdma || fail "modprobe rds_rdma failed"
barrier rds-up 6500
MSGS=56
if [ "$IDX" = 0 ]; then
  rds-check server "$IB_ME" 18634 $MSGS > /tmp/rds.out 2>&1 || { cat /tmp/rds.out; fail "rds-check server"; }
else
  sleep 1
  rds-check client "$IB_ME" "$IB_PEER" 18634 $MSGS > /tmp/rds.out 2>&1 || { cat /tmp/rds.out; fail "rds-check client"; }
fi
cat /tmp/rds.out
grep -q "bytes verified, OK" /tmp/rds.out || fail "rds-check"
barrier rds-done 6510
echo "rds: OK"
