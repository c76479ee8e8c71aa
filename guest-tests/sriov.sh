#!/bin/sh
# SR-IOV on an Ethernet port (issue 29): the PF offers 8 VFs (sriov_totalvfs); `echo 4 >
# sriov_numvfs` makes four 15b3:1018 functions, each probed by the stock mlx5_core (an mlx5e
# netdev, an RDMA device; "Assigned random MAC address" but for VF 0, whose MAC the PF set with
# `ip link set ... vf 0 mac`; `ip link show` lists the VFs, `ip -s` their counters; mlx5_core
# enables its E-Switch in legacy mode: the device's FDB, which the driver programs, switches
# the functions' frames; `ip link set ... vf N state disable|auto` takes a VF's carrier away and
# back, `spoofchk on` drops a VF's frames from another MAC, `vlan 10 qos 3` puts a VF in a VLAN
# (VST) the other guest reaches on its own VLAN interface, `max_tx_rate` holds a VF's TCP and
# RDMA to its rate). Two VFs moved into network namespaces reach each other, the PF and the other guest
# through the device's switch: ping and md5-checked TCP VF-to-VF and other-guest-to-VF; RoCE v2
# (ibv_rc_pingpong) VF-to-VF and other-guest-to-VF, ib_send_bw and rping (RDMA CM)
# other-guest-to-VF. A VF's FLR (unbound, reset, bound) gives a working VF again. `echo 0`
# removes them cleanly while two of them ping each other (no "timeout reclaiming VFs pages"),
# and 0 -> 2 -> 0 works again.
# mlx5t-instances: 2
# mlx5t-timeout: 600
# mlx5t-device-args: link-type=eth
# mlx5t-retry-if: Correlation coefficient r\^2: [0-9.e+-]+ < 0\.9
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/roce.sh
. /test/lib/sriov.sh
mlx5e_peer_up
if [ "$IDX" = 1 ]; then
  GP=$(gid_index mlx5_0 1 "$(ipv4_gid "$ME")") || fail "no RoCE v2 GID for $ME"
fi

if [ "$IDX" = 0 ]; then
  D=/sys/class/net/$E/device
  tv=$(cat "$D/sriov_totalvfs") || fail "no sriov_totalvfs: the PF has no SR-IOV capability"
  echo "$E: sriov_totalvfs $tv"
  [ "$tv" = 8 ] || fail "sriov_totalvfs is $tv, expected 8 (num-vfs default)"
  # the PF (vport group manager) sets VF 0's MAC before the VF exists
  run ip link set "$E" vf 0 mac 02:4d:56:46:00:01 || fail "ip link set $E vf 0 mac failed"
  run sh -c "echo 4 > $D/sriov_numvfs" || fail "echo 4 > sriov_numvfs failed"
  wait_for 60 all_ready 4 || { vfs; fail "four VFs did not come up with netdevs and RDMA devices"; }
  for v in $(vfs); do
    echo "VF $v: netdev $(ls /sys/bus/pci/devices/$v/net) rdma $(ls /sys/bus/pci/devices/$v/infiniband)" \
      "MAC $(cat /sys/bus/pci/devices/$v/net/*/address)"
  done
  set -- $(vfs)
  [ "$(cat /sys/bus/pci/devices/$1/net/*/address)" = 02:4d:56:46:00:01 ] ||
    fail "VF 0 did not take the MAC its PF set"
  n=$(dmesg | grep -c "mlx5_core .*Assigned random MAC address")
  [ "$n" = 3 ] || fail "expected 3 'Assigned random MAC address' lines (VF 0 has its PF's), saw $n"
  # the PF is the E-Switch manager: mlx5_core's legacy mode, its FDB switches the VFs' frames
  dmesg | grep -q "E-Switch: Enable: mode(LEGACY), nvfs(4)" ||
    fail "mlx5_core did not enable its E-Switch in legacy mode for 4 VFs"
  es=$(devlink dev eswitch show "pci/$(basename "$(readlink "$D")")" 2>&1) ||
    fail "devlink dev eswitch show failed: $es"
  echo "devlink: $es"
  expect "$es" "mode legacy" "devlink dev eswitch show: legacy mode"
  lk=$(ip link show "$E")
  echo "$lk"
  expect "$lk" "vf 0 +link/ether 02:4d:56:46:00:01" "ip link show: VF 0 with the MAC its PF set"
  expect "$lk" "vf 3 +link/ether" "ip link show: four VFs"
  V0=$(ls /sys/bus/pci/devices/$1/net) R0=$(ls /sys/bus/pci/devices/$1/infiniband)
  V1=$(ls /sys/bus/pci/devices/$2/net) R1=$(ls /sys/bus/pci/devices/$2/infiniband)
  # the VFs in their own namespaces, on the PF's subnet
  for p in "a $V0 11" "b $V1 12"; do
    set -- $p
    ip netns add "$1"
    ip link set "$2" netns "$1" || fail "cannot move $2 into namespace $1"
    ip -n "$1" link set lo up
    ip -n "$1" addr add "192.168.77.$3/24" dev "$2"
    ip -n "$1" link set "$2" up
    wait_for 30 sh -c "ip -n $1 link show $2 | grep -q LOWER_UP" || fail "$2 has no carrier"
  done
  for p in "a 192.168.77.12 VF-to-VF" "a 192.168.77.1 VF-to-PF" "b 192.168.77.2 VF-to-other-guest" \
           "a 192.168.77.2 VF-to-other-guest"; do
    set -- $p
    wait_for 30 ip netns exec "$1" ping -c 1 -W 1 "$2" || fail "$3: no ping reply from $2 (namespace $1)"
    echo "$3 ping $2 from namespace $1: $(ip netns exec "$1" ping -c 3 -i 0.2 "$2" | tail -n 2 | head -n 1)"
  done
  # a VF's link as its PF says (ip link set ... vf N state: the E-Switch vport's admin state)
  run ip link set "$E" vf 1 state disable || fail "ip link set $E vf 1 state disable failed"
  wait_for 10 sh -c "ip -n b link show $V1 | grep -q NO-CARRIER" || fail "VF 1 kept its carrier"
  run ip link set "$E" vf 1 state auto || fail "ip link set $E vf 1 state auto failed"
  wait_for 10 sh -c "ip -n b link show $V1 | grep -q LOWER_UP" || fail "VF 1 has no carrier again"
  wait_for 30 ip netns exec b ping -c 1 -W 1 192.168.77.11 || fail "VF 1 lost VF 0 after state auto"
  # spoof check (the vport's ingress ACL): VF 0, whose MAC its PF set, is cut off with another
  # source MAC, and is not without the check
  run ip link set "$E" vf 0 spoofchk on || fail "ip link set $E vf 0 spoofchk on failed"
  expect "$(ip link show "$E")" "vf 0 .*spoof checking on" "ip link show: VF 0 spoof checking on"
  ip -n a link set "$V0" address 02:4d:56:46:00:99 || fail "cannot change VF 0's MAC"
  ip -n a neigh flush all; ip -n b neigh flush all
  ip netns exec a ping -c 2 -W 1 192.168.77.12 >/dev/null &&
    fail "VF 0 reached VF 1 from a spoofed MAC under spoofchk on"
  echo "spoofchk on: VF 0's frames from a spoofed MAC dropped"
  run ip link set "$E" vf 0 spoofchk off || fail "ip link set $E vf 0 spoofchk off failed"
  wait_for 20 ip netns exec a ping -c 1 -W 1 192.168.77.12 ||
    fail "VF 0 with another MAC and spoofchk off does not reach VF 1"
  ip -n a link set "$V0" address 02:4d:56:46:00:01
  ip -n a neigh flush all; ip -n b neigh flush all
  wait_for 20 ip netns exec a ping -c 1 -W 1 192.168.77.12 || fail "VF 0 lost VF 1 after the MAC came back"
  # TCP VF-to-VF, checked by md5
  gen_data /tmp/tcp.src
  want=$(md5sum < /tmp/tcp.src | cut -d' ' -f1)
  # (the receiver in the foreground: a background nc has /dev/null as its input, and closes)
  (sleep 1; ip netns exec a nc -w 3 192.168.77.12 5301 < /tmp/tcp.src) &
  spid=$!
  ip netns exec b timeout 120 nc -l -p 5301 > /tmp/vf.dst || fail "TCP VF-to-VF: receive failed"
  wait $spid || fail "TCP VF-to-VF: send failed"
  got=$(md5sum < /tmp/vf.dst | cut -d' ' -f1)
  echo "TCP VF-to-VF: $(wc -c < /tmp/vf.dst) bytes, md5 $got"
  [ "$got" = "$want" ] || fail "TCP VF-to-VF: data differs (md5 $got, sent $want)"
  # max_tx_rate (mlx5_core's E-Switch QoS: a root TSAR, a scheduling element for the vport):
  # VF 0 sends no faster than 1 Mbit/s, so 500 kB to VF 1 take at least ~4 s; then no limit
  run ip link set "$E" vf 0 max_tx_rate 1 || fail "ip link set $E vf 0 max_tx_rate 1 failed"
  expect "$(ip link show "$E")" "vf 0 .*max_tx_rate 1Mbps" "ip link show: VF 0 max_tx_rate 1Mbps"
  head -c 500000 /tmp/tcp.src > /tmp/rate.src
  t0=$(cut -d' ' -f1 /proc/uptime)
  (sleep 1; ip netns exec a nc -w 3 192.168.77.12 5303 < /tmp/rate.src) &
  spid=$!
  ip netns exec b timeout 120 nc -l -p 5303 > /tmp/rate.dst || fail "TCP at max_tx_rate 1: receive failed"
  wait $spid || fail "TCP at max_tx_rate 1: send failed"
  t1=$(cut -d' ' -f1 /proc/uptime)
  cmp -s /tmp/rate.src /tmp/rate.dst || fail "TCP at max_tx_rate 1: data differs"
  el=$(awk "BEGIN { print $t1 - $t0 - 1 }")
  need=$(awk "BEGIN { print 0.9 * 500000 * 8 / 1000000 }")
  echo "VF 0 at max_tx_rate 1: 500000 bytes in $el s (at least $need s)"
  awk "BEGIN { exit !($el >= $need) }" || fail "VF 0 beat its max_tx_rate: $el s < $need s"
  run ip link set "$E" vf 0 max_tx_rate 0 || fail "ip link set $E vf 0 max_tx_rate 0 failed"
  # the PF reads its VFs' vport counters (ip -s link show: each VF's traffic)
  tx0=$(ip -s link show "$E" | awk '/vf 0 /{f=1} f && /TX:/{getline; print $2; exit}')
  echo "ip -s link show: VF 0 sent ${tx0:-?} packets"
  [ "${tx0:-0}" -gt 1000 ] || fail "ip -s link show: VF 0's TX packets ($tx0) did not follow its traffic"
  G0=$(gid_index "$R0" 1 "$(ipv4_gid 192.168.77.11)") || { show_gids "$R0" 1; fail "$R0: no GID for 192.168.77.11"; }
  G1=$(gid_index "$R1" 1 "$(ipv4_gid 192.168.77.12)") || { show_gids "$R1" 1; fail "$R1: no GID for 192.168.77.12"; }
fi
barrier up 6300

# TCP from the other guest to VF 0 (its namespace), checked by md5
gen_data /tmp/tcp.src
if [ "$IDX" = 0 ]; then
  ip netns exec a timeout 120 nc -l -p 5302 > /tmp/tcp.dst || fail "TCP to the VF: receive failed"
  got=$(md5sum < /tmp/tcp.dst | cut -d' ' -f1)
  want=$(md5sum < /tmp/tcp.src | cut -d' ' -f1)
  echo "TCP other-guest-to-VF: $(wc -c < /tmp/tcp.dst) bytes, md5 $got"
  [ "$got" = "$want" ] || fail "TCP other-guest-to-VF: data differs (md5 $got, sent $want)"
else
  _end=$(($(date +%s) + 60))
  until nc -w 3 192.168.77.11 5302 < /tmp/tcp.src; do
    [ "$(date +%s)" -lt "$_end" ] || fail "TCP to the VF: cannot connect to 192.168.77.11"
    sleep 0.5
  done
fi
barrier tcp 6310

# VST (ip link set ... vf 1 vlan 10 qos 3: the vport's E-Switch context tags what VF 1 sends
# and strips what it gets, its ACLs drop its own tagged frames and others' untagged ones): VF 1
# reaches the other guest's VLAN 10 interface, no longer untagged VF 0; vlan 0 undoes it
if [ "$IDX" = 0 ]; then
  run ip link set "$E" vf 1 vlan 10 qos 3 || fail "ip link set $E vf 1 vlan 10 qos 3 failed"
  expect "$(ip link show "$E")" "vf 1 .*vlan 10, qos 3" "ip link show: VF 1 in VLAN 10, qos 3"
  ip -n b addr add 192.168.78.12/24 dev "$V1"
  barrier vst 6312
  wait_for 30 ip netns exec b ping -c 1 -W 1 192.168.78.2 ||
    fail "VF 1 in VLAN 10 does not reach the other guest's VLAN 10 interface"
  echo "VST: VF 1 (VLAN 10) to the other guest's $E.10:" \
    "$(ip netns exec b ping -c 3 -i 0.2 192.168.78.2 | tail -n 2 | head -n 1)"
  ip -n a neigh flush all; ip -n b neigh flush all
  ip netns exec b ping -c 2 -W 1 192.168.77.11 >/dev/null && fail "VF 1 in VLAN 10 reached untagged VF 0"
  echo "VST: VF 1 (VLAN 10) and untagged VF 0 do not reach each other"
  run ip link set "$E" vf 1 vlan 0 || fail "ip link set $E vf 1 vlan 0 failed"
  wait_for 20 ip netns exec b ping -c 1 -W 1 192.168.77.11 || fail "VF 1 lost VF 0 after vlan 0"
  ip -n b addr del 192.168.78.12/24 dev "$V1"
  barrier vst-done 6314
else
  ip link add link "$E" name "$E.10" type vlan id 10 || fail "cannot add $E.10"
  ip addr add 192.168.78.2/24 dev "$E.10" && ip link set "$E.10" up || fail "$E.10 did not come up"
  barrier vst 6312
  barrier vst-done 6314
  ip link del "$E.10"
fi

# RoCE v2 from the other guest's PF to VF 0 (the exchange over the management network)
RDEV=${R0:-mlx5_0}
roce_pair "ibv_rc_pingpong other-guest-to-VF" 0 "bytes in .* seconds" \
  ibv_rc_pingpong -d "$R0" -g "$G0" -p $ROCE_PORT -- ibv_rc_pingpong -d mlx5_0 -g "$GP" -p $ROCE_PORT 10.0.0.1
# perftest (its exchange over the management network) and RDMA CM (rping in VF 0's namespace:
# the CM resolves 192.168.77.11 to the VF's RDMA device; iproute2's ip by its path, as timeout
# would run busybox's)
run modprobe rdma_ucm || fail "modprobe rdma_ucm failed"
IPR=$(command -v ip)
ROCE_PORT=$((ROCE_PORT + 1))
roce_pair "ib_send_bw other-guest-to-VF" 0 "^ *65536 +200 " \
  ib_send_bw -d "$R0" -x "$G0" -n 200 -p $ROCE_PORT -- ib_send_bw -d mlx5_0 -x "$GP" -n 200 -p $ROCE_PORT 10.0.0.1
ROCE_PORT=$((ROCE_PORT + 1))
roce_pair "rping other-guest-to-VF" 0 "rdma-ping-9" \
  "$IPR" netns exec a rping -s -a 192.168.77.11 -C 10 -v -- rping -c -a 192.168.77.11 -C 10 -v
# max_tx_rate holds the VF's RDMA too: ib_send_bw from VF 0 at 2 Mbit/s (800 kB) averages
# below 0.3 MB/s (unpaced: tens of MB/s)
[ "$IDX" = 0 ] && { run ip link set "$E" vf 0 max_tx_rate 2 || fail "max_tx_rate 2 failed"; }
ROCE_PORT=$((ROCE_PORT + 1))
roce_pair "ib_send_bw VF-to-other-guest at max_tx_rate 2" 1 "^ *4096 +200 " \
  ib_send_bw -d mlx5_0 -x "$GP" -s 4096 -n 200 -p $ROCE_PORT -- \
  ib_send_bw -d "$R0" -x "$G0" -s 4096 -n 200 -p $ROCE_PORT 10.0.0.2
if [ "$IDX" = 0 ]; then
  bw=$(awk '$1 == 4096 && $2 == 200 { print $4 }' "$ROCE_OUT")
  echo "ib_send_bw from VF 0 at max_tx_rate 2: BW average ${bw:-?} MB/s"
  awk "BEGIN { exit !(${bw:-99} < 0.3) }" || fail "VF 0's RDMA beat its max_tx_rate: ${bw:-?} MB/s"
  run ip link set "$E" vf 0 max_tx_rate 0 || fail "max_tx_rate 0 failed"
fi

if [ "$IDX" = 0 ]; then
  # RoCE v2 between two VFs of this guest (100 iterations: both programs poll on the one vCPU)
  timeout 60 ibv_rc_pingpong -d "$R0" -g "$G0" -p 18600 -n 100 > /tmp/pp.srv 2>&1 &
  spid=$!
  sleep 1
  timeout 60 ibv_rc_pingpong -d "$R1" -g "$G1" -p 18600 -n 100 localhost > /tmp/pp.cli 2>&1 ||
    { cat /tmp/pp.cli; fail "ibv_rc_pingpong VF-to-VF (client $R1) failed"; }
  wait $spid || { cat /tmp/pp.srv; fail "ibv_rc_pingpong VF-to-VF (server $R0) failed"; }
  cat /tmp/pp.cli
  grep -q "bytes in .* seconds" /tmp/pp.cli || fail "ibv_rc_pingpong VF-to-VF: no result line"

  # VF FLR, as before handing a VF to vfio: unbound, reset, bound again: probed afresh and
  # switched as before
  vf0=$(vfs | head -n 1)
  grep -qw flr "/sys/bus/pci/devices/$vf0/reset_method" || fail "VF $vf0 cannot be reset by FLR"
  echo "$vf0" > /sys/bus/pci/drivers/mlx5_core/unbind || fail "unbind of VF $vf0 failed"
  echo 1 > "/sys/bus/pci/devices/$vf0/reset" || fail "FLR of VF $vf0 failed"
  echo "$vf0" > /sys/bus/pci/drivers/mlx5_core/bind || fail "bind of VF $vf0 failed"
  wait_for 30 vf_ready "$vf0" || fail "VF $vf0 did not probe again after its FLR"
  V0=$(ls /sys/bus/pci/devices/$vf0/net)
  ip link set "$V0" netns a && ip -n a addr add 192.168.77.11/24 dev "$V0" && ip -n a link set "$V0" up ||
    fail "VF $vf0's new netdev $V0 did not come up in namespace a"
  wait_for 30 ip netns exec a ping -c 1 -W 1 192.168.77.12 || fail "no VF-to-VF ping after the FLR"
  echo "VF $vf0: FLR, probed again ($V0), VF-to-VF ping answered"

  # removed under traffic: VF 0 pings VF 1 every 10 ms meanwhile
  ip netns exec a ping -i 0.01 -q 192.168.77.12 > /dev/null 2>&1 &
  ppid=$!
  sleep 1
  run sh -c "echo 0 > $D/sriov_numvfs" || fail "echo 0 > sriov_numvfs failed"
  kill $ppid 2>/dev/null
  wait_for 30 sh -c "[ -z \"\$(ls -d /sys/bus/pci/devices/*/physfn 2>/dev/null)\" ]" ||
    fail "VFs still present after echo 0"
  [ "$(cat $D/sriov_numvfs)" = 0 ] || fail "sriov_numvfs is not 0"
  # again, 0 -> 2 -> 0
  run sh -c "echo 2 > $D/sriov_numvfs" || fail "echo 2 > sriov_numvfs failed"
  wait_for 60 all_ready 2 || fail "two VFs did not come up again"
  run sh -c "echo 0 > $D/sriov_numvfs" || fail "second echo 0 > sriov_numvfs failed"
  [ -z "$(vfs)" ] || fail "VFs still present after the second echo 0"
  dmesg | grep -q "timeout reclaiming" && fail "the PF timed out reclaiming VF pages"
  ping -c 1 -W 2 "$PEER" > /dev/null || fail "the PF lost its link to the other guest"
  echo "sriov: VFs created, used and removed twice"
fi
barrier done 6320
