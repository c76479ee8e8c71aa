#!/bin/sh
# Ethernet port (link-type=eth) between two guests: the stock mlx5_core brings up an mlx5e
# interface (ethtool -i: mlx5_core) with carrier, and it passes IP like any NIC: ping, a TCP
# transfer checked by md5 (ethtool -m: the QSFP28 module; TSO: LSO WQEs cut into segments by the device; checksum offload both
# ways), the same through two VXLAN devices (the device's tunnel offloads), the same after an MTU change to 9000 with jumbo pings, and the counters of ethtool -S
# follow the traffic (the *_phy counters of the port's PPCNT groups too; --show-fec/--set-fec and
# ethtool -a: the port's FEC and pause). ethtool -N rules (ntuple: drop, steer to a queue, delete; RSS hash fields)
# take effect. Link down/up is seen by the peer (carrier of its own port stays, our
# frames stop), and traffic resumes.
# mlx5t-instances: 2
# mlx5t-timeout: 600
# mlx5t-device-args: link-type=eth
. /test/lib/common.sh
. /test/lib/ipoib.sh
load_mlx5
# the mlx5e interface (mlx5_netdev, common.sh: the netdev whose PCI function mlx5_core drives;
# the other NIC is the management virtio-net)
wait_for 30 mlx5_netdev || fail "no mlx5e interface (mlx5e did not probe)"
E=$(mlx5_netdev)
drv=$(ethtool -i $E) || fail "ethtool -i $E failed"
echo "$E: $(echo "$drv" | head -2 | tr '\n' ' ')"
expect "$drv" '^driver: mlx5_core$' "ethtool -i driver mlx5_core"
expect "$drv" '^firmware-version: 16\.35\.2000' "ethtool -i firmware version"
# the cable module (mlx5_module.c: PMLP, MCIA): ethtool -m decodes a QSFP28 100GBASE-SR4
# transceiver's SFF-8636 pages (identification, monitors, page 3 thresholds)
mod=$(ethtool -m $E 2>&1) || { echo "$mod"; fail "ethtool -m $E failed"; }
echo "$mod" | grep -E "Identifier|Vendor (name|PN|OUI)|OM3|Module temperature +:|Module voltage|\(Channel 1\)|Laser bias current high alarm threshold"
expect "$mod" 'Identifier +: 0x11 \(QSFP28\)' "ethtool -m: a QSFP28 module"
expect "$mod" 'Vendor name +: Mellanox' "ethtool -m: vendor name"
expect "$mod" 'Vendor PN +: MMA1B00-C100D' "ethtool -m: part number"
expect "$mod" 'Length \(OM3\) +: 70m' "ethtool -m: OM3 length"
expect "$mod" 'Module temperature +: 35\.50 degrees C' "ethtool -m: the module's temperature"
expect "$mod" 'Module voltage +: 3\.3000 V' "ethtool -m: the supply voltage"
expect "$mod" 'Laser bias current high alarm threshold +: 12\.000 mA' "ethtool -m: page 3 thresholds"
[ -d /sys/class/infiniband/mlx5_0 ] || fail "mlx5_ib did not register mlx5_0 on the Ethernet port"
ip link set $E up
wait_for 30 grep -qx 1 /sys/class/net/$E/carrier || fail "$E has no carrier"
ME=192.168.77.$((IDX + 1)) PEER=192.168.77.$((2 - IDX))
ip addr add $ME/24 dev $E
ethtool $E | grep -E 'Speed|Link detected'
wait_for 60 ping -c 1 -W 1 $PEER || fail "no ping reply over $E"
run ping -c 3 -s 1400 $PEER | tail -2
tcp_transfer 5001 192.168.77.1

# the physical layer (mlx5_phy.c): PPCNT's IEEE 802.3 group counts the port's frames (the TCP
# data included); PPLM's FEC (a 10G lane: none or BASE-R, auto = none); PFCC's pause (on)
st=$(ethtool -S $E)
echo "$st" | grep -E "(packets|bytes)_phy:|link_down_events_phy"
phy() { echo "$st" | sed -n "s/^ *$1: //p"; }
tcp=$(wc -c < /tmp/tcp.src)
if [ "$IDX" = 0 ]; then dir=rx; else dir=tx; fi
[ "$(phy ${dir}_bytes_phy)" -ge "$tcp" ] ||
  fail "${dir}_bytes_phy $(phy ${dir}_bytes_phy) is less than the $tcp bytes of TCP data"
[ "$(phy tx_packets_phy)" -gt 0 ] && [ "$(phy rx_packets_phy)" -gt 0 ] || fail "no *_packets_phy"
fec=$(ethtool --show-fec $E) || fail "ethtool --show-fec $E failed"
echo "$fec"
expect "$fec" 'Active FEC encoding: Off' "--show-fec: no FEC active on the 10G lane"
expect "$fec" 'Configured FEC encodings: Auto' "--show-fec: auto configured"
pause=$(ethtool -a $E) || fail "ethtool -a $E failed"
expect "$pause" '^RX:[[:space:]]+on' "ethtool -a: RX pause on"
expect "$pause" '^TX:[[:space:]]+on' "ethtool -a: TX pause on"
if [ "$IDX" = 0 ]; then
  down0=$(phy link_down_events_phy)
  run ethtool --set-fec $E encoding baser
  fec=$(ethtool --show-fec $E)
  expect "$fec" 'Configured FEC encodings: BaseR' "--set-fec baser: configured"
  expect "$fec" 'Active FEC encoding: BaseR' "--set-fec baser: active"
  run ethtool --set-fec $E encoding off
  expect "$(ethtool --show-fec $E)" 'Active FEC encoding: Off' "--set-fec off"
  # (mlx5e toggles the port for a new FEC: the link went down and up)
  wait_for 30 grep -qx 1 /sys/class/net/$E/carrier || fail "$E has no carrier after --set-fec"
  wait_for 60 ping -c 1 -W 1 $PEER || fail "no ping reply over $E after --set-fec"
  down1=$(ethtool -S $E | sed -n 's/^ *link_down_events_phy: //p')
  echo "link_down_events_phy: $down0 -> $down1"
  [ "$down1" -gt "$down0" ] || fail "link_down_events_phy did not count the port's toggles"
fi

# VXLAN over the port (mlx5e's VXLAN offload): the device's port table holds 4789, and mlx5e
# adds 8472 for a second device (ADD_VXLAN_UDP_DPORT) and removes it with it. Instance 1's
# TCP over each goes out as LSO WQEs cut at the inner TCP header with the inner checksums
# filled (tx_tso_inner_packets, tx_csum_partial_inner); vx1 has outer UDP checksums (the
# stack's GSO_PARTIAL: the device leaves them). Data checked by md5.
feat=$(ethtool -k $E)
expect "$feat" '^tx-udp_tnl-segmentation: on' "ethtool -k: VXLAN segmentation offload"
expect "$feat" '^tx-udp_tnl-csum-segmentation: on' "ethtool -k: VXLAN csum segmentation offload"
vxlan_transfer() {
  run ip link add $1 type vxlan id $2 remote $PEER dstport $3 dev $E $4 ||
    fail "ip link add $1 type vxlan failed"
  ip addr add 10.7$2.0.$((IDX + 1))/24 dev $1
  ip link set $1 up
  st0=$(ethtool -S $E)
  tcp_transfer $5 10.7$2.0.1
  st1=$(ethtool -S $E)
  for c in tx_tso_inner_packets tx_csum_partial_inner; do
    a=$(echo "$st0" | awk -v n="$c:" '$1 == n {print $2}')
    b=$(echo "$st1" | awk -v n="$c:" '$1 == n {print $2}')
    echo "$1: $c $a -> $b"
    if [ "$IDX" = 1 ] && [ "${b:-0}" -le "${a:-0}" ]; then
      fail "$1 (port $3): $c did not move: mlx5e did not offload the tunnel"
    fi
  done
  ip link del $1
}
vxlan_transfer vx0 1 4789 "" 5101
barrier vxlan 6011
vxlan_transfer vx1 2 8472 udpcsum 5102

# jumbo frames
barrier mtu 6001
ip link set $E mtu 9000 || fail "cannot set MTU 9000"
[ "$(cat /sys/class/net/$E/mtu)" = 9000 ] || fail "MTU is $(cat /sys/class/net/$E/mtu)"
wait_for 60 ping -c 1 -W 2 -s 8900 $PEER || fail "no 8900-byte ping reply at MTU 9000"
run ping -c 3 -s 8900 $PEER | tail -2
tcp_transfer 5002 192.168.77.1

# counters: ethtool -S reflects what went through
st=$(ethtool -S $E) || fail "ethtool -S failed"
rxp=$(echo "$st" | awk '$1 == "rx_packets:" {print $2}')
txp=$(echo "$st" | awk '$1 == "tx_packets:" {print $2}')
echo "ethtool -S: rx_packets $rxp tx_packets $txp"
[ "${rxp:-0}" -gt 100 ] && [ "${txp:-0}" -gt 100 ] || fail "ethtool -S counters do not follow the traffic"

# packet pacing (mlx5_pp.c): mlx5_core reads the QoS caps (its rate table, as a ConnectX-5's);
# tx_maxrate on the sender's queues puts each SQ on an entry of it (SET_PP_RATE_LIMIT, then
# MODIFY_SQ), and the device sends no faster: the 1.8 MB transfer at 1 Mbit/s (mlx5e: 1024
# kbps) takes at least ~14 s, where it takes well under 5 s unpaced. Then back to no limit.
barrier pacing 6012
if [ "$IDX" = 1 ]; then
  dmesg | grep -q 'Rate limit: 127 rates are supported, range: 0Mbps to 97656Mbps' ||
    fail "mlx5_core did not report the packet pacing rate table"
  for q in /sys/class/net/$E/queues/tx-*; do
    echo 1 > $q/tx_maxrate || fail "tx_maxrate on $q refused"
  done
  t0=$(cut -d' ' -f1 /proc/uptime)
fi
tcp_transfer 5005 192.168.77.1
if [ "$IDX" = 1 ]; then
  t1=$(cut -d' ' -f1 /proc/uptime)
  n=$(wc -c < /tmp/tcp.src)
  el=$(awk "BEGIN { print $t1 - $t0 }")
  need=$(awk "BEGIN { print 0.9 * $n * 8 / 1024000 }")
  echo "paced at tx_maxrate 1 (1024 kbps): $n bytes in $el s (at least $need s)"
  awk "BEGIN { exit !($el >= $need) }" || fail "the transfer beat its rate limit: $el s < $need s"
  for q in /sys/class/net/$E/queues/tx-*; do
    echo 0 > $q/tx_maxrate || fail "tx_maxrate 0 on $q refused"
  done
fi
tcp_transfer 5006 192.168.77.1

# ethtool -N (ntuple): instance 0 drops every IPv4 frame to itself except TCP to port 5003.
# The two rules land in two tables of mlx5_core's ethtool priority (more tuples, earlier
# table), chained before mlx5e's own tables; deleting them restores the path.
barrier ntuple 6005
if [ "$IDX" = 0 ]; then
  run ethtool -N $E flow-type ip4 dst-ip $ME action -1 loc 1 || fail "ethtool -N (drop rule) failed"
  run ethtool -N $E flow-type tcp4 dst-ip $ME dst-port 5003 action 0 loc 0 ||
    fail "ethtool -N (queue rule) failed"
  rules=$(ethtool -n $E) || fail "ethtool -n failed"
  echo "$rules" | grep -E 'Total|Filter|Action'
  expect "$rules" 'Total 2 rules' "ethtool -n lists both rules"
fi
barrier ntuple-set 6006
if [ "$IDX" = 1 ]; then
  ping -c 3 -W 1 $PEER > /tmp/ping.out 2>&1 && fail "ping got through the drop rule: $(tail -2 /tmp/ping.out)"
  echo "ping dropped by the peer's ethtool rule: $(grep -E 'received' /tmp/ping.out)"
fi
tcp_transfer 5003 192.168.77.1
barrier ntuple-tcp 6007
if [ "$IDX" = 0 ]; then
  run ethtool -N $E delete 0 && run ethtool -N $E delete 1 || fail "ethtool -N delete failed"
  expect "$(ethtool -n $E)" 'Total 0 rules' "ethtool -n lists no rule after delete"
  # RSS hash fields (ETHTOOL_SRXFH: MODIFY_TIR of the UDP/IPv4 TIRs)
  run ethtool -N $E rx-flow-hash udp4 sdfn || fail "ethtool -N rx-flow-hash failed"
  expect "$(ethtool -n $E rx-flow-hash udp4)" 'L4 bytes 0 & 1' "rx-flow-hash udp4 now hashes the ports"
fi
barrier ntuple-del 6008
[ "$IDX" = 1 ] && { wait_for 30 ping -c 1 -W 1 $PEER || fail "no ping reply after the rules were deleted"; }
# ntuple on: mlx5e's aRFS tables take the TCP/UDP traffic (its TTC rules are updated in
# place, SET_FLOW_TABLE_ENTRY op_mod 1); the transfer goes through them, then back
[ "$IDX" = 0 ] && { run ethtool -K $E ntuple on || fail "ethtool -K ntuple on failed"; }
tcp_transfer 5004 192.168.77.1
[ "$IDX" = 0 ] && { run ethtool -K $E ntuple off || fail "ethtool -K ntuple off failed"; }
# the self-test: its loopback test sends frames to our own MAC, which come back through the
# TIRs once mlx5e allows self loopback on them
if [ "$IDX" = 0 ]; then
  st=$(ethtool -t $E online) || fail "ethtool -t failed: $st"
  echo "$st"
  expect "$st" 'PASS' "ethtool -t passes"
fi
barrier selftest 6009

# link down and up on instance 1; instance 0 sees its pings fail, then work again
barrier flap 6003
if [ "$IDX" = 1 ]; then
  ip link set $E down
  sleep 3
  ip link set $E up
  wait_for 30 grep -qx 1 /sys/class/net/$E/carrier || fail "no carrier after link up"
fi
wait_for 60 ping -c 1 -W 1 $PEER || fail "no ping reply after the peer's link flap"
barrier done 6004
echo "eth: OK"
