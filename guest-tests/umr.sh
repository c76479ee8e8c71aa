#!/bin/sh
# UMR and the ibv_wr_* API from user space, checked byte for byte by three programs built into
# the image:
#  - mlx5dv-mkey (guest-tests/src/mlx5dv-mkey.c): the seed man pages' indirect-mkey examples
#    (mlx5dv_wr_mkey_configure(3) with list and interleaved layouts, mlx5dv_wr_mr_list and
#    mlx5dv_wr_mr_interleaved of mlx5dv_wr_post(3)) in a DEVX context: mlx5dv_create_mkey
#    (DEVX CREATE_MKEY), libmlx5's UMR WQEs, RDMA through the indirect mkey with every byte
#    where the layout puts it, LOCAL_INV, and the access override of 004.
#  - mw-check (guest-tests/src/mw-check.c): memory windows type 1 (ibv_bind_mw, rebind) and
#    type 2 (IBV_WR_BIND_MW, zero based, SEND with Invalidate, LOCAL_INV), and accesses
#    beyond a window refused.
#  - wr-check (guest-tests/src/wr-check.c): the ibv_wr_* API of seed 000 beyond RC/DC basics:
#    UC, UD (ibv_wr_set_ud_addr), XRC RDMA/atomics (ibv_wr_set_xrc_srqn), inline and SGE-list
#    setters, SEND with immediate/Invalidate (a type-2 window bound by ibv_wr_bind_mw), RDMA
#    WRITE with immediate, mixed batches, inline over max_inline_data and ibv_wr_abort.
# mlx5t-instances: 1
# mlx5t-timeout: 300
. /test/lib/common.sh
load_mlx5
wait_ib_active mlx5_0 1 90
run mlx5dv-mkey -d mlx5_0 || fail "mlx5dv-mkey failed"
run mw-check -d mlx5_0 || fail "mw-check failed"
run wr-check -d mlx5_0 || fail "wr-check failed"
echo "umr: OK"
