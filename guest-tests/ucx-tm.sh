#!/bin/sh
# UCX's hardware tag matching on the device (issue 30): ucx_perftest tag_lat and tag_bw between
# two guests over rc_mlx5 on the InfiniBand port with UCX_RC_MLX5_TM_ENABLE=y, so UCX creates its
# tag-matching XRQ through DevX (CREATE_XRQ with UMEM work queue and doorbell record), adds and
# removes tags through its command QP, and gets its eager messages matched in the device (a
# forced setting: an XRQ the device refused would fail the interface, not fall back). Sizes: 64
# bytes (eager, below UCX_TM_THRESH) and 64 KiB (UCP's rendezvous request matched by tag, the data
# read with RDMA READ). No ERROR or WARN line, no device or driver error in dmesg.
# Runs in the DPDK image (UCX is in it): scripts/dpdk.sh with DPDK_TEST=guest-tests/ucx-tm.sh.
# mlx5t-instances: 2
# mlx5t-timeout: 600
. /test/lib/common.sh
. /test/lib/pingpong.sh
hca_and_peer_up

n=0
for t in tag_lat tag_bw; do
  for s in 64 65536; do
    n=$((n + 1))
    port=$((13400 + n))
    if [ "$IDX" = 1 ]; then
      UCX_RC_MLX5_TM_ENABLE=y UCX_NET_DEVICES=mlx5_0:1 UCX_TLS=rc_mlx5,ud_mlx5,self \
        timeout 120 ucx_perftest -p $port > /tmp/ucxp.log 2>&1 ||
        { cat /tmp/ucxp.log; fail "ucx_perftest $t $s (server) failed"; }
    else
      sleep 4
      ucx_client /tmp/ucxp.log env UCX_RC_MLX5_TM_ENABLE=y UCX_NET_DEVICES=mlx5_0:1 \
        UCX_TLS=rc_mlx5,ud_mlx5,self timeout 120 ucx_perftest "$PEER_IP" -p $port -t $t -n 200 \
        -s $s || { cat /tmp/ucxp.log; fail "ucx_perftest $t $s failed"; }
      echo "ucx_perftest $t $s (tag matching in the device):"
      tail -n 2 /tmp/ucxp.log
    fi
    grep -E "UCX +(ERROR|WARN)" /tmp/ucxp.log && fail "ucx_perftest $t $s printed errors or warnings"
    sleep 2
  done
done
echo "ucx-tm: OK"
