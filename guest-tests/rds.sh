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
. /test/lib/rds.sh
load_mlx5
wait_ib_active mlx5_0 1 90
ipoib_up
rds_test
