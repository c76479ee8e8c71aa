#!/bin/sh
# IPoIB between two guests with Debian's ib_ipoib: the port's SM/SA is the fabric's elected
# master (ib_sm.c, ib_sa.c), so ib0 gets carrier by joining the broadcast group through the SA;
# then ping and a TCP transfer checked by md5 in datagram mode (MTU 2044, from the broadcast
# group's MTU 2048), the same in connected mode (RC QPs with SRQ set up by ib_cm over QP1
# between the guests, MTU 65520), and a child interface of the default partition (pkey 0x7fff,
# the limited-member form of 0xffff) with its own ping.
# mlx5t-instances: 2
# mlx5t-timeout: 600
. /test/lib/common.sh
. /test/lib/ipoib.sh
load_mlx5
wait_ib_active mlx5_0 1 90
ipoib_up

# datagram mode
[ "$(cat /sys/class/net/ib0/mode)" = datagram ] || fail "ib0 is not in datagram mode"
[ "$(cat /sys/class/net/ib0/mtu)" = 2044 ] || fail "datagram MTU $(cat /sys/class/net/ib0/mtu), want 2044"
run ping -c 3 -s 1500 "$IB_PEER" | tail -2
tcp_transfer 5001 192.168.77.1

# connected mode
barrier datagram-done 6001
echo connected > /sys/class/net/ib0/mode || fail "cannot switch to connected mode"
ip link set ib0 mtu 65520 || fail "cannot set MTU 65520"
[ "$(cat /sys/class/net/ib0/mode)" = connected ] || fail "ib0 did not switch to connected mode"
barrier connected 6002
wait_for 60 ping -c 1 -W 2 -s 30000 "$IB_PEER" || fail "no 30000-byte ping reply in connected mode"
run ping -c 3 -s 30000 "$IB_PEER" | tail -2
tcp_transfer 5002 192.168.77.1
rdma res show qp | grep -q 'type RC state RTS.*ib_ipoib' || fail "no ib_ipoib RC QP (connected mode not used)"
rdma res show qp | grep 'ib_ipoib'

# a child interface of the default partition
barrier child 6003
run ip link add link ib0 name ib0.7fff type ipoib pkey 0x7fff || fail "cannot add child ib0.7fff"
ip link set ib0.7fff up
wait_for 60 grep -qx 1 /sys/class/net/ib0.7fff/carrier || fail "ib0.7fff has no carrier"
ip addr add "192.168.78.$((IDX + 1))/24" dev ib0.7fff
wait_for 60 ping -c 1 -W 1 "192.168.78.$((2 - IDX))" || fail "no ping over ib0.7fff"
barrier child-done 6004
run ip link del ib0.7fff || fail "cannot delete ib0.7fff"
echo "ipoib: OK"
