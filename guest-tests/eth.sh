#!/bin/sh
# Ethernet port (link-type=eth) between two guests: the stock mlx5_core brings up an mlx5e
# interface (ethtool -i: mlx5_core) with carrier, and it passes IP like any NIC: ping, a TCP
# transfer checked by md5 (TSO: LSO WQEs cut into segments by the device; checksum offload both
# ways), the same after an MTU change to 9000 with jumbo pings, and the counters of ethtool -S
# follow the traffic. Link down/up is seen by the peer (carrier of its own port stays, our
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
[ -d /sys/class/infiniband/mlx5_0 ] || fail "mlx5_ib did not register mlx5_0 on the Ethernet port"
ip link set $E up
wait_for 30 grep -qx 1 /sys/class/net/$E/carrier || fail "$E has no carrier"
ME=192.168.77.$((IDX + 1)) PEER=192.168.77.$((2 - IDX))
ip addr add $ME/24 dev $E
ethtool $E | grep -E 'Speed|Link detected'
wait_for 60 ping -c 1 -W 1 $PEER || fail "no ping reply over $E"
run ping -c 3 -s 1400 $PEER | tail -2
tcp_transfer 5001 192.168.77.1

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
