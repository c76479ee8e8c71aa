# IPoIB and fabric helpers for tests of 2-4 guests. Use after common.sh.
# IPoIB addresses: 192.168.77.(IDX+1)/24 on ib0; IB_ME, and with two guests IB_PEER, are set by
# ipoib_up.

# barrier NAME PORT: all N instances get here before any goes on, over the management network
# (10.0.0.(i+1)). Instance k (k > 0) checks in at instance 0's port PORT+k; once all have,
# instance 0 releases each at its port PORT. One connector per listener: a second client in
# a listener's backlog would be reset after its nc had already reported success. Uses ports
# PORT..PORT+N-1.
barrier() {
  if [ "$IDX" = 0 ]; then
    _k=1
    while [ $_k -lt "$N" ]; do
      timeout 120 nc -l -p $(($2 + _k)) >/dev/null || fail "barrier $1: instance $_k never came"
      _k=$((_k + 1))
    done
    _k=1
    while [ $_k -lt "$N" ]; do
      _try "barrier $1: instance $_k" nc -w 1 "10.0.0.$((_k + 1))" "$2"
      _k=$((_k + 1))
    done
  else
    _try "barrier $1: instance 0" nc -w 1 10.0.0.1 $(($2 + IDX))
    timeout 120 nc -l -p "$2" >/dev/null || fail "barrier $1: never released"
  fi
}

# _try WHAT CMD...: retry CMD (stdin: WHAT) for up to 2 minutes
_try() {
  _what=$1; shift
  _end=$(($(date +%s) + 120))
  until echo "$_what" | "$@" 2>/dev/null; do
    [ "$(date +%s)" -lt "$_end" ] || fail "$_what: no answer"
    sleep 0.3
  done
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
  _k=0
  while [ $_k -lt "$N" ]; do
    [ $_k = "$IDX" ] || wait_for 60 ping -c 1 -W 1 "192.168.77.$((_k + 1))" ||
      fail "no ping reply from 192.168.77.$((_k + 1)) over ib0"
    _k=$((_k + 1))
  done
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
