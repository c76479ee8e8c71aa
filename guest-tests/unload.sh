#!/bin/sh
# Driver unload under traffic (issue 10): instance 1 serves an ib_write_bw that instance 0
# drives, and removes mlx5_ib and mlx5_core in the middle of the transfer (the user context of
# the running server is disassociated; its QPs are destroyed by the driver, not by the program).
# The unload must finish, the survivor's QP must complete with RETRY_EXC_ERR, the driver must
# load again without complaint, and new QPs between the two must work.
# mlx5t-instances: 2
# mlx5t-timeout: 600
# perftest calibrates its cycle counter against usleep and gives up when the fit is poor
# (r^2 < 0.9, "Can't produce a report"), which a busy TCG host causes now and then
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/pingpong.sh

hca_and_peer_up

if [ "$IDX" = 1 ]; then
  ib_write_bw -d mlx5_0 -p 18710 -s 65536 --run_infinitely -D 1 >/tmp/wbw.log 2>&1 &
  srv=$!
  timeout 180 nc -l -p 7311 </dev/null || fail "instance 0 never said go"
  sleep 2
  echo "=== rmmod mlx5_ib mlx5_core with the QPs of ib_write_bw (pid $srv) live"
  timeout 60 rmmod mlx5_ib || fail "rmmod mlx5_ib failed or hung"
  timeout 60 rmmod mlx5_core || fail "rmmod mlx5_core failed or hung"
  [ ! -d /sys/class/infiniband/mlx5_0 ] || fail "mlx5_0 still there after the unload"
  kill $srv 2>/dev/null; wait $srv
  cat /tmp/wbw.log
  load_mlx5
  wait_ib_active mlx5_0 1 90
  echo "=== driver back; serving a new ib_write_bw"
  run ib_write_bw -d mlx5_0 -p 18711 -s 65536 -n 500 || fail "ib_write_bw server after reload"
  echo "unload: OK"
  exit 0
fi

# instance 0: the survivor
out=/tmp/wbw.log
perftest_running $out ib_write_bw -d mlx5_0 -p 18710 -s 65536 -u 17 --run_infinitely -D 1 "$PEER_IP"
echo "ib_write_bw runs: telling instance 1 to unload its driver"
tell_peer 7311
wait $bw; rc=$?
cat $out
[ "$rc" != 0 ] || fail "ib_write_bw ended well although its peer's driver went away"
grep -q "status 12" $out || fail "the survivor's QP did not complete with RETRY_EXC_ERR (12)"
perftest_done $out ib_write_bw -d mlx5_0 -p 18711 -s 65536 -n 500 "$PEER_IP"
cat $out
[ "$rc" = 0 ] || fail "ib_write_bw to the reloaded peer failed ($rc)"
grep -Eq "^[[:space:]]*65536[[:space:]]+500[[:space:]]" $out || fail "no result row"
echo "unload: OK"
