#!/bin/sh
# Data integrity between two guests: rdma-verify (guest-tests/src/rdma-verify.c, built into the
# image by scripts/build-image.sh) moves patterned data with RC SEND (1 B .. 1 MiB, immediate,
# multi-SGE gather/scatter, inline), RC RDMA WRITE at unaligned offsets (checked over the whole
# target window after a WRITE with immediate), RC RDMA READ, 8-byte fetch-and-add and
# compare-and-swap, UD SEND, and receives across ibv_resize_cq (grown with 8 completions
# waiting, then shrunk: MODIFY_CQ resize and libmlx5's copy), in both directions, and checks
# every byte plus canaries around it. Any mismatch, bad completion or a completion missing for 60 s fails the test.
# mlx5t-instances: 2
# mlx5t-timeout: 600
. /test/lib/common.sh
. /test/lib/pingpong.sh
hca_and_peer_up
command -v rdma-verify >/dev/null || fail "rdma-verify is not in the image (scripts/build-image.sh)"

_client_only=
_pair 18540 "^rdma-verify: [0-9]+ messages, [0-9]+ bytes verified, OK" rdma-verify -d mlx5_0
echo "integrity: OK"
