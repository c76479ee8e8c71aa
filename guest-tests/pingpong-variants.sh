#!/bin/sh
# The other rdma-core pingpong examples between two guests: unreliable connected, unreliable
# datagram (with and without a GRH), a shared receive queue feeding 16 RC QPs, RC on
# on-demand-paging MRs (-o, and -P: prefetched; -O: one implicit MR for the whole address
# space, its 1 GiB pieces made as the first access faults in each), and XRC
# (ibv_xsrq_pingpong: XRC initiator QPs send to XRC target QPs, each message landing in the
# XRC SRQ it names).
# mlx5t-instances: 2
# mlx5t-timeout: 900
. /test/lib/common.sh
. /test/lib/pingpong.sh
hca_and_peer_up

pingpong 18520 ibv_uc_pingpong -d mlx5_0 -n 200
pingpong 18521 ibv_uc_pingpong -d mlx5_0 -n 50 -s 16384
pingpong 18522 ibv_ud_pingpong -d mlx5_0 -n 200
pingpong 18523 ibv_ud_pingpong -d mlx5_0 -n 200 -s 4000 -g 0
pingpong 18524 ibv_srq_pingpong -d mlx5_0 -n 200
pingpong 18525 ibv_srq_pingpong -d mlx5_0 -n 50 -q 4 -s 8192 -e
# on-demand paging: ODP MRs, and with -P prefetched by ibv_advise_mr
pingpong 18528 ibv_rc_pingpong -d mlx5_0 -n 200 -o
pingpong 18529 ibv_rc_pingpong -d mlx5_0 -n 50 -s 65536 -o -P
# implicit ODP (ibv_reg_mr of the whole address space), faulted in and prefetched
pingpong 18530 ibv_rc_pingpong -d mlx5_0 -n 200 -o -O
pingpong 18531 ibv_rc_pingpong -d mlx5_0 -n 50 -s 65536 -o -O -P
# XRC: XRC INI QPs send to XRC TGT QPs; each message lands in the XRC SRQ it names
# (it prints "success" once every message of every client came back)
_client_only=; _pair 18526 "^success" ibv_xsrq_pingpong -d mlx5_0 -n 200
# one server, three clients at once (-c is the server's client count), 8 KiB messages
if [ "$IDX" = 0 ]; then
  echo "=== ibv_xsrq_pingpong -d mlx5_0 -n 50 -s 8192 -c 3 (port 18527, server)"
  ibv_xsrq_pingpong -d mlx5_0 -n 50 -s 8192 -c 3 -p 18527 > /tmp/xs.srv 2>&1 ||
    { cat /tmp/xs.srv; fail "ibv_xsrq_pingpong server (3 clients) failed"; }
  cat /tmp/xs.srv
  grep -q "^success" /tmp/xs.srv || fail "ibv_xsrq_pingpong server printed no result"
else
  for k in 1 2 3; do
    (
      _end=$(($(date +%s) + 60))
      while :; do
        ibv_xsrq_pingpong -d mlx5_0 -n 50 -s 8192 -p 18527 "$PEER_IP" > /tmp/xs.$k 2>&1 && exit 0
        grep -q "Couldn't connect" /tmp/xs.$k && [ "$(date +%s)" -lt "$_end" ] || exit 1
        sleep 0.5
      done
    ) &
    eval "pid$k=\$!"
  done
  for k in 1 2 3; do
    eval "wait \$pid$k" || { cat /tmp/xs.$k; fail "ibv_xsrq_pingpong client $k failed"; }
    echo "--- client $k"; cat /tmp/xs.$k
    grep -q "^success" /tmp/xs.$k || fail "ibv_xsrq_pingpong client $k printed no result"
  done
fi
echo "pingpong-variants: OK"
