#!/bin/sh
# perftest between two guests over RC (and UD for send): bandwidth and latency of SEND,
# RDMA WRITE, RDMA READ and atomics, over all message sizes (-a) where perftest allows it.
# Iteration counts are small: the guests run under TCG.
# mlx5t-instances: 2
# mlx5t-timeout: 1500
# perftest calibrates its cycle counter against usleep and gives up when the fit is poor
# (r^2 < 0.9, "Can't produce a report"), which a busy TCG host causes now and then
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/pingpong.sh
hca_and_peer_up

perftest 18530 ib_send_bw -d mlx5_0 -a -n 5
perftest 18531 ib_send_bw -d mlx5_0 -c UD -a -n 5
perftest 18532 ib_write_bw -d mlx5_0 -a -n 5
perftest 18533 ib_read_bw -d mlx5_0 -a -n 5
perftest 18534 ib_atomic_bw -d mlx5_0 -n 100
perftest 18535 ib_send_lat -d mlx5_0 -a -n 5
perftest 18536 ib_write_lat -d mlx5_0 -a -n 5
perftest 18537 ib_read_lat -d mlx5_0 -a -n 5
perftest 18538 ib_atomic_lat -d mlx5_0 -n 100
# completion events (-e): perftest re-arms a CQ before it polls the completion its event
# reported, and waits for one event per completion; an event for a CQE already reported
# (arming raised one for every CQE not yet polled) let it fall behind and overflow its send
# queue ("Couldn't post send")
perftest 18541 ib_send_lat -d mlx5_0 -e -s 2 -n 500
perftest 18542 ib_send_bw -d mlx5_0 -e -n 200
# on-demand paging: the buffers are ODP MRs
perftest 18539 ib_write_bw -d mlx5_0 --odp -s 1048576 -n 5
perftest 18540 ib_read_bw -d mlx5_0 --odp -s 65536 -n 5
echo "perftest: OK"
