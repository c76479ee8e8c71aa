#!/bin/sh
# Switchdev mode (issue 29): with two VFs, `devlink dev eswitch set ... mode switchdev` moves
# mlx5_core's E-Switch to its offloads mode: representor netdevs for the uplink (the PF's own)
# and each VF (`devlink port show`: flavours physical and pcivf), one RDMA device whose ports
# are the representors, and the device's FDB as esw_offloads programs it (software owned as on
# a ConnectX-5, so through mlx5_core's own steering entries, flow_steering_mode smfs: send-to-
# vport rules by source SQ, every VF frame to the PF by default, the PF's NIC RX steering by source vport
# to the representors, an RDMA RX table keeping the PF's RoCE to its own vport). The slow path:
# VF 0 and its representor reach each other (ping, md5-checked TCP); a representor owns its
# VF's link (down/up takes the VF's carrier away and back); its counters are the VF's. VF 1
# reaches the other guest through tc rules (mirred) between its representor and the uplink
# representor: ping, md5-checked TCP and RoCE v2 (ibv_rc_pingpong) from the other guest's PF.
# Then a Linux bridge of both representors and the uplink representor: mlx5_core's bridge
# offload (vport metadata: reg_c_0 set by the vports' ingress ACLs, matched by the FDB) puts
# what the bridge learns into the device's FDB ("offload" in bridge fdb show); VF 0 reaches VF 1
# (ping, md5-checked TCP) and VF 1 the other guest without crossing the representors.
# Back to legacy mode, VF 1 reaches the other guest through the legacy FDB again; sriov_numvfs
# 0 -> 2 -> 0 works in switchdev mode.
# mlx5t-instances: 2
# mlx5t-timeout: 600
# mlx5t-device-args: link-type=eth
. /test/lib/common.sh
. /test/lib/ipoib.sh
. /test/lib/roce.sh
. /test/lib/sriov.sh
mlx5e_peer_up
if [ "$IDX" = 1 ]; then
  GP=$(gid_index mlx5_0 1 "$(ipv4_gid "$ME")") || fail "no RoCE v2 GID for $ME"
fi

# rep N: the netdev of VF N's representor (devlink port show)
rep() {
  devlink port show | sed -n "s/.* netdev \([^ ]*\) flavour pcivf .* vfnum $1 .*/\1/p"
}
# rx_packets DEV [NS]: the interface's received packets (its driver's statistics)
rx_packets() {
  ip ${2:+-n "$2"} -s link show "$1" | awk '/RX:/ { getline; print $2; exit }'
}
# rep_rx DEV: the frames that reached the representor's own receive queues (ethtool -S
# rx_packets; its ip -s counters are its VF's vport's, offloaded traffic included)
rep_rx() {
  ethtool -S "$1" | awk '$1 == "rx_packets:" { print $2; exit }'
}
# md5_tcp NS_RX ADDR PORT NS_TX: TCP from namespace NS_TX (or the host's) to ADDR in NS_RX
# (or the host's), checked by md5
md5_tcp() {
  gen_data /tmp/sd.src
  (sleep 1; ${4:+ip netns exec "$4"} nc -w 3 "$2" "$3" < /tmp/sd.src) &
  _spid=$!
  ${1:+ip netns exec "$1"} timeout 120 nc -l -p "$3" > /tmp/sd.dst || fail "TCP to $2: receive failed"
  wait $_spid || fail "TCP to $2: send failed"
  cmp -s /tmp/sd.src /tmp/sd.dst || fail "TCP to $2: data differs"
  echo "TCP to $2: $(wc -c < /tmp/sd.dst) bytes, md5 $(md5sum < /tmp/sd.dst | cut -d' ' -f1)"
}
on_fail() {
  devlink port show 2>&1
  tc -s filter show dev "$E" ingress 2>/dev/null
  dmesg | grep -i "e-switch\|mlx5" | tail -n 20
}

if [ "$IDX" = 0 ]; then
  D=/sys/class/net/$E/device
  BDF=$(basename "$(readlink "$D")")
  run sh -c "echo 2 > $D/sriov_numvfs" || fail "echo 2 > sriov_numvfs failed"
  wait_for 60 all_ready 2 || fail "two VFs did not come up"
  set -- $(vfs)
  V0=$(ls "/sys/bus/pci/devices/$1/net") V1=$(ls "/sys/bus/pci/devices/$2/net")
  VR1=$(ls "/sys/bus/pci/devices/$2/infiniband")
  run devlink dev eswitch set "pci/$BDF" mode switchdev || fail "devlink: no switchdev mode"
  es=$(devlink dev eswitch show "pci/$BDF")
  echo "devlink: $es"
  expect "$es" "mode switchdev" "devlink dev eswitch show: switchdev mode"
  # the FDB's reformat and decap (TC's tunnel actions): encap mode basic, a card's default
  expect "$es" "encap-mode basic" "devlink dev eswitch show: encap-mode basic"
  # the FDB software owned, as on a ConnectX-5: mlx5_core writes its steering entries (SMFS)
  fsm=$(devlink dev param show "pci/$BDF" name flow_steering_mode)
  expect "$fsm" "value smfs" "devlink: flow_steering_mode smfs (the FDB through mlx5_core's software steering)"
  dmesg | grep -q "E-Switch: Enable: mode(OFFLOADS), nvfs(2)" ||
    fail "mlx5_core did not enable its E-Switch in offloads mode for 2 VFs"
  ports=$(devlink port show)
  echo "$ports"
  expect "$ports" "netdev $E flavour physical" "devlink port show: the uplink representor ($E)"
  R0=$(rep 0) R1=$(rep 1)
  [ -n "$R0" ] && [ -n "$R1" ] || fail "devlink port show: no representors of VF 0 and VF 1"
  echo "representors: uplink $E, VF 0 $R0, VF 1 $R1"
  rl=$(rdma link show)
  echo "$rl"
  expect "$rl" "netdev $R0" "rdma link show: a port of the representors' RDMA device on $R0"
  expect "$rl" "netdev $E" "rdma link show: the uplink representor's port"
  # the uplink representor is the PF's netdev: the other guest still answers it
  wait_for 30 ping -c 1 -W 1 "$PEER" || fail "the uplink representor lost the other guest"

  # the slow path: VF 0 (namespace a) and its representor
  ip netns add a && ip link set "$V0" netns a || fail "cannot move $V0 into namespace a"
  ip -n a link set lo up
  ip -n a addr add 10.9.0.11/24 dev "$V0" && ip -n a link set "$V0" up
  ip addr add 10.9.0.1/24 dev "$R0" && ip link set "$R0" up || fail "$R0 did not come up"
  wait_for 30 sh -c "ip -n a link show $V0 | grep -q LOWER_UP" ||
    fail "VF 0 has no carrier with its representor up"
  r0=$(rx_packets "$R0")
  wait_for 30 ip netns exec a ping -c 1 -W 1 10.9.0.1 || fail "VF 0 does not reach its representor"
  echo "VF 0 to its representor: $(ip netns exec a ping -c 3 -i 0.2 10.9.0.1 | tail -n 2 | head -n 1)"
  md5_tcp "" 10.9.0.1 5401 a
  md5_tcp a 10.9.0.11 5402 ""
  # the representor's counters are its VF's vport's (read by the PF; refreshed in the background)
  wait_for 10 sh -c "[ \$(ip -s link show $R0 | awk '/RX:/ { getline; print \$2; exit }') -gt $((r0 + 100)) ]" ||
    fail "$R0's RX packets ($(rx_packets "$R0"), were $r0) do not follow VF 0's traffic"
  echo "$R0 RX packets: $r0 -> $(rx_packets "$R0")"
  # the representor owns the VF's link
  run ip link set "$R0" down
  wait_for 10 sh -c "ip -n a link show $V0 | grep -q NO-CARRIER" || fail "VF 0 kept its carrier"
  run ip link set "$R0" up
  wait_for 10 sh -c "ip -n a link show $V0 | grep -q LOWER_UP" || fail "VF 0 has no carrier again"
  wait_for 30 ip netns exec a ping -c 1 -W 1 10.9.0.1 || fail "VF 0 lost its representor after up"

  # VF 1 (namespace b, on the fabric's subnet) to the other guest: tc between its representor
  # and the uplink representor
  ip netns add b && ip link set "$V1" netns b || fail "cannot move $V1 into namespace b"
  ip -n b link set lo up
  ip -n b addr add 192.168.77.13/24 dev "$V1" && ip -n b link set "$V1" up
  M1=$(cat "/sys/bus/pci/devices/$2/net/$V1/address" 2>/dev/null ||
       ip -n b link show "$V1" | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p')
  ip link set "$R1" up
  run tc qdisc add dev "$R1" ingress
  run tc filter add dev "$R1" ingress matchall action mirred egress redirect dev "$E" ||
    fail "tc: no redirect from $R1 to $E"
  run tc qdisc add dev "$E" ingress
  run tc filter add dev "$E" ingress flower dst_mac "$M1" action mirred egress redirect dev "$R1" ||
    fail "tc: no redirect from $E to $R1"
  run tc filter add dev "$E" ingress flower dst_mac ff:ff:ff:ff:ff:ff action mirred egress mirror dev "$R1"
  wait_for 30 ip netns exec b ping -c 1 -W 1 "$PEER" || fail "VF 1 does not reach the other guest"
  echo "VF 1 to the other guest: $(ip netns exec b ping -c 3 -i 0.2 "$PEER" | tail -n 2 | head -n 1)"
  G1=$(gid_index "$VR1" 1 "$(ipv4_gid 192.168.77.13)") || { show_gids "$VR1" 1; fail "$VR1: no GID for 192.168.77.13"; }
fi
barrier up 6400

# TCP and RoCE v2 from the other guest to VF 1, through the representors
if [ "$IDX" = 0 ]; then
  gen_data /tmp/tcp.src
  ip netns exec b timeout 120 nc -l -p 5403 > /tmp/tcp.dst || fail "TCP to VF 1: receive failed"
  cmp -s /tmp/tcp.src /tmp/tcp.dst || fail "TCP other-guest-to-VF 1: data differs"
  echo "TCP other-guest-to-VF 1: $(wc -c < /tmp/tcp.dst) bytes, md5 $(md5sum < /tmp/tcp.dst | cut -d' ' -f1)"
else
  gen_data /tmp/tcp.src
  _end=$(($(date +%s) + 60))
  until nc -w 3 192.168.77.13 5403 < /tmp/tcp.src; do
    [ "$(date +%s)" -lt "$_end" ] || fail "TCP to VF 1: cannot connect to 192.168.77.13"
    sleep 0.5
  done
fi
barrier tcp 6410
roce_pair "ibv_rc_pingpong other-guest-to-VF 1 in switchdev mode" 0 "bytes in .* seconds" \
  ibv_rc_pingpong -d "$VR1" -g "$G1" -p $ROCE_PORT -- ibv_rc_pingpong -d mlx5_0 -g "$GP" -p $ROCE_PORT 10.0.0.1

if [ "$IDX" = 0 ]; then
  tx=$(tc -s filter show dev "$R1" ingress | awk '/Sent/ { print $4; exit }')
  echo "tc: $R1 -> $E redirected ${tx:-?} packets"
  [ "${tx:-0}" -gt 10 ] || fail "tc on $R1 redirected ${tx:-0} packets: VF 1's traffic took another way"
  tc qdisc del dev "$E" ingress
  tc qdisc del dev "$R1" ingress

  # a Linux bridge of the representors and the uplink: mlx5_core's bridge offload (vport
  # metadata: the device's ingress ACLs tag each frame with its vport's, its FDB matches it)
  # puts the addresses the bridge learns into the device's FDB ("offload" in bridge fdb
  # show), and the frames between the VFs and to the link no longer cross the representors
  ip -n a addr add 192.168.77.11/24 dev "$V0"
  ip addr del "$ME/24" dev "$E"
  run ip link add br0 type bridge || fail "no bridge"
  for p in "$R0" "$R1" "$E"; do
    run ip link set "$p" master br0 || fail "ip link set $p master br0 failed (bridge offload)"
  done
  ip addr add "$ME/24" dev br0 && ip link set br0 up
  M0=$(ip -n a link show "$V0" | sed -n 's/.*link\/ether \([^ ]*\).*/\1/p')
  wait_for 30 ip netns exec a ping -c 1 -W 1 192.168.77.13 || fail "bridge: VF 0 does not reach VF 1"
  wait_for 30 ip netns exec b ping -c 1 -W 1 "$PEER" || fail "bridge: VF 1 does not reach the other guest"
  wait_for 30 ping -c 1 -W 1 "$PEER" || fail "bridge: the PF (br0) does not reach the other guest"
  fdb=$(bridge fdb show br br0 | grep -v permanent)
  echo "$fdb"
  for m in "$M0" "$M1"; do
    expect "$fdb" "^$m dev .*offload" "bridge fdb show: $m learned and offloaded"
  done
  r0=$(rep_rx "$R0") r1=$(rep_rx "$R1")
  echo "bridge: VF 0 to VF 1: $(ip netns exec a ping -c 50 -i 0.05 192.168.77.13 | tail -n 2 | head -n 1)"
  echo "bridge: VF 1 to the other guest: $(ip netns exec b ping -c 50 -i 0.05 "$PEER" | tail -n 2 | head -n 1)"
  md5_tcp b 192.168.77.13 5404 a
  echo "frames the representors received during 100 pings and a TCP transfer:" \
    "$R0 $r0 -> $(rep_rx "$R0"), $R1 $r1 -> $(rep_rx "$R1")"
  [ "$(rep_rx "$R0")" -lt $((r0 + 20)) ] && [ "$(rep_rx "$R1")" -lt $((r1 + 20)) ] ||
    fail "bridge: the VFs' frames still cross their representors (not offloaded)"
  for p in "$R0" "$R1" "$E"; do ip link set "$p" nomaster; done
  ip link del br0
  ip addr add "$ME/24" dev "$E"
  wait_for 30 ping -c 1 -W 1 "$PEER" || fail "the uplink representor lost the other guest after the bridge"

  # back to legacy mode: the representors go, VF 1 reaches the other guest by the legacy FDB
  run devlink dev eswitch set "pci/$BDF" mode legacy || fail "devlink: no way back to legacy mode"
  expect "$(devlink dev eswitch show "pci/$BDF")" "mode legacy" "devlink dev eswitch show: legacy mode"
  [ -z "$(rep 0)" ] || fail "VF 0's representor is still there in legacy mode"
  ip -n b neigh flush all
  wait_for 30 ip netns exec b ping -c 1 -W 1 "$PEER" || fail "VF 1 does not reach the other guest in legacy mode"
  echo "legacy mode: VF 1 to the other guest: $(ip netns exec b ping -c 3 -i 0.2 "$PEER" | tail -n 2 | head -n 1)"
  # numvfs in switchdev mode: 0 -> 2 -> 0 (representors follow the VFs)
  run sh -c "echo 0 > $D/sriov_numvfs" || fail "echo 0 > sriov_numvfs failed"
  run devlink dev eswitch set "pci/$BDF" mode switchdev || fail "devlink: no switchdev mode with no VF"
  run sh -c "echo 2 > $D/sriov_numvfs" || fail "echo 2 > sriov_numvfs in switchdev mode failed"
  wait_for 60 all_ready 2 || fail "two VFs did not come up in switchdev mode"
  wait_for 30 sh -c '[ -n "$(devlink port show | grep "vfnum 1 ")" ]' || fail "no representor of the new VF 1"
  run sh -c "echo 0 > $D/sriov_numvfs" || fail "echo 0 > sriov_numvfs in switchdev mode failed"
  [ -z "$(vfs)" ] || fail "VFs still present after echo 0"
  run devlink dev eswitch set "pci/$BDF" mode legacy || fail "devlink: no way back to legacy mode"
  wait_for 30 ping -c 1 -W 1 "$PEER" || fail "the PF lost the other guest after the mode changes"
fi
barrier done 6420
echo "switchdev: all checks passed"
