# IPoIB and fabric helpers for two-guest tests (instance 0 and 1). Use after common.sh.
# IPoIB addresses: 192.168.77.(IDX+1)/24 on ib0; IB_ME / IB_PEER are set by ipoib_up.

# barrier NAME PORT: both instances get here before either goes on (over the management
# network: instance 0 listens, instance 1 connects)
barrier() {
  if [ "$IDX" = 0 ]; then
    timeout 120 nc -l -p "$2" >/dev/null || fail "barrier $1: instance 1 never came"
  else
    _end=$(($(date +%s) + 120))
    until echo "$1" | nc -w 1 "$PEER_IP" "$2" 2>/dev/null; do
      [ "$(date +%s)" -lt "$_end" ] || fail "barrier $1: instance 0 never listened"
      sleep 0.3
    done
  fi
}

# ipoib_up: load ib_ipoib, bring ib0 up (carrier means the broadcast group was joined through
# the SA), give it its address, wait until the peer answers
ipoib_up() {
  run modprobe -a ib_ipoib rdma_ucm || fail "modprobe ib_ipoib failed"
  ip link set ib0 up || fail "ib0 missing"
  wait_for 60 grep -qx 1 /sys/class/net/ib0/carrier || fail "ib0 has no carrier (broadcast group not joined)"
  IB_ME=192.168.77.$((IDX + 1)) IB_PEER=192.168.77.$((2 - IDX))
  ip addr add "$IB_ME/24" dev ib0
  echo "ib0: carrier, mode $(cat /sys/class/net/ib0/mode), mtu $(cat /sys/class/net/ib0/mtu), $IB_ME"
  wait_for 60 ping -c 1 -W 1 "$IB_PEER" || fail "no ping reply from $IB_PEER over ib0"
}

# gen_data FILE: the same ~1.8 MB of pseudo-random text on both instances
gen_data() {
  awk 'BEGIN{srand(7); for(i=0;i<100000;i++) printf "%08x %08x\n", int(rand()*4294967295), i}' > "$1"
}

# tcp_transfer PORT ADDR_OF_0: instance 1 sends the data to instance 0 over TCP; instance 0
# checks it byte for byte (md5)
tcp_transfer() {
  gen_data /tmp/tcp.src
  _want=$(md5sum < /tmp/tcp.src | cut -d' ' -f1)
  if [ "$IDX" = 0 ]; then
    rm -f /tmp/tcp.dst
    timeout 120 nc -l -p "$1" > /tmp/tcp.dst || fail "TCP receive on port $1 failed"
    _got=$(md5sum < /tmp/tcp.dst | cut -d' ' -f1)
    echo "TCP $1: received $(wc -c < /tmp/tcp.dst) bytes, md5 $_got"
    [ "$_got" = "$_want" ] || fail "TCP $1: data differs (md5 $_got, sent $_want)"
  else
    _end=$(($(date +%s) + 60))
    until nc -w 3 "$2" "$1" < /tmp/tcp.src; do
      [ "$(date +%s)" -lt "$_end" ] || fail "TCP $1: cannot connect to $2"
      sleep 0.5
    done
    echo "TCP $1: sent $(wc -c < /tmp/tcp.src) bytes, md5 $_want"
  fi
}
