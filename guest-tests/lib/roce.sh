# RoCE v2 helpers for two-guest tests on an Ethernet fabric, where each instance has on the
# fabric netdev either the mlx5-hca with link-type=eth (its mlx5e interface, RDMA device
# mlx5_0) or a virtio-net NIC (scripts/guest-run.py --fabric-nic I=virtio) running Linux
# Soft-RoCE (rdma_rxe, RDMA device rxe0). Use after common.sh and ipoib.sh (barrier).
#
# roce_up sets: FAB_KIND (hca|virtio), RIF (the netdev), RDEV (mlx5_0|rxe0), FAB_ME / FAB_PEER
# (192.168.77.(IDX+1) / the other one, on RIF), GIDX (RDEV's GID index of FAB_ME as RoCE v2).
# The out-of-band exchange of ibv_*_pingpong and perftest without -R runs over the management
# network (10.0.0.x); RDMA CM (rping, perftest -R) resolves the fabric addresses.

ROCE_T=${ROCE_T:-150}        # seconds each RDMA program may run
ROCE_PORT=${ROCE_PORT:-18500}  # TCP/CM ports of the runs: one more for each

# fabric_virtio_if: the virtio-net interface on the fabric (MAC 02:4d:52:*)
fabric_virtio_if() {
  [ -n "${FABRIC_IF:-}" ] && { echo "$FABRIC_IF"; return 0; }
  for _n in /sys/class/net/*; do
    [ "$(basename "$(readlink "$_n/device/driver" 2>/dev/null)")" = virtio_net ] || continue
    case $(cat "$_n/address") in 02:4d:52:*) echo "${_n##*/}"; return 0 ;; esac
  done
  return 1
}

# ipv4_gid A.B.C.D: the IPv4-mapped GID as sysfs prints it (0000:...:ffff:c0a8:4d01)
ipv4_gid() {
  # shellcheck disable=SC2046,SC2183
  printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' $(echo "$1" | tr . ' ')
}

# mac_gid MAC: the default GID ib_core derives from a netdev's MAC (fe80::EUI-64)
mac_gid() {
  # shellcheck disable=SC2046,SC2183
  set -- $(echo "$1" | tr : ' ')
  printf 'fe80:0000:0000:0000:%02x%s:%sff:fe%s:%s%s\n' $((0x$1 ^ 2)) "$2" "$3" "$4" "$5" "$6"
}

# gid_index DEV PORT GID [TYPE]: the index of GID (sysfs form) of TYPE ("RoCE v2" unless
# given; "IB/RoCE v1" is the other) in DEV's table; status 1 if absent
gid_index() {
  for _g in /sys/class/infiniband/"$1"/ports/"$2"/gids/*; do
    [ "$(cat "$_g" 2>/dev/null)" = "$3" ] || continue
    _i=${_g##*/}
    if [ "$(cat "/sys/class/infiniband/$1/ports/$2/gid_attrs/types/$_i" 2>/dev/null)" = "${4:-RoCE v2}" ]; then
      echo "$_i"; return 0
    fi
  done
  return 1
}

# show_gids DEV PORT: the used entries of the GID table (index, GID, type, netdev)
show_gids() {
  echo "GID table of $1 port $2 (index GID type netdev):"
  _a=/sys/class/infiniband/$1/ports/$2/gid_attrs
  for _g in /sys/class/infiniband/"$1"/ports/"$2"/gids/*; do
    _v=$(cat "$_g" 2>/dev/null) _i=${_g##*/}
    case $_v in ''|0000:0000:0000:0000:0000:0000:0000:0000) continue ;; esac
    echo "  $_i $_v $(cat "$_a/types/$_i" 2>/dev/null | tr ' ' _) $(cat "$_a/ndevs/$_i" 2>/dev/null)"
  done | sort -n
}

# rxe_up NETDEV: Soft-RoCE device rxe0 on NETDEV (crc32_generic first: Debian 6.12's rxe takes
# its ICRC's CRC-32 from the crypto API and `rdma link add` fails without it)
rxe_up() {
  run modprobe -a crc32_generic rdma_rxe || fail "modprobe rdma_rxe failed (not in the image? scripts/build-image.sh)"
  run rdma link add rxe0 type rxe netdev "$1" || fail "rdma link add rxe0 type rxe netdev $1 failed"
  rdma link show rxe0/1 || true
}

# roce_up: bring up this instance's side of the fabric (see the top of the file), wait for the
# RDMA port to be ACTIVE with link layer Ethernet, for the RoCE v2 GID of FAB_ME, and for the
# peer's answer to ping over RIF
roce_up() {
  FAB_KIND=${FABRIC_NIC:-}
  if [ -z "$FAB_KIND" ]; then     # (an image whose /init does not export it)
    if fabric_virtio_if >/dev/null; then FAB_KIND=virtio; else FAB_KIND=hca; fi
  fi
  FAB_ME=192.168.77.$((IDX + 1)) FAB_PEER=192.168.77.$((2 - IDX))
  run modprobe -a ib_uverbs rdma_ucm || fail "modprobe ib_uverbs rdma_ucm failed"
  case $FAB_KIND in
    virtio)
      RIF=$(fabric_virtio_if) ||
        fail "no virtio-net interface with the fabric MAC 02:4d:52:* (guest-run.py --fabric-nic I=virtio)"
      RDEV=rxe0
      ip link set "$RIF" up || fail "ip link set $RIF up failed"
      ip addr add "$FAB_ME/24" dev "$RIF" || fail "cannot give $RIF $FAB_ME"
      rxe_up "$RIF"
      ;;
    hca)
      load_mlx5
      wait_for 30 mlx5_netdev || fail "no mlx5e interface (mlx5e did not probe; is the device link-type=eth?)"
      RIF=$(mlx5_netdev)
      RDEV=mlx5_0
      wait_for 30 test -d /sys/class/infiniband/mlx5_0 ||
        fail "mlx5_ib did not register mlx5_0 on the Ethernet port"
      ip link set "$RIF" up || fail "ip link set $RIF up failed"
      ip addr add "$FAB_ME/24" dev "$RIF" || fail "cannot give $RIF $FAB_ME"
      ;;
    *) fail "this instance has no NIC on the fabric (FABRIC_NIC=$FAB_KIND)" ;;
  esac
  wait_for 30 grep -qx 1 "/sys/class/net/$RIF/carrier" || fail "$RIF has no carrier"
  echo "$RIF ($FAB_KIND, $(basename "$(readlink "/sys/class/net/$RIF/device/driver")")): $FAB_ME, MAC $(cat "/sys/class/net/$RIF/address"), MTU $(cat "/sys/class/net/$RIF/mtu")"
  wait_ib_active "$RDEV" 1 60
  _ll=$(cat "/sys/class/infiniband/$RDEV/ports/1/link_layer")
  [ "$_ll" = Ethernet ] || fail "$RDEV port 1 link layer is '$_ll', expected Ethernet (RoCE)"
  wait_for 30 gid_index "$RDEV" 1 "$(ipv4_gid "$FAB_ME")" || {
    show_gids "$RDEV" 1; fail "$RDEV has no RoCE v2 GID for $FAB_ME ($(ipv4_gid "$FAB_ME"))"; }
  GIDX=$(gid_index "$RDEV" 1 "$(ipv4_gid "$FAB_ME")")
  show_gids "$RDEV" 1
  _dev=$(ibv_devinfo -d "$RDEV") || fail "ibv_devinfo -d $RDEV failed"
  echo "+ ibv_devinfo -d $RDEV"; printf '%s\n' "$_dev"
  expect "$_dev" 'state:[[:space:]]*PORT_ACTIVE' "ibv_devinfo: $RDEV port PORT_ACTIVE"
  expect "$_dev" 'link_layer:[[:space:]]*Ethernet' "ibv_devinfo: $RDEV link_layer Ethernet"
  echo "roce: $RDEV on $RIF, $FAB_ME, RoCE v2 GID index $GIDX," \
       "active_mtu $(printf '%s\n' "$_dev" | sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*//p' | head -n1)"
  wait_for 60 ping -c 1 -W 1 "$FAB_PEER" || fail "no ping reply from $FAB_PEER over $RIF"
  run ping -c 2 "$FAB_PEER" | tail -n 2
}

# roce_check_gids: the GID table holds what ib_core puts there for a RoCE port: the default
# GID (fe80::EUI-64 of RIF's MAC) and FAB_ME, each as RoCE v2 and on RIF (RoCE v1 entries are
# reported, not required)
roce_check_gids() {
  _mac=$(cat "/sys/class/net/$RIF/address")
  _a=/sys/class/infiniband/$RDEV/ports/1/gid_attrs
  _d=$(gid_index "$RDEV" 1 "$(mac_gid "$_mac")") ||
    { show_gids "$RDEV" 1; fail "$RDEV has no RoCE v2 default GID $(mac_gid "$_mac") (from $RIF's MAC $_mac)"; }
  [ "$(cat "$_a/ndevs/$GIDX")" = "$RIF" ] ||
    fail "$RDEV GID $GIDX ($FAB_ME) is on netdev '$(cat "$_a/ndevs/$GIDX")', expected $RIF"
  [ "$(cat "$_a/ndevs/$_d")" = "$RIF" ] ||
    fail "$RDEV GID $_d (default) is on netdev '$(cat "$_a/ndevs/$_d")', expected $RIF"
  _v1=$(gid_index "$RDEV" 1 "$(ipv4_gid "$FAB_ME")" "IB/RoCE v1") || _v1=absent
  echo "roce: $RDEV GIDs on $RIF: default (RoCE v2) $_d, $FAB_ME RoCE v2 $GIDX, RoCE v1 $_v1"
}

# roce_pair NAME SRV CHECK SERVER_CMD... -- CLIENT_CMD...: instance SRV runs the server, the
# other the client (retried while the server does not listen yet), each under `timeout
# $ROCE_T`; both print their output (the path in ROCE_OUT), must exit 0, and the client's output
# must have a line matching the extended regex CHECK. Ends with a barrier of both instances.
roce_pair() {
  _name=$1 _srvi=$2 _check=$3; shift 3
  split_cmds "$@"
  _srv=$CMD1 _cli=$CMD2
  ROCE_OUT=/tmp/roce.$ROCE_PORT.out
  if [ "$IDX" = "$_srvi" ]; then
    _role=server
    echo "=== $_name: server on instance $IDX ($RDEV)"
    echo "+$_srv"
    # shellcheck disable=SC2086
    timeout "$ROCE_T" $_srv >"$ROCE_OUT" 2>&1; _rc=$?
  else
    _role=client
    echo "=== $_name: client on instance $IDX ($RDEV)"
    echo "+$_cli"
    _end=$(($(date +%s) + 60))
    while :; do
      # shellcheck disable=SC2086
      timeout "$ROCE_T" $_cli >"$ROCE_OUT" 2>&1; _rc=$?
      # the server does not listen yet: TCP refused (ibv_*, perftest), CM reject (rping, -R)
      [ $_rc != 0 ] && [ "$(date +%s)" -lt "$_end" ] &&
        grep -qi "couldn't connect\|connection refused\|unable to open file descriptor\|ECONNREFUSED\|error 111\|connect error\|reject\|event: 8\|unexpected CM event" "$ROCE_OUT" &&
        { sleep 0.5; continue; }
      break
    done
  fi
  cat "$ROCE_OUT"
  case $_rc in
    0) ;;
    124|137|143) fail "$_name ($_role, $RDEV): killed after ${ROCE_T}s (exit $_rc)" ;;
    *) fail "$_name ($_role, $RDEV) exited with $_rc" ;;
  esac
  if [ $_role = client ]; then
    grep -Eq "$_check" "$ROCE_OUT" || fail "$_name ($_role, $RDEV): no result line (/$_check/)"
  fi
  barrier "$_name.$ROCE_PORT" 6200
}

# roce_expect EREGEX WHAT: the output of the last roce_pair has a line matching EREGEX
roce_expect() {
  grep -Eq "$1" "$ROCE_OUT" || fail "expected $2 (/$1/) in the output above"
}

# roce_suite SRV: the RDMA programs over RoCE v2 with instance SRV as the server (the other
# instance is the client); every one under a timeout, its output printed
roce_suite() {
  _s=$1
  _smgmt=10.0.0.$((_s + 1)) _sfab=192.168.77.$((_s + 1))
  _sgid=$(printf '%s' "$_sfab" | sed 's/\./\\./g')
  # perftest prints GIDs as 16 decimal bytes: ...:255:255:192:168:77:01
  _spt="GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:77:0$((_s + 1))"
  echo "##### RoCE v2, server instance $_s ($_sfab), this instance $IDX: $RDEV GID index $GIDX"

  ROCE_PORT=$((ROCE_PORT + 1))
  roce_pair ibv_rc_pingpong "$_s" "bytes in .* seconds" \
    ibv_rc_pingpong -d "$RDEV" -g "$GIDX" -p $ROCE_PORT -- \
    ibv_rc_pingpong -d "$RDEV" -g "$GIDX" -p $ROCE_PORT "$_smgmt"
  roce_expect "local address: .*GID ::ffff:$(printf '%s' "$FAB_ME" | sed 's/\./\\./g')\$" "our IPv4 RoCE v2 GID"
  [ "$IDX" = "$_s" ] || roce_expect "remote address: .*GID ::ffff:$_sgid\$" "the server's IPv4 GID"

  # UD needs the GRH (-g) on RoCE; a message must fit the path MTU (1024 at Ethernet MTU 1500)
  ROCE_PORT=$((ROCE_PORT + 1))
  roce_pair ibv_ud_pingpong "$_s" "bytes in .* seconds" \
    ibv_ud_pingpong -d "$RDEV" -g "$GIDX" -s 1024 -p $ROCE_PORT -- \
    ibv_ud_pingpong -d "$RDEV" -g "$GIDX" -s 1024 -p $ROCE_PORT "$_smgmt"
  [ "$IDX" = "$_s" ] || roce_expect "remote address: .*GID ::ffff:$_sgid\$" "the server's IPv4 GID"

  ROCE_PORT=$((ROCE_PORT + 1))
  roce_pair rping "$_s" "ping data: rdma-ping-9" \
    rping -s -a "$_sfab" -p $ROCE_PORT -C 10 -v -- \
    rping -c -a "$_sfab" -p $ROCE_PORT -C 10 -v

  ROCE_PORT=$((ROCE_PORT + 1))
  roce_pair "ib_write_bw -R" "$_s" "^ *65536 +200 " \
    ib_write_bw -R -d "$RDEV" -n 200 -p $ROCE_PORT -- \
    ib_write_bw -R -d "$RDEV" -n 200 -p $ROCE_PORT "$_sfab"
  roce_expect "Link type *: Ethernet" "perftest's link type Ethernet"

  ROCE_PORT=$((ROCE_PORT + 1))
  roce_pair "ib_send_bw -x" "$_s" "^ *65536 +200 " \
    ib_send_bw -d "$RDEV" -x "$GIDX" -n 200 -p $ROCE_PORT -- \
    ib_send_bw -d "$RDEV" -x "$GIDX" -n 200 -p $ROCE_PORT "$_smgmt"
  roce_expect "Link type *: Ethernet" "perftest's link type Ethernet"
  [ "$IDX" = "$_s" ] || roce_expect "$_spt" "the server's IPv4 GID"

  # (READ by GID, not through RDMA CM: perftest's -R READ latency client crashed in librdmacm
  # between two Soft-RoCE guests once, a general protection fault in user space; RDMA CM is
  # covered by rping and ib_write_bw -R above). -o 16: without RDMA CM perftest takes each
  # side's own device maximum of outstanding READs (mlx5 16, rxe 128) and the side with the
  # smaller one cannot go to RTS with the other's; 16 suits both, as on real hardware.
  ROCE_PORT=$((ROCE_PORT + 1))
  roce_pair "ib_read_lat -x" "$_s" "^ *2 +200 +[0-9.]+" \
    ib_read_lat -d "$RDEV" -x "$GIDX" -o 16 -n 200 -p $ROCE_PORT -- \
    ib_read_lat -d "$RDEV" -x "$GIDX" -o 16 -n 200 -p $ROCE_PORT "$_smgmt"
}
