#!/bin/sh
# RDMA CM between two guests, every program unmodified: addresses resolve through IPoIB (ARP
# on ib0), routes through the fabric's SA (PathRecord), and connections through ib_cm's MADs
# (REQ/REP/RTU, DREQ/DREP) on QP1 between the guests. rping, ucmatose, udaddy (UD through the
# CM's SIDR), rdma_server/rdma_client, mckey (a multicast group joined through the SA, UD
# multicast delivered to the other guest), rstream and riostream (rsockets), and perftest
# with -R (ib_send_bw, ib_write_bw).
# mlx5t-instances: 2
# mlx5t-timeout: 900
# perftest calibrates its cycle counter against usleep and gives up when the fit is poor
# (r^2 < 0.9, "Can't produce a report"), which a busy TCG host causes now and then
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/ipoib.sh
load_mlx5
wait_ib_active mlx5_0 1 90
ipoib_up

# cm_pair NAME CHECK_EREGEX SERVER_CMD... -- CLIENT_CMD...: instance 0 runs the server,
# instance 1 the client (retried while the server is not listening yet); both must exit 0
# and the client's output must match CHECK_EREGEX
cm_pair() {
  _name=$1 _check=$2; shift 2
  _srv= _cli= _side=srv
  for a in "$@"; do
    if [ "$a" = -- ]; then _side=cli; continue; fi
    if [ $_side = srv ]; then _srv="$_srv $a"; else _cli="$_cli $a"; fi
  done
  _out=/tmp/cm.$_name
  echo "=== $_name"
  if [ "$IDX" = 0 ]; then
    echo "+$_srv"
    timeout 120 $_srv >"$_out" 2>&1; _rc=$?
  else
    echo "+$_cli"
    _end=$(($(date +%s) + 60))
    while :; do
      timeout 120 $_cli >"$_out" 2>&1; _rc=$?
      [ $_rc != 0 ] && grep -qi "reject\|refused\|unreachable\|ECONNREFUSED\|error 111\|connect error\|-111\|status 8\|event: 8\|Unexpected CM event" "$_out" &&
        [ "$(date +%s)" -lt "$_end" ] && { sleep 0.5; continue; }
      break
    done
  fi
  tail -n 8 "$_out"
  [ "$_rc" = 0 ] || fail "$_name exited with $_rc"
  [ "$IDX" = 0 ] || grep -Eq "$_check" "$_out" || fail "$_name printed no result"
  barrier "$_name" 6100
}

cm_pair rping "ping data: rdma-ping-9" rping -s -a "$IB_ME" -C 10 -v -- rping -c -a 192.168.77.1 -C 10 -v
cm_pair ucmatose "test complete" ucmatose -- ucmatose -s 192.168.77.1
cm_pair udaddy "test complete" udaddy -- udaddy -s 192.168.77.1
cm_pair rdma_client "rdma_client: end 0" rdma_server -- rdma_client -s 192.168.77.1
cm_pair mckey "test complete" mckey -m 239.1.1.1 -b "$IB_ME" -- mckey -m 239.1.1.1 -b "$IB_ME" -s
cm_pair rstream "^custom +64k +100 " rstream -S 65536 -C 100 -- rstream -s 192.168.77.1 -S 65536 -C 100
cm_pair riostream "^custom +64k +100 " riostream -S 65536 -C 100 -- riostream -s 192.168.77.1 -S 65536 -C 100
cm_pair ib_send_bw "^ *65536 +100 " ib_send_bw -R -d mlx5_0 -n 100 -- ib_send_bw -R -d mlx5_0 -n 100 192.168.77.1
cm_pair ib_write_bw "^ *65536 +100 " ib_write_bw -R -d mlx5_0 -n 100 -- ib_write_bw -R -d mlx5_0 -n 100 192.168.77.1
echo "rdma-cm: OK"
