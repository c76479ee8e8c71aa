#!/bin/sh
# A guest reboot with live QPs (issue 10): instance 1 serves an ib_write_bw that instance 0
# drives, and reboots (`reboot -f`: the kernel's shutdown runs mlx5_core's with the QPs still
# there, then the machine resets) in the middle of the transfer. The survivor's QP must end
# in RETRY_EXC_ERR (the rebooted device knows nothing of it); the rebooted guest's driver must
# come up on the reset device without complaint, and new QPs between the two must work.
# Instance 1 learns which boot it is in from instance 0 over the management network.
# mlx5t-instances: 2
# mlx5t-timeout: 900
# mlx5t-reboot: yes
# perftest calibrates its cycle counter against usleep and gives up when the fit is poor
# (r^2 < 0.9, "Can't produce a report"), which a busy TCG host causes now and then
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/pingpong.sh

hca_and_peer_up

if [ "$IDX" = 1 ]; then
  boot=
  end=$(($(date +%s) + 120))
  while [ -z "$boot" ] && [ "$(date +%s)" -lt "$end" ]; do
    boot=$(nc -w 2 10.0.0.1 7300 </dev/null 2>/dev/null)
    [ -n "$boot" ] || sleep 0.5
  done
  echo "boot $boot (told by instance 0)"
  case $boot in
  1)
    ib_write_bw -d mlx5_0 -p 18700 -s 65536 --run_infinitely -D 1 >/tmp/wbw.log 2>&1 &
    # instance 0 says "go" once its client has connected and runs (perftest's output to a file
    # is buffered: it cannot be watched)
    timeout 180 nc -l -p 7301 </dev/null || fail "instance 0 never said go"
    sleep 2
    echo "=== reboot -f with the QPs of ib_write_bw live"
    sync
    reboot -f
    sleep 60
    fail "still running 60 s after reboot -f"
    ;;
  2)
    run ib_write_bw -d mlx5_0 -p 18701 -s 65536 -n 500 || fail "ib_write_bw server after reboot"
    echo "reboot: OK"
    exit 0
    ;;
  *)
    fail "instance 0 did not say which boot this is"
    ;;
  esac
fi

# instance 0: the survivor
echo 1 | timeout 120 nc -l -p 7300 || fail "instance 1 never asked for its boot number"
out=/tmp/wbw.log
perftest_running $out ib_write_bw -d mlx5_0 -p 18700 -s 65536 -u 17 --run_infinitely -D 1 "$PEER_IP"
echo "ib_write_bw runs: telling instance 1 to reboot"
tell_peer 7301
wait $bw; rc=$?
cat $out
[ "$rc" != 0 ] || fail "ib_write_bw ended well although its peer rebooted"
grep -q "status 12" $out || fail "the survivor's QP did not complete with RETRY_EXC_ERR (12)"
echo 2 | timeout 240 nc -l -p 7300 || fail "instance 1 did not come back"
perftest_done $out ib_write_bw -d mlx5_0 -p 18701 -s 65536 -n 500 "$PEER_IP"
cat $out
[ "$rc" = 0 ] || fail "ib_write_bw to the rebooted peer failed ($rc)"
grep -Eq "^[[:space:]]*65536[[:space:]]+500[[:space:]]" $out || fail "no result row"
echo "reboot: OK"
