#!/bin/sh
# mlx5's dynamically connected (DC) transport:
#  - dc-check (guest-tests/src/dc-check.c) in each guest: the seed's mlx5dv_wr_set_dc_addr
#    example and every DCI operation (SEND with immediate, WRITE, READ, CMP_SWP, FETCH_ADD)
#    to two DCTs in one batch, 80 DCIs sending to one DCT at once, a wrong DC access key
#    (retry exceeded, then the DCI is reset and works), a bad rkey, DCT destruction (drain
#    and the DCT_DRAINED event), every byte checked.
#  - perftest's DC mode between the two guests (ib_send_bw, ib_write_bw, ib_read_bw and
#    ib_atomic_bw with -c DC: DCIs on one side, DCTs on the other).
# mlx5t-instances: 2
# mlx5t-timeout: 900
# perftest calibrates its cycle counter against usleep and gives up when the fit is poor
# (r^2 < 0.9, "Can't produce a report"), which a busy TCG host causes now and then
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/pingpong.sh
load_mlx5
wait_ib_active mlx5_0 1 90
run dc-check -d mlx5_0 || fail "dc-check failed"
wait_peer
ib_write_bw -h 2>&1 | grep -q "DC" || fail "this perftest has no DC mode"
perftest 18550 ib_send_bw -d mlx5_0 -c DC -a -n 5
perftest 18551 ib_write_bw -d mlx5_0 -c DC -a -n 5
perftest 18552 ib_read_bw -d mlx5_0 -c DC -a -n 5
perftest 18553 ib_atomic_bw -d mlx5_0 -c DC -n 100
echo "dc: OK"
