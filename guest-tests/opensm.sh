#!/bin/sh
# A real subnet manager instead of the fabric's own: both devices run with sm=off, and Debian's
# opensm in guest 0 sweeps the subnet with directed-route SMPs over the link (answered by each
# guest kernel's SMA), becomes master (sminfo), sets the SM LID of both ports (ClientReregister:
# CLIENT_REREG event), and answers the SA itself: saquery, IPoIB and rping then work through it.
# mlx5t-instances: 2
# mlx5t-timeout: 700
. /test/lib/common.sh
. /test/lib/ipoib.sh
load_mlx5
wait_ib_active mlx5_0 1 90
echo "sm_lid before: $(cat /sys/class/infiniband/mlx5_0/ports/1/sm_lid)"
[ "$(cat /sys/class/infiniband/mlx5_0/ports/1/sm_lid)" = 0x0 ] || fail "an SM exists although every device has sm=off"
# both have looked before opensm starts (it would set the other port's SM LID at once)
barrier no-sm 6390
if [ "$IDX" = 0 ]; then
  mkdir -p /var/log /var/cache/opensm /etc/opensm
  opensm -f /tmp/opensm.log > /tmp/opensm.out 2>&1 &
fi
wait_for 120 sh -c '[ "$(cat /sys/class/infiniband/mlx5_0/ports/1/sm_lid)" != 0x0 ]' ||
  fail "opensm never set our SM LID: $(tail -n 20 /tmp/opensm.log 2>/dev/null)"
echo "sm_lid now: $(cat /sys/class/infiniband/mlx5_0/ports/1/sm_lid), lid $(cat /sys/class/infiniband/mlx5_0/ports/1/lid)"
out=$(sminfo) || fail "sminfo failed: $out"
echo "$out"
echo "$out" | grep -q "SMINFO_MASTER" || fail "opensm is not master"
barrier sm-up 6400
wait_for 60 sh -c 'saquery -N > /tmp/nr 2>&1' || fail "saquery -N failed: $(cat /tmp/nr)"
n=$(grep -cE '^\s+lid\.+' /tmp/nr)
echo "saquery -N (opensm): $n nodes"
[ "$n" = 2 ] || fail "saquery -N lists $n nodes: $(cat /tmp/nr)"
ipoib_up
if [ "$IDX" = 1 ]; then
  _end=$(($(date +%s) + 60))
  until timeout 120 rping -c -a 192.168.77.1 -C 10 -v > /tmp/rping 2>&1; do
    [ "$(date +%s)" -lt "$_end" ] || fail "rping client: $(cat /tmp/rping)"
    sleep 0.5
  done
  tail -1 /tmp/rping
else
  timeout 120 rping -s -a 192.168.77.1 -C 10 -v > /tmp/rping 2>&1 || fail "rping server: $(cat /tmp/rping)"
fi
barrier done 6402
if [ "$IDX" = 0 ]; then
  grep -iE "SUBNET UP|entering MASTER" /tmp/opensm.log | head -3
  ! grep " ERR " /tmp/opensm.log || fail "opensm logged errors"
fi
echo "opensm: OK"
